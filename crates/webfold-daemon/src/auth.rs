//! Who may talk to the daemon: the paired extension, over loopback.
//!
//! Three checks guard every WebSocket upgrade, in this order: the Host header
//! names this loopback listener (DNS rebinding), the Origin is exactly an
//! allowed `chrome-extension://<id>` (web pages cannot forge Origin), and the
//! per-install token is presented (other local programs can forge Origin, so
//! the Origin alone does not authenticate). The token travels in
//! `Sec-WebSocket-Protocol` or in a first `hello` frame, never in the URL.

use std::path::Path;

use subtle::ConstantTimeEq;

use crate::DaemonError;
use crate::home::{Home, write_private};

/// The public key in webfold's extension manifest: it fixes the extension's
/// id wherever the extension is loaded from.
pub const EXTENSION_KEY: &str = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAt0KFL/7kavcPrRaHI2tJ8fRNceC7vFrPshN5phiyAJMCKVaYbSj1hezWxAEed1z0QEoQDEYZ3YhXE5GClfo6gZVJaQe21EwA05qBU//Xj4YHEwT4SRdbHu5unVOrMYRbGIu+t54ENcpXjnmGoeHkWVdboeUxKZ3jnbV3VrRLOb+Ds28c50IdCEsaPpqw9A0MHw4ytVYlqwUxiOjWmVmul2LWbIGrNMqjZmxwaOw6GzGw3hOawvbXsqKNrio5GdHXmxdmlALIXQ9U/aqQiqnKc8spVHgbZlHzNmL/uv4BastgRE9b20x/T5yl5s3xhY/7MpFBIteWPrkM4rkBxNG1CwIDAQAB";

/// webfold's extension id: derived from [`EXTENSION_KEY`] as Chromium does.
pub const EXTENSION_ID: &str = "jphgghmdbialbkkoccinmagdlnndaihb";

/// The subprotocol prefix a client offers with the token appended.
pub const SUBPROTOCOL_PREFIX: &str = "webfold.token.";

/// The per-install secret: 32 random bytes, as 64 hex digits.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// The token in `home`, created on first use.
    pub fn load_or_create(home: &Home) -> Result<Token, DaemonError> {
        let path = home.token();
        if let Some(t) = Self::load(&path)? {
            return Ok(t);
        }
        home.ensure()?;
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| DaemonError::Setup(format!("cannot generate a token: {e}")))?;
        let token = Token(bytes.iter().map(|b| format!("{b:02x}")).collect());
        write_private(&path, token.0.as_bytes())?;
        Ok(token)
    }

    fn load(path: &Path) -> Result<Option<Token>, DaemonError> {
        match std::fs::read_to_string(path) {
            Ok(s) if is_token(s.trim()) => Ok(Some(Token(s.trim().to_string()))),
            Ok(_) => Err(DaemonError::Setup(format!(
                "{} is not a webfold token; delete it and run `webfold pair` to make a new one",
                path.display()
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(DaemonError::io(path, e)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The exact `Sec-WebSocket-Protocol` value a client offers.
    pub fn subprotocol(&self) -> String {
        format!("{SUBPROTOCOL_PREFIX}{}", self.0)
    }

    /// Compares in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        self.0.as_bytes().ct_eq(presented.as_bytes()).into()
    }
}

fn is_token(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The extension ids whose Origin is accepted: webfold's own, plus those the
/// user added (a Web Store build, a development copy) in `home`'s list.
pub fn allowed_extensions(home: &Home) -> Vec<String> {
    let mut ids = vec![EXTENSION_ID.to_string()];
    if let Ok(list) = std::fs::read_to_string(home.extensions()) {
        for id in list.lines().map(str::trim) {
            if is_extension_id(id) && !ids.iter().any(|i| i == id) {
                ids.push(id.to_string());
            }
        }
    }
    ids
}

/// Chromium extension ids are 32 letters a–p.
pub fn is_extension_id(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| (b'a'..=b'p').contains(&b))
}

/// Whether `origin` is exactly `chrome-extension://<an allowed id>`.
pub fn origin_allowed(origin: Option<&str>, allowed: &[String]) -> bool {
    let Some(id) = origin.and_then(|o| o.strip_prefix("chrome-extension://")) else {
        return false;
    };
    allowed.iter().any(|a| a == id)
}

/// Whether `host` (the Host header) names this listener on loopback.
pub fn host_allowed(host: Option<&str>, port: u16) -> bool {
    let Some(host) = host else { return false };
    [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
        .iter()
        .any(|h| h.eq_ignore_ascii_case(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_must_be_an_allowed_extension_exactly() {
        let allowed = vec![EXTENSION_ID.to_string()];
        let ok = format!("chrome-extension://{EXTENSION_ID}");
        assert!(origin_allowed(Some(&ok), &allowed));
        for bad in [
            None,
            Some("null"),
            Some("http://127.0.0.1:3457"),
            Some("https://example.com"),
            Some("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
            Some(&format!("{ok}/")),
            Some(&format!("{ok}.evil.com")),
            Some(&format!("CHROME-EXTENSION://{EXTENSION_ID}")),
        ] {
            assert!(!origin_allowed(bad, &allowed), "{bad:?}");
        }
    }

    #[test]
    fn hosts_must_name_this_loopback_listener() {
        assert!(host_allowed(Some("127.0.0.1:3457"), 3457));
        assert!(host_allowed(Some("localhost:3457"), 3457));
        for bad in [
            None,
            Some("127.0.0.1:80"),
            Some("127.0.0.1.evil.com:3457"),
            Some("evil.com"),
            Some("[::1]:3457"),
        ] {
            assert!(!host_allowed(bad, 3457), "{bad:?}");
        }
    }

    #[test]
    fn a_token_is_made_once_and_compared_whole() {
        let dir = std::env::temp_dir().join(format!("webfold-token-{}", std::process::id()));
        let home = Home::at(dir.clone());
        let t = Token::load_or_create(&home).unwrap();
        assert!(is_token(t.as_str()));
        let again = Token::load_or_create(&home).unwrap();
        assert_eq!(t.as_str(), again.as_str());
        assert!(t.matches(again.as_str()));
        assert!(!t.matches(&t.as_str()[..63]));
        assert!(!t.matches(""));
        assert!(t.subprotocol().starts_with(SUBPROTOCOL_PREFIX));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_extension_id_is_the_hash_of_its_key() {
        use base64::Engine as _;
        use sha2::Digest as _;
        let der = base64::engine::general_purpose::STANDARD
            .decode(EXTENSION_KEY)
            .unwrap();
        let hash = sha2::Sha256::digest(&der);
        let id: String = hash[..16]
            .iter()
            .flat_map(|b| [b >> 4, b & 15])
            .map(|n| (b'a' + n) as char)
            .collect();
        assert_eq!(id, EXTENSION_ID);
    }
}
