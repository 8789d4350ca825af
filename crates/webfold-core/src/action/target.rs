//! What an action points at: a snapshot ref or a node id.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::snapshot::{SnapshotSession, resolve_ref};
use crate::{Error, NodeId, Page};

/// An element an action names: a ref from a snapshot (`e12`, numbered as the
/// page's session numbers them) or a node id from the CNT or outline (`57`).
/// Both resolve to a node of the page they were read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    Ref(String),
    Node(NodeId),
}

/// A target that is neither a ref nor a node id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a ref or id: pass a ref from the latest snapshot such as e12, or a node id such as 57"
)]
pub struct BadTarget(pub String);

impl FromStr for Target {
    type Err = BadTarget;

    /// Reads `e12`, a frame's `f1e3`, `[ref=e12]` (as snapshots print refs)
    /// or `57`.
    fn from_str(s: &str) -> Result<Target, BadTarget> {
        let t = s.trim().trim_start_matches('[').trim_end_matches(']');
        let t = t.strip_prefix("ref=").unwrap_or(t);
        let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        let element = match t.strip_prefix('f') {
            // A frame's ref: the frame's number, then the element's.
            Some(framed) => framed
                .split_once('e')
                .filter(|(frame, _)| digits(frame))
                .map(|(_, e)| e),
            None => t.strip_prefix('e'),
        };
        if element.is_some_and(digits) {
            return Ok(Target::Ref(t.to_string()));
        }
        t.parse::<u32>()
            .ok()
            .and_then(NodeId::try_new)
            .map(Target::Node)
            .ok_or_else(|| BadTarget(s.to_string()))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Ref(r) => f.write_str(r),
            Target::Node(n) => write!(f, "node {}", n.get()),
        }
    }
}

impl Target {
    /// The element of `page` this target names; a ref resolves through the
    /// session that numbered it (see [`resolve_ref`]).
    pub fn resolve(
        &self,
        page: &Page,
        url: &str,
        session: Option<&SnapshotSession>,
    ) -> Result<NodeId, Error> {
        let node = match self {
            Target::Ref(r) => resolve_ref(page, r, url, session)?,
            Target::Node(n) => *n,
        };
        match page.element(node) {
            Some(_) => Ok(node),
            None => Err(Error::UnknownNodeId(node.get().into())),
        }
    }
}

impl Serialize for Target {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Target::Ref(r) => s.serialize_str(r),
            Target::Node(n) => s.serialize_u32(n.get()),
        }
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Id(u32),
            Text(String),
        }
        match Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom("expected a ref such as \"e12\" or a node id such as 57")
        })? {
            Raw::Id(n) => n.to_string().parse().map_err(serde::de::Error::custom),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

impl schemars::JsonSchema for Target {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Target".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A ref from the latest snapshot (\"e12\", or \"f1e3\" in a frame) or a node id from the CNT (57).",
            "oneOf": [
                {"type": "string", "pattern": "^(f[0-9]+)?e[0-9]+$"},
                {"type": "integer", "minimum": 0}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_refs_or_node_ids() {
        let t = |s: &str| s.parse::<Target>();
        assert_eq!(t("e12"), Ok(Target::Ref("e12".into())));
        assert_eq!(t("[ref=e3]"), Ok(Target::Ref("e3".into())));
        assert_eq!(t("f2e7"), Ok(Target::Ref("f2e7".into())));
        assert_eq!(t("[ref=f10e1]"), Ok(Target::Ref("f10e1".into())));
        assert_eq!(t("57"), Ok(Target::Node(NodeId::new(57))));
        for bad in [
            "", "e", "button", "e1x", "-3", "f", "fe1", "f1", "f1e", "f1x2",
        ] {
            assert_eq!(t(bad), Err(BadTarget(bad.into())), "{bad}");
        }
        let json: Vec<Target> = serde_json::from_str(r#"["e4", 9, "10"]"#).unwrap();
        assert_eq!(
            json,
            [
                Target::Ref("e4".into()),
                Target::Node(NodeId::new(9)),
                Target::Node(NodeId::new(10))
            ]
        );
        assert_eq!(serde_json::to_string(&json).unwrap(), r#"["e4",9,10]"#);
        let err = serde_json::from_str::<Target>("true").unwrap_err();
        assert!(err.to_string().contains("e12"), "{err}");
    }

    #[test]
    fn a_target_resolves_to_an_element() {
        let page = Page::parse("<body><button>Go</button>text</body>");
        let button = page.query("button").unwrap();
        let r = crate::snapshot::snapshot(
            &page,
            "",
            &crate::snapshot::Scope::Page,
            &Default::default(),
            None,
            crate::contract::Ctx::default(),
        )
        .unwrap();
        let line = r.text.lines().find(|l| l.contains("button")).unwrap();
        let aria_ref = line.split("[ref=").nth(1).unwrap().split(']').next();
        let by_ref = Target::Ref(aria_ref.unwrap().to_string());
        assert_eq!(by_ref.resolve(&page, "", None), Ok(button));
        assert_eq!(Target::Node(button).resolve(&page, "", None), Ok(button));
        let text = NodeId::new(button.get() + 2);
        assert!(page.element(text).is_none());
        assert!(Target::Node(text).resolve(&page, "", None).is_err());
    }
}
