//! Differential tests of client-side caching (CLIENT TRACKING) against a real redis-server: the default mode, REDIRECT over RESP2 Pub/Sub, RESP3 pushes and their order after replies, NOLOOP, OPTIN/OPTOUT with CLIENT CACHING, BCAST prefixes, flushes, expiry, MULTI/EXEC, scripts, every error, TRACKINGINFO, GETREDIR, CLIENT LIST's flags and the table's limit.
//!
//! Client IDs differ between the two servers, so a line may name
//! connection `N`'s id as `$N`, which each side replaces with its own; a
//! reply that carries an id is checked per side. An invalidation arrives
//! after the reply that caused it, so it is read with `recv`; "nothing
//! more" is checked by a PING, which would come after any pending frame.

use std::time::Duration;

use redsim_tests::{info_int, is_redis_7_0, parse, Conn, Differ, Frame};

/// A [`Differ`] that knows each connection's client id on both servers.
struct Csc {
    d: Differ,
    /// `(redis, redsim)` id of each connection.
    ids: Vec<(i64, i64)>,
}

fn int(f: Frame) -> i64 {
    match f {
        Frame::Integer(n) => n,
        other => panic!("an integer, got {other:?}"),
    }
}

fn bulk(s: &str) -> Frame {
    Frame::bulk(s)
}

fn keys(ks: &[&str]) -> Frame {
    Frame::Array(ks.iter().map(|k| bulk(k)).collect())
}

/// A RESP3 invalidation push.
fn inval(ks: &[&str]) -> Frame {
    Frame::Push(vec![bulk("invalidate"), keys(ks)])
}

/// A flush's invalidation push.
fn inval_all() -> Frame {
    Frame::Push(vec![bulk("invalidate"), Frame::Null])
}

/// What a subscribed RESP2 redirection target reads.
fn message(ks: &[&str]) -> Frame {
    Frame::Array(vec![
        bulk("message"),
        bulk("__redis__:invalidate"),
        keys(ks),
    ])
}

impl Csc {
    fn start(n: usize) -> Csc {
        let mut d = Differ::start(n, &[]);
        let ids = (0..n)
            .map(|i| {
                (
                    int(d.redis[i].cmd(&["CLIENT", "ID"])),
                    int(d.sim[i].cmd(&["CLIENT", "ID"])),
                )
            })
            .collect();
        Csc { d, ids }
    }

    /// `line` with every `$N` replaced by connection N's id on one side.
    fn subst(&self, line: &str, sim: bool) -> Vec<Vec<u8>> {
        let mut out = line.to_string();
        for (n, (r, s)) in self.ids.iter().enumerate().rev() {
            out = out.replace(&format!("${n}"), &if sim { s } else { r }.to_string());
        }
        parse(&out)
    }

    /// Sends `line` on connection `i` of both, returning both replies.
    fn both(&mut self, i: usize, line: &str) -> (Frame, Frame) {
        let (ra, sa) = (self.subst(line, false), self.subst(line, true));
        let r = self.d.redis[i].cmd_args(&ra);
        let s = self.d.sim[i].cmd_args(&sa);
        (r, s)
    }

    /// Sends `line` on connection `i` of both and asserts equal replies.
    fn check(&mut self, i: usize, line: &str) -> Frame {
        let (r, s) = self.both(i, line);
        assert_eq!(s, r, "on connection {i} for `{line}`");
        r
    }

    /// Asserts the reply to `line` on connection `i` is `want`.
    fn expect(&mut self, i: usize, line: &str, want: Frame) {
        assert_eq!(self.check(i, line), want, "`{line}`");
    }

    /// Asserts the reply to `line` on each side is `want(id of connection of)`.
    fn expect_id(&mut self, i: usize, line: &str, of: usize, want: impl Fn(i64) -> Frame) {
        let (r, s) = self.both(i, line);
        assert_eq!(r, want(self.ids[of].0), "redis, `{line}`");
        assert_eq!(s, want(self.ids[of].1), "redsim, `{line}`");
    }

    /// Asserts the next frame on connection `i` of both is `want`.
    fn recv(&mut self, i: usize, want: Frame) {
        assert_eq!(self.d.recv(i), want, "frame on connection {i}");
    }

    /// Asserts nothing is waiting on connection `i`: its PING's reply comes first.
    fn quiet(&mut self, i: usize, subscribed_resp2: bool) {
        let want = if subscribed_resp2 {
            Frame::Array(vec![bulk("pong"), bulk("")])
        } else {
            Frame::simple("PONG")
        };
        assert_eq!(
            self.check(i, "PING"),
            want,
            "connection {i} has frames waiting"
        );
    }

    /// Switches connection `i` of both to RESP3 (HELLO's reply names the server: not compared).
    fn hello3(&mut self, i: usize) {
        self.d.redis[i].cmd(&["HELLO", "3"]);
        self.d.sim[i].cmd(&["HELLO", "3"]);
    }

    /// Whether the real server is 7.0, asked on connection `i` (a RESP2 one).
    fn redis_7_0(&mut self, i: usize) -> bool {
        is_redis_7_0(&mut self.d.redis[i])
    }

    /// An INFO field on both servers, asserted equal.
    fn info(&mut self, name: &str) -> i64 {
        let section = if name == "tracking_clients" {
            "clients"
        } else {
            "stats"
        };
        let r = info_int(&mut self.d.redis[0], section, name);
        let s = info_int(&mut self.d.sim[0], section, name);
        assert_eq!(s, r, "INFO {name}");
        r.unwrap_or_else(|| panic!("INFO has no {name}"))
    }
}

/// `flags=` and `redir=` of a CLIENT INFO line.
fn flags_redir(f: &Frame) -> (String, String) {
    let text = match f {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("CLIENT INFO answered {other:?}"),
    };
    let field = |name: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .to_string()
    };
    (field("flags="), field("redir="))
}

fn err(msg: &str) -> Frame {
    Frame::Error(msg.to_string())
}

#[test]
fn every_error_of_tracking_and_caching() {
    let mut t = Csc::start(2);
    let wrong = |sub: &str| {
        err(&format!(
            "ERR wrong number of arguments for 'client|{sub}' command"
        ))
    };
    t.expect(0, "CLIENT TRACKING", wrong("tracking"));
    t.expect(0, "CLIENT CACHING", wrong("caching"));
    t.expect(0, "CLIENT CACHING yes no", wrong("caching"));
    t.expect(0, "CLIENT GETREDIR x", wrong("getredir"));
    t.expect(0, "CLIENT TRACKINGINFO x", wrong("trackinginfo"));
    let syntax = err("ERR syntax error");
    for line in [
        "CLIENT TRACKING maybe",
        "CLIENT TRACKING on foo",
        "CLIENT TRACKING on PREFIX",
        "CLIENT TRACKING on REDIRECT",
        "CLIENT TRACKING maybe BCAST",
    ] {
        t.expect(0, line, syntax.clone());
    }
    let missing = err("ERR The client ID you want redirect to does not exist");
    t.expect(0, "CLIENT TRACKING on REDIRECT 99999", missing.clone());
    t.expect(0, "CLIENT TRACKING on REDIRECT 0", missing.clone());
    t.expect(0, "CLIENT TRACKING on REDIRECT -1", missing.clone());
    // Options are checked before ON/OFF.
    t.expect(0, "CLIENT TRACKING off REDIRECT 99999", missing);
    t.expect(
        0,
        "CLIENT TRACKING on REDIRECT abc",
        err("ERR value is not an integer or out of range"),
    );
    t.expect(
        0,
        "CLIENT TRACKING on REDIRECT $1 REDIRECT $1",
        err("ERR A client can only redirect to a single other client"),
    );
    t.expect(
        0,
        "CLIENT TRACKING on PREFIX a",
        err("ERR PREFIX option requires BCAST mode to be enabled"),
    );
    t.expect(
        0,
        "CLIENT TRACKING on BCAST OPTIN",
        err("ERR OPTIN and OPTOUT are not compatible with BCAST"),
    );
    t.expect(
        0,
        "CLIENT TRACKING on OPTOUT OPTIN",
        err("ERR You can't specify both OPTIN mode and OPTOUT mode"),
    );
    t.expect(
        0,
        "CLIENT CACHING yes",
        err("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"),
    );
    t.expect(0, "CLIENT TRACKING on OPTIN", Frame::ok());
    t.expect(
        0,
        "CLIENT TRACKING on OPTOUT",
        err("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."),
    );
    t.expect(
        0,
        "CLIENT TRACKING on BCAST",
        err("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."),
    );
    t.expect(
        0,
        "CLIENT CACHING no",
        err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."),
    );
    t.expect(0, "CLIENT CACHING maybe", syntax.clone());
    t.expect(0, "CLIENT CACHING YES", Frame::ok());
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(0, "CLIENT TRACKING on OPTOUT", Frame::ok());
    t.expect(
        0,
        "CLIENT CACHING yes",
        err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."),
    );
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    // Overlapping prefixes: among the new ones, then with the client's own.
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX a PREFIX ab",
        err("ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap."),
    );
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX ab PREFIX b",
        Frame::ok(),
    );
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX abc",
        err("ERR Prefix 'abc' overlaps with an existing prefix 'ab'. Prefixes for a single client must not overlap."),
    );
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX c PREFIX a",
        err("ERR Prefix 'a' overlaps with an existing prefix 'ab'. Prefixes for a single client must not overlap."),
    );
    // The empty prefix overlaps every other.
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX \"\"",
        err("ERR Prefix '' overlaps with an existing prefix 'ab'. Prefixes for a single client must not overlap."),
    );
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    // `checkPrefixCollisionsOrReply` returns the index of a prefix that
    // overlaps a later one: past the first, Redis replies the error, turns
    // tracking on anyway and replies +OK too.
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX x PREFIX a PREFIX ab",
        err("ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap."),
    );
    t.recv(0, Frame::ok());
    t.expect(
        0,
        "CLIENT TRACKINGINFO",
        Frame::Array(vec![
            bulk("flags"),
            Frame::Array(vec![bulk("on"), bulk("bcast")]),
            bulk("redirect"),
            Frame::Integer(0),
            bulk("prefixes"),
            keys(&["a", "ab", "x"]),
        ]),
    );
    t.quiet(0, false);
}

#[test]
fn trackinginfo_and_getredir_in_each_mode_and_protocol() {
    let mut t = Csc::start(2);
    let info2 = |flags: &[&str], redirect: i64, prefixes: &[&str]| {
        Frame::Array(vec![
            bulk("flags"),
            keys(flags),
            bulk("redirect"),
            Frame::Integer(redirect),
            bulk("prefixes"),
            keys(prefixes),
        ])
    };
    t.expect(0, "CLIENT TRACKINGINFO", info2(&["off"], -1, &[]));
    t.expect(0, "CLIENT GETREDIR", Frame::Integer(-1));
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.expect(0, "CLIENT TRACKINGINFO", info2(&["on"], 0, &[]));
    t.expect(0, "CLIENT GETREDIR", Frame::Integer(0));
    t.expect(0, "CLIENT TRACKING on OPTIN NOLOOP", Frame::ok());
    t.expect(0, "CLIENT CACHING yes", Frame::ok());
    t.expect(
        0,
        "CLIENT TRACKINGINFO",
        info2(&["on", "optin", "caching-yes", "noloop"], 0, &[]),
    );
    // CACHING lasts for one command (TRACKINGINFO, a CLIENT one, kept it).
    t.check(0, "GET x");
    t.expect(
        0,
        "CLIENT TRACKINGINFO",
        info2(&["on", "optin", "noloop"], 0, &[]),
    );
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(0, "CLIENT TRACKING on OPTOUT", Frame::ok());
    t.expect(0, "CLIENT CACHING no", Frame::ok());
    t.expect(
        0,
        "CLIENT TRACKINGINFO",
        info2(&["on", "optout", "caching-no"], 0, &[]),
    );
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $1", 1, |_| Frame::ok());
    t.expect_id(0, "CLIENT GETREDIR", 1, Frame::Integer);
    t.expect_id(0, "CLIENT TRACKINGINFO", 1, |id| info2(&["on"], id, &[]));
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(0, "CLIENT GETREDIR", Frame::Integer(-1));
    t.expect(0, "CLIENT TRACKING on BCAST", Frame::ok());
    t.expect(0, "CLIENT TRACKINGINFO", info2(&["on", "bcast"], 0, &[""]));
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    // RESP3: a map whose flags are a set.
    t.hello3(0);
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX b PREFIX a NOLOOP",
        Frame::ok(),
    );
    t.expect(
        0,
        "CLIENT TRACKINGINFO",
        Frame::Map(vec![
            (
                bulk("flags"),
                Frame::Set(vec![bulk("on"), bulk("bcast"), bulk("noloop")]),
            ),
            (bulk("redirect"), Frame::Integer(0)),
            (bulk("prefixes"), keys(&["a", "b"])),
        ]),
    );
    assert_eq!(t.info("tracking_total_prefixes"), 2);
    assert_eq!(t.info("tracking_clients"), 1);
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    assert_eq!(t.info("tracking_total_prefixes"), 0);
    assert_eq!(t.info("tracking_clients"), 0);
}

#[test]
fn default_mode_over_resp3_pushes_after_replies() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.check(0, "GET a");
    t.check(0, "MGET b c");
    t.check(0, "HGET h f");
    assert_eq!(t.info("tracking_total_keys"), 4);
    assert_eq!(t.info("tracking_total_items"), 4);
    assert_eq!(t.info("tracking_clients"), 1);
    t.expect(1, "SET a 1", Frame::ok());
    t.recv(0, inval(&["a"]));
    t.expect(1, "MSET b 1 c 1", Frame::ok());
    t.recv(0, inval(&["b"]));
    t.recv(0, inval(&["c"]));
    // Sent once: the key is forgotten until read again.
    t.expect(1, "SET a 2", Frame::ok());
    t.quiet(0, false);
    // A write that changes nothing signals nothing.
    t.expect(1, "HDEL h nope", Frame::Integer(0));
    t.quiet(0, false);
    t.expect(1, "HSET h f v", Frame::Integer(1));
    t.recv(0, inval(&["h"]));
    // Its own write: the reply first, then the invalidation.
    t.check(0, "GET a");
    t.expect(0, "SET a 3", Frame::ok());
    t.recv(0, inval(&["a"]));
    // Written in another database: the table has names, not databases.
    t.check(0, "GET a");
    t.check(1, "SELECT 5");
    t.expect(1, "SET a x", Frame::ok());
    t.recv(0, inval(&["a"]));
    assert_eq!(t.info("tracking_total_keys"), 0);
    // Off: nothing more, and nothing remembered.
    t.check(0, "GET a");
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(1, "SET a y", Frame::ok());
    t.quiet(0, false);
    assert_eq!(t.info("tracking_clients"), 0);
}

#[test]
fn resp2_without_redirect_receives_nothing() {
    let mut t = Csc::start(2);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.check(0, "GET k");
    t.expect(1, "SET k v", Frame::ok());
    t.expect(0, "SET k w", Frame::ok());
    t.quiet(0, false);
    assert_eq!(t.info("tracking_total_keys"), 0);
}

#[test]
fn redirect_to_a_subscribed_resp2_client_and_a_broken_redirect() {
    let mut t = Csc::start(4);
    t.check(1, "SUBSCRIBE __redis__:invalidate");
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $1", 1, |_| Frame::ok());
    t.check(0, "GET k");
    t.expect(0, "SET k 1", Frame::ok());
    t.recv(1, message(&["k"]));
    t.check(0, "MGET k j");
    t.expect(2, "MSET j 1 k 1", Frame::ok());
    t.recv(1, message(&["j"]));
    t.recv(1, message(&["k"]));
    t.quiet(1, true);
    // A RESP3 target gets a push, subscribed or not.
    t.hello3(3);
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $3", 3, |_| Frame::ok());
    t.check(0, "GET k");
    t.expect(2, "SET k 2", Frame::ok());
    t.recv(3, inval(&["k"]));
    // A RESP2 target that is not subscribed gets nothing.
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $2", 2, |_| Frame::ok());
    t.check(0, "GET k");
    t.expect(2, "SET k 3", Frame::ok());
    t.quiet(2, false);
    // The target goes: a RESP3 client hears of it on its next invalidation.
    t.hello3(0);
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $3", 3, |_| Frame::ok());
    let (r, s) = t.both(0, "CLIENT INFO");
    assert_eq!(flags_redir(&s).0, flags_redir(&r).0);
    assert_eq!(flags_redir(&r), ("t".into(), t.ids[3].0.to_string()));
    assert_eq!(flags_redir(&s), ("t".into(), t.ids[3].1.to_string()));
    t.expect(3, "QUIT", Frame::ok());
    std::thread::sleep(Duration::from_millis(100));
    t.check(0, "GET k");
    t.expect(1, "PING", Frame::Array(vec![bulk("pong"), bulk("")]));
    t.expect(2, "SET k 4", Frame::ok());
    let broken = |id: i64| Frame::Push(vec![bulk("tracking-redir-broken"), Frame::Integer(id)]);
    let (r, s) = (
        t.d.redis[0].read_frame().expect("redis push"),
        t.d.sim[0].read_frame().expect("redsim push"),
    );
    assert_eq!(r, broken(t.ids[3].0));
    assert_eq!(s, broken(t.ids[3].1));
    let (r, s) = t.both(0, "CLIENT INFO");
    assert_eq!(flags_redir(&r).0, "tR");
    assert_eq!(flags_redir(&s).0, "tR");
    t.expect_id(0, "CLIENT TRACKINGINFO", 3, |id| {
        Frame::Map(vec![
            (
                bulk("flags"),
                Frame::Set(vec![bulk("on"), bulk("broken_redirect")]),
            ),
            (bulk("redirect"), Frame::Integer(id)),
            (bulk("prefixes"), keys(&[])),
        ])
    });
}

#[test]
fn noloop_skips_the_clients_own_writes() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on NOLOOP", Frame::ok());
    t.check(0, "GET k");
    t.expect(0, "SET k 1", Frame::ok());
    t.quiet(0, false);
    // Its own write forgot the key all the same.
    t.expect(1, "SET k 2", Frame::ok());
    t.quiet(0, false);
    t.check(0, "GET k");
    t.expect(1, "SET k 3", Frame::ok());
    t.recv(0, inval(&["k"]));
}

#[test]
fn optin_and_optout_with_client_caching() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on OPTIN", Frame::ok());
    t.check(0, "GET a");
    t.expect(0, "CLIENT CACHING yes", Frame::ok());
    t.check(0, "GET b");
    t.check(0, "GET c");
    t.expect(1, "MSET a 1 b 1 c 1", Frame::ok());
    t.recv(0, inval(&["b"]));
    t.quiet(0, false);
    // The flag covers a whole transaction.
    t.expect(0, "CLIENT CACHING yes", Frame::ok());
    t.check(0, "MULTI");
    t.check(0, "GET a");
    t.check(0, "GET c");
    t.check(0, "EXEC");
    t.check(0, "GET b");
    t.expect(1, "MSET a 2 b 2 c 2", Frame::ok());
    t.recv(0, inval(&["a"]));
    t.recv(0, inval(&["c"]));
    t.quiet(0, false);
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(0, "CLIENT TRACKING on OPTOUT", Frame::ok());
    t.check(0, "GET a");
    t.expect(0, "CLIENT CACHING no", Frame::ok());
    t.check(0, "GET b");
    t.check(0, "GET c");
    t.expect(1, "MSET a 3 b 3 c 3", Frame::ok());
    t.recv(0, inval(&["a"]));
    t.recv(0, inval(&["c"]));
    t.quiet(0, false);
}

#[test]
fn bcast_prefixes_and_noloop() {
    let mut t = Csc::start(3);
    t.hello3(0);
    t.hello3(2);
    t.expect(
        0,
        "CLIENT TRACKING on BCAST PREFIX a: PREFIX b:",
        Frame::ok(),
    );
    t.expect(2, "CLIENT TRACKING on BCAST NOLOOP", Frame::ok());
    assert_eq!(t.info("tracking_total_prefixes"), 3);
    // Keys are not read to be tracked: every write under a prefix counts.
    t.expect(1, "MSET b:2 x c:1 y b:1 z a:1 w", Frame::ok());
    t.recv(0, inval(&["a:1"]));
    t.recv(0, inval(&["b:1", "b:2"]));
    t.recv(2, inval(&["a:1", "b:1", "b:2", "c:1"]));
    // NOLOOP: its own change is left out of its copy.
    t.expect(2, "MSET a:2 1 zz 1", Frame::ok());
    t.recv(0, inval(&["a:2"]));
    t.quiet(2, false);
    t.expect(0, "SET a:3 1", Frame::ok());
    t.recv(0, inval(&["a:3"]));
    t.recv(2, inval(&["a:3"]));
    // A read is not a change.
    t.check(1, "GET a:1");
    t.quiet(0, false);
    t.quiet(2, false);
    // A transaction's writes are the client's own; a script's are its
    // script client's, which NOLOOP does not leave out.
    t.check(2, "MULTI");
    t.check(2, "SET q 1");
    t.check(2, "EXEC");
    t.quiet(2, false);
    t.check(2, "EVAL \"return redis.call('set', KEYS[1], 'x')\" 1 q");
    t.recv(2, inval(&["q"]));
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    assert_eq!(t.info("tracking_total_prefixes"), 1);
}

#[test]
fn flushes_send_null_to_every_tracking_client() {
    let mut t = Csc::start(3);
    t.hello3(0);
    t.hello3(2);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.expect(2, "CLIENT TRACKING on BCAST NOLOOP", Frame::ok());
    t.check(0, "GET k");
    t.expect(1, "FLUSHALL", Frame::ok());
    t.recv(0, inval_all());
    t.recv(2, inval_all());
    assert_eq!(t.info("tracking_total_keys"), 0);
    // Even an empty database's flush, and the flushing client's own after its reply.
    t.expect(0, "FLUSHDB", Frame::ok());
    t.recv(0, inval_all());
    t.recv(2, inval_all());
    t.quiet(0, false);
    t.quiet(2, false);
}

#[test]
fn expiry_invalidates_the_key() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.expect(1, "SET k v PX 50", Frame::ok());
    t.check(0, "GET k");
    std::thread::sleep(Duration::from_millis(300));
    // Reclaimed by the active cycle by now, or lazily by this read.
    t.check(1, "EXISTS k");
    t.recv(0, inval(&["k"]));
    t.quiet(0, false);
}

#[test]
fn multi_exec_invalidations_follow_the_exec_reply() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.hello3(1);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.expect(1, "CLIENT TRACKING on", Frame::ok());
    t.check(0, "MGET a b");
    t.check(1, "GET a");
    t.check(0, "MULTI");
    t.check(0, "SET a 1");
    t.check(0, "INCR b");
    t.expect(
        0,
        "EXEC",
        Frame::Array(vec![Frame::ok(), Frame::Integer(1)]),
    );
    t.recv(0, inval(&["a"]));
    t.recv(0, inval(&["b"]));
    t.recv(1, inval(&["a"]));
    t.quiet(0, false);
    t.quiet(1, false);
    // Reads inside a transaction are remembered too.
    t.check(1, "MULTI");
    t.check(1, "GET x");
    t.check(1, "EXEC");
    t.expect(0, "SET x 1", Frame::ok());
    t.recv(1, inval(&["x"]));
}

#[test]
fn script_writes_and_reads() {
    let mut t = Csc::start(2);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    t.check(0, "GET k");
    t.check(1, "EVAL \"return redis.call('set', KEYS[1], 'x')\" 1 k");
    t.recv(0, inval(&["k"]));
    // A key the script reads is remembered (7.0 remembers the script's
    // declared keys, 7.2 the keys of the commands it runs: the same here).
    t.check(0, "EVAL \"return redis.call('get', KEYS[1])\" 1 s");
    t.expect(1, "SET s 1", Frame::ok());
    t.recv(0, inval(&["s"]));
    // EVAL_RO itself is not a read of its keys; its GET is.
    t.check(0, "EVAL_RO \"return 1\" 1 r");
    t.expect(1, "SET r 1", Frame::ok());
    t.quiet(0, false);
    // 7.2 tracks a key read by a script without declaring it; 7.0 does
    // not (it takes the keys of EVAL itself): redsim follows 7.2.
    let redis_7_0 = t.redis_7_0(1);
    let (r, s) = t.both(0, "EVAL \"return redis.call('get', 'undeclared')\" 0");
    assert_eq!(r, s);
    t.expect(1, "SET undeclared 1", Frame::ok());
    assert_eq!(t.d.sim[0].read_frame(), Some(inval(&["undeclared"])));
    if !redis_7_0 {
        assert_eq!(t.d.redis[0].read_frame(), Some(inval(&["undeclared"])));
    }
    t.quiet(0, false);
}

#[test]
fn client_list_flags() {
    let mut t = Csc::start(2);
    let flags = |t: &mut Csc| {
        let (r, s) = t.both(0, "CLIENT INFO");
        let (r, s) = (flags_redir(&r), flags_redir(&s));
        assert_eq!(s.0, r.0, "flags");
        (r.0, r.1, s.1)
    };
    assert_eq!(flags(&mut t), ("N".into(), "-1".into(), "-1".into()));
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    assert_eq!(flags(&mut t), ("t".into(), "0".into(), "0".into()));
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect(0, "CLIENT TRACKING on BCAST", Frame::ok());
    assert_eq!(flags(&mut t).0, "tB");
    t.expect(0, "CLIENT TRACKING off", Frame::ok());
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $1", 1, |_| Frame::ok());
    let (f, r, s) = flags(&mut t);
    assert_eq!(f, "t");
    assert_eq!((r, s), (t.ids[1].0.to_string(), t.ids[1].1.to_string()));
    // Another client sees the same in CLIENT LIST.
    let list = |c: &mut Conn, id: i64| {
        let f = c.cmd(&["CLIENT", "LIST", "ID", &id.to_string()]);
        flags_redir(&f).0
    };
    let (r, s) = (t.ids[0].0, t.ids[0].1);
    assert_eq!(list(&mut t.d.redis[1], r), "t");
    assert_eq!(list(&mut t.d.sim[1], s), "t");
    // RESET turns tracking off.
    t.check(0, "RESET");
    assert_eq!(flags(&mut t).0, "N");
    assert_eq!(t.info("tracking_clients"), 0);
}

#[test]
fn table_limit_invalidates_random_keys() {
    let mut t = Csc::start(2);
    t.expect(
        0,
        "CONFIG GET tracking-table-max-keys",
        Frame::Array(vec![bulk("tracking-table-max-keys"), bulk("1000000")]),
    );
    t.check(1, "SUBSCRIBE __redis__:invalidate");
    t.expect_id(0, "CLIENT TRACKING on REDIRECT $1", 1, |_| Frame::ok());
    t.check(0, "MGET k1 k2 k3");
    assert_eq!(t.info("tracking_total_keys"), 3);
    t.expect(0, "CONFIG SET tracking-table-max-keys 1", Frame::ok());
    // The next command (or the cron) drops keys until one is left; which
    // ones is random on both sides.
    t.check(0, "PING");
    let mut seen = Vec::new();
    for _ in 0..2 {
        let (r, s) = (t.d.redis[1].read_frame(), t.d.sim[1].read_frame());
        for f in [r, s] {
            let Some(Frame::Array(items)) = f else {
                panic!("a message, got {f:?}")
            };
            assert_eq!(items[..2], [bulk("message"), bulk("__redis__:invalidate")]);
            let Frame::Array(ks) = &items[2] else {
                panic!("keys")
            };
            assert_eq!(ks.len(), 1);
            seen.push(ks[0].clone());
        }
    }
    assert!(seen
        .iter()
        .all(|k| [bulk("k1"), bulk("k2"), bulk("k3")].contains(k)));
    assert_eq!(t.info("tracking_total_keys"), 1);
    t.expect(0, "CONFIG SET tracking-table-max-keys 0", Frame::ok());
    t.check(0, "MGET a b c d");
    assert_eq!(t.info("tracking_total_keys"), 5);
}

/// A key evicted before a command runs is invalidated ahead of that
/// command's reply (tracking.tcl's "eviction keys should be before
/// response"). Each side's limit is its own memory plus 100 KB.
#[test]
fn an_eviction_before_a_command_is_invalidated_ahead_of_its_reply() {
    let mut t = Csc::start(1);
    t.hello3(0);
    t.expect(0, "CLIENT TRACKING on", Frame::ok());
    let conns = [&mut t.d.redis[0], &mut t.d.sim[0]];
    for c in conns {
        let used = info_int(c, "memory", "used_memory").expect("used_memory");
        let limit = (used + 100 * 1024).to_string();
        assert_eq!(c.cmd(&["CONFIG", "SET", "maxmemory", &limit]), Frame::ok());
    }
    t.expect(
        0,
        "CONFIG SET maxmemory-policy volatile-random",
        Frame::ok(),
    );
    t.expect(0, "SETEX volatile-key 10000 x", Frame::ok());
    t.check(0, "GET volatile-key");
    t.expect(0, "SETBIT big-key 1600000 0", Frame::Integer(0));
    t.expect(0, "GETBIT big-key 0", inval(&["volatile-key"]));
    t.recv(0, Frame::Integer(0));
    t.expect(0, "CONFIG SET maxmemory 0", Frame::ok());
    t.quiet(0, false);
}
