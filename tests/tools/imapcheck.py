#!/usr/bin/env python3
"""imapcheck: look at (and put mail in) a test server's mailboxes with
another client than steedmail: Python's imaplib, over IMAPS, the
certificate checked against $STEED_CA_FILE.

    imapcheck.py [--server dovecot|cyrus|courier] [--user alice|bob|ADDRESS]
                 [--password PW] COMMAND ARGS...

The server's port comes from the environment tests/env/run exports
(STEED_IMAPS_PORT, STEED_CYRUS_IMAPS_PORT, STEED_COURIER_IMAPS_PORT). The
user alice (default) or bob logs in with the password env.sh names; any
other address needs --password. Folder names are given and printed as
people write them (non-ASCII ones are sent in modified UTF-7).

Commands:
  caps                  the CAPABILITY after login, one per line
  list                  every folder: NAME, a tab, its attributes
  namespace             the NAMESPACE answer as the server sent it
  count FOLDER          the number of messages in FOLDER
  flags FOLDER          one line per message: UID, then its flags
  search FOLDER TEXT    the UIDs of the messages whose Subject has TEXT
  append FOLDER FILE [FLAG...]
                        append FILE (a message; LF line ends are sent as
                        CRLF) with these flags; prints the new UID when the
                        server says it (UIDPLUS)
  clear FOLDER...       delete and expunge every message of each FOLDER
  create FOLDER         create FOLDER

Exit status: 0 done, 1 the server said NO or BAD (its words on stderr), 2
usage or connection errors.
"""

import argparse
import base64
import imaplib
import os
import re
import socket
import ssl
import sys

PORTS = {
    "dovecot": "STEED_IMAPS_PORT",
    "cyrus": "STEED_CYRUS_IMAPS_PORT",
    "courier": "STEED_COURIER_IMAPS_PORT",
}


class Refused(Exception):
    """The server answered NO or BAD."""


def env(name):
    v = os.environ.get(name)
    if not v:
        raise SystemExit("imapcheck: %s is not set (run inside tests/env/run%s)"
                         % (name, ", with STEED_ENV_SERVERS=all"
                            if "CYRUS" in name or "COURIER" in name else ""))
    return v


# Modified UTF-7 (RFC 3501 5.1.3): "&" starts base64 of UTF-16BE with ","
# for "/", "-" ends it; "&-" is "&".
def mutf7_encode(name):
    out, run = [], []

    def flush():
        if run:
            b = "".join(run).encode("utf-16-be")
            out.append("&" + base64.b64encode(b).decode().rstrip("=")
                       .replace("/", ",") + "-")
            run.clear()
    for ch in name:
        if 0x20 <= ord(ch) <= 0x7e:
            flush()
            out.append("&-" if ch == "&" else ch)
        else:
            run.append(ch)
    flush()
    return "".join(out)


def mutf7_decode(name):
    def one(m):
        s = m.group(1)
        if s == "":
            return "&"
        s = s.replace(",", "/")
        s += "=" * (-len(s) % 4)
        return base64.b64decode(s).decode("utf-16-be")
    return re.sub(r"&([A-Za-z0-9+,]*)-", one, name)


def quote(name):
    enc = mutf7_encode(name)
    return '"' + enc.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check(typ, data, what):
    if typ != "OK":
        words = b" ".join(d for d in data if isinstance(d, bytes)).decode(
            "utf-8", "replace")
        raise Refused("%s: %s %s" % (what, typ, words))
    return data


def connect(args):
    port = int(env(PORTS[args.server]))
    ctx = ssl.create_default_context(cafile=env("STEED_CA_FILE"))
    ctx.check_hostname = True
    host = os.environ.get("STEED_HOST", "127.0.0.1")
    m = imaplib.IMAP4_SSL(host, port, ssl_context=ctx, timeout=20)
    user, pw = args.user, args.password
    if user in ("alice", "bob"):
        pw = pw or env("STEED_%s_PASS" % user.upper())
        user = env("STEED_%s" % user.upper())
    if pw is None:
        raise SystemExit("imapcheck: --password is needed for %s" % user)
    check(*m.login(user, pw), "LOGIN")
    return m


def select(m, folder, readonly=True):
    """Select FOLDER; the number of messages in it."""
    data = check(*m.select(quote(folder), readonly=readonly), "SELECT " + folder)
    return int(data[0])


def uids_flags(m):
    """(uid, [flags]) of every message of the selected folder."""
    typ, data = m.uid("FETCH", "1:*", "(UID FLAGS)")
    check(typ, data, "FETCH")
    out = []
    for d in data:
        if d is None:
            continue
        if isinstance(d, tuple):
            d = d[0]
        mu = re.search(rb"UID (\d+)", d)
        mf = re.search(rb"FLAGS \(([^)]*)\)", d)
        if mu:
            out.append((int(mu.group(1)),
                        mf.group(1).decode().split() if mf else []))
    return sorted(out)


def cmd_caps(m, a):
    typ, data = m.capability()
    check(typ, data, "CAPABILITY")
    for c in data[0].decode().split():
        print(c)


def cmd_list(m, a):
    typ, data = m.list()
    check(typ, data, "LIST")
    for d in data:
        if d is None:
            continue
        if isinstance(d, tuple):  # the name came as a literal
            line, name = d[0].decode(), d[1].decode()
            attrs = re.match(r"\(([^)]*)\)", line).group(1)
        else:
            line = d.decode()
            mt = re.match(r'\(([^)]*)\) (?:"(?:[^"\\]|\\.)*"|NIL) (.*)$', line)
            if not mt:
                raise SystemExit("imapcheck: cannot read LIST line: %r" % line)
            attrs, name = mt.group(1), mt.group(2)
            if name.startswith('"'):
                name = re.sub(r'\\(.)', r'\1', name[1:-1])
        print("%s\t%s" % (mutf7_decode(name), attrs))


def cmd_namespace(m, a):
    typ, data = m.namespace()
    check(typ, data, "NAMESPACE")
    print(data[0].decode())


def cmd_count(m, a):
    typ, data = m.status(quote(a.args[0]), "(MESSAGES)")
    check(typ, data, "STATUS " + a.args[0])
    print(int(re.search(rb"MESSAGES (\d+)", data[0]).group(1)))


def cmd_flags(m, a):
    select(m, a.args[0])
    for uid, flags in uids_flags(m):
        print(uid, " ".join(flags))


def cmd_search(m, a):
    select(m, a.args[0])
    text = a.args[1]
    if all(ord(c) < 128 for c in text):
        typ, data = m.uid("SEARCH", "SUBJECT", '"%s"' % text.replace('"', ''))
    else:
        m.literal = text.encode()
        typ, data = m.uid("SEARCH", "CHARSET", "UTF-8", "SUBJECT")
    check(typ, data, "SEARCH")
    for u in (data[0] or b"").split():
        print(int(u))


def cmd_append(m, a):
    folder, path = a.args[0], a.args[1]
    with open(path, "rb") as f:
        msg = f.read()
    msg = re.sub(rb"\r?\n", b"\r\n", msg)
    flags = "(%s)" % " ".join(a.args[2:]) if len(a.args) > 2 else None
    typ, data = m.append(quote(folder), flags, None, msg)
    check(typ, data, "APPEND " + folder)
    mu = re.search(rb"APPENDUID \d+ (\d+)", data[0] or b"")
    if mu:
        print(int(mu.group(1)))


def cmd_clear(m, a):
    for folder in a.args:
        if select(m, folder, readonly=False) > 0:
            check(*m.store("1:*", "+FLAGS.SILENT", r"(\Deleted)"),
                  "STORE " + folder)
            check(*m.expunge(), "EXPUNGE " + folder)
        m.close()


def cmd_create(m, a):
    check(*m.create(quote(a.args[0])), "CREATE " + a.args[0])


COMMANDS = {
    "caps": (cmd_caps, 0, 0),
    "list": (cmd_list, 0, 0),
    "namespace": (cmd_namespace, 0, 0),
    "count": (cmd_count, 1, 1),
    "flags": (cmd_flags, 1, 1),
    "search": (cmd_search, 2, 2),
    "append": (cmd_append, 2, None),
    "clear": (cmd_clear, 1, None),
    "create": (cmd_create, 1, 1),
}


def main():
    p = argparse.ArgumentParser(
        prog="imapcheck.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--server", choices=sorted(PORTS), default="dovecot")
    p.add_argument("--user", default="alice")
    p.add_argument("--password")
    p.add_argument("command", choices=sorted(COMMANDS))
    p.add_argument("args", nargs="*")
    a = p.parse_args()
    fn, lo, hi = COMMANDS[a.command]
    if len(a.args) < lo or (hi is not None and len(a.args) > hi):
        p.error("%s: wrong number of arguments" % a.command)
    try:
        m = connect(a)
    except imaplib.IMAP4.error as e:
        print("imapcheck: %s refused the login: %s" % (a.server, e),
              file=sys.stderr)
        return 1
    except (OSError, ssl.SSLError) as e:
        print("imapcheck: cannot reach %s: %s" % (a.server, e),
              file=sys.stderr)
        return 2
    except Refused as e:
        print("imapcheck: %s" % e, file=sys.stderr)
        return 1
    try:
        fn(m, a)
    except Refused as e:
        print("imapcheck: %s: %s" % (a.server, e), file=sys.stderr)
        return 1
    except (OSError, socket.timeout, imaplib.IMAP4.error) as e:
        print("imapcheck: %s: %s" % (a.server, e), file=sys.stderr)
        return 2
    finally:
        try:
            m.logout()
        except Exception:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
