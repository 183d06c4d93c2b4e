#!/usr/bin/env python3
"""End-to-end test of the Cluster view (the slot map): serves dist/, opens the playground's Cluster
tab in headless Chromium (the system's /usr/bin/chromium), reads the slot map's canvas back,
types a key with a hash tag and compares the slot shown with CRC16-XMODEM computed here, runs
the animated slot migration, kills a master to watch its replica take the slots over on the
sim clock (PFAIL, FAIL, election, promotion) with its slots hatched meanwhile, and restarts it as a
replica of the winner. The canvas must fill its container at the device's pixel ratio and follow
resizes; hovering (tapping, on the phone) reads a slot out; the cluster console shows the MOVED and
ASK redirects it follows, and the address bar's link replays its commands. Runs at 1440x900 and at
390x844 (3 device pixels per CSS pixel, touch), under a strict Content-Security-Policy.

Usage: python3 tests/e2e/slotmap_e2e.py [--dist DIR] [--shots DIR]
Prints "N passed, M failed" and exits non-zero on any failure. Screenshots go to target/e2e/.
"""

import base64
import os
import sys
import urllib.parse
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import address, SIZES, expect, run_at_sizes, wait_until  # noqa: E402


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


# The canvas' pixels: how many are not white, and how many distinct colours; its backing store
# against its size on screen and its container's.
CANVAS_STATS = """() => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  if (!c) return null;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let inked = 0; const colours = new Set();
  for (let i = 0; i < d.length; i += 4) {
    if (!(d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255)) inked++;
    colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  const r = c.getBoundingClientRect(), p = c.parentElement.getBoundingClientRect();
  return {w: c.width, h: c.height, inked, colours: colours.size, total: d.length / 4,
          css_w: r.width, css_h: r.height, parent_w: p.width, dpr: window.devicePixelRatio,
          page_w: document.documentElement.scrollWidth, view_w: window.innerWidth};
}"""

# The pixels of slot `s`'s cell (its inner part), as [r, g, b] triples.
CELL_PIXELS = """(s) => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  const e = (i, len) => Math.round(i * len / 128);
  const col = s % 128, row = Math.floor(s / 128);
  const x0 = e(col, c.width), x1 = e(col + 1, c.width), y0 = e(row, c.height), y1 = e(row + 1, c.height);
  const d = c.getContext('2d').getImageData(x0 + 1, y0 + 1, Math.max(1, x1 - x0 - 2), Math.max(1, y1 - y0 - 2)).data;
  const out = [];
  for (let i = 0; i < d.length; i += 4) out.push([d[i], d[i + 1], d[i + 2]]);
  return out;
}"""

# Where slot `s`'s centre is on screen (CSS px, page coordinates).
CELL_POINT = """(s) => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  const r = c.getBoundingClientRect();
  return {x: r.left + ((s % 128) + 0.5) * r.width / 128, y: r.top + (Math.floor(s / 128) + 0.5) * r.height / 128};
}"""

# The colour of slot `s`'s cell, one pixel in from its top left corner (clear of the key's crosshair).
CELL_RGB = """(s) => {
  const c = document.querySelector('#redsim canvas.rs-slotmap-canvas');
  const x = Math.round((s % 128) * c.width / 128) + 1, y = Math.round(Math.floor(s / 128) * c.height / 128) + 1;
  const d = c.getContext('2d').getImageData(x, y, 1, 1).data;
  return [d[0], d[1], d[2]];
}"""

# Device pixels per CSS pixel at each size: a phone draws the canvas at 3x.
DPR = {"desktop": 1, "phone": 3}


def packed_lines(url):
    """The log lines a `#c=` link packs (raw deflate, base64url)."""
    frag = urllib.parse.urlsplit(url).fragment
    packed = urllib.parse.parse_qs(frag)["c"][0]
    raw = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
    return zlib.decompress(raw, -15).decode().splitlines()


def main():
    viewports = dict(SIZES)
    return run_at_sizes("redsim-slotmap",
                        lambda run, label: run_checks(run, label, viewports[label], DPR[label]),
                        strict=True)


def run_checks(run, label, viewport, dpr):
    suite, page, base, shots, page_errors = run.suite, run.page, run.base, run.shots, run.page_errors
    q = page.locator
    phone = label == "phone"
    cdp = run.ctx.new_cdp_session(page)
    if dpr != 1:
        # A phone's screen: 3 device pixels per CSS pixel, touch input.
        cdp.send("Emulation.setDeviceMetricsOverride", {
            "width": viewport["width"], "height": viewport["height"], "deviceScaleFactor": dpr, "mobile": True})
    if phone:
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})

    def shot(name):
        page.screenshot(path=os.path.join(shots, "%s-%s.png" % (name, label)), full_page=True)

    def slot_shown():
        return int(q(".rs-slotmap-slot").get_attribute("data-slot"))

    def show_key(key, what):
        """Types `key` in the slot map's input, waits for its slot to show and returns it."""
        slot = key_hash_slot(key)
        q(".rs-slotmap-input").fill(key)
        wait_until(lambda: slot_shown() == slot, what)
        return slot

    def status():
        return q(".rs-slotmap-status").inner_text()

    def point_at(slot):
        """Hovers slot `slot` with the mouse, or taps it on the phone."""
        # Scrolled to the middle of the screen first.
        pt = page.evaluate(CELL_POINT, slot)
        page.evaluate("(y) => window.scrollBy(0, y - window.innerHeight / 2)", pt["y"])
        page.wait_for_timeout(50)
        pt = page.evaluate(CELL_POINT, slot)
        if phone:
            for kind in ("touchStart", "touchEnd"):
                cdp.send("Input.dispatchTouchEvent", {
                    "type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": pt["x"], "y": pt["y"]}]})
        else:
            page.mouse.move(pt["x"], pt["y"])
        return wait_until(lambda: q(".rs-slotmap-readout").get_attribute("data-slot") == str(slot),
                          "the readout to name slot %d" % slot)

    def console_lines():
        return [(e.get_attribute("class"), e.inner_text()) for e in q(".rs-slotmap-out > div").all()]

    def send(line):
        n = q(".rs-slotmap-out > div").count()
        q(".rs-slotmap-cmd").fill(line)
        q(".rs-slotmap-cmd").press("Enter")
        wait_until(lambda: q(".rs-slotmap-out > div").count() > n, "the reply to %r" % line)
        return console_lines()[n:]

    def opens_the_cluster_view():
        page.goto(base + "index.html")
        q(".rs-input").wait_for(state="visible", timeout=15000)
        q('[data-action="tab-cluster"]').click()
        q("canvas.rs-slotmap-canvas").wait_for(state="visible", timeout=5000)
        expect(q(".rs-pagetab.rs-on").inner_text() == "Cluster", "the Cluster tab is selected")
        expect(not q(".rs-widget").is_visible(), "the console is hidden")
        # One canvas, not a DOM node per slot; no inline style (a strict CSP would drop it).
        expect(q(".rs-slotmap canvas").count() == 1, "one canvas")
        expect(q(".rs-slotmap *").count() < 200, "the slot map is not 16384 DOM nodes")
        expect(q(".rs-slotmap [style]").count() == 0, "no inline style attributes")
    suite.check("the Cluster tab shows a slot map canvas (%s)" % label, opens_the_cluster_view)

    def canvas_fills_its_container_crisply():
        stats = wait_until(lambda: (lambda s: s if s and s["inked"] > 0 and s["w"] != 512 else None)(
            page.evaluate(CANVAS_STATS)), "the slot map to be sized and drawn")
        print("     canvas %dx%d device px, shown %.0fx%.0f CSS px in a %.0f px container, dpr %s" % (
            stats["w"], stats["h"], stats["css_w"], stats["css_h"], stats["parent_w"], stats["dpr"]))
        expect(abs(stats["css_w"] - stats["parent_w"]) <= 1, "fills its container: %r" % stats)
        expect(stats["dpr"] == dpr, "device pixel ratio %s: %r" % (dpr, stats))
        expect(abs(stats["w"] - stats["css_w"] * dpr) <= dpr, "one backing pixel per device pixel: %r" % stats)
        expect(stats["w"] == stats["h"] and abs(stats["css_h"] - stats["css_w"]) <= 1, "square: %r" % stats)
        expect(stats["page_w"] <= stats["view_w"], "nothing wider than the screen: %r" % stats)
        if phone:
            expect(stats["css_w"] >= 340, "the phone's width is used: %r" % stats)
        else:
            expect(stats["css_w"] >= 640, "the desktop's width is used: %r" % stats)
        expect(stats["inked"] > stats["total"] * 0.9, "most pixels drawn: %r" % stats)
        # Three owners at several heat levels.
        expect(stats["colours"] >= 6, "owner colours and heat shades: %r" % stats)
        legend = q(".rs-slotmap-legend").inner_text()
        for n in ("node 0: 5461 slots", "node 1: 5462 slots", "node 2: 5461 slots", "hatched"):
            expect(n in legend, "legend %r has %r" % (legend, n))
    suite.check("the canvas fills its container, at the device's pixel ratio (%s)" % label,
                canvas_fills_its_container_crisply)

    def canvas_redraws_on_resize():
        before = page.evaluate(CANVAS_STATS)
        narrower = dict(viewport, width=int(viewport["width"] * 0.7))
        page.set_viewport_size(narrower)
        if dpr != 1:
            cdp.send("Emulation.setDeviceMetricsOverride", dict(narrower, deviceScaleFactor=dpr, mobile=True))

        # Setting the size and then the ratio are two steps, and the canvas may be drawn between
        # them: wait for the state both lead to, a narrower canvas at the device's ratio.
        def settled(s):
            return (s["w"] != before["w"] and abs(s["css_w"] - s["parent_w"]) <= 1 and s["css_w"] < before["css_w"]
                    and abs(s["w"] - s["css_w"] * dpr) <= dpr and s["inked"] > s["total"] * 0.9)
        seen = {}

        def now():
            seen["last"] = page.evaluate(CANVAS_STATS)
            return settled(seen["last"])
        try:
            wait_until(now, "the canvas to follow the resize")
        except AssertionError:
            raise AssertionError("the canvas did not follow the resize at ratio %s: %r" % (dpr, seen.get("last")))
        page.set_viewport_size(viewport)
        if dpr != 1:
            cdp.send("Emulation.setDeviceMetricsOverride", dict(viewport, deviceScaleFactor=dpr, mobile=True))
        wait_until(lambda: page.evaluate(CANVAS_STATS)["w"] == before["w"], "back to the first size")
    suite.check("the canvas is resized and redrawn with the window (%s)" % label, canvas_redraws_on_resize)

    def canvas_follows_the_theme():
        light = page.evaluate(CELL_RGB, 1)
        # A dark theme sets the panel colour the cells are drawn over.
        page.evaluate("() => { document.documentElement.style.setProperty('--rs-panel', '#101418');"
                      " window.dispatchEvent(new Event('resize')); }")
        dark = wait_until(lambda: (lambda c: c if c != light else None)(page.evaluate(CELL_RGB, 1)),
                          "the canvas to be redrawn over the dark panel")
        expect(sum(dark) < sum(light) - 150, "darker cells: %r -> %r" % (light, dark))
        page.evaluate("() => { document.documentElement.style.removeProperty('--rs-panel');"
                      " window.dispatchEvent(new Event('resize')); }")
        wait_until(lambda: page.evaluate(CELL_RGB, 1) == light, "back to the light panel")
    suite.check("the canvas is drawn in the page's theme colours (%s)" % label, canvas_follows_the_theme)

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
        shot("slotmap")
    suite.check("a typed key shows its slot (CRC16-XMODEM) and hash tag (%s)" % label, typed_key_shows_its_slot)

    def pointing_reads_out_the_slot():
        user = key_hash_slot("user:{42}:cart")
        point_at(user)
        text = q(".rs-slotmap-readout").inner_text()
        expect(text == "slot %d: node 1 (127.0.0.1:7001), 1 key" % user, text)
        tenant = key_hash_slot("{tenant:42}:order:1")
        point_at(tenant)
        text = q(".rs-slotmap-readout").inner_text()
        # 200 orders and the catalogue.
        expect(text == "slot %d: node 2 (127.0.0.1:7002), 201 keys" % tenant, text)
        point_at(0)
        expect(q(".rs-slotmap-readout").inner_text() == "slot 0: node 0 (127.0.0.1:7000), 0 keys",
               q(".rs-slotmap-readout").inner_text())
        point_at(16383)
        expect(q(".rs-slotmap-readout").inner_text().startswith("slot 16383: node 2 "), q(".rs-slotmap-readout").inner_text())
    suite.check("%s a cell reads out its slot, owner and key count" % ("tapping" if phone else "hovering"),
                pointing_reads_out_the_slot)

    def console_follows_moved():
        expect(q(".rs-slotmap-prompt").inner_text() == "127.0.0.1:7000>", q(".rs-slotmap-prompt").inner_text())
        slot = key_hash_slot("user:{42}:cart")
        lines = send("GET user:{42}:cart")
        expect([c for c, _ in lines] == ["rs-slotmap-cl-cmd", "rs-slotmap-cl-redirect", "rs-slotmap-cl-reply"], "%r" % lines)
        expect(lines[0][1] == "127.0.0.1:7000> GET user:{42}:cart", "%r" % lines)
        expect(lines[1][1] == "-> MOVED %d 127.0.0.1:7001" % slot, "%r" % lines)
        expect(lines[2][1] == '"[]"', "%r" % lines)
        # Connected to 7001 now, as redis-cli -c stays: no redirect for it.
        wait_until(lambda: q(".rs-slotmap-prompt").inner_text() == "127.0.0.1:7001>", "the prompt to follow")
        lines = send("SET user:{42}:name ann")
        expect([t for _, t in lines] == ["127.0.0.1:7001> SET user:{42}:name ann", "OK"], "%r" % lines)
        lines = send("CLUSTER KEYSLOT {tenant:42}")
        expect(lines[-1][1] == "(integer) %d" % key_hash_slot("{tenant:42}"), "%r" % lines)
    suite.check("the cluster console shows MOVED before the reply (%s)" % label, console_follows_moved)

    def migration_shows_ask():
        slot = show_key("{tenant:42}:order:1", "tenant slot shown")
        before = page.evaluate(CELL_RGB, slot)
        owner_before = q(".rs-slotmap-key").inner_text()
        q('[data-action="migrate"]').click()
        wait_until(lambda: "Migrating slot %d" % slot in status(), "the migration to start")
        # A key the source no longer has (or never had): ASK to the target.
        lines = send("GET {tenant:42}:gone")
        expect("Migrating slot %d" % slot in status(), "still migrating: %r" % status())
        expect([t for _, t in lines] == [
            "127.0.0.1:7001> GET {tenant:42}:gone",
            "-> MOVED %d 127.0.0.1:7002" % slot,
            "-> ASK %d 127.0.0.1:7000" % slot,
            "(nil)"], "%r" % lines)
        point_at(slot)
        expect("migrating to node 0" in q(".rs-slotmap-readout").inner_text(), q(".rs-slotmap-readout").inner_text())
        shot("slotmap-migrating")
        st = wait_until(lambda: (lambda t: t if "now belongs to" in t else None)(status()),
                        "the migration to end", timeout=15.0)
        expect("201 keys moved" in st, st)
        after = page.evaluate(CELL_RGB, slot)
        expect(before != after, "the cell changed colour: %r -> %r" % (before, after))
        owner_after = q(".rs-slotmap-key").inner_text()
        expect(owner_before != owner_after and "owned by node" in owner_after, owner_after)
        # Slot 10956 was node 2's; the view moves a slot to the next master.
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 0: 5462 slots" in legend and "node 2: 5460 slots" in legend, legend)
        lines = send("GET {tenant:42}:order:7")
        expect([t for _, t in lines] == ["127.0.0.1:7000> GET {tenant:42}:order:7", '"o"'], "%r" % lines)
        shot("slotmap-migrated")
    suite.check("Migrate moves the slot, and the console shows ASK meanwhile (%s)" % label, migration_shows_ask)

    def link_replays_console():
        url = wait_until(lambda: address(page) if "#c=" in address(page) else None, "the address to carry the log")
        lines = packed_lines(url)
        for want in ("cmd GET user:{42}:cart", "cmd GET {tenant:42}:gone", "migrate"):
            expect(want in lines, "%r in %r" % (want, lines))
        expect(lines.index("migrate") < lines.index("cmd GET {tenant:42}:gone"), "%r" % lines)
        shown = q(".rs-slotmap-out").inner_text()
        other = run.ctx.new_page()
        other.on("pageerror", lambda e: page_errors.append(str(e)))
        other.goto(url)
        other.locator(".rs-slotmap-out").wait_for(timeout=15000)
        wait_until(lambda: other.locator(".rs-slotmap-out").inner_text() == shown,
                   "the link to replay the console: %r" % other.locator(".rs-slotmap-out").inner_text())
        expect(other.locator(".rs-slotmap-status").inner_text() == status(), "same status")
        expect(other.locator(".rs-slotmap-prompt").inner_text() == q(".rs-slotmap-prompt").inner_text(), "same prompt")
        other.close()
    suite.check("the link replays the console's commands (%s)" % label, link_replays_console)

    def kill_fails_over_to_the_replica():
        slot = show_key("user:{42}:cart", "the user's slot shown")
        expect("owned by node 1" in q(".rs-slotmap-key").inner_text(), "node 1 owns it")
        before = page.evaluate(CELL_RGB, slot)
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 4: 0 slots, replica of node 1" in legend, legend)
        q('[data-action="kill"]').click()
        wait_until(lambda: "is down" in status() or "after node 1 died" in status(), "the kill to start")
        expect(q('[data-action="migrate"]').is_disabled(), "no migration during a failover")
        # Its slots are greyed and hatched at once: nobody serves them.
        px = page.evaluate(CELL_PIXELS, slot)
        expect(all(abs(r - g) < 8 and abs(g - b) < 8 for r, g, b in px), "grey: %r" % px[:6])
        expect(len(set(map(tuple, px))) >= 2 or len(px) < 4, "hatched (two shades): %r" % px[:6])
        point_at(slot)
        expect("owner down" in q(".rs-slotmap-readout").inner_text(), q(".rs-slotmap-readout").inner_text())
        # The observers suspect it first (fail?), then agree (fail).
        wait_until(lambda: "PFAIL" in status() or "FAIL" in status(), "PFAIL seen", timeout=15.0)
        px = page.evaluate(CELL_PIXELS, slot)
        expect(all(abs(r - g) < 8 and abs(g - b) < 8 for r, g, b in px), "still grey until failover: %r" % px[:6])
        shot("slotmap-failing")
        st = wait_until(lambda: (lambda t: t if "was promoted" in t else None)(status()),
                        "the replica to be promoted", timeout=30.0)
        expect("Node 4 was promoted" in st and "5462 slots" in st, st)
        after = page.evaluate(CELL_RGB, slot)
        expect(before != after, "the slot changed colour: %r -> %r" % (before, after))
        r, g, b = after
        # Node 4's purple (126, 63, 191), shaded.
        expect(b > r > g, "the promoted replica's colour: %r" % (after,))
        legend = q(".rs-slotmap-legend").inner_text()
        expect("node 4: 5462 slots" in legend and "down" in legend and "(fail)" in legend, legend)
        expect("owned by node 4" in q(".rs-slotmap-key").inner_text(), q(".rs-slotmap-key").inner_text())
        # The replica had both keys of the slot (the cart, and the name the console set).
        point_at(slot)
        expect(q(".rs-slotmap-readout").inner_text() == "slot %d: node 4 (127.0.0.1:7004), 2 keys" % slot,
               q(".rs-slotmap-readout").inner_text())
        lines = send("GET user:{42}:name")
        expect(lines[-1][1] == '"ann"', "the write survived the failover: %r" % lines)
        shot("slotmap-failed-over")
    suite.check("Kill greys the dead master's slots until its replica takes them (%s)" % label,
                kill_fails_over_to_the_replica)

    def restart_brings_the_old_master_back_as_a_replica():
        q('[data-action="restart"]').click()
        st = wait_until(lambda: (lambda t: t if "is back" in t else None)(status()), "the restart")
        expect("node 1 is back as a replica of node 4" in st, st)
        nodes = " | ".join(q('.rs-slotmap-node[data-node]:not([data-node="down"])').all_inner_texts())
        expect("node 1: 0 slots, replica of node 4" in nodes and "down" not in nodes
               and "fail" not in nodes, nodes)
        expect(q('[data-action="restart"]').is_disabled(), "nothing left to restart")
    suite.check("Restart brings the old master back as a replica of the winner (%s)" % label,
                restart_brings_the_old_master_back_as_a_replica)

    def no_page_errors():
        expect(not page_errors, "page errors: %r" % page_errors)
    suite.check("no uncaught page errors (%s)" % label, no_page_errors)


if __name__ == "__main__":
    sys.exit(main())
