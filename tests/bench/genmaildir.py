#!/usr/bin/env python3
"""genmaildir: fill a Maildir with N small messages for `make bench`.

    genmaildir.py [--hostile] MAILDIR N

Writes straight into MAILDIR/cur (creating cur, new and tmp), one file per
message: From, To, Subject, Date, Message-ID and a one-line body. Names
carry S= and W= (real and CRLF sizes) as Dovecot's own deliveries do, so
the server does not have to stat every file to learn them. About one
subject in eight is an RFC 2047 encoded word, as real mailboxes have.
Same N, same mailbox: the content is a function of the message number.

With --hostile, every other message has header text chosen to be hard on
an IMAP envelope parser (tests/integration/sync.sh): quotes, backslashes,
parentheses and braces, 8-bit bytes, control characters, encoded words
that hide an ESC, lines too long for a quoted string, groups, missing or
empty headers.
"""
import os
import sys
import time

FIRST = ["Ada", "Boris", "Chen", "Dana", "Emil", "Farah", "Gus", "Hana",
         "Ivan", "Jo", "Kemal", "Lena", "Mara", "Nils", "Olga", "Pia"]
LAST = ["Lovelace", "Novak", "Wei", "Scully", "Berg", "Haddad", "Grissom",
        "Kato", "Petrov", "March", "Yilmaz", "Vogel", "Ruiz", "Holm"]
WORDS = ["report", "meeting", "invoice", "draft", "release", "question",
         "update", "review", "budget", "plan", "notes", "build", "trip",
         "lunch", "patch", "schedule", "contract", "results", "photos"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
          "Oct", "Nov", "Dec"]


def message(i, when):
    f = FIRST[i % len(FIRST)]
    l = LAST[(i // len(FIRST)) % len(LAST)]
    w1 = WORDS[i % len(WORDS)]
    w2 = WORDS[(i * 7 + 3) % len(WORDS)]
    if i % 8 == 5:
        subject = "=?UTF-8?Q?R=C3=BCckfrage_zu_{}_{}?=".format(w1, i)
    else:
        subject = "The {} {} #{}".format(w1, w2, i)
    t = time.gmtime(when)
    date = "{}, {:02d} {} {} {:02d}:{:02d}:{:02d} +0000".format(
        DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year,
        t.tm_hour, t.tm_min, t.tm_sec)
    return ("From: {f} {l} <{fl}.{ll}@example.org>\n"
            "To: Bench <bench@steed.test>\n"
            "Subject: {s}\n"
            "Date: {d}\n"
            "Message-ID: <bench.{i}.{when}@example.org>\n"
            "\n"
            "Message number {i}, about the {w1}.\n").format(
                f=f, l=l, fl=f.lower(), ll=l.lower(), s=subject, d=date,
                i=i, when=when, w1=w1).encode("ascii")


# (From, Subject, Message-ID) lines of the hostile messages, in turn;
# None leaves the header out.
HOSTILE = [
    (b'"Quote \\"me\\" \\\\ back" <q@example.org>', b'a "quoted" \\ word',
     b'<"odd\\id"@example.org>'),
    (b'Paren (comment) <p@example.org>', b'(parens) {5} {braces}',
     b'<p@x>'),
    (b'=?UTF-8?B?G1szMW1yZWQbWzBt?= <esc@example.org>',
     b'=?UTF-8?Q?esc_=1B]0;title=07_here?=', b'<esc@x>'),
    (b'\xc3\x9cml\xc3\xa4ut <u@example.org>', b'8-bit: \xc3\xa4\xc3\xb6\xc3\xbc \xff\xfe',
     b'<8bit@x>'),
    (b'<bare@example.org>', b'', b'<empty-subject@x>'),
    (None, None, None),
    (b'undisclosed-recipients:;', b'group only', b'<group@x>'),
    (b'Team: a@example.org, "B" <b@example.org>;', b'group with members',
     b'<team@x>'),
    (b'"" <noname@example.org>', b'tab\there and ctl \x01\x7f',
     b'<ctl@x>'),
    (b'Long <long@example.org>', b'L' * 1500, b'<' + b'm' * 1200 + b'@x>'),
    (b'Folded\n Name <fold@example.org>', b'folded\n  subject\n\tline',
     b'<fold@x>'),
    (b'nobody', b'=?x-unknown?Q?what?= =?UTF-8?B?not base64!?=', b'nomid'),
]


def hostile(i, when):
    frm, subj, mid = HOSTILE[(i // 2) % len(HOSTILE)]
    t = time.gmtime(when)
    h = b"To: Bench <bench@steed.test>\n"
    if frm is not None:
        h += b"From: " + frm + b"\n"
    if subj is not None:
        h += b"Subject: " + subj + b" #" + str(i).encode() + b"\n"
    if i % 4 != 1:
        h += "Date: {}, {:02d} {} {} {:02d}:{:02d}:{:02d} -0130\n".format(
            DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year,
            t.tm_hour, t.tm_min, t.tm_sec).encode()
    if mid is not None:
        h += b"Message-ID: " + mid + b"\n"
    return h + b"\nhostile message " + str(i).encode() + b"\n"


def main():
    args = sys.argv[1:]
    bad = len(args) > 0 and args[0] == "--hostile"
    if bad:
        args = args[1:]
    if len(args) != 2:
        sys.stderr.write("usage: genmaildir.py [--hostile] MAILDIR N\n")
        return 2
    root, n = args[0], int(args[1])
    for d in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    cur = os.path.join(root, "cur")
    start = 1600000000		# 2020-09-13; one message every 10 minutes
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for i in range(1, n + 1):
        when = start + i * 600
        data = hostile(i, when) if bad and i % 2 == 0 else message(i, when)
        vsize = len(data) + data.count(b"\n")
        name = "{}.M{}P1.bench,S={},W={}:2,".format(when, i, len(data),
                                                    vsize)
        fd = os.open(os.path.join(cur, name), flags, 0o600)
        os.write(fd, data)
        os.close(fd)
        # INTERNALDATE is the file's mtime: make it the Date: header's.
        os.utime(os.path.join(cur, name), (when, when))
    return 0


if __name__ == "__main__":
    sys.exit(main())
