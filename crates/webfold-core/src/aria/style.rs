//! The computed-style facts the snapshot reads, per node.
//!
//! Playwright asks the browser for `display`, `visibility`, `cursor`,
//! `pointer-events`, `checkVisibility()` and the bounding box. For static HTML
//! we emulate Chromium's UA stylesheet plus inline `style` attributes; when a
//! live capture attached a [`Layout`](crate::page::Layout), its answers win.
//! Two linear passes: preorder for inherited properties, reverse preorder for
//! "has a non-empty box", which depends on the children.

use crate::page::tags::{is_non_content, is_ua_display_none};
use crate::page::{InlineStyle, NodeData, NodeId, Page};

use super::dom::DomIndex;

/// The computed `display` as far as the snapshot cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Display {
    #[default]
    Inline,
    /// Anything that is not `inline`, `none` or `contents` (block, table-cell, inline-block, …).
    Other,
    None,
    Contents,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ElStyle {
    pub display: Display,
    /// `display: none` here or on an ancestor: `checkVisibility()` is false.
    pub none_chain: bool,
    /// Computed `visibility` is `visible`.
    pub visibility_visible: bool,
    /// `aria-hidden="true"` here or on an ancestor.
    pub aria_hidden_chain: bool,
    /// Rendering skipped here or above though `display` is not `none`: the
    /// content of a closed `<details>`, SVG `<title>`/`<defs>`, the options of a
    /// drop-down `<select>`. No box, so `checkVisibility()` is false.
    pub skipped_chain: bool,
    /// `checkVisibility()`: the element has a box (options of a drop-down
    /// `<select>` have none).
    pub has_box: bool,
    /// `getBoundingClientRect()` is non-empty (for text: the text shows).
    pub extent: bool,
    pub cursor_pointer: bool,
    pub pointer_events: bool,
    /// Children are skipped (drop-down `<select>`, `hidden=until-found`,
    /// `content-visibility: hidden`).
    skips_children: bool,
    skips_children_style: bool,
    /// `display: flex|grid` from an inline style: its children are blockified.
    flex_container: bool,
}

pub struct Styles {
    pub info: Vec<ElStyle>,
    /// `isElementHiddenForAria`, precomputed.
    hidden_for_aria: Vec<bool>,
    /// `computeBox(el).visible`, precomputed.
    box_visible: Vec<bool>,
}

impl Styles {
    pub fn get(&self, id: NodeId) -> &ElStyle {
        &self.info[id.index()]
    }

    pub fn inline(&self, id: NodeId) -> bool {
        self.info[id.index()].display == Display::Inline
    }

    pub fn hidden_for_aria(&self, id: NodeId) -> bool {
        self.hidden_for_aria[id.index()]
    }

    pub fn box_visible(&self, id: NodeId) -> bool {
        self.box_visible[id.index()]
    }

    /// `isElementStyleVisibilityVisible`: `checkVisibility()` and `visibility: visible`.
    pub fn style_visible(&self, id: NodeId) -> bool {
        let s = &self.info[id.index()];
        s.has_box && s.visibility_visible
    }

    pub fn compute(page: &Page, dom: &DomIndex<'_>) -> Styles {
        let shadow = &dom.shadow;
        // Styles inherit along the flat tree (shadow content under its host,
        // slotted nodes under their slot); without shadow roots that is preorder.
        let order: Vec<(NodeId, Option<NodeId>, bool)> = if shadow.is_empty() {
            page.nodes()
                .iter()
                .enumerate()
                .map(|(i, node)| (NodeId::new(i as u32), node.parent, true))
                .collect()
        } else {
            shadow.flat_order(page)
        };
        let flat_children = |id: NodeId| -> Vec<NodeId> {
            if shadow.is_empty() {
                page.children(id).collect()
            } else {
                shadow.flat_children(page, id)
            }
        };
        let mut info = vec![ElStyle::default(); page.len()];
        for &(id, flat_parent, reached) in &order {
            // A frame's document inherits nothing from the embedding page.
            let parent = flat_parent
                .filter(|_| !is_frame_document_root(page, id))
                .map(|p| info[p.index()]);
            info[id.index()] = node_style(page, dom, id, parent, reached);
        }

        if page.has_layout() {
            apply_layout(page, &mut info);
        } else {
            compute_extent(page, &order, &flat_children, &mut info);
        }
        let (hidden_for_aria, box_visible) = visibility_bottom_up(page, &order, &info);
        Styles {
            info,
            hidden_for_aria,
            box_visible,
        }
    }
}

/// The inherited style of node `id` from its flat-tree parent's (`None` at
/// a document root), with the element's own rules applied. `reached` is
/// false for shadow-tree content no slot shows.
fn node_style(
    page: &Page,
    dom: &DomIndex<'_>,
    id: NodeId,
    parent: Option<ElStyle>,
    reached: bool,
) -> ElStyle {
    let inherit = parent.unwrap_or(ElStyle {
        visibility_visible: true,
        pointer_events: true,
        has_box: true,
        ..ElStyle::default()
    });
    let mut s = ElStyle {
        display: Display::Inline,
        none_chain: inherit.none_chain || dom.inert[id.index()],
        visibility_visible: inherit.visibility_visible,
        aria_hidden_chain: inherit.aria_hidden_chain,
        skipped_chain: inherit.skipped_chain || inherit.skips_children || !reached,
        skips_children: false,
        skips_children_style: false,
        flex_container: false,
        has_box: false,
        extent: false,
        cursor_pointer: inherit.cursor_pointer,
        pointer_events: inherit.pointer_events,
    };
    if let NodeData::Element(e) = &page.nodes()[id.index()].data {
        element_style(page, id, e, &inherit, &mut s);
    }
    s
}

/// What an element's tag, attributes and inline style change in the style
/// it inherited.
fn element_style(
    page: &Page,
    id: NodeId,
    e: &crate::page::ElementData,
    inherit: &ElStyle,
    s: &mut ElStyle,
) {
    s.display = ua_display(page, id);
    // Flex and grid items are blockified.
    if inherit.flex_container && s.display == Display::Inline {
        s.display = Display::Other;
    }
    if let Some(style) = e.attr("style") {
        inline_box_style(style, s);
    }
    // A live capture's computed display wins, and what it hides
    // hides the subtree.
    if let Some(d) = page.layout(id).and_then(|l| l.display.as_deref()) {
        s.display = display_from_css(d);
    }
    if s.display == Display::None {
        s.none_chain = true;
    }
    pointer_style(e, s);
    if e.attr("aria-hidden")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    {
        s.aria_hidden_chain = true;
    }
    if starts_skipped(page, id, e) {
        s.skipped_chain = true;
    }
    let tag = e.local_name();
    s.skips_children = s.skips_children_style
        || e.is_html() && tag == "select" && !is_listbox_select(e)
        || e.attr("hidden")
            .is_some_and(|v| v.eq_ignore_ascii_case("until-found"));
    s.has_box = !s.none_chain && !s.skipped_chain && s.display != Display::Contents;
}

/// The box properties an inline `style` sets: display (and whether it
/// blockifies its children), out-of-flow blockification,
/// `content-visibility` and `visibility`.
fn inline_box_style(style: &str, s: &mut ElStyle) {
    let style = InlineStyle::parse(style);
    if let Some(d) = style.get("display") {
        s.display = display_from_css(&d);
        s.flex_container = matches!(d.as_str(), "flex" | "inline-flex" | "grid" | "inline-grid");
    }
    // Out-of-flow boxes are blockified.
    let out_of_flow = matches!(style.get("position").as_deref(), Some("absolute" | "fixed"))
        || matches!(style.get("float").as_deref(), Some("left" | "right"));
    if out_of_flow && s.display == Display::Inline {
        s.display = Display::Other;
    }
    if style.get("content-visibility").as_deref() == Some("hidden") {
        s.skips_children_style = true;
    }
    match style.get("visibility").as_deref() {
        Some("hidden") | Some("collapse") => s.visibility_visible = false,
        Some("visible") => s.visibility_visible = true,
        _ => {}
    }
}

/// `cursor` and `pointer-events`: the UA stylesheet's pointer on links and
/// image inputs, then the inline style's.
fn pointer_style(e: &crate::page::ElementData, s: &mut ElStyle) {
    let tag = e.local_name();
    // `:any-link` gets `cursor: pointer` from the UA stylesheet.
    let svg_link = e.name.ns == crate::page::ns!(svg)
        && tag == "a"
        && (e.has_attr("href")
            || e.attrs
                .iter()
                .any(|a| a.name.prefix.as_deref() == Some("xlink") && &*a.name.local == "href"));
    if svg_link {
        s.cursor_pointer = true;
    }
    if e.is_html() {
        if matches!(tag, "a" | "area") && e.has_attr("href") {
            s.cursor_pointer = true;
        }
        if tag == "label" {
            s.cursor_pointer = false;
        }
        if tag == "input" && input_type(e.attr("type")) == "image" {
            s.cursor_pointer = true;
        }
    }
    if let Some(style) = e.attr("style") {
        let style = InlineStyle::parse(style);
        if let Some(c) = style.get("cursor") {
            s.cursor_pointer = c == "pointer";
        }
        if let Some(pe) = style.get("pointer-events") {
            s.pointer_events = pe != "none";
        }
    }
}

/// `isElementHiddenForAria` and `computeBox(el).visible` for every element,
/// children first: an element with `display: contents` has no box of its
/// own and answers by its children.
fn visibility_bottom_up(
    page: &Page,
    order: &[(NodeId, Option<NodeId>, bool)],
    info: &[ElStyle],
) -> (Vec<bool>, Vec<bool>) {
    let n = page.len();
    let mut hidden_for_aria = vec![true; n];
    let mut box_visible = vec![false; n];
    for &(id, _, _) in order.iter().rev() {
        let i = id.index();
        let Some(e) = page.element(id) else { continue };
        let s = info[i];
        let style_visible = s.has_box && s.visibility_visible;
        box_visible[i] = if s.display == Display::Contents && !s.none_chain {
            page.children(id).any(|c| match page.node(c).data {
                NodeData::Element(_) => box_visible[c.index()],
                NodeData::Text(_) => info[c.index()].extent,
                _ => false,
            })
        } else {
            style_visible && s.extent
        };
        let tag = e.local_name();
        let is_slot = tag == "slot";
        hidden_for_aria[i] = if is_non_content(tag) {
            true
        } else if s.display == Display::Contents && !is_slot && !s.none_chain {
            !page.children(id).any(|c| match page.node(c).data {
                NodeData::Element(_) => !hidden_for_aria[c.index()],
                NodeData::Text(_) => info[c.index()].extent,
                _ => false,
            })
        } else {
            let option_in_select =
                tag == "option" && page.ancestors(id).any(|a| page.tag(a) == Some("select"));
            (!option_in_select && !is_slot && !style_visible) || s.none_chain || s.aria_hidden_chain
        };
    }
    (hidden_for_aria, box_visible)
}

/// `input.type`: the lower-cased attribute when it names a known type, else `text`.
/// Playwright's `getCSSContent(element, pseudo)` from a live capture: the
/// `::before` (or `::after`) text, set off by spaces when the pseudo-element
/// is not inline. Static pages have none (stylesheets are not evaluated).
pub fn generated_content(page: &Page, id: NodeId, after: bool) -> Option<String> {
    let layout = page.layout(id)?;
    let g = if after {
        layout.after.as_ref()
    } else {
        layout.before.as_ref()
    }?;
    Some(if g.display == "inline" || g.display.is_empty() {
        g.text.clone()
    } else {
        format!(" {} ", g.text)
    })
}

/// The `<html>` of a frame's document, which a live capture places under its
/// `<iframe>`/`<frame>` (markup cannot put an element there: iframe content
/// parses as text).
pub fn is_frame_document_root(page: &Page, id: NodeId) -> bool {
    page.element(id)
        .is_some_and(|e| e.is_html() && e.local_name() == "html")
        && page
            .parent(id)
            .and_then(|p| page.element(p))
            .is_some_and(|p| p.is_html() && matches!(p.local_name(), "iframe" | "frame"))
}

pub fn input_type(attr: Option<&str>) -> &'static str {
    const TYPES: [&str; 22] = [
        "button",
        "checkbox",
        "color",
        "date",
        "datetime-local",
        "email",
        "file",
        "hidden",
        "image",
        "month",
        "number",
        "password",
        "radio",
        "range",
        "reset",
        "search",
        "submit",
        "tel",
        "text",
        "time",
        "url",
        "week",
    ];
    let Some(a) = attr else { return "text" };
    let lower = a.to_ascii_lowercase();
    TYPES
        .iter()
        .find(|t| **t == lower)
        .copied()
        .unwrap_or("text")
}

/// Where skipped rendering starts: the non-summary content of a closed
/// `<details>`, and SVG elements that never render.
fn starts_skipped(page: &Page, id: NodeId, e: &crate::page::ElementData) -> bool {
    if !e.is_html() {
        return e.name.ns == crate::page::ns!(svg)
            && matches!(
                e.local_name(),
                "title"
                    | "desc"
                    | "metadata"
                    | "defs"
                    | "clipPath"
                    | "mask"
                    | "symbol"
                    | "linearGradient"
                    | "radialGradient"
                    | "pattern"
                    | "filter"
                    | "marker"
                    | "style"
                    | "script"
            );
    }
    let Some(parent) = page.parent(id) else {
        return false;
    };
    let Some(pe) = page.element(parent) else {
        return false;
    };
    if !(pe.is_html() && pe.local_name() == "details" && !pe.has_attr("open")) {
        return false;
    }
    let is_first_summary = e.local_name() == "summary"
        && page
            .element_children(parent)
            .find(|&c| page.tag(c) == Some("summary"))
            == Some(id);
    !is_first_summary
}

pub fn is_listbox_select(select: &crate::page::ElementData) -> bool {
    select.has_attr("multiple")
        || select
            .attr("size")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .is_some_and(|s| s > 1)
}

/// Chromium's UA stylesheet `display`, for the elements that matter.
fn ua_display(page: &Page, id: NodeId) -> Display {
    let Some(e) = page.element(id) else {
        return Display::Inline;
    };
    let tag = e.local_name();
    if e.name.ns == crate::page::ns!(mathml) {
        return Display::Other;
    }
    if !e.is_html() {
        return Display::Inline;
    }
    if e.has_attr("hidden")
        && !e
            .attr("hidden")
            .is_some_and(|v| v.eq_ignore_ascii_case("until-found"))
    {
        return Display::None;
    }
    // `[popover]:not(:popover-open)`: nothing opens a popover in static HTML.
    if e.has_attr("popover") {
        return Display::None;
    }
    match tag {
        t if is_ua_display_none(t) => Display::None,
        "dialog" if !e.has_attr("open") => Display::None,
        "input" if input_type(e.attr("type")) == "hidden" => Display::None,
        "audio" if !e.has_attr("controls") => Display::None,
        "slot" => Display::Contents,
        "html" | "body" | "address" | "article" | "aside" | "blockquote" | "center" | "dd"
        | "details" | "dialog" | "dir" | "div" | "dl" | "dt" | "fieldset" | "figcaption"
        | "figure" | "footer" | "form" | "frameset" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
        | "header" | "hgroup" | "hr" | "legend" | "li" | "listing" | "main" | "menu" | "nav"
        | "ol" | "optgroup" | "option" | "p" | "plaintext" | "pre" | "search" | "section"
        | "summary" | "ul" | "xmp" | "table" | "caption" | "colgroup" | "col" | "thead"
        | "tbody" | "tfoot" | "tr" | "td" | "th" | "input" | "button" | "select" | "textarea"
        | "meter" | "progress" | "marquee" | "ruby" | "rt" | "frame" | "keygen" => Display::Other,
        _ => Display::Inline,
    }
}

/// Whether each element would get a non-empty box, estimated from markup:
/// replaced elements and form controls always do, text that is not just
/// whitespace does, and containers do when something inside them does.
fn compute_extent(
    page: &Page,
    order: &[(NodeId, Option<NodeId>, bool)],
    flat_children: &dyn Fn(NodeId) -> Vec<NodeId>,
    info: &mut [ElStyle],
) {
    let nodes = page.nodes();
    for &(id, _, _) in order.iter().rev() {
        let i = id.index();
        if info[i].none_chain || info[i].skipped_chain {
            info[i].extent = false;
            continue;
        }
        match &nodes[i].data {
            NodeData::Text(t) => {
                let parent = nodes[i].parent.and_then(|p| page.element(p));
                // Text straight inside `<select>` or a non-token MathML element is not rendered.
                let unrendered_parent = parent.is_some_and(|p| {
                    (p.is_html() && p.local_name() == "select")
                        || (p.name.ns == crate::page::ns!(mathml)
                            && !matches!(p.local_name(), "mi" | "mo" | "mn" | "ms" | "mtext"))
                });
                info[i].extent = !unrendered_parent && t.chars().any(|c| !c.is_ascii_whitespace());
            }
            NodeData::Element(e) => {
                let tag = e.local_name();
                let own = if e.is_html() {
                    match tag {
                        "br" | "wbr" => Some(false),
                        "input" | "button" | "select" | "textarea" | "meter" | "progress"
                        | "iframe" | "frame" | "video" | "canvas" | "hr" | "fieldset" | "audio"
                        | "marquee" | "embed" | "object" | "li" | "summary" | "details" => {
                            Some(true)
                        }
                        // Cells have 1px padding: a box even when empty.
                        "td" | "th" => Some(true),
                        "img" => Some(img_has_extent(e)),
                        // The root boxes; in quirks mode <body> fills the viewport.
                        "html" => Some(true),
                        "body" if page.quirks_mode() => Some(true),
                        _ => None,
                    }
                } else if tag == "svg" {
                    let zero = |a: &str| {
                        e.attr(a)
                            .is_some_and(|v| v.trim().parse::<f64>().is_ok_and(|x| x <= 0.0))
                    };
                    Some(!zero("width") && !zero("height"))
                } else if e.name.ns == crate::page::ns!(svg)
                    && matches!(
                        tag,
                        "circle"
                            | "ellipse"
                            | "line"
                            | "path"
                            | "polygon"
                            | "polyline"
                            | "rect"
                            | "text"
                            | "image"
                            | "use"
                            | "foreignObject"
                    )
                {
                    Some(true)
                } else {
                    None
                };
                info[i].extent = inline_size(e).or(own).unwrap_or_else(|| {
                    flat_children(id)
                        .into_iter()
                        .any(|c| info[c.index()].extent && !info[c.index()].none_chain)
                });
            }
            _ => {}
        }
    }
}

/// What an inline style says of the box size: a zero width or height (or a
/// `scale(0)` transform) empties it; explicit sizes or `inset` on a
/// positioned box give it one.
fn inline_size(e: &crate::page::ElementData) -> Option<bool> {
    let style = InlineStyle::parse(e.attr("style")?);
    let value = |p: &str| style.get(p);
    let is_zero = |v: &str| {
        let num = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
        num.parse::<f64>().is_ok_and(|x| x == 0.0)
    };
    let is_size = |v: &str| {
        !is_zero(v)
            && v != "auto"
            && v.chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '.')
    };
    let (w, h) = (value("width"), value("height"));
    if w.as_deref().is_some_and(is_zero) || h.as_deref().is_some_and(is_zero) {
        return Some(false);
    }
    if value("transform").is_some_and(|t| t.replace(' ', "").contains("scale(0)")) {
        return Some(false);
    }
    if w.as_deref().is_some_and(is_size) && h.as_deref().is_some_and(is_size) {
        return Some(true);
    }
    let positioned = matches!(value("position").as_deref(), Some("absolute" | "fixed"));
    if positioned && value("inset").is_some() {
        return Some(true);
    }
    None
}

/// A broken or missing image shows its alt text (or `title` when alt is
/// absent, as Chromium does) or a broken-image icon; `alt=""` collapses it.
fn img_has_extent(e: &crate::page::ElementData) -> bool {
    let dim_zero = |a: &str| {
        e.attr(a)
            .is_some_and(|v| v.trim().parse::<f64>().is_ok_and(|x| x <= 0.0))
    };
    if dim_zero("width") || dim_zero("height") {
        return false;
    }
    let src = e.attr("src").unwrap_or("").trim();
    if src.starts_with("data:") {
        return true;
    }
    match e.attr("alt") {
        Some(alt) => !alt.is_empty(),
        None => e.attr("title").is_some_and(|t| !t.is_empty()),
    }
}

/// A live capture knows the real box, display, cursor and pointer events.
fn apply_layout(page: &Page, info: &mut [ElStyle]) {
    for (i, s) in info.iter_mut().enumerate() {
        let id = NodeId::new(i as u32);
        match page.layout(id) {
            Some(l) => {
                s.extent = l.bounds.is_some_and(|b| b.width > 0.0 && b.height > 0.0);
                s.has_box = l.rendered || s.has_box && l.bounds.is_some();
                if !l.rendered {
                    s.visibility_visible = false;
                }
                if let Some(c) = &l.cursor {
                    s.cursor_pointer = c == "pointer";
                }
                s.pointer_events = l.receives_pointer_events;
            }
            None => {
                let is_text = matches!(page.node(id).data, NodeData::Text(_));
                s.extent = is_text && page.is_rendered(id);
                if !is_text {
                    s.has_box = false;
                }
            }
        }
    }
}

fn display_from_css(value: &str) -> Display {
    match value {
        "none" => Display::None,
        "contents" => Display::Contents,
        "inline" => Display::Inline,
        _ => Display::Other,
    }
}
