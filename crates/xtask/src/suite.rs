//! `cargo xtask redis-suite`: Redis 7.2.6's own test suite (`../shared/redis-tests`) run in external mode against `redsim server`, one unit per fresh server, held to a checked-in ratchet.
//!
//! The suite is the reference for what Redis does, written by Redis'
//! authors; the per-family differential tests only cover what we thought of.
//! `tests/redis-suite/results.txt` records every test's last result. A run
//! fails if a test recorded `ok` no longer passes (after one retry of its
//! unit, since a few of the suite's tests are timing-sensitive on a loaded
//! machine). Tests that newly pass are reported; `--update` rewrites the file
//! so the ratchet tightens. Each test still failing is listed with what it
//! observed and why it fails: `tests/redis-suite/why.txt` holds the reasons
//! (`unit<TAB>test<TAB>why`), and a run fails if a recorded failure has none.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::util::{cargo, root, run, target_dir};

/// The units that apply to a standalone server, in the order they run.
pub const UNITS: &[&str] = &[
    "unit/type/string",
    "unit/type/incr",
    "unit/type/list",
    "unit/type/list-2",
    "unit/type/list-3",
    "unit/type/hash",
    "unit/type/set",
    "unit/type/zset",
    "unit/type/stream",
    "unit/type/stream-cgroups",
    "unit/keyspace",
    "unit/expire",
    "unit/scan",
    "unit/other",
    "unit/info",
    "unit/info-command",
    "unit/bitops",
    "unit/bitfield",
    "unit/hyperloglog",
    "unit/pubsub",
    "unit/pubsubshard",
    "unit/multi",
    "unit/scripting",
    "unit/functions",
    "unit/protocol",
    "unit/auth",
    "unit/introspection",
    "unit/introspection-2",
    "unit/quit",
    "unit/lazyfree",
    "unit/dump",
    "unit/latency-monitor",
    "unit/slowlog",
    "unit/pause",
    "unit/sort",
    "unit/geo",
    "unit/tracking",
];

/// A test that hangs (waiting for a reply that never comes) fails after
/// this many seconds instead of holding up CI.
const TEST_TIMEOUT_S: &str = "60";
/// Units run at once, each against its own server from its own copy of the
/// suite. A unit mostly waits (on its sleeps and timeouts: a whole run took
/// 2 min of CPU in 7 of wall time on a 2-core machine), so two at a time
/// shorten the step without loading the machine enough to upset the
/// suite's timing-sensitive tests.
const JOBS: usize = 2;
/// A whole unit is stopped after this long.
const UNIT_DEADLINE: Duration = Duration::from_secs(600);

/// The checked-in results, relative to the workspace root.
const RESULTS: &str = "tests/redis-suite/results.txt";
/// Why each recorded failure fails, relative to the workspace root.
const WHY: &str = "tests/redis-suite/why.txt";

/// Tests run each on a server of its own (`--only`) after their unit ran
/// without them (`--skiptest`), because their failure path changes the
/// server for every test after them. They compare Redis' exact replication
/// stream, which Redsim's is not (why.txt), after `DEBUG SET-ACTIVE-EXPIRE 0`
/// and before setting it back: in their unit's run, every later test would
/// run without active expiry (a BLPOP of `unit/type/list` then waits for ever).
const ISOLATED: &[(&str, &str)] = &[
    (
        "unit/type/list",
        "SWAPDB wants to wake blocked client, but the key already expired",
    ),
    (
        "unit/type/list",
        "MULTI + LPUSH + EXPIRE + DEBUG SLEEP on blocked client, key already expired",
    ),
    (
        "unit/expire",
        "Redis should not propagate the read command on lazy expire",
    ),
];

/// Which of a unit's tests a run takes: all but some, or one.
enum Pick<'a> {
    AllBut(Vec<&'a str>),
    Only(&'a str),
}

impl Pick<'_> {
    fn args(&self) -> Vec<&str> {
        match self {
            Pick::AllBut(names) => names.iter().flat_map(|n| ["--skiptest", n]).collect(),
            Pick::Only(name) => vec!["--only", name],
        }
    }
}

/// A unit's results, or why it could not run.
type UnitRun = Result<Vec<TestResult>, String>;

/// Reasons by (unit, test name).
type Reasons = BTreeMap<(String, String), String>;

/// One test's result as runtest prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub status: Status,
    pub name: String,
    /// For a failure: the first line of what it observed; for an ignored
    /// test: runtest's reason.
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Ok,
    Err,
    Ignore,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Err => "err",
            Status::Ignore => "ignore",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        match s {
            "ok" => Some(Status::Ok),
            "err" => Some(Status::Err),
            "ignore" => Some(Status::Ignore),
            _ => None,
        }
    }
}

/// Results per unit, in `UNITS` order.
pub type Results = BTreeMap<String, Vec<TestResult>>;

/// Runs the units (all of them if `only` is empty) and checks or, with
/// `update`, rewrites the ratchet.
pub fn redis_suite(update: bool, only: &[String]) -> Result<(), String> {
    let units: Vec<&str> = if only.is_empty() {
        UNITS.to_vec()
    } else {
        let unknown: Vec<&String> = only
            .iter()
            .filter(|u| !UNITS.contains(&u.as_str()))
            .collect();
        if !unknown.is_empty() {
            return Err(format!("not a unit of the suite: {unknown:?}"));
        }
        UNITS
            .iter()
            .copied()
            .filter(|u| only.iter().any(|o| o == u))
            .collect()
    };
    let source = root().join("../shared/redis-tests");
    if !source.join("runtest").is_file() {
        return Err(format!("{} has no runtest", source.display()));
    }
    run(cargo().args(["build", "--release", "-p", "redsim-cli", "--bin", "redsim"]))?;
    let target = target_dir()?;
    let redsim = target.join("release/redsim");
    // shared/ is read-only in CI and the suite writes tests/tmp: a copy for
    // each unit run at once.
    let mut suites = Vec::new();
    for job in 0..JOBS {
        let suite = target.join(if job == 0 {
            "redis-tests".to_string()
        } else {
            format!("redis-tests-{job}")
        });
        if suite.exists() {
            std::fs::remove_dir_all(&suite).map_err(|e| format!("{}: {e}", suite.display()))?;
        }
        run(Command::new("cp").arg("-r").arg(&source).arg(&suite))?;
        suites.push(suite);
    }

    let expected = read_results(&root().join(RESULTS))?;
    let why = read_why(&root().join(WHY))?;
    if !update {
        unexplained(&expected, &why)?;
    }
    // Each job takes the next unit until none is left; results are kept in
    // the units' order.
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<UnitRun>>> = Mutex::new(vec![None; units.len()]);
    std::thread::scope(|scope| {
        for (job, suite) in suites.iter().enumerate() {
            let (next, done, units, expected, redsim) = (&next, &done, &units, &expected, &redsim);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(unit) = units.get(i) else {
                    break;
                };
                let started = Instant::now();
                let got = run_unit_checked(redsim, suite, unit, job, expected.get(*unit), update);
                if let Ok(results) = &got {
                    let (ok, err, ign) = counts(results);
                    let was = expected.get(*unit).map(|r| counts(r).0).unwrap_or(0);
                    println!(
                        "{unit:<28} ok {ok:>4} (recorded {was:>4})  err {err:>4}  ignored {ign:>3}  {:>4.0} s",
                        started.elapsed().as_secs_f64()
                    );
                }
                if let Ok(mut d) = done.lock() {
                    d[i] = Some(got);
                }
            });
        }
    });
    let mut got: Results = BTreeMap::new();
    let mut regressions: Vec<String> = Vec::new();
    let done = done.into_inner().map_err(|_| "a unit's run panicked")?;
    for (unit, results) in units.iter().zip(done) {
        let results = results.ok_or_else(|| format!("{unit} did not run"))??;
        for name in lost_passes(expected.get(*unit), &results) {
            regressions.push(format!("{unit}: {name}"));
        }
        got.insert(unit.to_string(), results);
    }

    let total = |r: &Results| {
        r.values()
            .map(|v| counts(v))
            .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2))
    };
    let (ok, err, ign) = total(&got);
    println!(
        "redis suite: {ok} passed, {err} failed, {ign} ignored in {} units",
        got.len()
    );
    if update {
        let mut merged = expected;
        merged.extend(got);
        write_results(&root().join(RESULTS), &merged, &why)?;
        println!("wrote {RESULTS}");
        // Written anyway, so the record is never behind; the check says what to explain.
        return unexplained(&merged, &why);
    }
    let newly: usize = got
        .iter()
        .map(|(u, r)| gained_passes(expected.get(u), r))
        .sum();
    if newly > 0 {
        println!("{newly} tests pass that the record says fail: `cargo xtask redis-suite --update` records them");
    }
    if regressions.is_empty() {
        Ok(())
    } else {
        for r in &regressions {
            println!("  no longer passes: {r}");
        }
        Err(format!(
            "{} tests of Redis' suite that passed now fail",
            regressions.len()
        ))
    }
}

/// Runs one unit, its `ISOLATED` tests each on a server of its own, once
/// more if it lost recorded passes (unless updating the record): a few of
/// the suite's tests are timing-sensitive.
fn run_unit_checked(
    redsim: &Path,
    suite: &Path,
    unit: &str,
    job: usize,
    expected: Option<&Vec<TestResult>>,
    update: bool,
) -> Result<Vec<TestResult>, String> {
    let isolated: Vec<&str> = ISOLATED
        .iter()
        .filter(|(u, _)| *u == unit)
        .map(|(_, t)| *t)
        .collect();
    let whole = |pick: &Pick| -> Result<Vec<TestResult>, String> {
        let mut results = run_unit(redsim, suite, unit, job, pick)?;
        for name in &isolated {
            let own = run_unit(redsim, suite, unit, job, &Pick::Only(name))?;
            results.extend(own.into_iter().filter(|r| r.name == *name));
        }
        Ok(results)
    };
    let pick = Pick::AllBut(isolated.clone());
    let results = whole(&pick)?;
    let lost = lost_passes(expected, &results);
    if lost.is_empty() || update {
        return Ok(results);
    }
    println!(
        "{unit}: {} recorded passes lost; running it once more",
        lost.len()
    );
    whole(&pick)
}

/// Runs one unit against a fresh server and parses its results; `job`
/// tells the units run at once apart.
fn run_unit(
    redsim: &Path,
    suite: &Path,
    unit: &str,
    job: usize,
    pick: &Pick,
) -> Result<Vec<TestResult>, String> {
    // A free port is one no listener holds: taken and started one job at a
    // time, so two jobs never pick the same.
    static STARTING: Mutex<()> = Mutex::new(());
    let (port, mut server) = {
        let _one = STARTING.lock().map_err(|_| "a server's start panicked")?;
        let port = free_port()?;
        (port, Server::start(redsim, port, suite)?)
    };
    let started = Instant::now();
    // runtest listens for its test clients below `--baseport`; a base of
    // our own keeps two runs on one machine apart (its own probe for a free
    // port misses a listener bound to 127.0.0.1 only).
    let slot = (std::process::id() as usize % 50) * JOBS + job;
    let baseport = (22_000 + 64 * slot).to_string();
    let mut child = Command::new("./runtest")
        .args(["--baseport", &baseport])
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--single",
            unit,
        ])
        .args([
            "--ignore-encoding",
            "--durable",
            "--timeout",
            TEST_TIMEOUT_S,
        ])
        .args(pick.args())
        .current_dir(suite)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not run runtest (is tclsh installed?): {e}"))?;
    let mut stdout = child.stdout.take().ok_or("runtest has no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let finished = loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break true;
        }
        if started.elapsed() > UNIT_DEADLINE {
            kill_tree(&mut child);
            break false;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = reader.join().unwrap_or_default();
    server.stop();
    if !finished {
        println!("{unit}: stopped after {} s", UNIT_DEADLINE.as_secs());
    }
    let results = parse_output(&out);
    if results.is_empty() {
        // Nothing ran: show runtest's own words (a missing tclsh, a busy port...).
        let tail: Vec<&str> = out.lines().rev().take(15).collect();
        for l in tail.iter().rev() {
            println!("  {l}");
        }
    }
    Ok(results)
}

/// The redsim server a unit runs against; stopped when dropped.
struct Server(Child);

impl Server {
    /// It runs in `dir`, the job's copy of the suite, where the `needs:save`
    /// tests' SAVE and BGSAVE write its `dump.rdb`.
    fn start(redsim: &Path, port: u16, dir: &Path) -> Result<Server, String> {
        let child = Command::new(redsim)
            .current_dir(dir)
            // The suite's `needs:debug` tests run: DEBUG is allowed, as
            // the suite's own servers allow it.
            .args(["server", "--port", &port.to_string()])
            .args(["--enable-debug-command", "yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not start {}: {e}", redsim.display()))?;
        let server = Server(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("redsim server did not listen on port {port}"))
    }

    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// runtest starts helper tclsh processes; stop them with it.
fn kill_tree(child: &mut Child) {
    let _ = Command::new("pkill")
        .args(["-P", &child.id().to_string()])
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// A port nothing listens on now.
fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind(("127.0.0.1", 0)).map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Strips terminal colour codes (`ESC [ … m`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The per-test lines of runtest's output: `[ok]: name (N ms)`,
/// `[err]: name in tests/unit/x.tcl` followed by what it observed,
/// `[exception]: …` (the unit ended early) and `[ignore]: name: reason`.
pub fn parse_output(out: &str) -> Vec<TestResult> {
    let lines: Vec<String> = out.lines().map(strip_ansi).collect();
    let mut results = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let observed = || {
            lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .map(|l| one_line(l, 160))
                .unwrap_or_default()
        };
        if let Some(rest) = line.strip_prefix("[ok]: ") {
            let name = match rest.rfind(" (") {
                Some(p) if rest.ends_with(" ms)") => &rest[..p],
                _ => rest,
            };
            results.push(TestResult {
                status: Status::Ok,
                name: name.to_string(),
                detail: String::new(),
            });
        } else if let Some(rest) = line.strip_prefix("[err]: ") {
            let name = match rest.rfind(" in tests/") {
                Some(p) => &rest[..p],
                None => rest,
            };
            results.push(TestResult {
                status: Status::Err,
                name: name.to_string(),
                detail: observed(),
            });
        } else if let Some(rest) = line.strip_prefix("[exception]: ") {
            results.push(TestResult {
                status: Status::Err,
                name: "(the unit stopped)".to_string(),
                detail: one_line(rest, 160),
            });
        } else if let Some(rest) = line.strip_prefix("[ignore]: ") {
            // Reasons look like "Tag: needs:repl denied", so split before "Tag: ".
            let (name, why) = match rest.find(": Tag: ") {
                Some(p) => (&rest[..p], &rest[p + 2..]),
                None => rest.rsplit_once(": ").unwrap_or((rest, "")),
            };
            results.push(TestResult {
                status: Status::Ignore,
                name: name.to_string(),
                detail: why.to_string(),
            });
        }
    }
    results
}

/// At most `max` characters, tabs as spaces (the file is tab-separated) and other control
/// characters escaped as Rust writes them, `\u{12}`: a test that fails on a DUMP payload
/// prints its bytes raw, which made the record a binary file to grep and to git.
fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in s.chars().take(max) {
        match c {
            '\t' => out.push(' '),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// (passed, failed, ignored).
fn counts(results: &[TestResult]) -> (usize, usize, usize) {
    let n = |s| results.iter().filter(|r| r.status == s).count();
    (n(Status::Ok), n(Status::Err), n(Status::Ignore))
}

/// How many times each name passed (some units run a test once per
/// encoding or mode under the same name).
fn passes(results: &[TestResult]) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Ok) {
        *m.entry(r.name.as_str()).or_insert(0) += 1;
    }
    m
}

/// Names recorded as passing (as often as recorded) that passed less often now.
fn lost_passes(expected: Option<&Vec<TestResult>>, now: &[TestResult]) -> Vec<String> {
    let Some(expected) = expected else {
        return Vec::new();
    };
    let now = passes(now);
    passes(expected)
        .into_iter()
        .filter(|(name, n)| now.get(name).copied().unwrap_or(0) < *n)
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Passes now beyond those recorded.
fn gained_passes(expected: Option<&Vec<TestResult>>, now: &[TestResult]) -> usize {
    let was = expected.map(|e| passes(e)).unwrap_or_default();
    passes(now)
        .into_iter()
        .map(|(name, n)| n.saturating_sub(was.get(name).copied().unwrap_or(0)))
        .sum()
}

/// Reads the reasons: `unit<TAB>test<TAB>why` per line, `#` comments.
fn read_why(path: &Path) -> Result<Reasons, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.splitn(3, '\t');
        let (Some(unit), Some(name), Some(why)) = (f.next(), f.next(), f.next()) else {
            return Err(format!("{WHY}:{}: expected unit, test and reason", n + 1));
        };
        out.insert((unit.to_string(), name.to_string()), why.to_string());
    }
    Ok(out)
}

/// Every recorded failure must say why it fails.
fn unexplained(results: &Results, why: &Reasons) -> Result<(), String> {
    let missing: Vec<String> = results
        .iter()
        .flat_map(|(unit, r)| {
            r.iter()
                .filter(|t| t.status == Status::Err)
                .filter(|t| !why.contains_key(&(unit.clone(), t.name.clone())))
                .map(move |t| format!("{unit}\t{}", t.name))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} recorded failures have no reason in {WHY}:\n{}",
        missing.len(),
        missing.join("\n")
    ))
}

/// Reads the record: `status<TAB>unit<TAB>name[<TAB>detail[<TAB>why]]` per line,
/// `#` comments. A missing file is an empty record.
pub fn read_results(path: &Path) -> Result<Results, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(BTreeMap::new());
    };
    parse_results(&text)
}

fn parse_results(text: &str) -> Result<Results, String> {
    let mut out: Results = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.splitn(5, '\t');
        let (Some(status), Some(unit), Some(name)) = (f.next(), f.next(), f.next()) else {
            return Err(format!(
                "{RESULTS}:{}: expected status, unit and name",
                n + 1
            ));
        };
        let status = Status::parse(status)
            .ok_or_else(|| format!("{RESULTS}:{}: unknown status '{status}'", n + 1))?;
        out.entry(unit.to_string()).or_default().push(TestResult {
            status,
            name: name.to_string(),
            detail: f.next().unwrap_or("").to_string(),
        });
    }
    Ok(out)
}

fn write_results(path: &Path, results: &Results, why: &Reasons) -> Result<(), String> {
    let mut text = String::from(
        "# Redis 7.2.6's test suite against `redsim server`, written by `cargo xtask redis-suite --update`.\n\
         # status<TAB>unit<TAB>test[<TAB>what a failing test observed, or why runtest ignored it[<TAB>why it fails]]\n\
         # `cargo xtask test` fails when a test recorded ok no longer passes, or a failure has no reason\n\
         # in tests/redis-suite/why.txt.\n",
    );
    let order = |u: &String| UNITS.iter().position(|x| x == u).unwrap_or(usize::MAX);
    let mut units: Vec<&String> = results.keys().collect();
    units.sort_by_key(|u| (order(u), (*u).clone()));
    for unit in units {
        let r = &results[unit];
        let (ok, err, ign) = counts(r);
        text.push_str(&format!("# {unit}: {ok} ok, {err} err, {ign} ignored\n"));
        let mut sorted: Vec<&TestResult> = r.iter().collect();
        sorted.sort_by(|a, b| (a.status, &a.name).cmp(&(b.status, &b.name)));
        for t in sorted {
            text.push_str(t.status.word());
            text.push('\t');
            text.push_str(unit);
            text.push('\t');
            text.push_str(&t.name);
            let reason = why.get(&(unit.clone(), t.name.clone()));
            if !t.detail.is_empty() || reason.is_some() {
                text.push('\t');
                text.push_str(&t.detail);
            }
            if let (Status::Err, Some(reason)) = (t.status, reason) {
                text.push('\t');
                text.push_str(reason);
            }
            text.push('\n');
        }
    }
    let dir: PathBuf = path.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\u{1b}[1;37;49mTesting unit/type/list\u{1b}[0m\n\
        [\u{1b}[0;32;49mok\u{1b}[0m]: LPOS basic usage - quicklist (2 ms)\n\
        [ok]: LPOS basic usage - quicklist (1 ms)\n\
        [\u{1b}[0;31;49merr\u{1b}[0m]: plain node check compression in tests/unit/type/list.tcl\n\
        ERR unknown command 'debug'\n\
        [ignore]: GETDEL propagate as DEL command to replica: Tag: needs:repl denied\n\
        [exception]: Executing test client: I/O error reading reply\n";

    #[test]
    fn control_bytes_in_what_a_test_observed_are_escaped() {
        let out =
            "[err]: restore in tests/unit/dump.tcl\nExpected '{\u{12}\u{1}\0\thello\u{7f}}'\n";
        let r = parse_output(out);
        assert_eq!(r[0].detail, "Expected '{\\u{12}\\u{1}\\u{0} hello\\u{7f}}'");
        assert!(r[0].detail.chars().all(|c| !c.is_control()));
    }

    #[test]
    fn isolated_tests_are_picked_out_of_units_that_run() {
        for (unit, _) in ISOLATED {
            assert!(UNITS.contains(unit), "{unit}");
        }
        assert_eq!(
            Pick::AllBut(vec!["a b", "c"]).args(),
            ["--skiptest", "a b", "--skiptest", "c"]
        );
        assert_eq!(Pick::Only("a b").args(), ["--only", "a b"]);
    }

    #[test]
    fn parses_every_kind_of_line() {
        let r = parse_output(SAMPLE);
        assert_eq!(r.len(), 5);
        assert_eq!(r[0].name, "LPOS basic usage - quicklist");
        assert_eq!(r[0].status, Status::Ok);
        assert_eq!(r[2].status, Status::Err);
        assert_eq!(r[2].name, "plain node check compression");
        assert_eq!(r[2].detail, "ERR unknown command 'debug'");
        assert_eq!(r[3].status, Status::Ignore);
        assert_eq!(r[3].name, "GETDEL propagate as DEL command to replica");
        assert_eq!(r[3].detail, "Tag: needs:repl denied");
        assert_eq!(r[4].status, Status::Err);
    }

    #[test]
    fn the_ratchet_counts_repeated_names() {
        let recorded = parse_output(SAMPLE);
        // One of the two runs of a repeated name failing is a lost pass.
        let mut now = recorded.clone();
        now[1].status = Status::Err;
        assert_eq!(
            lost_passes(Some(&recorded), &now),
            ["LPOS basic usage - quicklist"]
        );
        assert_eq!(gained_passes(Some(&recorded), &now), 0);
        // A failing test that passes is a gain, never a loss.
        let mut better = recorded.clone();
        better[2].status = Status::Ok;
        assert!(lost_passes(Some(&recorded), &better).is_empty());
        assert_eq!(gained_passes(Some(&recorded), &better), 1);
    }

    #[test]
    fn the_record_round_trips() {
        let mut results: Results = BTreeMap::new();
        results.insert("unit/type/list".into(), parse_output(SAMPLE));
        let dir = std::env::temp_dir().join(format!("redsim-suite-{}", std::process::id()));
        let path = dir.join("results.txt");
        let mut why: Reasons = BTreeMap::new();
        // A failure without a reason is refused.
        assert!(unexplained(&results, &why)
            .unwrap_err()
            .contains("plain node"));
        for t in results["unit/type/list"]
            .iter()
            .filter(|t| t.status == Status::Err)
        {
            let key = ("unit/type/list".to_string(), t.name.clone());
            why.insert(key, "no plain nodes here".into());
        }
        assert!(unexplained(&results, &why).is_ok());
        write_results(&path, &results, &why).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\tERR unknown command 'debug'\tno plain nodes here\n"));
        let back = read_results(&path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let mut a = results["unit/type/list"].clone();
        a.sort_by(|x, y| (x.status, &x.name).cmp(&(y.status, &y.name)));
        assert_eq!(back["unit/type/list"], a);
        assert!(parse_results("bogus\tunit\tname\n").is_err());
    }
}
