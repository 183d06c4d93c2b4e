#!/usr/bin/env python3
"""End-to-end test of the Cluster view (the slot map): serves dist/, opens the playground's Cluster
tab in headless Chromium (the system's /usr/bin/chromium), reads the slot map's canvas back,
types a key with a hash tag and compares the slot shown with CRC16-XMODEM computed here, runs
the animated slot migration, kills a master to watch its replica take the slots over on the
sim clock (PFAIL, FAIL, election, promotion), and restarts it as a replica of the winner.

Usage: python3 tests/e2e/slotmap_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import expect, run_site_suite, wait_until  # noqa: E402


def crc16_xmodem(data):
    """CRC16 as Redis Cluster uses it: polynomial 0x1021, initial 0, no reflection."""
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def key_hash_slot(key):
    """Redis' keyHashSlot: hash only the first non-empty {tag} if there is one."""
    k = key.encode()
    s = k.find(b"{")
    if s != -1:
        e = k.find(b"}", s + 1)
        if e != -1 and e != s + 1:
            k = k[s + 1:e]
    return crc16_xmodem(k) & 0x3FFF


# The canvas' pixels: how many are not white, and how many distinct colours.
CANVAS_STATS = """() => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  if (!c) return null;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let inked = 0; const colours = new Set();
  for (let i = 0; i < d.length; i += 4) {
    if (!(d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255)) inked++;
    colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  return {w: c.width, h: c.height, inked, colours: colours.size, total: d.length / 4};
}"""

# The colour of the centre of slot `s` (128 cells of 4 px per row).
CELL_RGB = """(s) => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  const x = (s % 128) * 4 + 1, y = Math.floor(s / 128) * 4 + 1;
  const d = c.getContext('2d').getImageData(x, y, 1, 1).data;
  return [d[0], d[1], d[2]];
}"""


def main():
    return run_site_suite(
        "redsim-slotmap",
        {"width": 1280, "height": 1100},
        lambda r: run_checks(r.suite, r.page, r.base, r.shots, r.page_errors),
    )


def run_checks(suite, page, base, shots, page_errors):
    q = page.locator

    def slot_shown():
        return int(q(".rs-slotmap-slot").get_attribute("data-slot"))

    def show_key(key, what):
        """Types `key` in the slot map's input, waits for its slot to show and returns it."""
        slot = key_hash_slot(key)
        q(".rs-slotmap-input").fill(key)
        wait_until(lambda: slot_shown() == slot, what)
        return slot

    def opens_the_cluster_view():
        page.goto(base + "index.html")
        q(".rs-input").wait_for(state="visible", timeout=15000)
        q('[data-action="tab-cluster"]').click()
        q("canvas.rs-slotmap-canvas").wait_for(state="visible", timeout=5000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Cluster", "the Cluster tab is selected")
        expect(not q(".rs-widget").is_visible(), "the console is hidden")
        # One canvas, not a DOM node per slot.
        expect(q(".rs-slotmap canvas").count() == 1, "one canvas")
        expect(q(".rs-slotmap *").count() < 200, "the slot map is not 16384 DOM nodes")
    suite.check("the Cluster tab shows a slot map canvas", opens_the_cluster_view)

    def canvas_has_pixels():
        stats = wait_until(lambda: (lambda s: s if s and s["inked"] > 0 else None)(page.evaluate(CANVAS_STATS)),
                           "the slot map to be drawn")
        expect(stats["w"] * stats["h"] == 128 * 4 * 128 * 4, "128x128 cells of 4 px: %r" % stats)
        expect(stats["inked"] > stats["total"] * 0.9, "most pixels drawn: %r" % stats)
        # Three owners at several heat levels.
        expect(stats["colours"] >= 6, "owner colours and heat shades: %r" % stats)
        legend = q(".rs-slotmap-legend").inner_text()
        for n in ("node 0: 5461 slots", "node 1: 5462 slots", "node 2: 5461 slots"):
            expect(n in legend, "legend %r has %r" % (legend, n))
    suite.check("the canvas is drawn (pixels read back)", canvas_has_pixels)

    def typed_key_shows_its_slot():
        key = "user:{42}:cart"
        inp = q(".rs-slotmap-input")
        inp.fill("")
        inp.type(key)
        expected = key_hash_slot(key)
        expect(8000 <= expected < 9000, "user:{42}:cart hashes {42}: slot %d" % expected)
        wait_until(lambda: slot_shown() == expected, "slot %d shown" % expected)
        expect(q(".rs-slotmap-tag").inner_text() == "42", "the tag is highlighted")
        text = q(".rs-slotmap-key").inner_text()
        expect("slot %d" % expected in text and "owned by node 1" in text, text)
        # The same tag hashes the same; without a tag the whole key counts.
        inp.fill("order:{42}:lines")
        wait_until(lambda: slot_shown() == expected, "same tag, same slot")
        inp.fill("user:42:cart")
        wait_until(lambda: slot_shown() == key_hash_slot("user:42:cart"), "untagged key's slot")
        expect(q(".rs-slotmap-tag").count() == 0, "no tag to highlight")
        expect(key_hash_slot("user:42:cart") != expected, "the tag changed the slot")
        inp.fill(key)
        wait_until(lambda: slot_shown() == expected, "back to the tagged key")
        page.screenshot(path=os.path.join(shots, "slotmap.png"), full_page=True)
    suite.check("a typed key shows its slot (CRC16-XMODEM) and hash tag", typed_key_shows_its_slot)

    def migration_moves_the_slot():
        slot = show_key("{tenant:42}:order:1", "tenant slot shown")
        before = page.evaluate(CELL_RGB, slot)
        owner_before = q(".rs-slotmap-key").inner_text()
        q('[data-action="migrate"]').click()
        wait_until(lambda: "Migrating slot %d" % slot in q(".rs-slotmap-status").inner_text(),
                   "the migration to start")
        page.screenshot(path=os.path.join(shots, "slotmap-migrating.png"), full_page=True)
        status = wait_until(lambda: (lambda t: t if "now belongs to" in t else None)(
            q(".rs-slotmap-status").inner_text()), "the migration to end", timeout=15.0)
        expect("201 keys moved" in status, status)
        after = page.evaluate(CELL_RGB, slot)
        expect(before != after, "the cell changed colour: %r -> %r" % (before, after))
        owner_after = q(".rs-slotmap-key").inner_text()
        expect(owner_before != owner_after and "owned by node" in owner_after, owner_after)
        # Slot 10956 was node 2's; the view moves a slot to the next master.
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 0: 5462 slots" in legend and "node 2: 5460 slots" in legend, legend)
        page.screenshot(path=os.path.join(shots, "slotmap-migrated.png"), full_page=True)
    suite.check("Migrate moves the slot to another node, animated", migration_moves_the_slot)

    def kill_fails_over_to_the_replica():
        slot = show_key("user:{42}:cart", "the user's slot shown")
        expect("owned by node 1" in q(".rs-slotmap-key").inner_text(), "node 1 owns it")
        before = page.evaluate(CELL_RGB, slot)
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 4: 0 slots, replica of node 1" in legend, legend)
        q('[data-action="kill"]').click()
        wait_until(lambda: "is down" in q(".rs-slotmap-status").inner_text()
                   or "after node 1 died" in q(".rs-slotmap-status").inner_text(), "the kill to start")
        expect(q('[data-action="migrate"]').is_disabled(), "no migration during a failover")
        # The observers suspect it first (fail?), then agree (fail).
        wait_until(lambda: "PFAIL" in q(".rs-slotmap-status").inner_text()
                   or "FAIL" in q(".rs-slotmap-status").inner_text(), "PFAIL seen", timeout=15.0)
        page.screenshot(path=os.path.join(shots, "slotmap-failing.png"), full_page=True)
        status = wait_until(lambda: (lambda t: t if "was promoted" in t else None)(
            q(".rs-slotmap-status").inner_text()), "the replica to be promoted", timeout=30.0)
        expect("Node 4 was promoted" in status and "5462 slots" in status, status)
        after = page.evaluate(CELL_RGB, slot)
        expect(before != after, "the slot changed colour: %r -> %r" % (before, after))
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 4: 5462 slots" in legend and "down" in legend and "(fail)" in legend, legend)
        expect("owned by node 4" in q(".rs-slotmap-key").inner_text(), q(".rs-slotmap-key").inner_text())
        page.screenshot(path=os.path.join(shots, "slotmap-failed-over.png"), full_page=True)
    suite.check("Kill fails the master over to its replica on the sim clock", kill_fails_over_to_the_replica)

    def restart_brings_the_old_master_back_as_a_replica():
        q('[data-action="restart"]').click()
        status = wait_until(lambda: (lambda t: t if "is back" in t else None)(
            q(".rs-slotmap-status").inner_text()), "the restart")
        expect("node 1 is back as a replica of node 4" in status, status)
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 1: 0 slots, replica of node 4" in legend and "down" not in legend
               and "fail" not in legend, legend)
        expect(q('[data-action="restart"]').is_disabled(), "nothing left to restart")
    suite.check("Restart brings the old master back as a replica of the winner",
                restart_brings_the_old_master_back_as_a_replica)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
    suite.check("no uncaught page errors", no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
