//! The GEO commands (geo.c): points stored as sorted-set members scored by their 52-bit geohash; GEOADD, GEOPOS, GEODIST, GEOHASH, and the searches (GEORADIUS, GEORADIUSBYMEMBER and their `_RO` forms, GEOSEARCH, GEOSEARCHSTORE) with Redis 7.2's parsing, error order and reply formats.
//!
//! A search walks the nine geohash cells around the centre in Redis'
//! order, each as a score range of the sorted set, so unsorted replies come
//! in Redis' order too. Coordinates print as `%.17Lf` trimmed (RESP2 bulk
//! strings; RESP3 doubles carry the same value, spelt shortest), distances
//! with four decimals.

mod hash;
mod pqsort;

use std::cmp::Ordering;

use hash::{Shape, ShapeKind};

use crate::cmd::args::{arg_i64, cstr, opt_is, NOT_FLOAT, SYNTAX};
use crate::cmd::table::{commands, Command, Ctx};
use crate::cmd::typed::peek;
use crate::cmd::zset::{add::zadd, limits, store_result};
use crate::keyspace::types::zset::{ScoreRange, ZSet};
use crate::num::double::string2d;
use crate::proto::resp::Frame;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "geo";
    "geoadd" => geoadd, arity: -5, flags: [WRITE, DENYOOM], keys: (1, 1, 1), acl: [WRITE, GEO, SLOW], since: "3.2.0",
        syntax: "GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]",
        summary: "Adds one or more members to a geospatial index. The key is created if it doesn't exist.";
    "geodist" => geodist, arity: -4, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "3.2.0",
        syntax: "GEODIST key member1 member2 [M | KM | FT | MI]",
        summary: "Returns the distance between two members of a geospatial index.";
    "geohash" => geohash, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "3.2.0",
        syntax: "GEOHASH key [member [member ...]]",
        summary: "Returns members from a geospatial index as geohash strings.";
    "geopos" => geopos, arity: -2, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "3.2.0",
        syntax: "GEOPOS key [member [member ...]]",
        summary: "Returns the longitude and latitude of members from a geospatial index.";
    "georadius" => georadius, arity: -6, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, GEO, SLOW], since: "3.2.0",
        syntax: "GEORADIUS key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]",
        summary: "Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.";
    "georadiusbymember" => georadiusbymember, arity: -5, flags: [WRITE, DENYOOM, MOVABLEKEYS], keys: (1, 1, 1), acl: [WRITE, GEO, SLOW], since: "3.2.0",
        syntax: "GEORADIUSBYMEMBER key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]",
        summary: "Queries a geospatial index for members within a distance from a member, optionally stores the result.";
    "georadius_ro" => georadius_ro, arity: -6, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "3.2.10",
        syntax: "GEORADIUS_RO key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]",
        summary: "Returns members from a geospatial index that are within a distance from a coordinate.";
    "georadiusbymember_ro" => georadiusbymember_ro, arity: -5, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "3.2.10",
        syntax: "GEORADIUSBYMEMBER_RO key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]",
        summary: "Returns members from a geospatial index that are within a distance from a member.";
    "geosearch" => geosearch, arity: -7, flags: [READONLY], keys: (1, 1, 1), acl: [READ, GEO, SLOW], since: "6.2.0",
        syntax: "GEOSEARCH key FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]",
        summary: "Queries a geospatial index for members inside an area of a box or a circle.";
    "geosearchstore" => geosearchstore, arity: -8, flags: [WRITE, DENYOOM], keys: (1, 2, 1), acl: [WRITE, GEO, SLOW], since: "6.2.0",
        syntax: "GEOSEARCHSTORE destination source FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [STOREDIST]",
        summary: "Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.";
};

/// `getDoubleFromObjectOrReply`: Redis' `string2d`, or `ERR {msg}`.
fn double_arg(arg: &[u8], msg: Option<&str>) -> Result<f64, Frame> {
    string2d(arg).ok_or_else(|| match msg {
        Some(m) => Frame::err(format!("ERR {m}")),
        None => Frame::err(NOT_FLOAT),
    })
}

/// `extractLongLatOrReply`: both numbers, then the range check.
fn lonlat_arg(args: &[Vec<u8>]) -> Result<[f64; 2], Frame> {
    let lon = double_arg(&args[0], None)?;
    let lat = double_arg(&args[1], None)?;
    if !(hash::LONG_MIN..=hash::LONG_MAX).contains(&lon)
        || !(hash::LAT_MIN..=hash::LAT_MAX).contains(&lat)
    {
        return Err(Frame::err(format!(
            "ERR invalid longitude,latitude pair {lon:.6},{lat:.6}"
        )));
    }
    Ok([lon, lat])
}

/// `extractUnitOrReply`: a unit's size in metres.
fn unit_arg(arg: &[u8]) -> Result<f64, Frame> {
    [("m", 1.0), ("km", 1000.0), ("ft", 0.3048), ("mi", 1609.34)]
        .iter()
        .find(|(u, _)| opt_is(arg, u))
        .map(|&(_, v)| v)
        .ok_or_else(|| Frame::err("ERR unsupported unit provided. please use M, KM, FT, MI"))
}

/// `extractDistanceOrReply`: (radius, unit size).
fn radius_arg(args: &[Vec<u8>]) -> Result<(f64, f64), Frame> {
    let r = double_arg(&args[0], Some("need numeric radius"))?;
    if r < 0.0 {
        return Err(Frame::err("ERR radius cannot be negative"));
    }
    Ok((r, unit_arg(&args[1])?))
}

/// `extractBoxOrReply`: (width, height, unit size).
fn box_arg(args: &[Vec<u8>]) -> Result<(f64, f64, f64), Frame> {
    let w = double_arg(&args[0], Some("need numeric width"))?;
    let h = double_arg(&args[1], Some("need numeric height"))?;
    if h < 0.0 || w < 0.0 {
        return Err(Frame::err("ERR height or width cannot be negative"));
    }
    Ok((w, h, unit_arg(&args[2])?))
}

/// A member's stored position, if it is in the set at `key`.
fn member_pos(ctx: &Ctx, key: &[u8], member: &[u8]) -> Option<[f64; 2]> {
    let score = peek::<ZSet>(ctx.srv, ctx.db(), key)?.score(member)?;
    Some(hash::decode_score(score))
}

/// A coordinate as `addReplyHumanLongDouble` sends it.
fn coord(d: f64, resp3: bool) -> Frame {
    let text = hash::human(d);
    if resp3 {
        Frame::Double(text.parse().unwrap_or(d))
    } else {
        Frame::Bulk(text.into_bytes())
    }
}

/// GEOADD: options as GEOADD reads them, then every coordinate pair, then
/// ZADD with the scores (which reads its options again, checks the key and
/// replies).
fn geoadd(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let (mut nx, mut xx) = (false, false);
    let mut idx = 2;
    while let Some(opt) = args.get(idx) {
        if opt_is(opt, "nx") {
            nx = true;
        } else if opt_is(opt, "xx") {
            xx = true;
        } else if !opt_is(opt, "ch") {
            break;
        }
        idx += 1;
    }
    if !(args.len() - idx).is_multiple_of(3) || (xx && nx) {
        return Frame::err(SYNTAX);
    }
    let mut zargs: Vec<Vec<u8>> = Vec::with_capacity(idx + (args.len() - idx) / 3 * 2);
    zargs.push(b"zadd".to_vec());
    zargs.extend(args[1..idx].iter().cloned());
    for triple in args[idx..].chunks_exact(3) {
        let [lon, lat] = match lonlat_arg(&triple[..2]) {
            Ok(xy) => xy,
            Err(e) => return e,
        };
        let score = hash::score_of(lon, lat).unwrap_or(0);
        zargs.push(score.to_string().into_bytes());
        zargs.push(triple[2].clone());
    }
    // Replicas get the ZADD it becomes.
    let refs: Vec<&[u8]> = zargs.iter().map(|a| a.as_slice()).collect();
    ctx.propagate_as(&refs);
    zadd(ctx, &zargs)
}

/// GEOPOS: `[lon, lat]` per member, a null array for a missing one.
fn geopos(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let exists = match ctx.read_exists::<ZSet>(&args[1]) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let resp3 = ctx.client.resp >= 3;
    Frame::Array(
        args[2..]
            .iter()
            .map(
                |m| match exists.then(|| member_pos(ctx, &args[1], m)).flatten() {
                    Some([lon, lat]) => Frame::Array(vec![coord(lon, resp3), coord(lat, resp3)]),
                    None => Frame::NullArray,
                },
            )
            .collect(),
    )
}

/// GEOHASH: the 11-character standard geohash per member, nil if missing.
fn geohash(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = ctx.read::<ZSet>(&args[1]) {
        return e;
    }
    let z = peek::<ZSet>(ctx.srv, ctx.db(), &args[1]);
    Frame::Array(
        args[2..]
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                Some(s) => Frame::bulk(hash::geohash_string(s)),
                None => Frame::Null,
            })
            .collect(),
    )
}

/// GEODIST: the unit first, then the key (nil if missing), then the members.
fn geodist(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let to_meter = match args.len() {
        5 => match unit_arg(&args[4]) {
            Ok(u) => u,
            Err(e) => return e,
        },
        4 => 1.0,
        _ => return Frame::err(SYNTAX),
    };
    match ctx.read::<ZSet>(&args[1]) {
        Err(e) => return e,
        Ok(None) => return Frame::Null,
        Ok(Some(_)) => {}
    }
    match (
        member_pos(ctx, &args[1], &args[2]),
        member_pos(ctx, &args[1], &args[3]),
    ) {
        (Some([x1, y1]), Some([x2, y2])) => {
            Frame::bulk(hash::fixed4(hash::distance(x1, y1, x2, y2) / to_meter))
        }
        _ => Frame::Null,
    }
}

/// Which command of the search family runs (`RADIUS_COORDS` and friends).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// GEORADIUS (`nostore`: the `_RO` form).
    Coords { nostore: bool },
    /// GEORADIUSBYMEMBER.
    Member { nostore: bool },
    /// GEOSEARCH, or GEOSEARCHSTORE with `store`.
    Geo { store: bool },
}

fn georadius(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 1, Kind::Coords { nostore: false })
}

fn georadiusbymember(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 1, Kind::Member { nostore: false })
}

fn georadius_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 1, Kind::Coords { nostore: true })
}

fn georadiusbymember_ro(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 1, Kind::Member { nostore: true })
}

fn geosearch(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 1, Kind::Geo { store: false })
}

fn geosearchstore(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    search(ctx, args, 2, Kind::Geo { store: true })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    None,
    Asc,
    Desc,
}

/// One match (`geoPoint`).
#[derive(Clone)]
struct Point {
    xy: [f64; 2],
    dist: f64,
    score: f64,
    member: Vec<u8>,
}

/// What a search was asked, once parsed.
struct Request<'a> {
    shape: Shape,
    withdist: bool,
    withhash: bool,
    withcoord: bool,
    sort: Sort,
    any: bool,
    count: i64,
    store: Option<&'a [u8]>,
    storedist: bool,
}

/// `georadiusGeneric`'s parsing, in its order: the key's type, the fixed
/// arguments, then the options left to right, then the checks across them.
/// Also says whether the source key exists: when it does not, BYMEMBER's
/// radius and FROMMEMBER's member are never read, as in Redis.
fn parse<'a>(
    ctx: &mut Ctx,
    args: &'a [Vec<u8>],
    src: usize,
    kind: Kind,
) -> Result<(bool, Request<'a>), Frame> {
    let key = &args[src];
    let exists = ctx.read_exists::<ZSet>(key)?;
    let mut shape = Shape {
        xy: [0.0, 0.0],
        kind: ShapeKind::Circle(0.0),
        conversion: 0.0,
    };
    let mut store: Option<&[u8]> = None;
    let base = match kind {
        Kind::Coords { .. } => {
            shape.xy = lonlat_arg(&args[2..4])?;
            let (r, conv) = radius_arg(&args[4..6])?;
            (shape.kind, shape.conversion) = (ShapeKind::Circle(r), conv);
            6
        }
        Kind::Member { .. } if !exists => 5,
        Kind::Member { .. } => {
            shape.xy = member_pos(ctx, key, &args[2])
                .ok_or_else(|| Frame::err("ERR could not decode requested zset member"))?;
            let (r, conv) = radius_arg(&args[3..5])?;
            (shape.kind, shape.conversion) = (ShapeKind::Circle(r), conv);
            5
        }
        Kind::Geo { store: false } => 2,
        Kind::Geo { store: true } => {
            store = Some(&args[1]);
            3
        }
    };
    let nostore = matches!(
        kind,
        Kind::Coords { nostore: true } | Kind::Member { nostore: true }
    );
    let geosearch = matches!(kind, Kind::Geo { .. });
    let searchstore = kind == Kind::Geo { store: true };
    let mut req = Request {
        shape,
        withdist: false,
        withhash: false,
        withcoord: false,
        sort: Sort::None,
        any: false,
        count: 0,
        store,
        storedist: false,
    };
    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let rest = &args[base.min(args.len())..];
    let remaining = rest.len();
    let mut i = 0;
    while i < remaining {
        let a = &rest[i];
        if opt_is(a, "withdist") {
            req.withdist = true;
        } else if opt_is(a, "withhash") {
            req.withhash = true;
        } else if opt_is(a, "withcoord") {
            req.withcoord = true;
        } else if opt_is(a, "any") {
            req.any = true;
        } else if opt_is(a, "asc") {
            req.sort = Sort::Asc;
        } else if opt_is(a, "desc") {
            req.sort = Sort::Desc;
        } else if opt_is(a, "count") && i + 1 < remaining {
            req.count = arg_i64(&rest[i + 1])?;
            if req.count <= 0 {
                return Err(Frame::err("ERR COUNT must be > 0"));
            }
            i += 1;
        } else if (opt_is(a, "store") || opt_is(a, "storedist"))
            && i + 1 < remaining
            && !nostore
            && !geosearch
        {
            req.store = Some(&rest[i + 1]);
            req.storedist = opt_is(a, "storedist");
            i += 1;
        } else if opt_is(a, "storedist") && searchstore {
            req.storedist = true;
        } else if opt_is(a, "frommember") && i + 1 < remaining && geosearch && !fromloc {
            if exists {
                req.shape.xy = member_pos(ctx, key, &rest[i + 1])
                    .ok_or_else(|| Frame::err("ERR could not decode requested zset member"))?;
            }
            frommember = true;
            i += 1;
        } else if opt_is(a, "fromlonlat") && i + 2 < remaining && geosearch && !frommember {
            req.shape.xy = lonlat_arg(&rest[i + 1..i + 3])?;
            fromloc = true;
            i += 2;
        } else if opt_is(a, "byradius") && i + 2 < remaining && geosearch && !bybox {
            let (r, conv) = radius_arg(&rest[i + 1..i + 3])?;
            (req.shape.kind, req.shape.conversion) = (ShapeKind::Circle(r), conv);
            byradius = true;
            i += 2;
        } else if opt_is(a, "bybox") && i + 3 < remaining && geosearch && !byradius {
            let (w, h, conv) = box_arg(&rest[i + 1..i + 4])?;
            (req.shape.kind, req.shape.conversion) = (ShapeKind::Box(w, h), conv);
            bybox = true;
            i += 3;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        i += 1;
    }
    if req.store.is_some() && (req.withdist || req.withhash || req.withcoord) {
        return Err(Frame::err(format!(
            "ERR {} is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
            if searchstore {
                "GEOSEARCHSTORE"
            } else {
                "STORE option in GEORADIUS"
            }
        )));
    }
    let name = String::from_utf8_lossy(cstr(&args[0]));
    if geosearch && !(frommember || fromloc) {
        return Err(Frame::err(format!(
            "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for {name}"
        )));
    }
    if geosearch && !(byradius || bybox) {
        return Err(Frame::err(format!(
            "ERR exactly one of BYRADIUS and BYBOX can be specified for {name}"
        )));
    }
    if req.any && req.count == 0 {
        return Err(Frame::err("ERR the ANY argument requires COUNT argument"));
    }
    Ok((exists, req))
}

/// `membersOfAllNeighbors`: the matches in the nine cells, in Redis'
/// order, stopping once `limit` (ANY's count; 0: none) is reached.
fn collect(z: &ZSet, shape: &Shape, limit: u64) -> Vec<Point> {
    let cells = hash::areas_by_shape(shape);
    let mut out: Vec<Point> = Vec::new();
    let full = |out: &Vec<Point>| limit != 0 && !out.is_empty() && out.len() as u64 >= limit;
    let mut last = 0;
    for (i, cell) in cells.iter().enumerate() {
        if cell.is_zero() {
            continue;
        }
        // Huge radii make neighbours repeat: skip one equal to the last
        // cell walked (Redis' test, which never compares with the centre).
        if last != 0 && *cell == cells[last] {
            continue;
        }
        if full(&out) {
            break;
        }
        let min = cell.align52();
        let max = hash::Bits {
            bits: cell.bits + 1,
            step: cell.step,
        }
        .align52();
        let range = ScoreRange {
            min: min as f64,
            max: max as f64,
            minex: false,
            maxex: true,
        };
        for (member, score) in z.range_by_score(&range, 0, -1, false) {
            let xy = hash::decode_score(score);
            if let Some(dist) = hash::within(shape, xy) {
                out.push(Point {
                    xy,
                    dist,
                    score,
                    member,
                });
            }
            if full(&out) {
                break;
            }
        }
        last = i;
    }
    out
}

/// `georadiusGeneric`: every search command, `src` being its source key's
/// index. A missing source empties (deletes) a STORE destination; COUNT
/// without ANY or an order sorts ascending, since the nearest are wanted.
fn search(ctx: &mut Ctx, args: &[Vec<u8>], src: usize, kind: Kind) -> Frame {
    let event = if matches!(kind, Kind::Geo { .. }) {
        "geosearchstore"
    } else {
        "georadiusstore"
    };
    let (exists, mut req) = match parse(ctx, args, src, kind) {
        Ok(p) => p,
        Err(e) => return e,
    };
    if !exists {
        return match req.store {
            Some(dst) => store_result(ctx, dst, None, event),
            None => Frame::Array(Vec::new()),
        };
    }
    if req.count != 0 && req.sort == Sort::None && !req.any {
        req.sort = Sort::Asc;
    }
    let Some(z) = peek::<ZSet>(ctx.srv, ctx.db(), &args[src]) else {
        return Frame::Array(Vec::new());
    };
    let limit = if req.any { req.count as u64 } else { 0 };
    let mut points = collect(z, &req.shape, limit);
    if points.is_empty() && req.store.is_none() {
        return Frame::Array(Vec::new());
    }
    let returned = if req.count == 0 {
        points.len()
    } else {
        points
            .len()
            .min(usize::try_from(req.count).unwrap_or(usize::MAX))
    };
    if req.sort != Sort::None {
        let desc = req.sort == Sort::Desc;
        // `sort_gp_asc` (NaN compares as smaller both ways) and its negation.
        let cmp = |a: &Point, b: &Point| {
            let asc = if a.dist > b.dist {
                Ordering::Greater
            } else if a.dist == b.dist {
                Ordering::Equal
            } else {
                Ordering::Less
            };
            if desc {
                asc.reverse()
            } else {
                asc
            }
        };
        if returned == points.len() {
            pqsort::msort(&mut points, &cmp);
        } else if returned > 0 {
            pqsort::pqsort(&mut points, &cmp, 0, returned - 1);
        }
    }
    points.truncate(returned);
    let conversion = req.shape.conversion;
    if let Some(dst) = req.store {
        let lim = limits(&ctx.srv.config);
        let maxlen = points.iter().map(|p| p.member.len()).max().unwrap_or(0);
        let rng = &mut ctx.srv.rng;
        let result = (!points.is_empty()).then(|| {
            let mut out = ZSet::create(points.len(), maxlen, lim, rng);
            for p in &points {
                let score = if req.storedist {
                    p.dist / conversion
                } else {
                    p.score
                };
                out.push_new(&p.member, score, lim, rng);
            }
            out
        });
        return store_result(ctx, dst, result, event);
    }
    let resp3 = ctx.client.resp >= 3;
    let with = req.withdist || req.withhash || req.withcoord;
    Frame::Array(
        points
            .into_iter()
            .map(|p| {
                if !with {
                    return Frame::Bulk(p.member);
                }
                let mut item = vec![Frame::Bulk(p.member)];
                if req.withdist {
                    item.push(Frame::bulk(hash::fixed4(p.dist / conversion)));
                }
                if req.withhash {
                    item.push(Frame::Integer(hash::c_i64(p.score)));
                }
                if req.withcoord {
                    item.push(Frame::Array(vec![
                        coord(p.xy[0], resp3),
                        coord(p.xy[1], resp3),
                    ]));
                }
                Frame::Array(item)
            })
            .collect(),
    )
}

/// `georadiusGetKeys`: the source key, and the key after the last STORE or
/// STOREDIST from the sixth argument on (the fifth for BYMEMBER counts
/// from the same place, as Redis does).
pub fn georadius_keys(args: &[Vec<u8>]) -> Vec<usize> {
    let mut stored = None;
    let mut i = 5;
    while i < args.len() {
        if (opt_is(&args[i], "store") || opt_is(&args[i], "storedist")) && i + 1 < args.len() {
            stored = Some(i + 1);
            i += 1;
        }
        i += 1;
    }
    std::iter::once(1).chain(stored).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn store_keys_are_found_as_georadius_get_keys_finds_them() {
        assert_eq!(georadius_keys(&argv("GEORADIUS k 1 2 3 km")), [1]);
        assert_eq!(
            georadius_keys(&argv("GEORADIUS k 1 2 3 km STORE d")),
            [1, 7]
        );
        assert_eq!(
            georadius_keys(&argv("GEORADIUS k 1 2 3 km STORE d STOREDIST e")),
            [1, 9]
        );
        assert_eq!(georadius_keys(&argv("GEORADIUS k 1 2 3 km STORE")), [1]);
        assert_eq!(
            georadius_keys(&argv("GEORADIUSBYMEMBER k m 3 km store d")),
            [1, 6]
        );
    }
}
