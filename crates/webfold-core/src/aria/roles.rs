//! ARIA roles: explicit `role` (first valid token), HTML-AAM implicit roles,
//! presentation conflict resolution and inheritance, as Playwright computes them.

use crate::page::tags::is_heading;
use crate::page::{ElementData, NodeId, Page};

use super::dom::DomIndex;
use super::js::js_number;
use super::style::{input_type, is_listbox_select};

pub const VALID_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "meter",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Global ARIA attributes, with the roles on which each is prohibited.
const GLOBAL_ARIA: &[(&str, &[&str])] = &[
    ("aria-atomic", &[]),
    ("aria-busy", &[]),
    ("aria-controls", &[]),
    ("aria-current", &[]),
    ("aria-describedby", &[]),
    ("aria-details", &[]),
    ("aria-dropeffect", &[]),
    ("aria-flowto", &[]),
    ("aria-grabbed", &[]),
    ("aria-hidden", &[]),
    ("aria-keyshortcuts", &[]),
    ("aria-label", NAMING_PROHIBITED_GLOBAL),
    ("aria-labelledby", NAMING_PROHIBITED_GLOBAL),
    ("aria-live", &[]),
    ("aria-owns", &[]),
    ("aria-relevant", &[]),
    ("aria-roledescription", &["generic"]),
];

const NAMING_PROHIBITED_GLOBAL: &[&str] = &[
    "caption",
    "code",
    "deletion",
    "emphasis",
    "generic",
    "insertion",
    "paragraph",
    "presentation",
    "strong",
    "subscript",
    "superscript",
];

/// Each element's role (`None`: no role), computed once per page. A page
/// uses a few dozen roles: each node keeps its role's place in that list,
/// two bytes where a name would take sixteen.
pub struct Roles {
    /// 0: no role; `n`: the role at place `n - 1` ([`role_place`]).
    places: Vec<u8>,
}

impl Roles {
    pub fn compute(dom: &DomIndex<'_>) -> Roles {
        let page = dom.page();
        // The roles met so far and their places: a page uses a few dozen,
        // found in this short list far sooner than among all roles.
        let mut met: Vec<(&'static str, u8)> = Vec::new();
        let places = (0..page.len())
            .map(|i| {
                let id = NodeId::new(i as u32);
                let Some(role) = page.element(id).and_then(|_| compute_role(dom, id)) else {
                    return 0;
                };
                let place = match met.iter().find(|(r, _)| *r == role) {
                    Some(&(_, p)) => p,
                    None => {
                        let p = role_place(role);
                        met.push((role, p));
                        p
                    }
                };
                place.saturating_add(1)
            })
            .collect();
        Roles { places }
    }

    pub fn get(&self, id: NodeId) -> Option<&'static str> {
        self.place(id).map(role_name)
    }

    /// The role's place ([`role_place`]).
    pub fn place(&self, id: NodeId) -> Option<u8> {
        self.places.get(id.index())?.checked_sub(1)
    }
}

/// The roles the snapshot's builder makes beyond ARIA's.
const OWN_ROLES: [&str; 2] = ["fragment", "iframe"];

// Every role has a place in a byte, and one more for "none".
const _: () = assert!(VALID_ROLES.len() + OWN_ROLES.len() < 255);

/// The place of `role` among [`VALID_ROLES`] and [`OWN_ROLES`]: a role in a
/// byte. Roles are read from the page against that list, so every role
/// the builder makes is there; `generic` stands in otherwise.
pub(crate) fn role_place(role: &str) -> u8 {
    // Sorted by name once: an element asks.
    static BY_NAME: std::sync::LazyLock<Vec<(&'static str, u8)>> = std::sync::LazyLock::new(|| {
        let mut names: Vec<(&'static str, u8)> = VALID_ROLES
            .iter()
            .chain(&OWN_ROLES)
            .enumerate()
            .map(|(i, r)| (*r, u8::try_from(i).unwrap_or_default()))
            .collect();
        names.sort_unstable();
        names
    });
    let find = |role: &str| {
        BY_NAME
            .binary_search_by(|(name, _)| (*name).cmp(role))
            .ok()
            .map(|i| BY_NAME[i].1)
    };
    find(role).or_else(|| find("generic")).unwrap_or_default()
}

/// `name` as the static name of a role the builder makes, if it is one.
pub(crate) fn static_role(name: &str) -> Option<&'static str> {
    let name_of = role_name(role_place(name));
    (name_of == name).then_some(name_of)
}

/// The role at `place` ([`role_place`]).
pub(crate) fn role_name(place: u8) -> &'static str {
    let i = usize::from(place);
    VALID_ROLES
        .get(i)
        .or_else(|| OWN_ROLES.get(i - VALID_ROLES.len().min(i)))
        .copied()
        .unwrap_or("generic")
}

/// The first token of `role` that is a valid role, lower-cased.
pub fn explicit_role(e: &ElementData) -> Option<&'static str> {
    let value = e.attr("role")?.to_lowercase();
    value
        .split(' ')
        .map(str::trim)
        .find_map(|t| VALID_ROLES.iter().find(|r| **r == t).copied())
}

fn has_global_aria_attribute(e: &ElementData, for_role: Option<&str>) -> bool {
    GLOBAL_ARIA
        .iter()
        .any(|(attr, prohibited)| !prohibited.contains(&for_role.unwrap_or("")) && e.has_attr(attr))
}

pub fn has_tab_index(e: &ElementData) -> bool {
    e.attr("tabindex").is_some_and(|v| js_number(v).is_some())
}

fn is_natively_focusable(e: &ElementData) -> bool {
    if !e.is_html() {
        return false;
    }
    match e.local_name() {
        "button" | "details" | "select" | "textarea" => true,
        "a" | "area" => e.has_attr("href"),
        "input" => !e.has_attr("hidden"),
        _ => false,
    }
}

fn is_focusable(page: &Page, id: NodeId, e: &ElementData) -> bool {
    !is_natively_disabled(page, id) && (is_natively_focusable(e) || has_tab_index(e))
}

fn presentation_conflict(page: &Page, id: NodeId, e: &ElementData, role: Option<&str>) -> bool {
    has_global_aria_attribute(e, role) || is_focusable(page, id, e)
}

/// `tagName` compared the way Playwright's upper-cased `elementSafeTagName` does.
fn tag_is(e: &ElementData, name: &str) -> bool {
    e.local_name().eq_ignore_ascii_case(name)
}

fn compute_role(dom: &DomIndex<'_>, id: NodeId) -> Option<&'static str> {
    let page = dom.page();
    let e = page.element(id)?;
    let Some(explicit) = explicit_role(e) else {
        return implicit_role(dom, id);
    };
    if explicit == "none" || explicit == "presentation" {
        let implicit = implicit_role(dom, id);
        if presentation_conflict(page, id, e, implicit) {
            return implicit;
        }
    }
    Some(explicit)
}

/// Parents through which `presentation` passes down to required children.
fn presentation_parents(tag: &str) -> &'static [&'static str] {
    match tag {
        "dd" | "dt" => &["dl", "div"],
        "div" => &["dl"],
        "li" => &["ol", "ul"],
        "tbody" | "tfoot" | "thead" => &["table"],
        "td" | "th" => &["tr"],
        "tr" => &["thead", "tbody", "tfoot", "table"],
        _ => &[],
    }
}

fn implicit_role(dom: &DomIndex<'_>, id: NodeId) -> Option<&'static str> {
    let page = dom.page();
    let role = implicit_role_by_tag(dom, id)?;
    let mut ancestor = id;
    while let Some(parent) = page.parent(ancestor) {
        let (Some(a_el), Some(p_el)) = (page.element(ancestor), page.element(parent)) else {
            break;
        };
        if !presentation_parents(&a_el.local_name().to_ascii_lowercase())
            .iter()
            .any(|t| tag_is(p_el, t))
        {
            break;
        }
        let parent_role = explicit_role(p_el);
        if matches!(parent_role, Some("none") | Some("presentation"))
            && !presentation_conflict(page, parent, p_el, parent_role)
        {
            return parent_role;
        }
        ancestor = parent;
    }
    Some(role)
}

/// `closest(selector)` for the ancestors that keep a header or footer from being a landmark.
fn has_landmark_preventing_ancestor(page: &Page, id: NodeId) -> bool {
    std::iter::once(id).chain(page.ancestors(id)).any(|a| {
        let Some(e) = page.element(a) else {
            return false;
        };
        let tag = e.local_name();
        (matches!(tag, "article" | "aside" | "main" | "nav" | "section")
            && e.is_html()
            && !e.has_attr("role"))
            || matches!(
                e.attr("role"),
                Some("article" | "complementary" | "main" | "navigation" | "region")
            )
    })
}

fn has_explicit_accessible_name(e: &ElementData) -> bool {
    e.has_attr("aria-label") || e.has_attr("aria-labelledby")
}

fn implicit_role_by_tag(dom: &DomIndex<'_>, id: NodeId) -> Option<&'static str> {
    let page = dom.page();
    let e = page.element(id)?;
    let tag = e.local_name().to_ascii_lowercase();
    if let Some(role) = fixed_role(&tag) {
        return Some(role);
    }
    match tag.as_str() {
        "a" | "area" => e.has_attr("href").then_some("link"),
        "footer" => (!has_landmark_preventing_ancestor(page, id)).then_some("contentinfo"),
        "form" => has_explicit_accessible_name(e).then_some("form"),
        "header" => (!has_landmark_preventing_ancestor(page, id)).then_some("banner"),
        "img" => Some(img_role(e)),
        "input" => input_role(dom, id, e),
        "section" => has_explicit_accessible_name(e).then_some("region"),
        "select" => Some(if is_listbox_select(e) {
            "listbox"
        } else {
            "combobox"
        }),
        "td" => Some(td_role(page, id)),
        "th" => th_role(page, id, e),
        _ => None,
    }
}

/// The role a tag always has, whatever its attributes and place.
fn fixed_role(tag: &str) -> Option<&'static str> {
    Some(match tag {
        "article" => "article",
        "aside" => "complementary",
        "blockquote" => "blockquote",
        "button" => "button",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "dd" => "definition",
        "del" => "deletion",
        "details" => "group",
        "dfn" => "term",
        "dialog" => "dialog",
        "dt" => "term",
        "em" => "emphasis",
        "fieldset" => "group",
        "figure" => "figure",
        t if is_heading(t) => "heading",
        "hr" => "separator",
        "html" => "document",
        "ins" => "insertion",
        "li" => "listitem",
        "main" => "main",
        "mark" => "mark",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "optgroup" => "group",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "strong" => "strong",
        "sub" => "subscript",
        "sup" => "superscript",
        "svg" => "img",
        "table" => "table",
        "tbody" | "thead" | "tfoot" => "rowgroup",
        "textarea" => "textbox",
        "time" => "time",
        "tr" => "row",
        _ => return None,
    })
}

/// An `<img alt="">` with nothing else to say is presentational.
fn img_role(e: &ElementData) -> &'static str {
    if e.attr("alt") == Some("")
        && e.attr("title").is_none_or(str::is_empty)
        && !has_global_aria_attribute(e, None)
        && !has_tab_index(e)
    {
        "presentation"
    } else {
        "img"
    }
}

/// An `<input>`'s role by its type; a text input with a datalist is a combobox.
fn input_role(dom: &DomIndex<'_>, id: NodeId, e: &ElementData) -> Option<&'static str> {
    let page = dom.page();
    let t = input_type(e.attr("type"));
    Some(match t {
        "email" | "search" | "tel" | "text" | "url" => {
            let list = dom.id_refs(id, e.attr("list")).first().copied();
            if list.is_some_and(|l| page.element(l).is_some_and(|le| tag_is(le, "datalist"))) {
                "combobox"
            } else if t == "search" {
                "searchbox"
            } else {
                "textbox"
            }
        }
        "hidden" => return None,
        "file" | "button" | "image" | "reset" | "submit" => "button",
        "checkbox" => "checkbox",
        "number" => "spinbutton",
        "radio" => "radio",
        "range" => "slider",
        _ => "textbox",
    })
}

/// A `<td>` is a grid cell in a grid or tree grid, else a cell.
fn td_role(page: &Page, id: NodeId) -> &'static str {
    let table = std::iter::once(id)
        .chain(page.ancestors(id))
        .find(|&a| page.element(a).is_some_and(|t| tag_is(t, "table")));
    match table.and_then(|t| page.element(t)).and_then(explicit_role) {
        Some("grid") | Some("treegrid") => "gridcell",
        _ => "cell",
    }
}

fn th_role(page: &Page, id: NodeId, e: &ElementData) -> Option<&'static str> {
    match e.attr("scope") {
        Some("col") | Some("colgroup") => return Some("columnheader"),
        Some("row") | Some("rowgroup") => return Some("rowheader"),
        _ => {}
    }
    let next = next_element_sibling(page, id);
    let prev = prev_element_sibling(page, id);
    let row = page
        .parent(id)
        .filter(|&p| page.element(p).is_some_and(|pe| tag_is(pe, "tr")));
    if next.is_none() && prev.is_none() {
        if let Some(row) = row {
            let table = page
                .ancestors(row)
                .find(|&a| page.element(a).is_some_and(|t| tag_is(t, "table")));
            if table.is_some_and(|t| table_row_count(page, t) <= 1) {
                return None;
            }
        }
        return Some("columnheader");
    }
    let is_header = |n: Option<NodeId>| {
        n.and_then(|n| page.element(n))
            .is_some_and(|e| tag_is(e, "th"))
    };
    let non_empty_data = |n: Option<NodeId>| {
        n.is_some_and(|n| {
            page.element(n).is_some_and(|e| tag_is(e, "td"))
                && (!super::js::js_trim(&page.text_content(n)).is_empty()
                    || page.element_children(n).next().is_some())
        })
    };
    if is_header(next) && is_header(prev) {
        return Some("columnheader");
    }
    if non_empty_data(next) || non_empty_data(prev) {
        return Some("rowheader");
    }
    Some("columnheader")
}

/// `table.rows.length`: rows that are children of the table or of its sections.
fn table_row_count(page: &Page, table: NodeId) -> usize {
    let mut n = 0;
    for c in page.element_children(table) {
        match page.tag(c) {
            Some("tr") => n += 1,
            Some("thead") | Some("tbody") | Some("tfoot") => {
                n += page
                    .element_children(c)
                    .filter(|&r| page.tag(r) == Some("tr"))
                    .count()
            }
            _ => {}
        }
    }
    n
}

pub fn next_element_sibling(page: &Page, id: NodeId) -> Option<NodeId> {
    let mut s = page.node(id).next_sibling;
    while let Some(n) = s {
        if page.is_element(n) {
            return Some(n);
        }
        s = page.node(n).next_sibling;
    }
    None
}

fn prev_element_sibling(page: &Page, id: NodeId) -> Option<NodeId> {
    let mut s = page.node(id).prev_sibling;
    while let Some(n) = s {
        if page.is_element(n) {
            return Some(n);
        }
        s = page.node(n).prev_sibling;
    }
    None
}

/// `isNativelyDisabled`: a disabled form control, option in a disabled
/// optgroup, or control in a disabled fieldset outside its first legend.
pub fn is_natively_disabled(page: &Page, id: NodeId) -> bool {
    let Some(e) = page.element(id) else {
        return false;
    };
    let tag = e.local_name().to_ascii_lowercase();
    if !matches!(
        tag.as_str(),
        "button" | "input" | "select" | "textarea" | "option" | "optgroup"
    ) {
        return false;
    }
    if e.has_attr("disabled") {
        return true;
    }
    if tag == "option"
        && page.ancestors(id).any(|a| {
            page.element(a)
                .is_some_and(|g| tag_is(g, "optgroup") && g.has_attr("disabled"))
        })
    {
        return true;
    }
    let Some(fieldset) = page.ancestors(id).find(|&a| {
        page.element(a)
            .is_some_and(|f| tag_is(f, "fieldset") && f.has_attr("disabled"))
    }) else {
        return false;
    };
    let legend = page
        .element_children(fieldset)
        .find(|&c| page.element(c).is_some_and(|l| tag_is(l, "legend")));
    legend.is_none_or(|l| !page.is_ancestor_of(l, id))
}
