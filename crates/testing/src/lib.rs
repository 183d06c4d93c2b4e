//! Redsim in your own test suite: [`TestServer`] runs the `redsim` RESP server in-process on a free loopback port for any client (redis-rs, fred, or another language's client), with a wall or manual clock and faults a test can inject; [`TestCluster`] serves a Redis Cluster the same way, a port per node, and [`TestSentinel`] a master, its replicas and its Sentinels.
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use redsim_testing::{Clock, TestServer};
//!
//! let server = TestServer::builder()
//!     .clock(Clock::Manual)
//!     .config("maxmemory", "10mb")
//!     .start();
//! // Point any client at server.url() ("redis://127.0.0.1:PORT")...
//! server.advance(Duration::from_secs(61)); // ...and let a minute pass at once.
//! ```
//!
//! Unlike fakes that never expire keys by themselves, the default clock is
//! the wall clock: a key set with `EX 1` is gone a second later, and the
//! active expire cycle runs in the background as in Redis. A manual clock
//! makes time a test input instead.

mod cluster;
mod sentinel;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

pub use cluster::{key_hash_slot, Cluster, ClusterBuilder, TestCluster};
pub use sentinel::{Control, SentinelBuilder, TestSentinel, TopoOptions, Topology};

use redsim_cli::{ClockMode, RunningServer, ServerOptions};
pub use redsim_engine::Engine;

/// Where a [`TestServer`]'s time comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Time passes as on the wall (plus whatever [`TestServer::advance`] adds).
    #[default]
    Wall,
    /// Time stands still until [`TestServer::advance`].
    Manual,
}

/// How to start a [`TestServer`].
#[derive(Clone, Debug, Default)]
pub struct Builder {
    seed: u64,
    clock: Clock,
    /// CONFIG parameters as redis-server's command line takes them.
    config: Vec<(String, String)>,
    /// A redis.conf read before them.
    config_file: Option<std::path::PathBuf>,
}

impl Builder {
    /// The engine's seed: sampling in eviction and expiry, RANDOMKEY, SPOP...
    /// The same seed and commands give the same replies.
    pub fn seed(mut self, seed: u64) -> Builder {
        self.seed = seed;
        self
    }

    pub fn clock(mut self, clock: Clock) -> Builder {
        self.clock = clock;
        self
    }

    /// A CONFIG parameter, by its Redis name (`maxmemory`, `"100mb"`).
    pub fn config(mut self, name: &str, value: &str) -> Builder {
        self.config.push((name.to_string(), value.to_string()));
        self
    }

    /// A redis.conf to start from, as `redis-server /path/to/redis.conf`
    /// does: the same file a real server will use. Its `port` and `bind`
    /// give way to the test's free loopback port, and [`Builder::config`]
    /// parameters override its lines. CONFIG REWRITE updates the file.
    pub fn config_file(mut self, path: impl Into<std::path::PathBuf>) -> Builder {
        self.config_file = Some(path.into());
        self
    }

    /// Starts the server, or says why it cannot (a bad parameter or line
    /// of the file, no port).
    pub fn try_start(self) -> Result<TestServer, String> {
        let file = self.config_file.as_deref();
        let opts = server_options(self.seed, self.clock, file, &self.config)?;
        let server = redsim_cli::spawn(opts).map_err(|e| format!("redsim server: {e}"))?;
        let addr = *server.addrs().first().ok_or("redsim server: no address")?;
        Ok(TestServer { server, addr })
    }

    /// Starts the server; panics with the reason if it cannot.
    pub fn start(self) -> TestServer {
        self.try_start().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// A Redis server for one test: in-process, on its own loopback port,
/// stopped when dropped.
pub struct TestServer {
    server: RunningServer,
    addr: SocketAddr,
}

impl TestServer {
    /// A server with Redis' defaults, seed 0 and the wall clock.
    pub fn start() -> TestServer {
        Builder::default().start()
    }

    pub fn builder() -> Builder {
        Builder::default()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `redis://127.0.0.1:PORT`, as clients take it.
    pub fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    /// Moves the clock ahead by `by`, running everything that comes due
    /// (key expiry, blocked clients' timeouts, cron work) before it returns.
    pub fn advance(&self, by: Duration) {
        self.server.advance(by);
    }

    /// Delays every reply by `latency` (zero: none); other clients' replies
    /// are not held up by a slow one.
    pub fn set_latency(&self, latency: Duration) {
        self.server.set_latency(latency);
    }

    /// Delays replies to the clients named `name` (CLIENT SETNAME).
    pub fn set_client_latency(&self, name: &str, latency: Duration) {
        self.server.set_client_latency(name, latency);
    }

    /// Closes the connections of the clients named `name`; how many.
    pub fn kill_client(&self, name: &str) -> usize {
        self.server.kill_client(name)
    }

    /// Freezes the whole server for `d`, as `DEBUG SLEEP` does; returns at once.
    pub fn pause(&self, d: Duration) {
        self.server.pause(d);
    }

    /// New connections are accepted and closed at once while on.
    pub fn refuse_connections(&self, refuse: bool) {
        self.server.refuse_connections(refuse);
    }

    /// Runs `f` on the engine as it is, without moving its clock.
    pub fn inspect<R: Send + 'static>(&self, f: impl FnOnce(&Engine) -> R + Send + 'static) -> R {
        self.server.inspect(f).expect("the test server is running")
    }
}

/// Options for a server on free loopback ports with `seed`, `clock` and
/// CONFIG parameters as redis-server's command line takes them; shared by
/// every test server here.
fn server_options(
    seed: u64,
    clock: Clock,
    file: Option<&std::path::Path>,
    config: &[(String, String)],
) -> Result<ServerOptions, String> {
    let mut args: Vec<String> = file.map(|f| f.display().to_string()).into_iter().collect();
    args.extend(["--port", "0", "--bind", "127.0.0.1", "--seed"].map(String::from));
    args.push(seed.to_string());
    for (name, value) in config {
        args.push(format!("--{name}"));
        args.push(value.clone());
    }
    let mut opts = ServerOptions::from_args(&args)?;
    opts.clock = match clock {
        Clock::Wall => ClockMode::Wall,
        Clock::Manual => ClockMode::Manual,
    };
    Ok(opts)
}

/// Checks `check` every 10 ms of wall time until it holds (true) or
/// `timeout` has passed (false): the `wait_until` of the served simulations.
fn poll(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
