#!/usr/bin/env python3
"""Measures what lists given by URL cost lockr (not part of the tests): K lists of N names each in
hosts format, served from loopback, fetched at start and then fetched again after they changed.

Reports, for the release build: the seconds from start to the first copies swapped in, the seconds
a refresh takes (download, parse, build, swap) as lockr logs them, and lockr's resident memory
before the lists came, with them in force, and at its peak over both swaps (VmHWM: during a refresh
the old rules and the new are both in memory). With --load, dnsperf asks names of the lists
(blocked answers) for rounds of 4 s, alternately with lockr left alone and with the lists changed
and refreshed once a second into the round: QPS and CPU per query of each, the whole process's
(the swap's own work included) and its event loops', and the average latency. dnsperf asks as fast
as lockr answers, unless --rate Q holds it to Q queries a second (a load the machine carries, as a
home's is, rather than all it can).

  bench/lists [--names N] [--lists K] [--load [--rate Q]]
"""
import argparse
import http.server
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "lockr")


def make_list(path, names, version, number=0):
    """List `number` at `version`: one name in a hundred changes from a version to the next."""
    with open(path, "w") as out:
        out.write(f"# {names} names, list {number}, version {version}\n")
        for index in range(names):
            changed = f".v{version}" if index % 100 == 0 else ""
            out.write(f"0.0.0.0 n{index:07d}{changed}.l{number}.{['ads', 'trk', 'cdn', 'pix'][index % 4]}.example\n")


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, loops_only=False):
    """The process's CPU seconds, or its event loops' (threads named NIO-ELT-...)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{task}/stat").read()
        except OSError:
            continue
        name, fields = stat.split("(", 1)[1].rsplit(")", 1)
        if loops_only and not name.startswith("NIO-ELT"):
            continue
        values = fields.split()
        total += int(values[11]) + int(values[12])
    return total / TICKS


def load_round(pid, port, queries, seconds, rate=0):
    """QPS, CPU microseconds per answered query of the process and of its event loops, and the
    average latency in milliseconds; dnsperf asks at most `rate` queries a second when not 0."""
    before = (cpu_seconds(pid), cpu_seconds(pid, loops_only=True))
    out = subprocess.run(
        ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", queries, "-c", "10", "-q", "100", "-T", "1", "-l",
         str(seconds)] + (["-Q", str(rate)] if rate else []), capture_output=True, text=True).stdout
    spent = (cpu_seconds(pid) - before[0], cpu_seconds(pid, loops_only=True) - before[1])
    completed = int(re.search(r"Queries completed:\s+(\d+)", out).group(1))
    qps = float(re.search(r"Queries per second:\s+([\d.]+)", out).group(1))
    latency = float(re.search(r"Average Latency \(s\):\s+([\d.]+)", out).group(1)) * 1000
    return qps, spent[0] / completed * 1e6, spent[1] / completed * 1e6, latency


def serve(directory):
    """Serves the lists from loopback at the idle scheduling class (its request threads inherit it):
    a list's server is another machine, whose work should not count against lockr's here."""
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=directory)
    http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)

    def idle_then_serve():
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        server.serve_forever()

    threading.Thread(target=idle_then_serve, daemon=True).start()
    return server


def memory(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def wait_for(log, text, count, limit=600):
    deadline = time.time() + limit
    while time.time() < deadline:
        with open(log) as lines:
            found = [line for line in lines if text in line]
        if len(found) >= count:
            return found[-1]
        time.sleep(0.1)
    sys.exit(f"bench/lists: '{text}' did not come within {limit} s; see {log}")


def main():
    parser = argparse.ArgumentParser(description="What a list given by URL costs lockr.")
    parser.add_argument("--names", type=int, default=1_000_000, help="names in each list (default 1,000,000)")
    parser.add_argument("--lists", type=int, default=1, help="lists, each of --names names (default 1)")
    parser.add_argument("--load", action="store_true", help="QPS and CPU per query while the lists are swapped")
    parser.add_argument("--rounds", type=int, default=3, help="with --load: rounds of each (default 3)")
    parser.add_argument("--rate", type=int, default=0, help="with --load: queries a second asked (default: as many as answered)")
    parser.add_argument("--check-arguments", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.names < 1 or arguments.lists < 1 or arguments.rounds < 1 or arguments.rate < 0:
        parser.error("--names, --lists and --rounds take a whole number of at least 1, --rate one of at least 0")
    if arguments.check_arguments:
        return
    if not os.access(BINARY, os.X_OK):
        sys.exit("bench/lists: no release build (swift build -c release --product lockr)")
    work = tempfile.mkdtemp(prefix="lockr-bench-lists-")
    try:
        lists = os.path.join(work, "served")
        os.makedirs(lists)
        names = [f"hosts{number}.txt" for number in range(arguments.lists)]
        for number, name in enumerate(names):
            make_list(os.path.join(lists, name), arguments.names, 1, number)
        size = sum(os.path.getsize(os.path.join(lists, name)) for name in names)
        server = serve(lists)
        urls = [f"http://127.0.0.1:{server.server_address[1]}/{name}" for name in names]
        config = os.path.join(work, "lockr.toml")
        with open(config, "w") as out:
            out.write("blocklists = [" + ", ".join(f'"{url}"' for url in urls) + ']\n[lists]\nmax-size = "1GB"\n')
        state = os.path.join(work, "state")
        log = os.path.join(work, "lockr.log")
        with open(log, "w") as err:
            daemon = subprocess.Popen(
                [BINARY, "serve", "--config", config, "--state-dir", state, "--listen", f"127.0.0.1:{PORT}",
                 "--control", "127.0.0.1:0", "--web", "off", "--upstream", "127.0.0.1:9"],
                stderr=err, stdout=subprocess.DEVNULL)
        try:
            started = time.time()
            wait_for(log, "control API", 1)
            before = memory(daemon.pid, "VmRSS")
            first = wait_for(log, "lists swapped in", 1)
            first_seconds = time.time() - started
            time.sleep(3)
            with_list = memory(daemon.pid, "VmRSS")
            for number, name in enumerate(names):
                make_list(os.path.join(lists, name), arguments.names, 2, number)
            swaps = len(swapped(log))
            asked = time.time()
            subprocess.run([BINARY, "lists", "update", "--state-dir", state], stdout=subprocess.DEVNULL, check=False)
            second = wait_for(log, "lists swapped in", swaps + 1)
            refresh_seconds = time.time() - asked
            after = memory(daemon.pid, "VmRSS")
            time.sleep(3)
            settled = memory(daemon.pid, "VmRSS")
            peak = memory(daemon.pid, "VmHWM")
            if arguments.load:
                load = under_load(daemon.pid, work, lists, names, arguments, state, log)
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
            server.shutdown()
        swap = [re.search(r"seconds=(\S+)", line).group(1) for line in (first, second)]
        print(f"lists: {arguments.lists} of {arguments.names:,} names, {size / 1e6:.1f} MB, served from loopback")
        print(f"start to first copy in force: {first_seconds:.2f} s (rebuild and swap as logged: {swap[0]})")
        print(f"refresh of a changed list: {refresh_seconds:.2f} s (rebuild and swap as logged: {swap[1]})")
        print(f"resident memory: {before} MB before the list, {with_list} MB with it, {after} MB right after the "
              f"refresh, {settled} MB 3 s later, peak {peak} MB")
        if arguments.load:
            print(load)
    finally:
        shutil.rmtree(work, ignore_errors=True)


PORT = 5391


def swapped(log):
    with open(log) as lines:
        return [line for line in lines if "lists swapped in" in line]


def under_load(pid, work, lists, names, arguments, state, log):
    """Rounds of dnsperf on names every version of the lists blocks, alternately with lockr left
    alone and with the lists changed (one name in a hundred) and refreshed once during the round."""
    queries = os.path.join(work, "queries.txt")
    with open(queries, "w") as out:
        for index in range(min(arguments.names, 200_000)):
            if index % 100:
                out.write(f"n{index:07d}.l0.{['ads', 'trk', 'cdn', 'pix'][index % 4]}.example A\n")
    # Each version written once, ahead: a refresh then only renames a file into place.
    for version in (3, 4):
        for number, name in enumerate(names):
            make_list(os.path.join(work, f"{name}.{version}"), arguments.names, version, number)
    load_round(pid, PORT, queries, 1)
    quiet, busy = [], []
    for _ in range(arguments.rounds):
        quiet.append(load_round(pid, PORT, queries, 4, arguments.rate))
        before = len(swapped(log))

        def refresh():
            for name in names:
                shutil.copyfile(os.path.join(work, f"{name}.{version}"), os.path.join(lists, name + ".new"))
                os.replace(os.path.join(lists, name + ".new"), os.path.join(lists, name))
            subprocess.run([BINARY, "lists", "update", "--state-dir", state], stdout=subprocess.DEVNULL, check=False)

        # One refresh a round, asked for a second into it: download, parse, build and swap in the
        # middle of the queries.
        version = 3 + len(busy) % 2
        timer = threading.Timer(1.0, refresh)
        timer.start()
        busy.append(load_round(pid, PORT, queries, 4, arguments.rate))
        timer.join()
        wait_for(log, "lists swapped in", before + 1)
        busy[-1] += (len(swapped(log)) - before,)
    median = lambda rows, index: statistics.median(row[index] for row in rows)
    asked = f"{arguments.rate / 1000:.0f}k QPS asked" if arguments.rate else "as fast as answered"
    return (f"under load ({asked}; {arguments.rounds} rounds of 4 s each, medians): alone {median(quiet, 0) / 1000:.0f}k QPS, "
            f"{median(quiet, 1):.2f} us/q ({median(quiet, 2):.2f} on the event loops), {median(quiet, 3):.3f} ms; "
            f"with a swap ({median(busy, 4):.0f} a round) {median(busy, 0) / 1000:.0f}k QPS, {median(busy, 1):.2f} us/q "
            f"({median(busy, 2):.2f} on the event loops), {median(busy, 3):.3f} ms; "
            f"QPS with a swap/alone {median(busy, 0) / median(quiet, 0):.3f}, "
            f"event-loop CPU per query with a swap/alone {median(busy, 2) / median(quiet, 2):.3f}, "
            f"average latency with a swap/alone {median(busy, 3) / median(quiet, 3):.2f}")


if __name__ == "__main__":
    main()
