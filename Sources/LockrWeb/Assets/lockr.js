// The pages' one script, served from lockr itself (the Content-Security-Policy allows no inline
// script). Every page shows where things stand without it; with it:
// - the page follows the person's live events (`/events`), countdowns tick, and a gate shut by
//   wrong answers shows again when it opens;
// - the sentence cannot be pasted or dropped into its field, as the CLI refuses pasted input (a
//   browser's own tools can still get around that; the sentence's point is the effort of typing);
// - a chess move is made by choosing a piece and its square;
// - the emergency is a press-and-hold that the server times: the press begins the hold, letting go
//   ends it, and a hold let go too soon grants nothing;
// - the sentence is recorded with the microphone (MediaRecorder, where the page is a secure
//   context) or taken from a recording the phone makes (a file input with `capture`), and sent as
//   16 kHz mono WAV, which the daemon hears.
"use strict";
// Every kind of live event the daemon sends (LiveEvent.Kind; a test keeps the two the same).
const liveKinds = ["window_opened", "window_ending", "window_closed", "budget_low", "locked", "unlocked", "app_opened", "protection_off", "protection_back", "settings_changed"];

function post(path, fields) {
  return fetch(path, { method: "POST", body: new URLSearchParams(fields), credentials: "same-origin" })
    .then((response) => response.json().then((body) => ({ ok: response.ok, body })));
}

function busy() {
  const field = document.activeElement;
  return document.body.dataset.holding === "yes" || document.body.dataset.recording === "yes"
    || (field && field.tagName === "INPUT" && field.value !== "");
}

function changed() {
  if (!busy()) { location.reload(); return; }
  const banner = document.querySelector("[data-changed]");
  if (banner) { banner.hidden = false; }
}

function followLiveEvents() {
  if (!document.querySelector("[data-live]") || !window.EventSource) { return; }
  const events = new EventSource("/events");
  for (const kind of liveKinds) { events.addEventListener(kind, changed); }
  // A page left (or kept in the back-forward cache) lets its connection go: browsers allow
  // only a few per server, and the next page needs one.
  window.addEventListener("pagehide", () => events.close());
  window.addEventListener("pageshow", (event) => { if (event.persisted) { location.reload(); } });
}

function tickCountdowns() {
  const chips = [...document.querySelectorAll("[data-countdown]")];
  if (chips.length === 0) { return; }
  const started = Date.now();
  const ends = chips.map((chip) => Number(chip.dataset.countdown));
  setInterval(() => {
    const gone = Math.floor((Date.now() - started) / 1000);
    chips.forEach((chip, index) => {
      const left = ends[index] - gone;
      if (left <= 0) { changed(); return; }
      const minutes = Math.floor(left / 60), seconds = left % 60;
      chip.textContent = minutes + ":" + String(seconds).padStart(2, "0") + " left";
    });
  }, 1000);
}

function reloadWhenDue() {
  for (const element of document.querySelectorAll("[data-reload-in]")) {
    setTimeout(changed, Number(element.dataset.reloadIn) * 1000 + 500);
  }
}

function refusePaste() {
  for (const field of document.querySelectorAll("input[name=phrase]")) {
    for (const kind of ["paste", "drop"]) {
      field.addEventListener(kind, (event) => {
        event.preventDefault();
        field.setCustomValidity("Type the sentence: pasting it is not taken.");
        field.reportValidity();
      });
    }
    field.addEventListener("input", () => field.setCustomValidity(""));
  }
}

function chessBoards() {
  for (const board of document.querySelectorAll("[data-board]")) {
    const answer = document.getElementById(board.dataset.board);
    const white = board.dataset.fen.split(" ")[1] === "w";
    let from = null;
    board.addEventListener("click", (event) => {
      const square = event.target.closest("[data-square]");
      if (!square) { return; }
      const piece = square.dataset.piece;
      const own = piece !== "" && (piece === piece.toUpperCase()) === white;
      if (own) {
        if (from) { from.setAttribute("aria-pressed", "false"); }
        from = square;
        square.setAttribute("aria-pressed", "true");
        return;
      }
      if (!from) { return; }
      const pawn = from.dataset.piece.toLowerCase() === "p";
      const lastRank = square.dataset.square[1] === (white ? "8" : "1");
      answer.value = from.dataset.square + square.dataset.square + (pawn && lastRank ? "q" : "");
      from.setAttribute("aria-pressed", "false");
      from = null;
      answer.form.querySelector("button[type=submit]").focus();
    });
  }
}

function emergencyHold() {
  const area = document.querySelector("[data-emergency]");
  if (!area) { return; }
  area.hidden = false;
  const button = area.querySelector("[data-hold]");
  const status = area.querySelector("[data-hold-status]");
  const csrf = area.dataset.csrf;
  let hold = null, timer = null;
  function press(event) {
    event.preventDefault();
    if (hold) { return; }
    document.body.dataset.holding = "yes";
    const started = Date.now();
    const seconds = Number(button.dataset.seconds);
    status.textContent = "Keep holding: " + seconds + " s";
    timer = setInterval(() => {
      const left = Math.max(0, seconds - Math.floor((Date.now() - started) / 1000));
      status.textContent = left > 0 ? "Keep holding: " + left + " s" : "You can let go.";
    }, 250);
    hold = post("/emergency/hold", { csrf });
  }
  function release() {
    if (!hold) { return; }
    clearInterval(timer);
    const begun = hold;
    hold = null;
    document.body.dataset.holding = "no";
    begun.then((started) => {
      if (!started.ok) { status.textContent = started.body.error; return; }
      return post("/emergency", { csrf, hold: started.body.hold }).then((done) => {
        if (done.ok) { status.textContent = "Open until " + done.body.ends.local + "."; location.reload(); }
        else { status.textContent = done.body.error; }
      });
    }).catch(() => { status.textContent = "lockr could not be reached."; });
  }
  button.addEventListener("pointerdown", press);
  button.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && !event.repeat) { press(event); }
  });
  for (const kind of ["pointerup", "pointerleave", "pointercancel", "blur"]) { button.addEventListener(kind, release); }
  button.addEventListener("keyup", (event) => { if (event.key === " " || event.key === "Enter") { release(); } });
  button.addEventListener("contextmenu", (event) => event.preventDefault());
}

function wav(buffer) {
  const samples = buffer.getChannelData(0).map((_, index) => {
    let sum = 0;
    for (let channel = 0; channel < buffer.numberOfChannels; channel++) { sum += buffer.getChannelData(channel)[index]; }
    return sum / buffer.numberOfChannels;
  });
  const view = new DataView(new ArrayBuffer(44 + samples.length * 2));
  const text = (offset, value) => { for (let i = 0; i < value.length; i++) { view.setUint8(offset + i, value.charCodeAt(i)); } };
  text(0, "RIFF"); view.setUint32(4, 36 + samples.length * 2, true); text(8, "WAVE");
  text(12, "fmt "); view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, buffer.sampleRate, true); view.setUint32(28, buffer.sampleRate * 2, true);
  view.setUint16(32, 2, true); view.setUint16(34, 16, true);
  text(36, "data"); view.setUint32(40, samples.length * 2, true);
  samples.forEach((sample, index) => {
    view.setInt16(44 + index * 2, Math.max(-1, Math.min(1, sample)) * 0x7fff, true);
  });
  return new Blob([view], { type: "audio/wav" });
}

function voice() {
  const area = document.querySelector("[data-voice]");
  if (!area) { return; }
  area.hidden = false;
  const status = area.querySelector("[data-voice-status]");
  const record = area.querySelector("[data-record]");
  function send(audio) {
    status.textContent = "Listening to the recording…";
    return audio.arrayBuffer()
      .then((bytes) => new OfflineAudioContext(1, 1, 16000).decodeAudioData(bytes))
      .then((buffer) => fetch("/gate/voice", {
        method: "POST", body: wav(buffer), credentials: "same-origin",
        headers: { "Content-Type": "audio/wav", "X-Lockr-Form": area.dataset.csrf },
      }))
      .then((response) => response.json().then((body) => {
        if (response.ok) { status.textContent = "Heard: " + body.heard; location.reload(); return; }
        status.textContent = body.error;
      }))
      .catch(() => { status.textContent = "That recording could not be read: try again, or type the sentence where it is taken."; });
  }
  area.querySelector("[data-clip]").addEventListener("change", (event) => {
    if (event.target.files.length > 0) { send(event.target.files[0]); }
  });
  if (!window.isSecureContext || !navigator.mediaDevices || !window.MediaRecorder) { return; }
  record.hidden = false;
  let recorder = null;
  record.addEventListener("click", () => {
    if (recorder) { recorder.stop(); return; }
    navigator.mediaDevices.getUserMedia({ audio: true }).then((stream) => {
      const chunks = [];
      recorder = new MediaRecorder(stream);
      recorder.addEventListener("dataavailable", (event) => chunks.push(event.data));
      recorder.addEventListener("stop", () => {
        for (const track of stream.getTracks()) { track.stop(); }
        recorder = null;
        document.body.dataset.recording = "no";
        record.textContent = "Record";
        send(new Blob(chunks, { type: chunks[0] ? chunks[0].type : "" }));
      });
      recorder.start();
      document.body.dataset.recording = "yes";
      record.textContent = "Stop";
      status.textContent = "Recording: say the sentence, then press Stop.";
      setTimeout(() => { if (recorder) { recorder.stop(); } }, 20000);
    }).catch(() => { status.textContent = "No microphone, or no permission to use it: send a recording instead."; });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  followLiveEvents();
  tickCountdowns();
  reloadWhenDue();
  refusePaste();
  chessBoards();
  emergencyHold();
  voice();
});
