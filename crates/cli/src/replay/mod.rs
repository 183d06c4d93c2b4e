//! `redsim replay`: runs a session script (a file, stdin or a console Share link) on the simulator and on a real Redis, Valkey or Redis Cluster, and prints every reply that differs, with its line.
//!
//! The script format is [`redsim_engine::proto::session`]'s: what the
//! browser console exports. Each script client (`@N`) gets its own
//! connection on both sides, so blocking commands and their wake-ups replay
//! too. `--timing` keeps `# sleep <ms>` lines: wall time on the real server,
//! virtual time in the simulator. Replies are compared by [`compare`]'s
//! rules.

mod compare;

use std::io::Write;
use std::time::Duration;

use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::{parse_frame, Frame};
use redsim_engine::proto::session::{Session, Step, MAX_CLIENTS};
use redsim_engine::{ClientId, Engine, Options};
use redsim_sim::cluster::{Cluster, SimClient, SimOptions};

pub use crate::remote::Target;
use crate::remote::{is_blocking, Remote};
pub use compare::{rule, same, Rule};

use crate::run::Status;

/// How long a real server may take to answer a command the simulator has
/// already answered (a blocked client woken, a timeout passed).
const WAKE_WAIT: Duration = Duration::from_secs(5);
/// How long to look for a reply the simulator says is still blocked.
const STILL_BLOCKED_WAIT: Duration = Duration::from_millis(200);

pub fn replay_usage() -> String {
    "\
Usage: redsim replay SCRIPT --against redis://HOST:PORT[/DB][?cluster=1] [--timing] [--seed N]

Runs SCRIPT on the simulator and on a real server, and prints each reply
that differs with its line number and both replies. Exit status: 0 when
nothing differs, 1 when something does (or the server cannot be reached),
2 on usage errors.

SCRIPT is a file (or - for stdin) with one command per line, quoted as
redis-cli quotes; '@N CMD' sends from client N (up to 8); '# sleep <ms>'
waits; other '#' lines are comments. A console Share link (or a file
holding one) works as well: its cmd= parameters are the lines.

  --against URL   the real server; ?cluster=1 follows MOVED and ASK, and the
                  simulator runs a three-master cluster
  --timing        keep '# sleep' lines: wall time on the server, virtual
                  time in the simulator (without it they are skipped)
  --seed N        the simulator's seed (default: the link's, else 1)

Unordered replies (SMEMBERS, HGETALL...) compare as sets; random ones
(SPOP, SCAN, INFO...) by type; TTLs and stream IDs within a second.
The simulator starts empty and the server is used as it is: begin the
script with FLUSHALL (on a server you may empty) to start both alike.
"
    .to_string()
}

/// What `redsim replay` was asked to do.
#[derive(Debug)]
pub struct ReplayOptions {
    pub script: String,
    pub target: Target,
    pub timing: bool,
    pub seed: Option<u64>,
}

impl ReplayOptions {
    pub fn from_args(args: &[String]) -> Result<ReplayOptions, String> {
        let mut script = None;
        let mut target = None;
        let mut timing = false;
        let mut seed = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match a.as_str() {
                "--against" => target = Some(Target::parse(&value("--against")?)?),
                "--timing" => timing = true,
                "--seed" => {
                    let v = value("--seed")?;
                    seed = Some(
                        redsim_sim::params::parse_seed(&v)
                            .ok_or_else(|| format!("--seed '{v}' is not a number"))?,
                    );
                }
                s if s.starts_with("--") => return Err(format!("unknown option '{s}'")),
                s if script.is_none() => script = Some(s.to_string()),
                s => return Err(format!("one script only ('{s}' is a second)")),
            }
        }
        Ok(ReplayOptions {
            script: script.ok_or("which script? (a file, - for stdin, or a Share link)")?,
            target: target.ok_or("--against redis://HOST:PORT is required")?,
            timing,
            seed,
        })
    }
}

/// Reads the script: a link, a file holding one, or session text.
pub fn load_session(source: &str) -> Result<Session, String> {
    let is_link = |s: &str| {
        let s = s.trim();
        (s.starts_with("http://") || s.starts_with("https://") || s.starts_with('?'))
            && s.contains("cmd=")
    };
    if is_link(source) {
        return Session::from_link(source.trim());
    }
    let text = if source == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("stdin: {e}"))?
    } else {
        std::fs::read_to_string(source).map_err(|e| format!("{source}: {e}"))?
    };
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    match first {
        Some(l) if is_link(l) && text.trim().lines().count() == 1 => Session::from_link(l),
        _ => Session::parse(&text),
    }
}

/// `redsim replay`: `Err` is a usage error (exit 2).
pub fn replay_command(args: &[String], out: &mut dyn Write) -> Result<Status, String> {
    let opts = ReplayOptions::from_args(args)?;
    let session = load_session(&opts.script)?;
    if opts.target.cluster {
        if let Some(line) = session.steps.iter().find_map(|s| match s {
            Step::Command { line, args, .. } if is_blocking(args) => Some(*line),
            _ => None,
        }) {
            return Err(format!(
                "line {line}: blocking commands are not replayed against a cluster"
            ));
        }
    }
    let seed = opts.seed.or(session.seed).unwrap_or(1);
    let report = match replay(&session, &opts.target, opts.timing, seed) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "redsim replay: {}: {e}", opts.target.addr);
            return Ok(1);
        }
    };
    let _ = out.write_all(report.text.as_bytes());
    let _ = writeln!(
        out,
        "{} command{} replayed against {}{}: {} difference{}",
        report.compared,
        plural(report.compared),
        opts.target.addr,
        if opts.target.cluster {
            " (cluster)"
        } else {
            ""
        },
        report.differences,
        plural(report.differences)
    );
    Ok(u8::from(report.differences > 0))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What a replay found.
#[derive(Debug, Default)]
pub struct Report {
    pub compared: usize,
    pub differences: usize,
    /// Each difference: the line, the command and both replies.
    pub text: String,
}

/// The simulator's side: one engine, or a three-master cluster.
enum Sim {
    Single(Box<Engine>, Vec<ClientId>),
    Cluster(Box<Cluster>, Vec<SimClient>),
}

impl Sim {
    fn new(seed: u64, cluster: bool, unix_ms: Option<u64>) -> Sim {
        if cluster {
            let mut c = Cluster::new(SimOptions::new(seed, 3));
            let clients = (0..MAX_CLIENTS).map(|_| c.client()).collect();
            return Sim::Cluster(Box::new(c), clients);
        }
        let mut e = Engine::with_options(Options {
            trace_capacity: 0,
            ..Options::new(seed)
        });
        if let Some(ms) = unix_ms {
            e.set_unix_base_us(ms * 1000);
        }
        let clients = (1..=MAX_CLIENTS)
            .map(|n| e.connect(&format!("replay-{n}")))
            .collect();
        Sim::Single(Box::new(e), clients)
    }

    /// Runs a command for client `i` (0-based); `None` if it blocked.
    fn submit(&mut self, i: usize, args: &[Vec<u8>]) -> Option<Frame> {
        match self {
            Sim::Single(e, ids) => e.submit(ids[i], args),
            Sim::Cluster(c, clients) => Some(clients[i].run(c, args).reply),
        }
    }

    fn sleep(&mut self, ms: u64) {
        match self {
            Sim::Single(e, _) => e.advance_by(ms * 1000),
            Sim::Cluster(c, _) => c.advance_by(ms * 1000),
        }
    }

    /// Replies to blocked clients that came since the last call, by client.
    fn woken(&mut self) -> Vec<(usize, Frame)> {
        match self {
            Sim::Single(e, ids) => e
                .take_unblocked()
                .into_iter()
                .filter_map(|(id, f)| ids.iter().position(|&c| c == id).map(|i| (i, f)))
                .collect(),
            Sim::Cluster(..) => Vec::new(),
        }
    }
}

/// A command waiting for its reply on both sides.
struct Blocked {
    line: usize,
    args: Vec<Vec<u8>>,
}

/// Replays `session` on both sides and compares every reply.
pub fn replay(
    session: &Session,
    target: &Target,
    timing: bool,
    seed: u64,
) -> std::io::Result<Report> {
    let mut remotes: Vec<Option<Remote>> = (0..MAX_CLIENTS).map(|_| None).collect();
    remotes[0] = Some(Remote::open(target)?);
    // The simulator's Unix clock starts at the server's, so EXPIREAT and
    // TIME-relative replies line up.
    let unix_ms = match remotes[0].as_mut().map(|r| r.call(&[b"TIME".to_vec()])) {
        Some(Ok(Frame::Array(t))) => match (t.first(), t.get(1)) {
            (Some(Frame::Bulk(s)), Some(Frame::Bulk(us))) => {
                let num = |b: &[u8]| String::from_utf8_lossy(b).parse::<u64>().ok();
                num(s).zip(num(us)).map(|(s, us)| s * 1000 + us / 1000)
            }
            _ => None,
        },
        _ => None,
    };
    let mut sim = Sim::new(seed, target.cluster, unix_ms);
    let mut blocked: Vec<Option<Blocked>> = (0..MAX_CLIENTS).map(|_| None).collect();
    let mut report = Report::default();
    // Each client's protocol, as HELLO last set it.
    let mut protos = [2u8; MAX_CLIENTS];
    for step in &session.steps {
        match step {
            Step::Sleep { ms, .. } if timing => {
                std::thread::sleep(Duration::from_millis(*ms));
                sim.sleep(*ms);
            }
            Step::Sleep { .. } => {}
            Step::Command { line, client, args } => {
                let i = client - 1;
                if remotes[i].is_none() {
                    remotes[i] = Some(Remote::open(target)?);
                }
                let remote = remotes[i].as_mut().expect("opened");
                if let Some(b) = &blocked[i] {
                    // As in the console: a blocked client's next line waits
                    // for its reply; here it is reported and skipped.
                    let text = format!(
                        "line {line}: client {client} is still blocked by line {}; skipped\n",
                        b.line
                    );
                    report.text.push_str(&text);
                    report.differences += 1;
                    continue;
                }
                match sim.submit(i, args) {
                    Some(mine) => {
                        let theirs = remote.call(args)?;
                        protos[i] = proto_after(args, &theirs).unwrap_or(protos[i]);
                        let mine = on_the_wire(&mine, protos[i]);
                        compare(&mut report, *line, args, &mine, &theirs);
                    }
                    None => {
                        remote.send(args)?;
                        blocked[i] = Some(Blocked {
                            line: *line,
                            args: args.clone(),
                        });
                    }
                }
            }
        }
        for (i, mine) in sim.woken() {
            let Some(b) = blocked[i].take() else { continue };
            let remote = remotes[i]
                .as_mut()
                .expect("a blocked client has a connection");
            let mine = on_the_wire(&mine, protos[i]);
            match remote.receive(WAKE_WAIT)? {
                Some(theirs) => compare(&mut report, b.line, &b.args, &mine, &theirs),
                None => differ(
                    &mut report,
                    b.line,
                    &b.args,
                    &format_reply(&mine),
                    "(still blocked)",
                ),
            }
        }
    }
    for (i, b) in blocked.iter_mut().enumerate() {
        let Some(b) = b.take() else { continue };
        let remote = remotes[i]
            .as_mut()
            .expect("a blocked client has a connection");
        report.compared += 1;
        if let Some(theirs) = remote.receive(STILL_BLOCKED_WAIT)? {
            differ(
                &mut report,
                b.line,
                &b.args,
                "(still blocked)",
                &format_reply(&theirs),
            );
        }
    }
    Ok(report)
}

/// The protocol a successful `HELLO n` switches to.
fn proto_after(args: &[Vec<u8>], reply: &Frame) -> Option<u8> {
    let hello = args.first()?.eq_ignore_ascii_case(b"HELLO") && !reply.is_error();
    match args.get(1).map(|v| v.as_slice()) {
        Some(b"2") if hello => Some(2),
        Some(b"3") if hello => Some(3),
        _ => None,
    }
}

/// The engine's reply as a client of protocol `proto` reads it: the
/// engine builds RESP3-shaped frames and downgrades them only on encode.
fn on_the_wire(f: &Frame, proto: u8) -> Frame {
    match parse_frame(&f.to_bytes(proto)) {
        Ok(Some((wire, _))) => wire,
        _ => f.clone(),
    }
}

fn compare(report: &mut Report, line: usize, args: &[Vec<u8>], mine: &Frame, theirs: &Frame) {
    report.compared += 1;
    if !same(rule(args), mine, theirs) {
        differ(
            report,
            line,
            args,
            &format_reply(mine),
            &format_reply(theirs),
        );
    }
}

fn differ(report: &mut Report, line: usize, args: &[Vec<u8>], mine: &str, theirs: &str) {
    let cmd: Vec<String> = args
        .iter()
        .map(|a| redsim_engine::proto::session::quote(a))
        .collect();
    let indent = |s: &str| s.replace('\n', "\n          ");
    report.text.push_str(&format!(
        "line {line}: {}\n  redsim: {}\n  redis:  {}\n",
        cmd.join(" "),
        indent(mine),
        indent(theirs)
    ));
    report.differences += 1;
}
