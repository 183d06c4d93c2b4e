//! Scripts that run past `busy-reply-threshold` (script.c's `SCRIPT_TIMEDOUT` mode): the server answers BUSY to everyone else until the script ends or SCRIPT KILL / FUNCTION KILL stops it.
//!
//! # The model
//!
//! A script costs virtual time for the steps it takes ([`NS_PER_STEP`]).
//! Redsim runs the whole script when its command arrives, so its effects
//! land at once; what Redis' clients can observe is then rebuilt on the
//! clock:
//!
//! - A script within the threshold keeps the main thread busy for its
//!   run: the clock moves on by it when the command ends, as synchronous
//!   freeing does.
//! - A script past the threshold keeps the main thread busy up to the
//!   threshold. From then on it is *busy*: the caller waits for its reply
//!   (as a blocked client does) until the instant the script would have
//!   ended; every other client gets `BUSY` except for the `ALLOW_BUSY`
//!   commands (SCRIPT KILL, FUNCTION KILL, FUNCTION STATS, SHUTDOWN, AUTH,
//!   HELLO, MULTI, DISCARD, WATCH, UNWATCH, QUIT, RESET), and no cron runs,
//!   as Redis only serves file events while it waits.
//! - A script still running [`HORIZON_MS`] of virtual time past the
//!   threshold is taken to run for ever (`while true do end`): busy until
//!   killed.
//! - SCRIPT KILL (FUNCTION KILL for FCALL) ends a script that has not
//!   written: its caller gets `Script killed by user with SCRIPT KILL...`.
//!   A script that wrote is `UNKILLABLE`; only SHUTDOWN NOSAVE stops it.
//!
//! Different: "has not written" is decided over the whole run, which
//! Redsim has already made; Redis decides at the moment of the kill, so a
//! script that would write only later can be killed there and not here.
//! Only a top-level command sent with [`crate::Engine::submit`] waits this
//! way; through [`crate::Engine::execute`] or inside EXEC the whole run is
//! charged at once (the caller must have its reply now), and a script that
//! never ends stops at the horizon with Redsim's own BUSY error, its
//! writes kept.

use crate::proto::resp::Frame;
use crate::server::client::ClientId;

/// Virtual time per interpreter step: 2,000 steps per millisecond
/// ([`super::STEPS_PER_MS`]).
pub const NS_PER_STEP: u64 = 1_000_000 / super::STEPS_PER_MS;

/// How far past the threshold a script may run before it is taken to run
/// for ever. Interpreting it costs real time (about a second natively),
/// so it is short; scripts that really take seconds are rare.
pub const HORIZON_MS: u64 = 5_000;

/// Redis' `slowevalerr`: the busy script came from EVAL.
pub const BUSY_EVAL: &str =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
/// Redis' `slowscripterr`: the busy script is a function.
pub const BUSY_FUNCTION: &str =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

/// A script past its threshold, as everyone else sees it.
#[derive(Clone, Debug)]
pub struct Busy {
    /// The client that sent it; it waits for `reply`.
    pub caller: ClientId,
    /// EVAL (or EVALSHA...) rather than FCALL.
    pub eval: bool,
    /// The function's name or the script's SHA1 (FUNCTION STATS).
    pub name: String,
    /// The command as sent (FUNCTION STATS).
    pub command: Vec<Vec<u8>>,
    /// When it started, virtual µs.
    pub started_us: u64,
    /// When it ends, virtual µs; `None`: never, until killed.
    pub until_us: Option<u64>,
    /// It ran a write command (`SCRIPT_WRITE_DIRTY`): SCRIPT KILL refuses.
    pub wrote: bool,
    /// The caller's reply when the script ends.
    pub reply: Frame,
    /// The caller's reply if it is killed.
    pub killed: Frame,
}

/// What one run came to, for [`settle`].
pub struct Ran {
    pub reply: Frame,
    /// Interpreter steps taken.
    pub steps: u64,
    /// The fuel ran out: the script had not ended.
    pub endless: bool,
    /// The line it had reached, for the kill error.
    pub line: u32,
    /// `user_script` or `user_function`.
    pub chunk: &'static str,
}

/// Who ran and how, for [`settle`].
pub struct Caller<'a> {
    pub id: ClientId,
    pub eval: bool,
    pub name: &'a str,
    pub command: &'a [Vec<u8>],
    /// The command may wait for its reply (see the module doc).
    pub may_wait: bool,
}

/// The step budget of one run: [`HORIZON_MS`] past the threshold (past
/// the default 5 s when there is none: a script here must always end).
pub fn fuel(threshold_ms: i64, horizon_ms: u64) -> u64 {
    super::budget_for(threshold_ms).saturating_add(horizon_ms.saturating_mul(super::STEPS_PER_MS))
}

impl super::Scripts {
    /// `processCommand`'s gate while a script is busy: the BUSY error for a
    /// command without `ALLOW_BUSY`.
    pub fn refuse(&self, allow_busy: bool) -> Option<Frame> {
        let b = self.busy.as_ref()?;
        if allow_busy {
            return None;
        }
        Some(Frame::err(if b.eval { BUSY_EVAL } else { BUSY_FUNCTION }))
    }

    /// `scriptKill`: SCRIPT KILL (`eval`) or FUNCTION KILL. On success the
    /// busy state ends and the caller's kill error is returned with its id,
    /// for the engine to deliver.
    pub fn kill(&mut self, eval: bool) -> Result<(ClientId, Frame), Frame> {
        let Some(b) = self.busy.as_ref() else {
            return Err(Frame::err("NOTBUSY No scripts in execution right now."));
        };
        if b.wrote {
            return Err(Frame::err(
                "UNKILLABLE Sorry the script already executed write commands against the dataset. \
                 You can either wait the script termination or kill the server in a hard way using \
                 the SHUTDOWN NOSAVE command.",
            ));
        }
        if eval && !b.eval {
            return Err(Frame::err(BUSY_FUNCTION));
        }
        if !eval && b.eval {
            return Err(Frame::err(BUSY_EVAL));
        }
        let b = self.busy.take().expect("checked above");
        Ok((b.caller, b.killed))
    }

    /// The busy script's end if it is due at `now_us`: its caller and reply.
    pub fn take_finished(&mut self, now_us: u64) -> Option<(ClientId, Frame)> {
        let due = self.busy.as_ref()?.until_us.is_some_and(|t| t <= now_us);
        if !due {
            return None;
        }
        let b = self.busy.take()?;
        Some((b.caller, b.reply))
    }

    /// When the busy script ends, if it does.
    pub fn busy_ends_at(&self) -> Option<u64> {
        self.busy.as_ref()?.until_us
    }

    /// FUNCTION STATS' `running_script` at `now_us`: name, command and
    /// duration so far.
    pub fn running(&self, now_us: u64) -> Option<(String, Vec<Vec<u8>>, u64)> {
        let b = self.busy.as_ref()?;
        let ms = now_us.saturating_sub(b.started_us) / 1000;
        Some((b.name.clone(), b.command.clone(), ms))
    }
}

#[cfg(test)]
mod tests {
    use crate::proto::resp::Frame;
    use crate::Engine;

    /// An engine whose scripts time out after 10 ms, with a caller and another client.
    fn setup() -> (Engine, u64, u64) {
        let mut e = Engine::new(1);
        let (a, b) = (e.connect("a"), e.connect("b"));
        e.execute_line(b, "CONFIG SET busy-reply-threshold 10");
        // Endless scripts are found after 1 s instead of 5: quicker tests.
        e.server_mut().scripts.horizon_ms = 1000;
        (e, a, b)
    }

    fn err(f: &Frame) -> String {
        match f {
            Frame::Error(e) => e.clone(),
            other => panic!("an error: {other:?}"),
        }
    }

    #[test]
    fn an_endless_read_only_script_is_busy_until_killed() {
        let (mut e, a, b) = setup();
        let t0 = e.now_us();
        assert_eq!(e.submit_line(a, "EVAL \"while true do end\" 0"), None);
        // The main thread was busy up to the threshold.
        assert_eq!(e.now_us() - t0, 10_000);
        assert_eq!(err(&e.execute_line(b, "PING")), super::BUSY_EVAL);
        assert_eq!(err(&e.execute_line(b, "FUNCTION STATS")), super::BUSY_EVAL);
        assert_eq!(err(&e.execute_line(b, "FUNCTION KILL")), super::BUSY_EVAL);
        let shutdown = e.submit_line(b, "SHUTDOWN").expect("a reply");
        assert_eq!(err(&shutdown), super::BUSY_EVAL);
        // INFO sees no blocked client; time passes without ending it.
        e.advance_by(60_000_000);
        assert!(e.take_unblocked().is_empty());
        assert_eq!(e.execute_line(b, "SCRIPT KILL"), Frame::ok());
        let got = e.take_unblocked();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, a);
        let msg = err(&got[0].1);
        assert!(
            msg.starts_with("ERR Script killed by user with SCRIPT KILL... script: ")
                && msg.ends_with(", on @user_script:1."),
            "{msg}"
        );
        assert_eq!(e.execute_line(b, "PING"), Frame::Simple("PONG".into()));
        assert_eq!(
            err(&e.execute_line(b, "SCRIPT KILL")),
            "NOTBUSY No scripts in execution right now."
        );
    }

    #[test]
    fn a_script_that_wrote_cannot_be_killed_but_shutdown_nosave_ends_it() {
        let (mut e, a, b) = setup();
        let script = "EVAL \"redis.call('set','x','y') while true do end\" 0";
        assert_eq!(e.submit_line(a, script), None);
        assert!(err(&e.execute_line(b, "SCRIPT KILL")).starts_with("UNKILLABLE Sorry"));
        assert_eq!(err(&e.execute_line(b, "PING")), super::BUSY_EVAL);
        assert_eq!(e.submit_line(b, "SHUTDOWN NOSAVE"), Some(Frame::ok()));
        assert!(e.is_shut_down());
        let got = e.take_unblocked();
        assert!(err(&got[0].1).contains("killed by user"));
    }

    #[test]
    fn a_long_script_replies_when_it_would_have_ended() {
        let (mut e, a, b) = setup();
        let t0 = e.now_us();
        let script = "EVAL \"for i=1,100000 do redis.call('ping') end return 'ok'\" 0";
        assert_eq!(e.submit_line(a, script), None);
        let end = e.next_block_deadline_us().expect("the script's end is due");
        assert!(end > t0 + 20_000, "{end}");
        // Commands queued by the caller run after its reply.
        assert_eq!(e.submit_line(a, "PING"), None);
        // MULTI is allowed, the rest refused, and EXEC then aborts.
        assert_eq!(e.execute_line(b, "MULTI"), Frame::ok());
        assert_eq!(err(&e.execute_line(b, "INCR n")), super::BUSY_EVAL);
        e.advance_to(end - 1);
        assert!(e.take_unblocked().is_empty());
        let exec = e.execute_line(b, "EXEC");
        assert!(err(&exec).starts_with("EXECABORT Transaction discarded because of: BUSY"));
        e.advance_to(end);
        let got = e.take_unblocked();
        assert_eq!(
            got,
            vec![(a, Frame::bulk("ok")), (a, Frame::Simple("PONG".into()))]
        );
        assert_eq!(e.execute_line(b, "GET n"), Frame::Null);
    }

    #[test]
    fn a_short_script_costs_its_steps() {
        let (mut e, a, _) = setup();
        let t0 = e.now_us();
        e.execute_line(a, "EVAL \"for i=1,1000 do end\" 0");
        let took = e.now_us() - t0;
        assert!((500..5_000).contains(&took), "{took} µs");
    }

    #[test]
    fn function_kill_stops_a_busy_function_and_stats_show_it() {
        let (mut e, a, b) = setup();
        let lib = "FUNCTION LOAD \"#!lua name=l\nredis.register_function('spin', function() while true do end end)\"";
        assert_eq!(e.execute_line(b, lib), Frame::bulk("l"));
        assert_eq!(e.submit_line(a, "FCALL spin 0"), None);
        assert_eq!(err(&e.execute_line(b, "PING")), super::BUSY_FUNCTION);
        assert_eq!(err(&e.execute_line(b, "SCRIPT KILL")), super::BUSY_FUNCTION);
        e.advance_by(300_000);
        let Frame::Map(stats) = e.execute_line(b, "FUNCTION STATS") else {
            panic!("a map");
        };
        let Frame::Map(running) = &stats[0].1 else {
            panic!("a running script: {:?}", stats[0]);
        };
        assert_eq!(running[0].1, Frame::bulk("spin"));
        assert_eq!(running[2].1, Frame::Integer(310));
        assert_eq!(e.execute_line(b, "FUNCTION KILL"), Frame::ok());
        let got = e.take_unblocked();
        assert!(err(&got[0].1).ends_with("script: spin, on @user_function:2."));
    }

    #[test]
    fn through_execute_the_whole_run_is_charged_at_once() {
        let (mut e, a, b) = setup();
        let t0 = e.now_us();
        let reply = e.execute_line(a, "EVAL \"for i=1,50000 do end return 1\" 0");
        assert_eq!(reply, Frame::Integer(1));
        assert!(e.now_us() - t0 > 10_000);
        assert_eq!(e.execute_line(b, "PING"), Frame::Simple("PONG".into()));
    }
}
