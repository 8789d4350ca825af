//! The agent action set (seed 003): what an agent reading a CNT may do next.
//!
//! One typed set for every surface that executes actions (MCP, the live
//! browser, the agent loop). Actions are JSON objects tagged by `action`:
//!
//! ```json
//! {"action": "click", "id": 233}
//! {"action": "write", "id": 42, "text": "Ada Lovelace"}
//! {"action": "expand", "id": "12.3-97"}
//! ```
//!
//! [`Action::validate`] checks an action against the page and its CNT before
//! anything runs, and names the DOM element to act on. The JSON Schema
//! ([`json_schema`]) is checked in at `schema/actions.schema.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cnt::{Cnt, CntId, CntNode};
use crate::page::collapse_whitespace;
use crate::{NodeId, Page};

/// One step an agent takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
#[schemars(title = "webfold agent action")]
pub enum Action {
    /// Navigate to an absolute http(s) URL. To follow a link on the page, click it.
    GoTo { url: String },
    /// Go back to the previous page in history.
    GoBack,
    /// Click the node with this CNT id.
    Click {
        #[schemars(with = "u32")]
        id: NodeId,
    },
    /// Type into an input or textarea, choose a select option by its exact
    /// `value` (not its label), or set a checkbox/radio: write its `value`
    /// ("on" when it has none) to check it, "" to uncheck a checkbox.
    Write {
        #[schemars(with = "u32")]
        id: NodeId,
        text: String,
    },
    /// Show what a compressed node hides: a node id, or a marker id such as "12.3-97".
    Expand {
        #[schemars(schema_with = "cnt_id_schema")]
        id: CntId,
    },
    /// Describe the image of a node that has a `src` attribute.
    DescribeImage {
        #[schemars(with = "u32")]
        id: NodeId,
    },
    /// Say something to the user: report, or ask for what is missing.
    Talk { message: String },
    /// Nothing to do: the step is already done.
    NoAction,
}

fn cnt_id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "A CNT node id (a number) or a compression marker id (\"P.F-L\": children F to L of node P).",
        "oneOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": "^\\[?[0-9]+(\\.[0-9]+-[0-9]+)?\\]?$"}
        ]
    })
}

/// The JSON Schema of [`Action`], as checked in at `schema/actions.schema.json`.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Action)).unwrap_or_default()
}

/// What a valid action acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The DOM element to act on: the CNT node's member that takes the
    /// action (for `li,a`, the `a`).
    pub node: NodeId,
    pub kind: TargetKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    Click,
    /// An input or textarea takes the text.
    Type,
    /// Choose the `<option>` with this value.
    Select {
        value: String,
    },
    /// Check (or uncheck) a checkbox or radio.
    Check {
        checked: bool,
    },
    /// A `contenteditable` element takes the text.
    Edit,
    /// The image to describe.
    Image {
        src: String,
    },
}

/// Why an action cannot run, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("unknown id {0}: no node of this page has it; use an id from the latest CNT")]
    UnknownId(NodeId),
    #[error("id {0} is not in the CNT (hidden or filtered out); use an id from the latest CNT")]
    NotInCnt(NodeId),
    #[error("cannot write to {id} ({tag}): {reason}")]
    NotWritable {
        id: NodeId,
        tag: String,
        reason: String,
    },
    #[error("select {id} has no option with value {value:?}; write one of these exact values: {}", options.join(", "))]
    NoSuchOption {
        id: NodeId,
        value: String,
        options: Vec<String>,
    },
    #[error("{id} ({tag}) has no src: describe_image takes a node with a src attribute")]
    NoImage { id: NodeId, tag: String },
    #[error(
        "go_to needs an absolute http(s) URL, got {url:?} ({reason}); to follow a link on the page, click its id"
    )]
    BadUrl { url: String, reason: String },
    #[error("talk needs a message")]
    EmptyMessage,
    #[error("cannot expand: {0}")]
    BadExpand(String),
}

impl Action {
    /// Checks the action against `page` and its CNT; returns what it acts on
    /// (`None` for actions without a target: go_to, go_back, expand, talk,
    /// no_action).
    pub fn validate(&self, page: &Page, cnt: &Cnt) -> Result<Option<Target>, ActionError> {
        match self {
            Action::GoTo { url } => check_url(url).map(|_| None),
            Action::GoBack | Action::NoAction => Ok(None),
            Action::Talk { message } => {
                if message.trim().is_empty() {
                    Err(ActionError::EmptyMessage)
                } else {
                    Ok(None)
                }
            }
            Action::Expand { id } => cnt
                .check_id(id, crate::contract::Surface::default())
                .map(|_| None)
                .map_err(|e| ActionError::BadExpand(e.to_string())),
            Action::Click { id } => {
                let node = cnt_node(page, cnt, *id)?;
                let target = node
                    .members()
                    .find(|&m| crate::cnt::is_clickable(page, m))
                    .unwrap_or(node.id);
                Ok(Some(Target {
                    node: target,
                    kind: TargetKind::Click,
                }))
            }
            Action::Write { id, text } => {
                write_target(page, cnt_node(page, cnt, *id)?, text).map(Some)
            }
            Action::DescribeImage { id } => {
                let node = cnt_node(page, cnt, *id)?;
                node.members()
                    .find_map(|m| {
                        let src = page.element(m)?.attr("src")?.trim();
                        (!src.is_empty()).then(|| Target {
                            node: m,
                            kind: TargetKind::Image {
                                src: src.to_string(),
                            },
                        })
                    })
                    .map(Some)
                    .ok_or_else(|| ActionError::NoImage {
                        id: *id,
                        tag: node.tag.clone(),
                    })
            }
        }
    }
}

fn check_url(url: &str) -> Result<(), ActionError> {
    let bad = |reason: &str| ActionError::BadUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let parsed = url::Url::parse(url.trim()).map_err(|e| bad(&e.to_string()))?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        other => Err(bad(&format!("scheme {other}: is not http or https"))),
    }
}

fn cnt_node<'c>(page: &Page, cnt: &'c Cnt, id: NodeId) -> Result<&'c CntNode, ActionError> {
    if page.get(id).is_none() {
        return Err(ActionError::UnknownId(id));
    }
    cnt.node_of(id).ok_or(ActionError::NotInCnt(id))
}

fn write_target(page: &Page, node: &CntNode, text: &str) -> Result<Target, ActionError> {
    let not_writable = |reason: &str| ActionError::NotWritable {
        id: node.id,
        tag: if node.is_text() {
            "text".to_string()
        } else {
            node.tag.clone()
        },
        reason: reason.to_string(),
    };
    let mut refusal: Option<ActionError> = None;
    for m in node.members() {
        let Some(e) = page.element(m) else { continue };
        let disabled = e.has_attr("disabled");
        let readonly = e.has_attr("readonly");
        let kind = match e.local_name() {
            "input" => {
                let ty = e.attr("type").unwrap_or("text").trim().to_ascii_lowercase();
                match ty.as_str() {
                    "button" | "submit" | "reset" | "image" => {
                        refusal.get_or_insert(not_writable("it is a button; click it instead"));
                        continue;
                    }
                    "file" => {
                        refusal.get_or_insert(not_writable("a file input takes a file, not text"));
                        continue;
                    }
                    "checkbox" | "radio" => {
                        let value = e.attr("value").unwrap_or("on");
                        if text == value {
                            TargetKind::Check { checked: true }
                        } else if text.is_empty() && ty == "checkbox" {
                            TargetKind::Check { checked: false }
                        } else {
                            return Err(not_writable(&format!(
                                "a {ty} takes its value {value:?} to be checked{}",
                                if ty == "checkbox" {
                                    ", or \"\" to be unchecked"
                                } else {
                                    ""
                                }
                            )));
                        }
                    }
                    _ if readonly => {
                        refusal.get_or_insert(not_writable("it is read-only"));
                        continue;
                    }
                    _ => TargetKind::Type,
                }
            }
            "button" => {
                refusal.get_or_insert(not_writable("it is a button; click it instead"));
                continue;
            }
            "textarea" if readonly => {
                refusal.get_or_insert(not_writable("it is read-only"));
                continue;
            }
            "textarea" => TargetKind::Type,
            "select" => {
                let options = option_values(page, m);
                if !options.iter().any(|o| o == text) {
                    return Err(ActionError::NoSuchOption {
                        id: node.id,
                        value: text.to_string(),
                        options,
                    });
                }
                TargetKind::Select {
                    value: text.to_string(),
                }
            }
            _ if e
                .attr("contenteditable")
                .is_some_and(|v| !v.trim().eq_ignore_ascii_case("false")) =>
            {
                TargetKind::Edit
            }
            _ => continue,
        };
        if disabled {
            return Err(not_writable("it is disabled"));
        }
        return Ok(Target { node: m, kind });
    }
    Err(refusal.unwrap_or_else(|| {
        not_writable("write works on inputs, textareas, selects, checkboxes, radios and contenteditable elements")
    }))
}

/// The values a `<select>` accepts: each option's `value`, or its text when
/// it has none (as the DOM defines `option.value`).
fn option_values(page: &Page, select: NodeId) -> Vec<String> {
    page.descendants(select)
        .filter(|&d| page.tag(d) == Some("option"))
        .map(|d| match page.element(d).and_then(|e| e.attr("value")) {
            Some(v) => v.to_string(),
            None => collapse_whitespace(&page.text_content(d)),
        })
        .collect()
}
