//! Checking an action against a page before anything runs, and deciding what
//! it does to the element it names.

use super::{Action, Target};
use crate::cnt::{Cnt, CntNode};
use crate::layers::{BehindDialog, Layers};
use crate::page::collapse_whitespace;
use crate::snapshot::{SnapshotSession, ref_of};
use crate::{NodeId, Page};

/// What a valid action does, and to which element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The DOM element to act on: for a CNT node, its member that takes the
    /// action (for `li,a`, the `a`).
    pub node: NodeId,
    pub effect: Effect,
}

/// What happens to the element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Click,
    /// An input or textarea takes the text.
    Type,
    /// A `contenteditable` element takes the text.
    Edit,
    /// Choose the `<option>`s with these values (or labels).
    Select {
        values: Vec<String>,
    },
    /// Check (or uncheck) a checkbox or radio.
    Check {
        checked: bool,
    },
    Hover,
    ScrollIntoView,
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
    #[error("{0} is a snapshot ref; on a CNT, name elements by their CNT id")]
    NotAnId(String),
    #[error("cannot {verb} {what} ({tag}): {reason}")]
    Refused {
        verb: &'static str,
        what: String,
        tag: String,
        reason: String,
    },
    #[error("the select {what} has no option {value:?}; use one of these values: {}", options.join(", "))]
    NoSuchOption {
        what: String,
        value: String,
        options: Vec<String>,
    },
    #[error(
        "go_to needs an absolute http(s) URL, got {url:?} ({reason}); to follow a link on the page, click it"
    )]
    BadUrl { url: String, reason: String },
    #[error("talk needs a message")]
    EmptyMessage,
    #[error("cannot expand: {0}")]
    BadExpand(String),
    #[error(transparent)]
    BehindDialog(#[from] BehindDialog),
}

impl Action {
    /// Checks the action against `page` and its CNT; returns what it does to
    /// which element (`None` for actions without one: go_to, go_back, press,
    /// expand, talk, no_action). Elements are named by CNT id here.
    pub fn validate(&self, page: &Page, cnt: &Cnt) -> Result<Option<Resolved>, ActionError> {
        match self {
            Action::GoTo { url } => check_url(url).map(|_| None),
            Action::Talk { message } if message.trim().is_empty() => Err(ActionError::EmptyMessage),
            Action::Expand { id } => cnt
                .check_id(id, crate::contract::Surface::default())
                .map(|_| None)
                .map_err(|e| ActionError::BadExpand(e.to_string())),
            _ => match self.target() {
                None => Ok(None),
                Some(target) => {
                    let node = cnt_node(page, cnt, target)?;
                    let tag = if node.is_text() { "text" } else { &node.tag };
                    let what = node.id.to_string();
                    let on = Element {
                        page,
                        what: what.clone(),
                        tag: tag.to_string(),
                        members: node.members().collect(),
                    };
                    let resolved = on.effect_of(self)?;
                    // An agent reading a CNT names the dialog by its CNT id.
                    let id_of = |m: NodeId| match cnt.node_of(m) {
                        Some(n) => format!("id {}", n.id),
                        None => format!("node {m}"),
                    };
                    Layers::of(page).check(page, resolved.node, &what, id_of)?;
                    Ok(Some(resolved))
                }
            },
        }
    }
}

impl Action {
    /// What the action does to the one element `node` of `page` (a live
    /// page names elements one by one), or why it cannot: `write` types,
    /// chooses an option or sets a checkbox by the element's kind.
    /// `what` names the element in errors, as the caller wrote it.
    pub fn effect_at(
        &self,
        page: &Page,
        node: NodeId,
        what: &str,
    ) -> Result<Resolved, ActionError> {
        let on = Element {
            page,
            what: what.to_string(),
            tag: page
                .element(node)
                .map(|e| e.local_name().to_string())
                .unwrap_or_else(|| "text".into()),
            members: vec![node],
        };
        on.effect_of(self)
    }
}

/// Refuses `node` (named `what`) when an open modal dialog makes it inert,
/// naming the dialog by the ref the page's snapshot session gives it: the
/// check every acting surface runs before it acts on a live page.
pub fn reachable(
    page: &Page,
    node: NodeId,
    what: &str,
    (url, session): (&str, Option<&SnapshotSession>),
) -> Result<(), ActionError> {
    let handle = |m: NodeId| match ref_of(page, m, url, session) {
        Some(r) => format!("ref {r}"),
        None => format!("node {m}"),
    };
    Layers::of(page).check(page, node, what, handle)?;
    Ok(())
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

fn cnt_node<'c>(page: &Page, cnt: &'c Cnt, target: &Target) -> Result<&'c CntNode, ActionError> {
    let id = match target {
        Target::Node(id) => *id,
        Target::Ref(r) => return Err(ActionError::NotAnId(r.clone())),
    };
    if page.get(id).is_none() {
        return Err(ActionError::UnknownId(id));
    }
    cnt.node_of(id).ok_or(ActionError::NotInCnt(id))
}

/// The element an action names: a CNT node's members, or one live element.
struct Element<'p> {
    page: &'p Page,
    what: String,
    tag: String,
    members: Vec<NodeId>,
}

impl Element<'_> {
    fn refuse(&self, verb: &'static str, reason: &str) -> ActionError {
        ActionError::Refused {
            verb,
            what: self.what.clone(),
            tag: self.tag.clone(),
            reason: reason.to_string(),
        }
    }

    fn first(&self) -> NodeId {
        self.members[0]
    }

    fn resolved(node: NodeId, effect: Effect) -> Resolved {
        Resolved { node, effect }
    }

    fn effect_of(&self, action: &Action) -> Result<Resolved, ActionError> {
        let page = self.page;
        match action {
            Action::Click { .. } => {
                let node = self
                    .members
                    .iter()
                    .copied()
                    .find(|&m| crate::cnt::is_clickable(page, m))
                    .unwrap_or(self.first());
                Ok(Self::resolved(node, Effect::Click))
            }
            Action::Write { text, .. } => self.write(text),
            Action::Type { .. } => self.text_field("type"),
            Action::Select { values, .. } => self.select(values, true),
            Action::Check { checked, .. } => self.toggle(*checked),
            Action::Hover { .. } => Ok(Self::resolved(self.first(), Effect::Hover)),
            Action::ScrollIntoView { .. } => {
                Ok(Self::resolved(self.first(), Effect::ScrollIntoView))
            }
            Action::DescribeImage { .. } => self.image(),
            _ => Err(self.refuse(action.name(), "it takes no element")),
        }
    }

    fn image(&self) -> Result<Resolved, ActionError> {
        self.members
            .iter()
            .find_map(|&m| {
                let src = self.page.element(m)?.attr("src")?.trim();
                (!src.is_empty()).then(|| {
                    Self::resolved(
                        m,
                        Effect::Image {
                            src: src.to_string(),
                        },
                    )
                })
            })
            .ok_or_else(|| {
                self.refuse(
                    "describe the image of",
                    "it has no src; describe_image takes an element with a src attribute",
                )
            })
    }

    /// The member that takes typed text.
    fn text_field(&self, verb: &'static str) -> Result<Resolved, ActionError> {
        for &m in &self.members {
            let Some(e) = self.page.element(m) else {
                continue;
            };
            let effect = match e.local_name() {
                "textarea" => Effect::Type,
                "input" if is_text_input(e.attr("type")) => Effect::Type,
                _ if is_editable(e.attr("contenteditable")) => Effect::Edit,
                _ => continue,
            };
            if e.has_attr("disabled") {
                return Err(self.refuse(verb, "it is disabled"));
            }
            if effect == Effect::Type && e.has_attr("readonly") {
                return Err(self.refuse(verb, "it is read-only"));
            }
            return Ok(Self::resolved(m, effect));
        }
        Err(self.refuse(
            verb,
            "it is not a text field, text area or editable element",
        ))
    }

    fn write(&self, text: &str) -> Result<Resolved, ActionError> {
        let mut refusal = None;
        for &m in &self.members {
            let Some(e) = self.page.element(m) else {
                continue;
            };
            let ty = e.attr("type").unwrap_or("text").trim().to_ascii_lowercase();
            let effect = match e.local_name() {
                "select" => return self.select(&[text.to_string()], false),
                "input" if matches!(ty.as_str(), "checkbox" | "radio") => {
                    let value = e.attr("value").unwrap_or("on");
                    return match (text == value, ty.as_str()) {
                        (true, _) => self.toggle(true),
                        (false, "checkbox") if text.is_empty() => self.toggle(false),
                        (false, _) => {
                            let uncheck = if ty == "checkbox" {
                                ", or \"\" to be unchecked"
                            } else {
                                ""
                            };
                            let reason =
                                format!("a {ty} takes its value {value:?} to be checked{uncheck}");
                            Err(self.refuse("write to", &reason))
                        }
                    };
                }
                "input" if matches!(ty.as_str(), "button" | "submit" | "reset" | "image") => {
                    refusal.get_or_insert("it is a button; click it instead");
                    continue;
                }
                "button" => {
                    refusal.get_or_insert("it is a button; click it instead");
                    continue;
                }
                "input" if ty == "file" => {
                    refusal.get_or_insert("a file input takes a file, not text");
                    continue;
                }
                "textarea" => Effect::Type,
                "input" if is_text_input(Some(&ty)) => Effect::Type,
                _ if is_editable(e.attr("contenteditable")) => Effect::Edit,
                _ => continue,
            };
            if effect == Effect::Type && e.has_attr("readonly") {
                refusal.get_or_insert("it is read-only");
                continue;
            }
            if e.has_attr("disabled") {
                return Err(self.refuse("write to", "it is disabled"));
            }
            return Ok(Self::resolved(m, effect));
        }
        Err(self.refuse(
            "write to",
            refusal.unwrap_or(
                "write works on inputs, textareas, selects, checkboxes, radios and contenteditable elements",
            ),
        ))
    }

    /// Chooses options by value; `by_label` also accepts an option's label.
    fn select(&self, values: &[String], by_label: bool) -> Result<Resolved, ActionError> {
        let Some((m, e)) = self.members.iter().find_map(|&m| {
            let e = self.page.element(m)?;
            (e.local_name() == "select").then_some((m, e))
        }) else {
            return Err(self.refuse("select in", "it is not a select"));
        };
        if e.has_attr("disabled") {
            return Err(self.refuse("select in", "it is disabled"));
        }
        let options = options(self.page, m);
        for v in values {
            let known = options
                .iter()
                .any(|(value, label)| value == v || (by_label && label == v.trim()));
            if !known {
                return Err(ActionError::NoSuchOption {
                    what: self.what.clone(),
                    value: v.clone(),
                    options: options.into_iter().map(|(value, _)| value).collect(),
                });
            }
        }
        Ok(Self::resolved(
            m,
            Effect::Select {
                values: values.to_vec(),
            },
        ))
    }

    fn toggle(&self, checked: bool) -> Result<Resolved, ActionError> {
        let verb = if checked { "check" } else { "uncheck" };
        for &m in &self.members {
            let Some(e) = self.page.element(m) else {
                continue;
            };
            let ty = e.attr("type").unwrap_or("").trim().to_ascii_lowercase();
            if e.local_name() != "input" || !matches!(ty.as_str(), "checkbox" | "radio") {
                continue;
            }
            if e.has_attr("disabled") {
                return Err(self.refuse(verb, "it is disabled"));
            }
            if ty == "radio" && !checked {
                return Err(self.refuse(verb, "a radio button is unchecked by checking another"));
            }
            return Ok(Self::resolved(m, Effect::Check { checked }));
        }
        Err(self.refuse(verb, "it is not a checkbox or radio button"))
    }
}

fn is_text_input(ty: Option<&str>) -> bool {
    let ty = ty.unwrap_or("text").trim().to_ascii_lowercase();
    !matches!(
        ty.as_str(),
        "checkbox"
            | "radio"
            | "button"
            | "submit"
            | "reset"
            | "image"
            | "file"
            | "hidden"
            | "range"
            | "color"
    )
}

fn is_editable(contenteditable: Option<&str>) -> bool {
    contenteditable.is_some_and(|v| !v.trim().eq_ignore_ascii_case("false"))
}

/// Each `<option>`'s value (its text when it has none, as the DOM defines
/// `option.value`) and label (its `label` attribute, else its text).
fn options(page: &Page, select: NodeId) -> Vec<(String, String)> {
    page.descendants(select)
        .filter(|&d| page.tag(d) == Some("option"))
        .map(|d| {
            let text = collapse_whitespace(&page.text_content(d));
            let attr = |n: &str| page.element(d).and_then(|e| e.attr(n)).map(str::to_string);
            let label = attr("label").unwrap_or_else(|| text.clone());
            (attr("value").unwrap_or(text), label)
        })
        .collect()
}
