//! MIGRATE (cluster.c's `migrateCommand`): keys sent to another server as RESTORE commands carrying their DUMP payloads, over the driver's connections ([`crate::cluster::link`]), and deleted here once the target accepted them (unless COPY).

use super::args::{arg_i64, is, SYNTAX};
use super::table::{commands, Command, Ctx};
use crate::persist::{payload, rdb};
use crate::proto::resp::{push_request, Frame};
use crate::server::keyspace_events as ev;
use crate::server::trace::DeleteCause;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "generic";
    "migrate" => migrate, arity: -6, flags: [WRITE, MOVABLEKEYS], keys: (3, 3, 1), acl: [KEYSPACE, WRITE, SLOW, DANGEROUS], since: "2.6.0",
        syntax: "MIGRATE host port <key | \"\"> destination-db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password] [KEYS key [key ...]]",
        summary: "Atomically transfers a key from one Redis instance to another.";
};

/// MIGRATE's options after the five fixed arguments.
struct Options<'a> {
    copy: bool,
    replace: bool,
    user: Option<&'a [u8]>,
    password: Option<&'a [u8]>,
    /// Index of the first key and how many there are.
    first: usize,
    count: usize,
}

fn options(args: &[Vec<u8>]) -> Result<Options<'_>, Frame> {
    let mut o = Options {
        copy: false,
        replace: false,
        user: None,
        password: None,
        first: 3,
        count: 1,
    };
    let mut j = 6;
    while j < args.len() {
        let more = args.len() - 1 - j;
        let a = &args[j];
        if is(a, "copy") {
            o.copy = true;
        } else if is(a, "replace") {
            o.replace = true;
        } else if is(a, "auth") {
            if more == 0 {
                return Err(Frame::err(SYNTAX));
            }
            j += 1;
            o.password = Some(&args[j]);
        } else if is(a, "auth2") {
            if more < 2 {
                return Err(Frame::err(SYNTAX));
            }
            o.user = Some(&args[j + 1]);
            o.password = Some(&args[j + 2]);
            j += 2;
        } else if is(a, "keys") {
            if !args[3].is_empty() {
                return Err(Frame::err(
                    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string",
                ));
            }
            o.first = j + 1;
            o.count = args.len() - j - 1;
            break;
        } else {
            return Err(Frame::err(SYNTAX));
        }
        j += 1;
    }
    Ok(o)
}

/// How an attempt ended when it did not end with a reply.
enum SocketErr {
    /// `IOERR error or timeout writing|reading to target instance`, with
    /// whether the socket timed out (no retry then) and whether it was the
    /// write.
    Io { timed_out: bool, writing: bool },
    /// Some RESTOREs were answered before the socket failed: no retry.
    Late,
}

fn migrate(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // Passwords are not shown, as far as the options read before an error.
    let mut j = 6;
    while j < args.len() {
        let more = args.len() - 1 - j;
        if is(&args[j], "auth") && more > 0 {
            ctx.redact(j + 1);
            j += 1;
        } else if is(&args[j], "auth2") && more > 1 {
            ctx.redact(j + 1);
            ctx.redact(j + 2);
            j += 2;
        } else if is(&args[j], "keys") {
            break;
        }
        j += 1;
    }
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let timeout = match arg_i64(&args[5]) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let dbid = match arg_i64(&args[4]) {
        Ok(d) => d,
        Err(e) => return e,
    };
    let timeout = if timeout <= 0 { 1000 } else { timeout as u64 };
    let db = ctx.db();
    // Keys that are here (read lookups: a missing one is a miss).
    let keys: Vec<&[u8]> = args[o.first..o.first + o.count]
        .iter()
        .filter(|k| ctx.srv.lookup_read(db, k).is_some())
        .map(|k| k.as_slice())
        .collect();
    if keys.is_empty() {
        return Frame::simple("NOKEY");
    }
    let host = String::from_utf8_lossy(&args[1]).into_owned();
    let port = String::from_utf8_lossy(&args[2]).into_owned();
    let links = ctx.srv.links.clone();
    let mut may_retry = true;
    loop {
        let Some(last_db) = links.open(&host, &port, timeout) else {
            return Frame::err("IOERR error or timeout connecting to the client");
        };
        match attempt(ctx, &o, &keys, dbid, last_db, timeout, (&host, &port)) {
            Ok(reply) => return reply,
            Err(SocketErr::Late) => {
                return Frame::err("IOERR error or timeout reading to target instance")
            }
            Err(SocketErr::Io { timed_out, writing }) => {
                links.close(&host, &port);
                if !timed_out && may_retry {
                    may_retry = false;
                    continue;
                }
                let what = if writing { "writing" } else { "reading" };
                return Frame::err(format!("IOERR error or timeout {what} to target instance"));
            }
        }
    }
}

/// One try over an open connection: AUTH, SELECT if the connection is on
/// another database, a RESTORE (RESTORE-ASKING in a cluster) per key still
/// alive with its remaining TTL, then the replies in order. Each key the
/// target accepted is deleted here unless COPY.
fn attempt(
    ctx: &mut Ctx,
    o: &Options,
    keys: &[&[u8]],
    dbid: i64,
    last_db: i64,
    timeout: u64,
    (host, port): (&str, &str),
) -> Result<Frame, SocketErr> {
    let links = ctx.srv.links.clone();
    let db = ctx.db();
    let mut out = Vec::new();
    if let Some(pw) = o.password {
        match o.user {
            Some(user) => push_request(&mut out, &[&b"AUTH"[..], user, pw]),
            None => push_request(&mut out, &[&b"AUTH"[..], pw]),
        }
    }
    let select = last_db != dbid;
    if select {
        push_request(&mut out, &[&b"SELECT"[..], dbid.to_string().as_bytes()]);
    }
    let restore: &[u8] = if ctx.srv.cluster.is_some() {
        b"RESTORE-ASKING"
    } else {
        b"RESTORE"
    };
    let now = ctx.srv.now_ms();
    let compress = ctx.srv.config.rdbcompression;
    let mut sent: Vec<&[u8]> = Vec::new();
    for &key in keys {
        let ttl = match ctx.srv.dbs[db].expire_at(key) {
            Some(at) if at - now < 0 => continue,
            Some(at) => (at - now).max(1),
            None => 0,
        };
        let Some(obj) = ctx.srv.dbs[db].get(key) else {
            continue;
        };
        let body = payload::seal(rdb::save(&obj.value, compress));
        let ttl = ttl.to_string();
        let mut parts: Vec<&[u8]> = vec![restore, key, ttl.as_bytes(), &body];
        if o.replace {
            parts.push(b"REPLACE");
        }
        push_request(&mut out, &parts);
        sent.push(key);
    }
    if let Err(timed_out) = links.write(host, port, &out, timeout) {
        return Err(SocketErr::Io {
            timed_out,
            writing: true,
        });
    }
    let read = |what: &mut Vec<u8>| -> Result<(), SocketErr> {
        *what = links
            .read_line(host, port, timeout)
            .map_err(|timed_out| SocketErr::Io {
                timed_out,
                writing: false,
            })?;
        Ok(())
    };
    let (mut auth_reply, mut select_reply) = (Vec::new(), Vec::new());
    if o.password.is_some() {
        read(&mut auth_reply)?;
    }
    if select {
        read(&mut select_reply)?;
    }
    let mut error: Option<Frame> = None;
    let mut moved: Vec<&[u8]> = vec![b"DEL"];
    for (j, &key) in sent.iter().enumerate() {
        let line = match links.read_line(host, port, timeout) {
            Ok(line) => line,
            Err(timed_out) => {
                if error.is_none() && j == 0 {
                    return Err(SocketErr::Io {
                        timed_out,
                        writing: false,
                    });
                }
                links.close(host, port);
                return match error {
                    Some(e) => Ok(e),
                    None => Err(SocketErr::Late),
                };
            }
        };
        let failed = [&auth_reply, &select_reply, &line]
            .into_iter()
            .find(|r| r.first() == Some(&b'-'));
        if let Some(err) = failed {
            if error.is_none() {
                links.set_last_db(host, port, -1);
                let text = String::from_utf8_lossy(&err[1..]);
                error = Some(Frame::err(format!(
                    "ERR Target instance replied with error: {text}"
                )));
            }
        } else if !o.copy {
            ctx.srv.delete(db, key, DeleteCause::Del);
            ctx.notify(ev::GENERIC, "del", key);
            moved.push(key);
        }
    }
    // Replicas delete what the target took (MIGRATE goes as DEL).
    if moved.len() > 1 {
        ctx.propagate_as(&moved);
    }
    if let Some(e) = error {
        return Ok(e);
    }
    links.set_last_db(host, port, dbid);
    Ok(Frame::ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn options_are_read_as_migrate_command_reads_them() {
        let a = argv("MIGRATE h 1  0 5 COPY AUTH2 u p KEYS a b");
        let o = options(&a).map_err(|_| ()).expect("valid");
        assert!(o.copy && !o.replace);
        assert_eq!((o.user, o.password), (Some(&b"u"[..]), Some(&b"p"[..])));
        assert_eq!((o.first, o.count), (11, 2));
        let bad = |l: &str| match options(&argv(l)) {
            Err(Frame::Error(e)) => e,
            _ => String::new(),
        };
        assert_eq!(bad("MIGRATE h 1 k 0 5 AUTH"), SYNTAX);
        assert_eq!(bad("MIGRATE h 1 k 0 5 AUTH2 u"), SYNTAX);
        assert_eq!(bad("MIGRATE h 1 k 0 5 NOPE"), SYNTAX);
        assert!(bad("MIGRATE h 1 k 0 5 KEYS a").starts_with("ERR When using MIGRATE KEYS"));
    }
}
