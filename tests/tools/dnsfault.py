#!/usr/bin/env python3
"""dnsfault: a DNS relay in front of the test NSD that breaks key lookups.

    dnsfault.py UPSTREAM-PORT MODEFILE LOG

Listens on one free port of 127.0.0.1, UDP and TCP alike (the port is
printed on the first line of standard output) and relays every query to
127.0.0.1:UPSTREAM-PORT. Queries for OPENPGPKEY (61) and SMIMEA (53)
records are treated as the first word of MODEFILE says, read afresh for
every query (missing file: pass):

  pass       relayed as they are
  servfail   answered SERVFAIL
  drop       never answered (the resolver times out)
  truncate   over UDP answered with TC set and no records, so that the
             resolver must ask again over TCP, which is relayed whole
  strip      relayed with every RRSIG taken out (a validator finds the
             answer bogus)
  nxdomain   answered NXDOMAIN, without any proof
  nodata     answered NOERROR with no records, without any proof

Every other query (DNSKEY, DS, SOA, ...) is always relayed, so that the
zone's keys still validate. LOG gets one line per key query:
"udp|tcp MODE". Runs until killed (or 600 s).
"""
import signal
import socket
import struct
import sys
import threading

KEY_TYPES = (53, 61)
lock = threading.Lock()


def mode_of(path):
    try:
        with open(path) as f:
            words = f.read().split()
            return words[0] if words else "pass"
    except FileNotFoundError:
        return "pass"


def qtype_of(msg):
    """The QTYPE of the first question, or None."""
    if len(msg) < 12 or struct.unpack("!H", msg[4:6])[0] < 1:
        return None
    i = 12
    while i < len(msg) and msg[i] != 0:
        if msg[i] & 0xC0:
            return None
        i += 1 + msg[i]
    if i + 5 > len(msg):
        return None
    return struct.unpack("!H", msg[i + 1:i + 3])[0]


def question_end(msg):
    i = 12
    while msg[i] != 0:
        i += 1 + msg[i]
    return i + 5


def skip_name(msg, i):
    while True:
        n = msg[i]
        if n == 0:
            return i + 1
        if n & 0xC0 == 0xC0:
            return i + 2
        i += 1 + n


def strip_rrsig(msg):
    """The answer without its RRSIG records, counts fixed."""
    hdr = list(struct.unpack("!6H", msg[:12]))
    out = bytearray(msg[:question_end(msg)])
    i = len(out)
    counts = [0, 0, 0]
    for sec in range(3):
        for _ in range(hdr[3 + sec]):
            start = i
            i = skip_name(msg, i)
            rtype, _, _, rdlen = struct.unpack("!HHIH", msg[i:i + 10])
            i += 10 + rdlen
            if rtype != 46:
                out += msg[start:i]
                counts[sec] += 1
    out += msg[i:]      # the additional section's OPT and the like
    hdr[3:6] = counts
    out[:12] = struct.pack("!6H", *hdr)
    return bytes(out)


def reply(query, rcode, tc=False):
    """A reply to query with no records: header and question only."""
    qid, flags = struct.unpack("!HH", query[:4])
    flags = 0x8000 | (flags & 0x0100) | 0x0400 | rcode
    if tc:
        flags |= 0x0200
    end = question_end(query)
    return struct.pack("!6H", qid, flags, 1, 0, 0, 0) + query[12:end]


def relay_udp(query, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    try:
        s.sendto(query, ("127.0.0.1", port))
        return s.recv(65535)
    except OSError:
        return None
    finally:
        s.close()


def relay_tcp(query, port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(struct.pack("!H", len(query)) + query)
        n = struct.unpack("!H", read_exact(s, 2))[0]
        ans = read_exact(s, n)
        s.close()
        return ans
    except (OSError, EOFError, struct.error):
        return None


def read_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def answer(query, proto, port, modefile, log):
    """The bytes to send back, or None for no answer."""
    relay = relay_udp if proto == "udp" else relay_tcp
    if qtype_of(query) not in KEY_TYPES:
        return relay(query, port)
    mode = mode_of(modefile)
    with lock:
        with open(log, "a") as f:
            f.write("%s %s\n" % (proto, mode))
    if mode == "servfail":
        return reply(query, 2)
    if mode == "drop":
        return None
    if mode == "nxdomain":
        return reply(query, 3)
    if mode == "nodata":
        return reply(query, 0)
    if mode == "truncate" and proto == "udp":
        return reply(query, 0, tc=True)
    ans = relay(query, port)
    if ans is not None and mode == "strip":
        ans = strip_rrsig(ans)
    return ans


def serve_udp(sock, port, modefile, log):
    while True:
        query, peer = sock.recvfrom(65535)

        def one(q=query, p=peer):
            ans = answer(q, "udp", port, modefile, log)
            if ans is not None:
                sock.sendto(ans, p)
        threading.Thread(target=one, daemon=True).start()


def serve_tcp_conn(conn, port, modefile, log):
    try:
        while True:
            n = struct.unpack("!H", read_exact(conn, 2))[0]
            ans = answer(read_exact(conn, n), "tcp", port, modefile, log)
            if ans is None:
                continue
            conn.sendall(struct.pack("!H", len(ans)) + ans)
    except (OSError, EOFError, struct.error):
        pass
    finally:
        conn.close()


def serve_tcp(sock, port, modefile, log):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve_tcp_conn,
                         args=(conn, port, modefile, log),
                         daemon=True).start()


def main():
    port, modefile, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    signal.signal(signal.SIGALRM, lambda *_: sys.exit(0))
    signal.alarm(600)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 0))
    me = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", me))
    tcp.listen(16)
    print(me, flush=True)
    threading.Thread(target=serve_tcp, args=(tcp, port, modefile, log),
                     daemon=True).start()
    serve_udp(udp, port, modefile, log)


if __name__ == "__main__":
    main()
