//! The timeline's geometry: the zoom levels, the visible interval, round ticks and their labels, where an instant falls across the chart, and where each lane sits.

/// How much of the axis is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    TenSeconds,
    Minute,
    TenMinutes,
    All,
}

impl Zoom {
    pub const ALL: [Zoom; 4] = [Zoom::TenSeconds, Zoom::Minute, Zoom::TenMinutes, Zoom::All];

    pub fn label(self) -> &'static str {
        match self {
            Zoom::TenSeconds => "10 s",
            Zoom::Minute => "1 min",
            Zoom::TenMinutes => "10 min",
            Zoom::All => "all",
        }
    }

    pub(super) fn window_us(self) -> Option<u64> {
        match self {
            Zoom::TenSeconds => Some(10_000_000),
            Zoom::Minute => Some(60_000_000),
            Zoom::TenMinutes => Some(600_000_000),
            Zoom::All => None,
        }
    }
}

/// The visible interval `[start, end]` in µs: the last window ending now,
/// or from 0 while less than a window has passed (then the axis fills up
/// from the left); `All` spans from 0 to now, at least 10 s.
pub fn domain(now_us: u64, zoom: Zoom) -> (u64, u64) {
    match zoom.window_us() {
        Some(w) if now_us > w => (now_us - w, now_us),
        Some(w) => (0, w),
        None => (0, now_us.max(10_000_000)),
    }
}

/// Axis ticks: the smallest round step giving at most 8 intervals.
pub fn ticks(start: u64, end: u64) -> (u64, Vec<u64>) {
    const STEPS_MS: [u64; 20] = [
        100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
        900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
    ];
    let span = end.saturating_sub(start).max(1);
    let step = STEPS_MS
        .iter()
        .map(|ms| ms * 1000)
        .find(|s| span / s <= 8)
        .unwrap_or(86_400_000_000 * (span / 86_400_000_000 / 8 + 1));
    let first = start.div_ceil(step) * step;
    let ticks = (0..)
        .map(|i| first + i * step)
        .take_while(|t| *t <= end)
        .collect();
    (step, ticks)
}

/// A tick label: seconds (with tenths for sub-second steps), then m:ss, h:mm:ss.
pub fn fmt_tick(us: u64, step_us: u64) -> String {
    let ms = us / 1000;
    let s = ms / 1000;
    if s < 60 {
        if step_us < 1_000_000 {
            format!("{}.{}s", s, ms % 1000 / 100)
        } else {
            format!("{s}s")
        }
    } else if s < 3600 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// Horizontal position of `t` as a percentage, with a 1.5% margin each side
/// so marks at the ends are not clipped.
pub(super) fn x_pct(t: u64, start: u64, end: u64) -> f64 {
    let span = end.saturating_sub(start).max(1) as f64;
    1.5 + 97.0 * (t.saturating_sub(start) as f64 / span)
}

/// The memory band: its top and height.
pub(super) const MEM_TOP: f64 = 6.0;
pub(super) const MEM_H: f64 = 34.0;
pub(super) const LANE_CMD: f64 = 62.0;
pub(super) const LANE_EXP: f64 = 92.0;
pub(super) const LANE_DEL: f64 = 122.0;
pub(super) const AXIS_Y: f64 = 142.0;
pub(super) const HEIGHT: f64 = 164.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_fills_from_zero_then_scrolls() {
        assert_eq!(domain(3_000_000, Zoom::TenSeconds), (0, 10_000_000));
        assert_eq!(
            domain(25_000_000, Zoom::TenSeconds),
            (15_000_000, 25_000_000)
        );
        assert_eq!(domain(5, Zoom::All), (0, 10_000_000));
        assert_eq!(domain(99_000_000, Zoom::All), (0, 99_000_000));
    }

    #[test]
    fn ticks_are_round_and_few() {
        let (step, t) = ticks(0, 10_000_000);
        assert_eq!(step, 2_000_000);
        assert_eq!(
            t,
            vec![0, 2_000_000, 4_000_000, 6_000_000, 8_000_000, 10_000_000]
        );
        let (step, t) = ticks(61_500_000, 121_500_000);
        assert_eq!(step, 10_000_000);
        assert_eq!(t.first(), Some(&70_000_000));
        assert!(t.len() <= 9);
        let (_, t) = ticks(0, 3_000_000_000_000);
        assert!(!t.is_empty() && t.len() <= 9);
    }

    #[test]
    fn tick_labels() {
        assert_eq!(fmt_tick(2_500_000, 500_000), "2.5s");
        assert_eq!(fmt_tick(4_000_000, 2_000_000), "4s");
        assert_eq!(fmt_tick(70_000_000, 10_000_000), "1:10");
        assert_eq!(fmt_tick(3_723_000_000, 60_000_000), "1:02:03");
    }
}
