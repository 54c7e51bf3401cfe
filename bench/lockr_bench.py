#!/usr/bin/env python3
"""lockr side by side with dnsmasq, unbound and dnsdist, under the peer harness.

The harness (../shared/bench/peers/run_bench.py) starts an nsd upstream and every peer on loopback
ports with the same generated block lists, and measures start-up, memory, QPS and latency with
dnsperf. This script adds lockr to its table of peers and runs it: one run, all servers, the same
client. Arguments are the harness's (see --help); results go to bench/results/.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.environ.get("LOCKR_PEERS_DIR", os.path.join(HERE, "..", "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS_DIR)
import run_bench  # noqa: E402

LOCKR = os.path.join(HERE, "..", ".build", "release", "lockr")
PORT = 5341


def lockr_argv(size):
    return [LOCKR, "serve", "--listen", f"127.0.0.1:{PORT}", "--upstream", f"127.0.0.1:{run_bench.UPSTREAM_PORT}",
            "--blocklist", os.path.join(run_bench.DATA, f"block-{size}.domains"),
            "--state-dir", os.path.join(run_bench.RUN, "lockr-state"), "--control", "127.0.0.1:0",
            "--log-level", "warning"]


run_bench.PEERS["lockr"] = (PORT, lockr_argv)

if __name__ == "__main__":
    if not any(a == "--out" or a.startswith("--out=") for a in sys.argv[1:]):
        sys.argv += ["--out", os.path.join(HERE, "results")]
    run_bench.main()
