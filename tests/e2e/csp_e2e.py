#!/usr/bin/env python3
"""End-to-end test under the Content-Security-Policy that documentation sites often serve
(default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'): walks the four
tabs of the playground at desktop and phone sizes and fails on any policy violation, and on any
request to another origin. On the way it checks that no tab is wider than the window (390 px
on the phone) and that the page's "Things to try" show with the Console tab only.

Usage: python3 tests/e2e/csp_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import address, Console, expect, run_at_sizes, shot, wait_until  # noqa: E402

COLLECT = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || ''));
});
"""


def checks(run, label):
    page, base, suite, shots = run.page, run.base, run.suite, run.shots
    foreign = []
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(run.origin) and not r.url.startswith("data:") else None)
    c = Console(page)
    q = page.locator

    widths = {}
    width = page.viewport_size["width"]

    def measure(tab):
        widths[tab] = page.evaluate("document.documentElement.scrollWidth")
        tries = page.evaluate("getComputedStyle(document.querySelector('.rs-tries')).display")
        expect((tries != "none") == (tab == "console"), "Things to try on %s: display %s" % (tab, tries))

    def walk():
        page.goto(base + "index.html?seed=3&clock=paused")
        c.ready()
        measure("console")
        c.run("SET session alice EX 60")
        c.run("RPUSH list a b c")
        c.run("HSET h f v")
        c.run("INSPECT list")
        c.run("PFADD hll a b c")
        c.run("INSPECT hll")
        c.click("tab-scenarios")
        q(".rs-scen-item").first.click()
        q('[data-action="run-scenario"]').click()
        page.wait_for_timeout(500)
        measure("scenarios")
        c.click("tab-cluster")
        q("canvas").first.wait_for(timeout=5000)
        page.wait_for_timeout(300)
        measure("cluster")
        c.click("tab-topology")
        page.wait_for_timeout(800)
        measure("topology")
        c.click("tab-lessons")
        q(".rs-lesson-input").first.wait_for(timeout=5000)
        q(".rs-lesson-input").first.fill("SET k v")
        q(".rs-lesson-input").first.press("Enter")
        page.wait_for_timeout(300)
        measure("lessons")
        print("    widest tab at %d px: %d px %r" % (width, max(widths.values()), widths))
        expect(max(widths.values()) <= width, "no tab scrolls sideways: %r" % widths)
        shot(page, shots, "csp-%s-topology.png" % label)
        violations = page.evaluate("window.__csp")
        expect(violations == [], "no CSP violation in the five tabs: %d, e.g. %r" % (len(violations), violations[:5]))
        expect(foreign == [], "nothing fetched from another origin: %r" % foreign[:5])
    suite.check("the five tabs run under a strict CSP without a violation, none wider than the window (%s)" % label, walk)

    def selected():
        return q('.rs-pagetab[aria-selected="true"]').first.get_attribute("data-action")

    def back_and_forward():
        # After the walk the address names the Lessons tab; Back steps through
        # the tabs opened, in reverse, Forward again, and the app stays put.
        expect("tab=lessons" in address(page), "the address names the tab shown: %s" % address(page))
        for want in ["tab-topology", "tab-cluster", "tab-scenarios"]:
            page.go_back()
            wait_until(lambda: selected() == want, "Back shows %s (shows %s)" % (want, selected()))
        # The library names its scenario in the address (which shows that tab).
        expect("tab=scenarios" in address(page) or "scenario=" in address(page), "the address follows Back: %s" % address(page))
        page.go_forward()
        wait_until(lambda: selected() == "tab-cluster", "Forward shows the Cluster tab again")
        expect(address(page).startswith(base), "Back never left the app: %s" % address(page))
    suite.check("the address follows the tab, and Back/Forward move between tabs (%s)" % label, back_and_forward)

    def every_tab_shares():
        # Each tab offers its link; the cluster's replays a migration.
        page.goto(base + "index.html?tab=scenarios")
        q(".rs-sharefield-link").first.wait_for(timeout=15000)
        expect("scenario=" in q(".rs-sharefield-link").first.input_value(), "the scenario's link")
        c.click("tab-lessons")
        wait_until(lambda: "lesson=" in (q(".rs-lessons .rs-sharefield-link").first.input_value() or ""), "the lesson step's link")
        c.click("tab-cluster")
        q(".rs-slotmap-input").first.fill("{tenant:42}:order:1")
        c.click("migrate")
        wait_until(lambda: q('[data-action="migrate"]').first.is_enabled(), "the migration to end", timeout=30)
        status = q(".rs-slotmap-status").first.inner_text()
        link = q(".rs-slotmap .rs-sharefield-link").first.input_value()
        expect("tab=cluster#c=" in link, "the cluster's link: %s" % link)
        expect("#c=" in address(page), "the address names the cluster view: %s" % address(page))
        page.goto(link)
        q(".rs-slotmap-status").first.wait_for(timeout=15000)
        wait_until(lambda: q(".rs-slotmap-status").first.inner_text() == status,
                   "the link replays the view: %r" % q(".rs-slotmap-status").first.inner_text())
        expect(q('.rs-pagetab[aria-selected="true"]').first.get_attribute("data-action") == "tab-cluster", "it opens the Cluster tab")
    suite.check("every tab offers Share, and the cluster's link replays its view (%s)" % label, every_tab_shares)


def main():
    sys.exit(run_at_sizes("csp", checks, on_context=lambda run: run.ctx.add_init_script(COLLECT),
                          strict=True))


if __name__ == "__main__":
    main()
