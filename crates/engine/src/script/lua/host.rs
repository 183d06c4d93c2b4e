//! What a script reaches outside the interpreter: the server, through `redis.*` and `math.random`. The scripting commands implement it; the interpreter only calls it.

use crate::proto::resp::Frame;

/// The server as a running script sees it.
pub trait Host {
    /// Runs a Redis command for `redis.call`/`redis.pcall`; rejections come back as error frames.
    fn call(&mut self, args: &[Vec<u8>]) -> Frame;
    /// The script client's protocol (`redis.setresp`).
    fn resp(&self) -> u8;
    fn set_resp(&mut self, resp: u8);
    /// The `redisLrand48` state behind `math.random`.
    fn rand48(&mut self) -> &mut u64;
    /// `redis.acl_check_cmd`: whether the calling user may run this command
    /// line; `None` if no such command.
    fn acl_allows(&self, args: &[Vec<u8>]) -> Option<bool>;
    /// `redis.log`: whether a line at `level` would be written at all
    /// (`level < server.verbosity` skips gluing the arguments), then the line.
    fn log_wanted(&self, level: crate::server::log::Level) -> bool;
    fn log(&mut self, level: crate::server::log::Level, text: &[u8]);
}
