//! Handles into a CNT: a node id, or the id of a compression marker.
//!
//! A node's id is its [`NodeId`], shared with every other view. A marker's id
//! is `P.F-L`: children `F` to `L` (0-based, inclusive) of the CNT node with
//! id `P`. Child positions depend only on the page, never on the width a view
//! used, so marker ids are stable for a page version, and the `.` keeps them
//! apart from node ids.

use std::fmt;
use std::str::FromStr;

use crate::NodeId;

/// Children `first..=last` of the CNT node `parent`, hidden behind a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HiddenRange {
    pub parent: NodeId,
    pub first: u32,
    pub last: u32,
}

impl HiddenRange {
    pub fn count(&self) -> u32 {
        self.last - self.first + 1
    }
}

impl fmt::Display for HiddenRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}-{}", self.parent, self.first, self.last)
    }
}

/// What `expand` takes: a CNT node id or a marker id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CntId {
    Node(NodeId),
    Hidden(HiddenRange),
}

impl fmt::Display for CntId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CntId::Node(n) => write!(f, "{n}"),
            CntId::Hidden(r) => write!(f, "{r}"),
        }
    }
}

impl From<NodeId> for CntId {
    fn from(n: NodeId) -> Self {
        CntId::Node(n)
    }
}

impl FromStr for CntId {
    type Err = String;

    /// Accepts `12`, `12.3-97`, and the same in the brackets the text format
    /// shows them in (`[12.3-97]`), since agents copy what they read.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let t = t
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(t)
            .trim();
        let bad = || {
            format!(
                "'{s}' is not a CNT id: use a node id like 12 or a marker id like 12.3-97 from a `… N hidden [ID]` line"
            )
        };
        let num = |x: &str| -> Result<u32, String> {
            if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            x.parse::<u32>().map_err(|_| bad())
        };
        match t.split_once('.') {
            None => Ok(CntId::Node(NodeId::try_new(num(t)?).ok_or_else(bad)?)),
            Some((p, range)) => {
                let (first, last) = range.split_once('-').ok_or_else(bad)?;
                let (first, last) = (num(first)?, num(last)?);
                if first > last {
                    return Err(format!(
                        "'{s}': the first hidden child comes after the last"
                    ));
                }
                Ok(CntId::Hidden(HiddenRange {
                    parent: NodeId::try_new(num(p)?).ok_or_else(bad)?,
                    first,
                    last,
                }))
            }
        }
    }
}

impl serde::Serialize for CntId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CntId::Node(n) => s.serialize_u32(n.get()),
            CntId::Hidden(r) => s.collect_str(r),
        }
    }
}

impl<'de> serde::Deserialize<'de> for CntId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(u32),
            Str(String),
        }
        match Raw::deserialize(d)? {
            Raw::Num(n) => n.to_string().parse().map_err(serde::de::Error::custom),
            Raw::Str(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A string in schemas, as it is written.
impl schemars::JsonSchema for CntId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CntId".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}
