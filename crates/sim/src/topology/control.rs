//! What the user can do to a running topology, and each control as a compact URL-safe token for share links.

use super::options::FSYNC_MODES;
use serde::Serialize;

/// What the user can do to the running world.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Control {
    /// The node's process dies (or its machine loses power).
    Kill {
        node: usize,
        power_loss: bool,
    },
    /// A killed node starts again from its files.
    Restart {
        node: usize,
    },
    /// Cuts the node (and the sentinel on its machine, and the client if it
    /// writes there) from everyone else.
    Partition {
        node: usize,
    },
    Heal {
        node: usize,
    },
    /// Stops the link into a replica (its connection breaks).
    PauseLink {
        replica: usize,
    },
    ResumeLink {
        replica: usize,
    },
    /// `always | everysec | no | off`.
    SetAppendfsync {
        node: usize,
        mode: String,
    },
    /// `SENTINEL FAILOVER`: a failover without agreement.
    Failover,
    SetWait(i64),
    SetWriteRate(f64),
}

impl Control {
    /// A compact, URL-safe token: `kill.0`, `kill.0.power`, `restart.0`,
    /// `part.1`, `heal.1`, `pause.2`, `resume.2`, `fsync.0.always`,
    /// `failover`, `wait.1`, `rate.200`. [`Control::parse`] reads it back.
    pub fn token(&self) -> String {
        match self {
            Control::Kill { node, power_loss } => {
                format!("kill.{node}{}", if *power_loss { ".power" } else { "" })
            }
            Control::Restart { node } => format!("restart.{node}"),
            Control::Partition { node } => format!("part.{node}"),
            Control::Heal { node } => format!("heal.{node}"),
            Control::PauseLink { replica } => format!("pause.{replica}"),
            Control::ResumeLink { replica } => format!("resume.{replica}"),
            Control::SetAppendfsync { node, mode } => format!("fsync.{node}.{mode}"),
            Control::Failover => "failover".into(),
            Control::SetWait(n) => format!("wait.{n}"),
            Control::SetWriteRate(r) => format!("rate.{r}"),
        }
    }

    /// Reads a token written by [`Control::token`].
    pub fn parse(s: &str) -> Result<Control, String> {
        let bad = || format!("bad control '{s}'");
        let (head, rest) = s.split_once('.').unwrap_or((s, ""));
        let node = |t: &str| t.parse::<usize>().map_err(|_| bad());
        let parts: Vec<&str> = rest.split('.').collect();
        let c = match (head, parts.as_slice()) {
            ("kill", [n]) => Control::Kill {
                node: node(n)?,
                power_loss: false,
            },
            ("kill", [n, "power"]) => Control::Kill {
                node: node(n)?,
                power_loss: true,
            },
            ("restart", [n]) => Control::Restart { node: node(n)? },
            ("part", [n]) => Control::Partition { node: node(n)? },
            ("heal", [n]) => Control::Heal { node: node(n)? },
            ("pause", [n]) => Control::PauseLink { replica: node(n)? },
            ("resume", [n]) => Control::ResumeLink { replica: node(n)? },
            ("fsync", [n, m]) if FSYNC_MODES.contains(m) => Control::SetAppendfsync {
                node: node(n)?,
                mode: m.to_string(),
            },
            ("failover", [""]) => Control::Failover,
            ("wait", _) => Control::SetWait(rest.parse().map_err(|_| bad())?),
            ("rate", _) => {
                let r: f64 = rest.parse().map_err(|_| bad())?;
                if !r.is_finite() || r < 0.0 {
                    return Err(bad());
                }
                Control::SetWriteRate(r)
            }
            _ => return Err(bad()),
        };
        Ok(c)
    }
}
