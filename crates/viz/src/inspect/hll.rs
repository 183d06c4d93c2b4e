//! A HyperLogLog's 16384 registers as a histogram of their values on a log scale, for the browser's key inspector.

use std::fmt::Write;

use redsim_engine::inspect::HllView;
use redsim_engine::num::{print::fixed, trim_fixed};

use super::{f1, titled};

/// One bar of the register histogram.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub value: usize,
    pub count: u64,
    /// Height as a fraction of the tallest possible bar (log scale: one
    /// register and 16384 both stay visible).
    pub frac: f64,
}

/// Bars for register values 0 up to a little past the largest one (at
/// least 0..=15, at most 0..=51, the largest value a register can hold).
pub fn hll_bars(histogram: &[u64], max_register: u8) -> Vec<Bar> {
    let last = (max_register as usize + 2).clamp(15, 51);
    let top = (redsim_engine::keyspace::types::hll::REGISTERS as f64 + 1.0).ln();
    (0..=last)
        .map(|v| {
            let count = histogram.get(v).copied().unwrap_or(0);
            Bar {
                value: v,
                count,
                frac: (count as f64 + 1.0).ln() / top,
            }
        })
        .collect()
}

/// The histogram as an `<svg class="rs-hll-svg">`; `None` when the view
/// carries no histogram.
pub fn hll_svg(h: &HllView) -> Option<String> {
    if h.histogram.is_empty() {
        return None;
    }
    let bars = hll_bars(&h.histogram, h.max_register);
    let (w, bh, gap) = (20.0, 120.0, 4.0);
    let width = bars.len() as f64 * (w + gap) + 8.0;
    let base: f64 = bh + 14.0;
    let mut out = String::with_capacity(4096);
    let (width, base_text) = (fixed(width, 0), trim_fixed(f1(base)));
    let _ = write!(
        out,
        "<svg width=\"{width}\" height=\"{}\" role=\"img\" aria-label=\"Histogram of the 16384 register values\" class=\"rs-hll-svg\">\
         <line x1=\"0\" x2=\"{width}\" y1=\"{base_text}\" y2=\"{base_text}\" class=\"rs-hll-base\"/>",
        fixed(base + 18.0, 0)
    );
    for b in &bars {
        let x = 4.0 + b.value as f64 * (w + gap);
        let hgt = if b.count == 0 {
            0.0
        } else {
            (b.frac * bh).max(2.0)
        };
        let label_x = f1(x + w / 2.0);
        let class = if b.count == 0 {
            "rs-hll-bar rs-hll-zero"
        } else {
            "rs-hll-bar"
        };
        titled(
            &mut out,
            "g",
            &format!("data-value=\"{}\" class=\"{class}\"", b.value),
            &format!(
                "value {}: {} register{}",
                b.value,
                b.count,
                if b.count == 1 { "" } else { "s" }
            ),
        );
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"2\"/>",
            f1(x),
            f1(base - hgt),
            trim_fixed(f1(w)),
            f1(hgt)
        );
        if b.count > 0 {
            let _ = write!(
                out,
                "<text x=\"{label_x}\" y=\"{}\" text-anchor=\"middle\" class=\"rs-hll-count\">{}</text>",
                f1(base - hgt - 3.0),
                short_count(b.count)
            );
        }
        if b.value % 5 == 0 {
            let _ = write!(
                out,
                "<text x=\"{label_x}\" y=\"{}\" text-anchor=\"middle\" class=\"rs-hll-axis\">{}</text>",
                f1(base + 12.0),
                b.value
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    Some(out)
}

/// 16384 → "16k", 1234 → "1.2k".
fn short_count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 10_000 {
        format!("{}k", f1(n as f64 / 1000.0))
    } else {
        format!("{}k", n / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_bars_use_a_log_scale_over_the_used_values() {
        let mut h = vec![0u64; 64];
        h[0] = 16_000;
        h[1] = 300;
        h[2] = 80;
        h[3] = 4;
        let bars = hll_bars(&h, 3);
        assert_eq!(bars.len(), 16);
        assert_eq!(bars[1].count, 300);
        assert!(bars[0].frac > bars[1].frac && bars[1].frac > bars[3].frac);
        assert!(bars[3].frac > 0.1, "a handful of registers stays visible");
        assert_eq!(bars[5].frac, 0.0);
        assert!(bars.iter().all(|b| b.frac <= 1.0));
        assert_eq!(hll_bars(&h, 30).len(), 33);
        assert_eq!(hll_bars(&h, 63).len(), 52);
        assert_eq!(short_count(16384), "16k");
        assert_eq!(short_count(1234), "1.2k");
        assert_eq!(short_count(7), "7");
    }
}
