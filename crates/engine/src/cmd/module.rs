//! MODULE: HELP, LIST, LOAD, LOADEX and UNLOAD, answering as a Redis 7.2 server with no module loaded that cannot load one.
//!
//! Redsim runs no native code, so every LOAD and LOADEX fails with the
//! error Redis gives when a module does not load, and UNLOAD finds no such
//! module. LOAD, LOADEX and UNLOAD are protected, as in Redis: refused
//! unless `enable-module-command` allows them (see `dispatch`).

use super::replies::help_reply;
use super::table::{commands, container, Command, Ctx};
use crate::proto::resp::Frame;

pub(super) static COMMANDS: &[Command] = commands! { heavy; group: "server";
    "module" => container, arity: -2, flags: [], acl: [SLOW], since: "4.0.0",
        syntax: "MODULE <HELP | LIST | LOAD | LOADEX | UNLOAD> [arg ...]", summary: "Lists, loads and unloads server modules (none can load here).", subcommands: MODULE_SUBCOMMANDS;
};

/// MODULE's subcommands, as Redis 7.2's command table declares them.
static MODULE_SUBCOMMANDS: &[Command] = commands! { heavy; group: "server";
    "help" => help, arity: 2, flags: [LOADING, STALE], acl: [SLOW], since: "5.0.0",
        syntax: "MODULE HELP", summary: "Lists MODULE's subcommands.";
    "list" => list, arity: 2, flags: [ADMIN, NOSCRIPT], acl: [ADMIN, SLOW, DANGEROUS], since: "4.0.0",
        syntax: "MODULE LIST", summary: "Lists the loaded modules (always none).";
    "load" => load, arity: -3, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, PROTECTED], acl: [ADMIN, SLOW, DANGEROUS], since: "4.0.0",
        syntax: "MODULE LOAD path [arg [arg ...]]", summary: "Loads a module from a shared library (refused: no native code runs here).";
    "loadex" => load, arity: -3, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, PROTECTED], acl: [ADMIN, SLOW, DANGEROUS], since: "7.0.0",
        syntax: "MODULE LOADEX path [CONFIG name value [CONFIG name value ...]] [ARGS args [args ...]]", summary: "Loads a module with configuration and arguments (refused: no native code runs here).";
    "unload" => unload, arity: 3, flags: [ADMIN, NOSCRIPT, NO_ASYNC_LOADING, PROTECTED], acl: [ADMIN, SLOW, DANGEROUS], since: "4.0.0",
        syntax: "MODULE UNLOAD name", summary: "Unloads a module (there is none).";
};

fn help(_: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    help_reply(
        args,
        &[
            "LIST",
            "    Return a list of loaded modules.",
            "LOAD <path> [<arg> ...]",
            "    Load a module library from <path>, passing to it any optional arguments.",
            "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
            "    Load a module library from <path>, while passing it module configurations and optional arguments.",
            "UNLOAD <name>",
            "    Unload a module.",
        ],
    )
}

/// `addReplyLoadedModules` with no module loaded.
fn list(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::Array(Vec::new())
}

/// What Redis replies when `moduleLoad` fails (a library that does not
/// open, or bad LOADEX arguments): here every library.
fn load(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR Error loading the extension. Please check the server logs.")
}

fn unload(_: &mut Ctx, _: &[Vec<u8>]) -> Frame {
    Frame::err("ERR Error unloading module: no such module with that name")
}

#[cfg(test)]
mod tests {
    use crate::{Engine, Frame};

    const LOAD_FAILS: &str = "ERR Error loading the extension. Please check the server logs.";

    #[test]
    fn a_server_without_modules_that_cannot_load_one() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        assert_eq!(e.execute_line(c, "MODULE LIST"), Frame::Array(vec![]));
        let Frame::Array(help) = e.execute_line(c, "MODULE HELP") else {
            panic!("MODULE HELP");
        };
        assert_eq!(
            help[0],
            Frame::simple("MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        );
        assert_eq!(help[7], Frame::simple("UNLOAD <name>"));
        assert_eq!(help.len(), 11);
        // Protected, as enable-module-command's default (no) leaves them.
        let refused = Frame::err(
            "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", \
             you can run it from a local connection, otherwise you need to set this option in the \
             configuration file, and then restart the server.",
        );
        for line in [
            "MODULE LOAD /x.so",
            "MODULE LOADEX /x.so",
            "MODULE UNLOAD m",
        ] {
            assert_eq!(e.execute_line(c, line), refused, "{line}");
        }
        // Arity is checked first, as in processCommand.
        assert_eq!(
            e.execute_line(c, "MODULE UNLOAD"),
            Frame::err("ERR wrong number of arguments for 'module|unload' command")
        );
        assert_eq!(
            e.execute_line(c, "MODULE NOSUCH"),
            Frame::err("ERR unknown subcommand 'NOSUCH'. Try MODULE HELP.")
        );
        let mut o = crate::Options::new(1);
        o.config.enable_module_command = "yes".into();
        let mut e = Engine::with_options(o);
        let c = e.connect("t");
        assert_eq!(
            e.execute_line(c, "MODULE LOAD /x.so a b"),
            Frame::err(LOAD_FAILS)
        );
        assert_eq!(
            e.execute_line(c, "MODULE LOADEX /x.so CONFIG n v ARGS a"),
            Frame::err(LOAD_FAILS)
        );
        assert_eq!(
            e.execute_line(c, "MODULE UNLOAD m"),
            Frame::err("ERR Error unloading module: no such module with that name")
        );
        assert_eq!(
            e.execute_line(c, "CONFIG GET enable-module-command"),
            Frame::Map(vec![(
                Frame::bulk("enable-module-command"),
                Frame::bulk("yes")
            )])
        );
    }
}
