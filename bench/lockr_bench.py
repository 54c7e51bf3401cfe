#!/usr/bin/env python3
"""lockr side by side with dnsmasq, unbound and dnsdist, under the peer harness.

The harness (../shared/bench/peers/run_bench.py) starts an nsd upstream and every peer on loopback
ports with the same generated block lists, and measures start-up, memory, QPS and latency with
dnsperf. This script adds lockr to its table of peers and runs it: one run, all servers, the same
client. Arguments are the harness's (see --help); results go to bench/results/.
"""
import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.environ.get("LOCKR_PEERS_DIR", os.path.join(HERE, "..", "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS_DIR)
import run_bench  # noqa: E402

# LOCKR_BINARY compares another build (an older commit's, say) under the same harness.
LOCKR = os.environ.get("LOCKR_BINARY", os.path.join(HERE, "..", ".build", "release", "lockr"))
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


def lockr_argv(size, port=PORT, state="lockr-state", extra=(), binary=None):
    return [binary or LOCKR, "serve", "--listen", f"127.0.0.1:{port}", "--upstream", f"127.0.0.1:{run_bench.UPSTREAM_PORT}",
            "--blocklist", os.path.join(run_bench.DATA, f"block-{size}.domains"),
            "--state-dir", os.path.join(run_bench.RUN, state), "--control", "127.0.0.1:0",
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


if __name__ == "__main__":
    if "--check-arguments" in sys.argv:
        check_arguments_only()
    if not any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:]):
        sys.argv += ["--out", os.path.join(HERE, "results")]
    run_bench.main()
