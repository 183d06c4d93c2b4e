//! Typed key access for handlers, defined once for every value type: `lookupKeyRead` / `lookupKeyWrite` followed by `checkType` (WRONGTYPE for another type), a side-effect-free peek, and the in-place update that signals and traces only a change a client can see.

use super::table::Ctx;
use crate::keyspace::object::{RString, Value};
use crate::keyspace::types::{hash::Hash, list::List, set::Set, stream::Stream, zset::ZSet};
use crate::proto::resp::Frame;
use crate::server::trace::Event;
use crate::server::{lossy, Lookup, Server};

/// `checkType`'s error: a key holding another type than the command's.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

/// A value type a command expects at a key: how to find it in a [`Value`].
pub(crate) trait Kind: Sized {
    fn of(v: &Value) -> Option<&Self>;
    fn of_mut(v: &mut Value) -> Option<&mut Self>;
}

impl Kind for RString {
    fn of(v: &Value) -> Option<&Self> {
        match v {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    fn of_mut(v: &mut Value) -> Option<&mut Self> {
        match v {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Implements [`Kind`] for the collections, each boxed in its variant.
macro_rules! boxed_kinds {
    ($($variant:ident),*) => {$(
        impl Kind for $variant {
            fn of(v: &Value) -> Option<&Self> {
                match v {
                    Value::$variant(x) => Some(x),
                    _ => None,
                }
            }

            fn of_mut(v: &mut Value) -> Option<&mut Self> {
                match v {
                    Value::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    )*};
}

boxed_kinds!(List, Hash, Set, ZSet, Stream);

impl Ctx<'_> {
    /// `lookupKeyRead` + `checkType`: the `T` at `key`, `Ok(None)` when
    /// missing (a miss is counted, a hit touches the key).
    pub(crate) fn read<T: Kind>(&mut self, key: &[u8]) -> Result<Option<&T>, Frame> {
        self.lookup_typed(key, Lookup::READ).map(|t| t.map(|t| &*t))
    }

    /// `lookupKeyWrite` + `checkType`: the `T` at `key`, `Ok(None)` when missing.
    pub(crate) fn write<T: Kind>(&mut self, key: &[u8]) -> Result<Option<&mut T>, Frame> {
        self.lookup_typed(key, Lookup::WRITE)
    }

    /// [`Ctx::read`] when only existence matters.
    pub(crate) fn read_exists<T: Kind>(&mut self, key: &[u8]) -> Result<bool, Frame> {
        self.read::<T>(key).map(|t| t.is_some())
    }

    /// [`Ctx::write`] when only existence matters.
    pub(crate) fn write_exists<T: Kind>(&mut self, key: &[u8]) -> Result<bool, Frame> {
        self.write::<T>(key).map(|t| t.is_some())
    }

    /// [`Ctx::read`] for a command that needs the key: `Err` is the reply
    /// to give instead, WRONGTYPE or `missing()` for no key.
    pub(crate) fn read_or<T: Kind>(
        &mut self,
        key: &[u8],
        missing: impl FnOnce() -> Frame,
    ) -> Result<(), Frame> {
        self.lookup_or::<T>(key, Lookup::READ, missing)
    }

    /// [`Ctx::write`] for a command that needs the key: `Err` is the reply
    /// to give instead, WRONGTYPE or `missing()` for no key.
    pub(crate) fn write_or<T: Kind>(
        &mut self,
        key: &[u8],
        missing: impl FnOnce() -> Frame,
    ) -> Result<(), Frame> {
        self.lookup_or::<T>(key, Lookup::WRITE, missing)
    }

    fn lookup_or<T: Kind>(
        &mut self,
        key: &[u8],
        how: Lookup,
        missing: impl FnOnce() -> Frame,
    ) -> Result<(), Frame> {
        match self.lookup_typed::<T>(key, how)? {
            Some(_) => Ok(()),
            None => Err(missing()),
        }
    }

    #[inline]
    fn lookup_typed<T: Kind>(&mut self, key: &[u8], how: Lookup) -> Result<Option<&mut T>, Frame> {
        let db = self.db();
        match self.srv.lookup(db, key, how) {
            None => Ok(None),
            Some(obj) => match T::of_mut(&mut obj.value) {
                Some(t) => Ok(Some(t)),
                None => Err(Frame::err(WRONGTYPE)),
            },
        }
    }
}

/// The `T` under `key` with no lookup side effects.
pub(crate) fn peek<'a, T: Kind>(srv: &'a Server, db: usize, key: &[u8]) -> Option<&'a T> {
    T::of(&srv.dbs[db].get(key)?.value)
}

/// Removes the members or fields named in `items` one by one (SREM, HDEL,
/// ZREM), stopping once the value is empty as Redis' loops do: how many
/// were there.
pub(crate) fn remove_each<T>(
    t: &mut T,
    items: &[Vec<u8>],
    remove: impl Fn(&mut T, &[u8]) -> bool,
    is_empty: impl Fn(&T) -> bool,
) -> i64 {
    let mut removed = 0;
    for item in items {
        if remove(t, item) {
            removed += 1;
            if is_empty(t) {
                break;
            }
        }
    }
    removed
}

/// The `T` under `key` and the server's RNG, borrowed together (random
/// picks from a value).
pub(crate) fn peek_with_rng<'a, T: Kind>(
    srv: &'a mut Server,
    db: usize,
    key: &[u8],
) -> (Option<&'a T>, &'a mut fastrand::Rng) {
    let Server { dbs, rng, .. } = srv;
    (dbs[db].get(key).and_then(|o| T::of(&o.value)), rng)
}

/// Mutates the live `T` at `key` in place, memory accounted by the
/// database; `f` may draw from the server's RNG. `f` also says whether it
/// changed anything a client can see: only then is the key signalled
/// (WATCH) and the write traced, as Redis skips `signalModifiedKey` for a
/// no-op write even when the encoding changed. `None` if there is no `T`.
#[inline]
pub(crate) fn update<T: Kind, R>(
    srv: &mut Server,
    db: usize,
    key: &[u8],
    f: impl FnOnce(&mut T, &mut fastrand::Rng) -> (R, bool),
) -> Option<R> {
    let Server { dbs, rng, .. } = srv;
    let (r, changed) = dbs[db]
        .with_mut(key, |o| T::of_mut(&mut o.value).map(|t| f(t, rng)))
        .flatten()?;
    if changed {
        written(srv, db, key, true);
    }
    Some(r)
}

/// Records a write to `key` in the trace; `signal` also dooms transactions
/// watching it (`signalModifiedKey`), which Redis skips for some writes.
pub(crate) fn written(srv: &mut Server, db: usize, key: &[u8], signal: bool) {
    if signal {
        srv.touch_key(db, key);
    }
    srv.emit_with(|| Event::Written {
        db: db as u32,
        key: lossy(key),
    });
}

impl Ctx<'_> {
    /// `notifyKeyspaceEvent(class, event, key, c->db->id)`: a keyspace
    /// notification for `key` in the client's database.
    #[inline]
    pub(crate) fn notify(&mut self, class: u32, event: &str, key: &[u8]) {
        let db = self.db();
        self.srv.notify(class, event, key, db);
    }
}

impl Ctx<'_> {
    /// RESTORE's events (`restoreCommand`), the hook the command calls
    /// once it has decided: `stored` after the key was created through
    /// `set_key` (which raised `new`) gives `restore`; otherwise a TTL
    /// already past, with REPLACE having removed a key (`replaced`), gives `del`.
    pub(crate) fn notify_restore(&mut self, key: &[u8], stored: bool, replaced: bool) {
        use crate::server::keyspace_events::GENERIC;
        if stored {
            self.notify(GENERIC, "restore", key);
        } else if replaced {
            self.notify(GENERIC, "del", key);
        }
    }
}
