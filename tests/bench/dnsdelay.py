#!/usr/bin/env python3
"""dnsdelay: a DNS relay that adds a round-trip time, for tests/bench/steed.sh.

    dnsdelay.py UPSTREAM-PORT RTT-MS

Listens on a free UDP port of 127.0.0.1 (printed on the first line of
stdout), sends every datagram it gets on to 127.0.0.1:UPSTREAM-PORT after
half of RTT-MS, and every answer back after the other half. So a resolver
pointed at it sees the test environment's NSD as if it were RTT-MS away,
as an authoritative server on the Internet is, and a lookup of many names
at once shows whether they are asked in parallel (one round trip) or one
after another. Each client port gets its own upstream socket, so answers
find their way back whatever the DNS IDs. UDP only: an answer with the TC
bit makes the resolver try TCP, which is not relayed, and that lookup
fails (the bench then says what could not be measured). Runs until killed.
"""
import heapq
import itertools
import selectors
import socket
import sys
import time

IDLE = 30.0     # seconds before an upstream socket of a client is dropped


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: dnsdelay.py UPSTREAM-PORT RTT-MS")
    upstream = ("127.0.0.1", int(sys.argv[1]))
    half = float(sys.argv[2]) / 2000.0

    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", 0))
    print(front.getsockname()[1], flush=True)

    sel = selectors.DefaultSelector()
    sel.register(front, selectors.EVENT_READ, None)
    back = {}           # client address -> [socket, last used]
    due = []            # (when, n, socket, data, address)
    seq = itertools.count()

    while True:
        now = time.monotonic()
        wait = max(0.0, due[0][0] - now) if due else 1.0
        for key, _ in sel.select(wait):
            sock = key.fileobj
            try:
                data, addr = sock.recvfrom(65535)
            except OSError:
                continue
            now = time.monotonic()
            if key.data is None:        # a query from a client
                if addr not in back:
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.bind(("127.0.0.1", 0))
                    sel.register(s, selectors.EVENT_READ, addr)
                    back[addr] = [s, now]
                back[addr][1] = now
                heapq.heappush(due, (now + half, next(seq), back[addr][0],
                                     data, upstream))
            else:                       # an answer for key.data
                heapq.heappush(due, (now + half, next(seq), front, data,
                                     key.data))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, sock, data, addr = heapq.heappop(due)
            try:
                sock.sendto(data, addr)
            except OSError:
                pass
        # Nothing of a client idle this long is still due.
        for addr in [a for a, (_, t) in back.items() if now - t > IDLE]:
            s = back.pop(addr)[0]
            sel.unregister(s)
            s.close()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
