//! Short links: session text deflated and written in URL-safe base64, so a 100-command console session fits a link of well under 2,000 characters.
//!
//! A Share link carries the session in its fragment as `s=<packed>`;
//! browsers never send the fragment to a server, and it needs no escaping.
//! Unpacking is capped ([`MAX_TEXT`]) so a hostile link cannot inflate into
//! gigabytes.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The longest session text a link may unpack to.
pub const MAX_TEXT: usize = 1 << 20;

/// `text`, deflated at the best ratio and base64url-encoded without padding.
pub fn pack(text: &str) -> String {
    encode(&miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 10))
}

/// The text [`pack`] made, or `None` for anything else (bad base64, bad
/// deflate data, not UTF-8, or more than [`MAX_TEXT`] bytes).
pub fn unpack(packed: &str) -> Option<String> {
    let raw = decode(packed)?;
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(&raw, MAX_TEXT).ok()?;
    String::from_utf8(text).ok()
}

/// Raw deflate data as a link writes it (base64url without padding). The
/// browser console deflates with the browser's own compressor and calls
/// this, so its module carries no deflate code.
pub fn encode(raw: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(raw)
}

/// The raw deflate data of a packed link, or `None` if it is not base64url.
pub fn decode(packed: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(packed.trim().as_bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compresses() {
        let text: String = (0..100)
            .map(|i| format!("SET user:{i} \"name {i}\" EX 3600\n# sleep 1000\n"))
            .collect();
        let packed = pack(&text);
        assert_eq!(unpack(&packed).as_deref(), Some(text.as_str()));
        assert!(
            packed.len() < text.len() / 3,
            "{} of {}",
            packed.len(),
            text.len()
        );
        assert!(packed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    }

    #[test]
    fn garbage_and_bombs_are_refused() {
        assert_eq!(unpack("!!!"), None);
        assert_eq!(unpack("AAAA"), None);
        let bomb = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(
            &vec![b'a'; MAX_TEXT + 1],
            10,
        ));
        assert_eq!(unpack(&bomb), None);
        assert_eq!(unpack(&pack("")).as_deref(), Some(""));
    }
}
