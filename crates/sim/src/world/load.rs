//! Load generators: arrivals at a rate (Poisson gaps) and keys picked uniformly, by Zipf rank, uniquely, or from a hot set mixed with unique keys, with a read/write mix.

use crate::kernel::Micros;
use crate::zipf::Zipf;

/// How a load generator picks keys.
#[derive(Clone, Debug)]
pub enum KeyDist {
    /// Keys `0..n`, equally likely.
    Uniform(u64),
    /// Keys `0..n` by Zipf rank (key 0 the most popular).
    Zipf(Zipf),
    /// A key never asked for before, every time.
    Unique,
    /// With probability `p` one of `hot` keys (uniform), otherwise a unique one.
    HotOrUnique { hot: u64, p: f64 },
    /// Always this key.
    One(u64),
}

/// One operation a client asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub key: String,
    pub write: bool,
}

/// The name of key `i` (`k{i}`); unique keys are `u{i}`.
pub fn key_name(i: u64) -> String {
    format!("k{i}")
}

/// Clients generating load: `rate` requests per second between `from` and
/// `until`, Poisson arrivals, `read_frac` of them reads.
#[derive(Clone, Debug)]
pub struct LoadGen {
    pub rate: f64,
    pub keys: KeyDist,
    pub read_frac: f64,
    pub from: Micros,
    pub until: Micros,
    unique: u64,
}

impl LoadGen {
    pub fn new(rate: f64, keys: KeyDist, read_frac: f64, from: Micros, until: Micros) -> LoadGen {
        LoadGen {
            rate,
            keys,
            read_frac,
            from,
            until,
            unique: 0,
        }
    }

    /// Time to the next arrival: exponential with mean `1/rate`, at least 1 µs.
    pub fn gap(&self, rng: &mut fastrand::Rng) -> Micros {
        if self.rate <= 0.0 {
            return Micros::MAX / 4;
        }
        let u = 1.0 - rng.f64(); // (0, 1]
        ((-u.ln() / self.rate) * 1e6).max(1.0) as Micros
    }

    /// The next operation.
    pub fn op(&mut self, rng: &mut fastrand::Rng) -> Op {
        let write = rng.f64() >= self.read_frac;
        let key = match &self.keys {
            KeyDist::Uniform(n) => key_name(rng.u64(0..(*n).max(1))),
            KeyDist::Zipf(z) => key_name(z.sample(rng) - 1),
            KeyDist::One(i) => key_name(*i),
            KeyDist::Unique => {
                self.unique += 1;
                format!("u{}", self.unique)
            }
            KeyDist::HotOrUnique { hot, p } => {
                if rng.f64() < *p {
                    key_name(rng.u64(0..(*hot).max(1)))
                } else {
                    self.unique += 1;
                    format!("u{}", self.unique)
                }
            }
        };
        Op { key, write }
    }
}
