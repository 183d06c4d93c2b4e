//! How stream replies are compared (times within a tolerance, 7.2-only fields removed, auto IDs by shape) and the Streams pair with second connections for blocking commands.

use super::*;

pub(crate) const TOL_MS: i64 = 1500;

/// Fields whose values are times or durations.
pub(crate) const TIME_KEYS: &[&str] = &["idle", "inactive", "seen-time", "active-time"];

/// Fields that exist only in 7.2.
pub(crate) const FIELDS_72: &[&str] = &["active-time", "inactive"];

/// The shared [`Pair`] with this file's comparison (times within a
/// tolerance, 7.2-only fields removed) and a second connection to each
/// server for blocking commands.
pub(crate) struct Streams {
    p: Pair,
    pub(crate) redis2: Conn,
    pub(crate) sim2: Conn,
}

impl Deref for Streams {
    type Target = Pair;
    fn deref(&self) -> &Pair {
        &self.p
    }
}

impl DerefMut for Streams {
    fn deref_mut(&mut self) -> &mut Pair {
        &mut self.p
    }
}

impl Streams {
    pub(crate) fn start(extra: &[&str]) -> Streams {
        let p = Pair::start(extra);
        let (redis2, sim2) = p.new_conns();
        Streams { p, redis2, sim2 }
    }

    /// Sends `args` to both and asserts they are [`similar`] (with `tol`)
    /// after removing 7.2-only fields from redsim's reply; returns Redis'.
    pub(crate) fn check_with(&mut self, args: &[Vec<u8>], tol: Option<i64>) -> Frame {
        let (want, got) = self.p.both_args(args);
        let got72 = strip_72(&got);
        assert!(
            similar(&want, &got72, tol, false),
            "replies differ after {} commands for {}\n  redis:  {}\n  redsim: {}",
            self.p.compared,
            show(args),
            format_reply(&want),
            format_reply(&got)
        );
        self.p.compared += 1;
        want
    }

    /// Exact comparison (7.2-only fields aside).
    pub(crate) fn check(&mut self, line: &str) -> Frame {
        self.check_with(&parse(line), Some(0))
    }

    /// Comparison with times allowed to differ by [`TOL_MS`].
    pub(crate) fn check_timed(&mut self, line: &str) -> Frame {
        self.check_with(&parse(line), Some(TOL_MS))
    }

    /// One command per line, `#` comments and blank lines skipped; a line
    /// starting with `~` is compared with the time tolerance.
    pub(crate) fn corpus(&mut self, text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.strip_prefix('~') {
                Some(rest) => self.check_timed(rest.trim()),
                None => self.check(line),
            };
        }
    }

    /// RESP3 on all four connections.
    pub(crate) fn hello3(&mut self) {
        self.p.hello3();
        let r2 = self.redis2.cmd(&["HELLO", "3"]);
        let s2 = self.sim2.cmd(&["HELLO", "3"]);
        assert!(matches!(r2, Frame::Map(_)) && matches!(s2, Frame::Map(_)));
    }

    /// Starts `line` on the second connection of both servers without
    /// waiting for the reply, and waits until both are running it.
    pub(crate) fn start_blocking(&mut self, line: &str) {
        let args = parse(line);
        self.redis2.send_raw(&encode_request(&args));
        self.sim2.send_raw(&encode_request(&args));
        let name = String::from_utf8_lossy(&args[0]).to_ascii_lowercase();
        wait_running(&mut self.p.redis, &name);
        wait_running(&mut self.p.sim, &name);
    }

    /// The replies the second connections got, which must be equal.
    pub(crate) fn finish_blocking(&mut self, what: &str) -> Frame {
        let want = self.redis2.read_frame().expect("redis reply");
        let got = self.sim2.read_frame().expect("redsim reply");
        assert_eq!(
            got,
            want,
            "{what}: blocked replies differ\n  redis:  {}\n  redsim: {}",
            format_reply(&want),
            format_reply(&got)
        );
        self.p.compared += 1;
        // A different last command, so the next wait sees the next one.
        assert_eq!(self.redis2.cmd(&["PING"]), self.sim2.cmd(&["PING"]));
        want
    }
}

/// Waits until another client of the server runs (or is blocked in) `cmd`,
/// as CLIENT LIST's `cmd=` shows it.
pub(crate) fn wait_running(c: &mut Conn, cmd: &str) {
    for _ in 0..500 {
        let list = bulk_text(&c.cmd(&["CLIENT", "LIST"]));
        if list
            .lines()
            .any(|l| l.contains(&format!(" cmd={cmd} ")) && !l.contains("cmd=client|list"))
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no client is running {cmd}");
}

pub(crate) fn bulk_text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Simple(s) => s.to_string(),
        Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("expected a string, got {other:?}"),
    }
}

pub(crate) fn is_key(f: &Frame, keys: &[&str]) -> bool {
    matches!(f, Frame::Bulk(b) if keys.iter().any(|k| k.as_bytes() == b.as_slice()))
}

/// redsim's reply without 7.2's `active-time` and `inactive` fields, in
/// maps (RESP3) and in the flat arrays RESP2 makes of them.
pub(crate) fn strip_72(f: &Frame) -> Frame {
    match f {
        Frame::Map(pairs) => Frame::Map(
            pairs
                .iter()
                .filter(|(k, _)| !is_key(k, FIELDS_72))
                .map(|(k, v)| (strip_72(k), strip_72(v)))
                .collect(),
        ),
        Frame::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut i = 0;
            while i < items.len() {
                let flat_map = items.len() % 2 == 0
                    && i % 2 == 0
                    && items.iter().step_by(2).all(|k| matches!(k, Frame::Bulk(_)));
                if flat_map && is_key(&items[i], FIELDS_72) {
                    i += 2;
                    continue;
                }
                out.push(strip_72(&items[i]));
                i += 1;
            }
            Frame::Array(out)
        }
        other => other.clone(),
    }
}

/// `ms-seq` with a timestamp-sized `ms`: an ID made by `*`.
pub(crate) fn auto_id(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(b).ok()?;
    let (ms, seq) = s.split_once('-')?;
    let ms: i64 = ms.parse().ok()?;
    seq.parse::<u64>().ok()?;
    (ms >= 1_000_000_000_000).then_some(ms)
}

/// Equal replies, except that with a tolerance, timestamps, `*` IDs and
/// values of time fields (`time` set by the caller) may differ by up to
/// it (`None`: any value of the right type).
pub(crate) fn similar(want: &Frame, got: &Frame, tol: Option<i64>, time: bool) -> bool {
    let close = |a: i64, b: i64| match tol {
        None => true,
        Some(t) => (a - b).abs() <= t,
    };
    match (want, got) {
        (Frame::Integer(a), Frame::Integer(b)) if a != b => {
            tol != Some(0)
                && (time || (*a >= 1_000_000_000_000 && *b >= 1_000_000_000_000))
                && close(*a, *b)
        }
        (Frame::Bulk(a), Frame::Bulk(b)) if a != b => {
            tol != Some(0)
                && match (auto_id(a), auto_id(b)) {
                    (Some(x), Some(y)) => close(x, y),
                    _ => false,
                }
        }
        (Frame::Array(a), Frame::Array(b))
        | (Frame::Set(a), Frame::Set(b))
        | (Frame::Push(a), Frame::Push(b)) => {
            if a.len() != b.len() {
                return false;
            }
            // XPENDING's extended rows: [id, consumer, idle, deliveries].
            let pending_row = a.len() == 4
                && matches!(
                    (&a[0], &a[1], &a[2], &a[3]),
                    (
                        Frame::Bulk(_),
                        Frame::Bulk(_),
                        Frame::Integer(_),
                        Frame::Integer(_)
                    )
                );
            a.iter().zip(b).enumerate().all(|(i, (x, y))| {
                let t = (i > 0 && is_key(&a[i - 1], TIME_KEYS) && i % 2 == 1)
                    || (pending_row && i == 2);
                similar(x, y, tol, t)
            })
        }
        (Frame::Map(a), Frame::Map(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|((k1, v1), (k2, v2))| {
                    similar(k1, k2, tol, false) && similar(v1, v2, tol, is_key(k1, TIME_KEYS))
                })
        }
        _ => want == got,
    }
}

// ---------------------------------------------------------------------------
// Hand corpora.
