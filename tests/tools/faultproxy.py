#!/usr/bin/env python3
"""faultproxy.py: a TCP proxy on loopback that breaks connections on purpose.

    faultproxy.py TARGET_PORT PLANFILE LOGFILE [--timeout SECONDS]

Listens on 127.0.0.1 on a free port, prints the port on standard output,
and forwards every connection to 127.0.0.1:TARGET_PORT (a real Dovecot or
Postfix of tests/env: TLS goes through untouched, end to end). It runs until
killed, or for the time-out (600 s by default: it never runs forever).

Each new connection takes the first line of PLANFILE (and removes it; an
empty or missing file means "pass"), so that a test says what happens to
its next connections before it makes them:

  pass                     forward both ways
  cut up|down N            forward N bytes that way, then drop the
                           connection (both sides closed, nothing more)
  stall up|down N          forward N bytes that way, then forward nothing
                           more that way (the connection stays open)
  corrupt up|down N        change the byte at offset N that way
  cutafter up|down TEXT    drop the connection as soon as TEXT (Python
                           escapes: \\r\\n.\\r\\n) has gone through that way,
                           before anything else passes either way
  cuttime SECONDS          drop the connection that long after it came
                           (say, in the middle of an IDLE)
  cutreply up N            once N bytes went up, nothing more comes down;
                           when the client has then sent nothing for a
                           second (it waits for a reply), the connection
                           is dropped: the server got all the client sent
                           (over TLS too, where TEXT cannot be seen), the
                           client never hears the answer

up is client to server, down server to client. Every connection's plan and
the bytes it moved each way are appended to LOGFILE, one line per
connection, so a test can check that a fault did happen.
"""
import argparse
import os
import select
import signal
import socket
import sys
import threading
import time

lock = threading.Lock()


def take_plan(path):
    with lock:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return ["pass"]
        lines = [l for l in lines if l.strip()]
        if not lines:
            return ["pass"]
        with open(path, "w") as f:
            f.write("".join(l + "\n" for l in lines[1:]))
        return lines[0].split(None, 2)


def log(path, text):
    with lock:
        with open(path, "a") as f:
            f.write(text + "\n")


class Way:
    def __init__(self, plan, name):
        self.moved = 0
        self.kind = None
        self.n = None
        self.text = None
        self.tail = b""
        if len(plan) >= 3 and plan[1] == name:
            self.kind = plan[0]
            if self.kind == "cutafter":
                self.text = plan[2].encode().decode("unicode_escape").encode(
                    "latin-1")
            else:
                self.n = int(plan[2])

    def filter(self, data):
        """Returns (bytes to send, drop the connection afterwards)."""
        if self.kind == "stall" and self.moved >= self.n:
            return b"", False
        if self.kind in ("cut", "stall"):
            room = self.n - self.moved
            if len(data) >= room:
                self.moved += room
                return data[:room], self.kind == "cut"
        if self.kind == "corrupt" and \
                self.moved <= self.n < self.moved + len(data):
            i = self.n - self.moved
            data = data[:i] + bytes([data[i] ^ 0x5a]) + data[i + 1:]
        if self.kind == "cutafter":
            seen = self.tail + data
            at = seen.find(self.text)
            if at >= 0:
                end = at + len(self.text) - len(self.tail)
                self.moved += end
                return data[:end], True
            self.tail = seen[-(len(self.text) - 1):] if len(self.text) > 1 \
                else b""
        self.moved += len(data)
        return data, False


def serve(client, target, plan, logfile):
    try:
        server = socket.create_connection(("127.0.0.1", target), timeout=10)
    except OSError as e:
        log(logfile, "%s: cannot connect: %s" % (" ".join(plan), e))
        client.close()
        return
    server.settimeout(None)
    up, down = Way(plan, "up"), Way(plan, "down")
    socks = {client: (server, up), server: (client, down)}
    why = "closed"
    hold = plan[0] == "cutreply" and len(plan) >= 3 and plan[1] == "up"
    held = False
    deadline = time.monotonic() + float(plan[1]) \
        if plan[0] == "cuttime" and len(plan) >= 2 else None
    try:
        while True:
            wait = 1 if held else 60
            if deadline is not None:
                wait = max(0, min(wait, deadline - time.monotonic()))
            r, _, _ = select.select(list(socks), [], [], wait)
            if deadline is not None and time.monotonic() >= deadline:
                why = "dropped"
                break
            if not r:
                if held:
                    why = "dropped"
                    break
                continue
            drop = False
            for s in r:
                other, way = socks[s]
                data = s.recv(65536)
                if not data:
                    raise EOFError
                if hold and s is client:
                    up.moved += len(data)
                    other.sendall(data)
                    held = up.moved >= int(plan[2])
                    continue
                if held and s is server:
                    down.moved += 0     # the reply goes nowhere
                    continue
                data, drop = way.filter(data)
                if data:
                    other.sendall(data)
                if drop:
                    why = "dropped"
                    break
            if drop:
                break
    except (EOFError, OSError):
        pass
    for s in (client, server):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()
    log(logfile, "%s: %s after up %d down %d" %
        (" ".join(plan), why, up.moved, down.moved))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("target", type=int)
    p.add_argument("planfile")
    p.add_argument("logfile")
    p.add_argument("--timeout", type=int, default=600)
    a = p.parse_args()
    signal.signal(signal.SIGALRM, lambda *_: os._exit(0))
    signal.alarm(a.timeout)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    print(ls.getsockname()[1], flush=True)
    sys.stdout.close()
    while True:
        c, _ = ls.accept()
        plan = take_plan(a.planfile)
        threading.Thread(target=serve, args=(c, a.target, plan, a.logfile),
                         daemon=True).start()


if __name__ == "__main__":
    main()
