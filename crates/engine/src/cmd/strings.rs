//! String commands: GET, SET and friends, counters, ranges.

use super::{Command, Ctx, WRONGTYPE};
use crate::object::Value;
use crate::resp::Frame;

pub static COMMANDS: &[Command] = &[Command {
    name: "get",
    arity: 2,
    flags: &["readonly", "fast"],
    keys: (1, 1, 1),
    acl: &["read", "string", "fast"],
    syntax: "GET key",
    summary: "Returns the string value of a key.",
    since: "1.0.0",
    group: "string",
    handler: get,
    subcommands: &[],
}];

fn get(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let db = ctx.db();
    match ctx.srv.lookup_read(db, &args[1]) {
        None => Frame::Null,
        Some(obj) => match &obj.value {
            Value::String(s) => Frame::Bulk(s.to_bytes()),
            #[allow(unreachable_patterns)]
            _ => Frame::err(WRONGTYPE),
        },
    }
}
