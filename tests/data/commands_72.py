#!/usr/bin/env python3
"""Writes tests/data/commands-7.2.txt, the facts of Redis 7.2's command table that COMMAND INFO
shows (name, arity, flags, ACL categories), from the `commands.def` of a Redis 7.2 source tree
(7.2.4 and 7.2.6 have the same one), so `tests/table_72.rs` can hold Redsim's table to 7.2
itself rather than to the 7.0 server the differential tests run.

Usage: python3 tests/data/commands_72.py path/to/redis/src/commands.def > tests/data/commands-7.2.txt

What COMMAND INFO adds at run time is applied as 7.2's server.c does:
- the implicit ACL categories (setImplicitACLCategories): write, read (not for scripting
  commands), admin and dangerous, pubsub, fast, blocking, and slow for whatever is not fast;
- only the flags addReplyFlagsForCommand shows (may_replicate, sentinel, only_sentinel,
  protected and touches_arbitrary_keys are hidden); movablekeys, which comes from the key
  specs, is left out;
- commands flagged only_sentinel are not in a plain server's table.
"""

import re
import sys

# addReplyFlagsForCommand's order (7.2 server.c); hidden flags map to None.
FLAGS = [
    ("CMD_WRITE", "write"), ("CMD_READONLY", "readonly"), ("CMD_DENYOOM", "denyoom"),
    ("CMD_MODULE", "module"), ("CMD_ADMIN", "admin"), ("CMD_PUBSUB", "pubsub"),
    ("CMD_NOSCRIPT", "noscript"), ("CMD_BLOCKING", "blocking"), ("CMD_LOADING", "loading"),
    ("CMD_STALE", "stale"), ("CMD_SKIP_MONITOR", "skip_monitor"),
    ("CMD_SKIP_SLOWLOG", "skip_slowlog"), ("CMD_ASKING", "asking"), ("CMD_FAST", "fast"),
    ("CMD_NO_AUTH", "no_auth"), ("CMD_MAY_REPLICATE", None), ("CMD_SENTINEL", None),
    ("CMD_ONLY_SENTINEL", None), ("CMD_NO_MANDATORY_KEYS", "no_mandatory_keys"),
    ("CMD_PROTECTED", None), ("CMD_NO_ASYNC_LOADING", "no_async_loading"),
    ("CMD_NO_MULTI", "no_multi"), ("CMD_ALLOW_BUSY", "allow_busy"),
    ("CMD_TOUCHES_ARBITRARY_KEYS", None),
]
# ACLCommandCategories' order (7.2 acl.c).
CATEGORIES = ["keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
              "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
              "blocking", "dangerous", "connection", "transaction", "scripting"]


def split_args(text):
    """MAKE_CMD's arguments: commas outside string literals and parentheses."""
    out, cur, depth, quoted, escaped = [], "", 0, False, False
    for ch in text:
        if quoted:
            cur += ch
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                out.append(cur.strip())
                return out
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    raise ValueError("unterminated MAKE_CMD")


def bits(expr, prefix):
    return set() if expr.strip() == "0" else {t.strip()[len(prefix):].lower() for t in expr.split("|")}


def main(path):
    table = None
    entries = []  # (table, name, arity, flags, acl, subcommands table)
    for line in open(path, encoding="utf-8"):
        m = re.match(r"struct COMMAND_STRUCT (\w+)\[\] = \{", line)
        if m:
            table = m.group(1)
            continue
        at = line.find("{MAKE_CMD(")
        if at < 0:
            continue
        args = split_args(line[at + len("{MAKE_CMD("):])
        subs = re.search(r"\.subcommands=(\w+)", line)
        # name, summary, complexity, since, doc flags, replaced by, deprecated since, group,
        # group enum, history, #history, tips, #tips, function, arity, flags, ACL categories, ...
        entries.append((table, args[0].strip('"'), int(args[14]), args[15], args[16],
                        subs.group(1) if subs else None))
    parents = {subs: name for _, name, _, _, _, subs in entries if subs}
    rows = []
    for table, name, arity, flag_expr, acl_expr, _ in entries:
        flags = bits(flag_expr, "CMD_")
        if "only_sentinel" in flags:
            continue
        acl = bits(acl_expr, "ACL_CATEGORY_")
        if "write" in flags:
            acl.add("write")
        if "readonly" in flags and "scripting" not in acl:
            acl.add("read")
        if "admin" in flags:
            acl |= {"admin", "dangerous"}
        if "pubsub" in flags:
            acl.add("pubsub")
        if "fast" in flags:
            acl.add("fast")
        if "blocking" in flags:
            acl.add("blocking")
        if "fast" not in acl:
            acl.add("slow")
        shown = [n for c, n in FLAGS if n and c[len("CMD_"):].lower() in flags]
        full = name if table == "redisCommandTable" else parents[table] + "|" + name
        rows.append("%s %d %s %s" % (full, arity, ",".join(shown) or "-",
                                     ",".join(c for c in CATEGORIES if c in acl)))
    print("# Redis 7.2's command table as COMMAND INFO shows it: name arity flags acl-categories")
    print("# (flags without movablekeys). Written by tests/data/commands_72.py from 7.2.4's commands.def.")
    for row in sorted(rows):
        print(row)


if __name__ == "__main__":
    main(sys.argv[1])
