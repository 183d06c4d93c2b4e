//! Redis glob-style pattern matching (`stringmatchlen`), for KEYS, SCAN MATCH and CONFIG GET.
//!
//! Supported syntax, as in Redis: `*` (any run), `?` (one byte), `[...]`
//! (a set, `^` negates, `a-z` ranges in either order, `\x` escapes) and `\x`
//! outside sets. Malformed patterns (an unclosed `[`, a trailing `\`) are not
//! errors: they match the way Redis' C code happens to treat them, which
//! this port reproduces case by case, including its reading of the string's
//! terminating NUL (modelled as byte 0 past the end) and its signed `char`
//! comparisons in ranges.
//!
//! Backtracking on `*` is what makes naive glob matchers exponential. Redis
//! avoids it with `skipLongerMatches`: once the rest of the pattern has
//! failed at every later position, no earlier `*` can succeed by consuming
//! more, so the whole match fails at once. Redis 7.2.5 also added a nesting
//! cap: past 1000 nested `*` the match fails. Both are reproduced, so results
//! are identical and time is polynomial.

/// Deepest `*` recursion Redis 7.2 allows before reporting "no match".
pub const MAX_NESTING: u32 = 1000;

/// True if `string` matches the glob `pattern` (`stringmatchlen`).
pub fn matches(pattern: &[u8], string: &[u8], nocase: bool) -> bool {
    let mut skip_longer = false;
    match_from(pattern, 0, string, 0, nocase, &mut skip_longer, 0)
}

/// The byte at `i`, or 0 past the end: C reads the string's NUL terminator there.
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// C's `tolower` in the C locale on a (possibly negative) `char` value.
fn lower(c: i32) -> i32 {
    if (b'A' as i32..=b'Z' as i32).contains(&c) {
        c + 32
    } else {
        c
    }
}

/// A byte as C's signed `char` widened to `int` (x86 `char` is signed).
fn signed(b: u8) -> i32 {
    b as i8 as i32
}

fn same(a: u8, b: u8, nocase: bool) -> bool {
    if nocase {
        lower(signed(a)) == lower(signed(b))
    } else {
        a == b
    }
}

#[cfg(test)]
thread_local! {
    /// Calls of `match_from`, so tests can bound the work a pattern costs.
    static CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// `stringmatchlen_impl` on `pat[p..]` against `s[si..]`. Positions stand in
/// for C's advancing pointers; remaining lengths are `len - position`.
fn match_from(
    pat: &[u8],
    mut p: usize,
    s: &[u8],
    mut si: usize,
    nocase: bool,
    skip_longer: &mut bool,
    nesting: u32,
) -> bool {
    #[cfg(test)]
    CALLS.with(|c| c.set(c.get() + 1));
    if nesting > MAX_NESTING {
        return false;
    }
    let plen = pat.len();
    let slen = s.len();
    while p < plen && si < slen {
        match pat[p] {
            b'*' => {
                while p < plen && at(pat, p + 1) == b'*' {
                    p += 1;
                }
                if plen - p == 1 {
                    return true;
                }
                while si < slen {
                    if match_from(pat, p + 1, s, si, nocase, skip_longer, nesting + 1) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    si += 1;
                }
                // The rest failed from every position: longer matches for an
                // earlier `*` cannot help either.
                *skip_longer = true;
                return false;
            }
            b'?' => si += 1,
            b'[' => {
                p += 1;
                let not = at(pat, p) == b'^';
                if not {
                    p += 1;
                }
                let c = s[si];
                let mut hit = false;
                loop {
                    let rest = plen.saturating_sub(p);
                    if at(pat, p) == b'\\' && rest >= 2 {
                        p += 1;
                        if pat[p] == c {
                            hit = true;
                        }
                    } else if at(pat, p) == b']' {
                        break;
                    } else if rest == 0 {
                        // Unclosed set: step back so the shared advance below
                        // lands exactly on the end of the pattern.
                        p -= 1;
                        break;
                    } else if rest >= 3 && pat[p + 1] == b'-' {
                        let (mut start, mut end) = (signed(pat[p]), signed(pat[p + 2]));
                        let mut ch = signed(c);
                        if start > end {
                            std::mem::swap(&mut start, &mut end);
                        }
                        if nocase {
                            start = lower(start);
                            end = lower(end);
                            ch = lower(ch);
                        }
                        p += 2;
                        if ch >= start && ch <= end {
                            hit = true;
                        }
                    } else if same(pat[p], c, nocase) {
                        hit = true;
                    }
                    p += 1;
                }
                if not {
                    hit = !hit;
                }
                if !hit {
                    return false;
                }
                si += 1;
            }
            b'\\' => {
                if plen - p >= 2 {
                    p += 1;
                }
                if !same(pat[p], s[si], nocase) {
                    return false;
                }
                si += 1;
            }
            other => {
                if !same(other, s[si], nocase) {
                    return false;
                }
                si += 1;
            }
        }
        p += 1;
        if si == slen {
            while at(pat, p) == b'*' {
                p += 1;
            }
            break;
        }
    }
    p == plen && si == slen
}

#[cfg(test)]
mod tests {
    use super::matches;

    fn m(p: &str, s: &str) -> bool {
        matches(p.as_bytes(), s.as_bytes(), false)
    }

    #[test]
    fn basics() {
        // The C loop never runs on an empty string, so even "*" fails there
        // (KEYS special-cases a lone "*" before calling the matcher).
        assert!(!m("*", ""));
        assert!(!m("**", ""));
        assert!(m("*", "anything"));
        assert!(m("h?llo", "hello"));
        assert!(!m("h?llo", "hllo"));
        assert!(m("h*llo", "hllo"));
        assert!(m("h*llo", "heeeello"));
        assert!(m("h[ae]llo", "hallo"));
        assert!(!m("h[ae]llo", "hillo"));
        assert!(m("h[^e]llo", "hallo"));
        assert!(!m("h[^e]llo", "hello"));
        assert!(m("h[a-b]llo", "hbllo"));
        assert!(m("h[b-a]llo", "hallo"), "reversed ranges are swapped");
        assert!(!m("h[a-b]llo", "hcllo"));
        assert!(m("user:*:name", "user:42:name"));
        assert!(!m("user:*:name", "user:42:email"));
        assert!(!m("", "a"));
        assert!(m("", ""));
        assert!(!m("a", ""));
        assert!(m("a*", "a"));
        assert!(m("a**", "a"));
        assert!(!m("?", ""));
    }

    #[test]
    fn escapes() {
        assert!(m("h\\*llo", "h*llo"));
        assert!(!m("h\\*llo", "hello"));
        assert!(m("\\?", "?"));
        assert!(!m("\\?", "a"));
        assert!(m("[\\]]", "]"));
        assert!(m("[\\-]", "-"));
        // A trailing backslash matches itself.
        assert!(m("a\\", "a\\"));
    }

    #[test]
    fn malformed_sets_follow_the_c_code() {
        // An unclosed set still matches the one byte it lists.
        assert!(m("[a", "a"));
        assert!(!m("[a", "b"));
        assert!(m("[^a", "b"));
        // "[" alone: an empty unclosed set matches nothing, "[^" anything.
        assert!(!m("[", "a"));
        assert!(m("[^", "a"));
        // "[a-]" reads the range a..']' (swapped to ']'..'a').
        assert!(m("[a-]", "^"));
        assert!(m("[a-]", "a"));
        assert!(!m("[a-]", "b"));
        // "]" outside a set is a literal.
        assert!(m("]", "]"));
    }

    #[test]
    fn nocase() {
        assert!(matches(b"HeLLo", b"hello", true));
        assert!(matches(b"[A-C]x", b"bX", true));
        assert!(!matches(b"HeLLo", b"hello", false));
    }

    #[test]
    fn ranges_compare_signed_chars() {
        // 0xff is -1 as a C char: [a-\xff] is the range -1..'a'.
        assert!(matches(b"[a-\xff]", b"\x00", false));
        assert!(matches(b"[a-\xff]", b"\xff", false));
        assert!(!matches(b"[a-\xff]", b"b", false));
        assert!(!matches(b"[a-\xff]", b"\x80", false));
    }

    #[test]
    fn binary_safe() {
        assert!(matches(b"a\x00*", b"a\x00bc", false));
        assert!(!matches(b"a\x00", b"a", false));
    }

    /// Matcher calls made by `f`.
    fn calls(f: impl FnOnce()) -> u64 {
        let before = super::CALLS.with(|c| c.get());
        f();
        super::CALLS.with(|c| c.get()) - before
    }

    #[test]
    fn pathological_patterns_are_polynomial() {
        // The classic exponential case for naive backtracking: C(100, 50)
        // ways to split the run; with skipLongerMatches, a few per position.
        let s = "a".repeat(100);
        let p = format!("{}b", "a*".repeat(50));
        let n = calls(|| assert!(!m(&p, &s)));
        assert!(n <= 1_000, "{n} calls");
        assert!(m(&format!("{}a", "a*".repeat(50)), &s));
        // Redis' own test: "*a*a*a...*b" against a long run of "a".
        let long = "a".repeat(5000);
        let p2 = format!("{}b", "*a".repeat(300));
        let n = calls(|| assert!(!m(&p2, &long)));
        assert!(n <= 20_000, "{n} calls");
    }

    #[test]
    fn nesting_limit_of_redis_7_2() {
        // Redis 7.2.5+ stops past 1000 nested '*': a pattern that would
        // match needs 1001 levels here, so it reports no match. (7.0 and
        // 7.2.4 had no cap and would match.)
        let s = "a".repeat(1100);
        let deep = format!("{}a", "*a".repeat(1001));
        assert!(!m(&deep, &s));
        let edge = format!("{}a", "*a".repeat(1000));
        assert!(m(&edge, &s));
        let shallow = format!("{}a", "*a".repeat(999));
        assert!(m(&shallow, &s));
    }
}
