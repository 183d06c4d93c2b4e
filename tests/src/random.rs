//! What the randomised differential tests share: the seeded generator, the seeds a run takes, the driver of a random run, and the values at the edges of Redis' parsing.

use crate::Pair;

/// The seeded xorshift generator of the randomised differential tests:
/// the same seed gives the same commands on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `N` of `items`, picked in turn (repeats allowed).
    pub fn picks<'a, const N: usize>(&mut self, items: &[&'a str]) -> [&'a str; N] {
        std::array::from_fn(|_| self.pick(items))
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// True `percent` times in a hundred.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A seeded random differential test on fresh servers (no options):
/// `steps` times, `next` draws a command from the generator and `check`
/// sends it to both servers and compares (given the step number). Only
/// `next` draws, so the commands depend on the seed alone, whatever the
/// checks send. Returns the servers, for the final comparisons.
pub fn random_steps<C>(
    seed: u64,
    steps: usize,
    mut next: impl FnMut(&mut Rng) -> C,
    mut check: impl FnMut(&mut Pair, usize, C),
) -> Pair {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(seed);
    for step in 0..steps {
        let cmd = next(&mut rng);
        check(&mut p, step, cmd);
    }
    p
}

/// A command's words as arguments.
pub fn word_args(words: &[String]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// The largest 64-bit integer, as the random tests' alphabets spell it
/// (Redis' integer parsing and overflow checks live at the bounds).
pub const I64_MAX: &str = "9223372036854775807";
/// The smallest 64-bit integer, as the random tests' alphabets spell it.
pub const I64_MIN: &str = "-9223372036854775808";

/// The counts the random tests give HRANDFIELD, SRANDMEMBER and SPOP:
/// zero, positive (distinct picks), negative (repeats allowed) and not a
/// number.
pub const RANDOM_COUNTS: [&str; 9] = ["0", "1", "2", "3", "5", "-1", "-3", "-8", "x"];

/// The seeds of a randomised test: `base` alone by default; `{PREFIX}_SEED`
/// (hex) replays one failing seed, and `{PREFIX}_SEEDS=n` adds n more, so a
/// longer soak needs no code change.
pub fn fuzz_seeds(prefix: &str, base: u64) -> Vec<u64> {
    if let Some(only) = std::env::var(format!("{prefix}_SEED"))
        .ok()
        .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
    {
        return vec![only];
    }
    let more: u64 = std::env::var(format!("{prefix}_SEEDS"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (0..=more)
        .map(|i| base.wrapping_add(i.wrapping_mul(0x9e37_79b9)))
        .collect()
}

/// One `#[test]` per line, each calling `run(seed, args...)` for every
/// seed of [`fuzz_seeds`]`(prefix, base)`: the randomised tests of a family
/// differ only in their base seed and the run's settings.
#[macro_export]
macro_rules! seeded_tests {
    ($prefix:literal, $run:path => $($(#[$meta:meta])* $name:ident: $base:expr, ($($arg:expr),*);)+) => {
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                for seed in $crate::fuzz_seeds($prefix, $base) {
                    $run(seed, $($arg),*);
                }
            }
        )+
    };
}

/// A command from its words, owned: what the random tests' generators
/// build and extend.
pub fn words(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}
