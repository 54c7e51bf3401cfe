#!/usr/bin/env python3
"""Resident memory under a long steady load: lockr beside dnsmasq, unbound and dnsdist, all at once.

Every server is started as the peer harness starts it (the same lists, the same nsd upstream) and
gets a dnsperf of its own at a fixed rate (--qps) for --minutes, all at the same time, with a stream
that keeps every cache turning over: the upstream's 50,000 names and listed names, in a random
order; lockr logs every query in full. Each server's VmRSS is read
at ready, every --every seconds under load and once more after it; for lockr, where the memory goes
(smaps) at the end. Results: results/memory-load-STAMP.md (and .csv, every reading).
"""
import argparse
import csv
import os
import random
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lockr_bench  # noqa: E402  (adds the lockr peers to the harness's table)
from lockr_bench import run_bench  # noqa: E402

STREAM = os.path.join(run_bench.RUN, "q-memory-load.txt")


def write_stream(size, lines=300_000):
    """The query file: 80% the upstream's names (50,000, more than lockr's cache holds), 20% names of
    the block list. (Names the upstream has not would meet nsd's rate limit on NXDOMAIN answers.)"""
    zone = [line.split()[0] for line in open(os.path.join(run_bench.DATA, "upstream", "test.zone"))
            if line.strip() and not line.startswith(("$", "@", "ns ", ";"))]
    rng = random.Random(34)
    listed = []
    with open(os.path.join(run_bench.DATA, f"block-{size}.domains")) as names:
        for index, line in enumerate(names):
            if index % 50 == 0 and line.strip():
                listed.append(line.strip())
    with open(STREAM, "w") as out:
        for _ in range(lines):
            if rng.random() < 0.8:
                out.write(f"{rng.choice(zone)}.test A\n")
            else:
                out.write(f"{rng.choice(listed)} A\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--qps", type=int, default=5000, help="queries a second to each server")
    parser.add_argument("--every", type=int, default=60, help="seconds between readings")
    parser.add_argument("--size", default="1m", choices=["100k", "1m"])
    parser.add_argument("--peers", default="lockr,lockr-people,dnsmasq-addr,unbound,dnsdist")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--check-arguments", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    peers = args.peers.split(",")
    unknown = [peer for peer in peers if peer not in run_bench.PEERS]
    if unknown:
        parser.error(f"unknown peers: {', '.join(unknown)} (known: {', '.join(run_bench.PEERS)})")
    if args.check_arguments:
        return
    os.makedirs(run_bench.RUN, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    run_bench.kill_stale()
    write_stream(args.size)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    readings = []  # (peer, moment, seconds, rss_kb)
    servers = {}
    clients = {}
    try:
        run_bench.start("nsd", ["nsd", "-d", "-c", run_bench.conf_nsd()], "nsd.log")
        time.sleep(1)
        for peer in peers:
            process, _, _ = run_bench.start_peer(peer, args.size)
            servers[peer] = process
            time.sleep(0.5)
            readings.append((peer, "ready", 0, run_bench.rss_kb(process.pid)[0]))
        seconds = int(args.minutes * 60)
        for peer, process in servers.items():
            port = run_bench.PEERS[peer][0]
            # dnsperf's output to a file: it writes a line for each query lost, more than a pipe holds.
            clients[peer] = subprocess.Popen(
                ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", STREAM, "-c", "4", "-q", "50", "-t", "2",
                 "-Q", str(args.qps), "-l", str(seconds)],
                stdout=open(os.path.join(run_bench.RUN, f"memory-load-{peer}.out"), "w"), stderr=subprocess.STDOUT)
        started = time.monotonic()
        while any(client.poll() is None for client in clients.values()):
            time.sleep(min(args.every, max(1, seconds - (time.monotonic() - started))))
            elapsed = int(time.monotonic() - started)
            for peer, process in servers.items():
                readings.append((peer, "under load", elapsed, run_bench.rss_kb(process.pid)[0]))
        answered = {}
        for peer in clients:
            output = open(os.path.join(run_bench.RUN, f"memory-load-{peer}.out")).read()
            completed = re.search(r"Queries completed:\s+(\d+)", output)
            lost = re.search(r"Queries lost:\s+(\d+)", output)
            answered[peer] = (int(completed.group(1)) if completed else 0, int(lost.group(1)) if lost else 0)
        time.sleep(5)
        breakdowns = {}
        for peer, process in servers.items():
            readings.append((peer, "after", int(time.monotonic() - started), run_bench.rss_kb(process.pid)[0]))
            if peer.startswith("lockr"):
                breakdowns[peer] = lockr_bench.smaps_breakdown(process.pid)
    finally:
        for client in clients.values():
            if client.poll() is None:
                client.kill()
        run_bench.stop_all()
    write_results(args, stamp, peers, readings, answered, breakdowns)


def write_results(args, stamp, peers, readings, answered, breakdowns):
    with open(os.path.join(args.out, f"memory-load-{stamp}.csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["peer", "moment", "seconds", "rss_kb"])
        writer.writerows(readings)
    mib = lambda kb: f"{kb / 1024:.1f}"  # noqa: E731
    lines = [f"{args.minutes:g} minutes at {args.qps} queries a second to each server at once, {args.size} list",
             "", "| server | RSS at ready (MiB) | under load: median | under load: highest | last reading under load "
             "| 5 s after | answered / lost |", "|---|---|---|---|---|---|---|"]
    for peer in peers:
        ready = [kb for p, moment, _, kb in readings if p == peer and moment == "ready"]
        loaded = [kb for p, moment, _, kb in readings if p == peer and moment == "under load"]
        after = [kb for p, moment, _, kb in readings if p == peer and moment == "after"]
        done, lost = answered.get(peer, (0, 0))
        lines.append(f"| {peer} | {mib(ready[0])} | {mib(statistics.median(loaded))} | {mib(max(loaded))} | "
                     f"{mib(loaded[-1])} | {mib(after[0])} | {done:,} / {lost:,} |")
    for peer, totals in breakdowns.items():
        lines += ["", f"{peer} after the load, from smaps:", "", "| where | MiB |", "|---|---|"]
        lines += [f"| {category} | {mib(kb)} |" for category, kb in sorted(totals.items())]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, f"memory-load-{stamp}.md"), "w") as f:
        f.write(text)
    print(text, flush=True)


if __name__ == "__main__":
    main()
