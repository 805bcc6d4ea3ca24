//! The `Wingman-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256>`
//! of `"<t>.<body>"`, keyed with the operator's signing secret.
//!
//! A receiver that knows the secret recomputes the HMAC over the timestamp
//! and the exact bytes it received, compares in constant time, and refuses
//! a timestamp too far from its clock, so a recorded request cannot be
//! replayed later. HMAC (RFC 2104) is written here over `sha2`, which the
//! crate already has, in the few lines it takes.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// The name of the header that carries the signature.
pub const HEADER: &str = "Wingman-Signature";

/// SHA-256 works on blocks of this many bytes; HMAC pads its key to one.
const BLOCK: usize = 64;

/// The key calls are signed with. It never shows: its `Debug` prints a
/// placeholder, so a logged configuration cannot leak it.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret(String);

impl SigningSecret {
    /// A secret with this value.
    pub fn new(value: impl Into<String>) -> Self {
        SigningSecret(value.into())
    }

    /// True when the value is empty, which settings read as no secret.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `Wingman-Signature` value for `body` sent at `unix_seconds`.
    pub fn sign(&self, unix_seconds: i64, body: &[u8]) -> String {
        let mut message = format!("{unix_seconds}.").into_bytes();
        message.extend_from_slice(body);
        format!("t={unix_seconds},v1={}", hex(&hmac_sha256(self.0.as_bytes(), &message)))
    }
}

impl fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningSecret(<hidden>)")
    }
}

/// Read from a flag or an environment variable, as is.
impl FromStr for SigningSecret {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        Ok(SigningSecret::new(value))
    }
}

/// HMAC-SHA256 of `message` under `key` (RFC 2104): a key longer than a
/// block is hashed first, then padded with zeros to one block.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|k| k ^ byte);
    let inner = Sha256::new().chain_update(pad(0x36)).chain_update(message).finalize();
    Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize().into()
}

/// Lowercase hexadecimal, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(text: &str) -> Vec<u8> {
        (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn hmac_matches_the_rfc_4231_test_vectors() {
        // Cases 1, 2, 6 and 7: a short key, a key shorter than the hash,
        // and two keys longer than a block, which are hashed first.
        let long_key = vec![0xaa; 131];
        let cases: [(&[u8], &[u8], &str); 4] = [
            (&[0x0b; 20], b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &long_key,
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                &long_key,
                b"This is a test using a larger than block-size key and a larger than block-size data. \
                  The key needs to be hashed before being used by the HMAC algorithm.",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (key, message, expected) in cases {
            assert_eq!(hex(&hmac_sha256(key, message)), expected);
            assert_eq!(hmac_sha256(key, message).to_vec(), unhex(expected));
        }
    }

    #[test]
    fn the_header_signs_the_timestamp_a_dot_and_the_body() {
        let secret = SigningSecret::new("whsec_test");
        let body = br#"{"run_id":"r","call_id":"c","tool":"t","input":{}}"#;
        let header = secret.sign(1_700_000_000, body);
        // Computed apart, with Python's hmac module, as a receiver would.
        let expected = "t=1700000000,v1=630b5ef80e9ef4a32417eafd992674bbf0c6c66c95e11e8cce890d84e41eafa6";
        assert_eq!(header, expected);
        assert_ne!(secret.sign(1_700_000_001, body), header, "a fresh timestamp signs anew");
    }

    #[test]
    fn the_secret_never_shows_in_debug_output() {
        let secret: SigningSecret = "s3cr3t-value".parse().unwrap();
        let shown = format!("{:?}", Some(secret));
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
}
