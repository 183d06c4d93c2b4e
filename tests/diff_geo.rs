//! Differential tests of the GEO commands against a real redis-server: GEOADD's options and errors, positions, distances and geohashes, the radius and box searches with every option near the poles, the antimeridian and the equator, STORE and STOREDIST, every error, RESP3, and a seeded random stream of points and searches.

use redsim_engine::num::double::g17;
use redsim_engine::proto::resp::fmt_double;
use redsim_tests::{args, Frame, Pair};

/// Redis 7.0's `d2string` (the reference server's), which prints stored
/// scores with `%.17g` where 7.2, which redsim follows, prints the shortest
/// form: STOREDIST's distances show the difference.
fn d2string_70(v: f64) -> String {
    if v == 0.0 {
        if v.is_sign_negative() { "-0" } else { "0" }.into()
    } else if v.is_finite()
        && v > -4_503_599_627_370_495.0
        && v < 4_503_599_627_370_496.0
        && v == (v as i64) as f64
    {
        (v as i64).to_string()
    } else {
        g17(v)
    }
}

/// Equal replies, or a score 7.0 prints as `%.17g` and redsim as 7.2 does.
fn same(want: &Frame, got: &Frame) -> bool {
    match (want, got) {
        (Frame::Bulk(w), Frame::Bulk(g)) if w != g => {
            let (Ok(ws), Ok(gs)) = (std::str::from_utf8(w), std::str::from_utf8(g)) else {
                return false;
            };
            ws.parse::<f64>()
                .is_ok_and(|v| v.is_finite() && ws == d2string_70(v) && gs == fmt_double(v))
        }
        (Frame::Array(a), Frame::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        _ => want == got,
    }
}

/// Both servers, compared with [`same`].
fn pair() -> Pair {
    Pair::start(&[]).agreeing(same)
}

#[test]
fn add_pos_dist_hash() {
    let mut p = pair();
    p.corpus(
        "
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        ZRANGE Sicily 0 -1 WITHSCORES
        GEOPOS Sicily Palermo Catania NonExisting
        GEOPOS Sicily
        GEOPOS nokey a b
        GEODIST Sicily Palermo Catania
        GEODIST Sicily Palermo Catania km
        GEODIST Sicily Palermo Catania KM
        GEODIST Sicily Palermo Catania mi
        GEODIST Sicily Palermo Catania ft
        GEODIST Sicily Palermo Catania M
        GEODIST Sicily Palermo Palermo
        GEODIST Sicily Foo Bar
        GEODIST Sicily Palermo Bar
        GEODIST nokey a b
        GEODIST nokey a b parsecs
        GEODIST Sicily Palermo Catania parsecs
        GEODIST Sicily Palermo Catania km extra
        GEOHASH Sicily Palermo Catania missing
        GEOHASH Sicily
        GEOHASH nokey a
        GEOADD Sicily NX 13.361389 38.115556 Palermo 15 37 NewOne
        GEOADD Sicily XX 13.5 38.2 Palermo 15 37 Another
        GEOADD Sicily XX CH 13.6 38.3 Palermo 15 37 Another2
        GEOADD Sicily CH 13.6 38.3 Palermo 1 1 X
        GEOADD Sicily CH NX 13.7 38.3 Palermo
        GEOPOS Sicily Palermo NewOne Another X
        GEOADD Sicily NX XX 13 38 a
        GEOADD Sicily 13 38
        GEOADD Sicily 13 38 a 14
        GEOADD Sicily ch 13 38 a
        GEOADD Sicily 200 100 bad
        GEOADD Sicily 180.000001 0 bad
        GEOADD Sicily 0 85.05112879 bad
        GEOADD Sicily -180 -85.05112878 edge1 180 85.05112878 edge2
        GEOPOS Sicily edge1 edge2
        GEOHASH Sicily edge1 edge2
        GEOADD Sicily 0 0 origin -0 -0 negzero
        GEOPOS Sicily origin negzero
        GEOHASH Sicily origin
        GEOADD Sicily abc 0 x
        GEOADD Sicily 0 abc x
        GEOADD Sicily nan 0 x
        GEOADD Sicily inf 0 x
        GEOADD Sicily 0 -inf x
        GEOADD Sicily 1e400 0 x
        GEOADD Sicily 10 10 ok 200 0 bad
        GEOPOS Sicily ok
        SET str v
        GEOADD str 10 10 a
        GEOADD str 200 10 a
        GEOPOS str a
        GEOHASH str a
        GEODIST str a b
        GEODIST str a b parsecs
        ZADD plain -5 neg 1e300 huge 4503599627370496 top 4503599627370495 below 3.5 frac
        GEOPOS plain neg huge top below frac
        GEOHASH plain neg huge top below frac
        GEODIST plain neg huge
        GEOADD
        GEOADD k 1 2
        GEOPOS
        GEODIST k a
        ",
    );
}

#[test]
fn radius_searches() {
    let mut p = pair();
    p.corpus(
        "
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        GEOADD Sicily 13.583333 37.316667 Agrigento 12.758489 38.788135 edge1 17.241510 38.788135 edge2
        GEORADIUS Sicily 15 37 200 km
        GEORADIUS Sicily 15 37 200 km WITHDIST
        GEORADIUS Sicily 15 37 200 km WITHCOORD
        GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH
        GEORADIUS Sicily 15 37 200 km WITHHASH
        GEORADIUS Sicily 15 37 200 km ASC
        GEORADIUS Sicily 15 37 200 km DESC WITHDIST
        GEORADIUS Sicily 15 37 200 km COUNT 1
        GEORADIUS Sicily 15 37 200 km COUNT 2 DESC
        GEORADIUS Sicily 15 37 200 km COUNT 1 ANY
        GEORADIUS Sicily 15 37 200 km COUNT 3 ANY ASC
        GEORADIUS Sicily 15 37 200 km COUNT 99999999999
        GEORADIUS Sicily 15 37 200 km COUNT 0
        GEORADIUS Sicily 15 37 200 km COUNT -1
        GEORADIUS Sicily 15 37 200 km COUNT x
        GEORADIUS Sicily 15 37 200 km COUNT
        GEORADIUS Sicily 15 37 200 km ANY
        GEORADIUS Sicily 15 37 200 km BOGUS
        GEORADIUS Sicily 15 37 200 parsecs
        GEORADIUS Sicily 15 37 -1 km
        GEORADIUS Sicily 15 37 abc km
        GEORADIUS Sicily 15 37 nan km
        GEORADIUS Sicily 15 37 inf km
        GEORADIUS Sicily 15 37 0 km
        GEORADIUS Sicily 13.361389 38.115556 0 m
        GEORADIUS Sicily 13.361389 38.115556 1 m WITHDIST
        GEORADIUS Sicily 200 37 200 km
        GEORADIUS Sicily 15 x 200 km
        GEORADIUS Sicily 15 37 200 km STORE dst
        ZRANGE dst 0 -1 WITHSCORES
        GEORADIUS Sicily 15 37 200 km STOREDIST dst2
        ZRANGE dst2 0 -1 WITHSCORES
        GEORADIUS Sicily 15 37 200 km COUNT 2 DESC STOREDIST dst3
        ZRANGE dst3 0 -1 WITHSCORES
        GEORADIUS Sicily 15 37 200 km STORE dst STOREDIST dst4
        ZRANGE dst4 0 -1 WITHSCORES
        EXISTS dst
        GEORADIUS Sicily 15 37 1 m STORE dst4
        EXISTS dst4
        GEORADIUS Sicily 15 37 200 km STORE dst WITHDIST
        GEORADIUS Sicily 15 37 200 km STORE
        GEORADIUS_RO Sicily 15 37 200 km STORE dst
        GEORADIUS_RO Sicily 15 37 200 km WITHDIST ASC
        GEORADIUS nokey 15 37 200 km
        GEORADIUS nokey 15 37 200 km STORE dst
        EXISTS dst
        GEORADIUS nokey 200 37 200 km
        GEORADIUSBYMEMBER Sicily Agrigento 100 km
        GEORADIUSBYMEMBER Sicily Agrigento 100 km WITHDIST WITHCOORD ASC
        GEORADIUSBYMEMBER Sicily Palermo 200 km COUNT 2 WITHDIST
        GEORADIUSBYMEMBER Sicily Nobody 100 km
        GEORADIUSBYMEMBER Sicily Palermo -1 km
        GEORADIUSBYMEMBER Sicily Palermo 1 parsecs
        GEORADIUSBYMEMBER nokey Nobody -1 parsecs
        GEORADIUSBYMEMBER nokey Nobody -1 parsecs STORE dst
        GEORADIUSBYMEMBER nokey Nobody 1 km BOGUS
        GEORADIUSBYMEMBER Sicily Palermo 200 km STORE bm
        ZRANGE bm 0 -1 WITHSCORES
        GEORADIUSBYMEMBER_RO Sicily Palermo 200 km DESC
        GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STOREDIST x
        SET str v
        GEORADIUS str 15 37 200 km
        GEORADIUS str 200 37 200 km
        GEORADIUSBYMEMBER str a 1 km
        GEORADIUS Sicily 15 37 200 km STORE str
        TYPE str
        GEORADIUS Sicily 15 37 200 km
        GEORADIUS Sicily 15 37 200
        GEORADIUSBYMEMBER Sicily Palermo
        ",
    );
}

#[test]
fn geosearch() {
    let mut p = pair();
    p.corpus(
        "
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        GEOADD Sicily 12.758489 38.788135 edge1 17.241510 38.788135 edge2
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC WITHCOORD WITHDIST
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km
        GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km WITHHASH
        GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 200 200 mi DESC COUNT 2
        GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 0 0 m
        GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 0 m
        GEOSEARCH Sicily FROMMEMBER Nobody BYRADIUS 10 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1 ANY
        GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 200 km
        GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km BYBOX 1 1 km
        GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 1 1 km BYRADIUS 200 km
        GEOSEARCH Sicily FROMMEMBER Palermo WITHDIST
        GEOSEARCH Sicily BYRADIUS 200 km WITHDIST
        geosearch Sicily BYRADIUS 200 km WITHDIST
        GeoSearch Sicily FROMLONLAT 15 37 WITHDIST
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 x km
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 parsecs
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1
        GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS x km
        GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km
        GEOSEARCH Sicily FROMLONLAT 181 37 BYRADIUS 1 km
        GEOSEARCH Sicily FROMMEMBER
        GEOSEARCH nokey FROMMEMBER x BYRADIUS 1 km
        GEOSEARCH nokey FROMMEMBER x BYBOX 1 1 km
        GEOSEARCH nokey FROMLONLAT 200 0 BYBOX 1 1 km
        GEOSEARCH nokey FROMMEMBER x
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3
        ZRANGE dst 0 -1 WITHSCORES
        OBJECT ENCODING dst
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYBOX 400 400 km ASC COUNT 3 STOREDIST
        ZRANGE dst 0 -1 WITHSCORES
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 1 m
        EXISTS dst
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x
        GEOSEARCHSTORE dst nokey FROMLONLAT 15 37 BYRADIUS 200 km
        GEOSEARCHSTORE dst Sicily FROMMEMBER Palermo BYRADIUS 200 km STOREDIST
        ZRANGE dst 0 -1 WITHSCORES
        GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 10 km
        ZRANGE Sicily 0 -1
        GEOSEARCHSTORE dst Sicily FROMLONLAT 15 37
        ",
    );
}

#[test]
fn poles_antimeridian_equator_and_radii() {
    let mut p = pair();
    p.corpus(
        "
        GEOADD w 179.99 0 e1 -179.99 0 w1 179.999999 10 e2 -179.999999 10 w2 0 0 o 0.0001 0.0001 near
        GEOADD w 0 85.05 np1 90 85.0511 np2 -90 85 np3 180 85.05112878 np4 0 -85.05 sp1 10 -84.9 sp2
        GEOADD w 0 70 a70 50 70 b70 100 81 c81 -100 -81 d81 0.5 -0.5 eq1 -0.5 0.5 eq2
        GEORADIUS w 180 0 10 km WITHDIST ASC
        GEORADIUS w -180 0 10 km WITHDIST ASC
        GEORADIUS w 179.995 10 1 km WITHDIST
        GEOSEARCH w FROMLONLAT 180 0 BYBOX 5 5 km WITHDIST
        GEOSEARCH w FROMLONLAT -180 10 BYBOX 50 50 km WITHCOORD
        GEORADIUS w 0 85 100 km WITHDIST ASC
        GEORADIUS w 0 85 1000 km WITHDIST ASC
        GEORADIUS w 0 -85 1000 km WITHDIST ASC
        GEOSEARCH w FROMLONLAT 0 85 BYBOX 5000 500 km ASC
        GEORADIUS w 0 70 2000 km ASC WITHDIST
        GEORADIUS w 90 81 1500 km ASC WITHDIST
        GEORADIUS w 0 0 100 km ASC WITHDIST
        GEORADIUS w 0 0 1 m WITHDIST
        GEORADIUS w 0 0 0.000001 m WITHDIST
        GEORADIUS w 0 0 20 m WITHDIST
        GEORADIUS w 0 0 5000 km
        GEORADIUS w 0 0 10000 km
        GEORADIUS w 0 0 20000 km
        GEORADIUS w 0 0 30000 km ASC
        GEORADIUS w 0 0 1e10 km DESC
        GEORADIUS w 0 0 1e308 km
        GEORADIUS w 0 0 inf m
        GEORADIUS w 0 0 5000 mi COUNT 3
        GEOSEARCH w FROMLONLAT 0 0 BYBOX 40000 40000 km ASC
        GEOSEARCH w FROMLONLAT 0 0 BYBOX inf inf m
        GEOSEARCH w FROMLONLAT 0 0 BYBOX 1e308 1 m
        GEOSEARCH w FROMLONLAT 0 0 BYBOX 0.0003 20 km WITHDIST
        GEOSEARCH w FROMLONLAT 0 85.05112878 BYRADIUS 10 km
        GEOSEARCH w FROMLONLAT 180 85.05112878 BYRADIUS 100 km WITHCOORD
        GEORADIUSBYMEMBER w np4 500 km WITHCOORD ASC
        GEORADIUSBYMEMBER w e1 3000 km ASC
        GEORADIUSBYMEMBER w o 1 km COUNT 1 ANY WITHHASH
        GEOHASH w e1 w1 e2 w2 o near np1 np2 np3 np4 sp1 sp2 eq1 eq2
        GEOPOS w e1 w1 e2 w2 o near np1 np2 np3 np4 sp1 sp2 eq1 eq2
        GEODIST w e1 w1
        GEODIST w e2 w2 km
        GEODIST w np1 sp1 km
        GEODIST w o near ft
        GEODIST w np4 np1 mi
        ",
    );
}

#[test]
fn resp3_replies() {
    let mut p = pair().resp3();
    p.corpus(
        "
        GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
        GEOPOS Sicily Palermo missing Catania
        GEODIST Sicily Palermo missing
        GEODIST Sicily Palermo Catania km
        GEOHASH Sicily Palermo missing
        GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH ASC
        GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km WITHCOORD DESC
        GEODIST nokey a b
        ",
    );
}

/// A longitude brought back into [-180, 180) across the antimeridian
/// (clamping would pile points on one spot, whose equal distances Redis'
/// unstable sorts order arbitrarily).
fn wrap_lon(lon: f64) -> f64 {
    (lon + 180.0).rem_euclid(360.0) - 180.0
}

/// A latitude folded back inside [-85, 85].
fn fold_lat(lat: f64) -> f64 {
    let folded = if lat > 85.0 {
        170.0 - lat
    } else if lat < -85.0 {
        -170.0 - lat
    } else {
        lat
    };
    folded.clamp(-85.0, 85.0)
}

/// Random points (clustered or spread, across the antimeridian) and random
/// searches of every kind, each compared with Redis.
#[test]
fn random_points_and_searches() {
    let mut p = pair();
    let mut rng = fastrand::Rng::with_seed(0x6e0);
    let num = |rng: &mut fastrand::Rng, lo: f64, hi: f64| lo + rng.f64() * (hi - lo);
    let units = ["m", "km", "mi", "ft"];
    for round in 0..12 {
        let key = format!("g{round}");
        let (clon, clat) = (num(&mut rng, -180.0, 180.0), num(&mut rng, -80.0, 80.0));
        let spread = [0.01, 1.0, 20.0, 180.0][round % 4];
        let n = if round % 3 == 0 { 300 } else { 100 };
        let mut line = vec!["GEOADD".to_string(), key.clone()];
        for i in 0..n {
            let lon = wrap_lon(clon + num(&mut rng, -spread, spread));
            let lat = fold_lat(clat + num(&mut rng, -spread, spread));
            line.extend([format!("{lon:.6}"), format!("{lat:.6}"), format!("m{i}")]);
        }
        let refs: Vec<&str> = line.iter().map(String::as_str).collect();
        p.check_args(&args(&refs));
        for _ in 0..80 {
            let unit = units[rng.usize(..units.len())];
            let scale = match unit {
                "km" => 0.001,
                "mi" => 0.000621,
                "ft" => 3.28,
                _ => 1.0,
            };
            let size = spread * 111_000.0 * num(&mut rng, 0.05, 1.5) * scale;
            let from = if rng.bool() {
                let lon = (clon + num(&mut rng, -spread, spread)).clamp(-180.0, 180.0);
                let lat = (clat + num(&mut rng, -spread, spread)).clamp(-85.0, 85.0);
                format!("FROMLONLAT {lon:.5} {lat:.5}")
            } else {
                format!("FROMMEMBER m{}", rng.usize(..n))
            };
            let by = if rng.bool() {
                format!("BYRADIUS {size:.3} {unit}")
            } else {
                format!(
                    "BYBOX {size:.3} {:.3} {unit}",
                    size * num(&mut rng, 0.2, 3.0)
                )
            };
            let mut opts = String::new();
            for (word, chance) in [("WITHDIST", 2), ("WITHCOORD", 3), ("WITHHASH", 4)] {
                if rng.usize(..chance) == 0 {
                    opts += &format!(" {word}");
                }
            }
            match rng.usize(..4) {
                0 => opts += " ASC",
                1 => opts += " DESC",
                _ => {}
            }
            if rng.usize(..3) == 0 {
                opts += &format!(" COUNT {}", rng.usize(1..30));
                if rng.usize(..3) == 0 {
                    opts += " ANY";
                }
            }
            let line = format!("GEOSEARCH {key} {from} {by}{opts}");
            p.check(&line);
            if let Some(rest) = from.strip_prefix("FROMLONLAT ") {
                if let Some(radius) = by.strip_prefix("BYRADIUS ") {
                    p.check(&format!("GEORADIUS {key} {rest} {radius}{opts}"));
                }
            }
            let a = rng.usize(..n);
            let b = rng.usize(..n);
            p.check(&format!("GEODIST {key} m{a} m{b} {unit}"));
            p.check(&format!("GEOHASH {key} m{a} m{b}"));
            p.check(&format!("GEOPOS {key} m{a} m{b}"));
        }
        p.check(&format!(
            "GEOSEARCHSTORE dst {key} FROMMEMBER m0 BYRADIUS {} km STOREDIST",
            spread * 50.0
        ));
        p.check("ZRANGE dst 0 -1 WITHSCORES");
        p.check("OBJECT ENCODING dst");
        p.check(&format!(
            "GEORADIUSBYMEMBER {key} m1 {} km STORE dst2",
            spread * 500.0
        ));
        p.check("OBJECT ENCODING dst2");
        p.check("ZCARD dst2");
    }
}

/// The ten GEO entries agree with Redis' `COMMAND INFO` (arity, flags with
/// `movablekeys` for the two that may STORE, key positions, categories).
#[test]
fn command_table_matches_command_info() {
    let redis = redsim_tests::RedisServer::start(&[]);
    let mut c = redis.conn();
    let table = redsim_tests::group_commands("geo");
    assert_eq!(table.len(), 10, "every GEO command of Redis 7.2");
    redsim_tests::assert_command_table(&mut c, table, "geo");
}

/// Members on the same spots tie on distance: COUNT's partial sort
/// (`pqsort`) and the full sort (glibc's merge sort) leave them in Redis'
/// order.
#[test]
fn ties_keep_redis_order() {
    let mut p = pair();
    let mut rng = fastrand::Rng::with_seed(0x71e);
    for round in 0..8 {
        let key = format!("t{round}");
        let spots = rng.usize(1..6);
        let n = rng.usize(5..120);
        let mut line = vec!["GEOADD".to_string(), key.clone()];
        for i in 0..n {
            let s = rng.usize(..spots) as f64;
            line.extend([
                format!("{:.4}", 10.0 + s * 0.01),
                format!("{:.4}", 20.0 + s * 0.003),
                format!("p{i}"),
            ]);
        }
        let refs: Vec<&str> = line.iter().map(String::as_str).collect();
        p.check_args(&args(&refs));
        for order in ["ASC", "DESC"] {
            p.check(&format!("GEORADIUS {key} 10 20 100 km {order}"));
            for count in [1, 3, 7, 8, 41, n / 2 + 1, n] {
                p.check(&format!(
                    "GEORADIUS {key} 10 20 100 km COUNT {count} {order}"
                ));
                p.check(&format!(
                    "GEOSEARCH {key} FROMLONLAT 10.02 20.006 BYBOX 300 300 km COUNT {count} {order} WITHDIST"
                ));
            }
        }
        p.check(&format!("GEORADIUS {key} 10 20 100 km COUNT 4"));
    }
}

/// Each command counts the keyspace hits and misses Redis counts (one read
/// lookup of the source; GEOADD's write lookup counts none), and scripts
/// get the same replies.
#[test]
fn lookups_and_scripts() {
    let mut p = pair();
    p.check("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania");
    for line in [
        "GEOADD Sicily 13 38 x",
        "GEOADD fresh 13 38 x",
        "GEOPOS Sicily Palermo",
        "GEOPOS nokey a",
        "GEOHASH Sicily Palermo",
        "GEOHASH nokey a",
        "GEODIST Sicily Palermo Catania",
        "GEODIST nokey a b",
        "GEORADIUS Sicily 15 37 200 km",
        "GEORADIUS nokey 15 37 200 km",
        "GEORADIUS Sicily 15 37 200 km STORE dst",
        "GEORADIUSBYMEMBER Sicily Palermo 200 km",
        "GEORADIUSBYMEMBER nokey Palermo 200 km STORE dst",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km",
        "GEOSEARCH nokey FROMMEMBER Palermo BYRADIUS 200 km",
        "GEOSEARCHSTORE dst Sicily FROMMEMBER Palermo BYBOX 200 200 km",
        "GEOSEARCHSTORE dst nokey FROMMEMBER Palermo BYBOX 200 200 km",
        "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS -1 km",
    ] {
        p.same_lookups(line, |p| p.check(line));
    }
    p.corpus(
        "
        EVAL \"return redis.call('GEOPOS', KEYS[1], 'Palermo', 'none')\" 1 Sicily
        EVAL \"return redis.call('GEORADIUS', KEYS[1], 15, 37, 200, 'km', 'WITHDIST', 'WITHCOORD', 'ASC')\" 1 Sicily
        EVAL \"return redis.call('GEODIST', KEYS[1], 'Palermo', 'Catania', 'km')\" 1 Sicily
        EVAL \"return redis.pcall('GEOADD', KEYS[1], 200, 100, 'x')\" 1 Sicily
        EVAL \"redis.setresp(3); return redis.call('GEOPOS', KEYS[1], 'Palermo')\" 1 Sicily
        MULTI
        GEOADD Sicily 1 1 m1
        GEOSEARCH Sicily FROMMEMBER m1 BYRADIUS 1 km WITHCOORD
        EXEC
        ",
    );
}
