//! Virtual time: microseconds on the kernel's clock, and the units scenarios write durations in.

/// Virtual time in µs.
pub type Micros = u64;

pub const MS: Micros = 1_000;
pub const SEC: Micros = 1_000_000;
