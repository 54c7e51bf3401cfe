#!/usr/bin/env python3
"""Keeps one DNS-over-TLS connection open across a change on the server, for lockr's tests.

  dot_client.py CA_FILE PORT SERVER_NAME QUERY_NAME

Connects to 127.0.0.1:PORT with TLS (checked against CA_FILE for SERVER_NAME), asks QUERY_NAME A,
prints the answer's last four bytes as an address; then, for each line on stdin, asks again on the
same connection and prints again. Exits when stdin closes.
"""
import socket
import ssl
import struct
import sys


def question(name):
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    return b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + labels + b"\x00\x00\x01\x00\x01"


def ask(connection, query):
    connection.sendall(struct.pack("!H", len(query)) + query)
    length = struct.unpack("!H", receive(connection, 2))[0]
    answer = receive(connection, length)
    print(".".join(str(byte) for byte in answer[-4:]), flush=True)


def receive(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise SystemExit("closed")
        data += chunk
    return data


def main():
    context = ssl.create_default_context(cafile=sys.argv[1])
    raw = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5)
    connection = context.wrap_socket(raw, server_hostname=sys.argv[3])
    query = question(sys.argv[4])
    ask(connection, query)
    for _ in sys.stdin:
        ask(connection, query)


if __name__ == "__main__":
    main()
