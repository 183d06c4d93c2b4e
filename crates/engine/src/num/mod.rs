//! Numbers read and printed exactly as Redis does: doubles (`strtod`, `d2string`, `%.17g`) and the x87 `long double` of INCRBYFLOAT.

pub mod double;
pub mod longdouble;
