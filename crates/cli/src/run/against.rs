//! `redsim run <id> --against redis://HOST:PORT`: a scenario's Redis traffic on a real server in wall-clock time, its application, network and database still simulated, and its metrics and checks printed beside the simulated run's.
//!
//! The simulation issues every command at a virtual instant; here each is
//! sent when the wall clock reaches that instant (from when its node was
//! built, divided by `--speed`), on one real connection per simulated
//! client, and its reply goes back into the simulation. A node the scenario
//! builds (one per sub-run, or a restart) starts with `FLUSHDB`, so keys
//! from an earlier run never leak in. Scenarios that read engine internals
//! or need several nodes at once say why in their description and are
//! refused before anything is sent.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant};

use redsim_engine::{ClientId, Frame};
use redsim_sim::against::{self, Backend, Factory};
use redsim_sim::kernel::Micros;
use redsim_sim::{self as sim, Outcome, ScenarioInfo};
use redsim_viz::svg::metric;

use super::{RunOptions, Status};
use crate::remote::{is_blocking, Remote, Target};

/// Exit status when the server cannot be reached or a connection fails.
pub const CONNECTION_FAILED: Status = 1;

/// What the run's nodes did, shared with the caller.
#[derive(Default)]
struct Tally {
    /// The first failure; later commands are answered with an error unsent.
    error: Option<String>,
    nodes: usize,
    commands: u64,
    connections: usize,
    /// The most a command was sent after its (scaled) virtual instant.
    late: Duration,
}

/// One simulated client's connection.
struct Client {
    who: String,
    /// Opened on its first command.
    remote: Option<Remote>,
    /// Sent a blocking command whose reply has not come.
    waiting: bool,
    /// Subscribed: messages may arrive at any time.
    subscribed: bool,
}

/// One Redis node of the scenario on the real server.
struct Node {
    target: Target,
    speed: f64,
    start: Instant,
    clients: BTreeMap<ClientId, Client>,
    /// The connection [`Node::barrier`] pings on.
    sync: Option<Remote>,
    tally: Rc<RefCell<Tally>>,
}

impl Node {
    fn open(target: &Target, speed: f64, tally: &Rc<RefCell<Tally>>) -> Node {
        tally.borrow_mut().nodes += 1;
        let mut node = Node {
            target: target.clone(),
            speed,
            start: Instant::now(),
            clients: BTreeMap::new(),
            sync: None,
            tally: tally.clone(),
        };
        if tally.borrow().error.is_none() {
            let flushed = Remote::open(target).and_then(|mut r| r.call(&[b"FLUSHDB".to_vec()]));
            match flushed {
                Ok(Frame::Error(e)) => drop(node.fail(format!("FLUSHDB: {e}"))),
                Err(e) => drop(node.fail(format!("FLUSHDB: {e}"))),
                Ok(_) => {}
            }
        }
        node.start = Instant::now();
        node
    }

    /// Records the run's first failure and answers the command with an error.
    fn fail(&self, why: String) -> Frame {
        self.tally.borrow_mut().error.get_or_insert(why);
        Frame::Error("ERR redsim: the connection to the server failed".into())
    }

    fn failed(&self) -> bool {
        self.tally.borrow().error.is_some()
    }

    /// Sleeps until the wall-clock instant of virtual time `at`.
    fn pace(&mut self, at: Micros) {
        let due = self.start + Duration::from_secs_f64(at as f64 / 1e6 / self.speed);
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        } else {
            let mut t = self.tally.borrow_mut();
            t.late = t.late.max(now - due);
        }
    }

    /// Client `id`'s connection, opened and named on first use.
    fn conn(&mut self, id: ClientId) -> Result<&mut Remote, Frame> {
        let Some(c) = self.clients.get(&id) else {
            return Err(self.fail(format!("connection {id} was never opened")));
        };
        if c.remote.is_none() {
            let name = client_name(&c.who);
            let named = Remote::open(&self.target).and_then(|mut r| {
                r.call(&[b"CLIENT".to_vec(), b"SETNAME".to_vec(), name])?;
                Ok(r)
            });
            match named {
                Ok(r) => {
                    self.tally.borrow_mut().connections += 1;
                    self.clients.get_mut(&id).expect("checked").remote = Some(r);
                }
                Err(e) => {
                    let who = c.who.clone();
                    return Err(self.fail(format!("connecting for {who}: {e}")));
                }
            }
        }
        let c = self.clients.get_mut(&id).expect("checked");
        Ok(c.remote.as_mut().expect("opened above"))
    }

    /// Returns once the server has written every reply of the commands it
    /// read before: two PINGs in turn on a connection of its own (the
    /// second is read in a later event-loop iteration than anything sent
    /// before the first), so a blocked client's reply or a message is
    /// already in its socket, and a closed connection has been freed.
    fn barrier(&mut self) -> Result<(), Frame> {
        if self.sync.is_none() {
            match Remote::open(&self.target) {
                Ok(r) => self.sync = Some(r),
                Err(e) => return Err(self.fail(format!("connecting: {e}"))),
            }
        }
        let sync = self.sync.as_mut().expect("opened above");
        let pinged = sync
            .call(&[b"PING".to_vec()])
            .and_then(|_| sync.call(&[b"PING".to_vec()]));
        pinged
            .map(drop)
            .map_err(|e| self.fail(format!("PING: {e}")))
    }
}

impl Backend for Node {
    fn connect(&mut self, id: ClientId, who: &str) {
        let client = Client {
            who: who.to_string(),
            remote: None,
            waiting: false,
            subscribed: false,
        };
        self.clients.insert(id, client);
    }

    fn execute(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Frame {
        if self.failed() {
            return Frame::Error("ERR redsim: not sent, the run already failed".into());
        }
        if is_blocking(args) {
            let name = String::from_utf8_lossy(&args[0]).to_uppercase();
            return self.fail(format!(
                "the scenario sent {name} where a blocking command must not block"
            ));
        }
        self.pace(at);
        let conn = match self.conn(id) {
            Ok(c) => c,
            Err(f) => return f,
        };
        let reply = conn.call(args);
        self.tally.borrow_mut().commands += 1;
        reply.unwrap_or_else(|e| self.fail(format!("{}: {e}", self.clients[&id].who)))
    }

    fn submit(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Option<Frame> {
        if !is_blocking(args) {
            let reply = self.execute(at, id, args);
            let name = args.first().map(|a| a.to_ascii_uppercase());
            if matches!(
                name.as_deref(),
                Some(b"SUBSCRIBE" | b"PSUBSCRIBE" | b"SSUBSCRIBE")
            ) && !reply.is_error()
            {
                self.clients.get_mut(&id).expect("just used").subscribed = true;
            }
            return Some(reply);
        }
        if self.failed() {
            return Some(Frame::Error(
                "ERR redsim: not sent, the run already failed".into(),
            ));
        }
        self.pace(at);
        let sent = match self.conn(id) {
            Ok(c) => c.send(args),
            Err(f) => return Some(f),
        };
        self.tally.borrow_mut().commands += 1;
        if let Err(e) = sent {
            return Some(self.fail(format!("{}: {e}", self.clients[&id].who)));
        }
        if let Err(f) = self.barrier() {
            return Some(f);
        }
        let c = self.clients.get_mut(&id).expect("just used");
        match c.remote.as_mut().expect("just used").poll() {
            Ok(Some(reply)) => Some(reply),
            Ok(None) => {
                c.waiting = true;
                None
            }
            Err(e) => {
                let who = c.who.clone();
                Some(self.fail(format!("{who}: {e}")))
            }
        }
    }

    fn take_unblocked(&mut self, _at: Micros) -> Vec<(ClientId, Frame)> {
        let mut got = Vec::new();
        if self.failed() || !self.clients.values().any(|c| c.waiting || c.subscribed) {
            return got;
        }
        if self.barrier().is_err() {
            return got;
        }
        let mut failure = None;
        for (id, c) in &mut self.clients {
            if !(c.waiting || c.subscribed) {
                continue;
            }
            let Some(remote) = c.remote.as_mut() else {
                continue;
            };
            loop {
                match remote.poll() {
                    Ok(Some(f)) => {
                        c.waiting = false;
                        got.push((*id, f));
                    }
                    Ok(None) => break,
                    Err(e) => {
                        failure = Some(format!("{}: {e}", c.who));
                        break;
                    }
                }
            }
        }
        if let Some(why) = failure {
            drop(self.fail(why));
        }
        got
    }

    fn disconnect(&mut self, _at: Micros, id: ClientId) {
        let open = self.clients.remove(&id).and_then(|c| c.remote).is_some();
        if open && !self.failed() {
            // Wait until the server has freed it, so no later command serves it.
            let _ = self.barrier();
        }
    }
}

/// `redsim-<who>` with what CLIENT SETNAME refuses (spaces, newlines) as `-`.
fn client_name(who: &str) -> Vec<u8> {
    let clean: String = who
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '-' })
        .collect();
    format!("redsim-{clean}").into_bytes()
}

/// The server's `redis_version`, which also proves it answers.
fn server_version(target: &Target) -> std::io::Result<String> {
    let mut r = Remote::open(target)?;
    let info = r.call(&[b"INFO".to_vec(), b"server".to_vec()])?;
    let text = match info {
        Frame::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
        Frame::Verbatim(_, b) => String::from_utf8_lossy(&b).into_owned(),
        Frame::Error(e) => return Err(std::io::Error::other(e.to_string())),
        _ => String::new(),
    };
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap_or("unknown")
        .trim()
        .to_string())
}

/// `redsim run <id> --against URL [--speed N]`. Usage errors (unknown
/// scenario, bad parameter, a scenario that cannot run against a server,
/// a cluster URL) are `Err`s for status 2; a server that cannot be reached
/// or a connection lost midway is reported on stderr with status 1. The
/// lesson's checks are data: a run that worked exits 0 whatever they say.
pub fn run_against(o: &RunOptions, target: &Target, out: &mut dyn Write) -> Result<Status, String> {
    if o.svg.is_some() || o.check {
        return Err("run: --svg and --check are for simulated runs, not --against".into());
    }
    if target.cluster {
        return Err("run: --against runs a scenario on one server, not a cluster".into());
    }
    let simulated = sim::run(&o.id, o.seed, &o.overrides).map_err(|e| format!("run: {e}"))?;
    let info = sim::find(&o.id).expect("it just ran").info();
    if let Some(why) = info.not_against {
        return Err(format!(
            "run: {} does not run against a real server: {why}",
            o.id
        ));
    }
    let version = match server_version(target) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("redsim: cannot reach {}: {e}", target.addr);
            return Ok(CONNECTION_FAILED);
        }
    };
    let tally = Rc::new(RefCell::new(Tally::default()));
    let factory: Factory = {
        let (target, speed, tally) = (target.clone(), o.speed, tally.clone());
        Box::new(move |_| Box::new(Node::open(&target, speed, &tally)))
    };
    let began = Instant::now();
    let ran = catch_unwind(AssertUnwindSafe(|| {
        against::with_backend(factory, || sim::run(&o.id, o.seed, &o.overrides))
    }));
    let wall = began.elapsed();
    let tally = tally.borrow();
    if let Some(e) = &tally.error {
        eprintln!("redsim: run --against {}: {e}", target.addr);
        return Ok(CONNECTION_FAILED);
    }
    let real = match ran {
        Ok((outcome, _)) => outcome.map_err(|e| format!("run: {e}"))?,
        Err(panic) => resume_unwind(panic),
    };
    let db = target.db.unwrap_or(0);
    let how = format!(
        "against redis://{} (redis_version {version}), database {db}: FLUSHDB before each of the \
         run's {} Redis node{}; {} commands on {} connections in {:.1} s of wall time at --speed {}; \
         commands were sent up to {:.1} ms after their virtual instant",
        target.addr,
        tally.nodes,
        if tally.nodes == 1 { "" } else { "s" },
        tally.commands,
        tally.connections,
        wall.as_secs_f64(),
        fmt_speed(o.speed),
        tally.late.as_secs_f64() * 1e3,
    );
    let text = match &o.json {
        None => side_by_side(info, &simulated, &real, &how),
        Some(to) => {
            let doc = serde_json::json!({ "against": how, "simulated": simulated, "real": real });
            let mut t = serde_json::to_string_pretty(&doc)
                .map_err(|e| format!("cannot encode JSON: {e}"))?;
            t.push('\n');
            match to {
                None => t,
                Some(path) => {
                    std::fs::write(path, t).map_err(|e| format!("cannot write {path}: {e}"))?;
                    side_by_side(info, &simulated, &real, &how)
                }
            }
        }
    };
    out.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write: {e}"))?;
    Ok(0)
}

fn fmt_speed(s: f64) -> String {
    redsim_sim::params::fmt_num(s)
}

/// The report: what ran where, then metrics and checks in two columns.
pub fn side_by_side(info: &ScenarioInfo, sim: &Outcome, real: &Outcome, how: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", info.id, info.title);
    let _ = writeln!(s, "claim: {}", info.claim);
    let _ = writeln!(
        s,
        "seed {} · the application, network and database simulated; Redis:",
        sim.seed
    );
    let _ = writeln!(s, "{how}");
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for m in &sim.metrics {
        let theirs = real.metrics.iter().find(|r| r.name == m.name);
        let cell = |v: f64| format!("{} {}", metric(v), m.unit).trim_end().to_string();
        let r = theirs.map_or("-".to_string(), |r| cell(r.value));
        rows.push((m.name.clone(), cell(m.value), r));
    }
    for r in real
        .metrics
        .iter()
        .filter(|r| !sim.metrics.iter().any(|m| m.name == r.name))
    {
        let cell = format!("{} {}", metric(r.value), r.unit)
            .trim_end()
            .to_string();
        rows.push((r.name.clone(), "-".into(), cell));
    }
    table(&mut s, "metrics", &rows);
    let mut rows = Vec::new();
    for (i, c) in sim.checks.iter().enumerate() {
        let theirs = real
            .checks
            .iter()
            .find(|r| r.claim == c.claim)
            .or(real.checks.get(i));
        let mark = |p: bool| if p { "✓" } else { "✗" }.to_string();
        rows.push((
            c.claim.clone(),
            mark(c.passed),
            theirs.map_or("-".into(), |r| mark(r.passed)),
        ));
    }
    table(&mut s, "checks", &rows);
    let details: Vec<(&str, &str)> = sim
        .checks
        .iter()
        .zip(&real.checks)
        .filter(|(a, b)| !b.detail.is_empty() && a.detail != b.detail)
        .map(|(_, b)| (b.claim.as_str(), b.detail.as_str()))
        .collect();
    if !details.is_empty() {
        s.push_str("\nchecks on the real server, in figures\n");
        for (claim, detail) in details {
            let _ = writeln!(s, "  {claim}\n    {detail}");
        }
    }
    let passed = |o: &Outcome| o.checks.iter().filter(|c| c.passed).count();
    let _ = writeln!(
        s,
        "\nsimulated: {}/{} checks passed · real server: {}/{} checks passed",
        passed(sim),
        sim.checks.len(),
        passed(real),
        real.checks.len()
    );
    s
}

/// A three-column table under `title`, the first column padded.
fn table(s: &mut String, title: &str, rows: &[(String, String, String)]) {
    if rows.is_empty() {
        return;
    }
    let width = |f: fn(&(String, String, String)) -> &String, head: &str| {
        rows.iter()
            .map(|r| f(r).chars().count())
            .max()
            .unwrap_or(0)
            .max(head.chars().count())
    };
    let w0 = width(|r| &r.0, title);
    let w1 = width(|r| &r.1, "simulated");
    let pad = |t: &str, w: usize| format!("{t}{}", " ".repeat(w - t.chars().count()));
    let _ = writeln!(
        s,
        "\n{}  {}  real server",
        pad(title, w0 + 2),
        pad("simulated", w1)
    );
    for (a, b, c) in rows {
        let _ = writeln!(s, "  {}  {}  {c}", pad(a, w0), pad(b, w1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_have_no_spaces() {
        assert_eq!(client_name("reader 1\n"), b"redsim-reader-1-".to_vec());
    }

    #[test]
    fn the_table_lines_up_both_runs() {
        let info = sim::find("incr-vs-get-set").unwrap().info();
        let a = sim::run("incr-vs-get-set", 1, &[]).unwrap();
        let mut b = a.clone();
        b.metrics[0].value += 1.0;
        let t = side_by_side(info, &a, &b, "against somewhere");
        assert!(t.contains("metrics") && t.contains("simulated") && t.contains("real server"));
        assert!(t.contains(&a.metrics[0].name), "{t}");
        assert!(t.contains("checks passed · real server"), "{t}");
    }
}
