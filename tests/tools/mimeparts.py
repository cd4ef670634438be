#!/usr/bin/env python3
"""mimeparts: split a message byte-exactly, for checking signatures.

  mimeparts.py FILE DIR

Writes DIR/header (the top header, unfolded, LF), DIR/body (the top body)
and, when the top is multipart, DIR/part1, DIR/part2, ... : each part's
exact bytes between its delimiters (header included), CRLF line ends, and
DIR/partN.body: the part's body alone. Line ends are made CRLF first,
since signatures are over the canonical form (RFC 3156 5, RFC 8551 3.1.1).
"""

import os
import re
import sys


def main():
    raw = open(sys.argv[1], "rb").read()
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    head, _, body = raw.partition(b"\r\n\r\n")
    unfolded = re.sub(rb"\r\n[ \t]", b" ", head).replace(b"\r\n", b"\n")
    open(os.path.join(out, "header"), "wb").write(unfolded + b"\n")
    open(os.path.join(out, "body"), "wb").write(body)
    m = re.search(rb'^content-type:[^\n]*boundary="?([^";\n]+)"?',
                  unfolded, re.I | re.M)
    if not m:
        return 0
    delim = b"--" + m.group(1)
    chunks = (b"\r\n" + body).split(b"\r\n" + delim)
    n = 0
    for c in chunks[1:]:
        if c.startswith(b"--"):
            break
        c = c.split(b"\r\n", 1)[1] if b"\r\n" in c else b""
        n += 1
        open(os.path.join(out, "part%d" % n), "wb").write(c)
        pbody = c.partition(b"\r\n\r\n")[2]
        open(os.path.join(out, "part%d.body" % n), "wb").write(pbody)
    return 0


if __name__ == "__main__":
    sys.exit(main())
