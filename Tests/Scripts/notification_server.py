#!/usr/bin/env python3
"""A desktop notification server for tests, on a private session bus of its own.

    notification_server.py LOG -- COMMAND [ARG...]

Starts itself again under dbus-run-session (with every signal unblocked: a test runner's threads
may have blocked some, and the bus must end by SIGTERM when the session does), owns
org.freedesktop.Notifications, then runs COMMAND; each Notify call is written to LOG as one JSON
line (app, replaces_id, summary, body, urgency) and answered with a new id. Ends when COMMAND ends,
or on SIGTERM (ending COMMAND with SIGINT first). Built on jeepney (PyPI).
"""
import json
import os
import signal
import subprocess
import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.Notifications"


def main():
    if os.environ.get("LOCKR_TEST_SESSION") != "1":
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.environ["LOCKR_TEST_SESSION"] = "1"
        os.execvp("dbus-run-session", ["dbus-run-session", "--", sys.executable, *sys.argv])
    log_path = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1:]
    connection = open_dbus_connection(bus="SESSION")
    reply = connection.send_and_get_reply(message_bus.RequestName(NAME, 4))
    if reply.body[0] != 1:
        sys.exit("cannot own " + NAME)
    child = subprocess.Popen(command)

    def stop(*_):
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=10)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    next_id = 1
    with open(log_path, "a", buffering=1) as log:
        while child.poll() is None:
            try:
                message = connection.receive(timeout=0.2)
            except TimeoutError:
                continue
            header = message.header
            if header.message_type != MessageType.method_call:
                continue
            member = header.fields.get(HeaderFields.member)
            if member == "Notify":
                app, replaces, _icon, summary, body, _actions, hints, _timeout = message.body
                urgency = hints.get("urgency", ("y", 1))[1]
                log.write(json.dumps({"app": app, "replaces_id": replaces, "summary": summary, "body": body,
                                      "urgency": urgency}) + "\n")
                notification_id = replaces or next_id
                next_id += 1
                connection.send(new_method_return(message, "u", (notification_id,)))
            elif member == "GetCapabilities":
                connection.send(new_method_return(message, "as", (["body"],)))
            elif member == "GetServerInformation":
                connection.send(new_method_return(message, "ssss", ("test", "lockr", "1", "1.2")))
            else:
                connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", (member or "",)))
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
