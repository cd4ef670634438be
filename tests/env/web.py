#!/usr/bin/env python3
# tests/env/web.py: the HTTPS server of the test environment (web.sh starts
# it), serving autoconfig documents for the test domain autoconfig.test and
# the hostile answers the setup wizard must survive.
#
#   web.py PORT DIR CERT KEY WRONGCERT WRONGKEY
#
# Listens on 127.0.0.1:PORT with TLS (the test CA's web certificate, CERT
# and KEY). A request for HOST/PATH is answered from DIR/www/HOST/PATH (the
# query is ignored), except for these hosts, by the first label after
# "autoconfig.":
#
#   laughs     a "billion laughs" document (entities nested ten deep)
#   external   a document whose entity names an external URL, /secret on
#              autoconfig.autoconfig.test: fetching it would show in the log
#   huge       100 MB with no Content-Length, written until the client
#              hangs up; the log says how much got out
#   redirect   302 to the same URL over plain http://
#   wrongcert  the handshake presents WRONGCERT (CA-signed, for another
#              name), chosen by SNI
#   silent     the request is read and never answered (60 s)
#
# Every request is a line "HOST PATH" in DIR/requests.log. Handshakes and
# requests run on threads of their own, so a client that stalls stalls
# nobody else.
import http.server
import os
import socket
import ssl
import sys
import threading
import time

PORT = int(sys.argv[1])
DIR = sys.argv[2]
LOG = os.path.join(DIR, "requests.log")
lock = threading.Lock()


def log(line):
    with lock:
        with open(LOG, "a") as f:
            f.write(line + "\n")


LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE clientConfig [
 <!ENTITY l0 "ha">
 <!ENTITY l1 "&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;">
 <!ENTITY l2 "&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;">
 <!ENTITY l3 "&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;">
 <!ENTITY l4 "&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;">
 <!ENTITY l5 "&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;&l4;">
 <!ENTITY l6 "&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;&l5;">
 <!ENTITY l7 "&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;&l6;">
 <!ENTITY l8 "&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;&l7;">
 <!ENTITY l9 "&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;&l8;">
]>
<clientConfig version="1.1"><emailProvider id="laughs">
<displayName>&l9;</displayName>
<incomingServer type="imap"><hostname>imap.steed.test</hostname>
<port>993</port><socketType>SSL</socketType></incomingServer>
</emailProvider></clientConfig>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE clientConfig [
 <!ENTITY secret SYSTEM "https://autoconfig.autoconfig.test/secret">
]>
<clientConfig version="1.1"><emailProvider id="external">
<domain>&secret;</domain>
<incomingServer type="imap"><hostname>imap.steed.test</hostname>
<port>993</port><socketType>SSL</socketType></incomingServer>
</emailProvider></clientConfig>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_body(self, status, body, ctype="application/xml"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        path = self.path.split("?")[0].split("#")[0]
        log("%s %s" % (host, self.path))
        kind = host.split(".")[1] if host.startswith("autoconfig.") and \
            host.count(".") >= 3 else ""
        if kind == "laughs":
            self.send_body(200, LAUGHS)
        elif kind == "external":
            self.send_body(200, EXTERNAL)
        elif kind == "huge":
            self.huge()
        elif kind == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://%s%s" % (host, self.path))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "silent":
            time.sleep(60)
            self.close_connection = True
        else:
            self.static(host, path)

    def huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"<clientConfig>" + b" " * 65522 + b"\n"
        sent = 0
        try:
            self.wfile.write(b"<?xml version=\"1.0\"?>\n")
            while sent < 100 * 1024 * 1024:
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass
        log("huge: %d bytes sent" % sent)
        self.close_connection = True

    def static(self, host, path):
        if "/../" in path or not path.startswith("/") or "/" in host:
            self.send_body(404, "not found\n", "text/plain")
            return
        f = os.path.join(DIR, "www", host, path.lstrip("/"))
        moved = f + ".moved"
        if os.path.isfile(moved):
            with open(moved) as m:
                self.send_response(301)
                self.send_header("Location", m.read().strip())
                self.send_header("Content-Length", "0")
                self.end_headers()
            return
        if not os.path.isfile(f):
            self.send_body(404, "not found\n", "text/plain")
            return
        with open(f, "rb") as fh:
            self.send_body(200, fh.read())


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, ctx):
        self.ctx = ctx
        super().__init__(addr, handler)

    def finish_request(self, request, client_address):
        # the handshake here, on the request's own thread
        request.settimeout(70)
        try:
            tls = self.ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            self.RequestHandlerClass(tls, client_address, self)
        except OSError:
            pass


def context(cert, key):
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    c.load_cert_chain(cert, key)
    return c


def main():
    ctx = context(sys.argv[3], sys.argv[4])
    wrong = context(sys.argv[5], sys.argv[6])

    def sni(sock, name, _ctx):
        if name is not None and name.lower().startswith("autoconfig.wrongcert."):
            sock.context = wrong
    ctx.sni_callback = sni
    srv = Server(("127.0.0.1", PORT), Handler, ctx)
    with open(os.path.join(DIR, "web.pid"), "w") as f:
        f.write("%d\n" % os.getpid())
    srv.serve_forever()


main()
