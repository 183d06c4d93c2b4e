//! What the random-member commands share (HRANDFIELD, SRANDMEMBER, ZRANDMEMBER, SPOP): the count and its WITHVALUES / WITHSCORES word, the cap on replies with repetitions, and Redis' selection sampling.

use super::args::{count_arg, opt_is, SYNTAX};
use crate::proto::resp::Frame;
use crate::rng::Pick;

/// Longest reply a negative count may ask HRANDFIELD, SRANDMEMBER or
/// ZRANDMEMBER for. Redis would build any length (and a client could not
/// read it back); the simulator refuses rather than exhaust memory.
pub(crate) const MAX_RANDOM_REPLY: u64 = 1_000_000;

/// The error for a random reply longer than [`MAX_RANDOM_REPLY`].
pub(crate) fn too_many_random() -> Frame {
    Frame::err(format!(
        "ERR redsim limits random replies with repetitions to {MAX_RANDOM_REPLY} elements"
    ))
}

/// `key count [WITH...]` of HRANDFIELD and ZRANDMEMBER (`args.len() >= 3`):
/// the count (any integer but LONG_MIN), then whether `with` was given
/// (nothing else may follow), which halves the count's range.
pub(crate) fn count_and_with(args: &[Vec<u8>], with: &str) -> Result<(i64, bool), Frame> {
    let l = count_arg(&args[2])?;
    let with = match args.get(3) {
        _ if args.len() > 4 => return Err(Frame::err(SYNTAX)),
        Some(a) if opt_is(a, with) => true,
        Some(_) => return Err(Frame::err(SYNTAX)),
        None => false,
    };
    if with && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&l) {
        return Err(Frame::err("ERR value is out of range"));
    }
    Ok((l, with))
}

/// Algorithm S (`lpNextRandom`'s selection sampling): `k` distinct indices
/// below `n`, ascending.
pub(crate) fn sample_indices(rng: &mut fastrand::Rng, n: usize, k: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(k.min(n));
    for i in 0..n {
        let remaining = k - out.len();
        if remaining == 0 {
            break;
        }
        if rng.pick(..n - i) < remaining {
            out.push(i);
        }
    }
    out
}
