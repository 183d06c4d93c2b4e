//! Chapter stub.

use crate::Chapter;

pub fn chapter() -> Chapter {
    Chapter { id: "stampede", title: "stampede", summary: "", steps: vec![] }
}
