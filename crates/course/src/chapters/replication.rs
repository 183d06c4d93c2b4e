//! Chapter stub.

use crate::Chapter;

pub fn chapter() -> Chapter {
    Chapter { id: "replication", title: "replication", summary: "", steps: vec![] }
}
