//! Chapter stub.

use crate::Chapter;

pub fn chapter() -> Chapter {
    Chapter { id: "consistency", title: "consistency", summary: "", steps: vec![] }
}
