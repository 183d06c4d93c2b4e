#!/usr/bin/env python3
"""End-to-end test of the browser playground: serves dist/, drives it in headless Chromium
(the system's /usr/bin/chromium; no Playwright browser download) and checks what a user sees.

Usage: python3 tests/e2e/console_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import argparse
import base64
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
import types
import urllib.parse
import zlib

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
# Notes, from a page's first byte: when the first console widget was added, whether the loader
# held the page (`rs-hold` on <html>), whether the loading note was ever on screen unheld, and the
# first contentful paint.
PAINT_PROBE = """
window.__rsPaint = { widget: null, held: false, loadingSeen: false, fcp: null };
new MutationObserver(() => {
  const n = window.__rsPaint;
  const root = document.documentElement;
  if (root.classList.contains('rs-hold')) n.held = true;
  if (n.widget === null && document.querySelector('.rs-widget')) n.widget = performance.now();
  if (n.held && n.widget === null && !root.classList.contains('rs-hold') && document.querySelector('#redsim > .rs-loading'))
    n.loadingSeen = true;
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__rsPaint.fcp = e.startTime;
}).observe({ type: 'paint', buffered: true });
"""


def shared_session(link):
    """The lines a Share link packs into its fragment (`#s=`: raw deflate, base64url)."""
    frag = urllib.parse.parse_qs(urllib.parse.urlsplit(link).fragment)
    packed = frag["s"][0]
    raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
    return zlib.decompress(raw, -15).decode().splitlines()


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


class StrictHandler(Handler):
    """The same files under the Content-Security-Policy strict documentation sites use."""

    CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'"

    def end_headers(self):
        self.send_header("Content-Security-Policy", self.CSP)
        super().end_headers()


class Server(http.server.ThreadingHTTPServer):
    """A browser closed while a file was still being sent (a test's page is done with it) is
    not an error worth a traceback; anything else still prints one."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def serve(directory, strict=False):
    """Serves `directory` on a free loopback port from a daemon thread; returns (server, base URL).
    `strict` adds a strict Content-Security-Policy header to every response."""
    handler = functools.partial(StrictHandler if strict else Handler, directory=directory)
    server = Server(("127.0.0.1", 0), handler)
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


def address(page):
    """The page's address as the page itself reads it. Playwright's `page.url` follows
    same-document moves (pushState, replaceState) only as its event loop handles their events,
    which a Python loop polling it never lets happen: the page is the one to ask."""
    return page.evaluate("location.href")


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

    def ready(self, chart=True):
        """Waits for the console, and for its timeline's chart unless `chart` is false: the first
        frame holds the chart's empty box, which the chart fills once that frame is up and the
        console module's rest has come."""
        try:
            self.q(".rs-input").wait_for(state="visible", timeout=15000)
            # Polled from here: `wait_for_function` polls with an eval, which a page under a
            # strict Content-Security-Policy refuses once the first try is false.
            expr = ("!!document.querySelector('.rs-widget') && !(%s && document.querySelector('[data-pending]'))"
                    % ("true" if chart else "false"))
            wait_until(lambda: self.page.evaluate(expr), "the console's first frame%s" % (
                " and its chart" if chart else ""), timeout=15)
        except Exception:
            # What a reader would see, and why the prompt is not visible: a client that waits
            # hides its input line (`.rs-locked`), the hold hides the page (`rs-hold`).
            print("console not ready:", self.page.url, self.page.evaluate(
                "[document.documentElement.className, document.visibilityState,"
                " (document.querySelector('#redsim') || document.body).innerHTML.slice(0, 300),"
                " [...document.querySelectorAll('[hidden]')].map(e => e.className),"
                " [...document.querySelectorAll('.rs-inputline')].map(e => e.className + ' '"
                " + JSON.stringify(e.getBoundingClientRect())),"
                " [...document.querySelectorAll('.rs-wait-text, .rs-load-error, .rs-crash')].map(e => e.textContent),"
                " [...document.querySelectorAll('.rs-screen')].map(e => e.innerText.slice(-300))]"))
            path = os.path.join(ROOT, "target", "e2e", "console-not-ready.png")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.page.screenshot(path=path, full_page=True)
            print("console not ready: screenshot in", path)
            raise

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

    def set_clock(self, action, then):
        """Clicks the clock's `action` ("play" or "pause") and waits for its button to offer `then`."""
        self.click(action)
        self.q('[data-action="%s"]' % then).wait_for(timeout=2000)

    def key_names(self):
        return self.q(".rs-key .rs-keyname").all_inner_texts()


# The two sizes every view is checked at: a laptop and a phone.
SIZES = [("desktop", {"width": 1440, "height": 900}), ("phone", {"width": 390, "height": 844})]


def run_at_sizes(name, checks, **kwargs):
    """`run_site_suite` once per size of SIZES, `checks(run, label)` each time; the worst
    exit status."""
    return max(run_site_suite(name + "-" + label, viewport,
                              lambda run, label=label: checks(run, label), **kwargs)
               for label, viewport in SIZES)


def run_site_suite(name, viewport, checks, timeout_ms=8000, on_context=None, strict=False):
    """The shared frame of every page test: parses --dist/--shots, serves dist/ under a sub-path
    (as a documentation site would host it: every asset must load by a relative path), opens a
    fresh Chromium profile, calls `checks(run)` with the suite, context, page, URLs and the page's
    uncaught errors, cleans up, prints "N passed, M failed" and returns the exit code."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--shots", default=os.path.join(ROOT, "target", "e2e"))
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.dist, "index.html")):
        print("no %s/index.html: run `cargo xtask dist` first" % args.dist)
        print("0 passed, 1 failed")
        return 1
    os.makedirs(args.shots, exist_ok=True)
    site = tempfile.mkdtemp(prefix="%s-site-" % name)
    os.makedirs(os.path.join(site, "docs"))
    os.symlink(os.path.abspath(args.dist), os.path.join(site, "docs", "play"))
    server, origin = serve(site, strict)
    profile = tempfile.mkdtemp(prefix="%s-e2e-" % name)
    run = types.SimpleNamespace(
        suite=Suite(args.shots),
        origin=origin,
        base=origin + "docs/play/",
        site=site,
        shots=args.shots,
        page_errors=[],
    )
    try:
        with sync_playwright() as p:
            run.ctx = p.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                headless=True,
                viewport=viewport,
            )
            if on_context:
                on_context(run)
            run.page = run.ctx.pages[0] if run.ctx.pages else run.ctx.new_page()
            run.page.on("pageerror", lambda e: run.page_errors.append(str(e)))
            if timeout_ms:
                run.page.set_default_timeout(timeout_ms)
            checks(run)
            run.ctx.close()
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
    print("%d passed, %d failed" % (run.suite.passed, run.suite.failed))
    return 0 if run.suite.failed == 0 else 1


def grant_clipboard(run):
    try:
        run.ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=run.origin.rstrip("/"))
    except Exception:  # noqa: BLE001 - older Chromium: the Share test accepts either outcome
        pass


def main():
    return run_site_suite(
        "redsim",
        {"width": 1280, "height": 900},
        lambda r: run_checks(r.suite, r.page, r.base, r.shots, r.page_errors),
        timeout_ms=None,
        on_context=grant_clipboard,
    )


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
        # Focused once the first frame is drawn (focusing lays the page out).
        wait_until(lambda: page.evaluate("document.activeElement.classList.contains('rs-input')"),
                   "the console input to have focus")
    suite.check("page loads and mounts the console", loads)

    def set_get_expire():
        c.set_clock("pause", then="play")
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
        # Marks of one instant are drawn as one, with their count.
        cmds = sum(int(n) for n in c.q(".rs-tl-mark.rs-m-cmd").evaluate_all("ms => ms.map(m => m.dataset.count)"))
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
        for _ in range(2):
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
        c.set_clock("play", then="pause")
        start = time.time()
        expect(c.run("SET rt x PX 1500") == ["OK"], "SET rt")
        listed = "rt" in c.key_names()
        expect(listed or time.time() - start > 1.4, "rt listed while it lives")
        wait_until(lambda: "rt" not in c.key_names(), "rt to expire in real time", timeout=10)
        expect(time.time() - start >= 1.4, "rt lived about 1.5 s of wall time")
        expect(c.run("GET rt") == ["(nil)"], "GET rt is (nil)")
    suite.check("real-time clock expires a key", real_time_expiry)

    def focused_row_kept_while_its_ttl_counts():
        # While the same keys are listed, their rows are patched in place as the TTLs count
        # down, not drawn anew: a row the reader has tabbed to (to open it with Enter) keeps
        # the focus.
        if c.q('[data-action="play"]').count():
            c.set_clock("play", then="pause")
        expect(c.run("SET focus:row v EX 50") == ["OK"], "SET focus:row")
        row = c.q('.rs-key[data-key="focus:row"]')
        row.focus()
        row.evaluate("e => { e.dataset.kept = 'yes'; }")
        first = row.locator(".rs-ttl-text").inner_text()
        wait_until(lambda: row.locator(".rs-ttl-text").inner_text() != first,
                   "the TTL to count down from %s" % first, timeout=6)
        focused = page.evaluate("() => { const a = document.activeElement;"
                                " return a ? [a.dataset.key || a.tagName, a.dataset.kept || ''] : null; }")
        expect(focused == ["focus:row", "yes"], "the row drawn first keeps the focus: %r" % (focused,))
        c.run("DEL focus:row")
    suite.check("a focused keyspace row keeps the focus while its TTL counts down", focused_row_kept_while_its_ttl_counts)

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

    def drawn_once(path, route=None):
        """Loads `path` in a fresh tab that notes when its first console was added, whether the
        page was held, and its first contentful paint; `route` may hold the console's wasm back.
        Returns those notes."""
        tab = page.context.new_page()
        tab.add_init_script(PAINT_PROBE)
        if route:
            tab.route("**/redsim-web_bg.wasm", route)
        try:
            tab.goto(base + path)
            tab.locator(".rs-input").first.wait_for(state="visible", timeout=15000)
            tab.wait_for_function("window.__rsPaint.fcp !== null", timeout=10000)
            return tab.evaluate("window.__rsPaint")
        finally:
            tab.close()

    def first_paint_held():
        # The playground page is drawn once, with its console: nothing, not even the loading
        # note, is painted before the console is there.
        n = drawn_once("index.html?cmd=PING")
        expect(n["held"], "the loader held the page: %r" % n)
        expect(n["widget"] is not None and n["fcp"] >= n["widget"], "first paint after the console: %r" % n)
        expect(n["loadingSeen"] is False, "the loading note was never painted: %r" % n)
        # A slow console module does not keep the page blank: the page and its loading note
        # show after the hold's 300 ms, long before the console.
        def slow(route):
            time.sleep(1.5)
            route.continue_()
        n = drawn_once("index.html?cmd=PING", route=slow)
        expect(n["held"] and n["fcp"] < 1200, "a slow module: drawn after the hold, not later: %r" % n)
        expect(n["widget"] is not None and n["fcp"] < n["widget"], "drawn before the console: %r" % n)
        expect(n["loadingSeen"] is True, "the loading note was painted: %r" % n)
        # A documentation page is never held: the widget must not hide the page's own text.
        n = drawn_once("embed.html")
        expect(not n["held"], "embed.html was held: %r" % n)
    suite.check("the playground is drawn once, with its console; a slow module or a docs page is not held",
                first_paint_held)

    # In the frame that first shows a reply: whether the timeline is still its empty box, and
    # its size; the same once the chart has drawn.
    CHART_PROBE = """
    window.__rsChart = [];
    const box = () => { const t = document.querySelector('.rs-timeline'); const r = t.getBoundingClientRect();
      return [t.getAttribute('data-pending'), r.top, r.height, document.querySelectorAll('.rs-timeline .rs-tl-mark').length]; };
    window.__rsChartBox = box;
    new MutationObserver((_, seen) => {
      if (document.querySelector('.rs-screen .rs-out')) { seen.disconnect(); requestAnimationFrame(() => window.__rsChart.push(box())); }
    }).observe(document, { subtree: true, childList: true });
    """

    def chart_after_first_frame():
        # The first frame shows the reply and the timeline's box at its full size, empty; the
        # chart fills it on the next one, and nothing around it moves.
        for path in ["index.html?cmd=PING", "index.html?cmd=SET%20a%201%20EX%205&cmd=BLPOP%20q%200&cmd=@2%20RPUSH%20q%20x"]:
            tab = page.context.new_page()
            tab.add_init_script(CHART_PROBE)
            try:
                tab.goto(base + path)
                tab.wait_for_function("window.__rsChart.length > 0 && !document.querySelector('[data-pending]')", timeout=15000)
                first = tab.evaluate("window.__rsChart[0]")
                later = tab.evaluate("window.__rsChartBox()")
            finally:
                tab.close()
            expect(first[0] == "chart" and first[3] == 0, "%s: the first frame holds the chart's empty box: %r" % (path, first))
            expect(later[0] is None and later[3] >= 1, "%s: the chart drew its marks: %r" % (path, later))
            expect(abs(first[1] - later[1]) < 0.5 and abs(first[2] - later[2]) < 0.5,
                   "%s: the timeline kept its place and size: %r then %r" % (path, first, later))
    suite.check("the timeline's chart fills its box in the frame after the first reply; nothing moves",
                chart_after_first_frame)

    def screen_opens_at_its_end():
        # A session longer than the screen opens on its last line, a short one at the top.
        many = "&".join("cmd=ECHO%%20line%d" % i for i in range(40))
        page.goto(base + "index.html?clock=paused&" + many)
        c.ready()
        box = c.q(".rs-screen").bounding_box()
        last = c.q(".rs-screen .rs-out").last.bounding_box()
        first = c.q(".rs-screen .rs-line").first.bounding_box()
        expect(box["y"] <= last["y"] and last["y"] + last["height"] <= box["y"] + box["height"] + 1,
               "the last reply is in view: %r %r" % (box, last))
        expect(first["y"] + first["height"] < box["y"], "the first line is scrolled away: %r %r" % (box, first))
        page.goto(base + url_cmds)
        c.ready()
        box = c.q(".rs-screen").bounding_box()
        first = c.q(".rs-screen .rs-line").first.bounding_box()
        expect(0 <= first["y"] - box["y"] < 30, "a short session starts at the top: %r %r" % (box, first))
    suite.check("the console opens on its last line; a short session sits at the top", screen_opens_at_its_end)

    def share():
        c.run("INCR n")
        c.click("share")
        link = c.q(".rs-share-link").input_value()
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
        expect(shared_session(link) == ["SET u hello", "GET u", "INCR n"], "share link commands: %r" % link)
        expect(q.get("seed") == ["9"], "share link keeps the seed: %r" % link)
        status = wait_until(lambda: c.q(".rs-share-status").inner_text() != "Copying…" and c.q(".rs-share-status").inner_text(),
                            "the clipboard answer")
        expect("link" in status.lower(), "status: %r" % status)
        page.goto(link)
        c.ready()
        expect(c.lines()[-1] == "(integer) 1", "the link replays INCR n: %r" % c.lines())
    suite.check("Share link reproduces the session", share)

    def export():
        c.run("@2 GET u")
        with page.expect_download(timeout=5000) as dl:
            c.click("export")
        d = dl.value
        expect(d.suggested_filename == "session.redis", "file name: %r" % d.suggested_filename)
        with open(d.path(), encoding="utf-8") as f:
            text = f.read()
        commands = [l for l in text.splitlines() if l and not l.startswith("#")]
        expect(commands[-2:] == ["INCR n", "@2 GET u"], "the exported commands: %r" % text)
        expect("redsim replay" in text, "the export says how to replay it: %r" % text)
    suite.check("Export downloads the session as a replay script", export)

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

    def memory_budget():
        oom = "(error) OOM command not allowed when used memory > 'redsim-memory-budget'."
        for _ in range(3):
            expect(c.run("SETRANGE big 536870000 x") == [oom], "a 512 MB SETRANGE is refused: %r" % c.lines()[-1:])
        expect(c.run("SETBIT bits 4000000000 1") == [oom], "a 500 MB SETBIT is refused")
        expect(c.run("PING") == ["PONG"], "the console answers after the refusals")
        info = "\n".join(c.run("INFO memory"))
        expect("redsim_memory_budget:268435456" in info, "INFO shows the page's budget: %r" % info[-400:])
        expect(c.q(".rs-crash").count() == 0, "no crash overlay")
    suite.check("a write past the page's memory budget gets OOM and the page stays usable", memory_budget)

    def trap_overlay():
        page_errors.clear()
        page.evaluate("setTimeout(() => { throw new WebAssembly.RuntimeError('unreachable') }, 0)")
        c.q(".rs-crash").wait_for(state="visible", timeout=5000)
        msg = c.q(".rs-crash-msg").inner_text()
        expect("unreachable" in msg, "the overlay names the trap: %r" % msg)
        c.q(".rs-crash-reset").click()
        wait_until(lambda: c.q(".rs-crash").count() == 0 and c.q(".rs-input").count() == 1, "a fresh widget")
        c.ready()
        expect(c.run("PING") == ["PONG"], "console answers after reset")
        page_errors.clear()
    suite.check("a wasm trap that is not a panic also shows the overlay, and Reset works", trap_overlay)

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

    def zset_skiplist_picture():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        c.run("ZADD z " + " ".join("%d m%03d" % (i, i) for i in range(128)))
        note = c.run("INSPECT z")
        expect(note and "Inspecting" in note[0], "INSPECT prints a note: %r" % note)
        insp = c.q(".rs-inspector")
        insp.wait_for(timeout=3000)
        expect(c.q(".rs-insp-enc").inner_text() == "listpack", "128 members: listpack")
        num = c.q('.rs-gauge[data-param="zset-max-listpack-entries"] .rs-g-num').inner_text()
        expect(num == "128 / 128", "entries gauge at the limit: %r" % num)
        expect(c.q(".rs-inspector .rs-pairs tbody tr").count() == 33, "32 pairs and a '+ more' row")
        expect(c.run("ZADD z 500 m128") == ["(integer) 1"], "the 129th member")
        wait_until(lambda: c.q(".rs-insp-enc").inner_text() == "skiplist", "the inspector to show the skiplist")
        conv = c.q(".rs-conv-new").inner_text()
        expect("converted from listpack to skiplist by ZADD: 129 members > zset-max-listpack-entries 128" in conv,
               "conversion note: %r" % conv)
        expect(c.q(".rs-sl").count() == 1, "a skiplist picture")
        ranks = c.q(".rs-sl-col[data-rank]").count()
        expect(ranks == 32, "32 nodes drawn, got %d" % ranks)
        more = c.q(".rs-sl-more").text_content()
        expect("+97" in more and "tail #129" in more, "the rest is summarised: %r" % more)
        links = c.q(".rs-sl-link").count()
        expect(links > 33, "one arrow per level of each drawn node and the header, got %d" % links)
        first = c.q('.rs-sl-col[data-rank="1"]').text_content()
        expect("m000" in first, "member under its node: %r" % first)
        span_labels = c.q(".rs-sl-link:not(.rs-sl-l0) text").all_text_contents()
        expect(span_labels and all(t.isdigit() for t in span_labels) and any(int(t) > 1 for t in span_labels),
               "upper levels are labelled with spans > 1: %r" % span_labels[:10])
        c.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "09-zset-skiplist.png")
    suite.check("a sorted set past 128 members is drawn as a skiplist, with the conversion noted", zset_skiplist_picture)

    def hash_conversion_note():
        c.run("CONFIG SET hash-max-listpack-entries 128")
        c.run("HSET h " + " ".join("f%d v%d" % (i, i) for i in range(128)))
        c.q('.rs-key[data-key="h"]').click()
        wait_until(lambda: c.q(".rs-insp-key").inner_text() == "h", "a click on the key to inspect it")
        expect(c.q(".rs-conv").count() == 0, "no conversion yet")
        gauge = c.q('.rs-gauge[data-param="hash-max-listpack-entries"]')
        expect(gauge.locator(".rs-g-num").inner_text() == "128 / 128", "gauge full: %r" % gauge.inner_text())
        expect("rs-g-near" in gauge.get_attribute("class"), "gauge marked close to the limit")
        expect("rs-key-sel" in c.q('.rs-key[data-key="h"]').get_attribute("class"), "the key is highlighted")
        shot(page, shots, "10a-hash-listpack.png")
        expect(c.run("HSET h f128 v128") == ["(integer) 1"], "the 129th field")
        wait_until(lambda: c.q(".rs-conv-new").count() == 1, "a conversion note")
        conv = c.q(".rs-conv-new .rs-conv-text").inner_text()
        expect(conv == "converted from listpack to hashtable by HSET: 129 fields > hash-max-listpack-entries 128",
               "note: %r" % conv)
        expect(c.q(".rs-insp-enc").inner_text() == "hashtable", "now a hashtable")
        expect("rs-g-passed" in gauge.get_attribute("class"), "the gauge shows the limit was passed")
        c.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "10b-hash-converted.png")
    suite.check("HSET past hash-max-listpack-entries shows the conversion note", hash_conversion_note)

    def hll_histogram():
        c.run("PFADD visitors " + " ".join("user:%d" % i for i in range(300)))
        c.run("INSPECT visitors")
        wait_until(lambda: c.q(".rs-insp-key").inner_text() == "visitors", "the HLL in the inspector")
        expect(c.q(".rs-inspector .rs-type").inner_text().lower() == "hll", "shown as an HLL")
        expect(c.q(".rs-insp-enc").inner_text() == "sparse", "300 elements: still sparse")
        expect(c.q(".rs-hll-svg").count() == 1, "a histogram")
        bars = c.q(".rs-hll-bar").count()
        expect(bars >= 16, "bars for register values, got %d" % bars)
        zero = c.q('.rs-hll-bar[data-value="0"] title').text_content()
        expect(re.match(r"value 0: \d+ registers", zero), "bar title: %r" % zero)
        n0 = int(zero.split(": ")[1].split()[0])
        expect(16384 - 300 <= n0 < 16384, "registers still at 0: %d" % n0)
        facts = c.q(".rs-facts").inner_text()
        expect("stale" in facts, "cached cardinality stale after PFADD: %r" % facts)
        est = int(re.search(r"estimate now\s+(\d+)", facts).group(1))
        expect(abs(est - 300) <= 15, "estimate near 300: %d" % est)
        c.run("PFCOUNT visitors")
        wait_until(lambda: "stale" not in c.q(".rs-facts").inner_text(), "PFCOUNT to fill the cache")
        c.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "11-hll.png")
    suite.check("PFADD shows the register histogram", hll_histogram)

    def list_and_set_conversions():
        c.run("CONFIG SET list-max-listpack-size 4")
        c.run("RPUSH l a b c d")
        c.run("INSPECT l")
        wait_until(lambda: c.q(".rs-insp-enc").inner_text() == "listpack", "the list as a listpack")
        expect(c.q(".rs-qn").count() == 1, "a listpack is one node")
        c.run("RPUSH l e f g h i j")
        wait_until(lambda: c.q(".rs-insp-enc").inner_text() == "quicklist", "the quicklist")
        counts = c.q(".rs-qn .rs-qn-count").all_inner_texts()
        expect(counts == ["4", "4", "2"], "entries per node: %r" % counts)
        conv = c.q(".rs-conv-new .rs-conv-text").inner_text()
        expect(conv.startswith("converted from listpack to quicklist by RPUSH: ")
               and "10 entries > list-max-listpack-size 4" in conv, "note: %r" % conv)
        c.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "11b-quicklist.png")
        c.run("SADD s 1 2 3")
        c.run("INSPECT s")
        wait_until(lambda: c.q(".rs-insp-enc").inner_text() == "intset", "an intset")
        c.run("SADD s hello")
        wait_until(lambda: c.q(".rs-insp-enc").inner_text() == "listpack", "a listpack set")
        conv = c.q(".rs-conv-new .rs-conv-text").inner_text()
        expect(conv == "converted from intset to listpack by SADD: a member that is not an integer", "note: %r" % conv)
        members = c.q(".rs-inspector .rs-elem").all_inner_texts()
        expect(members == ["1", "2", "3", "hello"], "members: %r" % members)
        c.click("close-inspector")
        wait_until(lambda: c.q(".rs-inspector").count() == 0, "the inspector to close")
        c.run("CONFIG SET list-max-listpack-size -2")
    suite.check("list and set conversions: quicklist nodes, intset to listpack", list_and_set_conversions)

    def stream_groups():
        for i in range(1, 4):
            c.run("XADD events %d-0 type click n %d" % (i, i))
        expect(c.run("XGROUP CREATE events workers 0") == ["OK"], "group created")
        c.run("XREADGROUP GROUP workers alice COUNT 2 STREAMS events >")
        c.run("XREADGROUP GROUP workers bob COUNT 1 STREAMS events >")
        expect(c.run("XACK events workers 1-0") == ["(integer) 1"], "one entry acknowledged")
        c.run("INSPECT events")
        wait_until(lambda: c.q(".rs-insp-key").inner_text() == "events", "the stream in the inspector")
        expect(c.q(".rs-insp-enc").inner_text() == "stream", "stream encoding")
        ids = [e.get_attribute("data-id") for e in c.q(".rs-stream-entries tr[data-id]").all()]
        expect(ids == ["1-0", "2-0", "3-0"], "entries with their IDs: %r" % ids)
        group = c.q('.rs-group[data-group="workers"]')
        expect(group.locator(".rs-group-last").inner_text() == "3-0", "last-delivered ID")
        alice = group.locator('.rs-consumer[data-consumer="alice"] .rs-elem').all_inner_texts()
        bob = group.locator('.rs-consumer[data-consumer="bob"] .rs-elem').all_inner_texts()
        expect(alice == ["2-0"] and bob == ["3-0"], "PELs: alice %r, bob %r" % (alice, bob))
        c.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "11c-stream.png")
        c.click("close-inspector")
    suite.check("a stream shows its entries, groups' last-delivered IDs and consumers' PELs", stream_groups)

    def blocking_two_clients():
        c.run("CLEAR")
        expect(c.run("BLPOP jobs 0") == [], "BLPOP prints no reply yet")
        c.q(".rs-waitline").wait_for(timeout=2000)
        expect("no timeout" in c.q(".rs-waitline").inner_text(), "waits without timeout")
        expect(c.q(".rs-input").get_attribute("readonly") is not None, "input locked while waiting")
        expect(c.q('.rs-tab[data-client="1"].rs-tab-waiting').count() == 1, "tab 1 marked waiting")
        shot(page, shots, "12a-blpop-waiting.png")
        c.click("add-client")
        wait_until(lambda: c.q(".rs-tab").count() == 2, "a second client tab")
        expect("rs-on" in c.q('.rs-tab[data-client="2"]').get_attribute("class"), "tab 2 active")
        expect(c.q(".rs-waitline").count() == 0, "client 2 is not waiting")
        expect(c.run("LPUSH jobs hello") == ["(integer) 1"], "LPUSH in client 2")
        badge = wait_until(lambda: c.q('.rs-tab[data-client="1"] .rs-tab-badge').inner_text(), "an unread badge on tab 1")
        expect(badge == "1", "one new reply: %r" % badge)
        expect(c.q('.rs-tab[data-client="1"].rs-tab-waiting').count() == 0, "tab 1 no longer waiting")
        shot(page, shots, "12b-lpush-client2.png")
        c.q('.rs-tab[data-client="1"] .rs-tab-main').click()
        lines = c.lines()
        expect(lines[-2:] == ['1) "jobs"', '2) "hello"'] or lines[-1] == '1) "jobs"\n2) "hello"',
               "client 1 woke with the element: %r" % lines[-3:])
        expect(c.q(".rs-waitline").count() == 0 and c.q(".rs-input").get_attribute("readonly") is None,
               "client 1 can type again")
        expect(page.evaluate("document.activeElement.classList.contains('rs-input')"), "input focused after switching")
        wait_until(lambda: c.q(".rs-tl-wait").count() >= 1, "a wait bar on the timeline")
        title = c.q(".rs-tl-wait title").first.text_content()
        expect("client 1" in title and "served" in title, "wait bar title: %r" % title)
        expect(c.q(".rs-tl-mark.rs-who-2").count() >= 1, "client 2's command coloured apart")
        legend = c.q(".rs-legend").inner_text()
        expect("client 2" in legend, "legend names the clients: %r" % legend)
        shot(page, shots, "12c-client1-woke.png")
    suite.check("BLPOP in client 1 waits, LPUSH in client 2 wakes it", blocking_two_clients)

    def blocking_timeout():
        t0 = clock_ms(c.clock())
        expect(c.run("BLPOP nothing 1") == [], "BLPOP waits")
        text = c.q(".rs-waitline").inner_text()
        expect("in 1.0 s" in text, "deadline shown: %r" % text)
        c.click("step-1s")
        wait_until(lambda: clock_ms(c.clock()) - t0 == 1000, "the clock to step 1 s")
        # Redis times a client out once its deadline (now + 1000 ms) is strictly past
        # (`timeout < now` in blocked.c): at exactly +1 s it still waits, 1 ms to go.
        text = c.q(".rs-waitline").inner_text()
        expect("in 1 ms" in text, "1 ms left at +1 s: %r" % text)
        c.click("step-100ms")
        wait_until(lambda: c.q(".rs-waitline").count() == 0, "the timeout")
        expect(clock_ms(c.clock()) - t0 == 1100, "1.1 virtual seconds passed")
        expect(c.lines()[-1] == "(nil)", "BLPOP timed out with (nil): %r" % c.lines()[-2:])
        expect(c.run("PING") == ["PONG"], "the client goes on")
        # A timeout of 0.999 s ends exactly on the +1 s step.
        expect(c.run("BLPOP nothing 0.999") == [], "BLPOP waits")
        c.click("step-1s")
        wait_until(lambda: c.q(".rs-waitline").count() == 0, "the timeout on the 1 s step")
        expect(c.lines()[-1] == "(nil)", "(nil) after +1 s: %r" % c.lines()[-2:])
        marks = c.q(".rs-tl-wait title").all_text_contents()
        expect(any("timed out" in m for m in marks), "the timeline shows the timed-out waits: %r" % marks)
    suite.check("BLPOP with a 1 s timeout returns (nil) once the stepped clock passes its deadline", blocking_timeout)

    def pause_holds_writes():
        # Client 1 pauses writes for 2 s of virtual time; client 2's SET waits for the end.
        expect(c.run("CLIENT PAUSE 2000 WRITE") == ["OK"], "CLIENT PAUSE answers OK")
        c.q('.rs-tab[data-client="2"] .rs-tab-main').click()
        expect(c.run("GET paused") == ["(nil)"], "a read is not held")
        expect(c.run("SET paused yes") == [], "SET prints no reply yet")
        text = c.q(".rs-waitline").inner_text()
        expect("CLIENT PAUSE" in text, "the wait line says why: %r" % text)
        expect(c.q('.rs-tab[data-client="2"].rs-tab-waiting').count() == 1, "tab 2 marked waiting")
        shot(page, shots, "12d-client-pause.png")
        c.click("step-1s")
        expect(c.q(".rs-waitline").count() == 1, "still held after 1 s")
        c.click("step-1s")
        wait_until(lambda: c.q(".rs-waitline").count() == 0, "the pause to end")
        expect(c.lines()[-1] == "OK", "the SET ran once the pause ended: %r" % c.lines()[-2:])
        marks = c.q(".rs-tl-wait title").all_text_contents()
        expect(any("CLIENT PAUSE" in m and "the pause ended" in m for m in marks),
               "the timeline shows the held SET: %r" % marks)
        c.q('.rs-tab[data-client="1"] .rs-tab-main').click()
    suite.check("CLIENT PAUSE WRITE in client 1 holds client 2's SET until the stepped clock ends the pause", pause_holds_writes)

    def ctrl_c_cancels():
        c.run("SELECT 3")
        expect(c.run("BLPOP never 0") == [], "BLPOP waits")
        c.q(".rs-waitline").wait_for(timeout=2000)
        c.q(".rs-input").press("Control+c")
        wait_until(lambda: c.q(".rs-waitline").count() == 0, "Ctrl+C to end the wait")
        note = c.lines()[-1]
        expect(note.startswith("^C") and "reconnected" in note, "note: %r" % note)
        expect(c.q(".rs-inputline .rs-prompt").inner_text() == "127.0.0.1:6379[3]>", "db kept after reconnecting")
        expect(c.run("PING") == ["PONG"], "the new connection answers")
        c.run("SELECT 0")
        c.q('.rs-tab[data-client="2"] .rs-tab-close').click()
        wait_until(lambda: c.q(".rs-tab").count() == 1, "client 2 closed")
    suite.check("Ctrl+C cancels a wait by reconnecting; a client tab closes", ctrl_c_cancels)

    def pubsub_messages():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        out = "\n".join(c.run("SUBSCRIBE news"))
        expect('"subscribe"' in out and '"news"' in out and "(integer) 1" in out, "confirmation: %r" % out)
        sub = c.q(".rs-subline")
        sub.wait_for(timeout=2000)
        expect("1 subscription" in sub.inner_text(), "subscribed mode shown: %r" % sub.inner_text())
        c.click("add-client")
        wait_until(lambda: c.q(".rs-tab").count() == 2, "a second client")
        expect(c.run("PUBLISH news hello") == ["(integer) 1"], "one subscriber received it")
        badge = wait_until(lambda: c.q('.rs-tab[data-client="1"] .rs-tab-badge').inner_text(), "a badge on the subscriber's tab")
        expect(badge == "1", "one message: %r" % badge)
        expect(c.q('.rs-tab[data-client="1"].rs-tab-subscribed').count() == 1, "tab 1 marked subscribed")
        c.q('.rs-tab[data-client="1"] .rs-tab-main').click()
        msg = c.lines()[-1]
        expect('"message"' in msg and '"news"' in msg and '"hello"' in msg, "the message in client 1: %r" % msg)
        shot(page, shots, "15-pubsub.png")
        out = "\n".join(c.run("UNSUBSCRIBE"))
        expect('"unsubscribe"' in out, "unsubscribe confirmation: %r" % out)
        wait_until(lambda: c.q(".rs-subline").count() == 0, "subscribed mode to end")
    suite.check("SUBSCRIBE in client 1 shows what PUBLISH in client 2 sends", pubsub_messages)

    def shared_link_with_clients():
        page.goto(base + "index.html?clock=paused&cmd=BLPOP%20q%200&cmd=%402%20RPUSH%20q%20a%20b&cmd=%402%20LLEN%20q")
        c.ready()
        expect(c.q(".rs-tab").count() == 2, "the link opened client 2")
        lines = c.lines()
        expect('1) "q"' in "\n".join(lines) and '2) "a"' in "\n".join(lines), "client 1 served: %r" % lines)
        c.q('.rs-tab[data-client="2"] .rs-tab-main').click()
        expect(c.lines()[-1] == "(integer) 1", "client 2's LLEN after the pop: %r" % c.lines())
        c.click("share")
        link = c.q(".rs-share-link").input_value()
        expect(shared_session(link) == ["BLPOP q 0", "@2 RPUSH q a b", "@2 LLEN q"], "share link keeps the clients: %r" % link)
    suite.check("links address commands to clients with @N", shared_link_with_clients)

    def shared_link_keeps_the_clock():
        page.goto(base + "index.html?clock=paused&cmd=SET%20k%20v%20EX%20100")
        c.ready()
        for _ in range(3):
            c.click("step-1s")
        expect(c.run("TTL k") == ["(integer) 97"], "TTL after three steps")
        c.click("step-1s")
        c.click("share")
        link = c.q(".rs-share-link").input_value()
        expect(len(link) < 400, "a short link: %d characters" % len(link))
        expect(shared_session(link) == ["SET k v EX 100", "# sleep 3000", "TTL k", "# sleep 1000"],
               "the link carries the pauses: %r" % shared_session(link))
        page.goto(link)
        c.ready()
        expect(c.run("TTL k") == ["(integer) 96"], "the link reaches the same instant")
        # Links from before packing keep working.
        page.goto(base + "index.html?clock=paused&cmd=SET%20old%201&cmd=GET%20old")
        c.ready()
        expect(c.lines()[-1] == '"1"', "an old ?cmd= link: %r" % c.lines())
        # The text itself in the fragment, as a handover or a hand-written link carries it.
        page.goto(base + "index.html?clock=paused#session=SET%20h%202%0AGET%20h%0A")
        c.ready()
        expect(c.lines()[-1] == '"2"', "a #session= link: %r" % c.lines())
        # A damaged link, and one that would inflate past the 1 MiB cap, open an empty console that works.
        squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
        bomb = base64.urlsafe_b64encode(squeeze.compress(b"PING\n" * 500_000) + squeeze.flush()).decode().rstrip("=")
        for i, bad in enumerate(["%25%25%25", "AAAA", bomb]):
            # A new query each time: a change of fragment alone would not reload the page.
            page.goto(base + "index.html?clock=paused&bad=%d#s=%s" % (i, bad))
            c.ready()
            expect(c.run("PING") == ["PONG"], "a console after a bad link (%d characters)" % len(bad))
            ran = [l for l in c.lines() if l.endswith("> PING")]
            expect(len(ran) == 1, "nothing ran from a bad link: %r" % c.lines()[:6])
    suite.check("a share link keeps the clock: TTLs come back as they were", shared_link_keeps_the_clock)

    def narrow_inspector():
        page.set_viewport_size({"width": 420, "height": 900})
        page.goto(base + "index.html?clock=paused&cmd=CONFIG%20SET%20zset-max-listpack-entries%204"
                  "&cmd=ZADD%20z%201%20a%202%20b%203%20c%204%20d%205%20e%206%20f%207%20g&cmd=INSPECT%20z")
        c.ready()
        insp = c.q(".rs-inspector")
        insp.wait_for(timeout=3000)
        box = insp.bounding_box()
        expect(box["width"] <= 420, "inspector fits the screen: %r" % box)
        expect(c.q(".rs-sl-col[data-rank]").count() == 7, "all 7 nodes drawn")
        scroll = c.q(".rs-sl-scroll")
        expect(scroll.evaluate("e => e.scrollWidth > e.clientWidth"), "the picture scrolls sideways")
        expect(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "the page itself does not")
        insp.scroll_into_view_if_needed()
        shot(page, shots, "13-narrow-inspector.png")
        page.set_viewport_size({"width": 1280, "height": 900})
    suite.check("the inspector is readable on narrow screens", narrow_inspector)

    def embedded_clients_and_inspector():
        page.goto(base + "embed.html")
        page.locator(".rs-widget").nth(1).wait_for(timeout=15000)
        w2 = Console(page, '[data-redsim][data-seed="7"]')
        w1 = Console(page, '[data-redsim]:not([data-seed])')
        w2.click("add-client")
        wait_until(lambda: w2.q(".rs-tab").count() == 2, "a second client in the second widget")
        expect(w1.q(".rs-tab").count() == 1, "the first widget keeps one client")
        expect(w2.run("INCR counter") == ["(integer) 11"], "client 2 shares the widget's engine")
        w2.run("INSPECT counter")
        w2.q(".rs-inspector").wait_for(timeout=3000)
        expect(w2.q(".rs-insp-enc").inner_text() == "int", "an int-encoded string")
        expect(w1.q(".rs-inspector").count() == 0, "only that widget opened its inspector")
        w2.q(".rs-inspector").scroll_into_view_if_needed()
        shot(page, shots, "14-embed-clients.png")
    suite.check("embedded widgets have their own clients and inspector", embedded_clients_and_inspector)

    def iframe_mode():
        # A docs page that embeds two iframes: a console preset by its URL and a scenario.
        console_src = base + "embed.html?minimal=1&clock=paused&cmd=SET%20a%201&cmd=GET%20a"
        scenario_src = base + "embed.html?minimal=1&scenario=stampede&seed=2"
        page.set_content('<h1>Docs</h1><iframe title="console" src="%s" width="800" height="520"></iframe>'
                         '<iframe title="scenario" src="%s" width="800" height="700"></iframe>' % (console_src, scenario_src))
        con = page.frame_locator('iframe[title="console"]')
        con.locator(".rs-widget").wait_for(timeout=15000)
        wait_until(lambda: '"1"' in con.locator(".rs-screen").first.inner_text(), "the preset commands ran in the iframe")
        expect(con.locator("h1, .rs-doc-main, .rs-pagetabs").count() == 0, "no page chrome in the iframe")
        link = con.locator("a.rs-openlink")
        expect(link.get_attribute("href") == "index.html?clock=paused&cmd=SET%20a%201&cmd=GET%20a",
               "Open in Redsim keeps the view: %r" % link.get_attribute("href"))
        expect(link.get_attribute("target") == "_blank", "the link opens the full page outside the frame")
        scen = page.frame_locator('iframe[title="scenario"]')
        scen.locator(".rs-metric").first.wait_for(timeout=15000)
        expect(scen.locator(".rs-scen-list").count() == 0, "one scenario, no catalogue")
        expect(scen.locator(".rs-scen-notice, .rs-scen-error").count() == 0,
               "the URL's parameters are the scenario's own: %r" % scen.locator(".rs-scen-notice, .rs-scen-error").all_inner_texts())
        shot(page, shots, "15-iframe-mode.png")
        # The link out works on its own: the full page with the same session.
        page.goto(base + link.get_attribute("href"))
        c.ready()
        expect(c.lines()[-1] == '"1"', "the full page replays it: %r" % c.lines())
    suite.check("iframe mode: embed.html?minimal=1 shows one widget and links out to the full page", iframe_mode)

    def memory_timeline_and_eviction_pool():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        c.run("CONFIG SET maxmemory-policy allkeys-lru")
        c.run("EVAL \"for i=1,2000 do redis.call('SET','k'..i,string.rep('x',100)) end\" 0")
        for _ in range(2):
            c.click("step-1s")
        info = "\n".join(c.run("INFO memory"))
        used = int(info.split("used_memory:")[1].split()[0])
        c.run("CONFIG SET maxmemory %d" % (used - 40000))
        c.run("SET trigger 1")
        for _ in range(2):
            c.click("step-1s")
        wait_until(lambda: c.q(".rs-tl-mark.rs-m-evict").count() > 0, "eviction marks on the timeline")
        pts = c.q(".rs-tl-mem .rs-mem-used").get_attribute("points") or ""
        expect(len(pts.split()) >= 2, "a used-memory line: %r" % pts[:80])
        maxpts = c.q(".rs-tl-mem .rs-mem-max").get_attribute("points") or ""
        expect(len(maxpts.split()) >= 1, "a maxmemory line once it is set")
        scale = (c.q(".rs-tl-memaxis").text_content() or "").strip()
        expect(re.fullmatch(r"0–[0-9.]+ (B|KB|MB)", scale) is not None, "the memory band says its scale in bytes: %r" % scale)
        legend = c.q(".rs-legend").inner_text()
        expect("now" in legend, "the now line has its own legend entry: %r" % legend)
        expect("not yet reclaimed" not in legend, "no legend line for reclaiming when nothing waits: %r" % legend)
        title = c.q(".rs-tl-mark.rs-m-evict title").first.text_content()
        expect("allkeys-lru" in title, "the mark names the policy: %r" % title)
        c.q(".rs-tl-mark.rs-m-evict path").last.click()
        view = c.q(".rs-evict-view")
        view.wait_for(timeout=3000)
        expect(c.q(".rs-evict-pool li").count() >= 1, "the pool's candidates are listed")
        expect(c.q(".rs-evict-pool li.rs-victim").count() == 1, "the victim is highlighted")
        expect(c.q(".rs-evict-sampled span").count() >= 1, "the sampled keys are listed")
        view.scroll_into_view_if_needed()
        shot(page, shots, "15-eviction-pool.png")
    suite.check("the timeline draws memory against maxmemory and shows an eviction's pool", memory_timeline_and_eviction_pool)

    def keyspace_filter():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        c.run("EVAL \"for i=1,300 do redis.call('SET','k'..i,'v') end\" 0")
        c.run("SET user:ann 1")
        wait_until(lambda: "first 200 shown" in c.q(".rs-keys .rs-panel-head").inner_text(), "the panel lists the first 200")
        expect("user:ann" not in c.key_names(), "user:ann is past the first page")
        c.q(".rs-key-filter").fill("user:*")
        wait_until(lambda: c.key_names() == ["user:ann"], "the filter finds user:ann: %r" % c.key_names()[:5])
        expect("1 match" in c.q(".rs-keys .rs-panel-head").inner_text(), "the header counts the matches")
        c.q(".rs-key-filter").fill("nothing*")
        wait_until(lambda: "No key matches" in c.q(".rs-keys").inner_text(), "an empty result says so")
        c.q(".rs-key-filter").fill("")
        wait_until(lambda: len(c.key_names()) == 200, "clearing the filter lists the first page again")
        shot(page, shots, "17-keyspace-filter.png")
    suite.check("the keyspace filter finds keys beyond the first 200 by pattern", keyspace_filter)

    def marks_at_their_time():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        for _ in range(6):
            c.click("step-1s")
        for i in range(12):
            c.run("SET burst%d x" % i)
        now_x = float(c.q(".rs-tl-now").get_attribute("x1").rstrip("%"))
        cmds = c.q(".rs-tl-mark.rs-m-cmd")
        xs = [float(x.rstrip("%")) for x in cmds.evaluate_all("ms => ms.map(m => m.getAttribute('x'))")]
        counts = [int(n) for n in cmds.evaluate_all("ms => ms.map(m => m.dataset.count)")]
        expect(max(xs) <= now_x + 0.001, "no command mark past now: %r > %r" % (max(xs), now_x))
        expect(12 in counts, "the twelve SETs of one instant are one mark counting 12: %r" % counts)
        shot(page, shots, "16-burst-one-instant.png")
    suite.check("marks sit at their time: a burst at one instant is one mark with its count", marks_at_their_time)

    def eviction_burst_keeps_commands():
        page.goto(base + "index.html?clock=paused")
        c.ready()
        c.run("CONFIG SET maxmemory-policy allkeys-lru")
        c.run("EVAL \"for i=1,20000 do redis.call('SET','k'..i,string.rep('x',100)) end\" 0")
        c.click("step-1s")
        c.run("CONFIG SET maxmemory 1000000")
        c.run("SET trigger 1")
        c.click("step-1s")
        wait_until(lambda: c.q(".rs-tl-mark.rs-m-evict").count() > 0, "eviction marks")
        evicted = sum(int(n) for n in c.q(".rs-tl-mark.rs-m-evict").evaluate_all("ms => ms.map(m => m.dataset.count)"))
        expect(evicted >= 5000, "thousands of evictions drawn: %d" % evicted)
        expect(c.q(".rs-tl-mark.rs-m-cmd").count() >= 1, "command marks survive the eviction burst")
        shapes = c.q(".rs-tl-mark").count()
        expect(shapes <= 1500, "binned: %d shapes for %d evictions" % (shapes, evicted))
        # The cost of a redraw: a clock step (engine, timeline and keyspace) to the next frame.
        ms = page.evaluate("""() => new Promise((done) => {
            const t0 = performance.now();
            document.querySelector('#redsim [data-action="step-100ms"]').click();
            requestAnimationFrame(() => done(performance.now() - t0));
        })""")
        timeline_ms = float(page.evaluate(
            "() => document.querySelector('#redsim .rs-tl-svg').dataset.redrawMs"))
        expect(timeline_ms >= 0, "the timeline reports its redraw")
        print("    redraw after a %d-key eviction burst: %.1f ms for the frame (engine step, keyspace, "
              "timeline), %.1f ms for the timeline alone, %d shapes" % (evicted, ms, timeline_ms, shapes))
        t0 = time.time()
        expect(c.run("PING") == ["PONG"], "the console answers")
        reply_ms = (time.time() - t0) * 1000
        print("    next reply: %.0f ms" % reply_ms)
        expect(reply_ms < 500, "the next reply comes quickly: %.0f ms" % reply_ms)
    suite.check("a 20k-key eviction burst keeps the commands lane and redraws fast", eviction_burst_keeps_commands)

    def docs_as_data():
        # The console module leaves the command docs out and fetches them once the page is idle;
        # held here, a HELP waits for them, and so does what is typed after it.
        held = []
        # Earlier loads cached the docs: this load must ask the network, where the route holds them.
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        page.route("**/redsim-docs.txt", lambda route: held.append(route))
        # In-page times of the first reply and of the docs' request (this is the suite's last page).
        page.add_init_script("""
            window.__docsAt = null; window.__replyAt = null;
            const fetch0 = window.fetch;
            window.fetch = (input, init) => {
              if (String(input).includes('redsim-docs.txt') && window.__docsAt === null) window.__docsAt = performance.now();
              return fetch0(input, init);
            };
            new MutationObserver(() => {
              if (window.__replyAt === null && document.querySelector('#redsim .rs-out')) window.__replyAt = performance.now();
            }).observe(document, { subtree: true, childList: true });
        """)
        try:
            page.goto(base + "index.html?clock=paused&cmd=PING")
            c.ready()
            # The route's handler runs while Playwright waits on the page, not while Python sleeps.
            wait_until(lambda: page.wait_for_timeout(50) or held, "the docs asked for once the page is idle")
            at = page.evaluate("[window.__replyAt, window.__docsAt]")
            expect(at[0] is not None and at[1] is not None and at[1] > at[0],
                   "the docs are fetched after the first reply: %r" % at)
            expect(c.run("HELP GET") == ["Loading the command docs: this command runs once they are here."],
                   "HELP waits: %r" % c.lines())
            c.run("OBJECT HELP")
            c.run("SET a 1")
            inp = c.q(".rs-input")
            inp.fill("SET k")
            page.wait_for_timeout(100)
            expect(c.q(".rs-hint").count() == 0 or c.q(".rs-hint").inner_text() == "", "no hint without the docs")
            inp.fill("")
            held[0].continue_()
            wait_until(lambda: "OK" in c.lines(), "the held commands to run")
            out = "\n".join(c.lines())
            expect(out.index("Returns the string value of a key.") < out.index("ENCODING <key>") < out.index("OK"),
                   "HELP GET, OBJECT HELP (its text loaded with the docs), then SET, in the order typed: %r" % out)
            inp.fill("SET k")
            hint = wait_until(lambda: c.q(".rs-hint").count() and c.q(".rs-hint").inner_text(), "a hint once the docs are in")
            expect(hint.startswith(" value"), "the hint after 'SET k': %r" % hint)
            inp.fill("")
            expect(any("Returns the string value of a key." in l for l in c.run("COMMAND DOCS get")),
                   "COMMAND DOCS from the docs")
        finally:
            page.unroute("**/redsim-docs.txt")
            cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
            cdp.detach()
        # The page's "Read the docs in place" link: a preset HELP fetches the docs at once.
        page.goto(base + "index.html?cmd=HELP%20SET")
        c.ready()
        wait_until(lambda: any("summary:" in l for l in c.lines()), "HELP SET from the link")
    suite.check("command docs load as data after the first reply, and HELP waits for them", docs_as_data)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
    suite.check("no uncaught page errors", no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
