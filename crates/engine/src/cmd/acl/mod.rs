//! AUTH and the ACL command family (acl.c's `authCommand` and `aclCommand`): users set and described, the categories, the ACL LOG, DRYRUN, GENPASS, and LOAD/SAVE of `aclfile` through the engine's file store.

pub mod check;
pub mod rules;

use crate::acl::describe_commands;
use crate::acl::{Denied, LogContext, User};
use crate::cmd::args::{arg_i64, is, NOT_INTEGER, SYNTAX};
use crate::cmd::replies::{help_reply, subcommand_syntax_error};
use crate::cmd::table::{commands, container, full_name, Acl, Command, Ctx, Registry};
use crate::proto::resp::Frame;
use crate::rng::Pick;
use crate::server::client::Client;
use crate::server::Server;
use rules::{has_spaces, merge_selectors, set_user};

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "connection";
    "auth" => auth, arity: -2, flags: [NOSCRIPT, LOADING, STALE, FAST, NO_AUTH, SENTINEL, ALLOW_BUSY], acl: [FAST, CONNECTION], since: "1.0.0",
        syntax: "AUTH [username] password", summary: "Authenticates the connection.";
    "acl" => container, arity: -2, flags: [SENTINEL], acl: [SLOW], group: "server", since: "6.0.0",
        syntax: "ACL <subcommand>", summary: "A container for Access List Control commands.", subcommands: SUBCOMMANDS;
};

static SUBCOMMANDS: &[Command] = commands! { heavy; group: "server";
    "cat" => acl_cat, arity: -2, flags: [NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL CAT [category]", summary: "Lists the ACL categories, or the commands inside a category.";
    "deluser" => acl_deluser, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL DELUSER username [username ...]", summary: "Deletes ACL users, and terminates their connections.";
    "dryrun" => acl_dryrun, arity: -4, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "7.0.0",
        syntax: "ACL DRYRUN username command [arg [arg ...]]", summary: "Simulates the execution of a command by a user, without executing the command.";
    "genpass" => acl_genpass, arity: -2, flags: [NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL GENPASS [bits]", summary: "Generates a pseudorandom, secure password that can be used to identify ACL users.";
    "getuser" => acl_getuser, arity: 3, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL GETUSER username", summary: "Lists the ACL rules of a user.";
    "help" => acl_help, arity: 2, flags: [LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL HELP", summary: "Returns helpful text about the different subcommands.";
    "list" => acl_list, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL LIST", summary: "Dumps the effective rules in ACL file format.";
    "load" => acl_load, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL LOAD", summary: "Reloads the rules from the configured ACL file.";
    "log" => acl_log, arity: -2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL LOG [count | RESET]", summary: "Lists recent security events generated due to ACL rules.";
    "save" => acl_save, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL SAVE", summary: "Saves the effective ACL rules in the configured ACL file.";
    "setuser" => acl_setuser, arity: -3, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL SETUSER username [rule [rule ...]]", summary: "Creates and modifies an ACL user and its rules.";
    "users" => acl_users, arity: 2, flags: [ADMIN, NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL USERS", summary: "Lists all ACL users.";
    "whoami" => acl_whoami, arity: 2, flags: [NOSCRIPT, LOADING, STALE, SENTINEL], acl: [SLOW], since: "6.0.0",
        syntax: "ACL WHOAMI", summary: "Returns the authenticated username of the current connection.";
};

/// `addAuthErrReply` without a module's error.
pub const WRONGPASS: &str = "WRONGPASS invalid username-password pair or user is disabled.";

/// `ACLAuthenticateUser` by password: on success the client runs as the
/// user, else the failure is logged (reason `auth`, object the command name
/// as sent) and `WRONGPASS` returned.
pub fn authenticate(
    srv: &mut Server,
    client: &mut Client,
    cmd_name: &[u8],
    user: &[u8],
    pass: &[u8],
) -> Result<(), Frame> {
    let name = String::from_utf8_lossy(user).into_owned();
    if srv
        .acl
        .users
        .get(&name)
        .is_some_and(|u| u.password_ok(pass))
    {
        client.authenticated = true;
        client.user = Some(name);
        return Ok(());
    }
    let ctx = match client.multi.is_some() {
        true => LogContext::Multi,
        false => LogContext::Toplevel,
    };
    check::log(srv, client, Denied::Auth, ctx, cmd_name.to_vec(), name);
    Err(Frame::err(WRONGPASS))
}

/// AUTH password | AUTH username password.
fn auth(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args.len() > 3 {
        return Frame::err(SYNTAX);
    }
    // MONITOR and the slow log never show a password (nor whose it is).
    ctx.redact(1);
    if args.len() == 3 {
        ctx.redact(2);
    }
    let (user, pass): (&[u8], &[u8]) = if args.len() == 2 {
        if ctx.srv.acl.default_nopass() {
            return Frame::err(
                "ERR AUTH <password> called without any password configured for the default \
                 user. Are you sure your configuration is correct?",
            );
        }
        (b"default", &args[1])
    } else {
        (&args[1], &args[2])
    };
    match authenticate(ctx.srv, ctx.client, &args[0], user, pass) {
        Ok(()) => Frame::ok(),
        Err(e) => e,
    }
}

fn pubsub_all(srv: &Server) -> bool {
    srv.config.acl_pubsub_default == "allchannels"
}

/// `ACLLoadConfiguredUsers`: a configuration file's `user <name> <rules...>`
/// lines (their words after `user`), set as ACL SETUSER sets them before any
/// client connects. The error says which line failed and why.
pub fn load_config_users(
    reg: &'static Registry,
    srv: &mut Server,
    users: &[Vec<Vec<u8>>],
) -> Result<(), (usize, String)> {
    let mut me = Client::new(0, srv.clock.now_us(), true);
    for (i, argv) in users.iter().enumerate() {
        let Some(name) = argv.first() else {
            return Err((i, "wrong number of arguments".into()));
        };
        if has_spaces(name) {
            return Err((
                i,
                "Usernames can't contain spaces or null characters".into(),
            ));
        }
        let name = String::from_utf8_lossy(name).into_owned();
        // The default user exists already: Redis resets it first, so the
        // line says all it may do, as it does for a user the line creates.
        let mut rules = Vec::with_capacity(argv.len());
        if name == "default" {
            rules.push(b"reset".to_vec());
        }
        rules.extend_from_slice(&argv[1..]);
        set_user_rules(reg, srv, &mut me, &name, &rules).map_err(|e| (i, e))?;
    }
    Ok(())
}

/// `ACLStringSetUser`: every rule applied to a copy, kept only if all pass.
fn set_user_rules(
    reg: &'static Registry,
    srv: &mut Server,
    me: &mut Client,
    name: &str,
    rules: &[Vec<u8>],
) -> Result<(), String> {
    let merged = merge_selectors(rules).map_err(|i| {
        format!(
            "Unmatched parenthesis in acl selector starting at '{}'.",
            String::from_utf8_lossy(&rules[i])
        )
    })?;
    let all = pubsub_all(srv);
    let mut u = srv
        .acl
        .users
        .get(name)
        .cloned()
        .unwrap_or_else(|| User::new(name, all));
    for op in &merged {
        set_user(reg, &mut u, op, all).map_err(|e| {
            format!(
                "Error in ACL SETUSER modifier '{}': {}",
                String::from_utf8_lossy(op),
                e.text()
            )
        })?;
    }
    if let Some(old) = srv.acl.users.get(name) {
        if !channels_widened(&u, old) {
            kill_pubsub_clients(srv, me, &u);
        }
    }
    srv.acl.users.insert(name.to_string(), u);
    srv.acl.refresh();
    Ok(())
}

/// `ACLKillPubsubClientsIfNeeded`'s shortcuts: no client can lose a
/// channel when a selector of `new` allows all of them, or when every
/// channel pattern of `old` is still among `new`'s.
fn channels_widened(new: &User, old: &User) -> bool {
    if new.selectors.iter().any(|s| s.allchannels) {
        return true;
    }
    old.selectors.iter().all(|s| {
        !s.allchannels
            && s.channels
                .iter()
                .all(|c| new.selectors.iter().any(|n| n.channels.contains(c)))
    })
}

/// The rest of `ACLKillPubsubClientsIfNeeded`: a subscribed client of the
/// user whose channel, pattern or shard channel the new rules no longer
/// allow (any selector's patterns, as one list) is disconnected.
fn kill_pubsub_clients(srv: &mut Server, me: &mut Client, new: &User) {
    let upcoming = crate::acl::Selector {
        channels: new
            .selectors
            .iter()
            .flat_map(|s| s.channels.iter().cloned())
            .collect(),
        ..Default::default()
    };
    let victims: Vec<u64> = srv
        .client_list
        .iter()
        .filter(|(&id, e)| {
            let user = if id == me.id {
                me.user.as_deref()
            } else {
                Some(e.user.as_str())
            };
            let subscribed = if id == me.id {
                me.subs.active()
            } else {
                e.subscribed()
            };
            user == Some(new.name.as_str()) && subscribed
        })
        .map(|(&id, _)| id)
        .filter(|&id| {
            srv.pubsub
                .subscriptions_of(id)
                .iter()
                .any(|(pattern, name)| !upcoming.check_channel(name, *pattern))
        })
        .collect();
    for id in victims {
        if id == me.id {
            me.close_after_reply = true;
        } else {
            srv.killed.push(id);
        }
    }
}

fn acl_setuser(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    // The user and its rules (passwords among them) are not shown.
    for i in 2..args.len() {
        ctx.redact(i);
    }
    if has_spaces(&args[2]) {
        return Frame::err("ERR Usernames can't contain spaces or null characters");
    }
    let name = String::from_utf8_lossy(&args[2]).into_owned();
    match set_user_rules(ctx.reg, ctx.srv, ctx.client, &name, &args[3..]) {
        Ok(()) => Frame::ok(),
        Err(e) => Frame::err(format!("ERR {e}")),
    }
}

fn acl_deluser(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    if args[2..].iter().any(|a| a == b"default") {
        return Frame::err("ERR The 'default' user cannot be removed");
    }
    let mut deleted = 0;
    for a in &args[2..] {
        let name = String::from_utf8_lossy(a).into_owned();
        if ctx.srv.acl.users.remove(&name).is_some() {
            deleted += 1;
            // `ACLFreeUserAndKillClients`: its connections end; this one
            // after its reply.
            if ctx.client.user.as_deref() == Some(name.as_str()) {
                ctx.client.close_after_reply = true;
            }
            let me = ctx.client.id;
            let others = ctx
                .srv
                .client_list
                .iter()
                .filter(|(&id, e)| id != me && e.user == name)
                .map(|(&id, _)| id);
            let others: Vec<u64> = others.collect();
            ctx.srv.killed.extend(others);
        }
    }
    Frame::Integer(deleted)
}

/// One selector as ACL GETUSER shows it: commands, keys, channels.
fn selector_fields(s: &crate::acl::Selector) -> Vec<(Frame, Frame)> {
    vec![
        (Frame::bulk("commands"), Frame::bulk(describe_commands(s))),
        (Frame::bulk("keys"), Frame::bulk(s.keys_text())),
        (Frame::bulk("channels"), Frame::bulk(s.channels_text())),
    ]
}

fn acl_getuser(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let name = String::from_utf8_lossy(&args[2]);
    let Some(u) = ctx.srv.acl.users.get(name.as_ref()) else {
        return Frame::Null;
    };
    let mut fields = vec![
        (
            Frame::bulk("flags"),
            Frame::Set(u.flag_names().into_iter().map(Frame::bulk).collect()),
        ),
        (
            Frame::bulk("passwords"),
            Frame::Array(u.passwords.iter().map(Frame::bulk).collect()),
        ),
    ];
    fields.extend(selector_fields(&u.selectors[0]));
    let selectors = u.selectors[1..]
        .iter()
        .map(|s| Frame::Map(selector_fields(s)))
        .collect();
    fields.push((Frame::bulk("selectors"), Frame::Array(selectors)));
    Frame::Map(fields)
}

/// `user <name> <rules>` for every user, in name order (ACL LIST, ACL SAVE).
fn user_lines(srv: &Server) -> Vec<String> {
    crate::acl::user_lines(&srv.acl)
}

fn acl_list(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Array(user_lines(ctx.srv).into_iter().map(Frame::bulk).collect())
}

fn acl_users(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Array(ctx.srv.acl.users.keys().map(Frame::bulk).collect())
}

fn acl_whoami(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    match &ctx.client.user {
        Some(u) => Frame::bulk(u),
        None => Frame::Null,
    }
}

const NO_ACLFILE: &str = "ERR This Redis instance is not configured to use an ACL file. You may \
    want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming \
    you have a Redis configuration file set) in order to store users in the Redis configuration.";

fn acl_load(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.srv.config.aclfile.is_empty() {
        return Frame::err(NO_ACLFILE);
    }
    match load_file(ctx.reg, ctx.srv) {
        Ok(()) => {
            // The users were all replaced but `default`, whose clients stay:
            // every other user's connections end (`ACLFreeUsersSet`).
            if ctx.client.user.as_deref() != Some("default") {
                ctx.client.close_after_reply = true;
            }
            let me = ctx.client.id;
            let others: Vec<u64> = ctx
                .srv
                .client_list
                .iter()
                .filter(|(&id, e)| id != me && e.user != "default")
                .map(|(&id, _)| id)
                .collect();
            ctx.srv.killed.extend(others);
            Frame::ok()
        }
        Err(e) => Frame::err(format!("ERR {e}")),
    }
}

/// `ACLLoadFromFile`: every user of the file replaces every user, or
/// nothing changes and the errors are returned. The default user is
/// created if the file has none.
pub fn load_file(reg: &'static Registry, srv: &mut Server) -> Result<(), String> {
    let path = srv.config.aclfile.clone();
    let data = srv
        .files
        .read(&path)
        .map_err(|e| format!("Error loading ACLs, opening file '{path}': {e}"))?;
    let all = pubsub_all(srv);
    let mut users: crate::ordmap::OrdMap<String, User> = Default::default();
    let mut errors = String::new();
    for (i, raw) in data.split(|&b| b == b'\n').enumerate() {
        let linenum = i + 1;
        let line = trim(raw, b" \t\r\n");
        if line.is_empty() {
            continue;
        }
        let argv: Vec<Vec<u8>> = line.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
        if argv[0] != b"user" || argv.len() < 2 {
            errors.push_str(&format!(
                "{path}:{linenum} should start with user keyword followed by the username. "
            ));
            continue;
        }
        let name = String::from_utf8_lossy(&argv[1]).into_owned();
        if has_spaces(&argv[1]) {
            errors.push_str(&format!(
                "'{path}:{linenum}: username '{name}' contains invalid characters. "
            ));
            continue;
        }
        if users.contains_key(&name) {
            errors.push_str(&format!(
                "WARNING: Duplicate user '{name}' found on line {linenum}. "
            ));
            continue;
        }
        let mut u = User::new(&name, all);
        let Ok(merged) = merge_selectors(&argv[2..]) else {
            errors.push_str(&format!(
                "{path}:{linenum}: Unmatched parenthesis in selector definition."
            ));
            continue;
        };
        let mut syntax_error = false;
        for op in merged {
            let op = trim(&op, b"\t\r\n");
            if let Err(e) = set_user(reg, &mut u, op, all) {
                if e == rules::RuleError::Unknown {
                    errors.push_str(&format!(
                        "{path}:{linenum}: Error in applying operation '{}': {}. ",
                        String::from_utf8_lossy(op),
                        e.text()
                    ));
                } else if !syntax_error {
                    errors.push_str(&format!("{path}:{linenum}: {}. ", e.text()));
                    syntax_error = true;
                }
            }
        }
        users.insert(name, u);
    }
    if !errors.is_empty() {
        errors.push_str(
            "WARNING: ACL errors detected, no change to the previously active ACL rules was performed",
        );
        return Err(errors);
    }
    if !users.contains_key("default") {
        let fresh = crate::acl::AclState::new("");
        let d = fresh.users.get("default").cloned().expect("default user");
        users.insert("default".into(), d);
    }
    srv.acl.users = users;
    srv.acl.refresh();
    Ok(())
}

fn trim<'a>(s: &'a [u8], set: &[u8]) -> &'a [u8] {
    let start = s.iter().position(|b| !set.contains(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !set.contains(b))
        .map_or(start, |e| e + 1);
    &s[start..end.max(start)]
}

fn acl_save(ctx: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    if ctx.srv.config.aclfile.is_empty() {
        return Frame::err(NO_ACLFILE);
    }
    let mut text = String::new();
    for line in user_lines(ctx.srv) {
        text.push_str(&line);
        text.push('\n');
    }
    let path = ctx.srv.config.aclfile.clone();
    match ctx.srv.files.write(&path, text.as_bytes()) {
        Ok(()) => Frame::ok(),
        Err(_) => Frame::err(
            "ERR There was an error trying to save the ACLs. Please check the server logs for \
             more information",
        ),
    }
}

fn acl_cat(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    match args.len() {
        2 => Frame::Array(Acl::ALL.iter().map(|(_, n)| Frame::bulk(n)).collect()),
        3 => {
            let Some(cat) = Acl::named(&args[2]) else {
                return Frame::err(format!(
                    "ERR Unknown category '{}'",
                    crate::cmd::args::preview(&args[2], 128)
                ));
            };
            let names = ctx
                .reg
                .every_command()
                .filter(|(_, c)| crate::cmd::server::acl_categories(c).contains(cat))
                .map(|(p, c)| Frame::bulk(full_name(p, c)))
                .collect();
            Frame::Array(names)
        }
        _ => subcommand_syntax_error(args),
    }
}

fn acl_genpass(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let bits = match args.len() {
        2 => 256,
        3 => match arg_i64(&args[2]) {
            Ok(n) => n,
            Err(_) => return Frame::err(NOT_INTEGER),
        },
        _ => return subcommand_syntax_error(args),
    };
    if bits <= 0 || bits > 4096 {
        return Frame::err(
            "ERR ACL GENPASS argument must be the number of bits for the output password, a \
             positive number up to 4096",
        );
    }
    let chars = (bits as usize).div_ceil(4);
    let hex = b"0123456789abcdef";
    let pass: Vec<u8> = (0..chars).map(|_| hex[ctx.srv.rng.pick(..16)]).collect();
    Frame::Bulk(pass)
}

fn acl_log(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut count = 10i64;
    match args.len() {
        2 => {}
        3 if is(&args[2], "reset") => {
            ctx.srv.acl.log.clear();
            return Frame::ok();
        }
        3 => match arg_i64(&args[2]) {
            Ok(n) => count = n.max(0),
            Err(_) => return Frame::err(NOT_INTEGER),
        },
        _ => return subcommand_syntax_error(args),
    }
    let now = ctx.srv.now_ms() as u64;
    let entries = ctx
        .srv
        .acl
        .log
        .iter()
        .take(count as usize)
        .map(|e| {
            Frame::Map(vec![
                (Frame::bulk("count"), Frame::Integer(e.count as i64)),
                (Frame::bulk("reason"), Frame::bulk(e.reason.reason())),
                (Frame::bulk("context"), Frame::bulk(e.context.name())),
                (Frame::bulk("object"), Frame::bulk(&e.object)),
                (Frame::bulk("username"), Frame::bulk(&e.username)),
                (
                    Frame::bulk("age-seconds"),
                    Frame::Double(now.saturating_sub(e.ctime_ms) as f64 / 1000.0),
                ),
                (Frame::bulk("client-info"), Frame::bulk(&e.client_info)),
                (Frame::bulk("entry-id"), Frame::Integer(e.entry_id as i64)),
                (
                    Frame::bulk("timestamp-created"),
                    Frame::Integer(e.created_ms as i64),
                ),
                (
                    Frame::bulk("timestamp-last-updated"),
                    Frame::Integer(e.ctime_ms as i64),
                ),
            ])
        })
        .collect();
    Frame::Array(entries)
}

fn acl_dryrun(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let name = String::from_utf8_lossy(&args[2]).into_owned();
    let Some(u) = ctx.srv.acl.users.get(&name) else {
        return Frame::err(format!("ERR User '{name}' not found"));
    };
    let line = &args[3..];
    let base = (ctx.reg.lookup)(&line[0]);
    let found = match base {
        Some(b) if !b.subcommands.is_empty() && line.len() >= 2 => {
            b.subcommand(&line[1]).map(|s| (Some(b), s))
        }
        Some(b) => Some((None, b)),
        None => None,
    };
    let Some((parent, cmd)) = found else {
        return Frame::err(format!(
            "ERR Command '{}' not found",
            String::from_utf8_lossy(&line[0])
        ));
    };
    let full = full_name(parent, cmd);
    let argc = line.len() as i32;
    if (cmd.arity > 0 && cmd.arity != argc) || argc < -cmd.arity {
        return Frame::err(format!(
            "ERR wrong number of arguments for '{full}' command"
        ));
    }
    match check::check_user(ctx.reg, u, parent, cmd, line) {
        Ok(()) => Frame::ok(),
        Err((d, pos)) => Frame::bulk(check::error_message(d, &name, &full, &line[pos], true)),
    }
}

fn acl_help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "CAT [<category>]",
            "    List all commands that belong to <category>, or all command categories",
            "    when no category is specified.",
            "DELUSER <username> [<username> ...]",
            "    Delete a list of users.",
            "DRYRUN <username> <command> [<arg> ...]",
            "    Returns whether the user can execute the given command without executing the command.",
            "GETUSER <username>",
            "    Get the user's details.",
            "GENPASS [<bits>]",
            "    Generate a secure 256-bit user password. The optional `bits` argument can",
            "    be used to specify a different size.",
            "LIST",
            "    Show users details in config file format.",
            "LOAD",
            "    Reload users from the ACL file.",
            "LOG [<count> | RESET]",
            "    Show the ACL log entries.",
            "SAVE",
            "    Save the current config to the ACL file.",
            "SETUSER <username> <attribute> [<attribute> ...]",
            "    Create or modify a user with the specified attributes.",
            "USERS",
            "    List all the registered usernames.",
            "WHOAMI",
            "    Return the current connection username.",
        ],
    )
}
