#!/usr/bin/env python3
"""typedrive: time each key's echo in a prompt of a full-screen program.

    typedrive.py [-t LIMIT] [-g GAP-MS] [-q QUIT] READY BUSY KEY PROMPT TEXT
        -- CMD...

Starts CMD on an 80x24 pseudo-terminal (tests/bench/ptydrive.py's screen
model and driver), waits until a row matches the regular expression READY
(the program is up), then until one matches BUSY (the work to type
against has begun: a status bar's "looking up ..."; an empty BUSY does not
wait), sends KEY (literal,
with \\e, \\n escapes) and waits for PROMPT (a prompt is open). Then it
types TEXT one character at a time, GAP-MS (30) apart, and for each waits
until the last row ends with everything typed so far. One line per key:

    key SENT ECHOED

in the system's monotonic clock (the same in every process, so the times
can be laid over another program's log), then Escape closes the prompt
and QUIT (q; with \\e, \\n escapes) quits; the program must exit 0. A step that takes more than LIMIT
(60) seconds ends the run with status 1 and the screen on standard error.
For tests/bench/compose.sh.
"""
import importlib.util
import os
import re
import sys
import time


def load_ptydrive():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "ptydrive", os.path.join(here, "ptydrive.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    args = sys.argv[1:]
    limit, gap, quit = 60, 30, "q"
    while args and args[0] in ("-t", "-g", "-q"):
        opt = args.pop(0)
        if opt == "-t":
            limit = int(args.pop(0))
        elif opt == "-q":
            quit = args.pop(0)
        else:
            gap = int(args.pop(0))
    if len(args) < 7 or args[5] != "--":
        raise SystemExit("usage: typedrive.py [-t LIMIT] [-g GAP-MS] READY "
                         "BUSY KEY PROMPT TEXT -- CMD...")
    ready, busy, key, prompt, text = args[:5]
    pd = load_ptydrive()
    import curses
    curses.setupterm(os.environ.get("TERM", "xterm-256color"),
                     os.open(os.devnull, os.O_WRONLY))
    d = pd.Driver(args[6:], 24, 80, limit)
    d.until(re.compile(ready), False, "ready")
    if busy:
        d.until(re.compile(busy), False, "busy")
    d.send(pd.key_bytes(key))
    d.until(re.compile(prompt), False, "prompt")
    typed = ""
    for ch in text:
        typed += ch
        want = re.compile(re.escape(typed) + r"\s*$")
        t0 = d.send(ch.encode())
        deadline = time.monotonic() + limit
        while True:
            data, t = d.read(deadline - time.monotonic())
            if data is None:
                d.fail("the program ended while typing")
            if t is None:
                d.fail("%r was never echoed" % typed)
            d.screen.feed(data)
            if want.search(d.screen.lines()[-1]):
                break
        print("key %.6f %.6f" % (t0, t), flush=True)
        rest = t0 + gap / 1000.0 - time.monotonic()
        if rest > 0:
            time.sleep(rest)
    d.send(b"\x1b")
    d.quiet()
    d.quit(pd.key_bytes(quit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
