#!/usr/bin/env python3
"""syslog-sink SOCKET LOGFILE: take syslog datagrams on the Unix socket
SOCKET (the /dev/log of a server's namespace, tests/env/nsroot) and append
them to LOGFILE, one line each, until killed. Cyrus logs only to syslog."""

import os
import socket
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: syslog-sink SOCKET LOGFILE")
    path, logfile = sys.argv[1], sys.argv[2]
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o666)
    with open(logfile, "ab", buffering=0) as out:
        while True:
            data = s.recv(65536)
            # "<PRI>" then the message as it came.
            out.write(data.rstrip(b"\0\n").replace(b"\n", b" ") + b"\n")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
