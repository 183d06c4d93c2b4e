//! The note explaining an encoding change seen between two views of a key: which limit the new value is past.

use serde::Serialize;

use super::view::*;

/// An encoding change between two views of the same key, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conversion {
    pub from: &'static str,
    pub to: &'static str,
    /// The limits the new value is past, worded for a reader; empty when
    /// no gauge explains the change (a STORE command's new value, 7.2's
    /// HSET sizing by argument count).
    pub reasons: Vec<String>,
}

impl Conversion {
    /// "converted to hashtable by HSET: 129 fields > hash-max-listpack-entries 128".
    pub fn describe(&self, by: Option<&str>) -> String {
        let mut s = format!("converted from {} to {}", self.from, self.to);
        if let Some(by) = by {
            s.push_str(" by ");
            s.push_str(by);
        }
        if !self.reasons.is_empty() {
            s.push_str(": ");
            s.push_str(&self.reasons.join("; "));
        }
        s
    }
}

/// A gauge's measure as a reason: "129 fields > hash-max-listpack-entries 128".
fn reason(g: &Gauge, value: u64) -> String {
    let measured = match g.unit {
        Unit::Entries => format!("{value} {}", g.what),
        Unit::Bytes => format!("{} of {value} bytes", g.what),
        Unit::Register => format!("{} {value}", g.what),
    };
    format!("{measured} > {} {}", g.param, g.limit)
}

/// What changed between `before` and `after` (views of the same key taken
/// around a command) if its collection encoding did. Strings are left
/// out: every string write builds a new object, so their encoding
/// changing is no conversion.
pub fn conversion(before: &KeyView, after: &KeyView) -> Option<Conversion> {
    if before.kind != after.kind || before.encoding == after.encoding || after.kind == "string" {
        // An HLL's sparse → dense promotion is the one string conversion.
        let hll = |v: &KeyView| match &v.body {
            Body::Hll(h) => Some(h.dense),
            _ => None,
        };
        return match (hll(before), hll(after)) {
            (Some(false), Some(true)) => Some(hll_promotion(before, after)),
            _ => None,
        };
    }
    let mut reasons = Vec::new();
    if before.encoding == "intset" {
        if let Body::Set {
            all_ints: Some(false),
            ..
        } = after.body
        {
            reasons.push("a member that is not an integer".to_string());
        }
    }
    if before.encoding == "quicklist" && after.encoding == "listpack" {
        if let Body::List(l) = &after.body {
            reasons.push(format!(
                "down to one node within half the node limit ({} bytes{})",
                l.node_max_bytes / 2,
                l.node_max_entries
                    .map(|n| format!(", {} entries", n / 2))
                    .unwrap_or_default()
            ));
        }
    }
    for g in &after.gauges {
        if g.to != after.encoding || !(g.from == before.encoding || before.encoding == "intset") {
            continue;
        }
        if let Some(v) = g.value.filter(|&v| v > g.limit) {
            reasons.push(reason(g, v));
        }
    }
    Some(Conversion {
        from: before.encoding,
        to: after.encoding,
        reasons,
    })
}

/// PFADD's promotion of a sparse HLL: a register past what a sparse
/// opcode holds, or the sparse form growing past `hll-sparse-max-bytes`.
fn hll_promotion(before: &KeyView, after: &KeyView) -> Conversion {
    let mut reasons = Vec::new();
    let find = |v: &KeyView, unit: Unit| v.gauges.iter().find(|g| g.unit == unit).cloned();
    if let Some(g) = find(after, Unit::Register).filter(|g| g.exceeded()) {
        reasons.push(reason(&g, g.value.unwrap_or(0)));
    } else if let (Some(b), Some(a)) = (find(before, Unit::Bytes), find(after, Unit::Bytes)) {
        reasons.push(format!(
            "the sparse form outgrew {} {} (it was {} bytes)",
            a.param,
            a.limit,
            b.value.unwrap_or(0)
        ));
    }
    Conversion {
        from: "sparse",
        to: "dense",
        reasons,
    }
}
