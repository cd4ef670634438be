#!/usr/bin/env python3
# tests/bench/pgpgen.py: signed and encrypted PGP/MIME messages for the
# sync bench (tests/bench/pgpsync.sh), made from one message steedmail
# built itself.
#
#   pgpgen.py TEMPLATE INNER GNUPGHOME SIGNER RCPT... -- OUTDIR N JOBS
#       [PORT CAFILE USER PASSWORD]
#
# TEMPLATE is the message as `steedmail -s --encrypt` queued it, INNER its
# decrypted MIME entity (protected header, RFC 9788, then the body). For
# each i in 1..N the inner entity gets a subject, Message-ID and body of
# its own ("Bench subject 00042 ..."; its HP-Outer lines follow), is signed
# by SIGNER and encrypted to the RCPTs by gpg in GNUPGHOME in one pass (as
# steedmail does), and put back into the template's outer message, whose
# Message-ID changes too. JOBS gpg processes run at once. Writes
# OUTDIR/NNNNN.eml (the message, CRLF) and OUTDIR/NNNNN.asc (its encrypted
# part), and OUTDIR/subjects (number TAB subject, one a line). With PORT
# and the rest, each message is also APPENDed, in order and while the
# next ones are being made, to the INBOX of USER at 127.0.0.1:PORT (IMAPS,
# the server's certificate checked against CAFILE), which must then hold
# N messages.

import concurrent.futures
import imaplib
import os
import re
import ssl
import subprocess
import sys

WORDS = ("amber", "basil", "cedar", "delta", "ember", "fjord", "garnet",
         "harbor", "indigo", "juniper", "kestrel", "lantern", "meadow",
         "nutmeg", "orchid", "pepper", "quartz", "raven", "saffron", "thistle")


def usage():
    sys.exit("usage: pgpgen.py TEMPLATE INNER GNUPGHOME SIGNER RCPT... -- "
             "OUTDIR N JOBS [PORT CAFILE USER PASSWORD]")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        usage()
    cut = argv.index("--")
    head, tail = argv[:cut], argv[cut + 1:]
    if len(head) < 5 or len(tail) not in (3, 7):
        usage()
    template, inner_file, home, signer = head[:4]
    rcpts = head[4:]
    outdir, n, jobs = tail[0], int(tail[1]), int(tail[2])

    outer = open(template, "rb").read().decode("utf-8").replace("\r\n", "\n")
    inner = open(inner_file, "rb").read().decode("utf-8").replace("\r\n", "\n")
    m = re.search(r"^Subject: (.*)$", inner, re.M)
    mid = re.search(r"^Message-ID: (<[^>]*>)$", outer, re.M)
    arm = re.search(r"-----BEGIN PGP MESSAGE-----\n.*?-----END PGP MESSAGE-----\n",
                    outer, re.S)
    if not m or not mid or not arm or "HP-Outer: Subject:" not in inner:
        sys.exit("pgpgen.py: the template is not a steedmail PGP/MIME message "
                 "with a protected header")
    old_subject, old_mid = m.group(1), mid.group(1)
    body_at = inner.index("\n\n") + 2

    gpg = ["gpg", "--homedir", home, "--batch", "--yes", "--no-tty",
           "--trust-model", "always", "--armor", "--sign", "--encrypt",
           "-u", signer]
    for r in rcpts:
        gpg += ["-r", r]

    def one(i):
        subject = "Bench subject %05d %s" % (i, WORDS[i % len(WORDS)])
        msgid = "<bench-%05d-%s" % (i, old_mid[1:])
        text = inner[:body_at].replace("Subject: " + old_subject,
                                       "Subject: " + subject)
        text = text.replace(old_mid, msgid)
        text += "Message %d of the sync bench.\nThe %s is on the table.\n" % (
            i, WORDS[(i * 7) % len(WORDS)])
        p = subprocess.run(gpg, input=text.replace("\n", "\r\n").encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0 or not p.stdout.startswith(b"-----BEGIN PGP"):
            raise RuntimeError("gpg failed on message %d: %s" %
                               (i, p.stderr.decode("utf-8", "replace")))
        armored = p.stdout.decode("ascii").replace("\r\n", "\n")
        msg = outer[:arm.start()] + armored + outer[arm.end():]
        msg = msg.replace("Message-ID: " + old_mid, "Message-ID: " + msgid, 1)
        base = os.path.join(outdir, "%05d" % i)
        with open(base + ".asc", "w") as f:
            f.write(armored)
        with open(base + ".eml", "wb") as f:
            f.write(msg.replace("\n", "\r\n").encode())
        return i, subject, msg.replace("\n", "\r\n").encode()

    im = None
    if len(tail) == 7:
        ctx = ssl.create_default_context(cafile=tail[4])
        im = imaplib.IMAP4_SSL("127.0.0.1", int(tail[3]), ssl_context=ctx)
        im.login(tail[5], tail[6])
    done = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for i, subject, data in ex.map(one, range(1, n + 1)):
            done.append((i, subject))
            if im is None:
                continue
            typ, ans = im.append("INBOX", None, None, data)
            if typ != "OK":
                raise RuntimeError("APPEND of message %d: %s %s" %
                                   (i, typ, ans))
    if im is not None:
        typ, ans = im.select("INBOX", readonly=True)
        if typ != "OK" or int(ans[0]) != n:
            raise RuntimeError("the INBOX holds %s messages, not %d" %
                               (ans[0], n))
        im.logout()
    with open(os.path.join(outdir, "subjects"), "w") as f:
        for i, s in done:
            f.write("%d\t%s\n" % (i, s))


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, OSError, imaplib.IMAP4.error) as e:
        sys.exit("pgpgen.py: %s" % e)
