//! DOM facts the browser would answer from its live objects: `getElementById`,
//! `element.labels`, `input.value`, `option.selected`. Built once per page.

use std::collections::HashMap;

use crate::page::{ElementData, NodeData, NodeId, Page};

use super::shadow::Shadow;
use super::style::input_type;

pub struct DomIndex<'p> {
    page: &'p Page,
    pub shadow: Shadow,
    /// The tree scope (document or shadow root) of each node; empty on a
    /// page without shadow roots (all of it is the document's).
    scopes: Vec<NodeId>,
    /// Inside a plain `<template>`: not part of the document.
    pub inert: Vec<bool>,
    ids: HashMap<(NodeId, &'p str), NodeId>,
    labels: HashMap<NodeId, Vec<NodeId>>,
    /// The select each listed option belongs to.
    option_select: HashMap<NodeId, NodeId>,
    selected: std::collections::HashSet<NodeId>,
    /// Radios left checked after parsing: in each group (form owner, name)
    /// checking one unchecks the others, so the last `checked` one wins.
    checked_radios: std::collections::HashSet<NodeId>,
}

impl<'p> DomIndex<'p> {
    pub fn new(page: &'p Page) -> DomIndex<'p> {
        let shadow = Shadow::new(page);
        let scopes = shadow.scopes(page);
        let inert = shadow.inert(page);
        let mut ids = HashMap::new();
        let mut label_elements = Vec::new();
        let mut selects = Vec::new();
        for (i, node) in page.nodes().iter().enumerate() {
            let NodeData::Element(e) = &node.data else {
                continue;
            };
            if inert[i] || shadow.is_shadow_template(NodeId::new(i as u32)) {
                continue;
            }
            let id = NodeId::new(i as u32);
            if let Some(v) = e.attr("id")
                && !v.is_empty()
            {
                ids.entry((scope_of(&scopes, i), v)).or_insert(id);
            }
            if e.is_html() {
                match e.local_name() {
                    "label" => label_elements.push(id),
                    "select" => selects.push(id),
                    _ => {}
                }
            }
        }
        let mut index = DomIndex {
            page,
            shadow,
            scopes,
            inert,
            ids,
            labels: HashMap::new(),
            option_select: HashMap::new(),
            selected: Default::default(),
            checked_radios: Default::default(),
        };
        for label in label_elements {
            if let Some(control) = index.labeled_control(label) {
                index.labels.entry(control).or_default().push(label);
            }
        }
        index.checked_radios = index.find_checked_radios();
        for select in selects {
            for o in index.select_options(select) {
                index.option_select.insert(o, select);
            }
            let selected = index.selected_in(select);
            index.selected.extend(selected);
        }
        index
    }

    pub fn page(&self) -> &'p Page {
        self.page
    }

    /// `document.getElementById(id)`.
    pub fn element_by_id(&self, id: &str) -> Option<NodeId> {
        self.ids.get(&(NodeId::DOCUMENT, id)).copied()
    }

    /// `getElementById` in the tree scope (document or shadow root) of `from`.
    pub fn element_by_id_from(&self, from: NodeId, id: &str) -> Option<NodeId> {
        self.ids
            .get(&(scope_of(&self.scopes, from.index()), id))
            .copied()
    }

    /// `getIdRefs(from, value)`: ids split on HTML whitespace, resolved in
    /// `from`'s tree scope, duplicates dropped.
    pub fn id_refs(&self, from: NodeId, value: Option<&str>) -> Vec<NodeId> {
        let mut out = Vec::new();
        let Some(value) = value else { return out };
        for id in value
            .split([' ', '\t', '\n', '\u{c}', '\r'])
            .filter(|s| !s.is_empty())
        {
            if let Some(e) = self.element_by_id_from(from, id)
                && !out.contains(&e)
            {
                out.push(e);
            }
        }
        out
    }

    /// The nodes Playwright's walk visits under `el`, before `aria-owns`: a
    /// slot's assigned nodes (or its fallback content), else the light children
    /// no slot took, then an open shadow root's children. A plain template's
    /// content is not its children in the DOM.
    pub fn walk_children(&self, el: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let assigned = self.shadow.assigned_nodes(el);
        if !assigned.is_empty() && page.tag(el) == Some("slot") {
            return assigned.to_vec();
        }
        if page.element(el).is_some_and(|e| e.is_template) {
            return Vec::new();
        }
        let mut out: Vec<NodeId> = page.children(el).collect();
        if self.shadow.is_empty() {
            return out;
        }
        out.retain(|&c| {
            !self.shadow.is_shadow_template(c) && self.shadow.assigned_slot(page, c).is_none()
        });
        if let Some(root) = self.shadow.open_root(el) {
            out.extend(page.children(root));
        }
        out
    }

    /// `isTextNodeNotRendered`: light text of an open shadow host that no slot
    /// took, or text directly inside a closed `<details>`.
    pub fn text_not_rendered(&self, text: NodeId) -> bool {
        let page = self.page;
        let Some(parent) = page.parent(text) else {
            return false;
        };
        let Some(p) = page.element(parent) else {
            return false;
        };
        if self.shadow.open_root(parent).is_some()
            && self.shadow.assigned_slot(page, text).is_none()
        {
            return true;
        }
        p.is_html() && p.local_name() == "details" && !p.has_attr("open")
    }

    fn find_checked_radios(&self) -> std::collections::HashSet<NodeId> {
        let page = self.page;
        // Form owner per node: the nearest <form> ancestor, in one preorder pass.
        let mut form: Vec<Option<NodeId>> = vec![None; page.len()];
        let mut winners: HashMap<(Option<NodeId>, &str), NodeId> = HashMap::new();
        let mut out = std::collections::HashSet::new();
        for (i, node) in page.nodes().iter().enumerate() {
            let id = NodeId::new(i as u32);
            let inherited = node.parent.and_then(|p| {
                if page.tag(p) == Some("form") {
                    Some(p)
                } else {
                    form[p.index()]
                }
            });
            form[i] = inherited;
            let NodeData::Element(e) = &node.data else {
                continue;
            };
            if !(e.is_html()
                && e.local_name() == "input"
                && input_type(e.attr("type")) == "radio"
                && e.has_attr("checked"))
            {
                continue;
            }
            match e.attr("name").filter(|n| !n.is_empty()) {
                Some(name) => {
                    if let Some(prev) = winners.insert((inherited, name), id) {
                        out.remove(&prev);
                    }
                    out.insert(id);
                }
                None => {
                    out.insert(id);
                }
            }
        }
        out
    }

    /// A radio's checkedness after parsing.
    pub fn radio_checked(&self, id: NodeId) -> bool {
        self.checked_radios.contains(&id)
    }

    /// `element.labels`, in tree order.
    pub fn labels(&self, id: NodeId) -> &[NodeId] {
        self.labels.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    fn labeled_control(&self, label: NodeId) -> Option<NodeId> {
        let e = self.page.element(label)?;
        if let Some(for_id) = e.attr("for") {
            let target = self.element_by_id_from(label, for_id)?;
            return self.is_labelable(target).then_some(target);
        }
        self.page.descendants(label).find(|&d| self.is_labelable(d))
    }

    fn is_labelable(&self, id: NodeId) -> bool {
        let Some(e) = self.page.element(id) else {
            return false;
        };
        e.is_html()
            && match e.local_name() {
                "button" | "meter" | "output" | "progress" | "select" | "textarea" => true,
                "input" => input_type(e.attr("type")) != "hidden",
                _ => false,
            }
    }

    /// `select.options`: option children and options of optgroup children.
    pub fn select_options(&self, select: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let mut out = Vec::new();
        for c in page.element_children(select) {
            match page.tag(c) {
                Some("option") => out.push(c),
                Some("optgroup") => out.extend(
                    page.element_children(c)
                        .filter(|&o| page.tag(o) == Some("option")),
                ),
                _ => {}
            }
        }
        out
    }

    /// Selectedness after parsing: in a single-select the last `selected`
    /// option wins, and a drop-down with none selects its first enabled option.
    fn selected_in(&self, select: NodeId) -> Vec<NodeId> {
        let Some(e) = self.page.element(select) else {
            return Vec::new();
        };
        let options = self.select_options(select);
        let has_selected = |o: &NodeId| {
            self.page
                .element(*o)
                .is_some_and(|oe| oe.has_attr("selected"))
        };
        if e.has_attr("multiple") {
            return options.into_iter().filter(has_selected).collect();
        }
        if let Some(&last) = options.iter().rev().find(|o| has_selected(o)) {
            return vec![last];
        }
        if super::style::is_listbox_select(e) {
            return Vec::new();
        }
        options
            .into_iter()
            .find(|&o| !self.option_disabled(o))
            .into_iter()
            .collect()
    }

    fn option_disabled(&self, option: NodeId) -> bool {
        let page = self.page;
        page.element(option).is_some_and(|e| e.has_attr("disabled"))
            || page.parent(option).is_some_and(|p| {
                page.tag(p) == Some("optgroup")
                    && page.element(p).is_some_and(|g| g.has_attr("disabled"))
            })
    }

    /// `option.selected` as parsing leaves it.
    pub fn option_selected(&self, option: NodeId) -> bool {
        match self.option_select.get(&option) {
            Some(_) => self.selected.contains(&option),
            None => self
                .page
                .element(option)
                .is_some_and(|e| e.has_attr("selected")),
        }
    }

    /// `select.selectedOptions`.
    pub fn selected_options(&self, select: NodeId) -> Vec<NodeId> {
        self.select_options(select)
            .into_iter()
            .filter(|&o| self.option_selected(o))
            .collect()
    }

    /// `input.value` / `textarea.value` before any user edit.
    pub fn control_value(&self, id: NodeId) -> String {
        let page = self.page;
        let Some(e) = page.element(id) else {
            return String::new();
        };
        if e.local_name() == "textarea" {
            return page
                .text_content(id)
                .replace("\r\n", "\n")
                .replace('\r', "\n");
        }
        input_value(e)
    }
}

/// The value sanitization algorithm applied to the `value` attribute.
pub fn input_value(e: &ElementData) -> String {
    let raw = e.attr("value");
    let strip_newlines = |s: &str| {
        s.chars()
            .filter(|&c| c != '\n' && c != '\r')
            .collect::<String>()
    };
    match input_type(e.attr("type")) {
        "text" | "search" | "tel" | "password" => raw.map(strip_newlines).unwrap_or_default(),
        "url" | "email" => raw
            .map(|v| {
                strip_newlines(v)
                    .trim_matches(|c: char| c.is_ascii_whitespace())
                    .to_string()
            })
            .unwrap_or_default(),
        "checkbox" | "radio" => raw.unwrap_or("on").to_string(),
        "number" => raw
            .filter(|v| {
                super::js::js_number(v).is_some_and(f64::is_finite)
                    && !v.trim().is_empty()
                    && v.trim() == *v
            })
            .unwrap_or("")
            .to_string(),
        "range" => range_value(e),
        "color" => raw
            .filter(|v| {
                v.len() == 7 && v.starts_with('#') && v[1..].bytes().all(|b| b.is_ascii_hexdigit())
            })
            .map(|v| v.to_ascii_lowercase())
            .unwrap_or_else(|| "#000000".to_string()),
        "date" | "time" | "datetime-local" | "month" | "week" => raw.unwrap_or("").to_string(),
        _ => raw.unwrap_or("").to_string(),
    }
}

fn range_value(e: &ElementData) -> String {
    let num = |a: &str| {
        e.attr(a)
            .and_then(super::js::js_number)
            .filter(|v| v.is_finite())
    };
    let min = num("min").unwrap_or(0.0);
    let mut max = num("max").unwrap_or(100.0);
    if max < min {
        max = min;
    }
    let value = num("value").unwrap_or(if max < min {
        min
    } else {
        min + (max - min) / 2.0
    });
    let step = num("step").filter(|s| *s > 0.0).unwrap_or(1.0);
    let clamped = value.clamp(min, max);
    let stepped = min + ((clamped - min) / step).round() * step;
    let v = if stepped > max {
        stepped - step
    } else {
        stepped
    };
    format_js_number(v)
}

/// `String(number)` for the values inputs produce.
fn format_js_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e21 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Node `i`'s tree scope in `scopes` ([`Shadow::scopes`]).
fn scope_of(scopes: &[NodeId], i: usize) -> NodeId {
    scopes.get(i).copied().unwrap_or(NodeId::DOCUMENT)
}
