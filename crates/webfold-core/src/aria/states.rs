//! The states Playwright prints, each computed only for the roles that support it.

use serde::{Deserialize, Serialize};

use crate::page::tags::heading_level;
use crate::page::{NodeId, Page};

use super::dom::DomIndex;
use super::js::js_number;
use super::roles::is_natively_disabled;
use super::style::input_type;

/// `[checked]`, `[checked=mixed]`; `false` prints nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tristate {
    #[default]
    False,
    True,
    Mixed,
}

/// `[invalid]`, `[invalid=grammar]`, `[invalid=spelling]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Invalid {
    #[default]
    False,
    True,
    Grammar,
    Spelling,
}

/// ARIA states of one node, in the order the YAML prints them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct States {
    #[serde(default, skip_serializing_if = "is_default")]
    pub checked: Tristate,
    #[serde(default, skip_serializing_if = "is_false")]
    pub disabled: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub expanded: bool,
    /// The focused element (`document.activeElement`); printed in `ai` mode only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub active: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    pub invalid: Invalid,
    /// Heading/listitem/row/treeitem level; 0 when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub level: u32,
    #[serde(default, skip_serializing_if = "is_default")]
    pub pressed: Tristate,
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(n: &u32) -> bool {
    *n == 0
}
fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

const CHECKED_ROLES: &[&str] = &[
    "checkbox",
    "menuitemcheckbox",
    "option",
    "radio",
    "switch",
    "menuitemradio",
    "treeitem",
];
const PRESSED_ROLES: &[&str] = &["button"];
const EXPANDED_ROLES: &[&str] = &[
    "application",
    "button",
    "checkbox",
    "combobox",
    "gridcell",
    "link",
    "listbox",
    "menuitem",
    "row",
    "rowheader",
    "tab",
    "treeitem",
    "columnheader",
    "menuitemcheckbox",
    "menuitemradio",
    "switch",
];
const LEVEL_ROLES: &[&str] = &["heading", "listitem", "row", "treeitem"];
const SELECTED_ROLES: &[&str] = &[
    "gridcell",
    "option",
    "row",
    "tab",
    "rowheader",
    "columnheader",
    "treeitem",
];
const INVALID_ROLES: &[&str] = &[
    "application",
    "checkbox",
    "columnheader",
    "combobox",
    "gridcell",
    "listbox",
    "radiogroup",
    "rowheader",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "textbox",
    "tree",
];
const DISABLED_ROLES: &[&str] = &[
    "application",
    "button",
    "composite",
    "gridcell",
    "group",
    "input",
    "link",
    "menuitem",
    "scrollbar",
    "separator",
    "tab",
    "checkbox",
    "columnheader",
    "combobox",
    "grid",
    "listbox",
    "menu",
    "menubar",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "radiogroup",
    "row",
    "rowheader",
    "searchbox",
    "select",
    "slider",
    "spinbutton",
    "switch",
    "tablist",
    "textbox",
    "toolbar",
    "tree",
    "treegrid",
    "treeitem",
];

/// States of element `id` whose role is `role` (the role on `el`'s aria node).
pub fn compute(dom: &DomIndex<'_>, id: NodeId, role: &str) -> States {
    let page = dom.page();
    let mut s = States::default();
    let Some(e) = page.element(id) else { return s };
    let tag = e.local_name().to_ascii_lowercase();
    let lower_attr = |name: &str| e.attr(name).map(str::to_lowercase);
    if CHECKED_ROLES.contains(&role) {
        s.checked = if tag == "input" && matches!(input_type(e.attr("type")), "checkbox" | "radio")
        {
            if radio_or_checkbox_checked(dom, id) {
                Tristate::True
            } else {
                Tristate::False
            }
        } else {
            match lower_attr("aria-checked").as_deref() {
                Some("true") => Tristate::True,
                Some("mixed") => Tristate::Mixed,
                _ => Tristate::False,
            }
        };
    }
    if DISABLED_ROLES.contains(&role) {
        s.disabled = is_natively_disabled(page, id) || aria_disabled_in_chain(page, id);
    }
    if EXPANDED_ROLES.contains(&role) {
        s.expanded = if tag == "details" {
            e.has_attr("open")
        } else {
            lower_attr("aria-expanded").as_deref() == Some("true")
        };
    }
    if INVALID_ROLES.contains(&role) {
        s.invalid = match lower_attr("aria-invalid").as_deref() {
            None | Some("false") => Invalid::False,
            Some(v) if v.trim().is_empty() => Invalid::False,
            Some("grammar") => Invalid::Grammar,
            Some("spelling") => Invalid::Spelling,
            Some(_) => Invalid::True,
        };
    }
    if LEVEL_ROLES.contains(&role) {
        s.level = match heading_level(&tag) {
            Some(level) => u32::from(level),
            None => e
                .attr("aria-level")
                .and_then(js_number)
                .filter(|v| v.fract() == 0.0 && *v >= 1.0 && *v <= u32::MAX as f64)
                .map_or(0, |v| v as u32),
        };
    }
    if PRESSED_ROLES.contains(&role) {
        s.pressed = match lower_attr("aria-pressed").as_deref() {
            Some("true") => Tristate::True,
            Some("mixed") => Tristate::Mixed,
            _ => Tristate::False,
        };
    }
    if SELECTED_ROLES.contains(&role) {
        s.selected = if tag == "option" {
            dom.option_selected(id)
        } else {
            lower_attr("aria-selected").as_deref() == Some("true")
        };
    }
    s
}

/// `aria-disabled` inherited down the ancestor chain: the nearest explicit
/// `true`/`false` wins.
fn aria_disabled_in_chain(page: &Page, id: NodeId) -> bool {
    for a in std::iter::once(id).chain(page.ancestors(id)) {
        let Some(e) = page.element(a) else { continue };
        match e.attr("aria-disabled").map(str::to_lowercase).as_deref() {
            Some("true") => return true,
            Some("false") => return false,
            _ => {}
        }
    }
    false
}

/// Checkedness after parsing. Radios in one group (same form, same name)
/// uncheck each other, so only the last one parsed with `checked` stays on.
fn radio_or_checkbox_checked(dom: &DomIndex<'_>, id: NodeId) -> bool {
    let Some(e) = dom.page().element(id) else {
        return false;
    };
    if input_type(e.attr("type")) == "radio" {
        return dom.radio_checked(id);
    }
    e.has_attr("checked")
}
