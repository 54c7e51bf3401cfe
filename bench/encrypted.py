#!/usr/bin/env python3
"""DNS over TLS and DNS over HTTPS: lockr beside dnsdist's DoT and DoH frontends, in one run.

Both serve the same 1M-name block list (blocked names answered 0.0.0.0) in front of the peer
harness's nsd upstream, with the same certificate, on loopback. Measured:

- QPS and server CPU per query under dnsperf 2.10 (`-m dot`, `-m doh` with GET) with its
  connections kept (blocked names, and allowed names from a warm cache), lockr on both cores
  (`threads = 2`) as dnsdist is;
- TLS handshakes per second and server CPU per handshake (`openssl s_time -new`: a new connection
  every time, no reuse);
- memory per open connection: resident memory before and after opening 500 idle connections;
- the latency lockr adds asking an encrypted upstream instead of a plain one: lockr without a cache
  forwarding to dnsdist's plain, DoT and DoH frontends, dnsperf at a fixed rate.

Results go to bench/results/encrypted-STAMP.md. Everything runs on 127.0.0.1 and stops by itself.
"""
import argparse
import base64
import os
import re
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.environ.get("LOCKR_PEERS_DIR", os.path.join(HERE, "..", "..", "shared", "bench", "peers"))
sys.path.insert(0, PEERS_DIR)
import run_bench as rb  # noqa: E402

LOCKR = os.environ.get("LOCKR_BINARY", os.path.join(HERE, "..", ".build", "release", "lockr"))
SIZE = "1m"
# plain, DoT, DoH ports of each server
PORTS = {"lockr": (5351, 5352, 5353), "dnsdist": (5361, 5362, 5363)}
# lockr without a cache, asking dnsdist over each transport (the upstream's added latency)
UPSTREAM_LOCKR = {"plain": 5371, "tls": 5372, "https": 5373}
TLS_DIR = os.path.join(rb.RUN, "tls")
# What dnsperf asks: names blocked or cached, as fast as it can, and over DoH also blocked names at
# a fixed rate both servers keep up with.
SCENARIOS = [("dot", "blocked"), ("dot", "allowed"), ("doh", "blocked"), ("doh", "allowed"), ("doh", "blocked-rate")]
# DoH under h2load, an HTTP/2 client that keeps its connections full (dnsperf's DoH client leaves
# them idle at times, and dnsdist's frontend loses its first queries to it): names blocked or
# cached, with 1 or 8 requests in flight on each of 8 connections.
H2LOAD_SCENARIOS = [("blocked", 1), ("blocked", 8), ("allowed", 8)]


def certificate():
    """A test authority and a certificate for dns.test and 127.0.0.1, made once per run."""
    os.makedirs(TLS_DIR, exist_ok=True)
    ca, cert, key = (os.path.join(TLS_DIR, name) for name in ("ca.pem", "server.pem", "server.key"))
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    run = lambda *argv: subprocess.run(argv, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", *ec, "-keyout", os.path.join(TLS_DIR, "ca.key"), "-out", ca, "-days", "2",
        "-subj", "/CN=lockr bench CA")
    run("openssl", "req", *ec, "-keyout", key, "-out", os.path.join(TLS_DIR, "server.csr"), "-subj", "/CN=dns.test")
    ext = rb.write(os.path.join(TLS_DIR, "ext.cnf"), "subjectAltName=DNS:dns.test,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", os.path.join(TLS_DIR, "server.csr"), "-CA", ca, "-CAkey",
        os.path.join(TLS_DIR, "ca.key"), "-CAcreateserial", "-out", cert, "-days", "2", "-extfile", ext)
    return ca, cert, key


def lockr_config(name, cert, key, ca, ports=None, upstream=None):
    plain, dot, doh = ports or (None, None, None)
    lines = []
    if dot:
        lines += [f'listen-tls = ["127.0.0.1:{dot}"]', f'listen-https = ["127.0.0.1:{doh}"]']
    if upstream:
        lines.append(f'upstreams = ["{upstream}"]')
    # Both cores, as dnsdist's listener and TLS threads use them.
    lines.append("threads = 2")
    lines += ["[tls]", f'certificate = "{cert}"', f'key = "{key}"', 'name = "dns.test"',
              "[upstream]", f'ca-file = "{ca}"', "[tcp]", "max-connections = 4000", "[query-log]", "enabled = false"]
    if upstream:
        lines += ["[cache]", "size = 0"]
    return rb.write(os.path.join(rb.RUN, f"{name}.toml"), "\n".join(lines) + "\n")


def lockr_argv(name, config, port, upstream_plain=True):
    argv = [LOCKR, "serve", "--listen", f"127.0.0.1:{port}", "--config", config,
            "--blocklist", os.path.join(rb.DATA, f"block-{SIZE}.domains"),
            "--state-dir", os.path.join(rb.RUN, f"{name}-state"), "--control", "127.0.0.1:0", "--web", "off",
            "--log-level", "warning"]
    if upstream_plain:
        argv += ["--upstream", f"127.0.0.1:{rb.UPSTREAM_PORT}"]
    return argv


def dnsdist_config(cert, key):
    plain, dot, doh = PORTS["dnsdist"]
    base = open(rb.conf_dnsdist(SIZE, plain)).read()
    return rb.write(os.path.join(rb.RUN, "dnsdist-encrypted.conf"), base + f"""
setMaxTCPClientThreads(2)
setMaxTCPConnectionsPerClient(4000)
addTLSLocal("127.0.0.1:{dot}", "{cert}", "{key}", {{reusePort=true}})
addDOHLocal("127.0.0.1:{doh}", "{cert}", "{key}", "/dns-query", {{reusePort=true}})
""")


def dnsperf_on(server, transport, qfile, pid, seconds, rate=None):
    """dnsperf over DoT (8 connections, 100 queries in flight) or DoH (GET; 8 connections, 8 in
    flight: dnsdist 1.7's DoH frontend stalls under dnsperf with more, lockr does not), or DoH at a
    fixed `rate` (32 connections, 32 in flight), where both keep up and CPU per query compares."""
    plain, dot, doh = PORTS[server]
    if transport == "dot":
        return rb.dnsperf(dot, qfile, ["-m", "dot", "-c", "8", "-q", "100", "-t", "3", "-l", str(seconds)], pid)
    load = ["-c", "32", "-q", "32", "-Q", str(rate)] if rate else ["-c", "8", "-q", "8"]
    return rb.dnsperf(doh, qfile, ["-m", "doh", "-O", f"doh-uri=https://127.0.0.1:{doh}/dns-query", "-O",
                                   "doh-method=GET", *load, "-t", "3", "-l", str(seconds)], pid)


def doh_urls(port, qfile, count=5000):
    """A file of `count` DoH GET URLs for h2load, one per name of `qfile`, at lockr's or dnsdist's port."""
    path = os.path.join(rb.RUN, f"urls-{port}-{qfile}")
    lines = []
    with open(os.path.join(rb.DATA, qfile)) as names:
        for line in names:
            name = line.split()[0].rstrip(".")
            question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"
            message = struct.pack(">HHHHHH", 0, 0x0100, 1, 0, 0, 0) + question + struct.pack(">HH", 1, 1)
            lines.append(f"https://127.0.0.1:{port}/dns-query?dns="
                         + base64.urlsafe_b64encode(message).decode().rstrip("="))
            if len(lines) == count:
                break
    return rb.write(path, "\n".join(lines) + "\n")


def h2load_on(server, qfile, pid, streams, requests):
    """DoH GET under h2load (nghttp2-client): 8 connections with `streams` requests in flight on
    each, `requests` in all; requests a second and server CPU per request."""
    doh = PORTS[server][2]
    c0 = rb.cpu_ticks(pid)
    out = subprocess.run(["h2load", "-n", str(requests), "-c", "8", "-m", str(streams), "-t", "1",
                          "-i", doh_urls(doh, qfile)], capture_output=True, text=True, timeout=300).stdout
    c1 = rb.cpu_ticks(pid)
    rate = re.search(r"finished in [\d.]+s, ([\d.]+) req/s", out)
    done = re.search(r"(\d+) succeeded, (\d+) failed", out)
    if not rate or not done:
        return {"qps": "", "us_per_query": "", "failed": ""}
    succeeded = int(done.group(1))
    return {"qps": round(float(rate.group(1))), "failed": int(done.group(2)),
            "us_per_query": round(1e6 * (c1 - c0) / rb.CLK / max(1, succeeded), 2)}


def handshakes(port, pid, seconds):
    """New TLS connections per second (openssl s_time, one client) and server CPU ms per one."""
    c0 = rb.cpu_ticks(pid)
    out = subprocess.run(["openssl", "s_time", "-connect", f"127.0.0.1:{port}", "-new", "-time", str(seconds)],
                         capture_output=True, text=True).stdout
    c1 = rb.cpu_ticks(pid)
    m = re.search(r"(\d+) connections in ([\d.]+) real seconds", out)
    if not m:
        return {"handshakes_per_s": "", "cpu_ms_per_handshake": ""}
    count, real = int(m.group(1)), float(m.group(2))
    return {"handshakes_per_s": round(count / real),
            "cpu_ms_per_handshake": round(1000.0 * (c1 - c0) / rb.CLK / max(1, count), 3)}


def memory_per_connection(port, pid, ca, alpn, count=500):
    """Resident memory (KiB) a server takes per idle TLS connection, `count` of them held open."""
    before, _ = rb.rss_kb(pid)
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(alpn)
    held = []
    try:
        for _ in range(count):
            held.append(context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                                            server_hostname="dns.test"))
        time.sleep(0.5)
        after, _ = rb.rss_kb(pid)
    finally:
        for connection in held:
            connection.close()
    return round((after - before) / count, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--dur", type=int, default=10, help="seconds per dnsperf run")
    ap.add_argument("--lat-qps", type=int, default=2000, help="rate of the upstream-latency runs")
    ap.add_argument("--doh-qps", type=int, default=3000, help="rate of the fixed-rate DoH runs")
    ap.add_argument("--h2load-requests", type=int, default=300000, help="requests of each h2load run")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    checking = "--check-arguments" in sys.argv
    if checking:
        sys.argv.remove("--check-arguments")
    a = ap.parse_args()
    if checking:
        return
    os.makedirs(rb.RUN, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    rb.kill_stale()
    ca, cert, key = certificate()
    rows = []
    try:
        up = rb.start("nsd", ["nsd", "-d", "-c", rb.conf_nsd()], "nsd.log")
        rb.wait_ready(up, rb.UPSTREAM_PORT, rb.probes()["allowed"], False)
        servers = {
            "lockr": rb.start("lockr", lockr_argv("lockr-encrypted", lockr_config("lockr-encrypted", cert, key, ca,
                                                                                 PORTS["lockr"]),
                                                  PORTS["lockr"][0]), "lockr-encrypted.log"),
            "dnsdist": rb.start("dnsdist", ["dnsdist", "--supervised", "--disable-syslog", "-C",
                                            dnsdist_config(cert, key)], "dnsdist-encrypted.log"),
        }
        for name, p in servers.items():
            rb.wait_ready(p, PORTS[name][0], rb.probes()[SIZE], True)
            rb.wait_ready(p, PORTS[name][0], rb.probes()["allowed"], False)
        qfile = {"blocked": "q-blocked-1m.txt", "allowed": "q-allowed.txt"}
        for rep in range(a.reps):
            for transport, scenario in SCENARIOS:
                for name in (("lockr", "dnsdist") if rep % 2 == 0 else ("dnsdist", "lockr")):
                    pid = servers[name].pid
                    if scenario == "allowed":
                        rb.warm(PORTS[name][0], pid)
                    rb.wait_quiet(60, 15.0)
                    rate = a.doh_qps if scenario == "blocked-rate" else None
                    r = dnsperf_on(name, transport, qfile[scenario.split("-")[0]], pid, a.dur, rate)
                    row = dict(kind="qps", server=name, transport=transport, scenario=scenario, rep=rep,
                               qps=r["qps"], lost=r["lost"], server_cpu_pct=r["server_cpu_pct"],
                               us_per_query=round(10_000 * r["server_cpu_pct"] / max(1.0, float(r["qps"] or 0)), 2),
                               rcodes=r["rcodes"])
                    rows.append(row)
                    print(row, flush=True)
            for scenario, streams in H2LOAD_SCENARIOS:
                for name in (("lockr", "dnsdist") if rep % 2 == 0 else ("dnsdist", "lockr")):
                    if scenario == "allowed":
                        rb.warm(PORTS[name][0], servers[name].pid)
                    rb.wait_quiet(60, 15.0)
                    row = dict(kind="h2load", server=name, scenario=scenario, streams=streams, rep=rep,
                               **h2load_on(name, qfile[scenario], servers[name].pid, streams, a.h2load_requests))
                    rows.append(row)
                    print(row, flush=True)
            for name in ("lockr", "dnsdist"):
                rb.wait_quiet(60, 15.0)
                row = dict(kind="handshakes", server=name, rep=rep, **handshakes(PORTS[name][1], servers[name].pid, 5))
                rows.append(row)
                print(row, flush=True)
                for transport, alpn in (("dot", ["dot"]), ("doh", ["h2"])):
                    port = PORTS[name][1 if transport == "dot" else 2]
                    row = dict(kind="memory", server=name, transport=transport, rep=rep,
                               kib_per_connection=memory_per_connection(port, servers[name].pid, ca, alpn))
                    rows.append(row)
                    print(row, flush=True)
                    time.sleep(1)
        # The upstream's transport: lockr without a cache asking dnsdist (plain, DoT, DoH).
        plain, dot, doh = PORTS["dnsdist"]
        upstreams = {"plain": f"127.0.0.1:{plain}", "tls": f"tls://127.0.0.1:{dot}@dns.test",
                     "https": f"https://127.0.0.1@dns.test:{doh}/dns-query"}
        for transport, port in UPSTREAM_LOCKR.items():
            name = f"lockr-up-{transport}"
            config = lockr_config(name, cert, key, ca, upstream=upstreams[transport])
            p = rb.start(name, lockr_argv(name, config, port, upstream_plain=False), f"{name}.log")
            rb.wait_ready(p, port, rb.probes()["allowed"], False)
            servers[name] = p
        for rep in range(a.reps):
            for transport, port in UPSTREAM_LOCKR.items():
                pid = servers[f"lockr-up-{transport}"].pid
                rb.wait_quiet(60, 15.0)
                r = rb.dnsperf(port, "q-allowed.txt", ["-c", "4", "-q", "20", "-t", "3", "-Q", str(a.lat_qps), "-l",
                                                        str(a.dur), "-v"], pid,
                               verbose_file=os.path.join(rb.RUN, "dnsperf-v.out"))
                row = dict(kind="upstream", transport=transport, rep=rep, qps=r["qps"],
                           p50_ms=round(1000 * r.get("p50_s", 0), 3), p99_ms=round(1000 * r.get("p99_s", 0), 3),
                           server_cpu_pct=r["server_cpu_pct"],
                           us_per_query=round(10_000 * r["server_cpu_pct"] / max(1.0, float(r["qps"] or 0)), 2))
                rows.append(row)
                print(row, flush=True)
    finally:
        rb.stop_all()
    summary(rows, os.path.join(a.out, f"encrypted-{time.strftime('%Y%m%d-%H%M%S')}.md"))


def median(values):
    values = [float(v) for v in values if v not in ("", None)]
    return statistics.median(values) if values else float("nan")


def summary(rows, path):
    lines = ["# DNS over TLS and HTTPS: lockr beside dnsdist (medians)", "",
             "| transport | scenario | server | QPS | CPU us/query | lost |", "|---|---|---|---|---|---|"]
    for transport, scenario in SCENARIOS:
        for server in ("lockr", "dnsdist"):
            q = [r for r in rows if r["kind"] == "qps" and r["transport"] == transport
                 and r["scenario"] == scenario and r["server"] == server]
            lines.append(f"| {transport} | {scenario} | {server} | {median(r['qps'] for r in q):.0f} | "
                         f"{median(r['us_per_query'] for r in q):.2f} | {median(r['lost'] for r in q):.0f} |")
    lines += ["", "DoH under h2load (8 connections):", "",
              "| scenario | in flight per connection | server | requests/s | CPU us/request |", "|---|---|---|---|---|"]
    for scenario, streams in H2LOAD_SCENARIOS:
        for server in ("lockr", "dnsdist"):
            h = [r for r in rows if r["kind"] == "h2load" and r["scenario"] == scenario and r["streams"] == streams
                 and r["server"] == server]
            lines.append(f"| {scenario} | {streams} | {server} | {median(r['qps'] for r in h):.0f} | "
                         f"{median(r['us_per_query'] for r in h):.2f} |")
    lines += ["", "| server | handshakes/s | server CPU ms/handshake | KiB per DoT connection | KiB per DoH connection |",
              "|---|---|---|---|---|"]
    for server in ("lockr", "dnsdist"):
        h = [r for r in rows if r["kind"] == "handshakes" and r["server"] == server]
        m = {t: [r for r in rows if r["kind"] == "memory" and r["server"] == server and r["transport"] == t]
             for t in ("dot", "doh")}
        lines.append(f"| {server} | {median(r['handshakes_per_s'] for r in h):.0f} | "
                     f"{median(r['cpu_ms_per_handshake'] for r in h):.3f} | "
                     f"{median(r['kib_per_connection'] for r in m['dot']):.1f} | "
                     f"{median(r['kib_per_connection'] for r in m['doh']):.1f} |")
    lines += ["", "lockr without a cache, asking dnsdist over each transport (the latency an encrypted upstream adds):",
              "", "| upstream | p50 ms | p99 ms | lockr CPU us/query |", "|---|---|---|---|"]
    for transport in UPSTREAM_LOCKR:
        u = [r for r in rows if r["kind"] == "upstream" and r["transport"] == transport]
        lines.append(f"| {transport} | {median(r['p50_ms'] for r in u):.3f} | {median(r['p99_ms'] for r in u):.3f} | "
                     f"{median(r['us_per_query'] for r in u):.2f} |")
    text = "\n".join(lines) + "\n"
    rb.write(path, text)
    print(text)


if __name__ == "__main__":
    main()
