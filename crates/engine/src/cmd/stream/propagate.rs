//! How consumer-group reads and claims reach replicas (t_stream.c's `streamPropagate*`): each delivery or claim as `XCLAIM ... FORCE JUSTID LASTID`, a NOACK read's new position as `XGROUP SETID`, and the consumer it created as `XGROUP CREATECONSUMER`; the command itself never goes.

use crate::cmd::table::Ctx;
use crate::keyspace::types::stream::{Group, StreamId};

/// One command a group read or claim owes replicas, gathered while the
/// stream is borrowed and sent once it is not.
pub(super) enum Prop {
    /// `streamPropagateXCLAIM`: the ID as the command gave it, and the
    /// pending entry as it is after the change (or just before its removal).
    Claim {
        id: Vec<u8>,
        consumer: Vec<u8>,
        time: i64,
        count: u64,
        last_id: StreamId,
    },
    /// `streamPropagateGroupID`.
    SetId {
        last_id: StreamId,
        entries_read: i64,
    },
    /// `streamPropagateConsumerCreation`.
    CreateConsumer { consumer: Vec<u8> },
}

impl Prop {
    /// The XCLAIM for pending entry `id` of `g` as it stands, named `arg`.
    pub(super) fn claim(g: &Group, id: StreamId, arg: &[u8]) -> Option<Prop> {
        let n = g.pel().get(&id)?;
        Some(Prop::Claim {
            id: arg.to_vec(),
            consumer: n.consumer.clone(),
            time: n.delivery_time,
            count: n.delivery_count,
            last_id: g.last_id,
        })
    }

    /// `XGROUP SETID` to where `g` stands now.
    pub(super) fn set_id(g: &Group) -> Prop {
        Prop::SetId {
            last_id: g.last_id,
            entries_read: g.entries_read,
        }
    }
}

/// Queues `props` for replicas, after preventing the command's own
/// propagation (as XREADGROUP, XCLAIM and XAUTOCLAIM do in any case).
pub(super) fn send(ctx: &mut Ctx, key: &[u8], group: &[u8], props: Vec<Prop>) {
    ctx.srv.repl.wire.prevent();
    for p in props {
        match p {
            Prop::Claim {
                id,
                consumer,
                time,
                count,
                last_id,
            } => {
                let (time, count, last) =
                    (time.to_string(), count.to_string(), last_id.to_string());
                ctx.also_propagate(&[
                    b"XCLAIM",
                    key,
                    group,
                    &consumer,
                    b"0",
                    &id,
                    b"TIME",
                    time.as_bytes(),
                    b"RETRYCOUNT",
                    count.as_bytes(),
                    b"FORCE",
                    b"JUSTID",
                    b"LASTID",
                    last.as_bytes(),
                ]);
            }
            Prop::SetId {
                last_id,
                entries_read,
            } => {
                let (last, read) = (last_id.to_string(), entries_read.to_string());
                ctx.also_propagate(&[
                    b"XGROUP",
                    b"SETID",
                    key,
                    group,
                    last.as_bytes(),
                    b"ENTRIESREAD",
                    read.as_bytes(),
                ]);
            }
            Prop::CreateConsumer { consumer } => {
                ctx.also_propagate(&[b"XGROUP", b"CREATECONSUMER", key, group, &consumer]);
            }
        }
    }
}
