//! A pick: the element the user pointed at, with its surroundings. The same
//! [`Pick`] travels in the `set_context` frame, is kept on disk as a
//! [`StoredContext`], and reaches agents inside a `UiContext`, so the three
//! cannot drift apart.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the user picked, as every side of the chatter reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pick {
    pub element: Element,
    pub ancestors: Vec<Ancestor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<Child>>,
    pub page: PageInfo,
    /// A CSS selector that matches exactly the picked element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The code that renders the element, when the page is a development
    /// build of a framework that records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PickSource>,
}

/// Where the picked element is written in the page's source, and the
/// components around it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PickSource {
    /// `react`, `vue` or `svelte`.
    pub framework: String,
    /// The file that writes the element (as the build names it).
    pub file: String,
    /// 1-based, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The components around the element, innermost first, each with where
    /// it is used.
    #[serde(default)]
    pub components: Vec<ComponentSource>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentSource {
    pub name: String,
    /// The file that uses the component, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Element {
    pub tag_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub class_list: Vec<String>,
    pub text_content: String,
    pub attributes: BTreeMap<String, String>,
    pub bounding_box: BoundingBox,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoundingBox {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Ancestor {
    pub tag_name: String,
    pub class_list: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Child {
    pub tag_name: String,
    pub class_list: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_content: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageInfo {
    pub url: String,
    pub title: String,
}

/// A pick as the daemon keeps it (a tab's `sessions/<id>.json`) and as
/// agents read it: the frame's inline screenshot and page became files.
///
/// Not strict (no `deny_unknown_fields`): files written by another version
/// of the daemon must stay readable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredContext {
    pub context_id: String,
    #[serde(flatten)]
    pub pick: Pick,
    /// The screenshot, as a PNG file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_path: Option<PathBuf>,
    /// The page's HTML as the user saw it, as a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_path: Option<PathBuf>,
    /// The extension's capture of the page (DOM with layout), as a JSON file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dom_path: Option<PathBuf>,
    /// When the pick arrived, ms since the epoch (in a `UiContext` with a
    /// message: when the message arrived, the moment the agent is asked about).
    pub timestamp: i64,
}
