#!/usr/bin/env python3
"""Serves block lists to lockr's tests, on 127.0.0.1 at a free port it prints first.

  /hosts.txt       a hosts-format list with an ETag and a Last-Modified date: a request that sends
                   the current ETag back gets 304; /set-version/N changes the list and its ETag
  /adblock.txt     an adblock list, sent gzip-compressed to a client that takes gzip
  /plain.txt       a plain list of names, without validators
  /error           500
  /truncated       claims 10,000 bytes, sends 200 and closes
  /huge            a 50 MB list of names (chunked, no length), for a max-size below it; sending
                   stops when the client hangs up
  /html            an error page served as 200
  /empty           200 with no body
  /moved           302 to /hosts.txt;  /loop: 302 to itself;  /downgrade: 302 to http://...
  /set-broken/P    makes /hosts.txt answer as /P does (error, truncated, huge, html, empty) until
                   /set-broken/none

Each request is logged to stderr as one line: METHOD PATH If-None-Match Accept-Encoding.
Stops on SIGTERM or when stdin closes.
"""
import gzip
import http.server
import sys
import threading

version = 1
broken = None


def hosts():
    return (f"# test list version {version}\n0.0.0.0 ads.example.test\n0.0.0.0 v{version}.tracker.test\n").encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global version, broken
        etag = self.headers.get("If-None-Match", "-")
        encoding = self.headers.get("Accept-Encoding", "-")
        print(f"GET {self.path} {etag} {encoding}", file=sys.stderr, flush=True)
        path = "/" + broken if broken and self.path == "/hosts.txt" else self.path
        if path.startswith("/set-version/"):
            version = int(path.rsplit("/", 1)[1])
            self.send(200, b"ok\n")
        elif path.startswith("/set-broken/"):
            broken = path.rsplit("/", 1)[1]
            broken = None if broken == "none" else broken
            self.send(200, b"ok\n")
        elif path == "/hosts.txt":
            tag = f'"v{version}"'
            if etag == tag:
                self.send_response(304)
                self.send_header("ETag", tag)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send(200, hosts(), [("ETag", tag), ("Last-Modified", "Wed, 25 Nov 2026 10:00:00 GMT")])
        elif path == "/adblock.txt":
            body = b"[Adblock Plus 2.0]\n! a comment\n||adblock.example.test^\n||second.example.test^\n"
            if "gzip" in encoding:
                self.send(200, gzip.compress(body), [("Content-Encoding", "gzip")])
            else:
                self.send(200, body)
        elif path == "/plain.txt":
            self.send(200, b"plain.example.test\n")
        elif path == "/error":
            self.send(500, b"broken\n")
        elif path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", "10000")
            self.end_headers()
            self.wfile.write(b"cut.example.test\n" * 10)
            self.wfile.flush()
            self.close_connection = True
        elif path == "/huge":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            line = b"".join(b"n%07d.huge.test\n" % i for i in range(1000))
            try:
                for _ in range(3000):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
        elif path == "/html":
            self.send(200, b"<html><body><h1>Sorry</h1><p>Try later.</p></body></html>\n", [("Content-Type", "text/html")])
        elif path == "/moved":
            self.send(302, b"", [("Location", "/hosts.txt")])
        elif path == "/loop":
            self.send(302, b"", [("Location", "/loop")])
        elif path == "/empty":
            self.send(200, b"")
        else:
            self.send(404, b"no such list\n")


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
