//! What a test asks of a running server from its own thread ([`RunningServer`]): inspect the engines, move the clock, inject faults, drive the simulated cluster; each request is answered once it has taken effect.

use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use redsim_engine::Engine;
use redsim_sim::cluster::Cluster;
use redsim_sim::topology::Topology;
use tokio::sync::{mpsc, oneshot};

use super::conn::deliver_unblocked;
use super::host::Host;
use super::{guarded, sync_nodes, Shared};

/// What a test asks of the server thread through [`RunningServer`].
pub(super) enum Control {
    /// Runs a closure on a node's engine as it is.
    Inspect(usize, Box<dyn FnOnce(&Engine) + Send>),
    /// Runs a closure on what is served (its clock brought to now first).
    Host(Box<dyn FnOnce(&mut Host) + Send>),
    /// Moves the clock ahead, running what comes due.
    Advance(Duration),
    /// Latency added to replies: for every client, or those of a name.
    Latency(Option<String>, Duration),
    /// Closes the connections of clients of a name (answered: how many).
    Kill(String),
    /// Stops the whole server for a while, as `DEBUG SLEEP` does.
    Pause(Duration),
    /// Accept-and-close new connections (true) or serve them again.
    Refuse(bool),
}

/// A control and where to answer once it has taken effect (a count for
/// `Kill`, 0 otherwise), so a test's next step sees it in force.
pub(super) type Request = (Control, std::sync::mpsc::Sender<usize>);

/// Carries out [`Control`]s on the server thread, between commands.
pub(super) async fn answer_controls(shared: Rc<Shared>, mut rx: mpsc::UnboundedReceiver<Request>) {
    while let Some((control, done)) = rx.recv().await {
        let mut answer = 0;
        match control {
            Control::Inspect(node, probe) => {
                let host = shared.host.borrow();
                if node < host.nodes() {
                    let engine = host.engine(node);
                    let _ = guarded("inspect", || probe(engine));
                }
            }
            Control::Host(f) => {
                {
                    let mut host = shared.host.borrow_mut();
                    let now = shared.now_us();
                    let _ = guarded("control", || {
                        host.advance_to(now);
                        f(&mut host);
                        // A control may have published events (a failover).
                        host.advance_to(now);
                    });
                    // The control may have moved the simulation's time.
                    shared.clock.catch_up(host.now_us());
                }
                sync_nodes(&shared).await;
                deliver_unblocked(&shared);
                shared.ticker_wake.notify_one();
            }
            Control::Advance(by) => {
                shared.clock.push(by.as_micros() as u64);
                let now = shared.now_us();
                {
                    let mut host = shared.host.borrow_mut();
                    let _ = guarded("advance", || host.advance_to(now));
                }
                deliver_unblocked(&shared);
                shared.ticker_wake.notify_one();
            }
            Control::Latency(None, d) => shared.faults.borrow_mut().latency = d,
            Control::Latency(Some(name), d) => {
                let mut faults = shared.faults.borrow_mut();
                if d.is_zero() {
                    faults.latency_by_name.remove(&name);
                } else {
                    faults.latency_by_name.insert(name, d);
                }
            }
            Control::Kill(name) => {
                let host = shared.host.borrow();
                for ((node, id), peer) in shared.peers.borrow().iter() {
                    let client = host.engine(*node).client(*id);
                    if client.and_then(|c| c.name.as_deref()) == Some(name.as_str()) {
                        peer.close.notify_one();
                        answer += 1;
                    }
                }
            }
            Control::Pause(d) => {
                // Answer first: the test goes on while the server sleeps.
                let _ = done.send(0);
                // Blocking the thread is the point: nothing runs meanwhile.
                std::thread::sleep(d);
                continue;
            }
            Control::Refuse(on) => shared.faults.borrow_mut().refuse = on,
        }
        let _ = done.send(answer);
    }
}

/// A server running on a background thread; stops when dropped.
pub struct RunningServer {
    pub(super) addrs: Vec<SocketAddr>,
    pub(super) stop: Option<oneshot::Sender<()>>,
    pub(super) control: mpsc::UnboundedSender<Request>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
}

impl RunningServer {
    /// The addresses it listens on (a cluster: node `i`'s is the `i`-th).
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The port it listens on (the actual one when `--port 0` was given).
    pub fn port(&self) -> u16 {
        self.addrs.first().map_or(0, |a| a.port())
    }

    /// Runs `f` on the server thread with the engine as it is, without moving
    /// its clock: tests use it to see what the cron ticker did while no
    /// client was talking (any command would first catch the clock up).
    /// `None` if the server has stopped.
    pub fn inspect<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> Option<R> {
        self.inspect_node(0, f)
    }

    /// [`RunningServer::inspect`] on node `node` of a cluster; `None` if
    /// there is no such node.
    pub fn inspect_node<R: Send + 'static>(
        &self,
        node: usize,
        f: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = std::sync::mpsc::channel();
        let probe = Box::new(move |e: &Engine| {
            let _ = tx.send(f(e));
        });
        self.control(Control::Inspect(node, probe))?;
        rx.try_recv().ok()
    }

    /// Runs `f` on the simulated cluster, its clock brought to now first:
    /// kill or restart a node, migrate a slot, read each node's view.
    /// Listeners follow (a killed node refuses connections and its clients
    /// are disconnected). `None` on a single server or a stopped one.
    pub fn with_cluster<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Cluster) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = std::sync::mpsc::channel();
        let run = Box::new(move |h: &mut Host| {
            if let Host::Cluster(c) = h {
                let _ = tx.send(f(c));
            }
        });
        self.control(Control::Host(run))?;
        rx.try_recv().ok()
    }

    /// Runs `f` on a served topology (`spawn_sentinel`), its clock brought
    /// to now first: kill or restart a node, partition one, fail over. Its
    /// sentinels' events are published after. `None` on other servers.
    pub fn with_topology<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Topology) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = std::sync::mpsc::channel();
        let run = Box::new(move |h: &mut Host| {
            if let Host::Sentinel(s) = h {
                let _ = tx.send(f(s.topology()));
            }
        });
        self.control(Control::Host(run))?;
        rx.try_recv().ok()
    }

    /// Sends `c` to the server thread and waits until it has taken effect;
    /// `None` if the server has stopped.
    fn control(&self, c: Control) -> Option<usize> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.control.send((c, tx)).ok()?;
        rx.recv().ok()
    }

    /// Moves the server's clock ahead by `by` and returns once the engine
    /// has run everything due (expiry, timeouts of blocked clients). With
    /// a manual clock this is the only way time passes.
    pub fn advance(&self, by: Duration) {
        self.control(Control::Advance(by));
    }

    /// Delays every reply by `latency` (zero: none), without slowing the
    /// server for other clients.
    pub fn set_latency(&self, latency: Duration) {
        self.control(Control::Latency(None, latency));
    }

    /// Delays replies to clients named `name` (CLIENT SETNAME) by
    /// `latency`, instead of the server-wide latency (zero: back to it).
    pub fn set_client_latency(&self, name: &str, latency: Duration) {
        self.control(Control::Latency(Some(name.to_string()), latency));
    }

    /// Closes the connections of every client named `name`, as a network
    /// failure would; returns how many there were.
    pub fn kill_client(&self, name: &str) -> usize {
        self.control(Control::Kill(name.to_string())).unwrap_or(0)
    }

    /// Stops the whole server for `d` (as `DEBUG SLEEP`): no command runs
    /// and no connection is accepted meanwhile. Returns at once.
    pub fn pause(&self, d: Duration) {
        self.control(Control::Pause(d));
    }

    /// Accepts new connections only to close them (true), or serves them
    /// again (false). Connections already open are untouched.
    pub fn refuse_connections(&self, refuse: bool) {
        self.control(Control::Refuse(refuse));
    }

    /// Stops the server, closing every connection, and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}
