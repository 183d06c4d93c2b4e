//! Values in RDB's object encoding (rdb.c's `rdbSaveObject` and `rdbLoadObject`): what DUMP writes and RESTORE reads, type byte first.
//!
//! `save` writes each encoding as Redis 7.2 does, byte for byte (the
//! listpack, intset and quicklist blobs, LZF compression, integer strings,
//! binary doubles, streams with their groups). `load` reads every type 7.2
//! reads, the legacy ones included (plain lists, ziplists, zipmaps, text
//! doubles, stream formats 1 and 2), validating everything it decodes, and
//! gives the loaded value the encoding Redis would.

pub mod file;
mod load;
mod save;
mod stream;
#[cfg(test)]
mod tests;

pub use load::{load, LoadCfg};
pub use save::save;

pub const TYPE_STRING: u8 = 0;
pub const TYPE_LIST: u8 = 1;
pub const TYPE_SET: u8 = 2;
pub const TYPE_ZSET: u8 = 3;
pub const TYPE_HASH: u8 = 4;
pub const TYPE_ZSET_2: u8 = 5;
pub const TYPE_MODULE_PRE_GA: u8 = 6;
pub const TYPE_MODULE_2: u8 = 7;
pub const TYPE_HASH_ZIPMAP: u8 = 9;
pub const TYPE_LIST_ZIPLIST: u8 = 10;
pub const TYPE_SET_INTSET: u8 = 11;
pub const TYPE_ZSET_ZIPLIST: u8 = 12;
pub const TYPE_HASH_ZIPLIST: u8 = 13;
pub const TYPE_LIST_QUICKLIST: u8 = 14;
pub const TYPE_STREAM_LISTPACKS: u8 = 15;
pub const TYPE_HASH_LISTPACK: u8 = 16;
pub const TYPE_ZSET_LISTPACK: u8 = 17;
pub const TYPE_LIST_QUICKLIST_2: u8 = 18;
pub const TYPE_STREAM_LISTPACKS_2: u8 = 19;
pub const TYPE_SET_LISTPACK: u8 = 20;
pub const TYPE_STREAM_LISTPACKS_3: u8 = 21;

/// `QUICKLIST_NODE_CONTAINER_PLAIN` / `_PACKED`.
pub const CONTAINER_PLAIN: u64 = 1;
pub const CONTAINER_PACKED: u64 = 2;
