#!/usr/bin/env python3
"""fakesrv.py: a lying IMAP or SMTP server on loopback, for the TLS tests.

    fakesrv.py MODE LOGFILE [CERT KEY] [--timeout SECONDS]

Listens on 127.0.0.1 on a free port, prints the port on standard output,
serves one connection and exits (or exits after the time-out, 20 s by
default: it never runs forever). Every line it receives is appended to
LOGFILE as it arrives, so a test can check that no LOGIN, AUTH or password
was ever sent.

Modes:
  imap-nostarttls  greeting and CAPABILITY without STARTTLS
  imap-inject      answers STARTTLS with OK plus injected bytes in the same
                   write; with CERT KEY it then starts TLS as asked
  imap-preauth     PREAUTH greeting on a connection that needs STARTTLS
  imap-login       (CERT KEY) IMAPS without AUTH=PLAIN: the client must LOGIN
  imap-nocaps      greeting without capabilities, CAPABILITY answered OK
                   with none (libetpan's own CAPABILITY dies on that)
  imap-literal-close
                   CAPABILITY answered with a LIST line whose literal is
                   announced, then the connection closed (libetpan reads
                   such a literal for ever unless the end of the stream is
                   an error)
  imap-endless     a greeting line that never ends (up to 256 MB of it;
                   how much went is in LOGFILE)
  imap-badcharset  greets with * OK [BADCHARSET (\\HasNoChildren) "/" INBOX],
                   a resp-text-code against the grammar that crashed
                   libetpan's greeting parser; then reads what comes
  imaps-badcharset (CERT KEY) the same over implicit TLS
  imap-badcharset-tagged
                   a good greeting, then the same code in the tagged answer
                   to the first command
  smtp-nostarttls  EHLO without STARTTLS
  smtp-inject      answers STARTTLS with 220 plus injected bytes; with CERT
                   KEY it then starts TLS as asked
  smtp-login       (CERT KEY) SMTPS offering only AUTH LOGIN
  smtp-ehlo-tab    EHLO naming an unknown AUTH mechanism before a tab (a
                   reader that never ends there hangs), without STARTTLS
  tls-cert         (CERT KEY) IMAPS presenting that certificate
  imap-hugeliteral (CERT KEY) IMAPS that logs in, then answers the first
                   command after login with a LIST line announcing a
                   literal of 4294967296 bytes, and keeps the connection
                   open without another byte
  imap-permanentflags
                   (CERT KEY) IMAPS that logs in, then answers the first
                   command after login with "TAG OK [PERMANENTFLAGS (",
                   a reply libetpan's parser reads through a NULL
  imap-longline    (CERT KEY) IMAPS that logs in, then answers the first
                   command after login with a LIST line of 2 MB without a
                   line end, and goes on sending more of it (up to 256 MB;
                   how much went is in LOGFILE)

  imap-mailbox     (CERT KEY) IMAPS with a mailbox: logs in, answers SELECT
                   and EXAMINE with 5 messages (UIDs 1 to 5), IDLE with
                   "+" and, after half a second, the lines of --idle-says;
                   everything else with OK. --greeting-says and
                   --login-says add untagged lines to the greeting and to
                   the answer to the login (for response codes such as
                   [ALERT]). Each of these options takes text with Python
                   escapes (\\r\\n between lines); each line of it sent
                   is logged as "# said LINE".

With --many it serves one connection after another, each the same way,
until the time-out (for a client that tries again).

In every mode the server accepts whatever credentials it is sent: a client
that should have refused shows up as a logged-in session and a LOGIN or
AUTH line in the log.
"""
import argparse
import signal
import socket
import ssl
import sys
import time


class Conn:
    """A line-oriented connection that can switch to TLS midway."""

    def __init__(self, sock, log):
        self.sock = sock
        self.log = log
        self.buf = b""

    def readline(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(4096)
            if not data:
                if self.buf:
                    line, self.buf = self.buf, b""
                    self.record(line)
                    return line
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        self.record(line)
        return line.rstrip(b"\r")

    def record(self, line):
        self.log.write(line.decode("latin-1").rstrip("\r") + "\n")
        self.log.flush()

    def send(self, text):
        self.sock.sendall(text.encode())

    def starttls(self, ctx):
        if self.buf:
            raise RuntimeError("client sent data before the handshake")
        self.sock = ctx.wrap_socket(self.sock, server_side=True)
        self.log.write("# TLS started\n")
        self.log.flush()


def imap(conn, caps, greeting, on_starttls=None):
    conn.send(greeting.format(caps=caps))
    while True:
        line = conn.readline()
        if line is None:
            return
        words = line.decode("latin-1").split(" ")
        tag = words[0]
        cmd = words[1].upper() if len(words) > 1 else ""
        if cmd == "CAPABILITY":
            conn.send("* CAPABILITY %s\r\n%s OK done\r\n" % (caps, tag))
        elif cmd == "LOGIN":
            conn.send("%s OK logged in\r\n" % tag)
        elif cmd == "AUTHENTICATE":
            if len(words) < 4:
                conn.send("+ \r\n")
                if conn.readline() is None:
                    return
            conn.send("%s OK logged in\r\n" % tag)
        elif cmd == "STARTTLS" and on_starttls is not None:
            caps = on_starttls(conn, tag)
            if caps is None:
                return
        elif cmd == "LOGOUT":
            conn.send("* BYE bye\r\n%s OK done\r\n" % tag)
            return
        else:
            conn.send("%s OK fine\r\n" % tag)


def smtp(conn, ehlo, on_starttls=None):
    conn.send("220 fake.test ESMTP\r\n")
    while True:
        line = conn.readline()
        if line is None:
            return
        text = line.decode("latin-1")
        cmd = text.split(" ")[0].upper()
        if cmd in ("EHLO", "HELO"):
            lines = ["fake.test"] + ehlo
            conn.send("".join("250%s%s\r\n" % ("-" if i < len(lines) - 1
                                                else " ", l)
                              for i, l in enumerate(lines)))
        elif cmd == "AUTH":
            words = text.split(" ")
            mech = words[1].upper() if len(words) > 1 else ""
            if mech == "LOGIN":
                conn.send("334 VXNlcm5hbWU6\r\n")
                if conn.readline() is None:
                    return
                conn.send("334 UGFzc3dvcmQ6\r\n")
                if conn.readline() is None:
                    return
            elif len(words) < 3:
                conn.send("334 \r\n")
                if conn.readline() is None:
                    return
            conn.send("235 2.7.0 accepted\r\n")
        elif cmd == "STARTTLS" and on_starttls is not None:
            ehlo = on_starttls(conn)
            if ehlo is None:
                return
        elif cmd == "QUIT":
            conn.send("221 bye\r\n")
            return
        else:
            conn.send("250 ok\r\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("logfile")
    ap.add_argument("cert", nargs="?")
    ap.add_argument("key", nargs="?")
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--many", action="store_true")
    ap.add_argument("--greeting-says", default="")
    ap.add_argument("--login-says", default="")
    ap.add_argument("--idle-says", default="")
    a = ap.parse_args()

    signal.alarm(a.timeout)
    ctx = None
    if a.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
    implicit = a.mode in ("imap-login", "smtp-login", "tls-cert",
                          "imaps-badcharset", "imap-hugeliteral",
                          "imap-longline", "imap-permanentflags",
                          "imap-mailbox")
    if implicit and ctx is None:
        sys.exit("fakesrv: mode %s needs CERT KEY" % a.mode)

    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    print(lsock.getsockname()[1], flush=True)

    while True:
        sock, _ = lsock.accept()
        log = open(a.logfile, "a")
        conn = Conn(sock, log)
        try:
            if implicit:
                conn.starttls(ctx)
            if a.mode == "imap-mailbox":
                imap_mailbox(conn, a)
            else:
                serve(a.mode, conn, ctx)
        except (OSError, ssl.SSLError, RuntimeError) as e:
            log.write("# %s\n" % e)
        log.close()
        try:
            conn.sock.close()
        except OSError:
            pass
        if not a.many:
            break
    lsock.close()


def imap_caps_reply(conn, reply, then_close):
    """Greet without capabilities; answer the first command with reply."""
    conn.send("* OK fake ready\r\n")
    line = conn.readline()
    if line is None:
        return
    conn.send(reply.replace("TAG", line.decode("latin-1").split(" ")[0]))
    while not then_close and conn.readline() is not None:
        pass


def imap_lying(conn, lie):
    """Log in whatever the credentials (the capabilities come with the
    login's OK, so that nothing needs asking again), then answer the first
    other command with lie(conn), and read on until the client leaves."""
    caps = "IMAP4rev1 AUTH=PLAIN"
    conn.send("* OK [CAPABILITY %s] fake ready\r\n" % caps)
    logged_in = False
    while True:
        line = conn.readline()
        if line is None:
            return
        words = line.decode("latin-1").split(" ")
        tag = words[0]
        cmd = words[1].upper() if len(words) > 1 else ""
        if cmd == "CAPABILITY":
            conn.send("* CAPABILITY %s\r\n%s OK done\r\n" % (caps, tag))
        elif cmd in ("LOGIN", "AUTHENTICATE"):
            if cmd == "AUTHENTICATE" and len(words) < 4:
                conn.send("+ \r\n")
                if conn.readline() is None:
                    return
            conn.send("%s OK [CAPABILITY %s] logged in\r\n" % (tag, caps))
            logged_in = True
        elif logged_in:
            lie(conn, tag)
            while conn.readline() is not None:
                pass
            return
        else:
            conn.send("%s OK fine\r\n" % tag)


def says(conn, text):
    """Send the lines of text (Python escapes), each logged as said."""
    text = text.encode("latin-1").decode("unicode_escape")
    for line in text.split("\r\n"):
        if line:
            conn.send(line + "\r\n")
            conn.log.write("# said %s\n" % line)
    conn.log.flush()


def imap_mailbox(conn, a):
    """A server with a mailbox of five messages whose IDLE says what the
    test wants said; see the modes above."""
    caps = "IMAP4rev1 AUTH=PLAIN IDLE"
    conn.send("* OK [CAPABILITY %s] fake ready\r\n" % caps)
    says(conn, a.greeting_says)
    while True:
        line = conn.readline()
        if line is None:
            return
        words = line.decode("latin-1").split(" ")
        tag = words[0]
        cmd = words[1].upper() if len(words) > 1 else ""
        if cmd == "CAPABILITY":
            conn.send("* CAPABILITY %s\r\n%s OK done\r\n" % (caps, tag))
        elif cmd in ("LOGIN", "AUTHENTICATE"):
            if cmd == "AUTHENTICATE" and len(words) < 4:
                conn.send("+ \r\n")
                if conn.readline() is None:
                    return
            says(conn, a.login_says)
            conn.send("%s OK [CAPABILITY %s] logged in\r\n" % (tag, caps))
        elif cmd in ("SELECT", "EXAMINE"):
            conn.send("* FLAGS (\\Seen \\Answered \\Flagged \\Deleted)\r\n"
                      "* 5 EXISTS\r\n* 0 RECENT\r\n"
                      "* OK [UIDVALIDITY 7] ok\r\n"
                      "* OK [UIDNEXT 6] ok\r\n"
                      "%s OK [READ-WRITE] selected\r\n" % tag)
        elif cmd == "IDLE":
            conn.send("+ idling\r\n")
            time.sleep(0.5)
            says(conn, a.idle_says)
            if conn.readline() is None:
                return
            conn.send("%s OK idle done\r\n" % tag)
        elif cmd == "LOGOUT":
            conn.send("* BYE bye\r\n%s OK done\r\n" % tag)
            return
        else:
            conn.send("%s OK fine\r\n" % tag)


def long_line(conn, tag):
    """A LIST line of 2 MB, then more of it, never ended."""
    conn.send("* LIST () \"/\" ")
    chunk = "x" * 65536
    sent = 0
    try:
        for _ in range(4096):
            conn.send(chunk)
            sent += len(chunk)
    except OSError:
        pass
    conn.log.write("# sent %d bytes of the line\n" % sent)


def serve(mode, conn, ctx):
    greeting = "* OK [CAPABILITY {caps}] fake ready\r\n"
    if mode == "imap-endless":
        conn.send("* OK ")
        chunk = "x" * 65536
        sent = 0
        try:
            for _ in range(4096):
                conn.send(chunk)
                sent += len(chunk)
        except OSError:
            pass
        conn.log.write("# sent %d bytes of the greeting\n" % sent)
        return
    if mode in ("imap-badcharset", "imaps-badcharset"):
        conn.send('* OK [BADCHARSET (\\HasNoChildren) "/" INBOX]\r\n')
        while conn.readline() is not None:
            pass
        return
    if mode == "imap-badcharset-tagged":
        imap_caps_reply(conn, 'TAG OK [BADCHARSET (\\HasNoChildren) "/" '
                        'INBOX] done\r\n', False)
        return
    if mode == "imap-nocaps":
        imap_caps_reply(conn, "TAG OK no capabilities here\r\n", False)
    elif mode == "imap-literal-close":
        imap_caps_reply(conn, "* LIST () \"/\" {100}\r\nINBOX", True)
    elif mode == "imap-nostarttls":
        imap(conn, "IMAP4rev1 AUTH=PLAIN", greeting)
    elif mode == "imap-preauth":
        imap(conn, "IMAP4rev1 STARTTLS",
             "* PREAUTH [CAPABILITY {caps}] logged in already\r\n")
    elif mode == "imap-inject":
        def inject(c, tag):
            c.send("%s OK begin TLS\r\n* OK [CAPABILITY IMAP4rev1 "
                   "AUTH=PLAIN] injected\r\n" % tag)
            if ctx is None:
                return "IMAP4rev1 AUTH=PLAIN"
            c.starttls(ctx)
            return "IMAP4rev1 AUTH=PLAIN"
        imap(conn, "IMAP4rev1 STARTTLS AUTH=PLAIN", greeting, inject)
    elif mode == "imap-login":
        imap(conn, "IMAP4rev1", greeting)
    elif mode == "tls-cert":
        imap(conn, "IMAP4rev1 AUTH=PLAIN", greeting)
    elif mode == "imap-hugeliteral":
        imap_lying(conn, lambda c, tag: c.send(
            "* LIST () \"/\" {4294967296}\r\n"))
    elif mode == "imap-longline":
        imap_lying(conn, long_line)
    elif mode == "imap-permanentflags":
        imap_lying(conn, lambda c, tag: c.send(
            "%s OK [PERMANENTFLAGS (\r\n" % tag))
    elif mode == "smtp-nostarttls":
        smtp(conn, ["AUTH PLAIN LOGIN", "8BITMIME"])
    elif mode == "smtp-inject":
        def inject(c):
            c.send("220 2.0.0 go ahead\r\n250-injected\r\n")
            if ctx is None:
                return ["AUTH PLAIN LOGIN"]
            c.starttls(ctx)
            return ["AUTH PLAIN LOGIN"]
        smtp(conn, ["STARTTLS", "AUTH PLAIN LOGIN"], inject)
    elif mode == "smtp-login":
        smtp(conn, ["AUTH LOGIN"])
    elif mode == "smtp-ehlo-tab":
        smtp(conn, ["AUTH X-UNKNOWN\tLOGIN", "8BITMIME"])
    else:
        sys.exit("fakesrv: unknown mode %s" % mode)


if __name__ == "__main__":
    main()
