#!/usr/bin/env python3
"""End-to-end test of the scenario library: serves dist/, opens the playground's Scenarios tab in
headless Chromium (the system's /usr/bin/chromium), runs the first scenario of the catalogue,
changes a parameter, steps and scrubs the playback, and opens shared and embedded scenarios.

Scenarios are picked at run time from what the page lists, so the test follows the catalogue.
Usage: python3 tests/e2e/scenarios_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import expect, run_site_suite, wait_until  # noqa: E402

EMBED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scenario embed</title>
<link rel="stylesheet" href="play/redsim.css"><script type="module" src="play/redsim.js"></script></head>
<body class="rs-page rs-doc"><main class="rs-doc-main">
<h1>One scenario in a page</h1>
<div id="embedded" data-redsim-scenario="%s" data-seed="4"></div>
</main></body></html>
"""


def shot(page, shots, name):
    page.screenshot(path=os.path.join(shots, name), full_page=True)


def main():
    return run_site_suite("redsim-scen", {"width": 1280, "height": 900},
                          lambda r: run_checks(r.suite, r.page, r.base, r.site, r.shots, r.page_errors))


def run_checks(suite, page, base, site, shots, page_errors):
    state = {}
    q = page.locator

    def time_text():
        return q(".rs-scen-time").inner_text()

    def opens_the_library():
        page.goto(base + "index.html")
        q(".rs-input").wait_for(state="visible", timeout=15000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Console", "the console is the first tab")
        q('[data-action="tab-scenarios"]').click()
        q(".rs-scen-item").first.wait_for(state="visible", timeout=5000)
        items = q(".rs-scen-item")
        expect(items.count() >= 1, "the catalogue lists scenarios")
        expect(q(".rs-scen-grouphead").count() >= 1, "scenarios are grouped")
        # The console is kept (hidden), not destroyed.
        expect(q(".rs-widget").count() == 1 and not q(".rs-widget").is_visible(), "console hidden, kept")
    suite.check("the Scenarios tab lists the catalogue, grouped", opens_the_library)

    def picks_the_first_scenario():
        first = q(".rs-scen-item").first
        state["id"] = first.get_attribute("data-scenario")
        state["title"] = first.inner_text()
        first.click()
        wait_until(lambda: q(".rs-scen-title").inner_text() == state["title"], "the title")
        expect(q(".rs-scen-item.rs-on").get_attribute("data-scenario") == state["id"], "selected")
        expect(len(q(".rs-scen-claim").inner_text()) > 10, "a claim is shown")
        expect(len(q(".rs-scen-look p").inner_text()) > 20, "what to look for is shown")
        wait_until(lambda: q(".rs-metric").count() > 0, "metrics")
        wait_until(lambda: q(".rs-scen-svg svg").count() > 0, "an SVG drawing")
        expect(q(".rs-check").count() > 0, "checks are listed")
        marks = q(".rs-check-mark").all_inner_texts()
        expect(all(m in ("✓", "✗") for m in marks), "checks are marked: %r" % marks)
        expect(q(".rs-scen-help").count() >= 1, "parameters explain themselves")
        shot(page, shots, "scenarios-first.png")
    suite.check("the first scenario shows its claim, metrics, checks and an SVG", picks_the_first_scenario)

    def changes_a_parameter():
        ctl = q(".rs-scen-form [data-param]").first
        if ctl.count() == 0:
            state["param"] = None
            return
        name = ctl.get_attribute("data-param")
        tag = ctl.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || '')")
        if tag.startswith("select"):
            options = ctl.locator("option")
            current = ctl.input_value()
            other = next(o for o in options.all() if o.get_attribute("value") != current)
            value = other.get_attribute("value")
            ctl.select_option(value)
            shown = other.inner_text()
        elif tag.endswith("checkbox"):
            was = ctl.is_checked()
            ctl.click()
            value = "0" if was else "1"
            shown = "on" if not was else "off"
        else:
            # A slider and its number field: type into the number field.
            num = q('.rs-scen-number[data-param="%s"]' % name)
            lo, hi, cur = (float(num.get_attribute("min")), float(num.get_attribute("max")), float(num.input_value()))
            target = lo if cur != lo else hi
            value = ("%d" % target) if target == int(target) else str(target)
            num.fill(value)
            num.dispatch_event("change")
            shown = value
        state["param"] = (name, value, shown)
        # The run happens on change and the address bar becomes the share link.
        wait_until(lambda: "scenario=%s" % state["id"] in page.url, "the URL names the scenario")
        qs = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
        expect(qs.get(name) == [shown], "the URL carries %s=%s: %s" % (name, shown, page.url))
        wait_until(lambda: q(".rs-metric").count() > 0, "metrics after the change")
    suite.check("changing a parameter re-runs and updates the share URL", changes_a_parameter)

    def runs_with_another_seed():
        seed = q(".rs-scen-seed")
        seed.fill("7")
        seed.dispatch_event("change")
        wait_until(lambda: "seed=7" in page.url, "the seed in the URL")
        q('[data-action="run-scenario"]').click()
        wait_until(lambda: q(".rs-metric").count() > 0 and q(".rs-scen-svg svg").count() > 0, "a fresh run")
        expect(q(".rs-scen-error").count() == 0, "no error: %s" % (q(".rs-scen-error").all_inner_texts(),))
    suite.check("a new seed and Run give a fresh run", runs_with_another_seed)

    def steps_and_scrubs():
        end = time_text()
        scrub = q(".rs-scen-scrub")
        last = int(scrub.get_attribute("max"))
        expect(last >= 1, "playback has stops")
        expect(scrub.input_value() == str(last), "a fresh run shows its end")
        # Scrub to the start: the cursor appears and the future is dimmed.
        scrub.evaluate("e => { e.value = '0'; e.dispatchEvent(new Event('input', {bubbles: true})); }")
        wait_until(lambda: time_text() != end, "the time label follows the scrubber")
        start = time_text()
        if q(".rs-scen-diagram").count():
            svg = q(".rs-scen-diagram").inner_html()
            expect("rsv-cursor" in svg, "the diagram shows the cursor")
            expect('opacity="0.16"' in svg, "the diagram dims what has not happened yet")
        else:
            expect(q(".rs-scen-chart .rsv-cursor").count() + q(".rs-scen-strip").count() > 0, "charts show the cursor")
        shot(page, shots, "scenarios-scrubbed.png")
        q('[data-action="step-event"]').click()
        wait_until(lambda: scrub.input_value() == "1", "one step forward")
        expect(time_text() != start, "the step moved the cursor")
        q('[data-action="step-back"]').click()
        wait_until(lambda: scrub.input_value() == "0", "one step back")
        # Play moves the cursor by itself; pause stops it.
        q('[data-action="play-scenario"]').click()
        wait_until(lambda: int(scrub.input_value()) > 0, "playback advances", timeout=5)
        q('[data-action="pause-scenario"]').click()
        paused_at = scrub.input_value()
        time.sleep(0.4)
        expect(scrub.input_value() == paused_at, "pause holds the cursor")
        q(".rs-scen-speed").select_option("4")
        shot(page, shots, "scenarios-playing.png")
    suite.check("step, scrub, play and pause move the cursor", steps_and_scrubs)

    def opens_a_shared_link():
        params = {"scenario": state["id"], "seed": "5"}
        if state.get("param"):
            name, _, shown = state["param"]
            params[name] = shown
        page.goto(base + "index.html?" + urllib.parse.urlencode(params))
        q(".rs-scen-item.rs-on").wait_for(state="visible", timeout=15000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Scenarios", "the link opens the Scenarios tab")
        expect(q(".rs-scen-item.rs-on").get_attribute("data-scenario") == state["id"], "the linked scenario")
        expect(q(".rs-scen-seed").input_value() == "5", "the linked seed")
        if state.get("param"):
            name, value, shown = state["param"]
            ctl = q('.rs-scen-form [data-param="%s"]' % name).last
            kind = ctl.evaluate("e => e.tagName.toLowerCase() + ':' + (e.type || '')")
            if kind.endswith("checkbox"):
                expect(ctl.is_checked() == (value == "1"), "the linked switch")
            else:
                expect(ctl.input_value() == value, "the linked %s: %s" % (name, ctl.input_value()))
        wait_until(lambda: q(".rs-metric").count() > 0, "the linked scenario ran")
        shot(page, shots, "scenarios-shared.png")
    suite.check("a shared ?scenario= link opens that scenario, seed and value", opens_a_shared_link)

    def reports_a_bad_link():
        page.goto(base + "index.html?scenario=no-such-scenario")
        q(".rs-scen-notice").wait_for(state="visible", timeout=15000)
        expect("unknown scenario 'no-such-scenario'" in q(".rs-scen-notice").inner_text(), "named")
        page.goto(base + "index.html?scenario=%s&no-such-param=3" % state["id"])
        q(".rs-scen-notice").wait_for(state="visible", timeout=15000)
        expect("unknown parameter 'no-such-param'" in q(".rs-scen-notice").inner_text(), "param named")
        wait_until(lambda: q(".rs-metric").count() > 0, "the defaults still run")
    suite.check("bad links are reported and the defaults run", reports_a_bad_link)

    def embeds_one_scenario():
        with open(os.path.join(site, "docs", "scenario.html"), "w") as f:
            f.write(EMBED_PAGE % state["id"])
        page.goto(base.replace("play/", "scenario.html"))
        q("#embedded .rs-scen-embedded").wait_for(state="visible", timeout=15000)
        expect(q("#embedded .rs-scen-list").count() == 0, "no catalogue list when embedded")
        expect(q("#embedded .rs-scen-title").inner_text() == state["title"], "the element's scenario")
        expect(q("#embedded .rs-scen-seed").input_value() == "4", "data-seed")
        wait_until(lambda: q("#embedded .rs-metric").count() > 0, "the embedded run")
        shot(page, shots, "scenarios-embedded.png")
    suite.check("data-redsim-scenario embeds one scenario", embeds_one_scenario)

    def every_scenario_runs_in_the_browser():
        page.goto(base + "index.html?scenario=%s" % state["id"])
        q(".rs-scen-item").first.wait_for(state="visible", timeout=15000)
        ids = [i.get_attribute("data-scenario") for i in q(".rs-scen-item").all()]
        for i, sid in enumerate(ids):
            q('.rs-scen-item[data-scenario="%s"]' % sid).click()
            wait_until(lambda: q(".rs-scen-item.rs-on").get_attribute("data-scenario") == sid, sid)
            wait_until(lambda: q(".rs-metric").count() > 0 or q(".rs-scen-error").count() > 0, sid)
            expect(q(".rs-scen-error").count() == 0, "%s: %s" % (sid, q(".rs-scen-error").all_inner_texts()))
            expect(q(".rs-crash").count() == 0, "%s crashed the page" % sid)
    suite.check("every catalogue scenario runs in the browser without a crash", every_scenario_runs_in_the_browser)

    def back_moves_between_scenarios():
        ids = [i.get_attribute("data-scenario") for i in q(".rs-scen-item").all()][:3]
        page.goto(base + "index.html?scenario=%s" % ids[0])
        q(".rs-scen-item.rs-on").wait_for(state="visible", timeout=15000)
        on = lambda: q(".rs-scen-item.rs-on").get_attribute("data-scenario")
        for sid in ids[1:]:
            q('.rs-scen-item[data-scenario="%s"]' % sid).click()
            wait_until(lambda: on() == sid and ("scenario=%s" % sid) in page.url, "%s shown and in the address" % sid)
        for sid in [ids[1], ids[0]]:
            page.go_back()
            wait_until(lambda: on() == sid, "Back shows %s (shows %s, %s)" % (sid, on(), page.url))
            expect(("scenario=%s" % sid) in page.url, "the address names %s: %s" % (sid, page.url))
            wait_until(lambda: q(".rs-metric").count() > 0, "%s ran again" % sid)
        page.go_forward()
        wait_until(lambda: on() == ids[1], "Forward shows %s again" % ids[1])
        expect(page.url.startswith(base), "Back never left the app: %s" % page.url)
    suite.check("Back and Forward move between the scenarios chosen", back_moves_between_scenarios)

    suite.check("no uncaught page errors", lambda: expect(not page_errors, "page errors: %r" % page_errors))


if __name__ == "__main__":
    sys.exit(main())
