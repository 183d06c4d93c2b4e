#!/usr/bin/env python3
"""End-to-end test of the light console's move to the full engine (web/src/handover.rs): the console
module leaves out Redis' heavy commands; the first one typed loads the lab module, which takes
over every console on the page with its session (keys, TTLs at the same virtual instant, clients,
the lines on screen) and runs the command. Checked on the playground, on a documentation page with
two consoles and a topology widget, and in iframe mode with a heavy command in the link.

Also the console module's own split (crates/xtask/src/split.rs): its rest is fetched once the page
is idle, a command typed before that links it at once, and a rest of another build is refused
with a note that says why.

Usage: python3 tests/e2e/upgrade_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import Console, expect, run_at_sizes, wait_until  # noqa: E402

CONSOLE_WASM = "redsim-web_bg.wasm"
LAB_WASM = "redsim-lab_bg.wasm"
REST_WASM = "redsim-web_rest.wasm"
# A rest of another build: the smallest module, with the custom section that names the pair its
# first part belongs to (crates/xtask/src/split.rs), naming another one.
OTHER_PAIR = b"0000000000000000"
OTHER_REST = (b"\0asm\x01\0\0\0" + b"\x00" + bytes([1 + len(b"redsim-pair") + len(OTHER_PAIR)])
              + bytes([len(b"redsim-pair")]) + b"redsim-pair" + OTHER_PAIR)

DOC_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Two consoles</title>
<link rel="stylesheet" href="play/redsim.css"><script type="module" src="play/redsim.js"></script></head>
<body class="rs-page rs-doc"><main class="rs-doc-main">
<h1>Two consoles and a topology</h1>
<div id="first" data-redsim data-clock="paused" data-commands="SET a 1"></div>
<div id="second" data-redsim data-clock="paused" data-seed="7" data-commands="SET counter 10 EX 60"></div>
<div id="topo" data-redsim-topology data-seed="1"></div>
</main></body></html>
"""


def wasm_fetched(page):
    """Every wasm module the page has fetched, by file name (from its resource timing, which also
    counts a copy from the browser's cache)."""
    return page.evaluate("performance.getEntriesByType('resource').map(e => e.name.split('?')[0])"
                         ".filter(n => n.endsWith('.wasm')).map(n => n.slice(n.lastIndexOf('/') + 1))")


def reply_shown(con, text, timeout=30.0):
    wait_until(lambda: any(text in t for t in con.q(".rs-screen .rs-out").all_inner_texts()),
               "the reply %r" % text, timeout)


def type_line(con, line):
    inp = con.q(".rs-input")
    inp.click()
    inp.fill(line)
    inp.press("Enter")


def main():
    return run_at_sizes("redsim-upgrade", lambda run, label: run_checks(run, label))


def run_checks(run, label):
    suite, page, base, shots = run.suite, run.page, run.base, run.shots
    con = Console(page)

    def playground_moves_with_its_session():
        page.goto(base + "index.html?clock=paused&cmd=SET%20k%20v%20EX%20100")
        con.ready()
        con.click("step-1s")
        expect(con.run("TTL k")[-1] == "(integer) 99", "TTL before: %s" % con.lines())
        con.click("add-client")
        expect("OK" in con.run("SET b 2")[-1], "client 2's SET")
        con.q(".rs-tab .rs-tab-main").first.click()
        fetched = wasm_fetched(page)
        expect(LAB_WASM not in fetched, "the lab was fetched before a heavy command: %s" % fetched)
        type_line(con, "EVAL \"return redis.call('GET', KEYS[1])\" 1 k")
        reply_shown(con, '"v"')
        # The input history came along: Up recalls the command typed last.
        con.q(".rs-input").press("ArrowUp")
        expect(con.q(".rs-input").input_value().startswith("EVAL"), "history: %r" % con.q(".rs-input").input_value())
        con.q(".rs-input").fill("")
        # The same instant: the TTL has not moved, both clients' keys are there.
        expect(con.run("TTL k")[-1] == "(integer) 99", "TTL after: %s" % con.lines())
        expect(con.run("DBSIZE")[-1] == "(integer) 2", "keys after: %s" % con.lines())
        expect(con.q(".rs-tab .rs-tab-main").count() == 2, "both clients' tabs are back")
        lines = con.lines()
        expect(any("SET k v EX 100" in t for t in lines), "the earlier lines are on screen: %s" % lines)
        expect(con.clock().startswith("0:00:01"), "the clock: %s" % con.clock())
        # The full engine answers the other heavy families at once, with no new download.
        expect(con.run("XADD s 1-1 f v")[-1] == '"1-1"', "XADD: %s" % con.lines())
        expect(con.run("GEOADD g 13.361389 38.115556 Palermo")[-1] == "(integer) 1", "GEOADD")
        fetched = wasm_fetched(page)
        expect(fetched.count(CONSOLE_WASM) == 1 and fetched.count(LAB_WASM) == 1,
               "each module fetched once: %s" % fetched)
        # The lab's own views run in the same instance.
        page.click("[data-action=tab-scenarios]")
        page.wait_for_selector("[data-redsim-lab-tab=scenarios].rs-lab-ready .rs-scen-title", timeout=30000)
        fetched = wasm_fetched(page)
        expect(fetched.count(LAB_WASM) == 1, "the Scenarios tab fetched nothing more: %s" % fetched)
        page.screenshot(path=os.path.join(shots, "upgrade-playground-%s.png" % label))

    def typing_a_heavy_name_fetches_ahead():
        page.goto(base + "index.html?clock=paused")
        con.ready()
        con.q(".rs-input").fill("FUNCTION ")
        wait_until(lambda: LAB_WASM in wasm_fetched(page), "the lab fetched while typing", 30.0)
        expect(con.q(".rs-screen .rs-out").count() == 0, "nothing ran yet")
        type_line(con, "FUNCTION LIST")
        reply_shown(con, "(empty array)")

    def a_rarely_used_subcommand_moves_too():
        # MEMORY is light, its STATS is not: the console moves on the subcommand, and SORT
        # (a light family's rarely used command) then runs in the full engine at once.
        page.goto(base + "index.html?clock=paused&cmd=RPUSH%20l%203%201%202")
        con.ready()
        reply_shown(con, "(integer) 3")
        expect(con.run("MEMORY USAGE l")[-1].startswith("(integer)"), "MEMORY USAGE stays: %s" % con.lines())
        expect(LAB_WASM not in wasm_fetched(page), "MEMORY USAGE needed no lab")
        # Typing the heavy subcommand's name fetches the full engine ahead, as a heavy name does.
        con.q(".rs-input").fill("MEMORY STATS ")
        wait_until(lambda: LAB_WASM in wasm_fetched(page), "the lab fetched while typing", 30.0)
        type_line(con, "MEMORY STATS")
        reply_shown(con, "keys.count")
        expect(con.run("SORT l")[-1] == '1) "1"\n2) "2"\n3) "3"', "SORT: %s" % con.lines()[-1])
        expect(wasm_fetched(page).count(LAB_WASM) == 1, "the lab fetched once")

    def commands_after_a_heavy_one_keep_their_order():
        page.goto(base + "embed.html?minimal=1&clock=paused&cmd=SET%20a%201"
                  "&cmd=EVAL%20%22return%20redis.call('INCR','a')%22%200&cmd=GET%20a")
        mini = Console(page, ".rs-minimal-host")
        mini.ready()
        reply_shown(mini, '"2"')
        outs = mini.q(".rs-screen .rs-out").all_inner_texts()
        expect(outs[-3:] == ["OK", "(integer) 2", '"2"'], "replies in order: %s" % outs)
        expect(page.locator(".rs-openlink").count() == 1, "the Open in Redsim link is kept")

    def a_docs_page_moves_every_console():
        with open(os.path.join(run.site, "docs", "two.html"), "w") as f:
            f.write(DOC_PAGE)
        page.goto(run.origin + "docs/two.html")
        first, second = Console(page, "#first"), Console(page, "#second")
        first.ready()
        second.ready()
        second.click("step-1s")
        expect(second.run("INCR counter")[-1] == "(integer) 11", "the second console's INCR")
        page.wait_for_selector("#topo .rs-topo", timeout=30000)
        type_line(first, "XADD s 1-1 f v")
        reply_shown(first, '"1-1"')
        # The other console kept its session and its clock.
        expect(second.run("GET counter")[-1] == '"11"', "the second console's key")
        expect(second.run("TTL counter")[-1] == "(integer) 59", "its TTL: %s" % second.lines())
        expect(first.run("GET a")[-1] == '"1"', "the first console's preset key")
        page.wait_for_selector("#topo .rs-topo", timeout=30000)
        fetched = wasm_fetched(page)
        expect(fetched.count(LAB_WASM) == 1, "the lab fetched once: %s" % fetched)
        page.screenshot(path=os.path.join(shots, "upgrade-docs-%s.png" % label), full_page=True)

    def a_failed_download_leaves_the_consoles():
        page.route("**/redsim-lab_bg.wasm", lambda route: route.fulfill(status=404, body="gone"))
        try:
            page.goto(base + "index.html?clock=paused&cmd=SET%20k%20v")
            con.ready()
            type_line(con, 'EVAL "return 1" 0')
            page.wait_for_selector("#redsim .rs-load-error", timeout=30000)
            expect("could not load" in page.inner_text("#redsim .rs-load-error"), "the note says why")
            expect(any("SET k v" in t for t in con.lines()), "the console is still there: %s" % con.lines())
            expect(con.q(".rs-input").count() == 1, "its prompt too")
        finally:
            page.unroute("**/redsim-lab_bg.wasm")

    def the_rest_comes_when_idle():
        page.goto(base + "index.html?cmd=PING")
        con.ready()
        reply_shown(con, "PONG")
        wait_until(lambda: REST_WASM in wasm_fetched(page), "the rest fetched once idle", 30.0)
        expect(page.evaluate("window.redsimRestEarly") == 0, "no placeholder ran before it")
        # Commands whose code is in the rest (sorted sets, hashes, the keyspace's rows).
        expect(con.run("ZADD z 1 a 2 b")[-1] == "(integer) 2", "ZADD: %s" % con.lines())
        expect(con.run("HSET h f v")[-1] == "(integer) 1", "HSET: %s" % con.lines())
        expect(con.run("ZRANGE z 0 -1 WITHSCORES")[-1].startswith('1) "a"'), "ZRANGE: %s" % con.lines())
        expect(wasm_fetched(page).count(REST_WASM) == 1, "the rest fetched once")

    def a_command_before_the_rest_links_it_at_once():
        # A page that is never idle (its requestIdleCallback never calls back) does not fetch
        # the rest ahead: the first command that needs it fetches and links it synchronously.
        busy = run.ctx.new_page()
        try:
            busy.add_init_script("window.requestIdleCallback = () => 0;")
            busy.goto(base + "index.html?clock=paused&cmd=SET%20k%20v")
            early = Console(busy)
            # The timeline's chart waits for the rest.
            early.ready(chart=False)
            reply_shown(early, "OK")
            expect(REST_WASM not in wasm_fetched(busy), "the rest waited: %s" % wasm_fetched(busy))
            expect(busy.locator("#redsim [data-pending]").count() == 1, "the chart waits for the rest")
            expect(early.run("ZADD z 3 c")[-1] == "(integer) 1", "ZADD: %s" % early.lines())
            expect(busy.evaluate("window.redsimRestEarly") == 1, "linked at once, by the command")
            # The rest has come, so the chart too.
            busy.wait_for_function("!document.querySelector('#redsim [data-pending]')", timeout=10000)
            expect(early.run("ZSCORE z c")[-1] == "(double) 3", "ZSCORE: %s" % early.lines())
            expect(early.run("GET k")[-1] == '"v"', "the session is intact: %s" % early.lines())
            expect(wasm_fetched(busy).count(REST_WASM) == 1, "the rest fetched once")
        finally:
            busy.close()

    def a_rest_of_another_build_is_refused():
        # A cache or a half-done deploy hands the page the rest of another build: it is not
        # linked (it could call the wrong functions), and the console says why.
        other = run.ctx.new_page()
        try:
            other.route("**/%s*" % REST_WASM, lambda route: route.fulfill(
                status=200, content_type="application/wasm", body=OTHER_REST))
            other.goto(base + "index.html?cmd=PING")
            mixed = Console(other)
            # The chart needs the rest, which never links here: the console works without it.
            mixed.ready(chart=False)
            reply_shown(mixed, "PONG")
            other.wait_for_selector("#redsim .rs-rest-error", timeout=30000)
            note = other.inner_text("#redsim .rs-rest-error")
            expect("different builds" in note and OTHER_PAIR.decode() in note, "the note: %r" % note)
            expect(other.locator(".rs-rest-error").count() == 1, "one note")
            expect(any("PONG" in t for t in mixed.lines()), "the console stays: %s" % mixed.lines())
        finally:
            other.close()

    suite.check("[%s] the console module's rest is fetched once the page is idle" % label,
                the_rest_comes_when_idle)
    suite.check("[%s] a command typed before the rest has come links it at once" % label,
                a_command_before_the_rest_links_it_at_once)
    suite.check("[%s] a rest of another build is refused, and the console says why" % label,
                a_rest_of_another_build_is_refused)
    suite.check("[%s] the playground moves to the full engine with its session" % label,
                playground_moves_with_its_session)
    suite.check("[%s] typing a heavy command's name fetches the full engine ahead" % label,
                typing_a_heavy_name_fetches_ahead)
    suite.check("[%s] a light container's rarely used subcommand moves the console too" % label,
                a_rarely_used_subcommand_moves_too)
    suite.check("[%s] commands after a heavy one run in order (iframe mode)" % label,
                commands_after_a_heavy_one_keep_their_order)
    suite.check("[%s] a documentation page moves every console" % label, a_docs_page_moves_every_console)
    suite.check("[%s] a lab that cannot be fetched leaves the consoles as they were" % label,
                a_failed_download_leaves_the_consoles)
    suite.check("[%s] no page errors" % label,
                lambda: expect(not run.page_errors, "page errors: %s" % run.page_errors))


if __name__ == "__main__":
    sys.exit(main())
