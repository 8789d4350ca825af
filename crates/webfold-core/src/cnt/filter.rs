//! Seed 003's filtering rules and the facts the merging rules need about one
//! DOM element: is it kept at all, is it clickable, which attributes survive.

use crate::NodeId;
use crate::aria::roles::explicit_role;
use crate::page::tags::{is_heading, is_text_level};
use crate::page::{ElementData, NodeData, Page, ns};
use crate::snapshot::priority::is_context_role;

/// Elements dropped with their whole subtree, whatever their rendering: they
/// carry no content a reader sees.
fn is_dropped_tag(tag: &str) -> bool {
    matches!(tag, "script" | "style" | "meta" | "link")
}

/// Tags a person clicks or types into. `a` counts only with `href`: browsers
/// make an anchor focusable and clickable only then, and named anchors
/// (`<a id=top></a>`) are frequent empty noise. `option` is here because it is
/// what `write` names on a `<select>`; as a text node it would merge away.
fn is_clickable_tag(tag: &str, has_href: bool) -> bool {
    match tag {
        "a" => has_href,
        "button" | "input" | "select" | "textarea" | "label" | "summary" | "option" => true,
        _ => false,
    }
}

/// ARIA widget roles: the element itself is operated (clicked, typed into).
/// Composite containers (menu, tablist, grid, …) are not: their items are.
fn is_interactive_role(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "checkbox"
            | "combobox"
            | "link"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "radio"
            | "searchbox"
            | "slider"
            | "spinbutton"
            | "switch"
            | "tab"
            | "textbox"
            | "treeitem"
    )
}

/// Attributes shown in the CNT (besides ours, the id and clickable). The
/// state ones (a live capture writes them as the user left the form) tell an
/// agent whether its click or choice took.
fn is_kept_attr(name: &str) -> bool {
    name.starts_with("aria-")
        || is_state_attr(name)
        || matches!(
            name,
            "role" | "href" | "src" | "alt" | "title" | "placeholder" | "name" | "type" | "value"
        )
}

/// Boolean state attributes: shown by name alone.
pub(crate) fn is_state_attr(name: &str) -> bool {
    matches!(name, "checked" | "selected" | "disabled" | "invisible")
}

/// A control no one sees says so (`invisible`, first); an `aria-label`
/// saying something else than the visible words is renamed
/// `invisible-aria-label`, so neither reads as what the page shows.
fn mark_unseen(page: &Page, id: NodeId, unseen: bool, attrs: &mut Vec<(String, String)>) {
    if unseen {
        attrs.insert(0, ("invisible".to_string(), String::new()));
        return;
    }
    let replaces = page
        .element(id)
        .is_some_and(crate::page::unseen::label_replaces_text);
    let Some(label) = attrs
        .iter_mut()
        .find(|(n, _)| n == "aria-label")
        .filter(|_| replaces)
    else {
        return;
    };
    let seen = crate::page::unseen::seen_text(page, id);
    if crate::page::unseen::label_differs(&label.1, &seen) {
        label.0 = "invisible-aria-label".to_string();
    }
}

/// Headings and live-region messages (`status`, `alert`, `log`, `<output>`,
/// `aria-live`): the snapshot gives them lines of their own, and so does the
/// CNT. Merged into a neighbour they would read as that control's label
/// (`button* Page B "Buy now"`) or as part of its text (`"Sell" Order placed`).
fn keeps_own_line(e: &ElementData) -> bool {
    match explicit_role(e) {
        Some(role) if is_context_role(role) => return true,
        Some(_) => {}
        None => {
            let tag = e.local_name();
            if is_heading(tag) || tag == "output" {
                return true;
            }
        }
    }
    e.attr("aria-live").is_some_and(|v| {
        let v = v.trim();
        v.eq_ignore_ascii_case("polite") || v.eq_ignore_ascii_case("assertive")
    })
}

/// What the CNT keeps of one element.
pub(crate) struct ElementFacts {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub clickable: bool,
    pub inline: bool,
    /// Never merged with a sibling's text (see [`keeps_own_line`]).
    pub own_line: bool,
}

/// How the filtering rules treat a DOM node.
pub(crate) enum Kind {
    /// Not in the CNT, nor anything under it.
    Dropped,
    /// Not rendered itself, but its rendered descendants are kept in its
    /// place (`visibility: hidden` with a `visible` child, `display: contents`).
    Transparent,
    Text,
    /// `<br>`: reads as a space between the words it separates.
    Break,
    Element(ElementFacts),
}

pub(crate) fn classify(page: &Page, id: NodeId) -> Kind {
    let node = page.node(id);
    match &node.data {
        NodeData::Text(_) => {
            if page.is_seen(id) {
                Kind::Text
            } else {
                Kind::Dropped
            }
        }
        NodeData::Element(e) => {
            let tag = e.local_name();
            if is_dropped_tag(tag)
                || node.inert
                || page.static_visibility(id).display_none && !page.has_layout()
            {
                return Kind::Dropped;
            }
            if !page.is_rendered(id) {
                return Kind::Transparent;
            }
            let clickable = is_clickable(page, id);
            let unseen = page.unseen(id).is_some();
            if unseen && !clickable {
                return Kind::Transparent;
            }
            if tag == "br" {
                return Kind::Break;
            }
            let mut attrs = Vec::new();
            for a in &e.attrs {
                let name = &*a.name.local;
                // An empty value says nothing (`alt=""` only marks decoration)
                // except on `value`, where it is what a field holds.
                let empty = a.value.trim().is_empty() && name != "value" && !is_state_attr(name);
                if a.name.ns == ns!() && is_kept_attr(name) && !empty {
                    attrs.push((name.to_string(), a.value.to_string()));
                }
            }
            mark_unseen(page, id, unseen, &mut attrs);
            // A first push reserves four: most elements keep one or two.
            attrs.shrink_to_fit();
            ElementFacts {
                tag: tag.to_string(),
                attrs,
                clickable,
                inline: is_text_level(tag),
                own_line: keeps_own_line(e),
            }
            .into()
        }
        _ => Kind::Dropped,
    }
}

impl From<ElementFacts> for Kind {
    fn from(f: ElementFacts) -> Kind {
        Kind::Element(f)
    }
}

/// The clickable rule (see the module docs of [`crate::cnt`]).
pub fn is_clickable(page: &Page, id: NodeId) -> bool {
    let Some(e) = page.element(id) else {
        return false;
    };
    if is_clickable_tag(e.local_name(), e.has_attr("href")) || e.has_attr("onclick") {
        return true;
    }
    if e.attr("role").is_some_and(|r| {
        r.split_ascii_whitespace()
            .next()
            .is_some_and(|r| is_interactive_role(&r.to_ascii_lowercase()))
    }) {
        return true;
    }
    if e.attr("tabindex")
        .and_then(|t| t.trim().parse::<i64>().ok())
        .is_some_and(|t| t >= 0)
    {
        return true;
    }
    if e.attr("contenteditable").is_some_and(|v| {
        let v = v.trim();
        v.is_empty() || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("plaintext-only")
    }) {
        return true;
    }
    // `cursor` inherits: only the element that introduces `pointer` is the
    // click target, not every descendant under it.
    let pointer = |n: NodeId| {
        page.layout(n)
            .is_some_and(|l| l.cursor.as_deref() == Some("pointer"))
    };
    pointer(id) && !page.parent(id).is_some_and(pointer)
}
