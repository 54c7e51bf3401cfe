#!/usr/bin/env python3
"""lockr side by side with dnsmasq, unbound and dnsdist, under the peer harness.

The harness (../shared/bench/peers/run_bench.py) starts an nsd upstream and every peer on loopback
ports with the same generated block lists, and measures start-up, memory, QPS and latency with
dnsperf. This script adds lockr to its table of peers and runs it: one run, all servers, the same
client. Arguments are the harness's (see --help); results go to bench/results/.
"""
import argparse
import csv
import os
import random
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.environ.get("LOCKR_PEERS_DIR", os.path.join(HERE, "..", "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS_DIR)
import run_bench  # noqa: E402

# The program as it ships: scripts/build-static's (the Swift runtime linked in, laid out for
# start-up). LOCKR_BINARY compares another build (an older commit's, say) under the same harness.
LOCKR = os.environ.get("LOCKR_BINARY", os.path.join(HERE, "..", ".build-static", "release", "lockr"))
PORT = 5341
HOUSEHOLD_PORT = 5342
NO_LOG_PORT = 5343
BASE_PORT = 5344
# LOCKR_BASE_BINARY: an older build run beside this one as the peer lockr-base, so that
# paired_ratio.py can say what a change costs per query (`--variant lockr-base`).
BASE = os.environ.get("LOCKR_BASE_BINARY")
PEOPLE = 50
DEVICES_PER_PERSON = 10
NAMES_PER_PERSON = 10_000


EMPTIED = set()


def fresh_directory(path):
    """`path`, emptied at its first use in this run: a run starts with no query log left at its cap
    by an earlier one; later starts find the state a restarted service finds."""
    if path not in EMPTIED:
        shutil.rmtree(path, ignore_errors=True)
        EMPTIED.add(path)
    return path


def lockr_argv(size, port=PORT, state="lockr-state", extra=(), binary=None):
    return [binary or LOCKR, "serve", "--listen", f"127.0.0.1:{port}", "--upstream", f"127.0.0.1:{run_bench.UPSTREAM_PORT}",
            "--blocklist", os.path.join(run_bench.DATA, f"block-{size}.domains"),
            "--state-dir", fresh_directory(os.path.join(run_bench.RUN, state)), "--control", "127.0.0.1:0",
            "--web", "127.0.0.1:0",
            "--log-level", "warning", *extra]


def household_config():
    """50 people with 10 devices each (MACs, addresses, a network) and a 10k-name list of their own,
    each guarding three apps; the benchmark's client (127.0.0.1) is the last person's device, so every
    query goes through a person's own list as well as the shared one."""
    directory = os.path.join(run_bench.RUN, "household")
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(7)
    lines = ['guard = ["tiktok"]', 'trusted-forwarders = ["127.0.0.1"]']
    for person in range(PEOPLE):
        listed = os.path.join(directory, f"person-{person}.txt")
        if not os.path.exists(listed):
            with open(listed, "w") as out:
                for _ in range(NAMES_PER_PERSON):
                    out.write(f"p{person}-{rng.getrandbits(48):012x}.example\n")
        devices = [f'"02:00:00:{person:02x}:00:{d:02x}"' for d in range(DEVICES_PER_PERSON - 2)]
        devices += [f'"10.{person}.0.1"', f'"fd00:{person:x}::/64"']
        if person == PEOPLE - 1:
            devices[-2] = '"127.0.0.1"'
        lines += [f"[people.p{person}]", f"devices = [{', '.join(devices)}]", f'blocklists = ["{listed}"]',
                  'guard = ["tiktok", "instagram", "youtube"]']
    path = os.path.join(directory, "lockr.toml")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    return path


def no_log_config():
    """The query log switched off: lockr-nolog beside lockr (whose log keeps every query in full)
    shows what logging costs."""
    path = os.path.join(run_bench.RUN, "lockr-nolog.toml")
    os.makedirs(run_bench.RUN, exist_ok=True)
    with open(path, "w") as out:
        out.write("[query-log]\nenabled = false\n")
    return path


run_bench.PEERS["lockr"] = (PORT, lockr_argv)
run_bench.PEERS["lockr-nolog"] = (
    NO_LOG_PORT, lambda size: lockr_argv(size, NO_LOG_PORT, "lockr-nolog-state", ("--config", no_log_config())))
# The same lockr with a household: 50 people, 500 devices, a 10k-name list each, beside the run without.
run_bench.PEERS["lockr-people"] = (
    HOUSEHOLD_PORT,
    lambda size: lockr_argv(size, HOUSEHOLD_PORT, "lockr-people-state", ("--config", household_config())))
if BASE:
    run_bench.PEERS["lockr-base"] = (BASE_PORT, lambda size: lockr_argv(size, BASE_PORT, "lockr-base-state", binary=BASE))

# Where lockr's resident memory goes, from /proc/PID/smaps each time the harness reads a lockr's
# VmRSS (once ready, and after each run under load): one row per category in
# results/memory-STAMP.csv, the table of medians in results/memory-STAMP.md.
MEMORY_ROWS = []
MEMORY_STAMP = None
LOADED = set()


def memory_category(name, anonymous):
    """The category of one mapping of smaps: what the memory is for, as far as the mapping tells."""
    base = os.path.basename(name)
    if name.endswith("/lockr") or name == os.path.realpath(LOCKR):
        return "lockr's program (code and constants)"
    if "icu" in base.lower():
        return "ICU (Unicode data and code)"
    if base.startswith(("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime")):
        return "Swift runtime and Foundation"
    if ".so" in base:
        return "other shared libraries"
    if name.startswith("[stack"):
        return "main thread's stack"
    if anonymous or name == "[heap]":
        return "heap and thread stacks (anonymous)"
    return "other mappings (files, the kernel's vdso)"


def smaps_breakdown(pid):
    """Resident kB of `pid` by category (Rss of each mapping)."""
    totals = {}
    name, anonymous = "", True
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if fields and "-" in fields[0] and len(fields) >= 5 and ":" not in fields[0]:
                name = fields[5] if len(fields) > 5 else ""
                anonymous = not name
            elif fields and fields[0] == "Rss:":
                category = memory_category(name, anonymous)
                totals[category] = totals.get(category, 0) + int(fields[1])
    return totals


def lockr_peer(pid):
    """The name of the lockr peer running as `pid`, or None for another server."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:
        return None
    if b"serve" not in argv or b"--listen" not in argv:
        return None
    port = int(argv[argv.index(b"--listen") + 1].rsplit(b":", 1)[1])
    return next((peer for peer, (p, _) in run_bench.PEERS.items() if p == port and peer.startswith("lockr")), None)


def record_memory(pid, rss_kb):
    """Notes where a lockr's memory goes beside the harness's reading of its VmRSS."""
    global MEMORY_STAMP
    peer = lockr_peer(pid)
    if peer is None:
        return
    argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    listed = next((a.decode() for a in argv if a.endswith(b".domains")), "")
    size = listed.rsplit("-", 1)[-1].split(".")[0] if listed else "?"
    # The harness reads it half a second after ready, or after a run of dnsperf against it.
    moment = "under load" if pid in LOADED else "ready"
    MEMORY_STAMP = MEMORY_STAMP or time.strftime("%Y%m%d-%H%M%S")
    for category, kb in sorted(smaps_breakdown(pid).items()):
        MEMORY_ROWS.append(dict(pid=pid, peer=peer, size=size, moment=moment, category=category, kb=kb))
    MEMORY_ROWS.append(dict(pid=pid, peer=peer, size=size, moment=moment, category="total (VmRSS)", kb=rss_kb))


def write_memory(out):
    """results/memory-STAMP.csv (every reading) and .md (medians by peer, size, moment, category)."""
    if not MEMORY_ROWS:
        return
    keys = ["pid", "peer", "size", "moment", "category", "kb"]
    with open(os.path.join(out, f"memory-{MEMORY_STAMP}.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, keys)
        writer.writeheader()
        writer.writerows(MEMORY_ROWS)
    groups = {}
    for row in MEMORY_ROWS:
        groups.setdefault((row["peer"], row["size"], row["moment"], row["category"]), []).append(row["kb"])
    lines = ["| peer | list | when | where | resident MiB (median) |", "|---|---|---|---|---|"]
    for (peer, size, moment, category), values in sorted(groups.items()):
        lines.append(f"| {peer} | {size} | {moment} | {category} | {statistics.median(values) / 1024:.1f} |")
    with open(os.path.join(out, f"memory-{MEMORY_STAMP}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def measure_memory_too():
    """Wraps the harness's VmRSS reading so that each reading of a lockr also records its smaps."""
    read_rss = run_bench.rss_kb

    def rss_and_smaps(pid):
        rss, hwm = read_rss(pid)
        try:
            record_memory(pid, rss)
        except OSError:
            pass
        return rss, hwm

    run_bench.rss_kb = rss_and_smaps
    run_dnsperf = run_bench.dnsperf

    def dnsperf_noting_load(port, qfile, args, pid, **kwargs):
        LOADED.add(pid)
        return run_dnsperf(port, qfile, args, pid, **kwargs)

    run_bench.dnsperf = dnsperf_noting_load


def check_arguments_only():
    """`--check-arguments ARGS`: the harness's own parser reads ARGS and the script ends there
    (exit 2 with argparse's message for an unknown one), before bench/run installs or builds."""
    sys.argv.remove("--check-arguments")
    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, *args, **kwargs):
        parse(self, *args, **kwargs)
        sys.exit(0)

    argparse.ArgumentParser.parse_args = parse_then_stop
    run_bench.main()


def run_bench_out():
    """The directory the harness writes its results to (--out DIR or --out=DIR)."""
    for index, argument in enumerate(sys.argv):
        if argument == "--out" and index + 1 < len(sys.argv):
            return sys.argv[index + 1]
        if argument.startswith("--out="):
            return argument.split("=", 1)[1]
    return os.path.join(HERE, "results")


if __name__ == "__main__":
    if "--check-arguments" in sys.argv:
        check_arguments_only()
    if not any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:]):
        sys.argv += ["--out", os.path.join(HERE, "results")]
    measure_memory_too()
    try:
        run_bench.main()
    finally:
        write_memory(run_bench_out())
