#!/usr/bin/env python3
"""Speed benchmark, native against wasm: runs `redsim bench zipf --json` and the same
seeded Zipf cache-aside trace in headless Chromium (`window.redsimBenchZipf` in the
built dist/), prints requests/s on both and the wasm/native time ratio per cache.
Then the pages' weight and start: for index.html and embed.html, served as `cargo xtask serve`
serves them (its server, with the precompressed copies), the median of --loads (30) cold loads
(a fresh profile in a browser left to finish its own start first) of the time from navigation
to the first console reply drawn (the presentation of the frame that painted it, by Element
Timing) and to the beginning of that frame, and the wasm fetched before it (raw and gzip -9),
which must be the console module alone, within its budget and sent as brotli. With
--baseline-dist, the same pages of the build before the split (`cargo xtask test` builds it
from its commit, crates/xtask/src/baseline.rs) are loaded in turn with ours, and the ratios of
the two medians are reported, the drawn reply's the figure; ours must be the faster on both. A
bare page that only adds one line of text is loaded in turn with them: its time is the browser's
own part of both figures, and what each build takes above it is reported. Then the lab module
loaded on demand (not by a console-only page; by the Scenarios tab, after which the console
still answers).
Then every scenario at its defaults, natively (`redsim bench scenarios --json`) and in the
browser (`window.redsimScenarioTimes` in the lab module), both through `redsim_sim::run`,
each scenario's figure its fastest run (redsim_sim::speed's rule) over --scenario-turns
turns of --scenario-runs runs, the two sides taking turns: a table of native ms, browser ms
and their ratio, the slowest scenario on each side, and the frame rate of a scenario
playing at 1x in the Scenarios tab (reported only).

Usage: python3 tests/e2e/bench_e2e.py [--dist DIR] [--redsim BIN] [--requests N] [--keys K] [--seed S]
                                      [--rounds R] [--zipf-turns T] [--loads N] [--baseline-dist DIR [--baseline-label L]]
                                      [--scenario-runs R] [--scenario-turns T] [--only scenarios|first-reply]

On both sides the caches take turns for R rounds (3 by default) and each reports its
fastest, and the two sides take --zipf-turns turns (3), native then browser, each cache's
figure its fastest over all, so a noisy machine's slow moments do not decide the ratio.

Of the benchmark, only the equality of hit counts (per cache, native vs wasm) is asserted:
it proves both replayed the same trace through the same engine. Speed is reported, never
asserted. Of the scenarios, asserted: both sides ran the same scenarios to the same
outcome (virtual duration, checks passed, a digest of the whole outcome's JSON), and the
browser takes at most RATIO_MAX times native per scenario (for those taking at least
FLOOR_MS natively, so timer resolution does not decide) and in total. Ratios only: no
wall-clock figure is asserted.
Prints "N passed, M failed" and exits non-zero on any failure.
"""

import argparse
import collections
import contextlib
import gzip
import statistics
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_e2e import CHROMIUM, CHROMIUM_ARGS, ROOT, serve  # noqa: E402


def redsim_json(args, opts):
    """The JSON report `redsim <opts>` prints last: the given binary, or
    `cargo run --release -p redsim-cli`."""
    if args.redsim:
        cmd = [args.redsim] + opts
    else:
        cmd = ["cargo", "run", "--quiet", "--release", "-p", "redsim-cli", "--bin", "redsim", "--"] + opts
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def native(args):
    """`redsim bench zipf --json` with the benchmark's workload."""
    return redsim_json(args, ["bench", "zipf", "--json", "--requests", str(args.requests),
                              "--keys", str(args.keys), "--seed", str(args.seed),
                              "--rounds", str(args.rounds)])


@contextlib.contextmanager
def fresh_page(args, prefix):
    """dist/ served, a fresh Chromium profile and its page: yields (page, base URL, the list
    page errors are appended to), and cleans up after."""
    server, base = serve(os.path.abspath(args.dist))
    profile = tempfile.mkdtemp(prefix=prefix)
    errors = []
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, base, errors
            ctx.close()
    finally:
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def zipf_both(args):
    """The native and browser reports, taken in alternating turns (--zipf-turns of them, one
    page for all the browser's), each cache's figure its fastest over all turns: a quiet or
    busy moment of a shared machine then falls on both sides, not on one. Native then browser
    alternately, with one turn moved 1.1x to 2.6x by what else ran; see `merge_zipf`."""
    nat, web = [], []
    with fresh_page(args, "redsim-bench-e2e-") as (page, base, errors):
        # The benchmark lives in the lab module, whose engine runs the scenarios.
        page.goto(base + "index.html?tab=scenarios")
        page.wait_for_function("typeof window.redsimBenchZipf === 'function'", timeout=60000)
        for _ in range(args.zipf_turns):
            nat.append(native(args))
            web.append(json.loads(page.evaluate(
                "([r, k, s, n]) => window.redsimBenchZipf(r, k, s, n)",
                [args.requests, args.keys, args.seed, args.rounds],
            )))
    if errors:
        raise RuntimeError("page errors: %s" % errors)
    return merge_zipf(nat), merge_zipf(web)


def merge_zipf(reports):
    """Turns of one side as one report: each cache's fastest elapsed time (and its requests/s),
    marked `changed` where a later turn's hits, misses or keys held differed (the same trace
    must give the same counts every time)."""
    first, results = fastest_of(reports, "cache", "elapsed_ms",
                                ("hits", "misses", "keys_held", "requests"), ("requests_per_sec",))
    return dict(first, results=results)


def fastest_of(reports, key, time, same, with_time=()):
    """Rows of several turns' reports as one per `key`: the row of the first turn with the fastest
    `time` of all (and the `with_time` fields of the turn that ran it), marked `changed` when a
    later turn's `same` fields differ. The first report, and the rows in its order."""
    first = reports[0]
    rows = {r[key]: dict(r) for r in first["results"]}
    for rep in reports[1:]:
        for r in rep["results"]:
            row = rows.get(r[key])
            if row is None:
                continue
            if any(r[k] != row[k] for k in same):
                row["changed"] = True
            if r[time] < row[time]:
                row.update({k: r[k] for k in (time,) + tuple(with_time)})
    return first, [rows[r[key]] for r in first["results"]]


# What a page downloads before its console answers, gzip -9 over every .wasm fetched: the
# issue's goal, 350 KB, which the console module meets (see ARCHITECTURE.md for what it holds
# and how it was made small). Raise it only with a reason.
CONSOLE_BUDGET_DEFAULT = 350_000
CONSOLE_WASM_GZ_BUDGET = int(os.environ.get("REDSIM_CONSOLE_WASM_GZ_BUDGET", 0))
LAB_WASM = "redsim-lab_bg.wasm"
# The console module's functions that its pages do not run at startup, split off by `cargo xtask
# dist` (crates/xtask/src/split.rs) and fetched once a page is idle: never before a first reply.
REST_WASM = "redsim-web_rest.wasm"


def wasm_name(response):
    return response.url.split("?")[0].rsplit("/", 1)[-1]


# The first reply as the page itself sees it, at two instants. A mutation observer, in the page
# from its first byte, finds the first reply's line and notes the frame that will show it (the
# time its animation-frame callbacks run: before that frame's style, layout and paint). It also
# marks the line for Element Timing, whose `renderTime` is when the frame that painted it was
# presented: when a reader can see the reply. Between the two lie the frame's style, layout and
# paint, rasterization and the compositor, some 35 to 60 ms on a 2-core machine; a page drawn
# for the first time in that frame pays for all of it there. Both are logged; the drawn instant
# is the figure. Polling from here instead (Playwright's wait_for_function) runs Playwright's own
# script on the page's main thread while the page starts, some 20 ms per load on a 2-core machine
# that no reader's browser spends.
FIRST_REPLY_PROBE = """
new MutationObserver((_, seen) => {
  const line = document.querySelector('.rs-screen .rs-out');
  if (line) {
    seen.disconnect();
    line.setAttribute('elementtiming', 'redsim-first-reply');
    // With how many times a start linked the console module's rest synchronously (a
    // function its profile lacks ran): the resource timings may not list that request.
    const early = window.redsimRestEarly || 0;
    let frame = null, drawn = null, told = false;
    const tell = () => {
      if (told || frame === null || drawn === null) return;
      told = true;
      console.debug('redsim-first-reply ' + frame + ' ' + early + ' ' + drawn);
    };
    if (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes.includes('element')) {
      new PerformanceObserver((list, obs) => {
        for (const e of list.getEntries()) {
          if (e.identifier === 'redsim-first-reply') {
            obs.disconnect();
            drawn = e.renderTime || e.loadTime;
            tell();
          }
        }
      }).observe({ type: 'element', buffered: true });
    } else {
      drawn = -1;
    }
    requestAnimationFrame(() => { frame = performance.now(); tell(); });
  }
}).observe(document, { subtree: true, childList: true });
"""


# A browser just launched is still starting for most of a second: Chromium 156 loads its
# omnibox popup (a WebUI page with some 200 scripts, in a renderer of its own) from about 150 ms
# before the first navigation to some 450 ms after it. On a 2-core machine that work shares the
# cores with the page being timed, and by how much varies from load to load. A reader's browser
# is already running when they open a page, so each cold load (a fresh profile: empty cache,
# nothing of the site stored) first lets the browser settle for this long.
SETTLE_MS = 1500


# One cold load: ms from navigation to the frame that shows the first console reply (`frame`)
# and to that frame's presentation (`drawn`); the wasm fetched before it (bytes, their gzip -9
# size, the modules' names, the Content-Encodings they came with); how many times the rest was
# linked synchronously before it; the scripts fetched before it.
Load = collections.namedtuple("Load", "frame drawn raw gz names sent linked scripts")
# A page's loads from one build: the medians of `frame` and `drawn` with their (fastest,
# slowest); the most wasm a load fetched before its reply (raw, gzip -9; the weight is every
# load's worst, so one load that fetched more fails the budget); the modules, encodings and
# scripts any load fetched before it; the most times a load linked the rest synchronously.
Timed = collections.namedtuple("Timed", "frame frame_span drawn drawn_span raw gz names sent linked scripts")


def cold_load(p, base, page_path):
    """One load of `page_path` in a fresh profile, once the browser has settled: a `Load`."""
    profile = tempfile.mkdtemp(prefix="redsim-first-reply-")
    try:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        page.wait_for_timeout(SETTLE_MS)
        fetched = []
        page.on("response", lambda r: fetched.append(r) if r.url.split("?")[0].endswith(".wasm") else None)
        page.add_init_script(FIRST_REPLY_PROBE)
        # The instant of the reply, taken in the page as it is seen; the modules counted are
        # those whose fetch began before it (a lab fetched once the page is idle can begin
        # while this script is still reading the page).
        with page.expect_console_message(
                lambda m: m.text.startswith("redsim-first-reply "), timeout=30000) as seen:
            page.goto(base + page_path, wait_until="commit")
        words = seen.value.text.split()
        at, linked, drawn = float(words[1]), int(words[2]), float(words[3])
        if drawn <= 0:
            raise RuntimeError("the browser reported no paint of the first reply (Element Timing)")
        before_reply = page.evaluate(
            "(at) => performance.getEntriesByType('resource')"
            ".filter(e => e.startTime <= at)"
            ".map(e => e.name.split('?')[0].split('/').pop())", at)
        early = {n for n in before_reply if n.endswith(".wasm")}
        scripts = sorted(n for n in before_reply if n.endswith(".js"))
        before = [r for r in fetched if wasm_name(r) in early]
        bodies = [r.body() for r in before]
        names = sorted(wasm_name(r) for r in before)
        sent = {r.headers.get("content-encoding", "identity") for r in before}
        ctx.close()
        return Load(frame=at, drawn=drawn, raw=sum(len(b) for b in bodies),
                    gz=sum(len(gzip.compress(b, 9)) for b in bodies), names=names, sent=sent,
                    linked=linked, scripts=scripts)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


# The floor under every first-reply figure: a bare page with no stylesheet, script file or wasm that
# adds one line where the probe looks for a reply, in a script at the end of its body. Loaded in
# turn with the builds, its drawn time is what this browser on this machine spends on any page
# (starting its renderer, committing the navigation, the first frame's pipeline) before a page's
# own work: on a 2-core machine some 65 ms of a first reply drawn at 140 to 220. The ratios above
# it say how much of the build's own part is left, which the ratios of the whole times hide.
BARE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>floor</title></head>
<body><div class="rs-screen"></div>
<script>
const line = document.createElement('div');
line.className = 'rs-out';
line.textContent = 'PONG';
document.querySelector('.rs-screen').append(line);
</script>
</body></html>
"""


@contextlib.contextmanager
def bare_dist():
    """A directory serving BARE_PAGE under both pages' names; removed afterwards."""
    directory = tempfile.mkdtemp(prefix="redsim-floor-")
    try:
        for name in ("index.html", "embed.html"):
            with open(os.path.join(directory, name), "w") as f:
                f.write(BARE_PAGE)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def served(directory):
    """`directory` served as `cargo xtask serve` serves dist/ (crates/xtask/src/serve.rs: keep-alive,
    and the .br and .gz copies sent with Content-Encoding, as a documentation site is told to
    serve them), on a free port in a process of its own; yields the base URL. The server is the
    xtask binary `REDSIM_XTASK` names (`cargo xtask bench` sets it), else `cargo run -p xtask`."""
    xtask = os.environ.get("REDSIM_XTASK")
    cmd = ([xtask] if xtask else ["cargo", "run", "--quiet", "-p", "xtask", "--"])
    proc = subprocess.Popen(cmd + ["serve", "--port", "0", "--dir", os.path.abspath(directory)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if " on http://" not in line:
            raise RuntimeError("cargo xtask serve did not start: %r" % line)
        # It logs every request: read on, so a full pipe never stalls it.
        threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
        yield line.split(" on ", 1)[1].split()[0]
    finally:
        proc.kill()
        proc.wait()


def first_reply(dists, page_path, runs):
    """`runs` cold loads of `page_path` from each of `dists`, taking turns so a busy moment of
    the machine falls on every build, and each round in the other order: the load that opens a
    round is the slower one (the same dist/ in both places took 4 to 8 ms longer first, in three
    runs of 11 rounds), so no build may always go first. A `Timed` per dist."""
    loads = [[] for _ in dists]
    with contextlib.ExitStack() as stack:
        bases = [stack.enter_context(served(d)) for d in dists]
        with sync_playwright() as p:
            for r in range(runs):
                order = list(enumerate(bases))
                for i, base in (order if r % 2 == 0 else order[::-1]):
                    loads[i].append(cold_load(p, base, page_path))
    def timed(ls):
        frames, drawn = [l.frame for l in ls], [l.drawn for l in ls]
        return Timed(frame=statistics.median(frames), frame_span=(min(frames), max(frames)),
                     drawn=statistics.median(drawn), drawn_span=(min(drawn), max(drawn)),
                     raw=max(l.raw for l in ls), gz=max(l.gz for l in ls),
                     names=sorted(set().union(*(l.names for l in ls))),
                     sent=sorted(set().union(*(l.sent for l in ls))),
                     linked=max(l.linked for l in ls),
                     scripts=sorted(set().union(*(l.scripts for l in ls))))
    return [timed(ls) for ls in loads]


def lab_on_demand(args):
    """A console-only page never fetches the lab; opening the Scenarios tab fetches it, the
    library works, and the console still answers. Returns the lab's raw and gzip -9 size."""
    with fresh_page(args, "redsim-lab-e2e-") as (page, base, errors):
        fetched = []
        page.on("response", lambda r: fetched.append(r) if r.url.split("?")[0].endswith(".wasm") else None)
        page.goto(base + "index.html?cmd=SET%20k%201")
        page.wait_for_function("document.querySelector('.rs-screen .rs-out') !== null", timeout=30000)
        page.wait_for_timeout(1500)
        early = [wasm_name(r) for r in fetched]
        if LAB_WASM in early:
            raise AssertionError("a console-only page fetched the lab: %s" % early)
        page.click("[data-action=tab-scenarios]")
        page.wait_for_function(
            "document.querySelector('[data-redsim-lab-tab=scenarios].rs-lab-ready .rs-scen-title') !== null",
            timeout=60000)
        lab = [r for r in fetched if wasm_name(r) == LAB_WASM]
        if len(lab) != 1:
            raise AssertionError("the Scenarios tab fetched the lab %d times" % len(lab))
        body = lab[0].body()
        page.click("[data-action=tab-console]")
        page.fill("#redsim .rs-input", "GET k")
        page.press("#redsim .rs-input", "Enter")
        page.wait_for_function(
            "[...document.querySelectorAll('#redsim .rs-screen .rs-out')].some(e => e.textContent.includes('\"1\"'))",
            timeout=10000)
    if errors:
        raise AssertionError("page errors: %s" % errors)
    return len(body), len(gzip.compress(body, 9))


# The browser may take at most this many times native, per scenario and in total (the issue's
# goal: every scenario within 2x of native in the browser).
RATIO_MAX = 2.0
# Scenarios faster than this natively are reported but not held to the ratio: a few
# milliseconds are within the noise of the browser's timer and a busy machine.
FLOOR_MS = 20.0


def native_scenarios(args):
    """`redsim bench scenarios --json`."""
    return redsim_json(args, ["bench", "scenarios", "--json", "--runs", str(args.scenario_runs)])


def merge(reports):
    """Reports of several turns as one: each scenario's fastest over all of them; the rest
    (outcome, digest) from the first, with a scenario whose outcome changed marked `changed`,
    reported as an error in that row."""
    first, results = fastest_of(reports, "id", "ms", ("digest",))
    runs = sum(rep["runs"] for rep in reports)
    return dict(first, results=results, runs=runs, total_ms=sum(r["ms"] for r in results))


def both_sides(args):
    """Native and browser scenario times, taken in alternating turns (--scenario-turns of
    them, each side running the catalogue --scenario-runs times per turn), so a busy moment
    of the machine falls on both sides rather than one; then the frame rates while a scenario
    and the Topology tab play at 1x: (native report, browser report, (fps, virtual ms played,
    the scenario played), (the Topology tab's fps, virtual ms played))."""
    played = "redis-outage"
    nat, web = [], []
    with fresh_page(args, "redsim-scen-bench-e2e-") as (page, base, errors):
        page.goto(base + "index.html?scenario=" + played)
        page.wait_for_function("typeof window.redsimScenarioTimes === 'function'", timeout=60000)
        for _ in range(args.scenario_turns):
            nat.append(native_scenarios(args))
            report = json.loads(page.evaluate("(n) => window.redsimScenarioTimes(n)", args.scenario_runs))
            if "error" in report:
                raise RuntimeError("redsimScenarioTimes: %s" % report["error"])
            web.append(report)
        page.wait_for_selector(".rs-scen-time", timeout=30000)
        page.select_option(".rs-scen-speed", label="1× real time")
        page.eval_on_selector(".rs-scen-scrub",
                              "e => { e.value = '0'; e.dispatchEvent(new Event('input', {bubbles: true})); }")
        page.click('[data-action="play-scenario"]')
        page.wait_for_function(
            "Number(document.querySelector('.rs-scen-time').dataset.us) > 0", timeout=10000)
        fps, played_ms = frames_per_second(page, ".rs-scen-time", "us")
        # The Topology tab plays a fresh session by itself at 1x, redrawing its graph and
        # timelines at every tick: timed once its timelines are full (5 s of virtual time).
        page.goto(base + "index.html?tab=topology")
        page.wait_for_function(
            "Number((document.querySelector('[data-now-us]') || {dataset: {}}).dataset.nowUs) >= 5000000",
            timeout=30000)
        topo_fps, topo_ms = frames_per_second(page, "[data-now-us]", "nowUs")
    if errors:
        raise RuntimeError("page errors: %s" % errors)
    return merge(nat), merge(web), (fps, played_ms, played), (topo_fps, topo_ms)


def frames_per_second(page, selector, key):
    """Animation frames per second over 2 s while a view plays, and the ms of virtual time
    played meanwhile, read from `selector`'s `data-*` attribute `key` (in µs)."""
    return page.evaluate("""([selector, key]) => new Promise(done => {
        const us = () => Number(document.querySelector(selector).dataset[key]);
        const u0 = us();
        let frames = 0;
        const t0 = performance.now();
        const tick = (t) => {
            if (t - t0 >= 2000) { done([frames * 1000 / (t - t0), (us() - u0) / 1000]); return; }
            frames++;
            requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    })""", [selector, key])


def check_scenarios(args):
    """The scenario table and its checks: (passed, failed)."""
    passed = failed = 0
    try:
        nat, web, (fps, played_ms, played), (topo_fps, topo_ms) = both_sides(args)
    except Exception as e:  # noqa: BLE001 - reported as one failure
        print("FAIL running the scenario benchmark: %s" % e)
        return 0, 1
    print("every scenario at its defaults, seed %d, fastest of %d runs per side (%d turns each, alternating)"
          % (nat["seed"], nat["runs"], args.scenario_turns))
    print("%-34s %10s %10s %8s" % ("scenario", "native ms", "browser ms", "ratio"))
    web_by_id = {r["id"]: r for r in web["results"]}
    same, over, held = [], [], 0
    for n in nat["results"]:
        w = web_by_id.get(n["id"])
        if w is None:
            same.append("%s missing from the browser's report" % n["id"])
            continue
        ratio = w["ms"] / max(n["ms"], 1e-9)
        mark = ""
        if n["ms"] >= FLOOR_MS:
            held += 1
            if ratio > RATIO_MAX:
                over.append("%s %.2fx" % (n["id"], ratio))
                mark = "  > %.1fx" % RATIO_MAX
        else:
            mark = "  (under %.0f ms: not held)" % FLOOR_MS
        print("%-34s %10.1f %10.1f %7.2fx%s" % (n["id"], n["ms"], w["ms"], ratio, mark))
        keys = ("duration_us", "checks", "checks_passed", "digest")
        if n.get("changed") or w.get("changed"):
            same.append("%s: the outcome changed between turns" % n["id"])
        elif tuple(n[k] for k in keys) != tuple(w[k] for k in keys):
            same.append("%s: native %s, browser %s"
                        % (n["id"], [n[k] for k in keys], [w[k] for k in keys]))
    extra = sorted(set(web_by_id) - {n["id"] for n in nat["results"]})
    if extra:
        same.append("only in the browser: %s" % extra)
    total_ratio = web["total_ms"] / max(nat["total_ms"], 1e-9)
    print("%-34s %10.1f %10.1f %7.2fx" % ("all %d" % len(nat["results"]), nat["total_ms"],
                                          web["total_ms"], total_ratio))
    for side, rep in (("native", nat), ("browser", web)):
        slow = max(rep["results"], key=lambda r: r["ms"])
        print("     slowest %s: %s, %.1f ms" % (side, slow["id"], slow["ms"]))
    print("     playback of %s at 1x: %.1f frames/s over 2 s (%.0f ms of virtual time played; reported only)"
          % (played, fps, played_ms))
    print("     playback of the Topology tab at 1x: %.1f frames/s over 2 s (%.0f ms of virtual time "
          "played; reported only)" % (topo_fps, topo_ms))
    if same:
        failed += 1
        print("FAIL scenarios: native and browser ran differently: %s" % same)
    else:
        passed += 1
        print("ok   scenarios: the same %d scenarios, each to the same outcome (digest of its JSON), "
              "natively and in the browser" % len(nat["results"]))
    if over:
        failed += 1
        print("FAIL scenarios: browser over %.1fx native: %s" % (RATIO_MAX, over))
    else:
        passed += 1
        print("ok   scenarios: the browser within %.1fx native for the %d scenarios of %.0f ms or more"
              % (RATIO_MAX, held, FLOOR_MS))
    if total_ratio > RATIO_MAX:
        failed += 1
        print("FAIL scenarios: all of them take %.2fx native in the browser (at most %.1fx)"
              % (total_ratio, RATIO_MAX))
    else:
        passed += 1
        print("ok   scenarios: all of them take %.2fx native in the browser (at most %.1fx)"
              % (total_ratio, RATIO_MAX))
    return passed, failed


def check_first_reply(args):
    """The time to first reply and the console's weight, per page: (passed, failed)."""
    passed = failed = 0
    budget = CONSOLE_WASM_GZ_BUDGET or CONSOLE_BUDGET_DEFAULT
    with bare_dist() as bare:
        dists = [args.dist] + ([args.baseline_dist, bare] if args.baseline_dist else [])
        for page_path in ["index.html?cmd=PING", "embed.html"]:
            p, f = first_reply_page(args, dists, page_path, budget)
            passed += p
            failed += f
    return passed, failed


def first_reply_page(args, dists, page_path, budget):
    """`check_first_reply` for one page, loaded from each of `dists` in turn (ours, then the
    baseline and the bare page when a baseline is given): (passed, failed)."""
    passed = failed = 0
    try:
        timed = first_reply(dists, page_path, args.loads)
    except Exception as e:  # noqa: BLE001 - reported as one failure
        print("FAIL %s: no first reply: %s" % (page_path, e))
        return 0, 1
    ours = timed[0]
    line = ("%s: first reply drawn %.0f ms after navigation (median of %d cold loads, %.0f to %.0f), "
            "its frame begun at %.0f ms (%.0f to %.0f); wasm before it %d bytes, %d gzip -9 (%s, "
            "sent as %s; budget %d, goal 350000)"
            % ((page_path, ours.drawn, args.loads) + ours.drawn_span + (ours.frame,) + ours.frame_span
               + (ours.raw, ours.gz, ", ".join(ours.names), "/".join(ours.sent), budget)))
    why = []
    if ours.sent != ["br"]:
        why.append("the wasm did not come as brotli, as dist/'s .br copy and the server should "
                   "send it to Chromium")
    if LAB_WASM in ours.names:
        why.append("the lab was fetched")
    if ours.gz > budget:
        why.append("over budget")
    if not os.path.exists(os.path.join(args.dist, REST_WASM)):
        why.append("the console module was not split (is binaryen's wasm-split installed?)")
    if ours.scripts != ["redsim.js"]:
        why.append("scripts fetched before the first reply: %s, where the loader alone (which "
                   "carries the console module's bindings) should be" % ", ".join(ours.scripts))
    if REST_WASM in ours.names or ours.linked:
        why.append("the console module's rest was fetched or linked before the first reply: a start runs "
                   "functions its profile lacks (record it again: cargo xtask split-profile)")
    if why:
        failed += 1
        print("FAIL " + line + ": " + "; ".join(why))
    else:
        passed += 1
        print("ok   " + line)
    if len(timed) < 3:
        return passed, failed
    # The same page of the build before the split, loaded in turn with this one. The ratio
    # of the drawn replies is the issue's figure (goal: half or less); that of the frames'
    # beginnings is reported beside it. Only "faster than before" is held, on both, each a
    # ratio of two medians of the same run.
    base, bare = timed[1], timed[2]
    ratio = ours.drawn / max(base.drawn, 1e-9)
    frame_ratio = ours.frame / max(base.frame, 1e-9)
    line = ("%s: before the split (%s, loaded in turn) drawn at %.0f ms (%.0f to %.0f), frame "
            "begun at %.0f ms (%.0f to %.0f), wasm %d bytes, %d gzip -9 (%s); now drawn in %.2fx of "
            "it, %+.0f%% (goal 0.50x), the frame begun in %.2fx"
            % ((page_path, args.baseline_label, base.drawn) + base.drawn_span + (base.frame,)
               + base.frame_span + (base.raw, base.gz, ", ".join(base.names), ratio,
                                    100 * (ratio - 1), frame_ratio)))
    if ratio < 1 and frame_ratio < 1:
        passed += 1
        print("ok   " + line)
    else:
        failed += 1
        print("FAIL " + line + ": not faster than before")
    # Reported only: the bare page (the floor), and each build's own part above it.
    own = (ours.drawn - bare.drawn) / max(base.drawn - bare.drawn, 1e-9)
    print("     %s: a page that only adds one line of text, loaded in turn, drawn at %.0f ms (%.0f to "
          "%.0f): this browser's part of both figures; above it, %.0f ms now against %.0f ms "
          "before, %.2fx (reported only)"
          % ((page_path, bare.drawn) + bare.drawn_span
             + (ours.drawn - bare.drawn, base.drawn - bare.drawn, own)))
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--redsim", help="the redsim binary (default: cargo run --release)")
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--keys", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--zipf-turns", type=int, default=3,
                    help="turns of the zipf benchmark, native then browser, each cache's figure its "
                         "fastest over all")
    ap.add_argument("--scenario-runs", type=int, default=2,
                    help="runs of the catalogue per side and turn (1 to 20)")
    ap.add_argument("--scenario-turns", type=int, default=3,
                    help="turns, native then browser, each scenario's figure its fastest over all")
    # Thirty: a median of five moved by 0.15x between runs of the same build on a 2-core
    # machine, and the ratio of two medians of ten by 0.42x to 0.54x (eight runs, on both pages,
    # of the same two builds); a load's time swings by some 30 ms with what the browser's other processes do
    # meanwhile. An even number lets each build open half the rounds.
    ap.add_argument("--loads", type=int, default=30,
                    help="cold loads per page and build for the time to first reply (median)")
    ap.add_argument("--baseline-dist",
                    help="a dist/ of the build before the split: its pages are loaded in turn with "
                         "ours and the time to first reply is compared")
    ap.add_argument("--baseline-label", default="baseline", help="the baseline's name in the report")
    ap.add_argument("--only", choices=["scenarios", "first-reply"],
                    help="run only this part (the scenario comparison, or the pages' first reply)")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.dist, "index.html")):
        print("no %s/index.html: run `cargo xtask dist` first" % args.dist)
        print("0 passed, 1 failed")
        return 1
    if args.only:
        passed, failed = (check_scenarios if args.only == "scenarios" else check_first_reply)(args)
        print("%d passed, %d failed" % (passed, failed))
        return 0 if failed == 0 else 1
    passed = failed = 0
    try:
        nat, web = zipf_both(args)
    except Exception as e:  # noqa: BLE001 - reported as one failure
        print("FAIL running the benchmark: %s" % e)
        print("0 passed, 1 failed")
        return 1
    print("Zipf(%s) cache-aside, %d requests over %d keys, cache of %d keys, seed %d, best of %d rounds "
          "in each of %d turns per side (alternating)"
          % (nat["s"], nat["requests"], nat["keys"], nat["capacity"], nat["seed"], args.rounds,
             args.zipf_turns))
    print("%-12s %14s %14s %12s %10s" % ("cache", "native req/s", "wasm req/s", "wasm/native", "hit ratio"))
    web_by_cache = {r["cache"]: r for r in web["results"]}
    for n in nat["results"]:
        w = web_by_cache.get(n["cache"])
        if w is None:
            failed += 1
            print("FAIL %s: missing from the wasm report" % n["cache"])
            continue
        ratio = w["elapsed_ms"] / max(n["elapsed_ms"], 1e-9)
        print("%-12s %14.0f %14.0f %11.2fx %9.2f%%"
              % (n["cache"], n["requests_per_sec"], w["requests_per_sec"], ratio, 100 * n["hit_ratio"]))
        same = (not n.get("changed") and not w.get("changed")
                and (n["hits"], n["misses"], n["keys_held"]) == (w["hits"], w["misses"], w["keys_held"]))
        if same and n["requests"] == w["requests"] == args.requests:
            passed += 1
            print("ok   %s: same hits (%d), misses and keys held natively and in wasm" % (n["cache"], n["hits"]))
        else:
            failed += 1
            print("FAIL %s: native %s vs wasm %s" % (n["cache"], n, w))
    p, f = check_first_reply(args)
    passed, failed = passed + p, failed + f
    try:
        raw, gz = lab_on_demand(args)
        passed += 1
        print("ok   lab module: not fetched by a console-only page; the Scenarios tab fetches it "
              "(%d bytes, %d gzip -9), the library draws and the console still answers" % (raw, gz))
    except Exception as e:  # noqa: BLE001 - reported as one failure
        failed += 1
        print("FAIL lab module on demand: %s" % e)
    p, f = check_scenarios(args)
    passed, failed = passed + p, failed + f
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
