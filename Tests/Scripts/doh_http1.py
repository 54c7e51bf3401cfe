#!/usr/bin/env python3
"""A DNS-over-HTTPS server that speaks HTTP/1.1 only (ALPN offers nothing else), for lockr's tests.

  doh_http1.py CERT KEY UPSTREAM_PORT

Listens on 127.0.0.1 at a free port it prints first. POST /dns-query with an application/dns-message
body: the message goes to 127.0.0.1:UPSTREAM_PORT over UDP and its answer comes back as the body.
Connections are kept open (HTTP/1.1 keep-alive); each one accepted is logged to stderr as
"connection". Anything else gets 404 or 415. Stops on SIGTERM or when stdin closes.
"""
import http.server
import socket
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        print("connection", file=sys.stderr, flush=True)

    def do_POST(self):
        if self.path != "/dns-query":
            return self.reply(404, b"")
        if self.headers.get("content-type") != "application/dns-message":
            return self.reply(415, b"")
        query = self.rfile.read(int(self.headers.get("content-length", "0")))
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as upstream:
            upstream.settimeout(2)
            upstream.sendto(query, ("127.0.0.1", int(sys.argv[3])))
            answer, _ = upstream.recvfrom(65535)
        self.reply(200, answer, "application/dns-message")

    def reply(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    context.set_alpn_protocols(["http/1.1"])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
