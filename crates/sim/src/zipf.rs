//! A seeded Zipf(s) sampler over ranks 1..=n by rejection-inversion (Hörmann and Derflinger, 1996): O(1) memory and time per sample, exact distribution.
//!
//! Why this method: a precomputed CDF costs 8 bytes per item and a binary
//! search (about 20 cache misses for a million keys) per draw; an alias
//! table costs 8+ bytes per item too. Rejection-inversion needs three
//! numbers of setup and, per draw, one inversion of the integral of
//! `x^-s` plus, rarely, one acceptance test: for s = 0.99 and a million
//! items nearly every draw is accepted on the first try. That matters in
//! the browser, where a million-entry table is a 8 MB allocation.
//!
//! The idea: the continuous density `h(x) = x^-s` is integrated to `H`; a
//! uniform draw between `H(n + 1/2)` and `H(3/2) - 1` is mapped back
//! through `H⁻¹` and rounded to the nearest rank `k`. Rank `k` owns the
//! interval `[H(k + 1/2) - h(k), H(k + 1/2)]` of width `h(k)`, exactly its
//! weight; the part of the interval `H` gives it beyond that is rejected.
//! Rank 1's interval is `[H(3/2) - 1, H(3/2)]`, hence the lower bound.
//! Points close enough to `k` are accepted without evaluating `H` (the
//! squeeze `k - x <= squeeze`), which is what keeps draws cheap.
//!
//! Determinism: the only randomness is the caller's `fastrand::Rng`. The
//! arithmetic uses `exp_m1`, `ln_1p`, `ln` and `exp`, which are within an
//! ulp of each other on every platform; a draw could differ between
//! native and wasm only if a uniform variate fell within an ulp of a rank
//! boundary (about 1e-16 per draw), so a seeded trace is the same in the
//! browser and natively (the bench's e2e test checks this by hit counts).

/// Zipf(s) over ranks `1..=n`: rank `k` has probability proportional to `k^-s`.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    s: f64,
    /// `H(3/2) - 1`: the top of the sampled range (`H` decreases for s > 1,
    /// increases for s < 1; the formulas hold either way).
    h_x1: f64,
    /// `H(n + 1/2)`: the other end.
    h_n: f64,
    /// Points within this distance below their rank are always accepted.
    squeeze: f64,
}

impl Zipf {
    /// A sampler over `n >= 1` items with exponent `s >= 0` (finite).
    /// Returns `None` for an empty range or a negative or non-finite exponent.
    pub fn new(n: u64, s: f64) -> Option<Zipf> {
        if n == 0 || !s.is_finite() || s < 0.0 {
            return None;
        }
        let mut z = Zipf {
            n,
            s,
            h_x1: 0.0,
            h_n: 0.0,
            squeeze: 0.0,
        };
        z.h_x1 = z.big_h(1.5) - 1.0;
        z.h_n = z.big_h(n as f64 + 0.5);
        z.squeeze = 2.0 - z.big_h_inv(z.big_h(2.5) - z.h(2.0));
        Some(z)
    }

    /// Number of items.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The exponent.
    pub fn s(&self) -> f64 {
        self.s
    }

    /// One rank in `1..=n`; rank 1 is the most popular.
    pub fn sample(&self, rng: &mut fastrand::Rng) -> u64 {
        loop {
            let u = self.h_n + rng.f64() * (self.h_x1 - self.h_n);
            let x = self.big_h_inv(u);
            // Round to the nearest rank; clamp guards the ends against
            // rounding in `H⁻¹` (x may land a hair outside [1/2, n + 1/2]).
            let k = (x + 0.5).floor().clamp(1.0, self.n as f64);
            if k - x <= self.squeeze || u >= self.big_h(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }

    /// The density `x^-s`, as `exp(-s ln x)`.
    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// `H(x) = (x^(1-s) - 1) / (1 - s)`, or `ln x` at s = 1, written so it
    /// is continuous in s: `ln x * expm1(t) / t` with `t = (1 - s) ln x`.
    fn big_h(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over_x((1.0 - self.s) * lx) * lx
    }

    /// `H⁻¹(y) = (1 + (1 - s) y)^(1/(1 - s))`, or `e^y` at s = 1:
    /// `exp(y * log1p(t) / t)` with `t = (1 - s) y`.
    fn big_h_inv(&self, y: f64) -> f64 {
        let t = (1.0 - self.s) * y;
        // Below H's range (t <= -1) the inverse does not exist; the sampled
        // `u` never goes there, but rounding might touch the edge.
        let t = t.max(-1.0 + f64::EPSILON);
        (log1p_over_x(t) * y).exp()
    }
}

/// `expm1(x) / x`, 1 at 0 (a Taylor step near 0 avoids 0/0).
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + x * 0.25))
    }
}

/// `log1p(x) / x`, 1 at 0.
fn log1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - x * 0.25))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact probabilities for `n` items, for comparison.
    fn pmf(n: u64, s: f64) -> Vec<f64> {
        let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-s)).collect();
        let total: f64 = w.iter().sum();
        w.into_iter().map(|x| x / total).collect()
    }

    /// Chi-square statistic of `draws` samples against the exact pmf.
    fn chi_square(n: u64, s: f64, draws: usize, seed: u64) -> (f64, usize) {
        let z = Zipf::new(n, s).unwrap();
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut counts = vec![0usize; n as usize];
        for _ in 0..draws {
            let k = z.sample(&mut rng);
            assert!((1..=n).contains(&k), "rank {k} out of 1..={n}");
            counts[k as usize - 1] += 1;
        }
        let p = pmf(n, s);
        let chi: f64 = counts
            .iter()
            .zip(&p)
            .map(|(&c, &p)| {
                let e = p * draws as f64;
                (c as f64 - e).powi(2) / e
            })
            .sum();
        (chi, n as usize - 1)
    }

    #[test]
    fn matches_the_exact_distribution() {
        // Several exponents, including s = 1 (H = ln) and the uniform s = 0.
        // With 99 degrees of freedom the 99.9% quantile is about 149.
        for s in [0.0, 0.5, 0.99, 1.0, 1.2, 2.5] {
            let (chi, dof) = chi_square(100, s, 400_000, 7);
            assert_eq!(dof, 99);
            assert!(chi < 149.0, "s = {s}: chi-square {chi:.1} over {dof} dof");
        }
    }

    #[test]
    fn top_ranks_on_a_million_items() {
        // Zipf(0.99) over 1M keys: rank 1 has about 1/H where H = sum k^-0.99.
        let n = 1_000_000u64;
        let total: f64 = (1..=n).map(|k| (k as f64).powf(-0.99)).sum();
        let z = Zipf::new(n, 0.99).unwrap();
        let mut rng = fastrand::Rng::with_seed(11);
        let draws = 1_000_000;
        let mut top = [0usize; 3];
        for _ in 0..draws {
            let k = z.sample(&mut rng);
            assert!((1..=n).contains(&k));
            if k <= 3 {
                top[k as usize - 1] += 1;
            }
        }
        for (i, &c) in top.iter().enumerate() {
            let p = ((i + 1) as f64).powf(-0.99) / total;
            let e = p * draws as f64;
            // Within 5 standard deviations of the binomial count.
            let sd = (e * (1.0 - p)).sqrt();
            assert!(
                (c as f64 - e).abs() < 5.0 * sd,
                "rank {}: {c} vs {e:.0}",
                i + 1
            );
        }
    }

    #[test]
    fn seeded_and_edge_cases() {
        let z = Zipf::new(1000, 0.99).unwrap();
        let a: Vec<u64> = {
            let mut r = fastrand::Rng::with_seed(3);
            (0..100).map(|_| z.sample(&mut r)).collect()
        };
        let b: Vec<u64> = {
            let mut r = fastrand::Rng::with_seed(3);
            (0..100).map(|_| z.sample(&mut r)).collect()
        };
        assert_eq!(a, b);
        let one = Zipf::new(1, 0.99).unwrap();
        let mut r = fastrand::Rng::with_seed(1);
        assert!((0..100).all(|_| one.sample(&mut r) == 1));
        assert!(Zipf::new(0, 0.99).is_none());
        assert!(Zipf::new(10, -1.0).is_none());
        assert!(Zipf::new(10, f64::NAN).is_none());
    }
}
