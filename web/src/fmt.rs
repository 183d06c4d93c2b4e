//! Times and sizes as the views print them, shared by the console, the clock bar, the keyspace and the inspector.

/// Virtual time as the clock bar shows it: `h:mm:ss.mmm` from the start.
pub fn fmt_clock(us: u64) -> String {
    let ms = us / 1000;
    let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{h}:{m:02}:{s:02}.{milli:03}")
}

/// A TTL as the panels print it: tenths under 10 s, then s, m, h, d.
pub fn fmt_ttl(ms: i64) -> String {
    let ms = ms.max(0);
    let s = ms / 1000;
    if ms < 10_000 {
        format!("{}.{}s", ms / 1000, ms % 1000 / 100)
    } else if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else if s < 86_400 {
        format!("{}h {:02}m", s / 3600, s / 60 % 60)
    } else {
        format!("{}d {:02}h", s / 86_400, s / 3600 % 24)
    }
}

pub use redsim_engine::num::print::fixed;

/// A coordinate or length for a drawing's attribute, as `{}` prints a
/// simple number (`62`, `55.5`), without std's shortest-float printing
/// (see `redsim_engine::num::print`).
pub fn num(x: f64) -> String {
    redsim_engine::num::trim_fixed(fixed(x, 3))
}

/// Bytes for people: B, KB, MB.
pub fn fmt_bytes(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{} KB", fixed(n as f64 / 1024.0, 1))
    } else {
        format!("{} MB", fixed(n as f64 / (1024.0 * 1024.0), 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_sizes_read_well() {
        let clocks = [0, 3_100_000, 3_723_004_999];
        assert_eq!(
            clocks.map(fmt_clock),
            ["0:00:00.000", "0:00:03.100", "1:02:03.004"]
        );
        let ttls = [4_250, -5, 42_000, 65_000, 7_380_000, 93_600_000];
        assert_eq!(
            ttls.map(fmt_ttl),
            ["4.2s", "0.0s", "42s", "1m 05s", "2h 03m", "1d 02h"]
        );
        let sizes = [900, 12_304, 3 * 1024 * 1024 / 2];
        assert_eq!(sizes.map(fmt_bytes), ["900 B", "12.0 KB", "1.5 MB"]);
    }
}
