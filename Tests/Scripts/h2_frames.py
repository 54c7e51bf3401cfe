#!/usr/bin/python3
"""DNS over HTTPS frame by frame (HTTP/2 with Debian's python3-h2), for lockr's tests.

  h2_frames.py PORT CA_FILE NAME

Asks 127.0.0.1:PORT (server name dns.test, certificate checked against CA_FILE) for NAME's A
record in ways that real clients split their frames, one connection each, and prints one line per
way: "WAY STATUS ADDRESS" (the first A record, or "-"); "WAY failed: REASON" when it broke.

  get-end-later   a GET whose END_STREAM comes in a DATA frame after its answer; then another GET
  post-in-pieces  a POST whose body comes in three DATA frames
  post-trailers   a POST ended by a trailer HEADERS frame
  reset-then-ask  a POST reset half-way by the client; then a whole one on the same connection
  many-posts      120 padded POSTs of about 1 KB (more than the 64 KiB a connection may send
                  before the server gives its receive window back); prints how many got 200
"""
import base64
import socket
import ssl
import struct
import sys

import h2.config
import h2.connection
import h2.events

PORT, CA_FILE, NAME = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def query(padding=0):
    """NAME A with EDNS, and a padding option (RFC 7830) of `padding` bytes when asked."""
    question = b"".join(bytes([len(label)]) + label.encode() for label in NAME.split(".")) + b"\0"
    options = struct.pack(">HH", 12, padding) + bytes(padding) if padding else b""
    opt = b"\0" + struct.pack(">HHIH", 41, 1232, 0, len(options)) + options
    return struct.pack(">HHHHHH", 0, 0x0100, 1, 0, 0, 1) + question + struct.pack(">HH", 1, 1) + opt


def first_address(message):
    """The first A record of a DNS answer, or "-"."""
    if len(message) < 12:
        return "-"
    answers = struct.unpack(">H", message[6:8])[0]
    offset = 12
    while message[offset] != 0:
        offset += message[offset] + 1
    offset += 5
    for _ in range(answers):
        if message[offset] & 0xC0 == 0xC0:
            offset += 2
        else:
            while message[offset] != 0:
                offset += message[offset] + 1
            offset += 1
        kind, _, _, length = struct.unpack(">HHIH", message[offset:offset + 10])
        offset += 10
        if kind == 1 and length == 4:
            return ".".join(str(b) for b in message[offset:offset + 4])
        offset += length
    return "-"


class Connection:
    def __init__(self):
        context = ssl.create_default_context(cafile=CA_FILE)
        context.set_alpn_protocols(["h2"])
        self.sock = context.wrap_socket(socket.create_connection(("127.0.0.1", PORT), timeout=5),
                                        server_hostname="dns.test")
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.h2.initiate_connection()
        self.flush()
        self.answers = {}

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def headers(self, method, path, end_stream, content_type=None):
        stream = self.h2.get_next_available_stream_id()
        fields = [(":method", method), (":scheme", "https"), (":authority", "dns.test"), (":path", path),
                  ("accept", "application/dns-message")]
        if content_type:
            fields.append(("content-type", content_type))
        self.h2.send_headers(stream, fields, end_stream=end_stream)
        self.flush()
        return stream

    def data(self, stream, body, end_stream):
        self.h2.send_data(stream, body, end_stream=end_stream)
        self.flush()

    def wait(self, stream):
        """Reads until `stream` has its whole answer: (status, body)."""
        while stream not in self.answers or not self.answers[stream][2]:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            for event in self.h2.receive_data(chunk):
                if isinstance(event, h2.events.ResponseReceived):
                    status = int(dict(event.headers)[b":status"])
                    self.answers[event.stream_id] = [status, b"", False]
                elif isinstance(event, h2.events.DataReceived):
                    self.answers[event.stream_id][1] += event.data
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    self.answers[event.stream_id][2] = True
                elif isinstance(event, h2.events.StreamReset) and event.stream_id in self.answers:
                    self.answers[event.stream_id][2] = True
            self.flush()
        status, body, _ = self.answers.pop(stream)
        return status, body

    def get(self, end_stream=True):
        encoded = base64.urlsafe_b64encode(query()).decode().rstrip("=")
        return self.headers("GET", "/dns-query?dns=" + encoded, end_stream)

    def post_headers(self):
        return self.headers("POST", "/dns-query", False, "application/dns-message")


def show(way, status, body):
    print(way, status, first_address(body) if status == 200 else "-", flush=True)


def get_end_later():
    c = Connection()
    stream = c.get(end_stream=False)
    show("get-end-later", *c.wait(stream))
    c.data(stream, b"", end_stream=True)
    show("get-end-later", *c.wait(c.get()))


def post_in_pieces():
    c = Connection()
    message = query()
    stream = c.post_headers()
    c.data(stream, message[:5], False)
    c.data(stream, message[5:20], False)
    c.data(stream, message[20:], True)
    show("post-in-pieces", *c.wait(stream))


def post_trailers():
    c = Connection()
    stream = c.post_headers()
    c.data(stream, query(), False)
    c.h2.send_headers(stream, [("x-trailer", "1")], end_stream=True)
    c.flush()
    show("post-trailers", *c.wait(stream))


def reset_then_ask():
    c = Connection()
    message = query()
    stream = c.post_headers()
    c.data(stream, message[:10], False)
    c.h2.reset_stream(stream)
    c.flush()
    stream = c.post_headers()
    c.data(stream, message, True)
    show("reset-then-ask", *c.wait(stream))


def many_posts():
    c = Connection()
    message = query(padding=1000)
    answered = 0
    for _ in range(120):
        stream = c.post_headers()
        c.data(stream, message, True)
        status, body = c.wait(stream)
        answered += status == 200
    print("many-posts", answered, flush=True)


for way in (get_end_later, post_in_pieces, post_trailers, reset_then_ask, many_posts):
    name = way.__name__.replace("_", "-")
    try:
        way()
    except Exception as error:  # noqa: BLE001 - each way reports its own failure and the next goes on
        print(name, "failed:", repr(error), flush=True)
