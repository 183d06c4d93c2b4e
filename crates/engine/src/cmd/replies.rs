//! Reply shapes several families build the same way: a container's HELP (`addReplyHelp`), the subcommand syntax error (`addReplySubcommandSyntaxError`), and `?`-style handlers collapsed into one reply.

use super::args::preview;
use crate::proto::resp::Frame;

/// `addReplyHelp`: a header naming the command as typed (upper-cased), the
/// lines, and HELP's own two lines.
pub(crate) fn help_reply(args: &[Vec<u8>], lines: &[&str]) -> Frame {
    let cmd = preview(&args[0], usize::MAX).to_ascii_uppercase();
    let mut out = vec![Frame::simple(format!(
        "{cmd} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    ))];
    out.extend(lines.iter().map(|l| Frame::simple(l.to_string())));
    out.push(Frame::Simple("HELP".into()));
    out.push(Frame::Simple("    Print this help.".into()));
    Frame::Array(out)
}

/// `addReplySubcommandSyntaxError`: a known subcommand with an argument
/// count its handler does not take (`%.128s` of the subcommand, as a C string).
pub(crate) fn subcommand_syntax_error(args: &[Vec<u8>]) -> Frame {
    Frame::err(format!(
        "ERR unknown subcommand or wrong number of arguments for '{}'. Try {} HELP.",
        preview(&args[1], 128),
        preview(&args[0], usize::MAX).to_ascii_uppercase()
    ))
}

/// Collapses `Result<Frame, Frame>` from `?`-style handlers into a reply.
pub fn reply(r: Result<Frame, Frame>) -> Frame {
    r.unwrap_or_else(|e| e)
}
