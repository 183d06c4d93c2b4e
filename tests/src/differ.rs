//! Several connections to a real Redis and to redsim, driven by scripts: replies compared connection by connection, blocked commands, WATCH rounds.

use std::time::Duration;

use crate::{differ_message, encode_request, parse, Conn, Frame, RedisServer, RedsimServer};

/// A real Redis and a redsim server started with the same options, with
/// `n` connections to each; commands go to connection `i` of both and the
/// replies must be equal. For differential tests that need several clients.
pub struct Differ {
    pub redis: Vec<Conn>,
    pub sim: Vec<Conn>,
    /// Replies compared so far.
    pub compared: usize,
    _servers: (RedisServer, RedsimServer),
}

impl Differ {
    /// Starts both servers with `extra` options and opens `n` connections to each.
    pub fn start(n: usize, extra: &[&str]) -> Differ {
        let r = RedisServer::start(extra);
        let s = RedsimServer::start(extra);
        Differ {
            redis: (0..n).map(|_| r.conn()).collect(),
            sim: (0..n).map(|_| s.conn()).collect(),
            compared: 0,
            _servers: (r, s),
        }
    }

    /// Sends a redis-cli style `line` on connection `i` of both servers and
    /// asserts equal replies; returns the reply.
    pub fn check(&mut self, i: usize, line: &str) -> Frame {
        let args = parse(line);
        let want = self.redis[i].cmd_args(&args);
        let got = self.sim[i].cmd_args(&args);
        self.agree(&format!("on connection {i} for `{line}`"), want, got)
    }

    /// Asserts that redsim's reply `got` is Redis' `want`, counts it, and
    /// returns it; `what` says where in a failure.
    fn agree(&mut self, what: &str, want: Frame, got: Frame) -> Frame {
        assert!(got == want, "{}", differ_message(what, &want, &got));
        self.compared += 1;
        want
    }

    /// A WATCH round: connection 0 watches `key`, connection 1 runs `cmd`,
    /// then 0 runs MULTI, PING, EXEC; every reply is compared. Returns
    /// EXEC's: a null array if `cmd` touched the key (a signalled write).
    pub fn watch_round(&mut self, key: &str, cmd: &str) -> Frame {
        self.check(0, &format!("WATCH {key}"));
        self.check(1, cmd);
        self.check(0, "MULTI");
        self.check(0, "PING");
        self.check(0, "EXEC")
    }

    /// WATCH rounds ([`Differ::watch_round`]) on `key`, one a scenario
    /// `(setup, cmd)`: connection 0 runs `prepare`, then `setup`; after the
    /// round, GET `key` shows what `cmd` left.
    pub fn watch_scenarios(&mut self, key: &str, prepare: &[&str], scenarios: &[(&str, &str)]) {
        for (setup, cmd) in scenarios {
            for line in prepare.iter().chain([setup]) {
                self.check(0, line);
            }
            self.watch_round(key, cmd);
            self.check(0, &format!("GET {key}"));
        }
    }

    /// Sends `line` on connection `i` of both servers, reading nothing.
    pub fn send(&mut self, i: usize, line: &str) {
        let args = parse(line);
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        let req = encode_request(&refs);
        self.redis[i].send_raw(&req);
        self.sim[i].send_raw(&req);
    }

    /// Sends a blocking command on connection `i` of both servers and
    /// leaves them time to park it, so that several blocked clients reach
    /// each server in the same order.
    pub fn block(&mut self, i: usize, line: &str) {
        self.send(i, line);
        std::thread::sleep(Duration::from_millis(50));
    }

    /// Reads the next frame on connection `i` of both servers (the reply
    /// to a command sent earlier, a served blocked command, a message);
    /// they must be equal.
    pub fn recv(&mut self, i: usize) -> Frame {
        let want = self.redis[i].read_frame().expect("redis replies");
        let got = self.sim[i].read_frame().expect("redsim replies");
        self.agree(&format!("on connection {i}"), want, got)
    }

    /// Runs a script: each line is `<conn> <command>` (e.g. `1 SET k v`),
    /// both replies compared; blank lines and `#` comments are skipped.
    /// Besides commands:
    /// - `sleep <ms>` waits;
    /// - `<conn> send <command>` sends without reading ([`Differ::send`]),
    ///   `<conn> block <command>` waits for it to block ([`Differ::block`]),
    ///   and `<conn> recv` reads the next reply of both ([`Differ::recv`]);
    /// - ` -> <reply>` after a command or `recv` asserts what the reply is,
    ///   written as [`Want`] reads it.
    pub fn script(&mut self, text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (step, want) = match line.split_once(" -> ") {
                Some((step, want)) => (step, Some(Want::read(want))),
                None => (line, None),
            };
            let (who, what) = step.split_once(' ').expect("`<conn> <command>`");
            if who == "sleep" {
                std::thread::sleep(Duration::from_millis(what.parse().expect("ms")));
                continue;
            }
            let i = who.parse().expect("connection index");
            let reply = match what.split_once(' ') {
                Some(("send", cmd)) => {
                    self.send(i, cmd);
                    None
                }
                Some(("block", cmd)) => {
                    self.block(i, cmd);
                    None
                }
                _ if what == "recv" => Some(self.recv(i)),
                _ => Some(self.check(i, what)),
            };
            if let Some(want) = want {
                want.assert(&reply.expect("a reply to check"), line);
            }
        }
    }
}

/// One `#[test]` per script, each run by [`Differ::script`] on `n` fresh
/// connections to fresh servers (no options): multi-client tests that are a
/// script and nothing more.
#[macro_export]
macro_rules! script_tests {
    ($($(#[$meta:meta])* $name:ident($n:expr): $text:expr;)+) => {
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                $crate::Differ::start($n, &[]).script($text);
            }
        )+
    };
}

/// What a script line asserts about a reply, after ` -> `: `error` (any
/// error), `nil` (a null bulk or RESP3 null), `nil-array` (RESP2's null
/// array), `+TEXT` (a status), an integer, `"text"` (a bulk string), or
/// `[...]` (an array of these, comma-separated).
#[derive(Debug)]
pub enum Want {
    /// Any error reply.
    AnError,
    /// Exactly this reply.
    Is(Frame),
}

impl Want {
    /// Reads the notation.
    pub fn read(text: &str) -> Want {
        if text.trim() == "error" {
            return Want::AnError;
        }
        let mut chars = text.chars().peekable();
        let f = read_frame(&mut chars);
        assert!(
            chars.all(char::is_whitespace),
            "text after the reply in `{text}`"
        );
        Want::Is(f)
    }

    /// Asserts that `reply` is what is wanted; `line` names the step.
    pub fn assert(&self, reply: &Frame, line: &str) {
        match self {
            Want::AnError => assert!(reply.is_error(), "`{line}`: {reply:?}"),
            Want::Is(f) => assert_eq!(reply, f, "`{line}`"),
        }
    }
}

/// One reply of [`Want`]'s notation.
fn read_frame(chars: &mut std::iter::Peekable<std::str::Chars>) -> Frame {
    while chars.next_if(|c| c.is_whitespace()).is_some() {}
    match chars.peek() {
        Some('[') => {
            chars.next();
            let mut items = Vec::new();
            loop {
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                if chars.next_if_eq(&']').is_some() {
                    return Frame::Array(items);
                }
                items.push(read_frame(chars));
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                match chars.next() {
                    Some(',') => {}
                    Some(']') => return Frame::Array(items),
                    other => panic!("`,` or `]` expected in an array, got {other:?}"),
                }
            }
        }
        Some('"') => {
            chars.next();
            Frame::bulk(chars.by_ref().take_while(|&c| c != '"').collect::<String>())
        }
        _ => {
            let mut word = String::new();
            while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != ',' && *c != ']') {
                word.push(c);
            }
            match word.as_str() {
                "nil" => Frame::Null,
                "nil-array" => Frame::NullArray,
                w => match w.strip_prefix('+') {
                    Some(status) => Frame::simple(status.to_string()),
                    None => {
                        Frame::Integer(w.parse().unwrap_or_else(|_| panic!("a reply, not `{w}`")))
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Frame {
        match Want::read(text) {
            Want::Is(f) => f,
            Want::AnError => panic!("`{text}` read as any error"),
        }
    }

    /// The notation reads each kind of reply, nested arrays included.
    #[test]
    fn the_notation_reads_every_kind_of_reply() {
        assert!(matches!(Want::read("error"), Want::AnError));
        assert_eq!(frame("nil"), Frame::Null);
        assert_eq!(frame("nil-array"), Frame::NullArray);
        assert_eq!(frame("+PONG"), Frame::simple("PONG"));
        assert_eq!(frame("-3"), Frame::Integer(-3));
        assert_eq!(frame("\"a b\""), Frame::bulk("a b"));
        assert_eq!(frame("[]"), Frame::Array(vec![]));
        assert_eq!(
            frame(r#"[nil-array, 1, ["q", "a"], +OK]"#),
            Frame::Array(vec![
                Frame::NullArray,
                Frame::Integer(1),
                Frame::Array(vec![Frame::bulk("q"), Frame::bulk("a")]),
                Frame::ok(),
            ])
        );
    }
}
