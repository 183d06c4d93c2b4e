//! What a Do step's check reads after the attempt: keys, values, TTLs, stats, config and the trace of the step's engine, with small helpers that explain what is still wrong.
//!
//! Values are read through a checker's own connection (the engine's
//! replies are its state as a client sees it); counters, TTLs and config
//! through the engine's side-effect-free views; which keys expired (and
//! how) or were evicted from the trace, the history no reply shows. A check reads the counters
//! before it queries, since a query is itself a lookup.

use redsim_engine::engine::ClientId;
use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::server::config::Config;
use redsim_engine::server::trace::{Event, ExpireHow};
use redsim_engine::server::Stats;
use redsim_engine::{Engine, Frame};

use crate::Console;

/// The step's engine after the attempt.
pub struct State<'a> {
    console: &'a mut Console,
    probe: Option<ClientId>,
}

impl<'a> State<'a> {
    pub fn new(console: &'a mut Console) -> State<'a> {
        State {
            console,
            probe: None,
        }
    }

    pub fn engine(&self) -> &Engine {
        self.console.engine()
    }

    pub fn stats(&self) -> &Stats {
        self.engine().stats()
    }

    pub fn config(&self) -> &Config {
        self.engine().config()
    }

    /// Milliseconds left on `key`'s TTL, `None` without one or without the key.
    pub fn ttl_ms(&self, key: &str) -> Option<i64> {
        self.engine().ttl_ms(0, key.as_bytes())
    }

    /// Runs one command on the checker's connection.
    pub fn query(&mut self, args: &[&str]) -> Frame {
        let id = match self.probe {
            Some(id) => id,
            None => {
                let id = self.console.engine_mut().connect("checker");
                self.probe = Some(id);
                id
            }
        };
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        self.console.engine_mut().execute(id, &args)
    }

    /// The reply as redis-cli prints it.
    pub fn reply(&mut self, args: &[&str]) -> String {
        format_reply(&self.query(args))
    }

    /// `key`'s string value, `None` if it is missing (or not a string).
    pub fn get(&mut self, key: &str) -> Option<String> {
        match self.query(&["GET", key]) {
            Frame::Bulk(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            _ => None,
        }
    }

    /// True if `key` is there for a client (expired keys are not).
    pub fn exists(&mut self, key: &str) -> bool {
        self.query(&["EXISTS", key]) == Frame::Integer(1)
    }

    /// A list's elements, head first.
    pub fn list(&mut self, key: &str) -> Vec<String> {
        match self.query(&["LRANGE", key, "0", "-1"]) {
            Frame::Array(items) => items
                .iter()
                .filter_map(|f| match f {
                    Frame::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Keys evicted so far, in order, as the trace recorded them.
    pub fn evicted(&self) -> Vec<String> {
        let events = self.engine().trace().events();
        events
            .filter_map(|e| match &e.event {
                Event::Evicted { key, .. } => Some(key.clone()),
                _ => None,
            })
            .collect()
    }

    /// Keys reclaimed after their TTL, with how: found by a command
    /// (lazy) or by the active cycle's sampling.
    pub fn expired(&self) -> Vec<(String, ExpireHow)> {
        let events = self.engine().trace().events();
        events
            .filter_map(|e| match &e.event {
                Event::Expired { key, how, .. } => Some((key.clone(), *how)),
                _ => None,
            })
            .collect()
    }

    /// Keys matching a glob, sorted.
    pub fn keys(&self, pattern: &str) -> Vec<String> {
        let (keys, _) = self.engine().keys_matching(0, pattern.as_bytes(), 1000);
        keys.into_iter().map(|k| k.key).collect()
    }

    /// `Err` unless `key` holds the string `want`.
    pub fn expect_value(&mut self, key: &str, want: &str) -> Result<(), String> {
        match self.get(key) {
            Some(v) if v == want => Ok(()),
            Some(v) => Err(format!("{key} holds \"{v}\", not \"{want}\"")),
            None => Err(format!("{key} does not hold a string (is it there?)")),
        }
    }

    /// `Err` unless `key`'s TTL is in `(lo_ms, hi_ms]`.
    pub fn expect_ttl(&mut self, key: &str, lo_ms: i64, hi_ms: i64) -> Result<(), String> {
        if !self.exists(key) {
            return Err(format!("{key} does not exist"));
        }
        match self.ttl_ms(key) {
            Some(t) if t > lo_ms && t <= hi_ms => Ok(()),
            Some(t) => Err(format!(
                "{key} expires in {t} ms; it should be more than {lo_ms} and at most {hi_ms}"
            )),
            None => Err(format!("{key} has no TTL: it would live forever")),
        }
    }
}
