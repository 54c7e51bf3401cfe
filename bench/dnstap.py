"""dnstap in: how many messages one lockr ingests, at what CPU per message, and how soon a query
through unbound shows in `lockr status`.

1. A capture: unbound (local data, no upstream) logs its clients' queries by dnstap to
   `fstrm_capture`, while dnsperf asks it N names, half of them TikTok's.
2. Ingest: lockr (release build, time mode guarding TikTok, `[dnstap] socket`) takes the capture
   from `fstrm_replay` (libfstrm's writer, as unbound and BIND use it), R copies by W writers at
   once; the wall time until lockr counted them all, and lockr's CPU time (utime + stime) for them.
3. Latency: unbound sends its dnstap to lockr; for each of P probes, one query with dig, then lockr's
   control API is read every millisecond until its dnstap count of metered questions rises. unbound
   hands a lone message to its writer on a 1-second timer (at once when 32 are queued), so lockr's
   own part is also timed: one message sent by fstrm_replay, to the count rising.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from rpz import free_port, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
LOCKR = os.environ.get("LOCKR_BINARY", os.path.join(HERE, "..", ".build", "release", "lockr"))
CONTENT_TYPE = "protobuf:dnstap.Dnstap"
TICKS = os.sysconf("SC_CLK_TCK")


def unbound_config(directory, port, dnstap_socket):
    return f"""server:
  interface: 127.0.0.1@{port}
  do-daemonize: no
  username: ""
  chroot: ""
  pidfile: ""
  use-syslog: no
  logfile: ""
  verbosity: 0
  directory: "{directory}"
  access-control: 127.0.0.0/8 allow
  num-threads: 1
  local-zone: "tiktok.com." static
  local-data: "tiktok.com. A 192.0.2.21"
  local-zone: "example." static
dnstap:
  dnstap-enable: yes
  dnstap-socket-path: "{dnstap_socket}"
  dnstap-log-client-query-messages: yes
"""


def start_unbound(work, name, port, dnstap_socket):
    path = os.path.join(work, f"{name}.conf")
    with open(path, "w") as f:
        f.write(unbound_config(work, port, dnstap_socket))
    process = subprocess.Popen(["/usr/sbin/unbound", "-d", "-c", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    ask = ["dig", "@127.0.0.1", "-p", str(port), "+tries=1", "+time=1", "+short", "tiktok.com"]
    if not wait_until(lambda: subprocess.run(ask, capture_output=True, text=True).stdout.strip() != "", 20):
        raise SystemExit(f"bench/dnstap: unbound ({name}) does not answer")
    return process


def data_frames(path):
    """How many data frames a Frame Streams file holds."""
    count, data = 0, open(path, "rb").read()
    offset = 0
    while offset + 4 <= len(data):
        (length,) = struct.unpack_from(">I", data, offset)
        if length == 0:
            (control,) = struct.unpack_from(">I", data, offset + 4)
            offset += 8 + control
        else:
            count += 1
            offset += 4 + length
    return count


def capture(work, messages):
    """A capture of `messages` client queries unbound logged, half of them TikTok's."""
    socket_path, file_path = os.path.join(work, "capture.sock"), os.path.join(work, "capture.fstrm")
    capturer = subprocess.Popen(["fstrm_capture", "-t", CONTENT_TYPE, "-u", socket_path, "-w", file_path],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: os.path.exists(socket_path), 10)
    port = free_port()
    unbound = start_unbound(work, "capturing", port, socket_path)
    queries = os.path.join(work, "queries.txt")
    with open(queries, "w") as f:
        for index in range(messages):
            f.write(f"{'www.tiktok.com' if index % 2 == 0 else f'name{index}.example'} A\n")
    # dnsperf at a rate unbound's dnstap queue keeps up with, so that the capture holds them all.
    subprocess.run(["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", queries, "-n", "1", "-Q", "20000", "-q",
                    "50"], check=True, capture_output=True)
    time.sleep(1)
    unbound.send_signal(signal.SIGTERM)
    unbound.wait(timeout=30)
    capturer.send_signal(signal.SIGINT)
    capturer.wait(timeout=30)
    return file_path, data_frames(file_path)


class Lockr:
    def __init__(self, work):
        self.state = os.path.join(work, "state")
        os.makedirs(self.state)
        self.socket = os.path.join(work, "dnstap.sock")
        config = os.path.join(work, "lockr.toml")
        with open(config, "w") as f:
            f.write(f"""guard = ["tiktok"]
[policy]
mode = "time"
[time]
budget-minutes = 180
[dnstap]
socket = "{self.socket}"
""")
        self.control = free_port()
        self.log = open(os.path.join(work, "lockr.log"), "w")
        self.process = subprocess.Popen(
            [LOCKR, "serve", "--config", config, "--state-dir", self.state, "--listen", f"127.0.0.1:{free_port()}",
             "--control", f"127.0.0.1:{self.control}", "--web", "off", "--upstream", "127.0.0.1:9"],
            stdout=self.log, stderr=self.log)
        if not wait_until(lambda: os.path.exists(self.socket) and self.token() is not None, 20):
            raise SystemExit("bench/dnstap: lockr does not listen for dnstap")

    def token(self):
        try:
            return open(os.path.join(self.state, "control.token")).read().strip()
        except OSError:
            return None

    def dnstap(self):
        request = urllib.request.Request(f"http://127.0.0.1:{self.control}/api/v1/status",
                                         headers={"Authorization": f"Bearer {self.token()}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)["dnstap"]

    def cpu_seconds(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def ingest(lockr, capture_file, frames, copies, writers):
    """Wall seconds and lockr's CPU seconds for `copies` replays of the capture by `writers` at once."""
    before_messages, before_cpu = lockr.dnstap()["messages"], lockr.cpu_seconds()
    start = time.monotonic()
    per_writer = [copies // writers + (1 if index < copies % writers else 0) for index in range(writers)]
    replays = [subprocess.Popen(["fstrm_replay", "-t", CONTENT_TYPE, "-u", lockr.socket]
                                + [argument for _ in range(count) for argument in ("-r", capture_file)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for count in per_writer]
    expected = before_messages + frames * copies
    counted = wait_until(lambda: lockr.dnstap()["messages"] >= expected, 300)
    wall = time.monotonic() - start
    for replay in replays:
        replay.wait(timeout=60)
    if not counted:
        raise SystemExit(f"bench/dnstap: lockr counted {lockr.dnstap()['messages'] - before_messages} of "
                         f"{frames * copies}")
    return wall, lockr.cpu_seconds() - before_cpu


def single_message(capture_file, work):
    """A Frame Streams file of the capture's START, first TikTok message (the second frame) and STOP."""
    data = open(capture_file, "rb").read()
    (start_length,) = struct.unpack_from(">I", data, 4)
    start = data[:8 + start_length]
    offset, frames = len(start), []
    while len(frames) < 2:
        (length,) = struct.unpack_from(">I", data, offset)
        frames.append(data[offset:offset + 4 + length])
        offset += 4 + length
    path = os.path.join(work, "one.fstrm")
    with open(path, "wb") as f:
        f.write(start + frames[1] + struct.pack(">III", 0, 4, 3))
    return path


def until_metered(lockr, metered, start):
    """Reads lockr's figures every millisecond until its metered count passes `metered`: the seconds
    since `start`, or infinity after 10 s."""
    while time.monotonic() - start < 10:
        if lockr.dnstap()["metered"] > metered:
            return time.monotonic() - start
        time.sleep(0.001)
    return float("inf")


def own_latency(lockr, one_message, probes):
    """Seconds from fstrm_replay starting to send one message to lockr's status counting it."""
    seconds = []
    for _ in range(probes):
        metered = lockr.dnstap()["metered"]
        start = time.monotonic()
        subprocess.Popen(["fstrm_replay", "-t", CONTENT_TYPE, "-u", lockr.socket, "-r", one_message],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds.append(until_metered(lockr, metered, start))
        time.sleep(0.1)
    return seconds


def latency(lockr, work, probes):
    """Seconds from each query through unbound to lockr's status counting it as metered."""
    port = free_port()
    unbound = start_unbound(work, "probing", port, lockr.socket)
    try:
        wait_until(lambda: lockr.dnstap()["connected"] >= 1, 20)
        seconds = []
        for _ in range(probes):
            metered = lockr.dnstap()["metered"]
            start = time.monotonic()
            subprocess.run(["dig", "@127.0.0.1", "-p", str(port), "+tries=1", "+time=1", "+short", "api.tiktok.com"],
                           capture_output=True, check=True)
            seconds.append(until_metered(lockr, metered, start))
            time.sleep(0.2)
        return seconds
    finally:
        unbound.send_signal(signal.SIGTERM)
        unbound.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000, help="client queries in the capture")
    parser.add_argument("--copies", type=int, default=20, help="replays of the capture")
    parser.add_argument("--writers", type=int, default=2, help="replays at once")
    parser.add_argument("--probes", type=int, default=20, help="queries timed through unbound")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    checking = "--check-arguments" in sys.argv
    if checking:
        sys.argv.remove("--check-arguments")
    options = parser.parse_args()
    if min(options.messages, options.copies, options.writers, options.probes) < 1:
        parser.error("each count must be at least 1")
    if checking:
        return
    work = tempfile.mkdtemp(prefix="lockr-bench-dnstap-")
    capture_file, frames = capture(work, options.messages)
    lockr = Lockr(work)
    try:
        rounds = [ingest(lockr, capture_file, frames, options.copies, options.writers) for _ in range(2)]
        probes = latency(lockr, work, options.probes)
        own = own_latency(lockr, single_message(capture_file, work), options.probes)
        figures = lockr.dnstap()
    finally:
        lockr.stop()
    total = frames * options.copies
    lines = [f"# dnstap ingest, {time.strftime('%Y-%m-%d %H:%M')}", "",
             f"A capture of {frames} client queries by unbound (`fstrm_capture`; {options.messages} asked, half "
             f"TikTok's), replayed {options.copies} times by {options.writers} `fstrm_replay` writers at once into "
             "one lockr (release build), two rounds:", "",
             "| round | messages | wall s | messages/s | lockr CPU s | CPU per message |", "|---|---|---|---|---|---|"]
    for index, (wall, cpu) in enumerate(rounds):
        lines.append(f"| {index + 1} | {total} | {wall:.2f} | {total / wall:,.0f} | {cpu:.2f} | "
                     f"{cpu / total * 1e6:.2f} us |")
    lines += ["", f"lockr's figures at the end: {figures['messages']} messages, {figures['metered']} metered, "
              f"{figures['malformed']} malformed, {figures['broken']} connections cut off, {figures['refused']} "
              "turned away.", "",
              f"From a query through unbound to `lockr status` counting it ({options.probes} probes, the control API "
              f"read every millisecond): median {statistics.median(probes) * 1000:.1f} ms, worst "
              f"{max(probes) * 1000:.1f} ms (unbound hands a lone message on after up to 1 s, its writer's timer). "
              f"lockr's own part, from `fstrm_replay` sending one message: median {statistics.median(own) * 1000:.1f} "
              f"ms, worst {max(own) * 1000:.1f} ms (the replayer's start included).", ""]
    os.makedirs(options.out, exist_ok=True)
    path = os.path.join(options.out, f"dnstap-{time.strftime('%Y%m%d-%H%M%S')}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print(f"written to {path}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
