#!/usr/bin/env python3
"""Serves one small page on ADDRESS at a free port it prints first, for lockr's browser tests.

  page_server.py ADDRESS

Every GET gets <title>reachable</title>. Stops on SIGTERM or when stdin closes.
"""
import http.server
import sys
import threading

PAGE = b"<!doctype html><html><head><title>reachable</title></head><body>reachable</body></html>"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer((sys.argv[1], 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
