//! Conversation ids: 128 random bits, written as 32 lowercase hex digits.
//!
//! Ids reach us from browsers, agents and command lines, so they are parsed by a
//! strict pattern before they touch a query, a path or a log line. Possession of
//! an id is never authorisation (MCP "State Handle Hijacking"): it only has to be
//! unguessable, which is why it comes from the OS CSPRNG.

use std::fmt;
use std::str::FromStr;

use crate::StoreError;

/// A conversation's id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConversationId([u8; 16]);

impl ConversationId {
    /// Length of the text form.
    pub const TEXT_LEN: usize = 32;

    /// A fresh id from the operating system's CSPRNG.
    pub fn random() -> Result<Self, StoreError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| StoreError::Backend(format!("the OS random source failed: {e}")))?;
        Ok(Self(bytes))
    }

    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

/// Why a string is not a conversation id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid conversation id: expected 32 lowercase hex digits (as returned by POST /conversations)"
)]
pub struct InvalidId;

impl FromStr for ConversationId {
    type Err = InvalidId;

    /// Accepts exactly `^[0-9a-f]{32}$`: no case folding, no trimming, no
    /// prefixes, so one id has exactly one spelling.
    fn from_str(s: &str) -> Result<Self, InvalidId> {
        let b = s.as_bytes();
        if b.len() != Self::TEXT_LEN {
            return Err(InvalidId);
        }
        let mut out = [0u8; 16];
        for (i, pair) in b.chunks_exact(2).enumerate() {
            out[i] = (nibble(pair[0])? << 4) | nibble(pair[1])?;
        }
        Ok(Self(out))
    }
}

fn nibble(c: u8) -> Result<u8, InvalidId> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        _ => Err(InvalidId),
    }
}

impl fmt::Display for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ConversationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConversationId({self})")
    }
}

impl serde::Serialize for ConversationId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ConversationId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_is_random() {
        let a = ConversationId::random().unwrap();
        let b = ConversationId::random().unwrap();
        assert_ne!(a, b);
        let text = a.to_string();
        assert_eq!(text.len(), 32);
        assert!(
            text.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_eq!(text.parse::<ConversationId>(), Ok(a));
    }

    #[test]
    fn rejects_everything_but_the_strict_pattern() {
        let good = "0123456789abcdef0123456789abcdef";
        assert!(good.parse::<ConversationId>().is_ok());
        for bad in [
            "",
            "0123456789ABCDEF0123456789ABCDEF",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdef0",
            " 0123456789abcdef0123456789abcde",
            "../../x",
            "..%2f..%2fx",
            "a/b",
            "C:\\x",
            "0123456789abcdef0123456789abcdeg",
            "é123456789abcdef0123456789abcde",
            "conv-123",
        ] {
            assert_eq!(bad.parse::<ConversationId>(), Err(InvalidId), "{bad:?}");
        }
    }
}
