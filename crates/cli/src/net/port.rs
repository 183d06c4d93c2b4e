//! CONFIG SET bind and port for `redsim server` (Redis' `changeListener`): the new sockets are bound inside the command, so an address or port in use fails it and the old ones keep listening, and the server moves its accept loops to them before the reply goes out.

use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::Mutex;

use redsim_engine::server::listener::Listener;

/// A standalone server's listening sockets, as the engine moves them.
pub(super) struct PortMover {
    state: Mutex<State>,
}

struct State {
    /// The addresses the server's accept loops serve now.
    serving: Vec<SocketAddr>,
    /// The move the last CONFIG SET bound sockets for, not yet carried out.
    pending: Option<Move>,
}

/// What the server does after a command moved the listener: stop serving
/// every address not in `keep`, and serve `new`.
pub(super) struct Move {
    pub keep: Vec<SocketAddr>,
    pub new: Vec<StdListener>,
}

impl PortMover {
    /// Serving `addrs`.
    pub(super) fn new(addrs: &[SocketAddr]) -> PortMover {
        PortMover {
            state: Mutex::new(State {
                serving: addrs.to_vec(),
                pending: None,
            }),
        }
    }

    /// The move the last CONFIG SET asked for, if any.
    pub(super) fn take(&self) -> Option<Move> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let moved = s.pending.take()?;
        s.serving = moved.keep.clone();
        s.serving
            .extend(moved.new.iter().filter_map(|l| l.local_addr().ok()));
        Some(moved)
    }
}

/// The addresses `bind` names at `port`, each with whether it may be
/// missing (`-`), as `listenToPort` reads them; port 0 names none.
fn wanted(bind: &str, port: u16) -> Vec<(bool, std::io::Result<SocketAddr>)> {
    if port == 0 {
        return Vec::new();
    }
    bind.split_whitespace()
        .map(|spec| super::resolve(spec, port))
        .collect()
}

impl Listener for PortMover {
    fn listen(&self, bind: &str, port: u16) -> Result<(), String> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Sockets already bound for a move not yet carried out, or served
        // now, are kept: an address listened on cannot be bound twice.
        let bound: &[StdListener] = s.pending.as_ref().map_or(&[], |m| &m.new);
        let (mut keep, mut new) = (Vec::new(), Vec::new());
        for (optional, addr) in wanted(bind, port) {
            let addr = match addr {
                Ok(a) => a,
                Err(_) if optional => continue,
                Err(e) => return Err(crate::oserror::os_error_text(&e)),
            };
            if s.serving.contains(&addr) {
                if !keep.contains(&addr) {
                    keep.push(addr);
                }
                continue;
            }
            if let Some(l) = bound.iter().find(|l| l.local_addr().ok() == Some(addr)) {
                new.push(
                    l.try_clone()
                        .map_err(|e| crate::oserror::os_error_text(&e))?,
                );
                continue;
            }
            match StdListener::bind(addr).and_then(|l| {
                l.set_nonblocking(true)?;
                Ok(l)
            }) {
                Ok(l) => new.push(l),
                // `EADDRNOTAVAIL` for an optional address: skipped, as Redis does.
                Err(e) if optional && e.kind() == std::io::ErrorKind::AddrNotAvailable => {}
                Err(e) => {
                    // Redis logs why; the client is told to look there.
                    eprintln!("redsim: could not create server TCP listening socket {addr}: {e}");
                    return Err(crate::oserror::os_error_text(&e));
                }
            }
        }
        s.pending = Some(Move { keep, new });
        Ok(())
    }
}

/// A cluster's or topology's node: its address is the one its simulation
/// announces to clients and peers, so it does not move.
pub(super) struct Fixed;

impl Listener for Fixed {
    fn listen(&self, bind: &str, port: u16) -> Result<(), String> {
        eprintln!(
            "redsim: a node of a simulated cluster or topology keeps the address its peers know; not moving it to {bind} port {port}"
        );
        Err("the simulation announces this node's address".into())
    }
}
