"""Records the console module's startup profile: the functions pages run until their consoles
have answered and the page has been idle a while, by name, one per line.

`cargo xtask split-profile` runs it on a whole console module built with its names (and no lab,
whose functions would be counted with the console's: a trace does not say which module a
function is in). `cargo xtask dist` then keeps these functions in `redsim-web_bg.wasm` and moves
the rest to `redsim-web_rest.wasm` (crates/xtask/src/split.rs says why).

V8 compiles each wasm function on its first call and traces it (`wasm.CompileLazy`, with the
function's index), so a trace of a cold load lists exactly the functions that ran. They are
written by their full names; `dist` matches a name it does not find (another toolchain's symbol
hashes) by the name without its hashes.

usage: split_profile.py DIST OUT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

# The loads profiled: the playground with and without preset commands (the "Things to try"
# links among them), a command that waits for the docs, a paused clock, the embedding example,
# iframe mode and the playground opened on a lab tab. Together they run what any page runs
# before its first reply.
PAGES = [
    "index.html?cmd=PING",
    "index.html",
    "index.html?cmd=SET%20session%20alice%20EX%205&cmd=TTL%20session",
    "index.html?clock=paused&cmd=SET%20a%201%20PX%201500&cmd=GET%20a",
    "index.html?cmd=HELP%20SET",
    "index.html?seed=7&cmd=SET%20k%20v&cmd=GET%20missing&cmd=INCR%20k",
    "embed.html",
    "embed.html?minimal=1&clock=paused&cmd=SET%20a%201&cmd=GET%20a",
    # The playground opened on a lab tab: the console module draws the shell with the tab chosen
    # (the lab itself is not in the profiled build, so its place shows the load error).
    "index.html?scenario=stampede",
    "index.html?tab=topology",
    "index.html?tab=lessons",
]
# How long each page stays open after its first reply: the loader fetches the module's rest
# once the page is idle, well within this, and what runs after that needs no profile. The
# clock's ticks (every 50 ms) and the timeline's first drawing fall inside it.
IDLE_MS = 2500
# Loads per page: one load's trace can miss a function that another runs (a timer that fired a
# moment later, a frame that came sooner), and a function missing from the profile costs a
# page a synchronous fetch of the rest; the profile is the union of these loads.
LOADS = 2
CATEGORIES = ["v8.wasm"]


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def function_names(wasm):
    """Function index (imports first, as V8 counts) -> name, from the name section."""
    b = open(wasm, "rb").read()
    i = 8
    names = {}
    while i < len(b):
        sid = b[i]
        size, j = leb(b, i + 1)
        end = j + size
        if sid == 0:
            nl, k = leb(b, j)
            if b[k:k + nl] == b"name":
                k += nl
                while k < end:
                    sub = b[k]
                    sl, k2 = leb(b, k + 1)
                    if sub == 1:
                        cnt, m = leb(b, k2)
                        for _ in range(cnt):
                            idx, m = leb(b, m)
                            ln, m = leb(b, m)
                            names[idx] = b[m:m + ln].decode("utf8", "replace")
                            m += ln
                    k = k2 + sl
        i = end
    return names


def ran(p, base, page_path):
    """The function indices a cold load of `page_path` compiled, until IDLE_MS after its reply,
    without what waits for the module's rest."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_page()
        # What waits for the module's rest (the timeline's chart) is left out: on the split page
        # it runs once the rest has come (assets/redsim.js, redsimAfterRest).
        page.add_init_script("window.redsimHoldRest = true;")
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(base + page_path)
        # A console, or the shell of a page opened on a lab tab (its console is hidden).
        page.wait_for_selector(".rs-screen, .rs-pagebar", state="attached", timeout=30000)
        page.wait_for_timeout(IDLE_MS)
        trace = json.loads(browser.stop_tracing())
    finally:
        browser.close()
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return {e["args"]["func_index"] for e in events
            if e.get("name") == "wasm.CompileLazy" and "func_index" in e.get("args", {})}


def main():
    dist, out = sys.argv[1], sys.argv[2]
    names = function_names(os.path.join(dist, "redsim-web_bg.wasm"))
    if not names:
        sys.exit("the console module has no names: build it with REDSIM_WASM_NAMES=1")
    server, base = serve(os.path.abspath(dist))
    seen = set()
    try:
        with sync_playwright() as p:
            for path in PAGES:
                loads = [ran(p, base, path) for _ in range(LOADS)]
                got = set().union(*loads)
                once = len(got) - len(set.intersection(*loads))
                print("%-70s %4d functions (%d not in every load)" % (path, len(got), once), flush=True)
                seen |= got
    finally:
        server.shutdown()
    profile = sorted({names[i] for i in seen if i in names})
    with open(out, "w") as f:
        f.write("# The console module's startup profile, written by `cargo xtask split-profile`:\n"
                "# the functions its pages run until their consoles have answered and gone idle,\n"
                "# which `cargo xtask dist` keeps in redsim-web_bg.wasm (crates/xtask/src/split.rs).\n")
        for name in profile:
            f.write(name + "\n")
    print("%d functions ran; %d names written to %s (the rest have none: dist keeps all such)"
          % (len(seen), len(profile), out))


if __name__ == "__main__":
    main()
