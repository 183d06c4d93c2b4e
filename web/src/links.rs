//! Share links' packed sessions (`#s=`: raw deflate, base64url) made and read with the browser's own `CompressionStream` and `DecompressionStream`, so the console module carries no deflate code.
//!
//! The browser's streams are asynchronous: a Share link is packed after
//! the click (the popover opens a moment later), and a page opened from a
//! link unpacks its session before mounting ([`unpack_ahead`]), so that
//! reading presets stays synchronous ([`unpacked`]). Native builds (the
//! unit tests) use the engine's `proto::link`, whose format the browser's
//! `deflate-raw` matches. The loader (`assets/redsim.js`) provides
//! `window.redsimDeflate`, which stops inflating past
//! `proto::link::MAX_TEXT` so a hostile link cannot exhaust memory.

use redsim_engine::proto::link;

/// `text` packed for a link's `s=`, or `None` where the browser cannot
/// compress (the link then carries the text itself, see
/// `console::share::share_link`).
pub async fn pack(text: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        browser::codec(text.as_bytes(), false)
            .await
            .map(|raw| link::encode(&raw))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(link::pack(text))
    }
}

/// The session a link's `s=` value packs, as [`unpack_ahead`] left it (or,
/// natively, unpacked now); `None` if it is damaged.
pub fn unpacked(packed: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        browser::UNPACKED.with(|m| {
            m.borrow()
                .iter()
                .find(|(p, _)| p == packed)
                .and_then(|(_, t)| t.clone())
        })
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        link::unpack(packed)
    }
}

/// The packed session (`s=`) of a URL fragment, if it has one.
pub fn packed_in(hash: &str) -> Option<String> {
    crate::url::parse_query(hash.trim_start_matches('#'))
        .into_iter()
        .find(|(k, _)| k == "s")
        .map(|(_, v)| v)
}

/// Unpacks `packed` with the browser's stream, for [`unpacked`] to find.
pub async fn unpack_ahead(packed: String) {
    #[cfg(target_arch = "wasm32")]
    {
        let text = match link::decode(&packed) {
            Some(raw) => browser::codec(&raw, true)
                .await
                .and_then(|t| String::from_utf8(t).ok()),
            None => None,
        };
        browser::UNPACKED.with(|m| m.borrow_mut().push((packed, text)));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = packed;
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use std::cell::RefCell;

    use js_sys::{Function, Promise, Reflect, Uint8Array};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    thread_local! {
        /// Sessions unpacked ahead of mounting, by their packed text.
        pub static UNPACKED: RefCell<Vec<(String, Option<String>)>> = const { RefCell::new(Vec::new()) };
    }

    /// Deflates (or inflates) `bytes` through the loader's
    /// `redsimDeflate`; `None` if it is missing, fails or the data is bad.
    pub async fn codec(bytes: &[u8], inflate: bool) -> Option<Vec<u8>> {
        let window = web_sys::window()?;
        let f = Reflect::get(&window, &"redsimDeflate".into())
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        let limit = JsValue::from(redsim_engine::proto::link::MAX_TEXT as f64);
        let promise = f
            .call3(
                &JsValue::NULL,
                &Uint8Array::from(bytes),
                &JsValue::from_bool(inflate),
                &limit,
            )
            .ok()?
            .dyn_into::<Promise>()
            .ok()?;
        let out = JsFuture::from(promise).await.ok()?;
        Some(out.dyn_into::<Uint8Array>().ok()?.to_vec())
    }
}
