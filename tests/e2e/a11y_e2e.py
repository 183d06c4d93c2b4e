#!/usr/bin/env python3
"""Accessibility, themes and phone layout of the playground page, in headless Chromium.

For each size (1440x900 and 390x844) and each theme (light and dark, the system's
prefers-color-scheme emulated, no choice stored), it fills every tab (console with an
inspector picture, a scenario run, the cluster, the topology, a lesson) and on each of the
five tabs:
- runs axe-core (injected from its file with page.add_script_tag(path=...)) and fails on any
  violation, of any impact, printing the counts by impact;
- takes a screenshot (a11y-<size>-<theme>-<tab>.png);
- on the phone: no tab scrolls sideways (scrollWidth <= 390), the topology's and the timeline's
  text is at least 11 px as rendered (font size times the SVG's scale), and every button, tab,
  link, input and select is at least 44x44 px (links inside a sentence are exempt, as in
  WCAG 2.5.8).
It also runs axe on embed.html (two consoles and a topology on one documentation page, whose
landmarks must differ by name), checks that each tab names the view it shows (role=tabpanel,
labelled by its tab), that the page starts in the system's theme, and that the theme button switches
the theme, says so (aria-pressed) and is remembered across a reload.

axe-core: --axe PATH, else $REDSIM_AXE, else the copy `cargo xtask test` installs under
target/tools/axe-core-<version>/ (crates/xtask/src/tools.rs pins the version).

Usage: python3 tests/e2e/a11y_e2e.py [--dist DIR] [--shots DIR] [--axe PATH]
Prints "N passed, M failed" and exits non-zero on any failure.
"""

import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import ROOT, Console, expect, run_at_sizes, shot, wait_until  # noqa: E402

TABS = ["console", "scenarios", "cluster", "topology", "lessons"]
THEME_KEY = "redsim-theme"
MIN_TEXT_PX = 11.0
MIN_TAP_PX = 44.0


def axe_path():
    """axe.min.js: --axe, $REDSIM_AXE, or the newest copy under a target dir's tools/."""
    args = sys.argv[1:]
    for i, a in enumerate(args):
        if a == "--axe" and i + 1 < len(args):
            path = args[i + 1]
            del sys.argv[i + 1:i + 3]
            return path
        if a.startswith("--axe="):
            sys.argv.remove(a)
            return a.split("=", 1)[1]
    if os.environ.get("REDSIM_AXE"):
        return os.environ["REDSIM_AXE"]
    targets = [os.environ.get("CARGO_TARGET_DIR") or "", os.path.join(ROOT, "target")]
    for t in targets:
        found = sorted(glob.glob(os.path.join(t, "tools", "axe-core-*", "node_modules", "axe-core", "axe.min.js")))
        if t and found:
            return found[-1]
    return None


AXE = axe_path()

# Runs axe on the document; only violations, with the nodes' selectors for the report.
RUN_AXE = """async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')),
    count: v.nodes.length }));
}"""

# The rendered size of every visible SVG text under `sel`: its computed font size times the
# scale its SVG is drawn at (viewBox and transforms, from the screen CTM).
TEXT_SIZES = """(sel) => [...document.querySelectorAll(sel)].filter(t => {
    const r = t.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && t.textContent.trim() !== '';
  }).map(t => {
    const m = t.getScreenCTM();
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    return { text: t.textContent.trim().slice(0, 24), px: parseFloat(getComputedStyle(t).fontSize) * scale };
  })"""

# Visible controls smaller than `min` px in either dimension. Visually hidden ones (1 px, the
# console's input while its client waits) do not count, nor links inside a sentence.
SMALL_TARGETS = """(min) => {
  const sel = 'button, [role="tab"], [role="button"], a[href], input:not([type="hidden"]), select, textarea, summary';
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    if (r.width <= 2 || r.height <= 2) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden' || e.closest('[hidden]')) continue;
    if (e.tagName === 'A' && cs.display === 'inline' && e.parentElement
        && e.parentElement.textContent.trim() !== e.textContent.trim()) continue;
    if (r.width < min || r.height < min) {
      const name = (e.getAttribute('aria-label') || e.textContent || e.getAttribute('data-action') || e.className || e.tagName).trim().slice(0, 30);
      out.push(e.tagName.toLowerCase() + '.' + String(e.className).split(' ')[0] + ' "' + name + '" ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
  }
  return out;
}"""


def fill_tabs(page, c):
    """Gives every tab something to show, as a reader would, and ends on the Console tab."""
    q = page.locator
    c.ready()
    c.run("SET session alice EX 60")
    # A skiplist, so the inspector draws its picture.
    c.run("CONFIG SET zset-max-listpack-entries 0")
    c.run("ZADD board 1 a 2 b 3 c 4 d 5 e")
    c.run("INSPECT board")
    q(".rs-sl").first.wait_for(timeout=5000)
    c.click("tab-scenarios")
    # A scenario with a race diagram.
    q(".rs-scen-item", has_text="Delete the cache, then update the DB").first.click()
    q('[data-action="run-scenario"]').click()
    q(".rs-scen-svg svg").first.wait_for(timeout=15000)
    c.click("tab-cluster")
    q("canvas").first.wait_for(timeout=5000)
    c.click("tab-topology")
    q(".rs-topo-lanes").first.wait_for(timeout=15000)
    page.wait_for_timeout(1500)
    # Kill the master, so the drawings carry their crash, down and failover marks too.
    q('[data-action="kill"][data-node="0"]').first.click()
    page.wait_for_timeout(2500)
    q('[data-action="topo-pause"]').first.click()
    c.click("tab-lessons")
    q(".rs-lesson-input").first.wait_for(timeout=5000)
    q(".rs-lesson-input").first.fill("SET k v")
    q(".rs-lesson-input").first.press("Enter")
    c.click("tab-console")


def checks(run, size):
    page, base, suite, shots = run.page, run.base, run.suite, run.shots
    c = Console(page)
    width = page.viewport_size["width"]
    phone = size == "phone"
    widest = {}
    tallies = {}

    def theme():
        # Light is the default: a page that starts light carries no attribute.
        return page.evaluate("document.documentElement.getAttribute('data-theme') || 'light'")

    def forget_choice():
        page.evaluate("k => localStorage.removeItem(k)", THEME_KEY)

    def dark_bg():
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        return sum(int(v) for v in bg[bg.index("(") + 1:bg.index(")")].split(",")[:3]) < 150

    def drawn_in_the_system_theme_before_the_loader():
        # The browser may draw the page once before the loader (a module script) runs: the
        # stylesheet alone must already show the system's theme, or a dark system sees a flash
        # of light. With the loader held back, the page is what that first frame shows.
        page.route("**/redsim.js", lambda r: r.abort())
        try:
            for scheme in ["dark", "light"]:
                page.emulate_media(color_scheme=scheme)
                page.goto(base + "index.html")
                page.wait_for_timeout(300)
                expect(dark_bg() == (scheme == "dark"), "a %s system is drawn %s before the loader runs"
                       % (scheme, "dark" if dark_bg() else "light"))
        finally:
            page.unroute("**/redsim.js")
            page.emulate_media(color_scheme="light")
    suite.check("the page is drawn in the system's theme before its loader runs (%s)" % size,
                drawn_in_the_system_theme_before_the_loader)

    for scheme in ["light", "dark"]:
        def starts_in_the_system_theme(scheme=scheme):
            page.emulate_media(color_scheme=scheme)
            page.goto(base + "index.html?seed=3&clock=paused")
            forget_choice()
            page.reload()
            c.ready()
            expect(theme() == scheme, "with prefers-color-scheme %s the page is %s" % (scheme, theme()))
            pressed = page.locator('[data-action="theme"]').get_attribute("aria-pressed")
            expect(pressed == ("true" if scheme == "dark" else "false"), "the theme button says %s" % pressed)
            expect(dark_bg() == (scheme == "dark"), "the page's background follows the system")
            fill_tabs(page, c)
        suite.check("the page starts %s when the system is (%s)" % (scheme, size), starts_in_the_system_theme)

        for tab in TABS:
            def tab_checks(tab=tab, scheme=scheme):
                c.click("tab-" + tab)
                page.wait_for_timeout(400)
                expect(theme() == scheme, "still %s on %s" % (scheme, tab))
                shot(page, shots, "a11y-%s-%s-%s.png" % (size, scheme, tab))
                problems = []
                page.add_script_tag(path=AXE)
                violations = page.evaluate(RUN_AXE)
                counts = {}
                for v in violations:
                    counts[v["impact"]] = counts.get(v["impact"], 0) + v["count"]
                tallies[(tab, scheme)] = counts
                print("    axe %s %s %s: %s %s" % (size, scheme, tab, json.dumps(counts, sort_keys=True) if counts else "no violations",
                                             " ".join("%s:%s" % (v["impact"], v["id"]) for v in violations)))
                for v in violations:
                    if v["impact"]:
                        problems.append("%s %s (%d): %s; %s" % (v["impact"], v["id"], v["count"], v["help"], " | ".join(v["nodes"])))
                if phone:
                    sw = page.evaluate("document.documentElement.scrollWidth")
                    widest[tab] = sw
                    if sw > width:
                        problems.append("scrolls sideways: scrollWidth %d > %d" % (sw, width))
                    sel = {"topology": ".rs-topo-svg svg text", "console": ".rs-timeline svg text"}.get(tab)
                    if sel:
                        sizes = page.evaluate(TEXT_SIZES, sel)
                        if not sizes:
                            problems.append("no text under %s" % sel)
                        small = [s for s in sizes if s["px"] < MIN_TEXT_PX - 0.05]
                        smallest = min((s["px"] for s in sizes), default=0)
                        print("    text on %s: %d labels, smallest %.1f px" % (tab, len(sizes), smallest))
                        if small:
                            problems.append("%d of %d labels under %g px, e.g. %r" % (len(small), len(sizes), MIN_TEXT_PX, small[:4]))
                    tiny = page.evaluate(SMALL_TARGETS, MIN_TAP_PX)
                    if tiny:
                        problems.append("%d tap targets under %g px: %r" % (len(tiny), MIN_TAP_PX, tiny[:8]))
                expect(not problems, "; ".join(problems))
            what = "axe finds nothing" + (", nothing scrolls sideways, text >= 11 px, targets >= 44 px" if phone else "")
            suite.check("%s on %s (%s, %s)" % (what, tab, size, scheme), tab_checks)

    def toggle_switches_and_persists():
        page.emulate_media(color_scheme="light")
        page.goto(base + "index.html?tab=topology")
        forget_choice()
        page.reload()
        button = page.locator('[data-action="theme"]')
        button.wait_for(timeout=15000)
        expect(theme() == "light", "starts light: %s" % theme())
        name = button.get_attribute("aria-label") or button.inner_text()
        expect("theme" in name.lower(), "the button is named: %r" % name)
        button.click()
        wait_until(lambda: theme() == "dark", "the button to switch to dark")
        expect(button.get_attribute("aria-pressed") == "true", "it says it is pressed")
        expect(page.evaluate("k => localStorage.getItem(k)", THEME_KEY) == "dark", "the choice is stored")
        page.reload()
        button.wait_for(timeout=15000)
        expect(theme() == "dark", "dark after a reload: %s" % theme())
        expect(button.get_attribute("aria-pressed") == "true", "the button remembers too")
        # A stored choice beats the system's theme, both ways.
        page.emulate_media(color_scheme="dark")
        button.click()
        wait_until(lambda: theme() == "light", "the button to switch back to light")
        page.reload()
        button.wait_for(timeout=15000)
        expect(theme() == "light", "light kept over a dark system after a reload: %s" % theme())
        expect(not dark_bg(), "and drawn light, though the system is dark")
        forget_choice()
        page.emulate_media(color_scheme="light")
    suite.check("the theme button switches the theme and a reload keeps it (%s)" % size, toggle_switches_and_persists)

    def embedders_switch_too():
        # A page embedding widgets offers the switch with data-redsim-theme-toggle.
        page.emulate_media(color_scheme="light")
        page.goto(base + "embed.html")
        forget_choice()
        page.reload()
        page.locator("[data-redsim] .rs-input").first.wait_for(timeout=15000)
        page.evaluate("""() => { const b = document.createElement('button');
            b.setAttribute('data-redsim-theme-toggle', ''); b.id = 'mine'; b.textContent = 'Dark theme';
            document.body.prepend(b); }""")
        expect(theme() == "light", "embed page starts light: %s" % theme())
        page.locator("#mine").click()
        wait_until(lambda: theme() == "dark", "the embedder's button to switch to dark")
        expect(page.locator("#mine").get_attribute("aria-pressed") == "true", "it says it is pressed")
        bg = page.evaluate("getComputedStyle(document.querySelector('[data-redsim] .rs-widget')).backgroundColor")
        expect(bg == "rgb(26, 29, 35)", "the widget is dark: %s" % bg)
        forget_choice()
    suite.check("an embedding page's own button switches the widgets' theme (%s)" % size, embedders_switch_too)

    def embed_page_passes_axe():
        page.goto(base + "embed.html")
        page.locator("[data-redsim] .rs-input").nth(1).wait_for(timeout=15000)
        page.wait_for_timeout(400)
        page.add_script_tag(path=AXE)
        violations = page.evaluate(RUN_AXE)
        print("    axe %s embed: %s" % (size, " ".join("%s:%s" % (v["impact"], v["id"]) for v in violations)
                                        or "no violations"))
        expect(not violations, "; ".join("%s %s (%d): %s; %s" % (v["impact"], v["id"], v["count"], v["help"],
                                                                 " | ".join(v["nodes"])) for v in violations))
    suite.check("axe finds nothing on a page with two consoles (%s)" % size, embed_page_passes_axe)

    def tabs_name_their_views():
        page.goto(base + "index.html?seed=3&clock=paused")
        c.ready()
        panels = page.evaluate("""() => [...document.querySelectorAll('[role=tab]')].map(t => {
            const v = document.getElementById(t.getAttribute('aria-controls'));
            return [t.textContent.trim(), v && v.getAttribute('role'), v && v.getAttribute('aria-labelledby') === t.id,
                    v && v.querySelector('h2') && v.querySelector('h2').textContent]; })""")
        expect(len(panels) == 5, "five tabs: %r" % panels)
        for name, role, labelled, heading in panels:
            expect(role == "tabpanel" and labelled and heading == name,
                   "the %s tab's view is a tabpanel labelled by it and headed %r: %r" % (name, name, (role, labelled, heading)))
    suite.check("each tab names the view it controls (%s)" % size, tabs_name_their_views)

    def no_page_errors():
        expect(run.page_errors == [], "page errors: %r" % run.page_errors[:3])
    suite.check("no page errors (%s)" % size, no_page_errors)

    total = {}
    for counts in tallies.values():
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    print("    axe totals at %s: %s" % (size, json.dumps(total, sort_keys=True) if total else "no violations"))
    if phone and widest:
        print("    widest tab at %d px: %d px %r" % (width, max(widest.values()), widest))


def main():
    if not AXE or not os.path.isfile(AXE):
        print("axe-core not found (%r): `cargo xtask test` installs it, or pass --axe PATH" % AXE)
        print("0 passed, 1 failed")
        sys.exit(1)
    print("axe-core: %s" % AXE)
    sys.exit(run_at_sizes("a11y", checks, timeout_ms=15000))


if __name__ == "__main__":
    main()
