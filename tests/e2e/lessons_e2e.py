#!/usr/bin/env python3
"""End-to-end test of the Lessons tab: serves dist/ under a strict Content-Security-Policy, opens a
Do step by link, sees a wrong answer refused with a hint, passes it with a correct one run in the
step's console, checks that progress survives a reload and can be reset, answers a Predict and a
Scenario step, looks at the tab on a phone, and embeds one step in a documentation page.

Usage: python3 tests/e2e/lessons_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import address, expect, run_site_suite, wait_until  # noqa: E402

EMBED_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lesson embed</title>
<link rel="stylesheet" href="play/redsim.css"><script type="module" src="play/redsim.js"></script></head>
<body class="rs-page rs-doc"><main class="rs-doc-main">
<h1>One step in a page</h1>
<div id="embedded" data-redsim-lesson="locks" data-redsim-step="5"></div>
</main></body></html>
"""

# The Do step "Make session:1 expire in exactly 30 s": chapter 2, step 4.
DO_LINK = "index.html?tab=lessons&lesson=ttl-expiry&step=4"


def shot(page, shots, name):
    page.screenshot(path=os.path.join(shots, name), full_page=True)


def main():
    return run_site_suite("redsim-lessons", {"width": 1440, "height": 900},
                          lambda r: run_checks(r.suite, r.page, r.base, r.site, r.shots, r.page_errors),
                          strict=True)


def run_checks(suite, page, base, site, shots, page_errors):
    q = page.locator

    def verdict():
        v = q(".rs-verdict")
        return v.get_attribute("data-pass") if v.count() else None

    def run_line(text):
        n = q(".rs-lesson-line").count()
        q(".rs-lesson-input").fill(text)
        q(".rs-lesson-input").press("Enter")
        wait_until(lambda: q(".rs-lesson-line").count() == n + 1, "the line ran")
        return q(".rs-lesson-out").last.inner_text() if q(".rs-lesson-out").count() else ""

    def chapter_count(chapter):
        return q('.rs-lesson-item[data-lesson="%s"] .rs-lesson-count' % chapter).inner_text()

    def runs_a_read_run_step():
        page.goto(base + "index.html?tab=lessons")
        q('.rs-step[data-step-id="miss-then-fill"]').wait_for(state="visible", timeout=15000)
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "false", "nothing run yet is refused")
        for i in range(q(".rs-step-cmd").count()):
            n = q(".rs-lesson-line").count()
            q(".rs-step-cmd").nth(i).click()
            wait_until(lambda: q(".rs-lesson-line").count() == n + 1, "command %d ran" % i)
        outs = q(".rs-lesson-out").all_inner_texts()
        expect(outs == ["(nil)", "OK", '"lamp"'], "redis-cli replies: %r" % outs)
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "the step passes once its commands ran")
        shot(page, shots, "lessons-readrun.png")
    suite.check("a Read-and-run step runs its commands by a click", runs_a_read_run_step)

    def opens_a_step_by_link():
        page.goto(base + DO_LINK)
        q('.rs-step[data-step-id="expire-in-30"]').wait_for(state="visible", timeout=15000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Lessons", "the Lessons tab is shown")
        expect(q(".rs-lesson-item").count() >= 10, "ten chapters or more are listed")
        expect(q('.rs-lesson-item.rs-on').get_attribute("data-lesson") == "ttl-expiry", "the linked chapter")
        expect(q(".rs-step").get_attribute("data-kind") == "do", "a Do step")
        expect(chapter_count("ttl-expiry").startswith("0/"), "nothing done yet")
    suite.check("a link opens the Lessons tab at a chapter's step", opens_a_step_by_link)

    def refuses_a_wrong_answer():
        reply = run_line("EXPIRE session:1 300")
        expect(reply == "(integer) 1", "the step's engine answers: %r" % reply)
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "false", "a refusal")
        expect("30000" in q(".rs-verdict").inner_text(), "the verdict says what is wrong")
        expect(q(".rs-hints li").count() == 1, "a hint after a wrong try")
        expect(chapter_count("ttl-expiry").startswith("0/"), "no progress for a wrong answer")
        shot(page, shots, "lessons-wrong.png")
    suite.check("a wrong answer is refused, with a hint", refuses_a_wrong_answer)

    def passes_a_correct_answer():
        q('[data-action="lesson-restart"]').click()
        wait_until(lambda: q(".rs-lesson-line").count() == 0, "a fresh engine")
        run_line("SET session:1 data EX 30")
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "a pass")
        expect(len(q(".rs-step-why").inner_text()) > 20, "why is explained")
        wait_until(lambda: chapter_count("ttl-expiry").startswith("1/"), "progress counts the step")
        expect(q('.rs-step-pill[data-step="4"]').inner_text() == "✓", "the step is ticked")
        shot(page, shots, "lessons-desktop.png")
    suite.check("a correct answer (any way to the goal) passes and counts", passes_a_correct_answer)

    def progress_survives_reload():
        page.reload()
        q('.rs-step[data-step-id="expire-in-30"]').wait_for(state="visible", timeout=15000)
        expect(chapter_count("ttl-expiry").startswith("1/"), "progress after a reload")
        expect(q(".rs-step-done").count() == 1, "the step says it is done")
    suite.check("progress survives a reload", progress_survives_reload)

    def predicts_a_reply():
        q('.rs-step-pill[data-step="2"]').click()
        q('.rs-step[data-step-id="ttl-missing"]').wait_for(state="visible")
        expect("step=2" in address(page), "the address bar follows the step: %s" % address(page))
        q('.rs-choice[data-choice="1"]').click()
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "false", "-1 refused")
        q('.rs-choice[data-choice="0"]').click()
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "-2 accepted")
        q('[data-action="lesson-reveal"]').click()
        expect(q('[data-reveal="true"]').inner_text() == "(integer) -2", "the real reply revealed")
        shot(page, shots, "lessons-predict.png")
    suite.check("a Predict step is checked against the engine's reply", predicts_a_reply)

    def tunes_a_scenario():
        q('.rs-lesson-item[data-lesson="stampede"]').click()
        q('.rs-step-pill[data-step="5"]').click()
        q('.rs-step[data-step-id="one-db-call"]').wait_for(state="visible")
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "false", "no protection refused")
        q('select[data-param="protection"]').select_option("lock")
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "a rebuild lock passes", timeout=15)
        href = q(".rs-step-link").get_attribute("href")
        expect("tab=scenarios" in href and "scenario=stampede" in href and "protection=lock" in href,
               "a link to the scenario with the form's values: %s" % href)
        shot(page, shots, "lessons-scenario.png")
    suite.check("a Scenario step runs the scenario with the learner's parameter", tunes_a_scenario)

    def resets_a_chapter():
        q('.rs-lesson-item[data-lesson="ttl-expiry"]').click()
        wait_until(lambda: chapter_count("ttl-expiry").startswith("2/"), "two steps done")
        q('[data-action="lesson-reset"]').click()
        wait_until(lambda: chapter_count("ttl-expiry").startswith("0/"), "reset")
        expect(chapter_count("stampede").startswith("1/"), "other chapters keep their progress")
        expect(chapter_count("cache-aside").startswith("1/"), "chapter 1 keeps its progress")
        page.reload()
        q(".rs-lesson-item").first.wait_for(state="visible", timeout=15000)
        expect(chapter_count("ttl-expiry").startswith("0/"), "the reset is stored")
    suite.check("a chapter's progress resets on its own", resets_a_chapter)

    def fits_a_phone():
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(base + DO_LINK)
        q('.rs-step[data-step-id="expire-in-30"]').wait_for(state="visible", timeout=15000)
        run_line("EXPIRE session:1 30")
        q('[data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "a pass on a phone")
        width = page.evaluate("document.documentElement.scrollWidth")
        expect(width <= 391, "no sideways scrolling on a phone: %d px" % width)
        tabs = q(".rs-pagetab").evaluate_all("els => els.map(e => e.getBoundingClientRect().top)")
        expect(len(set(round(t) for t in tabs)) == 1, "the tabs fit one row: %r" % tabs)
        shot(page, shots, "lessons-phone.png")
        page.set_viewport_size({"width": 1440, "height": 900})
    suite.check("the tab works at 390x844", fits_a_phone)

    def embeds_one_step():
        with open(os.path.join(site, "docs", "lesson.html"), "w") as f:
            f.write(EMBED_PAGE)
        page.goto(base.replace("play/", "lesson.html"))
        q("#embedded .rs-lessons-embedded").wait_for(state="visible", timeout=15000)
        expect(q("#embedded .rs-lesson-list").count() == 0, "no chapter list when embedded")
        expect(q('#embedded .rs-step').get_attribute("data-step-id") == "next-token", "the element's step")
        expect(q('#embedded [data-action="lesson-next"]').count() == 0, "one step: no navigation")
        run_line("INCR fence:job")
        q('#embedded [data-action="lesson-check"]').click()
        wait_until(lambda: verdict() == "true", "the embedded step passes")
        shot(page, shots, "lessons-embedded.png")
    suite.check("data-redsim-lesson embeds one step", embeds_one_step)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
    suite.check("no page errors", no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
