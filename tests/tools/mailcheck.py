#!/usr/bin/env python3
"""mailcheck: small IMAP/SMTP probes for the steedmail test environment.

Reads the connection details from the environment that tests/env/run
exports (STEED_HOST, STEED_*_PORT, STEED_CA_FILE). Every connection
verifies the server certificate against STEED_CA_FILE and checks the host
name (default: the address connected to, 127.0.0.1).

Each command checks one expectation and exits 0 when it holds, 1 when it
does not, 2 on usage or unexpected errors. Run "mailcheck.py -h" for the
list of commands.
"""

import argparse
import email.utils
import imaplib
import os
import smtplib
import socket
import ssl
import sys
import time


def env(name):
    v = os.environ.get(name)
    if not v:
        sys.exit("mailcheck: %s is not set (run inside tests/env/run)" % name)
    return v


def host():
    return os.environ.get("STEED_HOST", "127.0.0.1")


def tls_context():
    ctx = ssl.create_default_context(cafile=env("STEED_CA_FILE"))
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


class Fail(Exception):
    """The expectation does not hold."""


def imap_connect(mode):
    if mode == "imaps":
        return imaplib.IMAP4_SSL(host(), int(env("STEED_IMAPS_PORT")),
                                 ssl_context=tls_context(), timeout=10)
    m = imaplib.IMAP4(host(), int(env("STEED_IMAP_PORT")), timeout=10)
    if mode == "starttls":
        m.starttls(ssl_context=tls_context())
    elif mode != "plain":
        raise ValueError("mode must be imaps, starttls or plain")
    return m


def imap_login(mode, user, password):
    m = imap_connect(mode)
    try:
        m.login(user, password)
    except imaplib.IMAP4.error as e:
        try:
            m.logout()
        except Exception:
            pass
        raise Fail("LOGIN refused: %s" % e)
    return m


def cmd_imap_caps(a):
    m = imap_login("imaps", a.user, a.password)
    typ, data = m.capability()
    caps = data[0].decode().upper().split()
    m.logout()
    print("capabilities:", " ".join(caps))
    missing = [c for c in a.caps if c.upper() not in caps]
    if missing:
        raise Fail("missing capabilities: %s" % " ".join(missing))


def cmd_imap_login(a):
    try:
        m = imap_connect(a.mode)
    except OSError as e:
        raise RuntimeError("cannot connect: %s" % e)
    caps = [c.upper() for c in m.capabilities]
    print("pre-login capabilities:", " ".join(caps))
    try:
        typ, data = m.login(a.user, a.password)
        print("LOGIN:", typ, data)
        ok = True
        m.logout()
    except imaplib.IMAP4.error as e:
        print("LOGIN refused:", e)
        ok = False
    if a.expect == "ok" and not ok:
        raise Fail("LOGIN was refused")
    if a.expect == "refused" and ok:
        raise Fail("LOGIN succeeded")


def cmd_imap_special(a):
    m = imap_login("imaps", a.user, a.password)
    typ, data = m._simple_command("LIST", "(SPECIAL-USE)", '""', '"*"')
    typ, data = m._untagged_response(typ, data, "LIST")
    m.logout()
    lines = [d.decode() for d in data if d]
    for line in lines:
        print(line)
    text = " ".join(lines)
    missing = [f for f in a.flags if f not in text]
    if missing:
        raise Fail("no mailbox with %s" % " ".join(missing))


def cmd_wait_msg(a):
    deadline = time.time() + a.timeout
    while True:
        m = imap_login("imaps", a.user, a.password)
        m.select(a.mailbox, readonly=True)
        typ, data = m.search(None, "HEADER", "Message-ID", a.message_id)
        m.logout()
        if typ == "OK" and data[0].split():
            print("found message", a.message_id, "in", a.user, a.mailbox)
            return
        if time.time() > deadline:
            raise Fail("message %s not in %s's %s after %ss"
                       % (a.message_id, a.user, a.mailbox, a.timeout))
        time.sleep(0.2)


def smtp_connect(mode):
    if mode == "smtps":
        return smtplib.SMTP_SSL(host(), int(env("STEED_SUBMISSIONS_PORT")),
                                context=tls_context(), timeout=10)
    s = smtplib.SMTP(host(), int(env("STEED_SUBMISSION_PORT")), timeout=10)
    s.ehlo("client.steed.test")
    if mode == "starttls":
        s.starttls(context=tls_context())
        s.ehlo("client.steed.test")
    elif mode != "plain":
        raise ValueError("mode must be starttls, smtps or plain")
    return s


def cmd_send(a):
    s = smtp_connect(a.mode)
    if a.user:
        try:
            s.login(a.user, a.password)
        except smtplib.SMTPAuthenticationError as e:
            raise Fail("AUTH refused: %s" % e)
    msg = (
        "From: <%s>\r\nTo: <%s>\r\nSubject: %s\r\nMessage-ID: %s\r\n"
        "Date: %s\r\n\r\nTest message %s.\r\n"
        % (a.sender, a.rcpt, a.subject or a.message_id, a.message_id,
           email.utils.formatdate(), a.message_id))
    try:
        refused = s.sendmail(a.sender, [a.rcpt], msg)
    except smtplib.SMTPException as e:
        print("submission refused:", e)
        s.close()
        if a.expect == "refused":
            return
        raise Fail("submission refused: %s" % e)
    s.quit()
    print("submitted", a.message_id, "refused:", refused)
    if a.expect == "refused":
        raise Fail("submission was accepted")


def cmd_smtp_auth(a):
    s = smtp_connect(a.mode)
    try:
        s.login(a.user, a.password)
        ok = True
    except smtplib.SMTPAuthenticationError as e:
        print("AUTH refused:", e.smtp_code, e.smtp_error)
        ok = False
    s.close()
    if a.expect == "ok" and not ok:
        raise Fail("AUTH was refused")
    if a.expect == "refused" and ok:
        raise Fail("AUTH succeeded")


def cmd_smtp_ehlo(a):
    s = smtp_connect(a.mode)
    feats = {k.lower(): v for k, v in s.esmtp_features.items()}
    s.close()
    print("EHLO features:", " ".join(sorted(feats)))
    for f in a.has:
        if f.lower() not in feats:
            raise Fail("EHLO does not offer %s" % f)
    for f in a.lacks:
        if f.lower() in feats:
            raise Fail("EHLO offers %s" % f)


def cmd_tls_name(a):
    ctx = tls_context()
    with socket.create_connection((host(), a.port), timeout=10) as raw:
        try:
            with ctx.wrap_socket(raw, server_hostname=a.name) as t:
                print("verified", a.name, t.version())
        except ssl.SSLCertVerificationError as e:
            print("verification failed:", e.verify_message)
            if a.expect_fail:
                return
            raise Fail("certificate not valid for %s: %s" % (a.name, e))
    if a.expect_fail:
        raise Fail("certificate was accepted for %s" % a.name)


def main():
    p = argparse.ArgumentParser(prog="mailcheck.py")
    sub = p.add_subparsers(dest="cmd", required=True)

    c = sub.add_parser("imap-caps", help="post-login CAPABILITY has CAPS")
    c.add_argument("user")
    c.add_argument("password")
    c.add_argument("caps", nargs="+")
    c.set_defaults(fn=cmd_imap_caps)

    c = sub.add_parser("imap-login", help="LOGIN is accepted or refused")
    c.add_argument("--expect", choices=("ok", "refused"), default="ok")
    c.add_argument("mode", choices=("imaps", "starttls", "plain"))
    c.add_argument("user")
    c.add_argument("password")
    c.set_defaults(fn=cmd_imap_login)

    c = sub.add_parser("imap-special", help="LIST (SPECIAL-USE) shows FLAGS")
    c.add_argument("user")
    c.add_argument("password")
    c.add_argument("flags", nargs="+")
    c.set_defaults(fn=cmd_imap_special)

    c = sub.add_parser("wait-msg", help="message arrives in a mailbox")
    c.add_argument("--timeout", type=float, default=10)
    c.add_argument("--mailbox", default="INBOX")
    c.add_argument("user")
    c.add_argument("password")
    c.add_argument("message_id")
    c.set_defaults(fn=cmd_wait_msg)

    c = sub.add_parser("send", help="submit a message")
    c.add_argument("--expect", choices=("ok", "refused"), default="ok")
    c.add_argument("--auth", nargs=2, metavar=("USER", "PASSWORD"))
    c.add_argument("--subject")
    c.add_argument("mode", choices=("starttls", "smtps", "plain"))
    c.add_argument("sender")
    c.add_argument("rcpt")
    c.add_argument("message_id")
    c.set_defaults(fn=cmd_send)

    c = sub.add_parser("smtp-auth", help="AUTH is accepted or refused")
    c.add_argument("--expect", choices=("ok", "refused"), default="ok")
    c.add_argument("mode", choices=("starttls", "smtps", "plain"))
    c.add_argument("user")
    c.add_argument("password")
    c.set_defaults(fn=cmd_smtp_auth)

    c = sub.add_parser("smtp-ehlo", help="EHLO offers / lacks extensions")
    c.add_argument("--has", action="append", default=[])
    c.add_argument("--lacks", action="append", default=[])
    c.add_argument("mode", choices=("starttls", "smtps", "plain"))
    c.set_defaults(fn=cmd_smtp_ehlo)

    c = sub.add_parser("tls-name", help="certificate on PORT is valid for NAME")
    c.add_argument("--expect-fail", action="store_true",
                   help="verification must fail instead")
    c.add_argument("port", type=int)
    c.add_argument("name")
    c.set_defaults(fn=cmd_tls_name)

    a = p.parse_args()
    if getattr(a, "auth", None):
        a.user, a.password = a.auth
    elif a.cmd == "send":
        a.user = a.password = None
    try:
        a.fn(a)
    except Fail as e:
        print("FAIL:", e)
        return 1
    except (OSError, imaplib.IMAP4.error, smtplib.SMTPException,
            ValueError) as e:
        print("ERROR: %s: %s" % (type(e).__name__, e))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
