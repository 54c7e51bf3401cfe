#!/usr/bin/env python3
"""Measures what a list given by URL costs lockr (not part of the tests): a list of N names in
hosts format, served from loopback, fetched at start and then fetched again after it changed.

Reports, for the release build: the seconds from start to the first copy swapped in, the seconds a
refresh takes (download, parse, build, swap) as lockr logs them, and lockr's resident memory before
the list came, with it in force, and at its peak over both swaps (VmHWM: during a refresh the old
rules and the new are both in memory).

  bench/lists [--names N]
"""
import argparse
import http.server
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "lockr")


def make_list(path, names, version):
    rng = random.Random(version)
    with open(path, "w") as out:
        out.write(f"# {names} names, version {version}\n")
        for index in range(names):
            out.write(f"0.0.0.0 n{index:07d}.v{version}.{rng.choice(['ads', 'trk', 'cdn', 'pix'])}.example\n")


def serve(directory):
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=directory)
    http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
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
    parser.add_argument("--names", type=int, default=1_000_000, help="names in the list (default 1,000,000)")
    parser.add_argument("--check-arguments", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.check_arguments:
        return
    if not os.access(BINARY, os.X_OK):
        sys.exit("bench/lists: no release build (swift build -c release --product lockr)")
    work = tempfile.mkdtemp(prefix="lockr-bench-lists-")
    try:
        lists = os.path.join(work, "served")
        os.makedirs(lists)
        make_list(os.path.join(lists, "hosts.txt"), arguments.names, 1)
        size = os.path.getsize(os.path.join(lists, "hosts.txt"))
        server = serve(lists)
        url = f"http://127.0.0.1:{server.server_address[1]}/hosts.txt"
        config = os.path.join(work, "lockr.toml")
        with open(config, "w") as out:
            out.write(f'blocklists = ["{url}"]\n[lists]\nmax-size = "1GB"\n')
        state = os.path.join(work, "state")
        log = os.path.join(work, "lockr.log")
        with open(log, "w") as err:
            daemon = subprocess.Popen(
                [BINARY, "serve", "--config", config, "--state-dir", state, "--listen", "127.0.0.1:0",
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
            make_list(os.path.join(lists, "hosts.txt"), arguments.names, 2)
            asked = time.time()
            subprocess.run([BINARY, "lists", "update", "--state-dir", state], stdout=subprocess.DEVNULL, check=False)
            second = wait_for(log, "lists swapped in", 2)
            refresh_seconds = time.time() - asked
            after = memory(daemon.pid, "VmRSS")
            time.sleep(3)
            settled = memory(daemon.pid, "VmRSS")
            peak = memory(daemon.pid, "VmHWM")
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
            server.shutdown()
        swap = [re.search(r"seconds=(\S+)", line).group(1) for line in (first, second)]
        print(f"list: {arguments.names:,} names, {size / 1e6:.1f} MB, served from loopback")
        print(f"start to first copy in force: {first_seconds:.2f} s (rebuild and swap as logged: {swap[0]})")
        print(f"refresh of a changed list: {refresh_seconds:.2f} s (rebuild and swap as logged: {swap[1]})")
        print(f"resident memory: {before} MB before the list, {with_list} MB with it, {after} MB right after the "
              f"refresh, {settled} MB 3 s later, peak {peak} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
