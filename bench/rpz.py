"""Response Policy Zones: how soon unbound, BIND and PowerDNS Recursor follow lockr's changes.

lockr (release build, `backends = ["rpz"]`) serves default.rpz.lockr on loopback; a tiny UDP
answerer here is the upstream, giving every name the same address.
Each change toggles a profile that blocks TikTok; each resolver is asked with dig until it answers
accordingly (0.0.0.0 or the address). BIND and unbound are told by NOTIFY; PowerDNS Recursor 4.8
asks every second. Then BIND stops, lockr changes three times, BIND starts and catches up.
"""
import argparse
import os
import shutil
import signal
import socket
import socketserver
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOCKR = os.environ.get("LOCKR_BINARY", os.path.join(HERE, "..", ".build", "release", "lockr"))
ADDRESS = "192.0.2.21"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Upstream(socketserver.ThreadingUDPServer):
    """Answers every A question with ADDRESS (TTL 300), others with NODATA."""
    allow_reuse_address = True


class UpstreamHandler(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        if len(data) < 12:
            return
        end = 12
        while data[end] != 0:
            end += 1 + data[end]
        qtype = struct.unpack(">H", data[end + 1:end + 3])[0]
        question = data[12:end + 5]
        header = data[:2] + b"\x81\x80" + struct.pack(">HHHH", 1, 1 if qtype == 1 else 0, 0, 0)
        answer = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 300, 4) + socket.inet_aton(ADDRESS) if qtype == 1 else b""
        sock.sendto(header + question + answer, self.client_address)


def dig(port, name, source="127.0.0.1"):
    out = subprocess.run(["dig", "@127.0.0.1", "-p", str(port), "-b", source, "+tries=1", "+time=1", "+short", name],
                         capture_output=True, text=True).stdout
    return out.strip()


def wait_until(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


class Resolver:
    def __init__(self, kind, port, primary, upstream, directory):
        self.kind, self.port, self.primary, self.upstream = kind, port, primary, upstream
        self.dir = os.path.join(directory, kind)
        os.makedirs(self.dir, exist_ok=True)
        self.process = None
        self.write_config()

    def write_config(self):
        if self.kind == "unbound":
            text = f"""server:
  interface: 127.0.0.1@{self.port}
  do-daemonize: no
  username: ""
  chroot: ""
  pidfile: ""
  use-syslog: no
  logfile: "{self.dir}/log"
  directory: "{self.dir}"
  access-control: 127.0.0.0/8 allow
  module-config: "respip iterator"
  do-not-query-localhost: no
rpz:
  name: "default.rpz.lockr."
  primary: 127.0.0.1@{self.primary}
  allow-notify: 127.0.0.1
forward-zone:
  name: "."
  forward-addr: 127.0.0.1@{self.upstream}
"""
            self.argv = ["/usr/sbin/unbound", "-d", "-c", f"{self.dir}/unbound.conf"]
            name = "unbound.conf"
        elif self.kind == "bind":
            text = f"""options {{
  directory "{self.dir}";
  listen-on port {self.port} {{ 127.0.0.1; }};
  listen-on-v6 {{ none; }};
  pid-file none;
  recursion yes;
  allow-query {{ 127.0.0.0/8; }};
  allow-recursion {{ 127.0.0.0/8; }};
  forwarders {{ 127.0.0.1 port {self.upstream}; }};
  forward only;
  dnssec-validation no;
  response-policy {{ zone "default.rpz.lockr" min-update-interval 0; }} qname-wait-recurse no;
}};
controls {{ }};
zone "default.rpz.lockr" {{
  type secondary;
  primaries {{ 127.0.0.1 port {self.primary}; }};
  file "default.rpz.lockr.db";
  allow-notify {{ 127.0.0.1; }};
}};
"""
            self.argv = ["/usr/sbin/named", "-g", "-c", f"{self.dir}/named.conf"]
            name = "named.conf"
        else:
            with open(f"{self.dir}/rpz.lua", "w") as f:
                f.write(f'rpzPrimary("127.0.0.1:{self.primary}", "default.rpz.lockr.", {{refresh=1}})\n')
            text = f"""local-address=127.0.0.1
local-port={self.port}
allow-from=127.0.0.0/8
forward-zones-recurse=.=127.0.0.1:{self.upstream}
lua-config-file={self.dir}/rpz.lua
socket-dir={self.dir}
daemon=no
write-pid=no
dnssec=off
disable-packetcache=yes
disable-syslog=yes
security-poll-suffix=
"""
            self.argv = ["/usr/sbin/pdns_recursor", f"--config-dir={self.dir}"]
            name = "recursor.conf"
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def start(self):
        log = open(os.path.join(self.dir, "stderr"), "a")
        self.process = subprocess.Popen(self.argv, stdout=log, stderr=log)
        if not wait_until(lambda: dig(self.port, "www.example.net") == ADDRESS, 20):
            raise SystemExit(f"bench/rpz: {self.kind} did not start answering")

    def stop(self):
        if self.process:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=20)
            self.process = None


def lockr_cli(state, *arguments):
    subprocess.run([LOCKR, *arguments, "--state-dir", state], check=True, capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    checking = "--check-arguments" in sys.argv
    if checking:
        sys.argv.remove("--check-arguments")
    options = parser.parse_args()
    if checking:
        return
    work = tempfile.mkdtemp(prefix="lockr-bench-rpz-")
    upstream = Upstream(("127.0.0.1", 0), UpstreamHandler)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    upstream_port = upstream.server_address[1]
    rpz_port, ports = free_port(), {kind: free_port() for kind in ("unbound", "bind", "powerdns")}
    state = os.path.join(work, "state")
    os.makedirs(state)
    with open(os.path.join(work, "lockr.toml"), "w") as f:
        f.write(f"""guard = ["tiktok"]
backends = ["rpz"]
[policy]
mode = "time"
[time]
budget-minutes = 180
[profiles.focus]
block = ["tiktok"]
[rpz]
listen = ["127.0.0.1:{rpz_port}"]
secondaries = ["127.0.0.1:{ports['unbound']}", "127.0.0.1:{ports['bind']}"]
""")
    log = open(os.path.join(work, "lockr.log"), "w")
    lockr = subprocess.Popen([LOCKR, "serve", "--config", os.path.join(work, "lockr.toml"), "--state-dir", state,
                              "--control", f"127.0.0.1:{free_port()}", "--upstream", f"127.0.0.1:{upstream_port}"],
                             stdout=log, stderr=log)
    resolvers = []
    try:
        serves = ["dig", "@127.0.0.1", "-p", str(rpz_port), "+short", "default.rpz.lockr", "SOA"]
        if not wait_until(lambda: subprocess.run(serves, capture_output=True, text=True).stdout.strip() != "", 20):
            raise SystemExit("bench/rpz: lockr does not serve its zone")
        for kind in ("unbound", "bind", "powerdns"):
            resolver = Resolver(kind, ports[kind], rpz_port, upstream_port, work)
            resolver.start()
            resolvers.append(resolver)
        seconds = {r.kind: [] for r in resolvers}
        for change in range(1, options.changes + 1):
            expected = "0.0.0.0" if change % 2 else ADDRESS
            lockr_cli(state, "profile", "toggle", "focus")
            toggled = time.monotonic()

            # Each resolver asked in a thread of its own: one slow to answer delays no other.
            def follow(resolver):
                followed = wait_until(lambda: dig(resolver.port, "tiktok.com") == expected, 30)
                seconds[resolver.kind].append(time.monotonic() - toggled if followed else float("inf"))

            threads = [threading.Thread(target=follow, args=(r,)) for r in resolvers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        bind = next(r for r in resolvers if r.kind == "bind")
        bind.stop()
        for _ in range(3):
            lockr_cli(state, "profile", "toggle", "focus")
        expected = "0.0.0.0" if (options.changes + 3) % 2 else ADDRESS
        restarted = time.monotonic()
        bind.start()
        wait_until(lambda: dig(bind.port, "tiktok.com") == expected, 30)
        caught_up = time.monotonic() - restarted
        log.flush()
        by_ixfr = "IXFR from serial" in open(os.path.join(work, "lockr.log")).read()
    finally:
        for r in resolvers:
            r.stop()
        lockr.send_signal(signal.SIGTERM)
        lockr.wait(timeout=30)
        upstream.shutdown()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    lines = [f"# RPZ propagation, {time.strftime('%Y-%m-%d %H:%M')}", "",
             f"{options.changes} changes (`lockr profile toggle`), three resolvers following at once on loopback; "
             "seconds from the toggle to the resolver answering accordingly.", "",
             "| resolver | median | worst |", "|---|---|---|"]
    for kind, values in seconds.items():
        lines.append(f"| {kind} | {statistics.median(values):.2f} | {max(values):.2f} |")
    lines += ["", "Each change, in order (unbound / BIND / PowerDNS Recursor):", ""]
    lines += [f"- {index + 1}: " + " / ".join(f"{seconds[kind][index]:.2f}" for kind in seconds)
              for index in range(options.changes)]
    lines += ["", f"BIND stopped, three changes, started again: caught up {caught_up:.2f} s after its start, "
              f"{'by IXFR' if by_ixfr else 'not by IXFR'}.", ""]
    os.makedirs(options.out, exist_ok=True)
    path = os.path.join(options.out, f"rpz-{stamp}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print(f"written to {path}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
