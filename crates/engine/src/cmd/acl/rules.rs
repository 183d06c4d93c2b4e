//! ACL rules as ACL SETUSER, ACL LOAD and the ACL file read them (`ACLSetUser`, `ACLSetSelector`), command ids for the selectors' bitmaps, and users described back as rules (`ACLDescribeUser`).

use std::sync::OnceLock;

use crate::acl::{hash_password, valid_hash, KeyPattern, Selector, User, PERM_ALL};
use crate::acl::{PERM_READ, PERM_WRITE};
use crate::cmd::server::acl_categories;
use crate::cmd::table::{Acl, Command, Registry};

/// Why a rule was refused: `ACLSetUserStringError`'s texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// ENOENT
    Unknown,
    /// EINVAL
    Syntax,
    /// EEXIST
    AfterAllKeys,
    /// EISDIR
    AfterAllChannels,
    /// ENODEV
    NoSuchPassword,
    /// EBADMSG
    BadHash,
    /// ECHILD
    SubcommandFirstArg,
}

impl RuleError {
    pub fn text(self) -> &'static str {
        match self {
            RuleError::Unknown => "Unknown command or category name in ACL",
            RuleError::Syntax => "Syntax error",
            RuleError::AfterAllKeys => {
                "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and \
                 does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
            }
            RuleError::AfterAllChannels => {
                "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid \
                 and does not have any effect. Try 'resetchannels' to start with an empty list of \
                 channels"
            }
            RuleError::NoSuchPassword => {
                "The password you are trying to remove from the user does not exist"
            }
            RuleError::BadHash => {
                "The password hash must be exactly 64 characters and contain only lowercase \
                 hexadecimal characters"
            }
            RuleError::SubcommandFirstArg => "Allowing first-arg of a subcommand is not supported",
        }
    }
}

/// Every command and subcommand's id (its bit in a selector), in table
/// order, found by address.
fn ids(reg: &'static Registry) -> &'static [(usize, usize)] {
    static IDS: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    IDS.get_or_init(|| {
        let mut v: Vec<(usize, usize)> = reg
            .every_command()
            .enumerate()
            .map(|(i, (_, c))| (c as *const Command as usize, i))
            .collect();
        crate::sort::sort(&mut v);
        v
    })
}

/// The id of `cmd` (a top-level command or a subcommand of the table).
pub fn command_id(reg: &'static Registry, cmd: &Command) -> usize {
    let addr = cmd as *const Command as usize;
    let t = ids(reg);
    t.binary_search_by_key(&addr, |&(a, _)| a)
        .map(|i| t[i].1)
        .unwrap_or(usize::MAX)
}

/// `ACLChangeSelectorPerm`: the command's bit and, for a container, every
/// subcommand's.
fn change_perm(reg: &'static Registry, s: &mut Selector, cmd: &Command, allow: bool) {
    let id = command_id(reg, cmd);
    s.set_bit(id, allow);
    s.firstargs.remove(&id);
    for sub in cmd.subcommands {
        s.set_bit(command_id(reg, sub), allow);
    }
}

/// `ACLUpdateCommandRules`: drops earlier rules for the same command (and
/// its subcommands), then appends `+rule` or `-rule`.
fn update_rules(s: &mut Selector, rule: &str, allow: bool) {
    let rule = rule.to_ascii_lowercase();
    let kept: Vec<&str> = s
        .rules
        .split(' ')
        .filter(|r| !r.is_empty())
        .filter(|r| {
            let body = &r[1..];
            !(body == rule
                || (body.len() > rule.len()
                    && body.starts_with(rule.as_str())
                    && body.as_bytes()[rule.len()] == b'|'))
        })
        .collect();
    let mut out = kept.join(" ");
    if !out.is_empty() {
        out.push(' ');
    }
    out.push(if allow { '+' } else { '-' });
    out.push_str(&rule);
    s.rules = out;
}

/// `lookupCommandBySdsLogic` on `name` or `container|sub`.
fn lookup(
    reg: &'static Registry,
    name: &[u8],
) -> Option<(Option<&'static Command>, &'static Command)> {
    reg.lookup_full_name(name)
}

/// `ACLSetSelector`: one rule on one selector.
pub fn set_selector(reg: &'static Registry, s: &mut Selector, op: &[u8]) -> Result<(), RuleError> {
    if op.is_empty() {
        // An empty word inside a selector (`("")`): Redis reads its NUL.
        return Err(RuleError::Syntax);
    }
    let lower = op.to_ascii_lowercase();
    match lower.as_slice() {
        b"allkeys" | b"~*" => {
            s.allkeys = true;
            s.patterns.clear();
            return Ok(());
        }
        b"resetkeys" => {
            s.allkeys = false;
            s.patterns.clear();
            return Ok(());
        }
        b"allchannels" | b"&*" => {
            s.allchannels = true;
            s.channels.clear();
            return Ok(());
        }
        b"resetchannels" => {
            s.allchannels = false;
            s.channels.clear();
            return Ok(());
        }
        b"allcommands" | b"+@all" => {
            s.all_commands(true);
            return Ok(());
        }
        b"nocommands" | b"-@all" => {
            s.all_commands(false);
            return Ok(());
        }
        _ => {}
    }
    match op[0] {
        b'~' | b'%' => {
            if s.allkeys {
                return Err(RuleError::AfterAllKeys);
            }
            let mut flags = 0u8;
            let mut offset = 1;
            if op[0] == b'%' {
                loop {
                    let Some(&c) = op.get(offset) else {
                        return Err(RuleError::Syntax);
                    };
                    match c.to_ascii_uppercase() {
                        b'R' if flags & PERM_READ == 0 => flags |= PERM_READ,
                        b'W' if flags & PERM_WRITE == 0 => flags |= PERM_WRITE,
                        b'~' if flags != 0 => {
                            offset += 1;
                            break;
                        }
                        _ => return Err(RuleError::Syntax),
                    }
                    offset += 1;
                }
            } else {
                flags = PERM_ALL;
            }
            let pattern = &op[offset..];
            if has_spaces(pattern) {
                return Err(RuleError::Syntax);
            }
            match s.patterns.iter_mut().find(|p| p.pattern == pattern) {
                Some(p) => p.flags |= flags,
                None => s.patterns.push(KeyPattern {
                    pattern: pattern.to_vec(),
                    flags,
                }),
            }
            s.allkeys = false;
        }
        b'&' => {
            if s.allchannels {
                return Err(RuleError::AfterAllChannels);
            }
            let pattern = &op[1..];
            if has_spaces(pattern) {
                return Err(RuleError::Syntax);
            }
            if !s.channels.iter().any(|c| c == pattern) {
                s.channels.push(pattern.to_vec());
            }
            s.allchannels = false;
        }
        b'+' | b'-' if op.get(1) == Some(&b'@') => {
            let allow = op[0] == b'+';
            let cat = Acl::named(&op[2..]).ok_or(RuleError::Unknown)?;
            update_rules(s, &String::from_utf8_lossy(&op[1..]), allow);
            for (_, cmd) in reg.every_command() {
                if acl_categories(cmd).contains(cat) {
                    change_perm(reg, s, cmd, allow);
                }
            }
        }
        b'+' => {
            let body = &op[1..];
            match body.iter().rposition(|&b| b == b'|') {
                None => {
                    let (parent, cmd) = lookup(reg, body).ok_or(RuleError::Unknown)?;
                    change_perm(reg, s, cmd, true);
                    update_rules(s, &full_name(parent, cmd), true);
                }
                Some(bar) => {
                    let (base, sub) = (&body[..bar], &body[bar + 1..]);
                    let (parent, cmd) = lookup(reg, base).ok_or(RuleError::Unknown)?;
                    if parent.is_some() {
                        return Err(RuleError::SubcommandFirstArg);
                    }
                    if sub.is_empty() {
                        return Err(RuleError::Syntax);
                    }
                    if cmd.subcommands.is_empty() {
                        let id = command_id(reg, cmd);
                        let list = s.firstargs.entry(id).or_default();
                        if !list.iter().any(|a| a.eq_ignore_ascii_case(sub)) {
                            list.push(sub.to_vec());
                        }
                    } else {
                        let (_, subcmd) = lookup(reg, body).ok_or(RuleError::Unknown)?;
                        change_perm(reg, s, subcmd, true);
                    }
                    update_rules(s, &String::from_utf8_lossy(body), true);
                }
            }
        }
        b'-' => {
            let (parent, cmd) = lookup(reg, &op[1..]).ok_or(RuleError::Unknown)?;
            change_perm(reg, s, cmd, false);
            update_rules(s, &full_name(parent, cmd), false);
        }
        _ => return Err(RuleError::Syntax),
    }
    Ok(())
}

fn full_name(parent: Option<&Command>, cmd: &Command) -> String {
    crate::cmd::table::full_name(parent, cmd)
}

/// `ACLStringHasSpaces`: spaces or NULs.
pub fn has_spaces(s: &[u8]) -> bool {
    s.iter().any(|&b| b == b' ' || b == 0)
}

/// `ACLSetUser`: one rule on a user.
pub fn set_user(
    reg: &'static Registry,
    u: &mut User,
    op: &[u8],
    pubsub_all: bool,
) -> Result<(), RuleError> {
    if op.is_empty() {
        return Ok(());
    }
    let lower = op.to_ascii_lowercase();
    match lower.as_slice() {
        b"on" => u.enabled = true,
        b"off" => u.enabled = false,
        b"skip-sanitize-payload" => u.skip_sanitize = true,
        b"sanitize-payload" => u.skip_sanitize = false,
        b"nopass" => {
            u.nopass = true;
            u.passwords.clear();
        }
        b"resetpass" => {
            u.nopass = false;
            u.passwords.clear();
        }
        b"clearselectors" => u.selectors.truncate(1),
        b"reset" => {
            u.nopass = false;
            u.passwords.clear();
            let root = &mut u.selectors[0];
            set_selector(reg, root, b"resetkeys")?;
            set_selector(reg, root, b"resetchannels")?;
            if pubsub_all {
                set_selector(reg, root, b"allchannels")?;
            }
            u.enabled = false;
            u.skip_sanitize = false;
            u.selectors.truncate(1);
            set_selector(reg, &mut u.selectors[0], b"-@all")?;
        }
        _ => match op[0] {
            b'>' | b'#' => {
                let hash = if op[0] == b'>' {
                    hash_password(&op[1..])
                } else {
                    if !valid_hash(&op[1..]) {
                        return Err(RuleError::BadHash);
                    }
                    String::from_utf8_lossy(&op[1..]).into_owned()
                };
                if !u.passwords.contains(&hash) {
                    u.passwords.push(hash);
                }
                u.nopass = false;
            }
            b'<' | b'!' => {
                let hash = if op[0] == b'<' {
                    hash_password(&op[1..])
                } else {
                    if !valid_hash(&op[1..]) {
                        return Err(RuleError::BadHash);
                    }
                    String::from_utf8_lossy(&op[1..]).into_owned()
                };
                let pos = u.passwords.iter().position(|p| *p == hash);
                match pos {
                    Some(i) => {
                        u.passwords.remove(i);
                    }
                    None => return Err(RuleError::NoSuchPassword),
                }
            }
            b'(' if op.len() >= 2 && op[op.len() - 1] == b')' => {
                let mut s = Selector::default();
                // Unbalanced quotes split into no words: an empty selector,
                // as `sdssplitargs` failing leaves it in Redis.
                for word in split_args(&op[1..op.len() - 1]).unwrap_or_default() {
                    set_selector(reg, &mut s, &word)?;
                }
                u.selectors.push(s);
            }
            _ => set_selector(reg, &mut u.selectors[0], op)?,
        },
    }
    Ok(())
}

/// `ACLMergeSelectorArguments`: words from `(` to the word ending in `)`
/// become one rule; `Err(i)` names an unclosed selector's first word.
pub fn merge_selectors(args: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, usize> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Vec<u8>)> = None;
    for (j, op) in args.iter().enumerate() {
        if let Some((_, sel)) = open.as_mut() {
            sel.push(b' ');
            sel.extend_from_slice(op);
            if op.last() == Some(&b')') {
                out.push(open.take().expect("open").1);
            }
            continue;
        }
        if op.first() == Some(&b'(') && op.last() != Some(&b')') {
            open = Some((j, op.clone()));
            continue;
        }
        out.push(op.clone());
    }
    match open {
        Some((j, _)) => Err(j),
        None => Ok(out),
    }
}

/// `sdssplitargs` for the words inside a selector: spaces separate,
/// quotes group; `None` for unbalanced quotes.
pub fn split_args(s: &[u8]) -> Option<Vec<Vec<u8>>> {
    crate::proto::resp::split_args(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acl::describe_commands;
    use crate::cmd::REGISTRY;

    fn user(rules: &[&str]) -> Result<User, RuleError> {
        let mut u = User::new("u", false);
        for r in rules {
            set_user(&REGISTRY, &mut u, r.as_bytes(), false)?;
        }
        Ok(u)
    }

    #[test]
    fn odd_rules_are_errors_not_panics() {
        for bad in [
            "(\"\")", "%", "%R", "%RR~a", "-", "+", "+|", "+get|", "~", "&",
        ] {
            let _ = user(&[bad]);
        }
        assert_eq!(user(&["(\"\")"]).err(), Some(RuleError::Syntax));
        assert_eq!(user(&["%R"]).err(), Some(RuleError::Syntax));
        assert_eq!(user(&["+"]).err(), Some(RuleError::Unknown));
        assert_eq!(user(&["+config|"]).err(), Some(RuleError::Syntax));
    }

    #[test]
    fn rules_keep_their_order_and_replace_earlier_ones() {
        let u = user(&["+@all", "-config", "+config|get", "-get", "+get"]).unwrap();
        assert_eq!(
            describe_commands(&u.selectors[0]),
            "+@all -config +config|get +get"
        );
        let u = user(&["-@all", "+select|0", "+select|1", "+select"]).unwrap();
        assert_eq!(describe_commands(&u.selectors[0]), "-@all +select");
        assert!(u.selectors[0].firstargs.is_empty());
    }
}
