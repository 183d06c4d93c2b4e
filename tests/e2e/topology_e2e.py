#!/usr/bin/env python3
"""End-to-end test of the Topology tab: serves dist/, opens the playground's Topology tab in headless
Chromium (the system's /usr/bin/chromium), runs virtual time, holds the replication links and kills
the master, waits for Sentinel's SDOWN, ODOWN and a promoted replica, checks that the acknowledged
writes the failover lost are counted and drawn in red, then opens the address bar's share link in a
fresh page and checks it replays to the same state; last, the embedding page's [data-redsim-topology]
element.

Usage: python3 tests/e2e/topology_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import address, expect, run_at_sizes, wait_until  # noqa: E402

# The graph's and the timelines' markup as the page holds it.
DRAWINGS = """() => ['.rs-topo-graphbox', '.rs-topo-lanebox'].map(
    b => document.querySelector('#redsim ' + b + ' svg').innerHTML)"""

# Everything the tab shows about the world, read from the drawings' data attributes.
STATE = """() => {
  const root = document.querySelector('#redsim .rs-topo');
  if (!root) return null;
  const attrs = (sel, names) => [...root.querySelectorAll(sel)].map(
    e => names.map(n => e.getAttribute(n)).join('/'));
  const one = (sel, name) => { const e = root.querySelector(sel); return e ? e.getAttribute(name) : null; };
  return {
    now: one('[data-now-us]', 'data-now-us'),
    acked: one('[data-acked]', 'data-acked'),
    lost: one('[data-lost]', 'data-lost'),
    nodes: attrs('.rs-topo-graph .rs-topo-node', ['data-node', 'data-role', 'data-alive', 'data-isolated', 'data-offset']),
    sentinels: attrs('.rs-topo-graph .rs-topo-sentinel', ['data-sentinel', 'data-sdown', 'data-odown', 'data-leader']),
    links: attrs('.rs-topo-graph .rs-topo-link', ['data-from', 'data-to', 'data-paused']),
    client: one('.rs-topo-cpath', 'data-client-master'),
    marks: [...root.querySelectorAll('.rs-topo-lanes [data-kind]')].length,
  };
}"""


# The lanes' labels and marks as boxes in the drawing's own units: every label (the text of a
# single mark) and every mark (a single mark's line, circle or rect, and each dense bin), lines
# widened by their stroke.
LABEL_BOXES = """() => {
  const svg = document.querySelector('#redsim .rs-topo-lanes');
  if (!svg) return null;
  const box = (e, pad) => { const b = e.getBBox();
    return {x0: b.x - pad, y0: b.y, x1: b.x + b.width + pad, y1: b.y + b.height}; };
  const labels = [...svg.querySelectorAll('g.rs-topo-m > text')].map(t => Object.assign(box(t, 0),
    {kind: t.parentNode.getAttribute('data-kind'), text: t.textContent}));
  const marks = [...svg.querySelectorAll('g.rs-topo-m > line, g.rs-topo-m > circle, g.rs-topo-m > rect, rect.rs-topo-m')]
    .map(e => Object.assign(box(e, e.tagName === 'line' ? (parseFloat(getComputedStyle(e).strokeWidth) || 1) / 2 : 0),
      {kind: (e.closest('[data-kind]') || e).getAttribute('data-kind')}));
  return {labels, marks};
}"""



def overlap(a, b, tol=0.25):
    """The boxes share more than `tol` px each way."""
    return (a["x0"] < b["x1"] - tol and b["x0"] < a["x1"] - tol
            and a["y0"] < b["y1"] - tol and b["y0"] < a["y1"] - tol)


def main():
    return run_at_sizes("redsim-topology", lambda r, label: run_checks(
        r.suite, r.ctx, r.page, r.base, r.shots, r.page_errors, label))


def run_checks(suite, ctx, page, base, shots, page_errors, label="desktop"):
    q = page.locator
    shared = {}
    shots = os.path.join(shots, label)
    os.makedirs(shots, exist_ok=True)

    def state(pg=None):
        return (pg or page).evaluate(STATE)

    def step(ms, pg=None):
        (pg or page).locator('#redsim [data-action="topo-step"][data-ms="%d"]' % ms).click()

    def now_us(pg=None):
        return int(state(pg)["now"])

    def opens_the_topology_tab():
        page.goto(base + "index.html?tab=topology")
        q(".rs-topo-graph").wait_for(state="visible", timeout=15000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Topology", "the Topology tab is selected")
        expect(not q(".rs-widget").is_visible(), "the console is hidden")
        # A fresh session plays by itself.
        first = now_us()
        wait_until(lambda: now_us() > first, "virtual time to run")
        q('[data-action="topo-pause"]').click()
        s = state()
        roles = [n.split("/")[1] for n in s["nodes"]]
        expect(roles.count("master") == 1 and len(roles) >= 2, "one master and replicas: %r" % s["nodes"])
        expect(s["nodes"][0].split("/")[1] == "master", "node 0 starts as the master: %r" % s["nodes"])
        expect(len(s["sentinels"]) >= 3, "three or more sentinels: %r" % s["sentinels"])
        expect(len(s["links"]) == len(roles) - 1, "one link per replica: %r" % s["links"])
        expect(s["client"] == "0", "the client writes to node 0: %r" % s["client"])
        # Every node is in view in the graph's box, at any size: a row scaled to a wide box, a
        # column at a narrow box's own width (redsim_viz::topology::graph_svg_fit).
        fit = page.evaluate("""() => { const box = document.querySelector('#redsim .rs-topo-graphbox');
            const b = box.getBoundingClientRect();
            return {scroll: box.scrollWidth - box.clientWidth,
                    out: [...box.querySelectorAll('.rs-topo-node')].filter(n => {
                        const r = n.getBoundingClientRect();
                        return r.left < b.left - 1 || r.right > b.right + 1; }).length}; }""")
        expect(fit["scroll"] <= 1 and fit["out"] == 0,
               "the graph fits its box (%s): %r" % (label, fit))
    suite.check("the Topology tab opens and runs virtual time", opens_the_topology_tab)

    def time_runs_and_writes_are_drawn():
        before = now_us()
        step(5000)
        wait_until(lambda: now_us() == before + 5_000_000, "5 s of virtual time")
        s = state()
        expect(int(s["acked"]) > 0, "writes were acknowledged: %r" % s)
        expect(q(".rs-topo-lanes [data-kind=write]").count() > 0, "write marks in the lanes")
        expect(q(".rs-topo-lanes [data-kind=acked]").count() > 0, "ack marks in the lanes")
        expect(q(".rs-topo-lanes [data-kind=arrived]").count() > 0, "replication arrivals in the lanes")
        offsets = [int(n.split("/")[4]) for n in s["nodes"]]
        expect(offsets[0] > 0 and min(offsets) > 0, "every node has a replication offset: %r" % offsets)
        # Clicking a node shows its details.
        q('.rs-topo-graph .rs-topo-node[data-node="1"]').click()
        detail = q(".rs-topo-detail").inner_text()
        expect("node 1" in detail and "offset" in detail, detail)
        page.screenshot(path=os.path.join(shots, "topology.png"), full_page=True)
    suite.check("writes, acks and replication arrivals are drawn per node", time_runs_and_writes_are_drawn)

    def killing_the_master_fails_over():
        # Hold every replica's stream for a while, so the master acknowledges
        # writes no replica has: the failover must lose them.
        n = len(state()["nodes"])
        for r in range(1, n):
            q('[data-action="pause"][data-node="%d"]' % r).click()
        wait_until(lambda: all(lk.endswith("/true") for lk in state()["links"]), "links paused")
        expect(q(".rs-topo-link.rs-topo-paused").count() == n - 1, "paused links are drawn dashed")
        step(1000)
        killed_at = now_us()
        q('[data-action="kill"][data-node="0"]').click()
        wait_until(lambda: state()["nodes"][0].split("/")[2] == "false", "node 0 dead")
        expect(q(".rs-topo-lanes [data-kind=crash]").count() == 1, "the crash is marked on a lane")
        for r in range(1, n):
            q('[data-action="resume"][data-node="%d"]' % r).click()
        # In 0.1 s steps: SDOWN (after down-after-milliseconds), then ODOWN
        # once a quorum agrees, each shown on the sentinels while it holds.
        seen = {"sdown": None, "odown": None}
        masters = []
        promoted_at = None
        for _ in range(400):
            step(100)
            s = state()
            if seen["sdown"] is None and any(x.split("/")[1] == "true" for x in s["sentinels"]):
                seen["sdown"] = int(s["now"])
                expect(q(".rs-topo-graph .rs-topo-b-sdown").count() > 0, "an SDOWN badge")
                page.screenshot(path=os.path.join(shots, "topology-sdown.png"), full_page=True)
            if seen["odown"] is None and any(x.split("/")[2] == "true" for x in s["sentinels"]):
                seen["odown"] = int(s["now"])
                expect(q(".rs-topo-graph .rs-topo-b-odown").count() > 0, "an ODOWN badge")
            masters = [x for x in s["nodes"] if x.split("/")[1] == "master" and x.split("/")[0] != "0"]
            if masters and promoted_at is None:
                promoted_at = int(s["now"])
            # Then Sentinel announces it and the client follows.
            if masters and s["client"] == masters[0].split("/")[0]:
                break
        expect(seen["sdown"] is not None, "a sentinel showed SDOWN")
        expect(seen["odown"] is not None and seen["odown"] >= seen["sdown"], "ODOWN after SDOWN: %r" % seen)
        expect(masters, "a replica was promoted: %r" % s["nodes"])
        print("     killed at %.1f s: SDOWN %.1f s, ODOWN %.1f s, promoted %.1f s, client follows %.1f s" % (
            killed_at / 1e6, seen["sdown"] / 1e6, seen["odown"] / 1e6, promoted_at / 1e6, int(s["now"]) / 1e6))
        for kind in ("sdown", "odown", "elected", "promoted"):
            expect(q(".rs-topo-lanes [data-kind=%s]" % kind).count() > 0, "a %s mark on the lanes" % kind)
        expect(q(".rs-topo-lanes [data-kind=promoted]").count() >= 1, "the promotion is marked")
        expect(s["client"] == masters[0].split("/")[0], "the client follows the new master: %r" % s)
        last = q(".rs-topo-lastfo").inner_text()
        expect("node %s" % masters[0].split("/")[0] in last, "the bar names the last failover: %r" % last)
        page.screenshot(path=os.path.join(shots, "topology-failover.png"), full_page=True)
    suite.check("killing the master: SDOWN, ODOWN, a promoted replica", killing_the_master_fails_over)

    def lost_writes_are_highlighted():
        s = state()
        lost = int(s["lost"])
        expect(lost > 0, "acknowledged writes were lost: %r" % s)
        expect("rs-topo-lostcount" in (q("[data-lost]").get_attribute("class") or ""), "the lost counter is red")
        marks = q(".rs-topo-lanes .rs-topo-lostw")
        flags = q(".rs-topo-lanes [data-kind=lost]")
        expect(marks.count() + flags.count() > 0, "lost writes are drawn")
        red = page.evaluate(
            "() => { const e = document.querySelector('.rs-topo-lanes .rs-topo-lostw rect, .rs-topo-lanes [data-kind=lost] line');"
            " return e ? getComputedStyle(e).fill + '|' + getComputedStyle(e).stroke : null; }")
        expect(red and "216, 54, 43" in red, "lost marks are red: %r" % red)
        target = marks.first if marks.count() else flags.first
        target.click(force=True)
        detail = q(".rs-topo-detail").inner_text()
        expect("LOST" in detail or "lost" in detail, detail)
    suite.check("lost acknowledged writes are counted and drawn red", lost_writes_are_highlighted)

    def labels_overlap_nothing():
        found = page.evaluate(LABEL_BOXES)
        labels, marks = found["labels"], found["marks"]
        texts = [lb["text"] for lb in labels]
        print("     %d labels, %d marks: %s" % (len(labels), len(marks), " | ".join(texts)))
        for word in ("SDOWN", "ODOWN", "+switch-master", "LOST"):
            expect(any(word in t for t in texts), "a %s label is shown: %r" % (word, texts))
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                expect(not overlap(a, b), "labels overlap: %r and %r" % (a, b))
            for m in marks:
                expect(not overlap(a, m), "label %r overlaps a %s mark %r" % (a, m["kind"], m))
    suite.check("SDOWN, ODOWN, LOST and +switch-master labels overlap no label and no mark",
                labels_overlap_nothing)

    def playing_patches_the_drawings_in_place():
        # Playing, the drawings are changed in place at each tick (web/src/live_svg.rs): the
        # same <svg> elements stay, and what they hold must be what a drawing put in whole holds.
        page.evaluate("""() => { for (const s of document.querySelectorAll('#redsim .rs-topo svg'))
                                   s.dataset.probe = 'kept'; }""")
        before = now_us()
        q('[data-action="topo-play"]').click()
        wait_until(lambda: now_us() >= before + 1_500_000, "1.5 s of virtual time to play")
        q('[data-action="topo-pause"]').click()
        kept = page.evaluate("""() => [...document.querySelectorAll('#redsim .rs-topo svg')]
                                  .map(s => s.dataset.probe || null)""")
        expect(kept == ["kept", "kept"], "the graph's and the timelines' <svg> stayed while playing: %r" % kept)
        read = DRAWINGS
        patched = page.evaluate(read)
        expect(patched[1].count("data-kind") > 100, "a busy timeline was played")
        # Another window and back: the lanes are drawn anew, the graph is left alone.
        window = q(".rs-topo-window")
        shown = window.input_value()
        window.select_option("30" if shown != "30" else "60")
        wait_until(lambda: page.evaluate(read)[1] != patched[1], "the other window to be drawn")
        window.select_option(shown)
        wait_until(lambda: page.evaluate(read)[1] == patched[1],
                   "the same timelines drawn anew as were patched tick by tick", timeout=5)
        # The graph (and the lanes again) are compared with a page that draws them whole: the
        # share link's, opened next at this instant.
    suite.check("playing changes the drawings in place, to what a whole drawing shows",
                playing_patches_the_drawings_in_place)

    def share_link_replays_the_same_state():
        url = wait_until(lambda: address(page) if "do=" in address(page) else None, "the address bar to carry the script")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
        expect(query.get("tab") == ["topology"], url)
        expect("kill.0" in query["do"][0] and "pause.1" in query["do"][0], url)
        expect(query.get("t") == [str(now_us() // 1000)], "t is the current instant: %s" % url)
        expect(q(".rs-topo-sharelink").input_value() == url, "the share box shows the same link")
        here = state()
        other = ctx.new_page()
        other.on("pageerror", lambda e: page_errors.append(str(e)))
        other.goto(url)
        other.locator(".rs-topo-graph").wait_for(state="visible", timeout=15000)
        wait_until(lambda: state(other) and state(other)["now"] == here["now"], "the replay to reach t")
        there = state(other)
        # A shared session opens paused, so it stays where it was shared.
        other.wait_for_timeout(300)
        expect(state(other)["now"] == here["now"], "the shared session is paused")
        for k in ("acked", "lost", "nodes", "sentinels", "links", "client"):
            expect(there[k] == here[k], "%s: %r != %r" % (k, there[k], here[k]))
        # Drawn whole on a fresh page, the drawings are those this page patched tick by tick.
        mine, fresh = page.evaluate(DRAWINGS), other.evaluate(DRAWINGS)
        expect(fresh[0] == mine[0], "the same graph drawn whole as patched")
        expect(fresh[1] == mine[1], "the same timelines drawn whole as patched")
        expect(other.locator(".rs-topo-lanes .rs-topo-lostw, .rs-topo-lanes [data-kind=lost]").count() > 0,
               "the replay highlights the lost writes too")
        other.screenshot(path=os.path.join(shots, "topology-shared.png"), full_page=True)
        shared["page"] = other
        # It goes on from there: a step runs the same world on.
        step(1000, other)
        wait_until(lambda: int(state(other)["now"]) == int(here["now"]) + 1_000_000, "one more second")
        other.close()
    suite.check("the share link replays to the same state", share_link_replays_the_same_state)

    def controls_change_the_world():
        q('[data-action="partition"][data-node="1"]').click()
        wait_until(lambda: state()["nodes"][1].split("/")[3] == "true", "node 1 isolated")
        expect(q('.rs-topo-graph .rs-topo-node.rs-topo-isolated[data-node="1"]').count() == 1, "drawn isolated")
        q('[data-action="heal"][data-node="1"]').click()
        wait_until(lambda: state()["nodes"][1].split("/")[3] == "false", "node 1 healed")
        q('.rs-topo-fsyncsel[data-node="1"]').select_option("always")
        wait_until(lambda: "fsync.1.always" in address(page), "the fsync change in the link")
        q('[data-action="restart"][data-node="0"]').click()
        wait_until(lambda: state()["nodes"][0].split("/")[2] == "true", "node 0 restarted")
        expect(q(".rs-topo-lanes [data-kind=restart]").count() == 1, "the restart is marked")
        # SENTINEL FAILOVER moves the master without a failure.
        def master():
            return [x.split("/")[0] for x in state()["nodes"] if x.split("/")[1] == "master" and x.split("/")[2] == "true"]
        # The restarted old master comes back a master; Sentinel converts it
        # to a replica of the new one a few seconds after it sees it.
        for _ in range(30):
            if len(master()) == 1:
                break
            step(1000)
        old = master()
        expect(len(old) == 1, "one live master before the manual failover: %r" % old)
        q('[data-action="topo-failover"]').click()
        # The old master stays one until Sentinel converts it, as after a crash.
        for _ in range(30):
            step(1000)
            m = master()
            if len(m) == 1 and m != old and state()["client"] == m[0]:
                break
        expect(len(master()) == 1 and master() != old, "a manual failover moved the master: %r -> %r" % (old, master()))
        expect("failover" in address(page), "the failover is in the link: %s" % address(page))
        q('[data-action="topo-play"]').click()
        before = now_us()
        wait_until(lambda: now_us() > before + 200_000, "play to run time")
        q('[data-action="topo-pause"]').click()
        # Reset with another seed starts over.
        seed = q('.rs-topo-opt input[data-option="seed"]')
        seed.fill("42")
        seed.dispatch_event("change")
        wait_until(lambda: "seed=42" in address(page) and "do=" not in address(page), "a fresh world with seed 42")
        expect(state()["lost"] == "0", "nothing lost in a fresh world")
    suite.check("partition, heal, appendfsync, restart, manual failover, play and reset", controls_change_the_world)

    def embedded_element_replays_its_params():
        page.goto(base + "embed.html")
        host = q("[data-redsim-topology]")
        host.locator(".rs-topo-graph").wait_for(state="visible", timeout=15000)
        expect(host.locator("[data-now-us]").get_attribute("data-now-us") == "12000000", "paused at t=12 s")
        nodes = host.locator(".rs-topo-graph .rs-topo-node")
        expect(nodes.nth(0).get_attribute("data-alive") == "false", "node 0 was killed at 3 s")
        roles = [nodes.nth(i).get_attribute("data-role") for i in range(nodes.count())]
        expect(roles[0] == "master" and roles[1:].count("master") == 1, "a replica took over: %r" % roles)
        expect(host.locator(".rs-topo-sharelink").count() == 0, "no share box on a documentation page")
        expect(address(page).endswith("embed.html"), "the page's address is left alone: %s" % address(page))
        # The other widgets on the page still work.
        expect(q("[data-redsim] .rs-input").count() >= 1, "console widgets mounted too")
    suite.check("a [data-redsim-topology] element replays its data-params", embedded_element_replays_its_params)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
        expect(page.locator(".rs-crash").count() == 0, "no crash overlay")
    suite.check("no uncaught page errors", no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
