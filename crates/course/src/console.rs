//! A step's engine: built from the step's seed, config and setup, then fed session lines (commands, `@N` targets, `# sleep <ms>`) as the lesson console and the checker both do, so what the learner saw is what is checked.

use redsim_engine::engine::{ClientId, Options};
use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::parse_frame;
use redsim_engine::proto::session::{Session, Step as SessionStep};
use redsim_engine::{Engine, Frame};

use crate::Step;

/// One line run: what was typed and the reply as redis-cli prints it
/// (empty for a sleep).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub input: String,
    pub reply: String,
}

/// An engine with its clients, on the virtual clock only: time passes when
/// a `# sleep <ms>` line says so, never by itself, so a check replays
/// exactly what the learner ran.
pub struct Console {
    engine: Engine,
    /// Client `i + 1` of the session's `@N` targets, connected on first use.
    clients: Vec<ClientId>,
}

impl Console {
    /// A fresh engine for `step`, its setup already run. An `Err` is an
    /// authoring mistake (a bad config or setup line), which `prove` reports.
    pub fn for_step(step: &Step) -> Result<Console, String> {
        let mut opts = Options::new(step.seed);
        for (name, value) in &step.config {
            opts.config
                .set_initial(name, value)
                .map_err(|e| format!("config {name} {value}: {e}"))?;
        }
        let mut console = Console {
            engine: Engine::with_options(opts),
            clients: Vec::new(),
        };
        for line in &step.setup {
            console.run_text(line)?;
        }
        Ok(console)
    }

    /// Runs session text, line by line. Parse errors (unbalanced quotes)
    /// stop before anything runs.
    pub fn run_text(&mut self, text: &str) -> Result<Vec<Line>, String> {
        let session = Session::parse(text)?;
        let mut out = Vec::new();
        for step in session.steps {
            out.push(self.run_step(step));
        }
        Ok(out)
    }

    /// Runs one typed line: `None` for a blank line or a comment.
    pub fn run_line(&mut self, line: &str) -> Result<Option<Line>, String> {
        let session = Session::parse(line)?;
        Ok(session.steps.into_iter().next().map(|s| self.run_step(s)))
    }

    fn run_step(&mut self, step: SessionStep) -> Line {
        match step {
            SessionStep::Sleep { ms, .. } => {
                self.engine.advance_by(ms.saturating_mul(1000));
                Line {
                    input: format!("# sleep {ms}"),
                    reply: String::new(),
                }
            }
            SessionStep::Command { client, args, .. } => {
                let reply = self.execute(client, &args);
                let reply = self.as_received(client, reply);
                let words: Vec<String> = args
                    .iter()
                    .map(|a| redsim_engine::proto::session::quote(a))
                    .collect();
                let prefix = if client == 1 {
                    String::new()
                } else {
                    format!("@{client} ")
                };
                Line {
                    input: format!("{prefix}{}", words.join(" ")),
                    reply: format_reply(&reply),
                }
            }
        }
    }

    /// Runs `args` for client `n` (1-based), connecting it if needed.
    /// Commands never block: a blocking one answers as on a timeout.
    pub fn execute(&mut self, n: usize, args: &[Vec<u8>]) -> Frame {
        while self.clients.len() < n {
            let name = format!("client {}", self.clients.len() + 1);
            let id = self.engine.connect(&name);
            self.clients.push(id);
        }
        let reply = self.engine.execute(self.clients[n - 1], args);
        self.engine.before_sleep();
        reply
    }

    /// The reply as client `n` receives it on the wire: maps and doubles
    /// become arrays and strings under RESP2 (redis-cli's default), as the
    /// learner would see them from a real server.
    fn as_received(&self, n: usize, reply: Frame) -> Frame {
        let proto = self
            .engine
            .client(self.clients[n - 1])
            .map_or(2, |c| c.resp);
        match parse_frame(&reply.to_bytes(proto)) {
            Ok(Some((f, _))) => f,
            _ => reply,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}
