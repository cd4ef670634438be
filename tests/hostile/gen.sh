#!/bin/sh
# tests/hostile/gen.sh DIR: write the large hostile messages into DIR.
# They are generated at test time instead of committed: together they are
# well over 100 MB. Each one aims at one way a MIME parser can be made to
# crash, hang or run out of stack (see doc/mime.md, "Limits"). Needs
# python3, used only to write the bytes quickly.
set -eu
dir=${1:?usage: gen.sh DIR}
mkdir -p "$dir"

python3 - "$dir" <<'PY'
import os, sys

d = sys.argv[1]

def w(name, data):
    if isinstance(data, str):
        data = data.encode("latin-1")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def nest(n, leaf="Content-Type: text/plain\n\nthe innermost text\n"):
    head, tail = [], []
    for i in range(n):
        head.append("Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n"
                    % (i, i))
        tail.append("--b%d--\n" % i)
    return "".join(head) + leaf + "".join(reversed(tail))

# 100 levels of multipart: the parser stops at MIME_MAX_DEPTH.
w("nest-100.eml", "From: deep@example.org\nSubject: 100 levels\n" + nest(100))
# 20,000 levels: libetpan's mailmime_parse takes quadratic time on this.
w("nest-20000.eml", "Subject: 20000 levels\n" + nest(20000))
# 300,000 nested message/rfc822 parts, 30 bytes a level: overflows the
# stack of a parser that recurses without a limit.
w("nest-rfc822.eml", "Subject: rfc822 all the way down\n"
  + "Content-Type: message/rfc822\n\n" * 300000 + "the end\n")
# Nested multiparts that all share one boundary.
w("nest-same-boundary.eml", "Content-Type: multipart/mixed; boundary=b\n\n"
  + "--b\nContent-Type: multipart/mixed; boundary=b\n\n" * 5000 + "x\n--b--\n")

# A 50 MB base64 attachment.
line = ("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5"
        "ejAxMjM0\n")
count = 50 * 1024 * 1024 // len(line)
w("big-attachment.eml",
  "Subject: 50 MB part\nContent-Type: multipart/mixed; boundary=z\n\n"
  "--z\nContent-Type: text/plain\n\nsee attachment\n--z\n"
  "Content-Type: application/octet-stream; name=big.bin\n"
  "Content-Transfer-Encoding: base64\n\n" + line * count + "--z--\n")
# A 50 MB text part of 8-bit garbage and escape sequences, no line breaks.
w("big-text.eml", b"Subject: 50 MB of garbage\n"
  b"Content-Type: text/plain; charset=utf-8\n\n"
  + b"\x1b[2J\x9b31m\xc2\x9b\xe2\x80\xae\xff\x00" * (50 * 1024 * 1024 // 16))
# 50 MB of 8-bit text in a charset nobody knows: every byte is escaped.
w("big-unknown-charset.eml", b"Content-Type: text/plain; charset=x-nothing\n"
  b"Content-Transfer-Encoding: 8bit\n\n" + bytes(range(128, 256)) * (50 * 8192))
# A 10 MB line of base64 with no line break, cut in the middle.
w("long-line-base64.eml", "Content-Type: text/plain\n"
  "Content-Transfer-Encoding: base64\n\n" + "QUJD" * (10 * 1024 * 256) + "QU")

# 10,000 parts: the parser keeps MIME_MAX_PARTS.
w("parts-10000.eml", "Subject: many parts\n"
  "Content-Type: multipart/mixed; boundary=p\n\n"
  + "--p\nContent-Type: text/plain\n\nx\n" * 10000 + "--p--\n")
# 100,000 empty parts in a row.
w("parts-empty.eml", "Content-Type: multipart/mixed; boundary=p\n\n"
  + "--p\n" * 100000 + "--p--\n")
# A million lines that start like a delimiter but are not one.
w("almost-boundary.eml", "Content-Type: multipart/mixed; boundary=p\n\n--p\n\n"
  + "--px\n" * 1000000 + "--p--\n")

# Header bombs.
w("long-header.eml", "From: a@example.org\nSubject: " + "A" * (4 * 1024 * 1024)
  + "\n\nbody\n")
w("paren-bomb.eml", "From: " + "(" * 1000000 + "\nTo: " + "(" * 1000000
  + "\nContent-Type: text/plain; charset=" + "(" * 1000000
  + "\nContent-Disposition: attachment; filename=" + "(" * 1000000
  + "\nContent-Transfer-Encoding: " + "(" * 1000000 + "\n\nbody\n")
# Address fields (addr-list.c): every field the crypto code reads, each
# with one way of nesting deep, and the pieces that cost libetpan most.
w("addr-paren.eml", "".join("%s: %s\n" % (f, "(" * 200000) for f in
  ("From", "To", "Cc", "Reply-To", "Sender", "Autocrypt"))
  + "Subject: parens\n\nbody\n")
w("addr-nest.eml", "From: " + "<" * 200000 + "a@example.org>\nTo: "
  + "g:" * 100000 + "a@example.org;\nCc: " + '"' * 200001
  + "\nReply-To: " + "(\\)" * 100000 + "\nSender: "
  + "a@example.org, " * 50000 + "\nAutocrypt: addr=" + "(" * 10000
  + "; keydata=QUJD\nSubject: nesting\n\nbody\n")
w("addr-slow.eml", "From: " + ('"' * 16000 + ", ") * 64
  + "\nSubject: slow pieces\n\nbody\n")
w("quote-bomb.eml", "Content-Type: text/plain; charset=\"" + "\\\"" * 1000000
  + "\n\nbody\n")
w("many-fields.eml", "X-A: b\n" * 300000 + "Subject: after them\n\nbody\n")
w("folded-forever.eml", "Subject: start\n" + " more\n" * 500000 + "\nbody\n")
w("encoded-word-bomb.eml", "Subject: " + "=?" * 500000 + "\nFrom: "
  + "=?utf-8?q?" * 100000 + "\nTo: " + "=?utf-8?b?QUJD?=" * 100000
  + "\n\nbody\n")
w("param-bomb.eml", "Content-Type: text/plain; "
  + "".join("a%d=b; " % i for i in range(100000))
  + "\nContent-Disposition: attachment; "
  + "".join("filename*%d*=x; " % i for i in range(100000)) + "\n\nbody\n")
PY
