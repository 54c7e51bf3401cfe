#!/usr/bin/env python3
"""The soak: lockr under mixed load for a long while, killed and disturbed, checked at the end.

Everything runs on 127.0.0.1 and stops by itself. An nsd upstream (the peer harness's) answers
"test."; lockr runs with a household of three (the default person, kid at 127.0.0.2, teen at
127.0.0.3), a 100k-name block list and --time-scale 60, so that an hour of policy time passes each
real minute. Meanwhile:
  - dnsperf sends the harness's mix of blocked and allowed names at half the rate lockr saturates at,
    in one-minute rounds (rounds with a kill or an outage in them are told apart);
  - a household acts through the CLI and the API (guard, mode, snooze, extend, unlock, schedules),
    each action's acknowledged effect noted in a model;
  - the kid's and the teen's devices use their apps (tiktok, youtube) in sessions, sent the same to
    lockr and to an unkilled twin (a second lockr that is never disturbed, given the same household
    actions), whose use is compared;
  - event streams are held open (API and pages) and the pages are loaded;
  - every few minutes lockr is killed with SIGKILL and started again, the upstream stops answering
    for 20 s (SIGSTOP), the block list changes and lockr is sent SIGHUP.
At the end: queries lost (in undisturbed rounds, and in all), metering error per kill against the
twin, RSS and open files at the start and the end, both databases' integrity, and the policy's
state against the model. Results: bench/results/soak-*.md.
"""
import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.environ.get("LOCKR_PEERS_DIR", os.path.join(HERE, "..", "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS_DIR)
import run_bench  # noqa: E402

LOCKR = os.path.join(HERE, "..", ".build", "release", "lockr")
PORT, TWIN_PORT = 5351, 5352
WEB_PORT, TWIN_WEB_PORT = 5353, 5354
SOAK = os.path.join(run_bench.RUN, "soak")
APPS = ["tiktok", "youtube", "instagram", "reddit", "twitch"]


def log(message):
    print(time.strftime("%H:%M:%S"), message, flush=True)


class Lockr:
    """One lockr process on its own state directory, restartable."""

    def __init__(self, name, port, web_port, config):
        self.name, self.port, self.web_port, self.config = name, port, web_port, config
        self.state = os.path.join(SOAK, name)
        os.makedirs(self.state, exist_ok=True)
        self.process = None
        self.kills = 0
        self.restart_seconds = []

    def argv(self):
        return [LOCKR, "serve", "--config", self.config, "--listen", f"127.0.0.1:{self.port}",
                "--control", "127.0.0.1:0", "--web", f"127.0.0.1:{self.web_port}", "--state-dir", self.state,
                "--upstream", f"127.0.0.1:{run_bench.UPSTREAM_PORT}", "--time-scale", "60",
                "--log-level", "notice"]

    def start(self):
        started = time.monotonic()
        self.process = run_bench.start(self.name, self.argv(), f"{self.name}.log")
        while time.monotonic() - started < 30:
            if run_bench.query(self.port, "www.example-1.test", timeout=0.2) is not None and self.token():
                return time.monotonic() - started
            time.sleep(0.02)
        raise SystemExit(f"soak: {self.name} did not start (see {run_bench.RUN}/{self.name}.log)")

    def kill9(self):
        self.process.kill()
        self.process.wait()
        run_bench.STARTED.pop(self.process.pid, None)
        self.kills += 1
        self.restart_seconds.append(self.start())

    def hangup(self):
        self.process.send_signal(signal.SIGHUP)

    def stop(self):
        run_bench.stop(self.process)

    def token(self):
        try:
            with open(os.path.join(self.state, "control.token")) as token, \
                    open(os.path.join(self.state, "control.address")) as address:
                return token.read().strip(), address.read().strip()
        except OSError:
            return None

    def cli(self, *arguments):
        ran = subprocess.run([LOCKR, *arguments, "--state-dir", self.state], capture_output=True, text=True,
                             timeout=30)
        return ran.returncode, ran.stdout + ran.stderr

    def api(self, method, path, body=None):
        endpoint = self.token()
        if endpoint is None:
            return None, None
        token, address = endpoint
        request = urllib.request.Request(
            f"http://{address}/api/v1/{path}", method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")
        except (OSError, ValueError):
            return None, None

    def rss_and_files(self):
        pid = self.process.pid
        return run_bench.rss_kb(pid)[0] // 1024, len(os.listdir(f"/proc/{pid}/fd"))


def household_config(blocklist):
    path = os.path.join(SOAK, "lockr.toml")
    with open(path, "w") as out:
        out.write(f"""guard = ["tiktok", "youtube"]
blocklists = ["{blocklist}"]
[time]
budget-minutes = 120
[people.kid]
devices = ["127.0.0.2"]
guard = ["tiktok", "youtube"]
[people.kid.time]
budget-minutes = 60
[people.teen]
devices = ["127.0.0.3"]
guard = ["tiktok", "youtube", "instagram"]
""")
    return path


class Model:
    """What the household's acknowledged actions should have left."""

    def __init__(self):
        self.guarded_added = {"default": set(), "kid": set(), "teen": set()}
        self.pending = []
        self.actions = 0
        self.refused = 0
        self.failed = []


def act(lockr, twin, model, rng, stop):
    """A household's actions, one every few seconds, through the CLI and the API; each one lockr
    answered goes to the twin as well, so that the two meter the same policy (an action lockr did
    not answer, as it was being restarted, goes to neither)."""
    while not stop.is_set():
        stop.wait(rng.uniform(2, 6))
        person = rng.choice(["default", "kid", "teen"])
        app = rng.choice(APPS)
        kind = rng.choice(["guard", "unguard", "snooze", "extend", "unlock", "status", "mode", "schedule"])
        try:
            code, text, answered = perform(lockr, kind, person, app)
            if answered:
                perform(twin, kind, person, app)
            if kind == "guard" and code == 0:
                model.guarded_added[person].add(app)
            elif kind == "unguard" and code == 0:
                # Loosening: it waits, and may have applied by the end.
                model.guarded_added[person].discard(app)
                match = re.search(r"#(\d+) ", text)
                if match:
                    model.pending.append((person, match.group(1)))
            model.actions += 1
            model.refused += code != 0
        except subprocess.TimeoutExpired:
            model.failed.append(f"{kind} {app} for {person}: no answer in 30 s")


def perform(lockr, kind, person, app):
    """One household action on `lockr`: its exit code (0 done), its words, and whether lockr
    answered at all."""
    if kind in ("unlock", "mode"):
        if kind == "unlock":
            status, body = lockr.api("POST", f"unlock?person={person}", {"app": app})
        else:
            status, body = lockr.api("PUT", f"mode?person={person}", {"mode": "time", "budget_minutes": 90})
        return (0 if status == 200 else 1), json.dumps(body), status is not None
    arguments = {
        "guard": ["guard", "add", app], "unguard": ["guard", "remove", app], "snooze": ["snooze", app],
        "extend": ["extend", app], "schedule": ["schedule", "list"], "status": ["status"],
    }[kind]
    code, text = lockr.cli(*arguments, "--person", person)
    return code, text, "cannot reach the lockr daemon" not in text


def use_apps(lockrs, rng, stop, sent):
    """The kid's and the teen's devices: sessions of lookups of their apps, every 10 s of a
    session, sent alike to lockr and its twin."""
    import socket
    sockets = {}
    for device in ["127.0.0.2", "127.0.0.3"]:
        sockets[device] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sockets[device].bind((device, 0))
    names = {"tiktok": "www.tiktok.com", "youtube": "www.youtube.com"}
    while not stop.is_set():
        device = rng.choice(list(sockets))
        app = rng.choice(list(names))
        for _ in range(rng.randint(3, 12)):
            query = run_bench.build_query(names[app], rng.randint(0, 65535))
            for lockr in lockrs:
                sockets[device].sendto(query, ("127.0.0.1", lockr.port))
            sent[0] += 1
            if stop.wait(0.17):
                break
        stop.wait(rng.uniform(0.5, 3))


def watch_events(lockr, stop, counts):
    """Holds event streams open (the API's and a page's), reconnecting after a restart."""
    while not stop.is_set():
        endpoint = lockr.token()
        urls = [f"http://127.0.0.1:{lockr.web_port}/events"]
        if endpoint:
            urls.append(f"http://{endpoint[1]}/api/v1/events")
        streams = []
        for url in urls:
            headers = ["-H", f"Authorization: Bearer {endpoint[0]}"] if endpoint and "api" in url else []
            streams.append(subprocess.Popen(["curl", "-sN", "--max-time", "60", *headers, url],
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
        for stream in streams:
            for line in stream.stdout:
                if line.startswith(b"event:"):
                    counts[0] += 1
                if stop.is_set():
                    break
            stream.wait()
        stop.wait(1)


def load_pages(lockr, stop, counts):
    while not stop.is_set():
        for path in ["/", "/static/lockr.css"]:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{lockr.web_port}{path}", timeout=5) as page:
                    counts[page.status == 200] += 1
            except OSError:
                counts[0] += 1
        stop.wait(1)


def dnsperf(port, extra):
    """dnsperf with the harness's mix of names against `port`: its counts (lockr may be killed and
    started again meanwhile, so no process of it is followed)."""
    ran = subprocess.run(["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d",
                          os.path.join(run_bench.DATA, "q-mix.txt"), *extra], capture_output=True, text=True)
    found = {}
    for key, pattern in run_bench.DNSPERF_RE.items():
        match = re.search(pattern, ran.stdout)
        found[key] = match.group(1).strip() if match else ""
    return found


def saturating_rate(lockr):
    return float(dnsperf(lockr.port, ["-l", "10", "-c", "8", "-q", "200"]).get("qps") or 0)


def usage_minutes(lockr):
    """Each person's use of each app over every day the store holds, in minutes."""
    database = sqlite3.connect(f"file:{os.path.join(lockr.state, 'state.sqlite')}?mode=ro", uri=True)
    rows = database.execute("SELECT person, app, SUM(used_ms) FROM usage GROUP BY person, app").fetchall()
    database.close()
    return {(person, app): used / 60_000 for person, app, used in rows}


def integrity(path):
    database = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    result = database.execute("PRAGMA integrity_check").fetchone()[0]
    database.close()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30, help="how long the load runs (30)")
    parser.add_argument("--kill-every", type=float, default=180, help="seconds between kill -9s (about 180)")
    parser.add_argument("--outage-every", type=float, default=420, help="seconds between upstream outages (420)")
    parser.add_argument("--hup-every", type=float, default=150, help="seconds between list changes and SIGHUPs")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--check-arguments", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.check_arguments:
        return
    rng = random.Random(arguments.seed)
    os.makedirs(run_bench.RUN, exist_ok=True)
    subprocess.run(["rm", "-rf", SOAK])
    os.makedirs(SOAK)
    run_bench.kill_stale()
    signal.signal(signal.SIGTERM, lambda *_: (run_bench.stop_all(), sys.exit(1)))
    blocklist = os.path.join(SOAK, "block.domains")
    subprocess.run(["cp", os.path.join(run_bench.DATA, "block-100k.domains"), blocklist], check=True)
    config = household_config(blocklist)
    nsd = run_bench.start("nsd", ["nsd", "-d", "-c", run_bench.conf_nsd()], "nsd.log")
    lockr, twin = Lockr("lockr", PORT, WEB_PORT, config), Lockr("twin", TWIN_PORT, TWIN_WEB_PORT, config)
    report = {}
    try:
        lockr.start()
        twin.start()
        run_bench.warm(lockr.port, lockr.process.pid)
        rate = saturating_rate(lockr) / 2
        log(f"saturating at {rate * 2:.0f} q/s: the soak sends {rate:.0f}")
        time.sleep(5)
        report["start"] = lockr.rss_and_files()
        stop = threading.Event()
        model = Model()
        sent, events, pages = [0], [0], [0, 0]
        workers = [
            threading.Thread(target=act, args=(lockr, twin, model, random.Random(rng.random()), stop)),
            threading.Thread(target=use_apps, args=([lockr, twin], random.Random(rng.random()), stop, sent)),
            threading.Thread(target=watch_events, args=(lockr, stop, events)),
            threading.Thread(target=load_pages, args=(lockr, stop, pages)),
        ]
        for worker in workers:
            worker.start()
        rounds = []
        end = time.monotonic() + arguments.minutes * 60
        next_kill = time.monotonic() + rng.uniform(0.7, 1.3) * arguments.kill_every
        next_outage = time.monotonic() + arguments.outage_every / 2
        next_hup = time.monotonic() + arguments.hup_every
        while time.monotonic() < end:
            disturbed = []
            perf = {}
            load = threading.Thread(target=lambda: perf.update(dnsperf(
                lockr.port, ["-l", "60", "-c", "8", "-Q", str(int(rate)), "-t", "3"])))
            load.start()
            round_end = time.monotonic() + 60
            while time.monotonic() < round_end:
                now = time.monotonic()
                if now >= next_kill:
                    lockr.kill9()
                    disturbed.append("kill")
                    next_kill = now + rng.uniform(0.7, 1.3) * arguments.kill_every
                if now >= next_outage:
                    nsd.send_signal(signal.SIGSTOP)
                    time.sleep(20)
                    nsd.send_signal(signal.SIGCONT)
                    disturbed.append("outage")
                    next_outage = time.monotonic() + arguments.outage_every
                if now >= next_hup:
                    with open(blocklist, "a") as listed:
                        listed.write(f"soak-{int(now)}.example\n")
                    lockr.hangup()
                    disturbed.append("hup")
                    next_hup = now + arguments.hup_every
                time.sleep(0.5)
            load.join()
            sent_queries = int(perf.get("sent") or 0)
            lost = int(perf.get("lost") or 0)
            rounds.append((disturbed, sent_queries, lost))
            log(f"round {len(rounds)}: {sent_queries} sent, {lost} lost {' '.join(disturbed)}")
        stop.set()
        for worker in workers:
            worker.join(timeout=90)
        time.sleep(2)
        report["end"] = lockr.rss_and_files()
        lockr.stop()
        twin.stop()
        killed, unkilled = usage_minutes(lockr), usage_minutes(twin)
        report["usage"] = {key: (killed.get(key, 0), unkilled.get(key, 0)) for key in set(killed) | set(unkilled)}
        report["integrity"] = {name: integrity(os.path.join(lockr.state, name))
                               for name in ["state.sqlite", "queries.sqlite"]}
        report["rounds"] = rounds
        report["kills"], report["restart"] = lockr.kills, lockr.restart_seconds
        report["model"] = model
        report["streams"], report["pages"], report["app-queries"] = events[0], pages, sent[0]
        report["rate"] = rate
        restarted = Lockr("lockr", PORT, WEB_PORT, config)
        restarted.start()
        report["state"] = check_model(restarted, model)
        restarted.stop()
    finally:
        run_bench.stop_all()
    write_report(report, arguments)


def check_model(lockr, model):
    """What of the model the restarted daemon does not show: guarded apps that are not, pending
    changes that vanished."""
    problems = []
    for person, added in model.guarded_added.items():
        status, body = lockr.api("GET", f"status?person={person}")
        shown = json.dumps(body)
        for app in added:
            if f'"{app}"' not in shown:
                problems.append(f"{person}: {app} was guarded, status does not show it")
    for person, number in model.pending:
        status, body = lockr.api("GET", f"log?person={person}&since=31536000&limit=10000")
        if f"#{number}" not in json.dumps(body):
            problems.append(f"{person}: pending change #{number} is not in their log")
    return problems


def write_report(report, arguments):
    rounds = report["rounds"]
    # A SIGHUP must lose nothing: only rounds with a kill or an outage count as disturbed.
    quiet = [r for r in rounds if "kill" not in r[0] and "outage" not in r[0]]
    lines = [
        f"# Soak, {time.strftime('%Y-%m-%d %H:%M')}", "",
        f"{arguments.minutes:.0f} minutes at {report['rate']:.0f} queries a second (half the saturating rate), "
        f"--time-scale 60; {report['kills']} kill -9, "
        f"{sum('outage' in r[0] for r in rounds)} upstream outages of 20 s, {sum('hup' in r[0] for r in rounds)} "
        f"list changes with SIGHUP; {report['model'].actions} household actions ({report['model'].refused} refused "
        f"as the policy says), {report['app-queries']} app lookups, {report['streams']} live events read, "
        f"{report['pages'][1]} pages loaded ({report['pages'][0]} failed, mostly while lockr restarted).", "",
        "| figure | value |", "|---|---|",
        f"| queries lost, rounds without a kill or an outage (SIGHUPs in them) | {sum(r[2] for r in quiet)} of "
        f"{sum(r[1] for r in quiet)} |",
        f"| queries lost, all rounds | {sum(r[2] for r in rounds)} of {sum(r[1] for r in rounds)} |",
        f"| restart to first answer after kill -9 | median {sorted(report['restart'])[len(report['restart']) // 2]:.2f} s, "
        f"worst {max(report['restart']):.2f} s |" if report["restart"] else "| restarts | none |",
        f"| RSS, start -> end | {report['start'][0]} -> {report['end'][0]} MiB |",
        f"| open files, start -> end | {report['start'][1]} -> {report['end'][1]} |",
        f"| database integrity | {', '.join(f'{k}: {v}' for k, v in report['integrity'].items())} |",
        f"| policy state against the model | {'as the model says' if not report['state'] else '; '.join(report['state'])} |",
        "", "Metering against the unkilled twin (minutes of use over every day):", "",
        "| person, app | killed | twin | difference per kill |", "|---|---|---|---|",
    ]
    for (person, app), (killed, twin) in sorted(report["usage"].items()):
        per_kill = (twin - killed) / max(1, report["kills"])
        lines.append(f"| {person}, {app} | {killed:.1f} | {twin:.1f} | {per_kill:+.2f} |")
    if report["model"].failed:
        lines += ["", "Actions without an answer:", *[f"- {failure}" for failure in report["model"].failed]]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"soak-{time.strftime('%Y%m%d-%H%M')}.md")
    with open(path, "w") as out:
        out.write(text)
    print(text)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
