//! The slot subcommands of CLUSTER: ADDSLOTS, DELSLOTS and their RANGE forms, FLUSHSLOTS, SETSLOT, COUNTKEYSINSLOT, GETKEYSINSLOT and KEYSLOT, and the keys of a slot they read.

use super::state::{change, state};
use crate::cluster::{key_hash_slot, ClusterState, SLOTS};
use crate::cmd::args::{arg_i64, is, preview};
use crate::cmd::replies::reply;
use crate::cmd::table::Ctx;
use crate::proto::resp::{parse_i64, Frame};
use crate::server::Server;

/// `getSlotOrReply`.
fn slot_arg(arg: &[u8]) -> Result<u16, Frame> {
    match parse_i64(arg) {
        Some(s) if (0..SLOTS as i64).contains(&s) => Ok(s as u16),
        _ => Err(Frame::err("ERR Invalid or out of range slot")),
    }
}

/// ADDSLOTS, DELSLOTS, ADDSLOTSRANGE, DELSLOTSRANGE: every argument is
/// checked before any slot changes, in Redis' order (all parsed, then busy
/// or repeated slots in argument order).
pub(super) fn addslots(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    reply(addslots_inner(ctx, args))
}

fn addslots_inner(ctx: &mut Ctx, args: &[Vec<u8>]) -> Result<Frame, Frame> {
    let cl = state(ctx)?;
    let sub = args[1].to_ascii_lowercase();
    let del = sub.starts_with(b"del");
    let ranged = sub.ends_with(b"range");
    let mut ranges: Vec<(u16, u16)> = Vec::new();
    if ranged {
        if args.len() % 2 == 1 {
            return Err(Frame::err(format!(
                "ERR wrong number of arguments for 'cluster|{}' command",
                String::from_utf8_lossy(&sub)
            )));
        }
    } else {
        for a in &args[2..] {
            slot_arg(a)?;
        }
    }
    let mut seen = vec![false; SLOTS];
    let mut i = 2;
    while i < args.len() {
        let (start, end) = if ranged {
            let start = slot_arg(&args[i])?;
            let end = slot_arg(&args[i + 1])?;
            if start > end {
                return Err(Frame::err(format!(
                    "ERR start slot number {start} is greater than end slot number {end}"
                )));
            }
            i += 2;
            (start, end)
        } else {
            let s = slot_arg(&args[i])?;
            i += 1;
            (s, s)
        };
        for s in start..=end {
            let owned = cl.slots[s as usize].is_some();
            if del && !owned {
                return Err(Frame::err(format!("ERR Slot {s} is already unassigned")));
            }
            if !del && owned {
                return Err(Frame::err(format!("ERR Slot {s} is already busy")));
            }
            if std::mem::replace(&mut seen[s as usize], true) {
                return Err(Frame::err(format!("ERR Slot {s} specified multiple times")));
            }
        }
        ranges.push((start, end));
    }
    change(ctx, |cl| {
        let me = cl.myself as u16;
        for (s, pick) in seen.iter().enumerate() {
            if *pick {
                // Owning a slot ends its import.
                cl.importing.remove(&(s as u16));
                cl.slots[s] = if del { None } else { Some(me) };
            }
        }
    })?;
    Ok(Frame::ok())
}

/// Keys of database 0 in `slot`, newest first, as Redis' per-slot lists
/// keep them; keys with a pending TTL count until reclaimed, as in Redis.
pub fn keys_in_slot(srv: &Server, slot: u16) -> Vec<Vec<u8>> {
    let Some(cl) = srv.cluster.as_ref() else {
        return Vec::new();
    };
    let db = &srv.dbs[0];
    let mut out: Vec<Vec<u8>> = Vec::new();
    if let Some(order) = cl.slot_keys.get(&slot) {
        for k in order.iter().rev() {
            if db.dict.contains(k) {
                out.push(k.clone());
            }
        }
    }
    if out.len() != count_keys_in_slot(srv, slot) {
        // A key created by a path that bypassed `set_key`: append the rest.
        let mut rest: Vec<Vec<u8>> = db
            .dict
            .iter()
            .filter(|(k, _)| key_hash_slot(k) == slot && !out.iter().any(|o| o == k))
            .map(|(k, _)| k.to_vec())
            .collect();
        crate::sort::sort(&mut rest);
        out.extend(rest);
    }
    out
}

/// `countKeysInSlot` for database 0.
pub fn count_keys_in_slot(srv: &Server, slot: u16) -> usize {
    srv.dbs[0]
        .dict
        .iter()
        .filter(|(k, _)| key_hash_slot(k) == slot)
        .count()
}

pub(super) fn countkeysinslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let slot = match state(ctx).and_then(|_| arg_i64(&args[2])) {
        Ok(s) => s,
        Err(e) => return e,
    };
    if !(0..SLOTS as i64).contains(&slot) {
        return Frame::err("ERR Invalid slot");
    }
    Frame::Integer(count_keys_in_slot(ctx.srv, slot as u16) as i64)
}

pub(super) fn getkeysinslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    let (slot, max) = match (arg_i64(&args[2]), arg_i64(&args[3])) {
        (Err(e), _) | (_, Err(e)) => return e,
        (Ok(s), Ok(m)) => (s, m),
    };
    if !(0..SLOTS as i64).contains(&slot) || max < 0 {
        return Frame::err("ERR Invalid slot or number of keys");
    }
    let mut keys = keys_in_slot(ctx.srv, slot as u16);
    keys.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Frame::Array(keys.into_iter().map(Frame::Bulk).collect())
}

pub(super) fn keyslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match state(ctx) {
        Ok(_) => Frame::Integer(key_hash_slot(&args[2]) as i64),
        Err(e) => e,
    }
}

pub(super) fn flushslots(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if let Err(e) = state(ctx) {
        return e;
    }
    if !ctx.srv.dbs[0].is_empty() {
        return Frame::err("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
    }
    let r = change(ctx, |cl| {
        let me = Some(cl.myself as u16);
        for s in cl.slots.iter_mut().filter(|s| **s == me) {
            *s = None;
        }
    });
    reply(r.map(|_| Frame::ok()))
}

pub(super) fn setslot(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    reply(setslot_inner(ctx, args))
}

fn setslot_inner(ctx: &mut Ctx, args: &[Vec<u8>]) -> Result<Frame, Frame> {
    let cl = state(ctx)?;
    if !cl.is_master() {
        return Err(Frame::err("ERR Please use SETSLOT only with masters."));
    }
    let slot = slot_arg(&args[2])?;
    let action = &args[3];
    let node_arg = |cl: &ClusterState, unknown: &str| -> Result<usize, Frame> {
        let id = &args[4];
        let n = cl
            .lookup_node(id)
            .ok_or_else(|| Frame::err(format!("ERR {unknown} {}", preview(id, usize::MAX))))?;
        if cl.nodes[n].replica_of.is_some() {
            return Err(Frame::err("ERR Target node is not a master"));
        }
        Ok(n)
    };
    let me = cl.myself;
    if is(action, "migrating") && args.len() == 5 {
        if cl.owner(slot) != Some(me) {
            return Err(Frame::err(format!(
                "ERR I'm not the owner of hash slot {slot}"
            )));
        }
        let n = node_arg(cl, "I don't know about node")?;
        change(ctx, |cl| cl.migrating.insert(slot, n))?;
    } else if is(action, "importing") && args.len() == 5 {
        if cl.owner(slot) == Some(me) {
            return Err(Frame::err(format!(
                "ERR I'm already the owner of hash slot {slot}"
            )));
        }
        let n = node_arg(cl, "I don't know about node")?;
        change(ctx, |cl| cl.importing.insert(slot, n))?;
    } else if is(action, "stable") && args.len() == 4 {
        change(ctx, |cl| {
            cl.importing.remove(&slot);
            cl.migrating.remove(&slot);
        })?;
    } else if is(action, "node") && args.len() == 5 {
        let n = node_arg(cl, "Unknown node")?;
        let keys = count_keys_in_slot(ctx.srv, slot);
        let cl = state(ctx)?;
        if cl.owner(slot) == Some(me) && n != me && keys != 0 {
            return Err(Frame::err(format!(
                "ERR Can't assign hashslot {slot} to a different node while I still hold keys for this hash slot."
            )));
        }
        change(ctx, |cl| {
            if keys == 0 {
                cl.migrating.remove(&slot);
            }
            let was_mine = cl.owner(slot) == Some(me);
            cl.slots[slot as usize] = Some(n as u16);
            // A master left without slots becomes a replica of the new
            // owner (`cluster-allow-replica-migration`, on by default).
            if was_mine && n != me && cl.slot_count(me) == 0 {
                cl.nodes[me].replica_of = Some(n);
            }
            if n == me && cl.importing.remove(&slot).is_some() {
                // A manual import takes a new epoch so the claim wins.
                cl.bump_epoch();
            }
        })?;
    } else {
        return Err(Frame::err(
            "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP",
        ));
    }
    Ok(Frame::ok())
}
