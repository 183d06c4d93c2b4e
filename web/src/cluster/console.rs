//! The Cluster tab's small console: commands typed there go through redsim-sim's cluster client connected as `redis-cli -c` is, and each MOVED or ASK it follows is shown before the final reply.

use redsim_engine::proto::clifmt::format_reply;
use redsim_sim::cluster::{Cluster, SimClient};

/// Lines kept on screen (the oldest go first).
const MAX_LINES: usize = 200;

/// What a console line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// The prompt and the command typed.
    Command,
    /// A redirect the client followed.
    Redirect,
    Reply,
    Error,
}

impl LineKind {
    /// The CSS class of a line of this kind.
    pub fn class(self) -> &'static str {
        match self {
            LineKind::Command => "rs-slotmap-cl-cmd",
            LineKind::Redirect => "rs-slotmap-cl-redirect",
            LineKind::Reply => "rs-slotmap-cl-reply",
            LineKind::Error => "rs-slotmap-cl-error",
        }
    }
}

/// The console: its client (made on the first command) and what it shows.
#[derive(Default)]
pub struct ClusterConsole {
    client: Option<SimClient>,
    pub lines: Vec<(LineKind, String)>,
}

impl ClusterConsole {
    /// The prompt: the address of the node the client is connected to.
    pub fn prompt(&self, cluster: Option<&Cluster>) -> String {
        let node = self.client.as_ref().and_then(|c| c.connected).unwrap_or(0);
        let addr = cluster
            .and_then(|c| c.nodes.get(node))
            .map_or("127.0.0.1:7000", |n| n.addr.as_str());
        format!("{addr}>")
    }

    /// Runs `line` on `cluster`: the prompt and command, each redirect
    /// followed (`-> MOVED 12182 127.0.0.1:7002`), then the reply.
    pub fn run(&mut self, cluster: &mut Cluster, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let prompt = self.prompt(Some(cluster));
        self.push(LineKind::Command, format!("{prompt} {line}"));
        let Some(args) = redsim_engine::proto::resp::split_args(line.as_bytes()) else {
            self.push(LineKind::Error, "Invalid argument(s)".into());
            return;
        };
        let client = self.client.get_or_insert_with(|| cluster.cli_client(0));
        let out = client.run(cluster, &args);
        for hop in &out.hops {
            self.push(LineKind::Redirect, format!("-> {}", hop.line));
        }
        let kind = if out.reply.is_error() {
            LineKind::Error
        } else {
            LineKind::Reply
        };
        for l in format_reply(&out.reply).lines() {
            self.push(kind, l.to_string());
        }
    }

    fn push(&mut self, kind: LineKind, text: String) {
        self.lines.push((kind, text));
        if self.lines.len() > MAX_LINES {
            self.lines.drain(..self.lines.len() - MAX_LINES);
        }
    }
}
