#!/usr/bin/env python3
"""Server CPU per query of lockr against a variant of it (--variant), paired and interleaved.

The variants: lockr-people (a household of 50 people), lockr-nolog (the query log off; lockr
itself logs every query in full) and lockr-base (the build LOCKR_BASE_BINARY names, an older
commit's, say: what a change costs per query). bench/run measures each peer in turn, and on a shared machine
two runs a minute apart differ by 5-10%. This script runs the two lockr servers side by side (both
started once, from the harness's data: run `bench/run` once first) and measures them in
alternation, scenario by scenario, for
`--rounds` rounds: each measurement is dnsperf for `--dur` seconds against one server, its CPU time
read from /proc before and after. It prints each scenario's median CPU per query for both and the
median of the per-round ratios, which cancels most of the machine's drift.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lockr_bench  # noqa: E402
from lockr_bench import run_bench  # noqa: E402

QUERIES = {"blocked": "q-blocked-1m.txt", "allowed": "q-allowed.txt", "mix": "q-mix.txt"}
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def measure(port, pid, queries, seconds):
    """CPU microseconds per answered query, and QPS."""
    before = cpu_seconds(pid)
    out = subprocess.run(
        ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", os.path.join(run_bench.DATA, queries),
         "-c", "10", "-q", "100", "-T", "1", "-l", str(seconds)], capture_output=True, text=True).stdout
    spent = cpu_seconds(pid) - before
    completed = int(re.search(r"Queries completed:\s+(\d+)", out).group(1))
    qps = float(re.search(r"Queries per second:\s+([\d.]+)", out).group(1))
    return spent / completed * 1e6, qps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--dur", type=int, default=3)
    parser.add_argument("--variant", default="lockr-people", choices=["lockr-people", "lockr-nolog", "lockr-base"])
    args = parser.parse_args()
    variant = args.variant
    if variant not in run_bench.PEERS:
        parser.error(f"{variant} needs LOCKR_BASE_BINARY, the build to compare with")
    os.makedirs(run_bench.RUN, exist_ok=True)
    upstream = subprocess.Popen(["nsd", "-d", "-c", run_bench.conf_nsd()], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    servers = {}
    try:
        for name in ("lockr", variant):
            port, argv = run_bench.PEERS[name]
            state = os.path.join(run_bench.RUN, f"{name}-ratio-state")
            subprocess.run(["rm", "-rf", state])
            command = [state if part.endswith(f"{name}-state") else part for part in argv("1m")]
            servers[name] = (port, subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(3)
        for name, (port, process) in servers.items():
            measure(port, process.pid, QUERIES["allowed"], 1)  # fills the cache
        results = {(name, scenario): [] for name in servers for scenario in QUERIES}
        for round_number in range(args.rounds):
            for scenario, queries in QUERIES.items():
                order = list(servers) if round_number % 2 == 0 else list(reversed(servers))
                for name in order:
                    port, process = servers[name]
                    results[(name, scenario)].append(measure(port, process.pid, queries, args.dur))
        print(f"{args.rounds} rounds of {args.dur} s per server and scenario, alternating")
        print(f"| scenario | lockr us/q | {variant} us/q | {variant} / lockr (median of rounds) | QPS lockr / {variant} |")
        print("|---|---|---|---|---|")
        for scenario in QUERIES:
            none, people = results[("lockr", scenario)], results[(variant, scenario)]
            ratio = statistics.median(p[0] / n[0] for n, p in zip(none, people))
            print(f"| {scenario} | {statistics.median(r[0] for r in none):.2f} | "
                  f"{statistics.median(r[0] for r in people):.2f} | {ratio:.3f} | "
                  f"{statistics.median(r[1] for r in none) / 1000:.0f}k / {statistics.median(r[1] for r in people) / 1000:.0f}k |")
    finally:
        for _, process in servers.values():
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=10)
        upstream.terminate()
        upstream.wait(timeout=10)


if __name__ == "__main__":
    main()
