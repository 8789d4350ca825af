//! The one action type: what an agent may do next on a page.
//!
//! Every surface that acts on a page reads and runs this type: the live
//! browser's tools and scripts, and the agent loop. Actions are JSON objects
//! tagged by `action`; an element is a snapshot ref or a CNT node id, under
//! `id` (or `ref`, as the browser tools name it):
//!
//! ```json
//! {"action": "click", "id": 233}
//! {"action": "type", "ref": "e4", "text": "Ada", "submit": true}
//! {"action": "expand", "id": "12.3-97"}
//! ```
//!
//! Seed 003's set (go_to, go_back, click, write, expand, describe_image,
//! talk, no_action) is what an agent reading a CNT chooses from; the browser
//! adds the finer steps a snapshot reader uses (type, select, check, press,
//! hover, scroll_into_view). [`Action::validate`] checks an action against a
//! page and its CNT before anything runs; [`Action::effect_at`] decides what
//! it does to one element of a live page; both refuse an element behind an
//! open modal dialog ([`crate::layers`], [`reachable`]). The JSON Schema
//! ([`json_schema`]) is checked in at `schema/actions.schema.json`.

mod target;
mod validate;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cnt::CntId;

pub use target::{BadTarget, Target};
pub use validate::{ActionError, Effect, Resolved, reachable};

/// One step an agent takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(title = "webfold agent action")]
pub enum Action {
    /// Navigate to an absolute http(s) URL. To follow a link on the page, click it.
    #[serde(alias = "navigate")]
    GoTo { url: String },
    /// Go back to the previous page in history.
    #[serde(alias = "back")]
    GoBack,
    /// Click an element.
    Click {
        #[serde(alias = "ref")]
        id: Target,
    },
    /// Type into an input or textarea, choose a select option by its exact
    /// `value` (not its label), or set a checkbox/radio: write its `value`
    /// ("on" when it has none) to check it, "" to uncheck a checkbox.
    Write {
        #[serde(alias = "ref")]
        id: Target,
        text: String,
    },
    /// Replace a text field's value; `submit` presses Enter after.
    Type {
        #[serde(alias = "ref")]
        id: Target,
        text: String,
        #[serde(default, skip_serializing_if = "is_false")]
        submit: bool,
    },
    /// Choose options of a select, by value or visible label.
    Select {
        #[serde(alias = "ref")]
        id: Target,
        values: Vec<String>,
    },
    /// Check (default) or uncheck a checkbox or radio button.
    Check {
        #[serde(alias = "ref")]
        id: Target,
        #[serde(default = "yes")]
        checked: bool,
    },
    /// Press a key on whatever has focus: a character, or Enter, Tab, Escape,
    /// Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Space.
    Press { key: String },
    /// Move the mouse over an element.
    Hover {
        #[serde(alias = "ref")]
        id: Target,
    },
    /// Scroll an element into view.
    ScrollIntoView {
        #[serde(alias = "ref")]
        id: Target,
    },
    /// Show what a compressed node hides: a node id, or a marker id such as "12.3-97".
    Expand {
        #[schemars(schema_with = "cnt_id_schema")]
        id: CntId,
    },
    /// Describe the image of an element that has a `src` attribute.
    DescribeImage {
        #[serde(alias = "ref")]
        id: Target,
    },
    /// Say something to the user: report, or ask for what is missing.
    Talk { message: String },
    /// Nothing to do: the step is already done.
    NoAction,
}

fn yes() -> bool {
    true
}

fn is_false(b: &bool) -> bool {
    !b
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

/// The `id` of the variants that name an element, borrowed as `$action` is.
macro_rules! target_of {
    ($action:expr) => {
        match $action {
            Action::Click { id }
            | Action::Write { id, .. }
            | Action::Type { id, .. }
            | Action::Select { id, .. }
            | Action::Check { id, .. }
            | Action::Hover { id }
            | Action::ScrollIntoView { id }
            | Action::DescribeImage { id } => Some(id),
            Action::GoTo { .. }
            | Action::GoBack
            | Action::Press { .. }
            | Action::Expand { .. }
            | Action::Talk { .. }
            | Action::NoAction => None,
        }
    };
}

impl Action {
    /// The element the action names, if it names one (not `expand`: its id
    /// may be a compression marker).
    pub fn target(&self) -> Option<&Target> {
        target_of!(self)
    }

    /// The element the action names, to aim it elsewhere (an agent's lookup
    /// found the element, or a CNT node's member takes the action).
    pub fn target_mut(&mut self) -> Option<&mut Target> {
        target_of!(self)
    }

    /// The action's name as JSON spells it (`scroll_into_view`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::GoTo { .. } => "go_to",
            Action::GoBack => "go_back",
            Action::Click { .. } => "click",
            Action::Write { .. } => "write",
            Action::Type { .. } => "type",
            Action::Select { .. } => "select",
            Action::Check { .. } => "check",
            Action::Press { .. } => "press",
            Action::Hover { .. } => "hover",
            Action::ScrollIntoView { .. } => "scroll_into_view",
            Action::Expand { .. } => "expand",
            Action::DescribeImage { .. } => "describe_image",
            Action::Talk { .. } => "talk",
            Action::NoAction => "no_action",
        }
    }
}

/// A few words for reports: "type into e4 and submit", "go to https://…".
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::GoTo { url } => write!(f, "go to {url}"),
            Action::GoBack => f.write_str("go back"),
            Action::Click { id } => write!(f, "click {id}"),
            Action::Write { id, text } => write!(f, "write {text:?} to {id}"),
            Action::Type {
                id, submit: true, ..
            } => write!(f, "type into {id} and submit"),
            Action::Type { id, .. } => write!(f, "type into {id}"),
            Action::Select { id, values } => write!(f, "select {values:?} in {id}"),
            Action::Check { id, checked: true } => write!(f, "check {id}"),
            Action::Check { id, .. } => write!(f, "uncheck {id}"),
            Action::Press { key } => write!(f, "press {key}"),
            Action::Hover { id } => write!(f, "hover {id}"),
            Action::ScrollIntoView { id } => write!(f, "scroll {id} into view"),
            Action::Expand { id } => write!(f, "expand {id}"),
            Action::DescribeImage { id } => write!(f, "describe the image of {id}"),
            Action::Talk { .. } => f.write_str("talk to the user"),
            Action::NoAction => f.write_str("no action"),
        }
    }
}
