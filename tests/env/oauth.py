#!/usr/bin/env python3
# tests/env/oauth.py: the OAuth2 authorization server of the test
# environment (oauth.sh starts it), for steedmail's OAuth2 sign-in and
# Dovecot's oauth2 passdb, which asks it about each token it is shown.
#
#   oauth.py PORT DIR CERT KEY
#
# Listens on 127.0.0.1:PORT with TLS (the test CA's server certificate,
# which names 127.0.0.1). One client is known: "steedmail-test" (public,
# no secret). Endpoints:
#
#   POST /device       device authorization (RFC 8628 3.1): a device code,
#                      a user code, https://127.0.0.1:PORT/verify, interval 1
#   GET  /verify?user_code=CODE&user=ADDRESS[&deny=1]
#                      the person at the verification page: approves the
#                      code for ADDRESS (or denies it)
#   GET  /authorize    the authorization code flow (PKCE, S256 only): the
#                      person signs in at once as alice@steed.test (or
#                      refuses, while DIR/deny exists) and the browser is
#                      redirected to redirect_uri, which must be
#                      http://127.0.0.1:PORT/ (RFC 8252), with the code
#   POST /token        grant_type device_code (pending until approved) and
#                      refresh_token (a new access token and a new refresh
#                      token; the old refresh token stops working)
#   POST /introspect   token introspection (RFC 7662), Dovecot's question:
#                      {"active": true, "email": ADDRESS} or {"active": false}
#   POST /test/expire  every access token issued so far expires now (the
#                      clients do not know: a token refused before its time)
#   POST /test/revoke  every refresh token is revoked
#
# Files in DIR: expires-in (seconds an access token lives; default 3600),
# device-expires-in (seconds a device code is said to be good for;
# default 600),
# hostile (while it exists, /token answers as its first word says: huge,
# 1 MB of JSON; html, a web page; crlf, an access token with a line end
# in it; redirect, 302 to plain http://),
# down (while it exists, every connection is closed at once, before TLS:
# a server that is down), requests.log (one line per request: method,
# path, grant type; never a token), oauth.pid, oauth.log.
import base64
import hashlib
import http.server
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse

PORT = int(sys.argv[1])
DIR = sys.argv[2]
CLIENT = "steedmail-test"
lock = threading.Lock()
devices = {}    # device_code -> {"user_code", "user", "state", "expires"}
codes = {}      # authorization code -> {"user", "challenge", "redirect"}
access = {}     # access token -> {"user", "expires"}
refresh = {}    # refresh token -> user


def log(line):
    with lock:
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write(line + "\n")


def lifetime():
    try:
        with open(os.path.join(DIR, "expires-in")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 3600


def device_lifetime():
    try:
        with open(os.path.join(DIR, "device-expires-in")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 600


def issue(user):
    a = "at-" + secrets.token_urlsafe(24)
    r = "rt-" + secrets.token_urlsafe(24)
    life = lifetime()
    access[a] = {"user": user, "expires": time.time() + life}
    refresh[r] = user
    return {"access_token": a, "token_type": "Bearer", "expires_in": life,
            "refresh_token": r, "scope": "mail"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, obj, ctype="application/json"):
        data = (json.dumps(obj) if ctype == "application/json"
                else obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def form(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n > 0 else ""
        return {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = {k: v[0] for k, v in urllib.parse.parse_qs(u.query).items()}
        log("GET %s" % u.path)
        if u.path == "/authorize":
            self.authorize(q)
            return
        if u.path != "/verify":
            self.answer(404, "not found\n", "text/plain")
            return
        with lock:
            d = [d for d in devices.values()
                 if d["user_code"] == q.get("user_code")]
            if not d or d[0]["state"] != "pending":
                self.answer(400, "no such code\n", "text/plain")
                return
            d[0]["user"] = q.get("user", "")
            d[0]["state"] = "denied" if q.get("deny") else "approved"
        self.answer(200, "%s\n" % d[0]["state"], "text/plain")

    def do_POST(self):
        path = urllib.parse.urlparse(self.path).path
        f = self.form()
        log("POST %s %s" % (path, f.get("grant_type", "")))
        with lock:
            if path == "/device":
                self.device(f)
            elif path == "/token":
                self.token(f)
            elif path == "/introspect":
                t = access.get(f.get("token", ""))
                if t is None or t["expires"] <= time.time():
                    self.answer(200, {"active": False})
                else:
                    self.answer(200, {"active": True, "email": t["user"],
                                      "exp": int(t["expires"])})
            elif path == "/test/expire":
                for t in access.values():
                    t["expires"] = 0
                self.answer(200, {"expired": len(access)})
            elif path == "/test/revoke":
                n = len(refresh)
                refresh.clear()
                self.answer(200, {"revoked": n})
            else:
                self.answer(404, {"error": "not_found"})

    def authorize(self, q):
        r = q.get("redirect_uri", "")
        p = urllib.parse.urlparse(r)
        if (q.get("client_id") != CLIENT or p.scheme != "http" or
                p.hostname != "127.0.0.1" or
                q.get("code_challenge_method") != "S256" or
                not q.get("code_challenge") or
                q.get("response_type") != "code"):
            self.answer(400, "bad authorization request\n", "text/plain")
            return
        if os.path.exists(os.path.join(DIR, "deny")):
            args = {"error": "access_denied", "state": q.get("state", "")}
        else:
            code = secrets.token_urlsafe(16)
            with lock:
                codes[code] = {"user": "alice@steed.test", "redirect": r,
                               "challenge": q["code_challenge"]}
            args = {"code": code, "state": q.get("state", "")}
        self.send_response(302)
        self.send_header("Location", r + "?" + urllib.parse.urlencode(args))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def device(self, f):
        if f.get("client_id") != CLIENT:
            self.answer(401, {"error": "invalid_client"})
            return
        code = secrets.token_urlsafe(16)
        user_code = "%04d-%04d" % (secrets.randbelow(10000),
                                   secrets.randbelow(10000))
        life = device_lifetime()
        devices[code] = {"user_code": user_code, "user": None,
                         "state": "pending", "expires": time.time() + life}
        uri = "https://127.0.0.1:%d/verify" % PORT
        self.answer(200, {"device_code": code, "user_code": user_code,
                          "verification_uri": uri,
                          "verification_uri_complete":
                              uri + "?user_code=" + user_code,
                          "expires_in": life, "interval": 1})

    def hostile(self, how):
        if how == "huge":
            self.answer(200, {"access_token": "x" * (1024 * 1024)})
        elif how == "html":
            self.answer(200, "<html><body>Sign in</body></html>\n",
                        "text/html")
        elif how == "crlf":
            self.answer(200, {"access_token": "at-x\r\nA1 LOGOUT",
                              "token_type": "Bearer"})
        else:
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:%d/token" % PORT)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def token(self, f):
        try:
            with open(os.path.join(DIR, "hostile")) as h:
                how = h.read().split()[0]
        except (OSError, IndexError):
            how = None
        if how is not None:
            self.hostile(how)
            return
        if f.get("client_id") != CLIENT:
            self.answer(401, {"error": "invalid_client"})
            return
        g = f.get("grant_type")
        if g == "urn:ietf:params:oauth:grant-type:device_code":
            d = devices.get(f.get("device_code", ""))
            if d is None:
                self.answer(400, {"error": "invalid_grant"})
            elif d["state"] == "pending":
                self.answer(400, {"error": "authorization_pending"})
            elif d["state"] == "denied":
                self.answer(400, {"error": "access_denied",
                                  "error_description": "the user said no"})
            else:
                del devices[f["device_code"]]
                self.answer(200, issue(d["user"]))
        elif g == "authorization_code":
            c = codes.pop(f.get("code", ""), None)
            v = f.get("code_verifier", "").encode()
            s256 = base64.urlsafe_b64encode(
                hashlib.sha256(v).digest()).decode().rstrip("=")
            if c is None or c["redirect"] != f.get("redirect_uri") or \
                    s256 != c["challenge"]:
                self.answer(400, {"error": "invalid_grant",
                                  "error_description":
                                      "code, redirect or verifier wrong"})
            else:
                self.answer(200, issue(c["user"]))
        elif g == "refresh_token":
            user = refresh.pop(f.get("refresh_token", ""), None)
            if user is None:
                self.answer(400, {"error": "invalid_grant",
                                  "error_description":
                                      "refresh token revoked or unknown"})
            else:
                self.answer(200, issue(user))
        else:
            self.answer(400, {"error": "unsupported_grant_type"})


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, ctx):
        self.ctx = ctx
        super().__init__(addr, handler)

    def finish_request(self, request, client_address):
        if os.path.exists(os.path.join(DIR, "down")):
            log("down: connection closed")
            return
        request.settimeout(30)
        try:
            tls = self.ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        try:
            self.RequestHandlerClass(tls, client_address, self)
        except OSError:
            pass


def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    srv = Server(("127.0.0.1", PORT), Handler, ctx)
    with open(os.path.join(DIR, "oauth.pid"), "w") as f:
        f.write("%d\n" % os.getpid())
    srv.serve_forever()


main()
