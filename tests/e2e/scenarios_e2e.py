#!/usr/bin/env python3
"""End-to-end test of the scenario library: serves dist/, opens the playground's Scenarios tab in
headless Chromium (the system's /usr/bin/chromium) at 1440x900 and at 390x844, runs the first
scenario of the catalogue, changes a parameter, steps and scrubs the playback, opens shared and
embedded scenarios, checks every race diagram fits its box with no label over another, and tries
virtual-time playback, the cursor being followed, the buggy variant's note and the shortcut keys.

Scenarios are picked at run time from what the page lists, so the test follows the catalogue.
Usage: python3 tests/e2e/scenarios_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import address, expect, run_at_sizes, wait_until  # noqa: E402

EMBED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scenario embed</title>
<link rel="stylesheet" href="play/redsim.css"><script type="module" src="play/redsim.js"></script></head>
<body class="rs-page rs-doc"><main class="rs-doc-main">
<h1>One scenario in a page</h1>
<div id="embedded" data-redsim-scenario="%s" data-seed="4"></div>
</main></body></html>
"""



# The race diagram's geometry as the browser lays it out: its box, the drawing, every label's
# box (getBoundingClientRect, so upright lane names count as drawn), the pairs of labels that
# overlap and what lies outside the drawing.
DIAGRAM_GEOMETRY = """() => {
  const box = document.querySelector('.rs-scen-diagram');
  if (!box) return null;
  const svg = box.querySelector('svg.rsv-diagram');
  const sr = svg.getBoundingClientRect();
  const rect = e => { const r = e.getBoundingClientRect(); return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
  const labels = [...svg.querySelectorAll('text.rsv-label')]
    .map(t => Object.assign(rect(t), {t: t.textContent})).filter(b => b.x1 - b.x0 > 0.5);
  const hits = [];
  for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
    const a = labels[i], b = labels[j];
    const ox = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), oy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    if (ox > 0.5 && oy > 0.5) hits.push([a.t, b.t]);
  }
  const inside = r => r.x0 >= sr.left - 0.5 && r.x1 <= sr.right + 0.5 && r.y0 >= sr.top - 0.5 && r.y1 <= sr.bottom + 0.5;
  const outside = [...svg.querySelectorAll('.rsv-note, text.rsv-label')]
    .filter(e => !inside(rect(e))).map(e => e.textContent || e.getAttribute('class'));
  return {box: box.clientWidth, scroll: box.scrollWidth, svg: sr.width, labels: labels.length,
          notes: svg.querySelectorAll('.rsv-note').length, hits: hits.slice(0, 4), outside: outside.slice(0, 4)};
}"""

# Where the playback cursor is in the diagram's box: its y, and the part of the drawing in view
# (null while it is hidden, the whole run shown).
CURSOR_VIEW = """() => {
  const box = document.querySelector('.rs-scen-diagram');
  const c = box && box.querySelector('.rsv-cursor-g:not([display=none]) .rsv-cursor');
  if (!c) return null;
  return {y: parseFloat(c.getAttribute('y1')), top: box.scrollTop, h: box.clientHeight, full: box.scrollHeight};
}"""

# The diagram's drawing, marked to tell whether a later one is the same element; how many of its
# elements are dimmed.
MARK_DRAWING = "() => { document.querySelector('.rs-scen-diagram svg').rsMarked = true; }"
SAME_DRAWING = "() => document.querySelector('.rs-scen-diagram svg').rsMarked === true"
DIMMED = "() => document.querySelectorAll('.rs-scen-diagram [opacity=\"0.16\"]').length"


def main():
    return run_at_sizes("redsim-scen", lambda r, label: run_checks(
        r.suite, r.page, r.base, r.site, r.shots, r.page_errors, label))


def virtual_us(text):
    """Microseconds of a time label: `12 µs`, `1.5 ms` or `3.25 s` (the first of `a / b`)."""
    value, unit = text.split("/")[0].split()
    return float(value) * {"µs": 1, "ms": 1e3, "s": 1e6}[unit]


def run_checks(suite, page, base, site, shots_dir, page_errors, label):
    state = {}
    q = page.locator
    shots = shots_dir

    def shot(page, shots, name):
        base_name, ext = os.path.splitext(name)
        page.screenshot(path=os.path.join(shots, "%s-%s%s" % (base_name, label, ext)), full_page=True)

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
        wait_until(lambda: "scenario=%s" % state["id"] in address(page), "the URL names the scenario")
        qs = urllib.parse.parse_qs(urllib.parse.urlparse(address(page)).query)
        expect(qs.get(name) == [shown], "the URL carries %s=%s: %s" % (name, shown, address(page)))
        wait_until(lambda: q(".rs-metric").count() > 0, "metrics after the change")
    suite.check("changing a parameter re-runs and updates the share URL", changes_a_parameter)

    def runs_with_another_seed():
        seed = q(".rs-scen-seed")
        seed.fill("7")
        seed.dispatch_event("change")
        wait_until(lambda: "seed=7" in address(page), "the seed in the URL")
        q('[data-action="run-scenario"]').click()
        wait_until(lambda: q(".rs-metric").count() > 0 and q(".rs-scen-svg svg").count() > 0, "a fresh run")
        expect(q(".rs-scen-error").count() == 0, "no error: %s" % (q(".rs-scen-error").all_inner_texts(),))
    suite.check("a new seed and Run give a fresh run", runs_with_another_seed)

    def steps_and_scrubs():
        end = time_text()
        scrub = q(".rs-scen-scrub")
        last = int(scrub.get_attribute("max"))
        expect(last >= 1, "playback has a time axis")
        expect(scrub.input_value() == str(last), "a fresh run shows its end")
        ticks = q(".rs-scen-axis span").all_inner_texts()
        expect(len(ticks) == 5 and ticks[0] == "0 µs", "the scrubber is labelled in virtual time: %r" % ticks)
        # Scrub to the start: the cursor appears and the future is dimmed.
        scrub.evaluate("e => { e.value = '0'; e.dispatchEvent(new Event('input', {bubbles: true})); }")
        wait_until(lambda: time_text() != end, "the time label follows the scrubber")
        start = time_text()
        if q(".rs-scen-diagram").count():
            svg = q(".rs-scen-diagram").inner_html()
            expect(q(".rs-scen-diagram .rsv-cursor-g:not([display=none])").count() == 1,
                   "the diagram shows the cursor")
            expect('opacity="0.16"' in svg, "the diagram dims what has not happened yet")
        else:
            expect(q(".rs-scen-chart .rsv-cursor").count() + q(".rs-scen-strip").count() > 0, "charts show the cursor")
        shot(page, shots, "scenarios-scrubbed.png")
        q('[data-action="step-event"]').click()
        wait_until(lambda: int(scrub.input_value()) > 0, "one step forward")
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
            if q(".rs-scen-diagram").count() == 0:
                continue
            # The diagram is laid out to its box once the box is measured.
            g = wait_until(lambda: (lambda g: g if g and g["svg"] <= g["box"] + 0.5 else None)(page.evaluate(DIAGRAM_GEOMETRY)),
                           "%s's diagram fits its box (%r)" % (sid, page.evaluate(DIAGRAM_GEOMETRY)))
            state.setdefault("diagrams", {})[sid] = g
            expect(g["scroll"] <= g["box"] + 1, "%s: the box scrolls sideways: %r" % (sid, g))
            expect(not g["hits"], "%s: labels overlap: %r" % (sid, g["hits"]))
            expect(not g["outside"], "%s: outside the drawing: %r" % (sid, g["outside"]))
            if sid in ("delete-before-update", "rate-limits", "stampede", "cluster-failover", "failover-lost-writes"):
                shot(page, shots, "diagram-%s.png" % sid)
        expect(len(state.get("diagrams", {})) >= 5, "race diagrams were drawn")
        print("     diagrams (box, drawing width, labels, callouts): %s" % ", ".join(
            "%s %d/%d/%d/%d" % (k, v["box"], v["svg"], v["labels"], v["notes"]) for k, v in state["diagrams"].items()))
    suite.check("every catalogue scenario runs in the browser without a crash; every race diagram fits its box, "
                "no label over another, callouts inside (%s)" % label, every_scenario_runs_in_the_browser)

    def back_moves_between_scenarios():
        ids = [i.get_attribute("data-scenario") for i in q(".rs-scen-item").all()][:3]
        page.goto(base + "index.html?scenario=%s" % ids[0])
        q(".rs-scen-item.rs-on").wait_for(state="visible", timeout=15000)
        on = lambda: q(".rs-scen-item.rs-on").get_attribute("data-scenario")
        for sid in ids[1:]:
            q('.rs-scen-item[data-scenario="%s"]' % sid).click()
            wait_until(lambda: on() == sid and ("scenario=%s" % sid) in address(page), "%s shown and in the address" % sid)
        for sid in [ids[1], ids[0]]:
            page.go_back()
            wait_until(lambda: on() == sid, "Back shows %s (shows %s, %s)" % (sid, on(), address(page)))
            expect(("scenario=%s" % sid) in address(page), "the address names %s: %s" % (sid, address(page)))
            wait_until(lambda: q(".rs-metric").count() > 0, "%s ran again" % sid)
        page.go_forward()
        wait_until(lambda: on() == ids[1], "Forward shows %s again" % ids[1])
        expect(address(page).startswith(base), "Back never left the app: %s" % address(page))
    suite.check("Back and Forward move between the scenarios chosen", back_moves_between_scenarios)

    run_layout_checks(suite, page, base, shots, label, shot)
    suite.check("no uncaught page errors (%s)" % label, lambda: expect(not page_errors, "page errors: %r" % page_errors))


def run_layout_checks(suite, page, base, shots, label, shot):
    """Virtual-time playback, the cursor followed, the title scrolled to, the buggy variant's note
    and the shortcut keys."""
    q = page.locator

    def open_scenario(sid, extra=""):
        page.goto(base + "index.html?scenario=%s%s" % (sid, extra))
        q(".rs-scen-item.rs-on").wait_for(state="visible", timeout=15000)
        wait_until(lambda: q(".rs-metric").count() > 0, "%s ran" % sid)

    def shown_us():
        return virtual_us(q(".rs-scen-time").inner_text())

    def playing():
        return q('[data-action="pause-scenario"]').count() == 1

    def scrub_to(us):
        q(".rs-scen-scrub").evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input', {bubbles: true})); }", us)

    def speeds_are_named_and_one_x_is_real_time():
        open_scenario("redis-outage")
        names = q(".rs-scen-speed option").all_inner_texts()
        for want in ["1/1000× slow motion", "1/100×", "1/10×", "1× real time", "10×", "100×"]:
            expect(want in names, "the speed %r is offered: %r" % (want, names))
        q(".rs-scen-speed").select_option(label="1× real time")
        scrub_to(0)
        q('[data-action="play-scenario"]').click()
        wait_until(lambda: shown_us() > 0, "playback starts")
        t0, w0 = shown_us(), time.time()
        time.sleep(1.5)
        t1, w1 = shown_us(), time.time()
        wall_us = (w1 - w0) * 1e6
        ratio = (t1 - t0) / wall_us
        print("     at 1x: %.0f ms of virtual time in %.0f ms of wall time" % ((t1 - t0) / 1e3, wall_us / 1e3))
        expect(0.6 < ratio < 1.5, "1x follows the wall clock: ratio %.2f" % ratio)
    suite.check("the speed control lists named speeds and 1x plays in real time (%s)" % label,
                speeds_are_named_and_one_x_is_real_time)

    def a_parameter_change_keeps_playing():
        open_scenario("redis-outage")
        q(".rs-scen-speed").select_option(label="1/10×")
        scrub_to(0)
        q('[data-action="play-scenario"]').click()
        wait_until(playing, "playing")
        num = q(".rs-scen-number").first
        name = num.get_attribute("data-param")
        lo, hi, cur = (float(num.get_attribute("min")), float(num.get_attribute("max")), float(num.input_value()))
        target = lo if cur != lo else hi
        num.fill(("%d" % target) if target == int(target) else str(target))
        num.press("Tab")
        wait_until(lambda: ("%s=" % name) in address(page), "the run with the new %s (%s, field %s)" % (
            name, address(page), num.input_value()), timeout=15)
        expect(playing(), "still playing after the parameter changed")
        t = shown_us()
        wait_until(lambda: shown_us() > t, "the cursor goes on")
        q('[data-action="pause-scenario"]').click()
    suite.check("changing a parameter while playing keeps playing (%s)" % label, a_parameter_change_keeps_playing)

    def the_cursor_is_followed():
        # The tallest diagram, played fast enough to cross it in a few seconds.
        diagrams = ["queues", "failover-lost-writes", "pipeline-multi-lua"]
        sid = diagrams[0]
        open_scenario(sid)
        wait_until(lambda: page.evaluate(DIAGRAM_GEOMETRY) is not None, "a diagram")
        scrub_to(0)
        first = wait_until(lambda: page.evaluate(CURSOR_VIEW), "the cursor")
        page.evaluate(MARK_DRAWING)
        first_dimmed = page.evaluate(DIMMED)
        expect(first["full"] > first["h"] * 1.5, "%s's diagram is taller than its box: %r" % (sid, first))
        q(".rs-scen-speed").select_option(label="1× real time")
        q('[data-action="play-scenario"]').click()
        seen, tops = 0, set()
        deadline = time.time() + 8
        while time.time() < deadline and playing():
            v = page.evaluate(CURSOR_VIEW)
            if v:
                seen += 1
                tops.add(v["top"])
                expect(v["top"] - 1 <= v["y"] <= v["top"] + v["h"] + 1, "the cursor is in view: %r" % v)
            time.sleep(0.15)
        expect(seen >= 5, "sampled the cursor while playing (%d)" % seen)
        # Played in place: the same drawing all along, its dimmed part shrinking.
        expect(page.evaluate(SAME_DRAWING), "playback kept the diagram's drawing rather than redrawing it")
        dimmed = page.evaluate(DIMMED)
        expect(dimmed < first_dimmed, "less is dimmed as the cursor moves on: %d, then %d"
               % (first_dimmed, dimmed))
        expect(len(tops) >= 2 and max(tops) > 0, "the box scrolled along: %r" % sorted(tops))
        shot(page, shots, "scenarios-followed.png")
    suite.check("the diagram scrolls to follow the playhead (%s)" % label, the_cursor_is_followed)

    def choosing_scrolls_the_title_into_view():
        open_scenario("hit-rate-latency")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        items = q(".rs-scen-item")
        target = items.nth(items.count() - 1)
        target.scroll_into_view_if_needed()
        target.click()
        title = q(".rs-scen-title")
        wait_until(lambda: title.inner_text() == target.inner_text(), "the chosen title")

        def in_view():
            r = title.evaluate("e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }")
            return r[0] >= 0 and r[1] <= r[2]
        wait_until(in_view, "the title in view", timeout=4)
        shot(page, shots, "scenarios-chosen.png")
    suite.check("choosing a scenario scrolls its title into view (%s)" % label, choosing_scrolls_the_title_into_view)

    def the_buggy_variant_says_so():
        open_scenario("redis-outage", "&guard=fail-open")
        failing = q(".rs-check.rs-fail")
        expect(failing.count() >= 1, "failing open fails its guard check")
        notes = failing.first.locator(".rs-check-expected")
        expect(notes.count() == 1 and notes.inner_text() == "expected: this variant shows the bug",
               "the failing check says it is expected: %r" % failing.first.inner_text())
        expect(q(".rs-check.rs-pass .rs-check-expected").count() == 0, "passing checks carry no note")
        shot(page, shots, "scenarios-expected.png")
        q('.rs-scen-form select[data-param="guard"]').select_option("breaker")
        wait_until(lambda: "guard=breaker" in address(page), "the protected run")
        wait_until(lambda: q(".rs-check-expected").count() == 0, "no note for the protected variant")
        expect(q(".rs-check.rs-fail").count() == 0, "the breaker passes")
    suite.check("a variant meant to show the bug says so beside its failing check (%s)" % label,
                the_buggy_variant_says_so)

    def shortcut_keys_work():
        open_scenario("delete-before-update")
        kb = page.keyboard
        page.evaluate("document.activeElement && document.activeElement.blur()")
        kb.press(" ")
        wait_until(playing, "Space plays")
        kb.press(" ")
        wait_until(lambda: not playing(), "Space pauses")
        scrub_to(0)
        q(".rs-scen-title").click()
        kb.press("ArrowRight")
        wait_until(lambda: shown_us() > 0, "→ steps forward")
        after = shown_us()
        kb.press("ArrowRight")
        wait_until(lambda: shown_us() > after, "→ again")
        kb.press("ArrowLeft")
        wait_until(lambda: shown_us() == after, "← steps back")
        speed = q(".rs-scen-speed")
        s0 = int(speed.input_value())
        kb.press("]")
        wait_until(lambda: int(speed.input_value()) == s0 + 1, "] is faster")
        kb.press("[")
        kb.press("[")
        wait_until(lambda: int(speed.input_value()) == s0 - 1, "[ is slower")
        kb.press("?")
        dialog = q('[role="dialog"][aria-label="Keyboard shortcuts"]')
        wait_until(lambda: dialog.count() == 1 and dialog.is_visible(), "? lists the shortcuts")
        expect("Space" in dialog.inner_text() and "Esc" in dialog.inner_text(), "the list names the keys")
        shot(page, shots, "scenarios-keys.png")
        kb.press("Escape")
        wait_until(lambda: dialog.count() == 0, "Escape closes the list")
        # The Play button has the focus after a click: Space pauses once, it does not also press it.
        q('[data-action="play-scenario"]').click()
        wait_until(playing, "playing by the button")
        kb.press(" ")
        time.sleep(0.3)
        expect(not playing(), "Space on the focused button paused once")
        # Typing in a field is never a shortcut.
        seed = q(".rs-scen-seed")
        seed.click()
        kb.press("?")
        kb.press(" ")
        kb.press("]")
        time.sleep(0.3)
        expect(dialog.count() == 0 and not playing(), "keys in the seed field are typing")
        expect(int(speed.input_value()) == s0 - 1, "] in the seed field kept the speed")
        expect("?" in seed.input_value(), "the field got the keys: %r" % seed.input_value())
    suite.check("Space, arrows, [ ], ? and Escape drive playback outside form fields (%s)" % label, shortcut_keys_work)

    def topology_keys_work():
        page.goto(base + "index.html?tab=topology&t=1000")
        now = q("span.rs-topo-now")
        now.wait_for(state="visible", timeout=15000)
        kb = page.keyboard
        topo_playing = lambda: q('[data-action="topo-pause"]').count() == 1  # noqa: E731
        q(".rs-topo-intro").click()
        if topo_playing():
            kb.press(" ")
        wait_until(lambda: not topo_playing(), "Space pauses the topology")
        at = int(now.get_attribute("data-now-us"))
        kb.press("ArrowRight")
        wait_until(lambda: int(now.get_attribute("data-now-us")) == at + 100000, "→ runs 0.1 s")
        speed = q(".rs-topo-speed")
        s0 = speed.input_value()
        kb.press("]")
        wait_until(lambda: speed.input_value() != s0, "] changes the speed")
        kb.press("[")
        wait_until(lambda: speed.input_value() == s0, "[ changes it back")
        kb.press(" ")
        wait_until(topo_playing, "Space plays the topology")
        kb.press(" ")
        wait_until(lambda: not topo_playing(), "Space pauses it again")
        kb.press("?")
        dialog = q('[role="dialog"][aria-label="Keyboard shortcuts"]')
        wait_until(lambda: dialog.count() == 1 and dialog.is_visible(), "? lists the topology's keys")
        kb.press("Escape")
        wait_until(lambda: dialog.count() == 0, "Escape closes it")
        q(".rs-topo-rate").click()
        kb.press(" ")
        time.sleep(0.3)
        expect(not topo_playing(), "Space in the rate field is typing")
    suite.check("the Topology tab's Space, →, [ ], ? and Escape (%s)" % label, topology_keys_work)


if __name__ == "__main__":
    sys.exit(main())
