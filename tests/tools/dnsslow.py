#!/usr/bin/env python3
"""dnsslow: a DNS relay that answers late, over UDP and TCP, and says when.

    dnsslow.py UPSTREAM-PORT DELAY-MS LOG

Listens on one free port of 127.0.0.1, UDP and TCP alike (the port is
printed on the first line of standard output), passes every query on to
127.0.0.1:UPSTREAM-PORT at once and hands the answer back DELAY-MS after
the query came in: a resolver in front of it sees the test environment's
NSD as a slow server far away. Truncated UDP answers make the resolver ask
again over TCP, which is relayed the same way, so no lookup fails for size.

LOG gets a line per query, "SECONDS QUERY-TIME ANSWER-TIME", in the
system's monotonic clock (CLOCK_MONOTONIC, the same in every process), so
that a bench can tell what the program it drives did while lookups were
waiting. Runs until killed. For tests/bench/compose.sh.
"""
import heapq
import itertools
import selectors
import socket
import struct
import sys
import threading
import time


def log_line(log, lock, t_query, t_answer):
    with lock:
        log.write("%.6f %.6f\n" % (t_query, t_answer))
        log.flush()


def tcp_client(conn, upstream, delay, log, lock):
    """One TCP connection: length-prefixed queries, each answered late."""
    def read_exact(sock, n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    try:
        with conn:
            while True:
                head = read_exact(conn, 2)
                if head is None:
                    return
                query = read_exact(conn, struct.unpack("!H", head)[0])
                if query is None:
                    return
                t_query = time.monotonic()
                with socket.create_connection(upstream, timeout=10) as up:
                    up.sendall(head + query)
                    alen = read_exact(up, 2)
                    answer = read_exact(up, struct.unpack("!H", alen)[0]) \
                        if alen is not None else None
                if answer is None:
                    return
                wait = t_query + delay - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                conn.sendall(alen + answer)
                log_line(log, lock, t_query, time.monotonic())
    except OSError:
        return


def tcp_server(listener, upstream, delay, log, lock):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=tcp_client, daemon=True,
                         args=(conn, upstream, delay, log, lock)).start()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: dnsslow.py UPSTREAM-PORT DELAY-MS LOG")
    upstream = ("127.0.0.1", int(sys.argv[1]))
    delay = float(sys.argv[2]) / 1000.0
    log = open(sys.argv[3], "a")
    lock = threading.Lock()

    # one port number for both: bind UDP, then TCP to the same
    while True:
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        port = udp.getsockname()[1]
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            tcp.bind(("127.0.0.1", port))
            break
        except OSError:
            udp.close()
            tcp.close()
    tcp.listen(64)
    threading.Thread(target=tcp_server, daemon=True,
                     args=(tcp, upstream, delay, log, lock)).start()
    print(port, flush=True)

    sel = selectors.DefaultSelector()
    sel.register(udp, selectors.EVENT_READ, None)
    back = {}       # client address -> its upstream socket
    asked = {}      # (client address, DNS id) -> time of the query
    due = []        # (when, n, data, client address, time of the query)
    seq = itertools.count()
    while True:
        wait = max(0.0, due[0][0] - time.monotonic()) if due else 1.0
        for key, _ in sel.select(wait):
            try:
                data, addr = key.fileobj.recvfrom(65535)
            except OSError:
                continue
            now = time.monotonic()
            if key.data is None:            # a query
                if addr not in back:
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.bind(("127.0.0.1", 0))
                    s.connect(upstream)
                    sel.register(s, selectors.EVENT_READ, addr)
                    back[addr] = s
                asked[(addr, data[:2])] = now
                back[addr].send(data)
            else:                           # its answer
                t_query = asked.pop((key.data, data[:2]), now)
                heapq.heappush(due, (t_query + delay, next(seq), data,
                                     key.data, t_query))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, data, addr, t_query = heapq.heappop(due)
            try:
                udp.sendto(data, addr)
            except OSError:
                pass
            log_line(log, lock, t_query, time.monotonic())


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
