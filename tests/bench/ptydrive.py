#!/usr/bin/env python3
"""ptydrive: time a full-screen mail client from outside, under a pty.

    ptydrive.py [-r ROWS] [-c COLS] [-t LIMIT] SCRIPT -- COMMAND [ARG...]

Starts COMMAND on a new pseudo-terminal of ROWS x COLS (24 x 80), TERM as
the environment has it, and keeps a model of the screen from what the
program writes (a small VT100/xterm interpreter: cursor moves, erasing,
scrolling regions, insert and delete, repeat, reverse video and
background colours; enough for ncurses). SCRIPT is a file of steps, one
a line; every timed step prints "NAME SECONDS" on standard output:

    wait NAME REGEX        until a row of the screen matches REGEX; the
                           time since COMMAND was started
    key NAME KEY REGEX     wait for quiet output, send KEY, then the time
                           until a row matches REGEX (one that no row
                           matched before the key)
    keysel NAME KEY REGEX  the same, but the row matching REGEX must also
                           be the highlighted one (the cursor row: reverse
                           video or a background colour)
    pages NAME KEY COUNT   COUNT times: with the highest message number
                           shown (N of a subject "The w1 w2 #N" or
                           "Rückfrage zu w1 N", as genmaildir.py writes
                           them) H and R rows showing one, send
                           KEY and time until "#(H+R)" is shown: a page
                           forward, drawn to its last row
    steps NAME KEY COUNT   COUNT times: with "#S" on the highlighted row,
                           send KEY and time until "#(S+1)" is the
                           highlighted row: the cursor one message on
    keyquiet NAME KEY [S]  wait for quiet output, send KEY, then the time
                           until the last byte written before the output
                           is quiet again for S seconds (1) (for changes that show no text
                           of their own, such as threading a mailbox with
                           no threads)
    settle S               wait until the output has been quiet for S
                           seconds (a load in the background finished)
    send KEYS              send KEYS (the rest of the line), untimed, and wait for quiet output
    rss NAME               the program's peak RSS so far (VmHWM), in KB
    quit KEY               send KEY and wait for the program to exit

KEY is a terminfo key capability (kend, knp, kcud1, khome, ...), looked
up for TERM, or literal text with \\n, \\r, \\e and \\xHH escapes. A step that
does not finish within LIMIT seconds (60) ends the run with status 1 and
the screen on standard error, so that a broken run cannot look fast.
Timestamps are those of the read() that brought the last byte needed,
taken before the bytes are interpreted, so the interpreter's own time is
not counted. Used by tests/bench/tui.sh; see doc/bench.md.
"""
import curses
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

QUIET = 0.15		# seconds without output that count as "drawn"


class Screen:
    """What a terminal would show: characters and a highlight bit."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.chars = [[" "] * cols for _ in range(rows)]
        self.hl = [[False] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.top, self.bottom = 0, rows - 1
        self.rev = self.bg = False
        self.saved = (0, 0)
        self.last = " "
        self.wrap = False
        self.state = "text"
        self.seq = ""
        self.utf8 = b""

    # -- lines ---------------------------------------------------------
    def blank(self):
        return [" "] * self.cols, [False] * self.cols

    def scroll_up(self, n=1):
        for _ in range(n):
            del self.chars[self.top]
            del self.hl[self.top]
            c, h = self.blank()
            self.chars.insert(self.bottom, c)
            self.hl.insert(self.bottom, h)

    def scroll_down(self, n=1):
        for _ in range(n):
            del self.chars[self.bottom]
            del self.hl[self.bottom]
            c, h = self.blank()
            self.chars.insert(self.top, c)
            self.hl.insert(self.top, h)

    def linefeed(self):
        if self.y == self.bottom:
            self.scroll_up()
        elif self.y < self.rows - 1:
            self.y += 1

    def put(self, ch):
        if self.wrap:
            self.x = 0
            self.linefeed()
            self.wrap = False
        self.chars[self.y][self.x] = ch
        self.hl[self.y][self.x] = self.rev or self.bg
        self.last = ch
        if self.x == self.cols - 1:
            self.wrap = True
        else:
            self.x += 1

    def erase(self, y, x0, x1):
        for x in range(max(0, x0), min(self.cols, x1)):
            self.chars[y][x] = " "
            self.hl[y][x] = self.bg

    # -- escape sequences ----------------------------------------------
    def sgr(self, params):
        p = [int(v) if v.isdigit() else 0 for v in params.split(";")] \
            if params else [0]
        i = 0
        while i < len(p):
            v = p[i]
            if v == 0:
                self.rev = self.bg = False
            elif v == 7:
                self.rev = True
            elif v == 27:
                self.rev = False
            elif v in (38, 48):
                if v == 48:
                    self.bg = True
                i += 2 if i + 1 < len(p) and p[i + 1] == 5 else 4
            elif 40 <= v <= 47 or 100 <= v <= 107:
                self.bg = True
            elif v == 49:
                self.bg = False
            i += 1

    def csi(self, params, final):
        priv = params.startswith("?") or params.startswith(">")
        if priv:
            return
        args = [int(v) if v.isdigit() else 0 for v in params.split(";")]
        n = max(args[0], 1) if args else 1
        self.wrap = False
        if final in "Hf":
            y = args[0] if args and args[0] else 1
            x = args[1] if len(args) > 1 and args[1] else 1
            self.y = min(y, self.rows) - 1
            self.x = min(x, self.cols) - 1
        elif final == "A":
            self.y = max(self.y - n, 0)
        elif final in "Be":
            self.y = min(self.y + n, self.rows - 1)
        elif final in "Ca":
            self.x = min(self.x + n, self.cols - 1)
        elif final == "D":
            self.x = max(self.x - n, 0)
        elif final in "G`":
            self.x = min(n, self.cols) - 1
        elif final == "d":
            self.y = min(n, self.rows) - 1
        elif final == "K":
            a = args[0] if args else 0
            if a == 0:
                self.erase(self.y, self.x, self.cols)
            elif a == 1:
                self.erase(self.y, 0, self.x + 1)
            else:
                self.erase(self.y, 0, self.cols)
        elif final == "J":
            a = args[0] if args else 0
            if a == 0:
                self.erase(self.y, self.x, self.cols)
                rng = range(self.y + 1, self.rows)
            elif a == 1:
                self.erase(self.y, 0, self.x + 1)
                rng = range(0, self.y)
            else:
                rng = range(self.rows)
            for y in rng:
                self.erase(y, 0, self.cols)
        elif final == "X":
            self.erase(self.y, self.x, self.x + n)
        elif final == "@":
            row, h = self.chars[self.y], self.hl[self.y]
            row[self.x:self.x] = [" "] * n
            h[self.x:self.x] = [self.bg] * n
            del row[self.cols:], h[self.cols:]
        elif final == "P":
            row, h = self.chars[self.y], self.hl[self.y]
            del row[self.x:self.x + n], h[self.x:self.x + n]
            row.extend([" "] * (self.cols - len(row)))
            h.extend([self.bg] * (self.cols - len(h)))
        elif final in "LM":
            if self.top <= self.y <= self.bottom:
                top = self.top
                self.top = self.y
                if final == "L":
                    self.scroll_down(n)
                else:
                    self.scroll_up(n)
                self.top = top
        elif final == "S":
            self.scroll_up(n)
        elif final == "T":
            self.scroll_down(n)
        elif final == "r":
            t = args[0] if args and args[0] else 1
            b = args[1] if len(args) > 1 and args[1] else self.rows
            self.top, self.bottom = t - 1, min(b, self.rows) - 1
            self.y = self.x = 0
        elif final == "b":
            for _ in range(n):
                self.put(self.last)
        elif final == "m":
            self.sgr(params)

    def feed(self, data):
        for b in data:
            if self.state == "text":
                if b == 0x1b:
                    self.state, self.seq = "esc", ""
                elif b == 0x0d:
                    self.x, self.wrap = 0, False
                elif b == 0x0a or b == 0x0b or b == 0x0c:
                    self.linefeed()
                    self.wrap = False
                elif b == 0x08:
                    self.x, self.wrap = max(self.x - 1, 0), False
                elif b == 0x09:
                    self.x = min((self.x // 8 + 1) * 8, self.cols - 1)
                elif b >= 0x80:
                    self.utf8 += bytes([b])
                    try:
                        ch = self.utf8.decode("utf-8")
                    except UnicodeDecodeError:
                        if len(self.utf8) >= 4:
                            self.utf8 = b""
                            self.put("?")
                        continue
                    self.utf8 = b""
                    self.put(ch)
                elif b >= 0x20:
                    self.put(chr(b))
            elif self.state == "esc":
                c = chr(b)
                if c == "[":
                    self.state = "csi"
                elif c == "]" or c == "P" or c == "_":
                    self.state = "string"
                elif c in "()*+":
                    self.state = "charset"
                else:
                    self.state = "text"
                    if c == "M":
                        if self.y == self.top:
                            self.scroll_down()
                        elif self.y > 0:
                            self.y -= 1
                    elif c == "D":
                        self.linefeed()
                    elif c == "E":
                        self.x = 0
                        self.linefeed()
                    elif c == "7":
                        self.saved = (self.y, self.x)
                    elif c == "8":
                        self.y, self.x = self.saved
            elif self.state == "charset":
                self.state = "text"
            elif self.state == "string":
                if b == 0x07:
                    self.state = "text"
                elif b == 0x1b:
                    self.state = "string-esc"
            elif self.state == "string-esc":
                self.state = "text" if b == 0x5c else "string"
            elif self.state == "csi":
                if 0x40 <= b <= 0x7e:
                    self.state = "text"
                    self.csi(self.seq, chr(b))
                else:
                    self.seq += chr(b)

    def lines(self):
        return ["".join(r) for r in self.chars]

    def find(self, rx, selected=False):
        for y, line in enumerate(self.lines()):
            m = rx.search(line)
            if m is None:
                continue
            if not selected or any(self.hl[y][m.start():m.end()]):
                return y
        return None


# A subject of genmaildir.py: "The w1 w2 #N" or "Rückfrage zu w1 N".
NUMBER = re.compile(r"(?:#|zu [a-z]+ )(\d+)(?!\d)")


def numbers(self):
    """(N, highlighted) of each row showing "#N"."""
    out = []
    for y, line in enumerate(self.lines()):
        m = NUMBER.search(line)
        if m is not None:
            out.append((int(m.group(1)), any(self.hl[y][m.start():m.end()])))
    return out


Screen.numbers = numbers


def key_bytes(spec):
    if re.fullmatch(r"k[a-z0-9]+", spec):
        s = curses.tigetstr(spec)
        if s is None:
            raise SystemExit("ptydrive: TERM has no %s" % spec)
        return s
    spec = re.sub(r"\\x([0-9a-fA-F]{2})",
                  lambda m: chr(int(m.group(1), 16)), spec)
    return spec.replace("\\e", "\x1b").replace("\\n", "\n") \
        .replace("\\r", "\r").encode()


class Driver:
    def __init__(self, argv, rows, cols, limit):
        self.limit = limit
        self.screen = Screen(rows, cols)
        self.t0 = time.monotonic()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))
        self.exited = None

    def read(self, timeout):
        """Bytes within timeout seconds: (data, time read); None at EOF."""
        r, _, _ = select.select([self.fd], [], [], max(timeout, 0))
        if not r:
            return b"", None
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        t = time.monotonic()
        if not data:
            return None, t
        return data, t

    def fail(self, why):
        sys.stderr.write("ptydrive: %s\n" % why)
        for line in self.screen.lines():
            sys.stderr.write("ptydrive: |%s|\n" % line.rstrip())
        self.kill()
        sys.exit(1)

    def until(self, rx, selected, what):
        deadline = time.monotonic() + self.limit
        if self.screen.find(rx, selected) is not None:
            return time.monotonic()
        while True:
            data, t = self.read(deadline - time.monotonic())
            if data is None:
                self.fail("%s: the program ended" % what)
            if t is None:
                self.fail("%s: nothing matched %r within %d s" %
                          (what, rx.pattern, self.limit))
            self.screen.feed(data)
            if self.screen.find(rx, selected) is not None:
                return t

    def quiet(self, secs=QUIET):
        """Wait for secs seconds without output; the last read's time."""
        deadline = time.monotonic() + self.limit
        last = None
        while time.monotonic() < deadline:
            data, t = self.read(secs)
            if data is None:
                self.fail("the program ended")
            if t is None:
                return last
            last = t
            self.screen.feed(data)
        self.fail("the program never stopped writing")

    def send(self, b):
        os.write(self.fd, b)
        return time.monotonic()

    def rss(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        self.fail("no VmHWM")

    def quit(self, b):
        self.send(b)
        deadline = time.monotonic() + self.limit
        while time.monotonic() < deadline:
            data, t = self.read(0.2)
            if data is None:
                break
            if data:
                self.screen.feed(data)
        _, status = os.waitpid(self.pid, 0)
        self.exited = status
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            self.fail("the program exited with status %d" % status)

    def kill(self):
        if self.exited is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.exited = -1


def main():
    args = sys.argv[1:]
    rows, cols, limit = 24, 80, 60
    while args and args[0].startswith("-") and args[0] != "--":
        opt = args.pop(0)
        if opt == "-r":
            rows = int(args.pop(0))
        elif opt == "-c":
            cols = int(args.pop(0))
        elif opt == "-t":
            limit = int(args.pop(0))
        else:
            raise SystemExit("ptydrive: unknown option %s" % opt)
    if len(args) < 3 or args[1] != "--":
        raise SystemExit("usage: ptydrive.py [-r ROWS] [-c COLS] "
                         "[-t LIMIT] SCRIPT -- COMMAND [ARG...]")
    with open(args[0]) as f:
        steps = [l.rstrip("\n") for l in f if l.strip() and
                 not l.startswith("#")]
    curses.setupterm(os.environ.get("TERM", "xterm-256color"),
                     sys.stdout.fileno() if sys.stdout.isatty() else
                     os.open(os.devnull, os.O_WRONLY))
    d = Driver(args[2:], rows, cols, limit)
    for step in steps:
        w = step.split(" ", 3)
        op = w[0]
        if op == "wait" and len(w) >= 3:
            rx = re.compile(" ".join(w[2:]))
            t = d.until(rx, False, w[1])
            print("%s %.6f" % (w[1], t - d.t0), flush=True)
        elif op in ("key", "keysel") and len(w) == 4:
            rx = re.compile(w[3])
            d.quiet()
            if d.screen.find(rx, op == "keysel") is not None:
                d.fail("%s: %r matched before the key" % (w[1], w[3]))
            t0 = d.send(key_bytes(w[2]))
            t = d.until(rx, op == "keysel", w[1])
            print("%s %.6f" % (w[1], max(t - t0, 0)), flush=True)
        elif op in ("pages", "steps") and len(w) == 4:
            for _ in range(int(w[3])):
                d.quiet()
                nums = d.screen.numbers()
                if not nums:
                    d.fail("%s: no message rows on the screen" % w[1])
                if op == "pages":
                    want, sel = max(n for n, _ in nums) + len(nums), False
                else:
                    cur = [n for n, hl in nums if hl]
                    if len(cur) != 1:
                        d.fail("%s: %d highlighted message rows" %
                               (w[1], len(cur)))
                    want, sel = cur[0] + 1, True
                rx = re.compile(r"(?:#|zu [a-z]+ )%d(?!\d)" % want)
                t0 = d.send(key_bytes(w[2]))
                t = d.until(rx, sel, w[1])
                print("%s %.6f" % (w[1], max(t - t0, 0)), flush=True)
        elif op == "keyquiet" and len(w) in (3, 4):
            d.quiet()
            t0 = d.send(key_bytes(w[2]))
            t = d.quiet(float(w[3]) if len(w) == 4 else 1.0)
            if t is None:
                d.fail("%s: nothing was written" % w[1])
            print("%s %.6f" % (w[1], t - t0), flush=True)
        elif op == "settle" and len(w) == 2:
            d.quiet(float(w[1]))
        elif op == "send" and len(w) >= 2:
            d.quiet()
            d.send(key_bytes(" ".join(w[1:])))
            d.quiet()
        elif op == "rss" and len(w) == 2:
            print("%s %d" % (w[1], d.rss()), flush=True)
        elif op == "quit" and len(w) == 2:
            d.quiet()
            d.quit(key_bytes(w[1]))
        elif op == "screen":
            d.quiet()
            for line in d.screen.lines():
                sys.stderr.write("|%s|\n" % line.rstrip())
        else:
            d.fail("bad step: %s" % step)
    d.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
