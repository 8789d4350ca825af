//! What we know of how a page renders.
//!
//! Static HTML gets a best-effort answer from markup alone ([`StaticVisibility`]);
//! a live browser capture fills a [`Layout`] per node with the real one. Views ask
//! [`Page::is_rendered`](super::Page::is_rendered) and never care which it was.

use super::tags::is_ua_display_none;
use super::unseen;
use super::{ElementData, Node, NodeData, local_name, ns};

/// A layout box in CSS pixels, page coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LayoutBox {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Real layout of one node, from a live browser capture.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Layout {
    /// Has a box and is not `visibility: hidden`.
    pub rendered: bool,
    pub bounds: Option<LayoutBox>,
    /// Intersects the viewport at capture time.
    pub in_viewport: bool,
    /// Computed `cursor` value, e.g. `pointer`.
    pub cursor: Option<String>,
    /// Computed `pointer-events` is not `none`.
    pub receives_pointer_events: bool,
    /// Computed `display`, e.g. `block`, `inline`, `contents`.
    pub display: Option<String>,
    /// Text the element's `::before` pseudo-element renders, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<GeneratedContent>,
    /// Text the element's `::after` pseudo-element renders, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<GeneratedContent>,
    /// In the browser's top layer (computed `overlay: auto`): a modal
    /// dialog, an open popover, a fullscreen element (see [`crate::layers`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub top_layer: bool,
    /// How the node paints, when the capture recorded it: what decides
    /// whether a person can see its text (see [`super::unseen`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint: Option<Paint>,
}

/// The computed styles that decide whether text a browser lays out can be
/// seen: a box can be rendered and still show nothing.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Paint {
    /// Computed `opacity` of the element itself (descendants multiply it).
    pub opacity: f32,
    /// Computed `color` as RGBA, alpha 0–255.
    pub color: Option<[u8; 4]>,
    /// Computed `background-color` as RGBA.
    pub background: Option<[u8; 4]>,
    /// A `background-image` is set: the colour behind text is unknown.
    pub background_image: bool,
    /// Computed `font-size` in CSS pixels.
    pub font_size: f32,
    /// What the box does with content outside it.
    pub overflow: Overflow,
    /// `clip` or `clip-path` leaves nothing of the box showing.
    pub clipped_away: bool,
    /// Computed `position`.
    pub position: Position,
    /// The order the browser paints this node in within its document
    /// (0 for all when the capture cannot tell, as the extension's).
    pub paint_order: u32,
    /// The capture itself saw an opaque box painted over this text (the
    /// extension's hit test, where paint order is unknown).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub painted_over: bool,
}

/// The computed styles [`Paint`] is read from, as the browser writes them
/// (`getComputedStyle`, CDP's `DOMSnapshot`); `""` reads as CSS's initial
/// value.
#[derive(Clone, Copy, Debug, Default)]
pub struct ComputedPaint<'a> {
    pub opacity: &'a str,
    pub color: &'a str,
    pub background_color: &'a str,
    pub background_image: &'a str,
    pub font_size: &'a str,
    pub overflow_x: &'a str,
    pub overflow_y: &'a str,
    pub clip: &'a str,
    pub clip_path: &'a str,
    pub position: &'a str,
}

impl Paint {
    /// The one reading of computed styles every capture shares.
    pub fn from_computed(s: &ComputedPaint<'_>, paint_order: u32) -> Paint {
        let px = |v: &str| v.trim_end_matches("px").parse::<f32>().ok();
        let overflow = |v: &str| match v {
            "hidden" | "clip" => Overflow::Hidden,
            "auto" | "scroll" => Overflow::Scroll,
            _ => Overflow::Visible,
        };
        let position = match s.position {
            "relative" | "sticky" => Position::Relative,
            "absolute" => Position::Absolute,
            "fixed" => Position::Fixed,
            _ => Position::Static,
        };
        let out_of_flow = matches!(position, Position::Absolute | Position::Fixed);
        Paint {
            opacity: s.opacity.parse().unwrap_or(1.0),
            color: unseen::parse_rgba(s.color),
            background: unseen::parse_rgba(s.background_color),
            background_image: !matches!(s.background_image, "" | "none"),
            font_size: px(s.font_size).unwrap_or(16.0),
            overflow: overflow(s.overflow_x).max(overflow(s.overflow_y)),
            clipped_away: out_of_flow && unseen::clip_shows_nothing(s.clip)
                || unseen::clip_path_shows_nothing(s.clip_path),
            position,
            paint_order,
            painted_over: false,
        }
    }
}

/// Computed `overflow`, the more cutting of the two axes.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Overflow {
    #[default]
    Visible,
    /// `auto` or `scroll`: what is past the end or the bottom scrolls into
    /// view, what is before the start or above the top never does.
    Scroll,
    /// `hidden` or `clip`: what is outside the box is cut away.
    Hidden,
}

/// Computed `position`, as far as what it escapes matters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    #[default]
    Static,
    Relative,
    Absolute,
    Fixed,
}

/// CSS generated content (`::before`/`::after`) as the browser rendered it.
/// Pseudo-elements are not DOM nodes, so the capture records them on their
/// element; accessible names and snapshot text include them as browsers do.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GeneratedContent {
    /// The rendered text, e.g. `" >"` for `content: " >"`.
    pub text: String,
    /// The pseudo-element's computed `display`: a non-inline one is set off
    /// by spaces in names and text.
    pub display: String,
}

/// Visibility as far as markup tells, inherited down the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StaticVisibility {
    /// `display: none` here or on an ancestor: `hidden`, inline style, UA
    /// stylesheet (`head`, `script`, `template`, closed `dialog`, …).
    pub display_none: bool,
    /// Computed `visibility: hidden` (inherited, but a descendant may set `visible`).
    pub visibility_hidden: bool,
    /// `aria-hidden="true"` here or on an ancestor: rendered, but not in the
    /// accessibility tree.
    pub aria_hidden: bool,
    /// Inside `<template>` contents.
    pub inert: bool,
}

impl StaticVisibility {
    /// Not rendered at all (takes no part in what a person sees).
    pub fn hidden(self) -> bool {
        self.display_none || self.visibility_hidden || self.inert
    }
}

/// An inline `style` attribute split into its declarations once: a pass
/// reads several properties of it (the hidden-text checks, fourteen).
pub struct InlineStyle<'a> {
    /// (name, value) of each declaration, names trimmed, in order.
    declarations: Vec<(&'a str, &'a str)>,
}

impl<'a> InlineStyle<'a> {
    pub fn parse(style: &'a str) -> InlineStyle<'a> {
        let declarations = style
            .split(';')
            .filter_map(|d| d.split_once(':'))
            .map(|(name, value)| (name.trim(), value))
            .collect();
        InlineStyle { declarations }
    }

    /// The value of `prop`, lower-cased, without `!important`: the last
    /// declaration of it wins, as in CSS.
    pub fn get(&self, prop: &str) -> Option<String> {
        let (_, value) = self
            .declarations
            .iter()
            .rev()
            .find(|(name, _)| name.eq_ignore_ascii_case(prop))?;
        let v = value.trim().to_ascii_lowercase();
        Some(v.trim_end_matches("!important").trim().to_string())
    }
}

pub(super) fn compute_static_visibility(nodes: &[Node]) -> Vec<StaticVisibility> {
    let mut out = vec![StaticVisibility::default(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        let mut v = node.parent.map(|p| out[p.index()]).unwrap_or_default();
        v.inert |= node.inert;
        if let NodeData::Element(e) = &node.data {
            let attrs = Read::of(e);
            let tag = &e.name.local;
            if e.is_html() {
                if attrs
                    .hidden
                    .is_some_and(|v| !v.eq_ignore_ascii_case("until-found"))
                    || is_ua_display_none(tag)
                    || (*tag == local_name!("dialog") && !attrs.open)
                    || (*tag == local_name!("input")
                        && attrs.kind.is_some_and(|t| t.eq_ignore_ascii_case("hidden")))
                {
                    v.display_none = true;
                }
                // Content of a closed <details> other than its first <summary>.
                if let Some(p) = node.parent
                    && let NodeData::Element(pe) = &nodes[p.index()].data
                    && pe.is_html()
                    && pe.name.local == local_name!("details")
                    && !pe.has_attr("open")
                    && !(*tag == local_name!("summary") && is_first_summary(nodes, i))
                {
                    v.display_none = true;
                }
            }
            if let Some(style) = attrs.style {
                let style = InlineStyle::parse(style);
                if style.get("display").as_deref() == Some("none") {
                    v.display_none = true;
                }
                match style.get("visibility").as_deref() {
                    Some("hidden") | Some("collapse") => v.visibility_hidden = true,
                    Some("visible") => v.visibility_hidden = false,
                    _ => {}
                }
            }
            if attrs
                .aria_hidden
                .is_some_and(|a| a.trim().eq_ignore_ascii_case("true"))
            {
                v.aria_hidden = true;
            }
        }
        out[i] = v;
    }
    out
}

/// The attributes static visibility reads, found in one pass over an
/// element's (five lookups by name each walked them all, for every element
/// of every page parsed).
#[derive(Default)]
struct Read<'a> {
    hidden: Option<&'a str>,
    open: bool,
    kind: Option<&'a str>,
    style: Option<&'a str>,
    aria_hidden: Option<&'a str>,
}

impl<'a> Read<'a> {
    fn of(e: &'a ElementData) -> Read<'a> {
        let mut r = Read::default();
        for a in e.attrs.iter().filter(|a| a.name.ns == ns!()) {
            let value = Some(&*a.value);
            match a.name.local {
                local_name!("hidden") => r.hidden = r.hidden.or(value),
                local_name!("open") => r.open = true,
                local_name!("type") => r.kind = r.kind.or(value),
                local_name!("style") => r.style = r.style.or(value),
                local_name!("aria-hidden") => r.aria_hidden = r.aria_hidden.or(value),
                _ => {}
            }
        }
        r
    }
}

fn is_first_summary(nodes: &[Node], i: usize) -> bool {
    let mut prev = nodes[i].prev_sibling;
    while let Some(p) = prev {
        if let NodeData::Element(e) = &nodes[p.index()].data
            && e.local_name() == "summary"
        {
            return false;
        }
        prev = nodes[p.index()].prev_sibling;
    }
    true
}
