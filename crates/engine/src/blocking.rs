//! The machinery behind blocking commands (blocked.c, timeout.c): clients waiting on keys, keys signalled ready when created, waiters served in the order they blocked by running their command again, and timeouts on the virtual clock.
//!
//! The split of work follows Redis 7.2. A command that finds nothing to do
//! calls [`block_for_keys`] (after checking [`may_block`]) and returns; the
//! engine then parks the client here instead of replying. Creating a key
//! someone waits on (`dbAdd`) signals it ready ([`Blocking::signal_ready`]);
//! after each top-level command (a whole EXEC included) the engine walks the
//! ready keys and, for each, re-runs the commands of the clients waiting on
//! it, oldest first, as long as the key holds the type they wait for. A
//! served command that writes (BLMOVE) can make more keys ready; those are
//! handled in the same pass. Deadlines are absolute Unix milliseconds, as in
//! Redis, and fire once the clock is strictly past them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::keyspace::object::Value;
use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::{lossy, Server};

/// What a client waits for (`BLOCKED_LIST`, `BLOCKED_ZSET`, `BLOCKED_STREAM`):
/// only a key of the matching type serves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    List,
    ZSet,
    Stream,
    /// WAIT (`BLOCKED_WAIT`): no key serves it; replicas' acknowledgements do.
    Replicas,
}

impl BlockKind {
    /// `getBlockedTypeByType`: the waiters a value of this type can serve.
    pub fn of(value: &Value) -> Option<BlockKind> {
        match value {
            Value::List(_) => Some(BlockKind::List),
            Value::ZSet(_) => Some(BlockKind::ZSet),
            Value::Stream(_) => Some(BlockKind::Stream),
            _ => None,
        }
    }
}

/// What a command asks for when it blocks.
#[derive(Clone, Debug)]
pub struct Request {
    pub kind: BlockKind,
    pub keys: Vec<Vec<u8>>,
    /// Absolute Unix ms; 0 waits forever.
    pub timeout_ms: i64,
    /// The command to run again when served, if not the one as sent
    /// (XREAD's `$` rewritten to the ID it stood for).
    pub args: Option<Vec<Vec<u8>>>,
    /// Also served when a key is deleted or overwritten (`unblock_on_nokey`:
    /// XREADGROUP, whose group goes with the key).
    pub nokey: bool,
}

/// A waiting client as the UI shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlockedInfo {
    pub client: ClientId,
    pub db: u32,
    pub kind: BlockKind,
    pub keys: Vec<String>,
    /// The command waiting to run, e.g. `BLPOP q 5`.
    pub command: Vec<String>,
    /// Virtual µs when it first blocked.
    pub since_us: u64,
    /// Virtual µs at which it times out, if it has a timeout.
    pub deadline_us: Option<u64>,
}

/// One waiting client.
#[derive(Clone, Debug)]
pub(crate) struct Waiter {
    pub db: usize,
    pub kind: BlockKind,
    /// Distinct keys, in the order given.
    pub keys: Vec<Vec<u8>>,
    /// The command to run again once served.
    pub args: Vec<Vec<u8>>,
    pub since_us: u64,
    pub timeout_ms: i64,
    /// Commands that arrived while it waited, run once it is unblocked.
    pub queued: VecDeque<Vec<Vec<u8>>>,
    /// Served when a key it waits on is deleted (see [`Request::nokey`]).
    pub nokey: bool,
}

/// Kept across a served command's re-run: a command that blocks again
/// keeps its original deadline (7.2.6's `CLIENT_REPROCESSING_COMMAND`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reprocessing {
    pub timeout_ms: i64,
    pub since_us: u64,
}

/// Every blocked client and ready key (`server.blocked_clients`,
/// `db->blocking_keys`, `server.ready_keys`, the timeout table).
#[derive(Debug, Default)]
pub struct Blocking {
    waiters: BTreeMap<ClientId, Waiter>,
    /// (db, key) to the clients waiting on it, in the order they blocked.
    by_key: BTreeMap<(usize, Vec<u8>), VecDeque<ClientId>>,
    ready: VecDeque<(usize, Vec<u8>)>,
    ready_set: BTreeSet<(usize, Vec<u8>)>,
    /// (deadline Unix ms, client), soonest first.
    timeouts: BTreeSet<(i64, ClientId)>,
    /// Set by a command that blocks; the engine takes it after the call.
    request: Option<Request>,
    /// Nesting of `call`: only a top-level command may block (EXEC's
    /// commands run nested, as Redis' `CLIENT_DENY_BLOCKING` arranges).
    pub(crate) depth: u32,
    /// The top-level command may not block (`Engine::execute`).
    pub(crate) deny: bool,
    pub(crate) reprocessing: Option<Reprocessing>,
    /// Replies of clients unblocked since the engine's driver last asked.
    outbox: Vec<(ClientId, Frame)>,
}

impl Blocking {
    /// `scanDatabaseForDeletedKeys(db, NULL)`: before database `db` is
    /// emptied, every key a client waits on that exists is signalled deleted.
    pub fn signal_emptied(&mut self, db: usize, d: &crate::keyspace::db::Db) {
        if self.waiters.is_empty() {
            return;
        }
        let keys: Vec<Vec<u8>> = self
            .by_key
            .keys()
            .filter(|(i, _)| *i == db)
            .map(|(_, k)| k.clone())
            .collect();
        for k in keys {
            if let Some(o) = d.get(&k) {
                self.signal_deleted(db, &k, &o.value);
            }
        }
    }

    /// `signalKeyAsReady`: `key` was created holding `value`; if a client
    /// waits on it and the type can serve anyone, queue it for serving.
    pub fn signal_ready(&mut self, db: usize, key: &[u8], value: &Value) {
        if BlockKind::of(value).is_none() || self.waiters.is_empty() {
            return;
        }
        let k = (db, key.to_vec());
        if !self.by_key.contains_key(&k) || self.ready_set.contains(&k) {
            return;
        }
        self.ready_set.insert(k.clone());
        self.ready.push_back(k);
    }

    /// `signalDeletedKeyAsReady`: `key`, which held `old`, was deleted or
    /// overwritten. Queued for serving only if a client waiting on it is to
    /// be woken by that (XREADGROUP) and, as Redis checks, some client
    /// waits for the old value's type.
    pub fn signal_deleted(&mut self, db: usize, key: &[u8], old: &Value) {
        if self.waiters.is_empty() {
            return;
        }
        let Some(kind) = BlockKind::of(old) else {
            return;
        };
        if !self.waiters.values().any(|w| w.kind == kind) {
            return;
        }
        let k = (db, key.to_vec());
        let nokey = self.by_key.get(&k).is_some_and(|q| {
            q.iter()
                .any(|c| self.waiters.get(c).is_some_and(|w| w.nokey))
        });
        if !nokey || self.ready_set.contains(&k) {
            return;
        }
        self.ready_set.insert(k.clone());
        self.ready.push_back(k);
    }

    /// True if `client` is woken by the deletion of a key it waits on.
    pub fn unblocks_on_nokey(&self, client: ClientId) -> bool {
        self.waiters.get(&client).is_some_and(|w| w.nokey)
    }

    /// Clients blocked in WAIT, oldest first, with the command they sent.
    pub(crate) fn waiting_for_replicas(&self) -> Vec<(ClientId, Vec<Vec<u8>>)> {
        let mut v: Vec<(u64, ClientId, Vec<Vec<u8>>)> = self
            .waiters
            .iter()
            .filter(|(_, w)| w.kind == BlockKind::Replicas)
            .map(|(id, w)| (w.since_us, *id, w.args.clone()))
            .collect();
        v.sort_by_key(|(since, id, _)| (*since, *id));
        v.into_iter().map(|(_, id, a)| (id, a)).collect()
    }

    /// True when some key was made ready since the last [`Self::pop_ready`]
    /// drained them (checked after every command; usually false).
    #[inline]
    pub(crate) fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The next ready key, if any.
    pub(crate) fn pop_ready(&mut self) -> Option<(usize, Vec<u8>)> {
        let k = self.ready.pop_front()?;
        self.ready_set.remove(&k);
        Some(k)
    }

    /// Clients waiting on `key`, oldest first.
    pub(crate) fn waiting_on(&self, db: usize, key: &[u8]) -> Vec<ClientId> {
        self.by_key
            .get(&(db, key.to_vec()))
            .map(|q| q.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Records a block request from the running command.
    pub(crate) fn set_request(&mut self, req: Request) {
        self.request = Some(req);
    }

    /// The block request the last command made, if it blocked.
    pub(crate) fn take_request(&mut self) -> Option<Request> {
        self.request.take()
    }

    /// `blockForKeys`: parks `client` until a key is served or time runs out.
    pub(crate) fn block(
        &mut self,
        client: ClientId,
        db: usize,
        args: &[Vec<u8>],
        req: Request,
        since_us: u64,
    ) {
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(req.keys.len());
        for k in req.keys {
            if !keys.contains(&k) {
                self.by_key
                    .entry((db, k.clone()))
                    .or_default()
                    .push_back(client);
                keys.push(k);
            }
        }
        if req.timeout_ms != 0 {
            self.timeouts.insert((req.timeout_ms, client));
        }
        self.waiters.insert(
            client,
            Waiter {
                db,
                kind: req.kind,
                keys,
                args: req.args.unwrap_or_else(|| args.to_vec()),
                since_us,
                timeout_ms: req.timeout_ms,
                queued: VecDeque::new(),
                nokey: req.nokey,
            },
        );
    }

    /// `unblockClient`: forgets everything `client` waits on.
    pub(crate) fn unblock(&mut self, client: ClientId) -> Option<Waiter> {
        let w = self.waiters.remove(&client)?;
        for k in &w.keys {
            let slot = (w.db, k.clone());
            if let Some(q) = self.by_key.get_mut(&slot) {
                q.retain(|&c| c != client);
                if q.is_empty() {
                    self.by_key.remove(&slot);
                }
            }
        }
        self.timeouts.remove(&(w.timeout_ms, client));
        Some(w)
    }

    /// Queues a command `client` sent while blocked.
    pub(crate) fn queue(&mut self, client: ClientId, args: Vec<Vec<u8>>) {
        if let Some(w) = self.waiters.get_mut(&client) {
            w.queued.push_back(args);
        }
    }

    /// Puts back commands still to run behind a command that blocked again.
    pub(crate) fn requeue(&mut self, client: ClientId, rest: VecDeque<Vec<Vec<u8>>>) {
        if let Some(w) = self.waiters.get_mut(&client) {
            w.queued.extend(rest);
        }
    }

    /// True while `client` waits.
    pub fn is_blocked(&self, client: ClientId) -> bool {
        self.waiters.contains_key(&client)
    }

    /// What `client` waits for.
    pub fn kind_of(&self, client: ClientId) -> Option<BlockKind> {
        self.waiters.get(&client).map(|w| w.kind)
    }

    /// The soonest deadline (Unix ms), if any client has one.
    pub fn next_deadline_ms(&self) -> Option<i64> {
        self.timeouts.first().map(|&(t, _)| t)
    }

    /// Clients whose deadline is strictly before `now_ms`, soonest first.
    pub(crate) fn timed_out(&self, now_ms: i64) -> Vec<ClientId> {
        self.timeouts
            .iter()
            .take_while(|&&(t, _)| t < now_ms)
            .map(|&(_, c)| c)
            .collect()
    }

    /// Number of blocked clients (INFO's `blocked_clients`).
    pub fn blocked_clients(&self) -> usize {
        self.waiters.len()
    }

    /// Number of keys some client waits on (`total_blocking_keys`).
    pub fn blocking_keys(&self) -> usize {
        self.by_key.len()
    }

    /// Keys some client waits on that also wake it when deleted
    /// (`total_blocking_keys_on_nokey`: keys with a blocked XREADGROUP).
    pub fn blocking_keys_on_nokey(&self) -> usize {
        self.by_key
            .values()
            .filter(|q| {
                q.iter()
                    .any(|c| self.waiters.get(c).is_some_and(|w| w.nokey))
            })
            .count()
    }

    /// Blocked clients with a deadline (`clients_in_timeout_table`).
    pub fn clients_in_timeout_table(&self) -> usize {
        self.timeouts.len()
    }

    /// Hands a reply to the driver of an unblocked client.
    pub(crate) fn deliver(&mut self, client: ClientId, reply: Frame) {
        self.outbox.push((client, reply));
    }

    /// Replies for unblocked clients since the last call, in order.
    pub(crate) fn take_outbox(&mut self) -> Vec<(ClientId, Frame)> {
        std::mem::take(&mut self.outbox)
    }

    /// Every waiting client, in client id order; deadlines converted to
    /// virtual µs with the clock's Unix base.
    pub fn info(&self, unix_base_us: u64) -> Vec<BlockedInfo> {
        self.waiters
            .iter()
            .map(|(&client, w)| BlockedInfo {
                client,
                db: w.db as u32,
                kind: w.kind,
                keys: w.keys.iter().map(|k| lossy(k)).collect(),
                command: w.args.iter().map(|a| lossy(a)).collect(),
                since_us: w.since_us,
                deadline_us: (w.timeout_ms != 0).then(|| deadline_us(w.timeout_ms, unix_base_us)),
            })
            .collect()
    }
}

/// The first virtual µs at which a deadline of `timeout_ms` (Unix ms) has
/// passed: when `mstime()` first exceeds it.
pub fn deadline_us(timeout_ms: i64, unix_base_us: u64) -> u64 {
    (timeout_ms.max(0) as u64)
        .saturating_add(1)
        .saturating_mul(1000)
        .saturating_sub(unix_base_us)
}

/// True if the running command may block: a top-level command from a
/// client driven with `submit` (not inside EXEC, not through `execute`).
/// Blocking commands that may not block reply as on a timeout.
pub fn may_block(srv: &Server) -> bool {
    !srv.blocking.deny && srv.blocking.depth == 1
}

/// `blockForKeys`: asks the engine to park the client on `keys`. The
/// returned frame is never sent: the reply comes when the client is served
/// or times out.
pub fn block_for_keys(
    srv: &mut Server,
    kind: BlockKind,
    keys: &[Vec<u8>],
    timeout_ms: i64,
) -> Frame {
    srv.blocking.set_request(Request {
        kind,
        keys: keys.to_vec(),
        timeout_ms,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// `blockForReplication`: parks a WAIT until replicas acknowledge its
/// client's offset or `timeout_ms` (absolute Unix ms; 0: never) passes.
pub fn block_for_replicas(srv: &mut Server, timeout_ms: i64) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Replicas,
        keys: Vec::new(),
        timeout_ms,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// `blockForKeys(BLOCKED_STREAM)` for XREAD and XREADGROUP: `args` is the
/// command to run again (with `$` resolved); `nokey` also wakes the client
/// when a key is deleted (XREADGROUP, 7.2).
pub fn block_for_stream(
    srv: &mut Server,
    keys: &[Vec<u8>],
    timeout_ms: i64,
    args: Vec<Vec<u8>>,
    nokey: bool,
) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Stream,
        keys: keys.to_vec(),
        timeout_ms,
        args: Some(args),
        nokey,
    });
    Frame::NullArray
}

const NOT_A_FLOAT: &str = "ERR timeout is not a float or out of range";

/// `getTimeoutFromObjectOrReply(UNIT_SECONDS)`: seconds as a long double,
/// times 1000 and rounded up to whole ms; 0 waits forever, anything else
/// becomes an absolute Unix-ms deadline from `now_ms`.
pub fn timeout_arg(arg: &[u8], now_ms: i64) -> Result<i64, Frame> {
    let Some(ld) = crate::num::longdouble::LongDouble::parse(arg) else {
        return Err(Frame::err(NOT_A_FLOAT));
    };
    let ms = match seconds_to_ms_exact(arg) {
        Some(ms) => ms,
        None => seconds_to_ms_approx(&ld.to_fixed17()),
    };
    let tval = match ms {
        Ms::TooLarge => return Err(Frame::err("ERR timeout is out of range")),
        Ms::Value(v) => v,
    };
    if tval < 0 {
        return Err(Frame::err("ERR timeout is negative"));
    }
    if tval > 0 {
        if tval > i64::MAX - now_ms {
            return Err(Frame::err("ERR timeout is out of range"));
        }
        return Ok(tval + now_ms);
    }
    Ok(0)
}

/// `ceill(seconds * 1000.0L)`, or past `LLONG_MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ms {
    TooLarge,
    Value(i64),
}

/// Rounds `n` (non-zero) to 64 significant bits, ties to even: returns
/// `(m, shift)` with `n ≈ m · 2^shift` and `m` below 2^64.
fn round64(n: u128) -> (u128, i32) {
    let bits = 128 - n.leading_zeros() as i32;
    if bits <= 64 {
        return (n, 0);
    }
    let shift = bits - 64;
    let mut m = n >> shift;
    let rem = n & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && m & 1 == 1) {
        m += 1;
    }
    if m >> 64 != 0 {
        (m >> 1, shift + 1)
    } else {
        (m, shift)
    }
}

/// The x87 computation for plain decimal input (`[-+]digits[.digits][e[-+]n]`
/// with at most 19 significant digits and 18 decimals after scaling), done
/// exactly in integers: the value rounded to a 64-bit significand, times
/// 1000 rounded again, then the ceiling. `None` for other forms (hex,
/// `inf`, longer input), which take the approximate path.
fn seconds_to_ms_exact(arg: &[u8]) -> Option<Ms> {
    let (neg, body) = match arg.first()? {
        b'-' => (true, &arg[1..]),
        b'+' => (false, &arg[1..]),
        _ => (false, arg),
    };
    let (mantissa, exp) = match body.iter().position(|&c| c == b'e' || c == b'E') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &b""[..]),
    };
    let exp10: i32 = if exp.is_empty() {
        if body.len() != mantissa.len() {
            return None;
        }
        0
    } else {
        let (eneg, edigits) = match exp[0] {
            b'-' => (true, &exp[1..]),
            b'+' => (false, &exp[1..]),
            _ => (false, exp),
        };
        if edigits.is_empty() || edigits.len() > 4 || !edigits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let e: i32 = std::str::from_utf8(edigits).ok()?.parse().ok()?;
        if eneg {
            -e
        } else {
            e
        }
    };
    let (int_part, frac_part) = match mantissa.iter().position(|&c| c == b'.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, &b""[..]),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let digits: Vec<u8> = int_part.iter().chain(frac_part).copied().collect();
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let significant: Vec<u8> = digits.iter().copied().skip_while(|&c| c == b'0').collect();
    if significant.is_empty() {
        return Some(Ms::Value(0));
    }
    if significant.len() > 19 {
        return None;
    }
    let d: u128 = significant
        .iter()
        .fold(0u128, |acc, &c| acc * 10 + (c - b'0') as u128);
    // value = d · 10^k
    let k = exp10 - frac_part.len() as i32;
    let (m, e2): (u128, i32) = if k >= 0 {
        if k > 19 {
            return Some(if neg {
                Ms::Value(i64::MIN)
            } else {
                Ms::TooLarge
            });
        }
        let n = d.checked_mul(10u128.pow(k as u32))?;
        round64(n)
    } else {
        let kk = (-k) as u32;
        if kk > 18 {
            return None;
        }
        let den = 10u128.pow(kk);
        // Below a millisecond: ceil gives 1 (positive) or 0 (negative).
        if d * 1000 < den {
            return Some(Ms::Value(if neg { 0 } else { 1 }));
        }
        // Scale so the quotient has 64 or 65 bits, then round it to 64
        // with the division's remainder as the sticky part.
        let bl = |x: u128| 128 - x.leading_zeros() as i32;
        let s = 64 - bl(d) + bl(den);
        let num = d << s;
        let (q, r) = (num / den, num % den);
        let (m, up, drop) = if bl(q) > 64 {
            let drop = bl(q) - 64;
            let m = q >> drop;
            let rem = q & ((1u128 << drop) - 1);
            let half = 1u128 << (drop - 1);
            (
                m,
                rem > half || (rem == half && (r > 0 || m & 1 == 1)),
                drop,
            )
        } else {
            (q, 2 * r > den || (2 * r == den && q & 1 == 1), 0)
        };
        let (mut m, mut drop) = (m + up as u128, drop);
        if m >> 64 != 0 {
            m >>= 1;
            drop += 1;
        }
        (m, drop - s)
    };
    // x87(value) = m · 2^e2; times 1000, rounded to 64 bits again.
    let (p, e3) = round64(m * 1000);
    let e = e2 + e3;
    if e >= 0 {
        let v = p.checked_shl(e as u32).filter(|v| v >> e == p);
        return Some(match v {
            Some(v) if v <= i64::MAX as u128 => Ms::Value(if neg { -(v as i64) } else { v as i64 }),
            _ if neg => Ms::Value(i64::MIN),
            _ => Ms::TooLarge,
        });
    }
    let sh = (-e) as u32;
    if sh >= 128 {
        return Some(Ms::Value(if neg { 0 } else { 1 }));
    }
    let floor = p >> sh;
    let frac = p & ((1u128 << sh) - 1) != 0;
    if neg {
        Some(Ms::Value(-(floor.min(i64::MAX as u128) as i64)))
    } else {
        let c = floor + frac as u128;
        Some(if c > i64::MAX as u128 {
            Ms::TooLarge
        } else {
            Ms::Value(c as i64)
        })
    }
}

/// The same in `f64`, for input the exact path does not take; `fixed` is
/// the long double printed with `%.17Lf` (or `inf`).
fn seconds_to_ms_approx(fixed: &str) -> Ms {
    let v: f64 = fixed.parse().unwrap_or(f64::NAN);
    let ms = v * 1000.0;
    if ms.is_nan() || ms > i64::MAX as f64 {
        return Ms::TooLarge;
    }
    let c = ms.ceil();
    if c < i64::MIN as f64 {
        Ms::Value(i64::MIN)
    } else {
        Ms::Value(c as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Result<i64, Frame> {
        timeout_arg(s.as_bytes(), 1_000_000)
    }

    #[test]
    fn timeout_parsing() {
        assert_eq!(t("0"), Ok(0));
        assert_eq!(t("0.0"), Ok(0));
        assert_eq!(t("-0"), Ok(0));
        assert_eq!(t("1"), Ok(1_001_000));
        assert_eq!(t("0.2"), Ok(1_000_200));
        assert_eq!(t("1.5"), Ok(1_001_500));
        assert_eq!(t("1e-3"), Ok(1_000_001));
        assert_eq!(t("0.0001"), Ok(1_000_001), "rounded up to a whole ms");
        assert_eq!(t("-0.0001"), Ok(0), "ceil(-0.1) is 0: forever");
        assert_eq!(t("2E1"), Ok(1_020_000));
        assert_eq!(t(".5"), Ok(1_000_500));
        assert_eq!(t("5."), Ok(1_005_000));
        assert_eq!(t("-1"), Err(Frame::err("ERR timeout is negative")));
        assert_eq!(t("-inf"), Err(Frame::err("ERR timeout is negative")));
        assert_eq!(t("inf"), Err(Frame::err("ERR timeout is out of range")));
        assert_eq!(t("1e300"), Err(Frame::err("ERR timeout is out of range")));
        assert_eq!(
            t("9223372036854775"),
            Err(Frame::err("ERR timeout is out of range")),
            "adding now overflows"
        );
        for bad in ["", "abc", " 1", "1 ", "nan", "1,5", "0x"] {
            assert_eq!(t(bad), Err(Frame::err(NOT_A_FLOAT)), "{bad:?}");
        }
        assert_eq!(t("0x10"), Ok(1_016_000), "strtold takes hex");
    }

    #[test]
    fn exact_and_approximate_paths_agree_on_easy_values() {
        for s in ["0.1", "0.25", "3", "12.345", "0.001", "100000", "7.5e2"] {
            let exact = seconds_to_ms_exact(s.as_bytes()).expect("plain decimal");
            let ld = crate::num::longdouble::LongDouble::parse(s.as_bytes()).expect("valid");
            assert_eq!(exact, seconds_to_ms_approx(&ld.to_fixed17()), "{s}");
        }
    }

    #[test]
    fn x87_rounding_is_followed() {
        // 0.123 as a long double is a hair above 0.123; times 1000 it rounds
        // back to exactly 123 with a 64-bit significand.
        assert_eq!(seconds_to_ms_exact(b"0.123"), Some(Ms::Value(123)));
        assert_eq!(seconds_to_ms_exact(b"1.001"), Some(Ms::Value(1001)));
        assert_eq!(round64(u128::MAX), (1u128 << 63, 65));
    }
}
