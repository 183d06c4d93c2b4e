//! `client-output-buffer-limit`: the hard limit, soft limit and soft seconds of each client class (normal, replica, pubsub), read and shown as Redis 7.2's config.c does.

/// The classes a limit applies to, in `CLIENT_TYPE_*` order (CONFIG GET's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObufClass {
    Normal = 0,
    /// `slave`, also spelt `replica`. The engine has no replica connections
    /// (replication is carried by drivers), so this class is kept for CONFIG.
    Replica = 1,
    /// A client subscribed to any channel, pattern or shard channel.
    PubSub = 2,
}

/// One class's limits (`clientBufferLimitsConfig`); 0 switches a limit off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObufLimit {
    pub hard_bytes: u64,
    pub soft_bytes: u64,
    /// How long (whole seconds of `server.unixtime`) the soft limit may be
    /// exceeded before the client is closed.
    pub soft_seconds: i64,
}

/// Every class's limits, indexed by [`ObufClass`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObufLimits(pub [ObufLimit; 3]);

/// The names CONFIG GET shows (`getClientTypeName`).
const NAMES: [&str; 3] = ["normal", "slave", "pubsub"];

impl Default for ObufLimits {
    /// `clientBufferLimitsDefaults`: none for normal clients, 256mb/64mb/60
    /// for replicas, 32mb/8mb/60 for Pub/Sub.
    fn default() -> Self {
        let mb = 1024 * 1024;
        ObufLimits([
            ObufLimit {
                hard_bytes: 0,
                soft_bytes: 0,
                soft_seconds: 0,
            },
            ObufLimit {
                hard_bytes: 256 * mb,
                soft_bytes: 64 * mb,
                soft_seconds: 60,
            },
            ObufLimit {
                hard_bytes: 32 * mb,
                soft_bytes: 8 * mb,
                soft_seconds: 60,
            },
        ])
    }
}

impl ObufLimits {
    /// The limits of `class`.
    pub fn of(&self, class: ObufClass) -> ObufLimit {
        self.0[class as usize]
    }
}

/// `getConfigClientOutputBufferLimitOption`: `normal 0 0 0 slave ... pubsub ...`.
pub fn show(l: &ObufLimits) -> String {
    let parts: Vec<String> =
        l.0.iter()
            .zip(NAMES)
            .map(|(c, n)| format!("{n} {} {} {}", c.hard_bytes, c.soft_bytes, c.soft_seconds))
            .collect();
    parts.join(" ")
}

/// `updateClientOutputBufferLimit` after `performInterfaceSet` split the
/// value on single spaces (so two spaces make an empty argument): groups
/// of `class hard soft soft_seconds`, all checked before any is applied;
/// classes not named keep their limits, and an empty value changes nothing.
pub fn update(l: &mut ObufLimits, v: &str) -> Result<(), String> {
    let args: Vec<&str> = if v.is_empty() {
        Vec::new()
    } else {
        v.split(' ').collect()
    };
    if !args.len().is_multiple_of(4) {
        return Err("Wrong number of arguments in buffer limit configuration.".into());
    }
    let mut next = *l;
    for g in args.chunks(4) {
        let class = match g[0].to_ascii_lowercase().as_str() {
            "normal" => ObufClass::Normal,
            "slave" | "replica" => ObufClass::Replica,
            "pubsub" => ObufClass::PubSub,
            _ => {
                return Err("Invalid client class specified in buffer limit configuration.".into())
            }
        };
        let hard = super::memunits::parse_memory(g[1]);
        let soft = super::memunits::parse_memory(g[2]);
        let secs = strtoll_whole(g[3]).map(|n| n as i32);
        match (hard, soft, secs) {
            (Some(hard_bytes), Some(soft_bytes), Some(s)) if s >= 0 => {
                next.0[class as usize] = ObufLimit {
                    hard_bytes,
                    soft_bytes,
                    soft_seconds: s as i64,
                };
            }
            _ => {
                return Err(
                    "Error in hard, soft or soft_seconds setting in buffer limit configuration."
                        .into(),
                )
            }
        }
    }
    *l = next;
    Ok(())
}

/// `strtoll(s, &end, 10)` that must consume the whole string: leading
/// white space and a sign allowed, saturating at the `long long` bounds;
/// no digits at all reads as 0 and leaves `end` at the start, so only the
/// empty string passes that way.
fn strtoll_whole(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let mut i = b
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count();
    let neg = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return s.is_empty().then_some(0);
    }
    if i + digits != b.len() {
        return None;
    }
    let mut n: i128 = 0;
    for &d in &b[i..] {
        n = (n * 10 + (d - b'0') as i128).min(i64::MAX as i128 + 1);
    }
    let n = if neg { -n } else { n };
    Some(n.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERR_NUM: &str =
        "Error in hard, soft or soft_seconds setting in buffer limit configuration.";

    #[test]
    fn defaults_show_as_redis_does() {
        assert_eq!(
            show(&ObufLimits::default()),
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
        );
    }

    #[test]
    fn classes_are_set_whole_and_alone() {
        let mut l = ObufLimits::default();
        update(&mut l, "PubSub 1mb 512kb 5 replica 1gb 0 +7").unwrap();
        assert_eq!(
            show(&l),
            "normal 0 0 0 slave 1073741824 0 7 pubsub 1048576 524288 5"
        );
        // An empty value changes nothing; the last group of a class wins.
        update(&mut l, "").unwrap();
        update(&mut l, "normal 1 2 3 normal 4 5 6").unwrap();
        assert_eq!(l.of(ObufClass::Normal).hard_bytes, 4);
        // `memtoull` and `strtoll` read nothing as 0.
        update(&mut l, "normal   ").unwrap();
        assert_eq!(
            l.of(ObufClass::Normal),
            ObufLimit {
                hard_bytes: 0,
                soft_bytes: 0,
                soft_seconds: 0
            }
        );
    }

    #[test]
    fn bad_input_gives_redis_errors_and_changes_nothing() {
        let mut l = ObufLimits::default();
        let before = l;
        let wrong = "Wrong number of arguments in buffer limit configuration.";
        let class = "Invalid client class specified in buffer limit configuration.";
        for (v, err) in [
            ("pubsub 1mb 1mb", wrong),
            ("pubsub  1mb 1mb 0", wrong),
            ("master 0 0 0", class),
            ("pubsub 0 0 0 bogus 0 0 0", class),
            ("pubsub 1.5mb 0 0", ERR_NUM),
            ("pubsub 0 -1 0", ERR_NUM),
            ("pubsub 0 0 -1", ERR_NUM),
            ("pubsub 0 0 5s", ERR_NUM),
            ("pubsub 0 0 \t", ERR_NUM),
            // Past `int`: the cast wraps to a negative number.
            ("pubsub 0 0 2147483648", ERR_NUM),
            ("normal 1 1 1 pubsub 0 0 x", ERR_NUM),
        ] {
            assert_eq!(update(&mut l, v), Err(err.to_string()), "{v:?}");
            assert_eq!(l, before, "{v:?}");
        }
        // The cast keeps the low 32 bits: 2^32 + 1 seconds is 1.
        update(&mut l, "pubsub 0 0 4294967297").unwrap();
        assert_eq!(l.of(ObufClass::PubSub).soft_seconds, 1);
        update(&mut l, "pubsub 0 0 \t9").unwrap();
        assert_eq!(l.of(ObufClass::PubSub).soft_seconds, 9);
    }
}
