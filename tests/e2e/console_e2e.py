#!/usr/bin/env python3
"""End-to-end test of the browser playground: serves dist/, drives it in headless Chromium
(the system's /usr/bin/chromium; no Playwright browser download) and checks what a user sees.

Usage: python3 tests/e2e/console_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import argparse
import functools
import http.server
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PROMPT = "127.0.0.1:6379>"


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types the page needs (wasm must be application/wasm)."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".css": "text/css",
        ".html": "text/html",
    }

    def log_message(self, *args):
        pass


def serve(directory):
    """Serves `directory` on a free loopback port from a daemon thread; returns (server, base URL)."""
    handler = functools.partial(Handler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


class Suite:
    """Named checks; a failing check is reported and the run goes on."""

    def __init__(self, shots):
        self.passed = 0
        self.failed = 0
        self.shots = shots

    def check(self, name, fn):
        try:
            fn()
            self.passed += 1
            print("ok   %s" % name, flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported the same way
            self.failed += 1
            print("FAIL %s: %s" % (name, e), flush=True)
            traceback.print_exc()


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def wait_until(fn, what, timeout=5.0):
    """Polls `fn` until it returns a truthy value or `timeout` seconds pass."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 - the element may not exist yet
            last = e
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))


class Console:
    """The widget inside `root` (a CSS selector), driven like a user would."""

    def __init__(self, page, root="#redsim"):
        self.page = page
        self.root = root

    def q(self, sel):
        return self.page.locator("%s %s" % (self.root, sel))

    def ready(self):
        self.q(".rs-input").wait_for(state="visible", timeout=15000)

    def run(self, line):
        """Types `line`, presses Enter, and returns the reply lines printed after it."""
        before = self.q(".rs-screen .rs-line").count()
        inp = self.q(".rs-input")
        inp.click()
        inp.fill(line)
        inp.press("Enter")
        wait_until(lambda: self.q(".rs-screen .rs-line").count() > before or line.strip().lower() == "clear",
                   "the console to print '%s'" % line)
        return self.lines()[before + 1:] if line.strip().lower() != "clear" else []

    def lines(self):
        return self.q(".rs-screen .rs-line").all_inner_texts()

    def last_reply(self):
        return self.q(".rs-screen .rs-out").last.inner_text()

    def click(self, action):
        self.q('[data-action="%s"]' % action).click()

    def clock(self):
        return self.q(".rs-clock-time").inner_text()

    def key_names(self):
        return self.q(".rs-key .rs-keyname").all_inner_texts()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--shots", default=os.path.join(ROOT, "target", "e2e"))
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.dist, "index.html")):
        print("no %s/index.html: run `cargo xtask dist` first" % args.dist)
        print("0 passed, 1 failed")
        return 1
    os.makedirs(args.shots, exist_ok=True)
    # The site is served under a sub-path, as a documentation site would host it: every
    # asset must load by a relative path.
    site = tempfile.mkdtemp(prefix="redsim-site-")
    os.makedirs(os.path.join(site, "docs"))
    os.symlink(os.path.abspath(args.dist), os.path.join(site, "docs", "play"))
    server, origin = serve(site)
    base = origin + "docs/play/"
    profile = tempfile.mkdtemp(prefix="redsim-e2e-")
    suite = Suite(args.shots)
    page_errors = []
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                headless=True,
                viewport={"width": 1280, "height": 900},
            )
            try:
                ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin.rstrip("/"))
            except Exception:  # noqa: BLE001 - older Chromium: the Share test accepts either outcome
                pass
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            run_checks(suite, page, base, args.shots, page_errors)
            ctx.close()
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
    print("%d passed, %d failed" % (suite.passed, suite.failed))
    return 0 if suite.failed == 0 else 1


def clock_ms(text):
    """Milliseconds of the clock bar's `h:mm:ss.mmm`."""
    h, m, s = text.split(":")
    return (int(h) * 3600 + int(m) * 60) * 1000 + round(float(s) * 1000)


def shot(page, shots, name):
    page.screenshot(path=os.path.join(shots, name), full_page=True)


def run_checks(suite, page, base, shots, page_errors):
    c = Console(page)

    def loads():
        page.goto(base + "index.html")
        c.ready()
        expect(c.q(".rs-prompt").last.inner_text() == PROMPT, "prompt is %r" % c.q(".rs-prompt").last.inner_text())
        expect(page.evaluate("document.activeElement.classList.contains('rs-input')"), "console input has focus")
    suite.check("page loads and mounts the console", loads)

    def set_get_expire():
        c.click("pause")
        c.q('[data-action="play"]').wait_for(timeout=2000)
        t0 = c.clock()
        expect(c.run("SET a 1 EX 2") == ["OK"], "SET replies OK")
        expect(c.run("GET a") == ['"1"'], "GET a replies \"1\"")
        keys = c.key_names()
        expect("a" in keys, "keyspace lists a (%r)" % keys)
        ttl = c.q('.rs-key[data-key="a"] .rs-ttl-text').inner_text()
        expect(ttl == "2.0s", "TTL shown as 2.0s, got %r" % ttl)
        expect(c.q('.rs-key[data-key="a"] .rs-type').inner_text().lower() == "string", "type string")
        shot(page, shots, "01-set-get.png")
        for _ in range(3):
            c.click("step-1s")
        wait_until(lambda: clock_ms(c.clock()) - clock_ms(t0) == 3000, "the clock to show +3 s (%s)" % t0)
        expect(c.run("GET a") == ["(nil)"], "GET a after 3 s is (nil)")
        wait_until(lambda: "a" not in c.key_names(), "a to leave the keyspace")
    suite.check("SET a 1 EX 2, GET a, step 3 s, GET a is (nil)", set_get_expire)

    def timeline_marks():
        cmds = c.q(".rs-tl-mark.rs-m-cmd").count()
        expiries = c.q(".rs-tl-mark.rs-m-active").count() + c.q(".rs-tl-mark.rs-m-lazy").count()
        steps = c.q(".rs-tl-mark.rs-m-step").count()
        expect(cmds >= 3, "at least 3 command marks, got %d" % cmds)
        expect(expiries >= 1, "an expiry mark, got %d" % expiries)
        expect(steps == 3, "3 clock-step marks, got %d" % steps)
        title = c.q(".rs-tl-mark.rs-m-active title, .rs-tl-mark.rs-m-lazy title").first.text_content()
        expect('"a"' in title and "expired" in title, "expiry mark names the key: %r" % title)
        legend = c.q(".rs-legend").inner_text()
        expect("lazy expiry" in legend and "active expiry" in legend, "legend tells lazy from active")
        shot(page, shots, "02-expired-timeline.png")
    suite.check("timeline has command, expiry and step marks with a legend", timeline_marks)

    def lazy_expiry():
        c.run("CONFIG SET hz 1")
        c.run("SET lazy v PX 100")
        c.click("step-100ms")
        c.click("step-100ms")
        expect(c.q('.rs-key-expired[data-key="lazy"]').count() == 1,
               "key shown as expired but not reclaimed: %r" % c.q(".rs-keylist").inner_text())
        shot(page, shots, "03-expired-pending.png")
        expect(c.run("GET lazy") == ["(nil)"], "GET lazy is (nil)")
        wait_until(lambda: c.q(".rs-tl-mark.rs-m-lazy").count() >= 1, "a lazy expiry mark")
        c.run("CONFIG SET hz 10")
    suite.check("expired-but-not-reclaimed key, then a lazy expiry mark", lazy_expiry)

    def help_output():
        out = "\n".join(c.run("HELP SET"))
        expect(re.search(r"^\s+SET key value", out, re.M), "syntax line: %r" % out)
        expect("summary:" in out and "since:" in out and "group: string" in out, "summary/since/group: %r" % out)
        usage = "\n".join(c.run("HELP"))
        expect('"help <command>"' in usage and "@string" in usage, "usage text: %r" % usage)
        shot(page, shots, "04-help.png")
    suite.check("HELP <command> and HELP", help_output)

    def hints_history_prompt():
        inp = c.q(".rs-input")
        inp.fill("SET k")
        hint = wait_until(lambda: c.q(".rs-hint").inner_text(), "a hint")
        expect(hint.startswith(" value"), "hint after 'SET k' is %r" % hint)
        shot(page, shots, "04b-hint.png")
        inp.fill("")
        inp.press("ArrowUp")
        expect(inp.input_value() == "HELP", "Up recalls HELP, got %r" % inp.input_value())
        inp.press("ArrowUp")
        expect(inp.input_value() == "HELP SET", "Up again recalls HELP SET, got %r" % inp.input_value())
        inp.press("ArrowDown")
        inp.press("ArrowDown")
        expect(inp.input_value() == "", "Down returns to the empty draft")
        expect(c.run("SELECT 2") == ["OK"], "SELECT 2")
        expect(c.q(".rs-inputline .rs-prompt").inner_text() == "127.0.0.1:6379[2]>", "prompt shows [2]")
        c.run("SELECT 0")
        c.run("CLEAR")
        expect(c.q(".rs-screen .rs-line").count() == 0, "CLEAR empties the screen")
        expect(c.run("ECHO 'still here'") == ['"still here"'], "console works after CLEAR")
    suite.check("hints, history, SELECT prompt, CLEAR", hints_history_prompt)

    def real_time_expiry():
        c.click("play")
        c.q('[data-action="pause"]').wait_for(timeout=2000)
        start = time.time()
        expect(c.run("SET rt x PX 1500") == ["OK"], "SET rt")
        listed = "rt" in c.key_names()
        expect(listed or time.time() - start > 1.4, "rt listed while it lives")
        wait_until(lambda: "rt" not in c.key_names(), "rt to expire in real time", timeout=10)
        expect(time.time() - start >= 1.4, "rt lived about 1.5 s of wall time")
        expect(c.run("GET rt") == ["(nil)"], "GET rt is (nil)")
    suite.check("real-time clock expires a key", real_time_expiry)

    url_cmds = "index.html?clock=paused&seed=9&cmd=SET%20u%20hello&cmd=GET%20u"

    def url_commands():
        page.goto(base + url_cmds)
        c.ready()
        lines = c.lines()
        expect("%s SET u hello" % PROMPT in lines, "SET u hello shown as typed: %r" % lines)
        expect("%s GET u" % PROMPT in lines and '"hello"' in lines, "GET u shown with its reply: %r" % lines)
        expect(c.q('[data-action="play"]').count() == 1, "clock=paused starts paused")
        shot(page, shots, "05-url-commands.png")
        page.goto(base + "index.html#cmd=ECHO%20%22from%20the%20fragment%22")
        c.ready()
        expect(c.lines()[-1] == '"from the fragment"', "#cmd=… runs too: %r" % c.lines())
        page.goto(base + url_cmds)  # the next checks continue this session
        c.ready()
    suite.check("?cmd=… and #cmd=… run commands on load", url_commands)

    def share():
        c.run("INCR n")
        c.click("share")
        link = c.q(".rs-share-link").input_value()
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
        expect(q.get("cmd") == ["SET u hello", "GET u", "INCR n"], "share link commands: %r" % link)
        expect(q.get("seed") == ["9"], "share link keeps the seed: %r" % link)
        status = wait_until(lambda: c.q(".rs-share-status").inner_text() != "Copying…" and c.q(".rs-share-status").inner_text(),
                            "the clipboard answer")
        expect("link" in status.lower(), "status: %r" % status)
        page.goto(link)
        c.ready()
        expect(c.lines()[-1] == "(integer) 1", "the link replays INCR n: %r" % c.lines())
    suite.check("Share link reproduces the session", share)

    def panic_and_reset():
        c.run("SET before crash")
        page_errors.clear()
        inp = c.q(".rs-input")
        inp.fill("DEBUG PANIC")
        inp.press("Enter")
        c.q(".rs-crash").wait_for(state="visible", timeout=5000)
        msg = c.q(".rs-crash-msg").inner_text()
        expect("DEBUG PANIC" in msg, "overlay shows the error: %r" % msg)
        shot(page, shots, "06-crash-overlay.png")
        c.q(".rs-crash-reset").click()
        wait_until(lambda: c.q(".rs-crash").count() == 0 and c.q(".rs-input").count() == 1, "a fresh widget")
        c.ready()
        lines = c.lines()
        expect('"hello"' in lines, "the reset widget replays the URL commands: %r" % lines)
        expect(c.run("PING") == ["PONG"], "console answers after reset")
        expect(c.run("GET before") == ["(nil)"], "the new engine starts afresh")
        time.sleep(0.3)
        # The deliberate panic surfaces once as a wasm trap ("unreachable"); anything else is a bug.
        crash = [e for e in page_errors if "unreachable" in e.lower()]
        late = [e for e in page_errors if e not in crash]
        expect(len(crash) <= 1, "the dead instance keeps failing: %r" % crash)
        expect(not late, "no other errors after reset: %r" % late)
        page_errors.clear()
    suite.check("DEBUG PANIC shows the overlay, Reset brings back a working console", panic_and_reset)

    def embed_page():
        page.goto(base + "embed.html")
        page.locator(".rs-widget").nth(1).wait_for(timeout=15000)
        shot(page, shots, "07-embed.png")
        expect(page.locator(".rs-widget").count() == 2, "two widgets")
        w1 = page.locator("[data-redsim]").nth(0).locator(".rs-out").all_inner_texts()
        w2 = page.locator("[data-redsim]").nth(1).locator(".rs-out").all_inner_texts()
        expect(w1 == ["OK", "(integer) 10"], "first widget ran its commands: %r" % w1)
        expect(w2 == ["OK", '"10"'], "second widget ran its commands: %r" % w2)
        second = page.locator("[data-redsim]").nth(1)
        expect(second.locator('[data-action="play"]').count() == 1, "second widget starts paused")
    suite.check("embedding page mounts two independent widgets", embed_page)

    def narrow_layout():
        page.set_viewport_size({"width": 480, "height": 900})
        page.goto(base + "index.html?cmd=SET%20k%20v%20EX%2060")
        c.ready()
        console = c.q(".rs-console").bounding_box()
        keys = c.q(".rs-keys").bounding_box()
        expect(keys["y"] >= console["y"] + console["height"] - 1, "keyspace stacks under the console")
        expect(keys["width"] > 300, "keyspace takes the full width: %r" % keys)
        shot(page, shots, "08-narrow.png")
        page.set_viewport_size({"width": 1280, "height": 900})
    suite.check("narrow screens stack the panels", narrow_layout)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
    suite.check("no uncaught page errors", no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
