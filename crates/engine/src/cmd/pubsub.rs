//! Pub/Sub commands: SUBSCRIBE PSUBSCRIBE UNSUBSCRIBE PUNSUBSCRIBE PUBLISH, the shard forms SSUBSCRIBE SUNSUBSCRIBE SPUBLISH (standalone: one shard holds every channel), and PUBSUB's introspection, with Redis 7.2's replies and errors.
//!
//! The registry and the delivery rules live in [`crate::pubsub`]; these
//! handlers parse arguments and shape replies. A SUBSCRIBE-like command
//! replies with one confirmation per name: the handler returns the first
//! and leaves the rest in the reply tail, which follows it on the wire.

use super::replies::{help_reply, subcommand_syntax_error};
use super::table::{commands, container, Command, Ctx};
use crate::proto::resp::Frame;
use crate::pubsub;
use crate::server::trace::PubSubKind;

pub(super) static COMMANDS: &[Command] = commands! { group: "pubsub";
    "subscribe" => subscribe, arity: -2, flags: [PUBSUB, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [], since: "2.0.0",
        syntax: "SUBSCRIBE channel [channel ...]", summary: "Listens for messages published to channels.";
    "psubscribe" => psubscribe, arity: -2, flags: [PUBSUB, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [], since: "2.0.0",
        syntax: "PSUBSCRIBE pattern [pattern ...]", summary: "Listens for messages published to channels that match one or more patterns.";
    "unsubscribe" => unsubscribe, arity: -1, flags: [PUBSUB, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [], since: "2.0.0",
        syntax: "UNSUBSCRIBE [channel [channel ...]]", summary: "Stops listening to messages posted to channels.";
    "punsubscribe" => punsubscribe, arity: -1, flags: [PUBSUB, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [], since: "2.0.0",
        syntax: "PUNSUBSCRIBE [pattern [pattern ...]]", summary: "Stops listening to messages published to channels that match one or more patterns.";
    "publish" => publish, arity: 3, flags: [PUBSUB, LOADING, STALE, FAST, MAY_REPLICATE, SENTINEL], acl: [], since: "2.0.0",
        syntax: "PUBLISH channel message", summary: "Posts a message to a channel.";
    "pubsub" => container, arity: -2, flags: [], acl: [SLOW], since: "2.8.0",
        syntax: "PUBSUB <subcommand>", summary: "A container for Pub/Sub commands.", subcommands: PUBSUB_SUBCOMMANDS;
    // The shard forms name their channel where a key would be (a `not_key`
    // key spec, which routes them in a cluster); COMMAND INFO shows that
    // range. Standalone, every shard channel lives on this one server.
    "ssubscribe" => ssubscribe, arity: -2, flags: [PUBSUB, NOSCRIPT, LOADING, STALE], keys: (1, -1, 1), acl: [], since: "7.0.0",
        syntax: "SSUBSCRIBE shardchannel [shardchannel ...]", summary: "Listens for messages published to shard channels.";
    "sunsubscribe" => sunsubscribe, arity: -1, flags: [PUBSUB, NOSCRIPT, LOADING, STALE], keys: (1, -1, 1), acl: [], since: "7.0.0",
        syntax: "SUNSUBSCRIBE [shardchannel [shardchannel ...]]", summary: "Stops listening to messages posted to shard channels.";
    "spublish" => spublish, arity: 3, flags: [PUBSUB, LOADING, STALE, FAST, MAY_REPLICATE], keys: (1, 1, 1), acl: [], since: "7.0.0",
        syntax: "SPUBLISH shardchannel message", summary: "Post a message to a shard channel";
};

static PUBSUB_SUBCOMMANDS: &[Command] = commands! { group: "pubsub";
    "channels" => pubsub_channels, arity: -2, flags: [PUBSUB, LOADING, STALE], acl: [], since: "2.8.0",
        syntax: "PUBSUB CHANNELS [pattern]", summary: "Returns the active channels.";
    "numsub" => pubsub_numsub, arity: -2, flags: [PUBSUB, LOADING, STALE], acl: [], since: "2.8.0",
        syntax: "PUBSUB NUMSUB [channel [channel ...]]", summary: "Returns a count of subscribers to channels.";
    "numpat" => pubsub_numpat, arity: 2, flags: [PUBSUB, LOADING, STALE], acl: [], since: "2.8.0",
        syntax: "PUBSUB NUMPAT", summary: "Returns a count of unique pattern subscriptions.";
    "shardchannels" => pubsub_shardchannels, arity: -2, flags: [PUBSUB, LOADING, STALE], acl: [], since: "7.0.0",
        syntax: "PUBSUB SHARDCHANNELS [pattern]", summary: "Returns the active shard channels.";
    "shardnumsub" => pubsub_shardnumsub, arity: -2, flags: [PUBSUB, LOADING, STALE], acl: [], since: "7.0.0",
        syntax: "PUBSUB SHARDNUMSUB [shardchannel [shardchannel ...]]", summary: "Returns the count of subscribers of shard channels.";
    "help" => pubsub_help, arity: 2, flags: [LOADING, STALE], acl: [], since: "6.2.0",
        syntax: "PUBSUB HELP", summary: "Returns helpful text about the different subcommands.";
};

/// The commands a subscribed RESP2 connection may still run (top-level
/// names; RESET is listed for when it exists).
pub fn allowed_when_subscribed(name: &str) -> bool {
    matches!(
        name,
        "ping"
            | "subscribe"
            | "ssubscribe"
            | "unsubscribe"
            | "sunsubscribe"
            | "psubscribe"
            | "punsubscribe"
            | "quit"
            | "reset"
    )
}

/// PING on a subscribed RESP2 connection: `["pong", message or ""]`, so a
/// client can tell it from a published message.
pub fn subscribed_ping(args: &[Vec<u8>]) -> Frame {
    match args.len() {
        1 => Frame::Array(vec![Frame::bulk("pong"), Frame::bulk("")]),
        2 => Frame::Array(vec![Frame::bulk("pong"), Frame::Bulk(args[1].clone())]),
        _ => Frame::err("ERR wrong number of arguments for 'ping' command"),
    }
}

/// Returns the first confirmation and queues the others right after it.
/// There is always at least one (a command without names confirms with a
/// null name).
fn confirmations(ctx: &mut Ctx, mut frames: Vec<Frame>) -> Frame {
    if frames.is_empty() {
        return Frame::NullArray;
    }
    let first = frames.remove(0);
    ctx.srv.pubsub.push_reply_tail(frames);
    first
}

fn subscribe_to(ctx: &mut Ctx, kind: PubSubKind, names: &[Vec<u8>]) -> Frame {
    let frames = names
        .iter()
        .map(|n| pubsub::subscribe(ctx.srv, ctx.client, kind, n))
        .collect();
    confirmations(ctx, frames)
}

fn unsubscribe_from(ctx: &mut Ctx, kind: PubSubKind, names: &[Vec<u8>]) -> Frame {
    let frames = if names.is_empty() {
        pubsub::unsubscribe_all(ctx.srv, ctx.client, kind)
    } else {
        names
            .iter()
            .map(|n| pubsub::unsubscribe(ctx.srv, ctx.client, kind, n))
            .collect()
    };
    confirmations(ctx, frames)
}

/// SUBSCRIBE. Redis refuses it to clients that cannot block unless they
/// are in MULTI; here only scripts are such clients, and scripts cannot
/// call it at all (`noscript`).
fn subscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    subscribe_to(ctx, PubSubKind::Channel, &args[1..])
}

fn psubscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    subscribe_to(ctx, PubSubKind::Pattern, &args[1..])
}

fn unsubscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    unsubscribe_from(ctx, PubSubKind::Channel, &args[1..])
}

fn punsubscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    unsubscribe_from(ctx, PubSubKind::Pattern, &args[1..])
}

/// SSUBSCRIBE: unlike SUBSCRIBE it has no exception for MULTI, so EXEC
/// (whose commands cannot block) refuses it.
fn ssubscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if ctx.srv.blocking.depth > 1 {
        return Frame::err("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    }
    subscribe_to(ctx, PubSubKind::Shard, &args[1..])
}

fn sunsubscribe(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    unsubscribe_from(ctx, PubSubKind::Shard, &args[1..])
}

fn publish(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    // Replicas' subscribers get it too; a cluster's bus carries it there.
    if ctx.srv.cluster.is_none() {
        ctx.srv.repl.wire.force();
    }
    Frame::Integer(pubsub::publish(ctx.srv, id, &args[1], &args[2], false))
}

fn spublish(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let id = ctx.client.id;
    if ctx.srv.cluster.is_none() {
        ctx.srv.repl.wire.force();
    }
    Frame::Integer(pubsub::publish(ctx.srv, id, &args[1], &args[2], true))
}

fn channel_list(ctx: &mut Ctx, args: &[Vec<u8>], shard: bool) -> Frame {
    if args.len() > 3 {
        return subcommand_syntax_error(args);
    }
    let pattern = args.get(2).map(Vec::as_slice);
    Frame::Array(
        ctx.srv
            .pubsub
            .active_channels(shard, pattern)
            .into_iter()
            .map(Frame::Bulk)
            .collect(),
    )
}

fn num_sub(ctx: &mut Ctx, args: &[Vec<u8>], shard: bool) -> Frame {
    let mut out = Vec::with_capacity(args.len().saturating_sub(2) * 2);
    for ch in &args[2..] {
        out.push(Frame::Bulk(ch.clone()));
        out.push(Frame::Integer(
            ctx.srv.pubsub.num_subscribers(shard, ch) as i64
        ));
    }
    Frame::Array(out)
}

fn pubsub_channels(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    channel_list(ctx, args, false)
}

fn pubsub_shardchannels(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    channel_list(ctx, args, true)
}

fn pubsub_numsub(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    num_sub(ctx, args, false)
}

fn pubsub_shardnumsub(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    num_sub(ctx, args, true)
}

fn pubsub_numpat(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Integer(ctx.srv.pubsub.num_patterns() as i64)
}

fn pubsub_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(args, &crate::cmd::doctext::help("pubsub"))
}

#[cfg(test)]
mod tests {
    use crate::{Engine, Frame};

    fn b(s: &str) -> Frame {
        Frame::bulk(s)
    }

    fn push(items: Vec<Frame>) -> Frame {
        Frame::Push(items)
    }

    #[test]
    fn confirmations_after_the_first_follow_the_reply() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        assert_eq!(
            e.execute_line(c, "SUBSCRIBE a b a"),
            push(vec![b("subscribe"), b("a"), Frame::Integer(1)])
        );
        assert_eq!(
            e.take_unblocked(),
            vec![
                (c, push(vec![b("subscribe"), b("b"), Frame::Integer(2)])),
                (c, push(vec![b("subscribe"), b("a"), Frame::Integer(2)])),
            ]
        );
        assert_eq!(
            e.execute_line(c, "PSUBSCRIBE x*"),
            push(vec![b("psubscribe"), b("x*"), Frame::Integer(3)])
        );
        // Oldest first when unsubscribing from everything.
        assert_eq!(
            e.execute_line(c, "UNSUBSCRIBE"),
            push(vec![b("unsubscribe"), b("a"), Frame::Integer(2)])
        );
        assert_eq!(
            e.take_unblocked(),
            vec![(c, push(vec![b("unsubscribe"), b("b"), Frame::Integer(1)]))]
        );
        assert_eq!(
            e.execute_line(c, "UNSUBSCRIBE"),
            push(vec![b("unsubscribe"), Frame::Null, Frame::Integer(1)])
        );
    }

    #[test]
    fn resp2_context_and_resp3_freedom() {
        let mut e = Engine::new(1);
        let c = e.connect("c");
        e.execute_line(c, "SUBSCRIBE a");
        assert_eq!(
            e.execute_line(c, "GET k"),
            Frame::err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
        );
        assert_eq!(
            e.execute_line(c, "PING hi"),
            Frame::Array(vec![b("pong"), b("hi")])
        );
        let d = e.connect("d");
        e.execute_line(d, "HELLO 3");
        e.execute_line(d, "SUBSCRIBE a");
        e.take_unblocked();
        assert_eq!(e.execute_line(d, "PING"), Frame::Simple("PONG".into()));
        assert_eq!(e.execute_line(d, "GET k"), Frame::Null);
        // Its own message comes after PUBLISH's reply (Redis 7.2).
        assert_eq!(e.execute_line(d, "PUBLISH a m"), Frame::Integer(2));
        assert_eq!(
            e.take_unblocked(),
            vec![
                (c, push(vec![b("message"), b("a"), b("m")])),
                (d, push(vec![b("message"), b("a"), b("m")])),
            ]
        );
    }
}
