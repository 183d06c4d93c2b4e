//! Geohash arithmetic as Redis does it (geohash.c, geohash_helper.c): 26-bit longitude and latitude steps interleaved into a 52-bit sorted-set score, cells decoded to their centre, haversine distances, and the nine cells a radius or box search walks.
//!
//! Every formula, constant and C conversion is Redis' own, because replies
//! (scores, coordinates printed to 17 decimals, distances to 4) show the
//! last bit of each computation. The trigonometry goes through the
//! platform's libm, as Redis' does.

/// `GEO_LAT_MIN` / `GEO_LAT_MAX`: the Web Mercator limits Redis encodes within.
pub const LAT_MIN: f64 = -85.05112878;
pub const LAT_MAX: f64 = 85.05112878;
/// `GEO_LONG_MIN` / `GEO_LONG_MAX`.
pub const LONG_MIN: f64 = -180.0;
pub const LONG_MAX: f64 = 180.0;
/// `GEO_STEP_MAX`: 26 steps per axis, 52 bits in all.
pub const STEP_MAX: u8 = 26;
/// `EARTH_RADIUS_IN_METERS`: the WGS-84 quadratic mean radius.
const EARTH_RADIUS: f64 = 6372797.560856;
/// `MERCATOR_MAX`, which step estimation doubles the radius up to.
const MERCATOR_MAX: f64 = 20037726.37;
/// `D_R`: `M_PI / 180.0`, the factor `deg_rad` and `rad_deg` use.
const D_R: f64 = std::f64::consts::PI / 180.0;

/// A geohash of `step` bits per axis (`GeoHashBits`); all zero is "no cell".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Bits {
    pub bits: u64,
    pub step: u8,
}

impl Bits {
    /// `HASHISZERO`: a neighbour the search excluded.
    pub fn is_zero(&self) -> bool {
        self.bits == 0 && self.step == 0
    }

    /// `geohashAlign52Bits`: the hash as a 52-bit score prefix.
    pub fn align52(&self) -> u64 {
        self.bits << (52 - u32::from(self.step) * 2)
    }
}

/// An interval of one coordinate.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub min: f64,
    pub max: f64,
}

/// A cell's extent (`GeoHashArea`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Area {
    pub lon: Span,
    pub lat: Span,
}

/// The WGS-84 ranges Redis encodes scores within.
const LON_RANGE: Span = Span {
    min: LONG_MIN,
    max: LONG_MAX,
};
const LAT_RANGE: Span = Span {
    min: LAT_MIN,
    max: LAT_MAX,
};

/// `interleave64`: `x` in the even bits, `y` in the odd ones.
fn interleave64(x: u32, y: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = u64::from(v);
        v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
        v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        (v | (v << 1)) & 0x5555_5555_5555_5555
    }
    spread(x) | (spread(y) << 1)
}

/// `deinterleave64`: even bits in the low word, odd bits in the high one.
fn deinterleave64(v: u64) -> u64 {
    fn squash(mut x: u64) -> u64 {
        x &= 0x5555_5555_5555_5555;
        x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
        x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
        x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
        x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
        (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF
    }
    squash(v) | (squash(v >> 1) << 32)
}

/// `geohashEncode`: `None` outside the WGS-84 limits or the given ranges.
/// The offsets go to 32 bits as C converts them (truncation; a coordinate
/// on the upper limit gives a step's worth more, as in Redis).
fn encode(lon_r: Span, lat_r: Span, lon: f64, lat: f64, step: u8) -> Option<Bits> {
    if step == 0 || step > 32 {
        return None;
    }
    if !(LONG_MIN..=LONG_MAX).contains(&lon) || !(LAT_MIN..=LAT_MAX).contains(&lat) {
        return None;
    }
    if lat < lat_r.min || lat > lat_r.max || lon < lon_r.min || lon > lon_r.max {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_off = (lat - lat_r.min) / (lat_r.max - lat_r.min) * scale;
    let lon_off = (lon - lon_r.min) / (lon_r.max - lon_r.min) * scale;
    Some(Bits {
        bits: interleave64(c_u32(lat_off), c_u32(lon_off)),
        step,
    })
}

/// `geohashEncodeWGS84`.
pub fn encode_wgs84(lon: f64, lat: f64, step: u8) -> Option<Bits> {
    encode(LON_RANGE, LAT_RANGE, lon, lat, step)
}

/// C's `(uint32_t)` of a double as x86-64 compiles it: truncation through
/// a 64-bit conversion (NaN and overflow give the low word of `i64::MIN`).
fn c_u32(x: f64) -> u32 {
    c_i64(x) as u32
}

/// C's `(long long)` of a double on x86-64 (`cvttsd2si`): truncation, and
/// `i64::MIN` for NaN and anything out of range.
pub fn c_i64(x: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if (-LIMIT..LIMIT).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// C's `(uint64_t)` of a double on x86-64 (what `decodeGeohash` does with
/// a score): negative values wrap, 2^64 and above give 0.
fn c_u64(x: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if x >= TWO63 {
        (c_i64(x - TWO63) as u64) ^ (1 << 63)
    } else {
        c_i64(x) as u64
    }
}

/// `geohashDecode` within the given ranges.
fn decode(lon_r: Span, lat_r: Span, hash: Bits) -> Option<Area> {
    if hash.is_zero() {
        return None;
    }
    let sep = deinterleave64(hash.bits);
    let scale = (1u64 << hash.step) as f64;
    let ilat = sep as u32;
    let ilon = (sep >> 32) as u32;
    let lat_scale = lat_r.max - lat_r.min;
    let lon_scale = lon_r.max - lon_r.min;
    Some(Area {
        lat: Span {
            min: lat_r.min + (f64::from(ilat) * 1.0 / scale) * lat_scale,
            max: lat_r.min + (f64::from(ilat.wrapping_add(1)) * 1.0 / scale) * lat_scale,
        },
        lon: Span {
            min: lon_r.min + (f64::from(ilon) * 1.0 / scale) * lon_scale,
            max: lon_r.min + (f64::from(ilon.wrapping_add(1)) * 1.0 / scale) * lon_scale,
        },
    })
}

/// `geohashDecodeWGS84`.
pub fn decode_wgs84(hash: Bits) -> Option<Area> {
    decode(LON_RANGE, LAT_RANGE, hash)
}

/// `decodeGeohash`: a score's cell centre `[lon, lat]`, clamped to the
/// limits (scores not written by GEOADD decode too, as in Redis).
pub fn decode_score(score: f64) -> [f64; 2] {
    let hash = Bits {
        bits: c_u64(score),
        step: STEP_MAX,
    };
    let area = decode_wgs84(hash).unwrap_or_default();
    let lon = ((area.lon.min + area.lon.max) / 2.0).clamp(LONG_MIN, LONG_MAX);
    let lat = ((area.lat.min + area.lat.max) / 2.0).clamp(LAT_MIN, LAT_MAX);
    [lon, lat]
}

/// The 52-bit score GEOADD stores for a valid coordinate pair.
pub fn score_of(lon: f64, lat: f64) -> Option<u64> {
    encode_wgs84(lon, lat, STEP_MAX).map(|h| h.align52())
}

/// `geohash_move_x` / `geohash_move_y`: the neighbouring cell along one
/// axis (`odd`: latitude bits), wrapping around at the edges.
fn moved(hash: Bits, odd: bool, d: i8) -> Bits {
    if d == 0 {
        return hash;
    }
    let shift = 64 - u32::from(hash.step) * 2;
    let (mine_mask, other_mask) = if odd {
        (0x5555_5555_5555_5555u64, 0xaaaa_aaaa_aaaa_aaaau64)
    } else {
        (0xaaaa_aaaa_aaaa_aaaau64, 0x5555_5555_5555_5555u64)
    };
    let mut v = hash.bits & mine_mask;
    let rest = hash.bits & other_mask;
    let zz = other_mask.checked_shr(shift).unwrap_or(0);
    if d > 0 {
        v = v.wrapping_add(zz.wrapping_add(1));
    } else {
        v |= zz;
        v = v.wrapping_sub(zz.wrapping_add(1));
    }
    v &= mine_mask.checked_shr(shift).unwrap_or(0);
    Bits {
        bits: v | rest,
        step: hash.step,
    }
}

/// `geohashNeighbors` in the order the search visits them: north, south,
/// east, west, north-east, north-west, south-east, south-west.
fn neighbors(h: Bits) -> [Bits; 8] {
    let m = |dx: i8, dy: i8| moved(moved(h, false, dx), true, dy);
    [
        m(0, 1),
        m(0, -1),
        m(1, 0),
        m(-1, 0),
        m(1, 1),
        m(-1, 1),
        m(1, -1),
        m(-1, -1),
    ]
}

/// What a search covers (`GeoShape`): a centre, a radius or a box, and
/// the unit's size in metres.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub xy: [f64; 2],
    pub kind: ShapeKind,
    pub conversion: f64,
}

/// A circle's radius or a box's width and height, in the request's unit.
#[derive(Clone, Copy, Debug)]
pub enum ShapeKind {
    Circle(f64),
    Box(f64, f64),
}

fn deg_rad(a: f64) -> f64 {
    a * D_R
}

fn rad_deg(a: f64) -> f64 {
    a / D_R
}

/// `geohashEstimateStepsByRadius`.
pub fn estimate_steps(mut range: f64, lat: f64) -> u8 {
    if range == 0.0 {
        return 26;
    }
    let mut step: i32 = 1;
    while range < MERCATOR_MAX {
        range *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&lat) {
        step -= 1;
        if !(-80.0..=80.0).contains(&lat) {
            step -= 1;
        }
    }
    step.clamp(1, 26) as u8
}

/// `geohashBoundingBox`: [min lon, min lat, max lon, max lat].
fn bounding_box(shape: &Shape) -> [f64; 4] {
    let [lon, lat] = shape.xy;
    let (h, w) = match shape.kind {
        ShapeKind::Circle(r) => (r, r),
        ShapeKind::Box(w, h) => (h / 2.0, w / 2.0),
    };
    let (height, width) = (shape.conversion * h, shape.conversion * w);
    let lat_delta = rad_deg(height / EARTH_RADIUS);
    let top = rad_deg(width / EARTH_RADIUS / deg_rad(lat + lat_delta).cos());
    let bottom = rad_deg(width / EARTH_RADIUS / deg_rad(lat - lat_delta).cos());
    let delta = if lat < 0.0 { bottom } else { top };
    [lon - delta, lat - lat_delta, lon + delta, lat + lat_delta]
}

/// `geohashCalculateAreasByShapeWGS84`: the centre cell and its eight
/// neighbours (zero where they cannot hold a match), in visiting order.
pub fn areas_by_shape(shape: &Shape) -> [Bits; 9] {
    let [min_lon, min_lat, max_lon, max_lat] = bounding_box(shape);
    let [lon, lat] = shape.xy;
    let radius = match shape.kind {
        ShapeKind::Circle(r) => r,
        ShapeKind::Box(w, h) => ((w / 2.0) * (w / 2.0) + (h / 2.0) * (h / 2.0)).sqrt(),
    } * shape.conversion;
    let mut steps = estimate_steps(radius, lat);
    let cell = |steps: u8| {
        let hash = encode_wgs84(lon, lat, steps).unwrap_or(Bits {
            bits: 0,
            step: steps,
        });
        let area = decode_wgs84(hash).unwrap_or_default();
        (hash, neighbors(hash), area)
    };
    let (mut hash, mut nb, mut area) = cell(steps);
    let side = |b: Bits| decode_wgs84(b).unwrap_or_default();
    let decrease = side(nb[0]).lat.max < max_lat
        || side(nb[1]).lat.min > min_lat
        || side(nb[2]).lon.max < max_lon
        || side(nb[3]).lon.min > min_lon;
    if steps > 1 && decrease {
        steps -= 1;
        (hash, nb, area) = cell(steps);
    }
    if steps >= 2 {
        let zero = Bits::default();
        let mut clear = |idx: [usize; 3]| idx.iter().for_each(|&i| nb[i] = zero);
        // Indexes: 0 N, 1 S, 2 E, 3 W, 4 NE, 5 NW, 6 SE, 7 SW.
        if area.lat.min < min_lat {
            clear([1, 7, 6]);
        }
        if area.lat.max > max_lat {
            clear([0, 4, 5]);
        }
        if area.lon.min < min_lon {
            clear([3, 7, 5]);
        }
        if area.lon.max > max_lon {
            clear([2, 6, 4]);
        }
    }
    [hash, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], nb[6], nb[7]]
}

/// `geohashGetLatDistance`.
fn lat_distance(lat1: f64, lat2: f64) -> f64 {
    EARTH_RADIUS * (deg_rad(lat2) - deg_rad(lat1)).abs()
}

/// `geohashGetDistance`: haversine on a sphere, with Redis' shortcut when
/// the longitudes are the same.
pub fn distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let v = ((deg_rad(lon2) - deg_rad(lon1)) / 2.0).sin();
    if v == 0.0 {
        return lat_distance(lat1, lat2);
    }
    let (lat1r, lat2r) = (deg_rad(lat1), deg_rad(lat2));
    let u = ((lat2r - lat1r) / 2.0).sin();
    let a = u * u + lat1r.cos() * lat2r.cos() * v * v;
    2.0 * EARTH_RADIUS * a.sqrt().asin()
}

/// `geoWithinShape` after decoding: the distance from the centre if the
/// point `[lon, lat]` is inside.
pub fn within(shape: &Shape, xy: [f64; 2]) -> Option<f64> {
    let [cx, cy] = shape.xy;
    let [x, y] = xy;
    match shape.kind {
        ShapeKind::Circle(r) => {
            let d = distance(cx, cy, x, y);
            // Only a larger distance is out (a NaN one is in, as in C).
            if d > r * shape.conversion {
                None
            } else {
                Some(d)
            }
        }
        ShapeKind::Box(w, h) => {
            let (w, h) = (w * shape.conversion, h * shape.conversion);
            if lat_distance(y, cy) > h / 2.0 || distance(x, y, cx, y) > w / 2.0 {
                return None;
            }
            Some(distance(cx, cy, x, y))
        }
    }
}

/// GEOHASH's string: the cell centre re-encoded with the standard ±90
/// latitude range, ten base32 characters of it and a final `0`.
pub fn geohash_string(score: f64) -> [u8; 11] {
    const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let [lon, lat] = decode_score(score);
    let std_lat = Span {
        min: -90.0,
        max: 90.0,
    };
    let bits = encode(LON_RANGE, std_lat, lon, lat, 26).map_or(0, |h| h.bits);
    let mut out = [b'0'; 11];
    for (i, c) in out.iter_mut().take(10).enumerate() {
        *c = ALPHABET[((bits >> (52 - (i + 1) * 5)) & 0x1f) as usize];
    }
    out
}

/// `fixedpoint_d2string(d, 4)`: a distance as GEODIST and WITHDIST print it.
pub fn fixed4(d: f64) -> String {
    if d == 0.0 {
        return "0.0000".into();
    }
    // `llrint` in the default rounding mode: ties to even.
    let scaled = c_i64((d * 10_000.0).round_ties_even());
    let neg = scaled < 0;
    let v = scaled.unsigned_abs();
    let digits = format!("{v:05}");
    let (int, frac) = digits.split_at(digits.len() - 4);
    format!("{}{int}.{frac}", if neg { "-" } else { "" })
}

/// `ld2string(LD_STR_HUMAN)` of a double: `%.17Lf` with trailing zeros
/// (and a bare point) removed, as GEOPOS and WITHCOORD print coordinates.
pub fn human(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf" } else { "-inf" }.into();
    }
    let mut s = format!("{d:.17}");
    if s.contains('.') {
        let trimmed = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(trimmed);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sicily() {
        assert_eq!(score_of(13.361389, 38.115556), Some(3479099956230698));
        assert_eq!(score_of(15.087269, 37.502669), Some(3479447370796909));
        let [lon, lat] = decode_score(3479099956230698.0);
        assert_eq!(human(lon), "13.36138933897018433");
        assert_eq!(human(lat), "38.11555639549629859");
        assert_eq!(&geohash_string(3479099956230698.0), b"sqc8b49rny0");
        assert_eq!(&geohash_string(3479447370796909.0), b"sqdtr74hyu0");
        let [lon2, lat2] = decode_score(3479447370796909.0);
        assert_eq!(fixed4(distance(lon, lat, lon2, lat2)), "166274.1516");
    }

    #[test]
    fn interleaving_round_trips() {
        for (x, y) in [
            (0u32, 0u32),
            (1, 0),
            (0, 1),
            (u32::MAX, 12345),
            (0x3ff_ffff, 7),
        ] {
            assert_eq!(
                deinterleave64(interleave64(x, y)),
                u64::from(x) | u64::from(y) << 32
            );
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for s in [
            -1.0,
            -1e300,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            4.5e15,
        ] {
            let _ = decode_score(s);
            let _ = geohash_string(s);
        }
        for r in [0.0, 1e-300, f64::INFINITY, 1e300] {
            let shape = Shape {
                xy: [0.0, 85.0],
                kind: ShapeKind::Circle(r),
                conversion: 1.0,
            };
            let _ = areas_by_shape(&shape);
            let shape = Shape {
                kind: ShapeKind::Box(r, r),
                ..shape
            };
            let _ = areas_by_shape(&shape);
        }
        assert_eq!(fixed4(f64::INFINITY), "-922337203685477.5808");
        assert_eq!(fixed4(1.23456), "1.2346");
        assert_eq!(fixed4(0.00004), "0.0000");
        assert_eq!(human(2.0), "2");
    }
}
