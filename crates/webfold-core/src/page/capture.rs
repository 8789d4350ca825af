//! A page captured as facts by the browser extension: the live DOM as a flat
//! list of nodes (parents first), each element's computed box and
//! visibility, the viewport and the scroll position. [`DomCapture::to_page`]
//! turns it into a [`Page`] with real [`Layout`], as a CDP capture does, so
//! every view reads exactly what the user sees.
//!
//! The wire format is flat because a DOM can be thousands of levels deep and
//! a nested JSON document that deep is refused by every parser on the way.
//! Keys are one or two letters: a large page has hundreds of thousands of
//! nodes, and each key is paid for once per node.

use serde::{Deserialize, Serialize};

use super::builder::BuilderId;
use super::{
    ComputedPaint, GeneratedContent, Layout, LayoutBox, NodeData, Page, PageBuilder, Paint,
};

/// The most nodes a capture may hold (a 16 MB page has far fewer).
pub const MAX_CAPTURE_NODES: usize = 2_000_000;

/// The extension's capture of one page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DomCapture {
    pub viewport: CapturedViewport,
    /// Every node of the document but the document itself, each after its
    /// parent.
    pub nodes: Vec<CapturedNode>,
}

/// The window at capture time, in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapturedViewport {
    pub width: f64,
    pub height: f64,
    #[serde(default)]
    pub scroll_x: f64,
    #[serde(default)]
    pub scroll_y: f64,
}

/// One DOM node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapturedNode {
    /// The parent: 0 is the document, `i + 1` is `nodes[i]`.
    #[serde(rename = "p")]
    pub parent: usize,
    /// The DOM node type: 1 element, 3 text, 8 comment, 10 doctype.
    #[serde(rename = "k")]
    pub kind: u8,
    /// The element's local name, or the doctype's name.
    #[serde(rename = "n", default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The element's namespace URL when it is not HTML (SVG, MathML).
    #[serde(rename = "ns", default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Attributes as name, value, name, value, … with the live form state
    /// (typed values, checked boxes, chosen options) written in.
    #[serde(rename = "a", default, skip_serializing_if = "Vec::is_empty")]
    pub attrs: Vec<String>,
    /// A text or comment node's data.
    #[serde(rename = "t", default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The element's box, when it has one (absent for `display: none` and
    /// `display: contents`); on a text node, present when its text renders.
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<CapturedLayout>,
}

/// What the browser computed for one node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapturedLayout {
    /// Border box in page coordinates: x, y, width, height.
    #[serde(rename = "b", default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[f64; 4]>,
    /// Computed `visibility` is `visible`.
    #[serde(rename = "r")]
    pub visible: bool,
    /// Computed `display`.
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// Computed `cursor` when not `auto`.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Computed `pointer-events` is `none`.
    #[serde(rename = "x", default, skip_serializing_if = "std::ops::Not::not")]
    pub no_pointer_events: bool,
    /// `::before` text and display.
    #[serde(rename = "bf", default, skip_serializing_if = "Option::is_none")]
    pub before: Option<[String; 2]>,
    /// `::after` text and display.
    #[serde(rename = "af", default, skip_serializing_if = "Option::is_none")]
    pub after: Option<[String; 2]>,
    /// An element's computed styles that decide whether its text can be
    /// seen; a text node takes its element's.
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub paint: Option<CapturedPaint>,
    /// In the browser's top layer: a modal dialog, an open popover, a
    /// fullscreen element.
    #[serde(rename = "tl", default, skip_serializing_if = "std::ops::Not::not")]
    pub top_layer: bool,
    /// On a text node: the page's own hit test found an opaque box painted
    /// over it.
    #[serde(rename = "cv", default, skip_serializing_if = "std::ops::Not::not")]
    pub painted_over: bool,
}

/// Computed styles as `getComputedStyle` writes them; an absent one is
/// CSS's initial value, so most elements send few.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapturedPaint {
    /// `opacity`.
    #[serde(rename = "o", default, skip_serializing_if = "String::is_empty")]
    pub opacity: String,
    /// `color`.
    #[serde(rename = "c", default, skip_serializing_if = "String::is_empty")]
    pub color: String,
    /// `background-color`.
    #[serde(rename = "bg", default, skip_serializing_if = "String::is_empty")]
    pub background_color: String,
    /// `background-image` is not `none`.
    #[serde(rename = "bi", default, skip_serializing_if = "std::ops::Not::not")]
    pub background_image: bool,
    /// `font-size`.
    #[serde(rename = "f", default, skip_serializing_if = "String::is_empty")]
    pub font_size: String,
    /// `overflow-x` and `overflow-y`.
    #[serde(rename = "ov", default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<[String; 2]>,
    /// `clip`.
    #[serde(rename = "cl", default, skip_serializing_if = "String::is_empty")]
    pub clip: String,
    /// `clip-path`.
    #[serde(rename = "cp", default, skip_serializing_if = "String::is_empty")]
    pub clip_path: String,
    /// `position`.
    #[serde(rename = "ps", default, skip_serializing_if = "String::is_empty")]
    pub position: String,
}

impl CapturedPaint {
    /// The page cannot tell paint order: nothing is covered by order, only
    /// by the capture's own hit test (`painted_over`).
    fn paint(&self) -> Paint {
        let [overflow_x, overflow_y] = self.overflow.as_ref().map_or(["", ""], |[x, y]| [x, y]);
        let computed = ComputedPaint {
            opacity: &self.opacity,
            color: &self.color,
            background_color: &self.background_color,
            background_image: if self.background_image { "url()" } else { "" },
            font_size: &self.font_size,
            overflow_x,
            overflow_y,
            clip: &self.clip,
            clip_path: &self.clip_path,
            position: &self.position,
        };
        Paint::from_computed(&computed, 0)
    }
}

/// Why a capture cannot be read as a page.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CaptureError {
    #[error("the page capture is not valid: {0}")]
    Json(String),
    #[error("the page capture has {0} nodes, over the {MAX_CAPTURE_NODES} a page may have")]
    TooLarge(usize),
    #[error(
        "the page capture is not valid: node {node} names parent {parent}, which is not an element listed before it"
    )]
    Parent { node: usize, parent: usize },
    #[error("the page capture is not valid: node {node} has unknown type {kind}")]
    Kind { node: usize, kind: u8 },
}

impl DomCapture {
    /// Reads the extension's JSON.
    pub fn from_json(json: &str) -> Result<DomCapture, CaptureError> {
        serde_json::from_str(json).map_err(|e| CaptureError::Json(e.to_string()))
    }

    /// The page a stored capture holds (one step from JSON to `Page`).
    pub fn page_from_json(json: &str) -> Result<Page, CaptureError> {
        DomCapture::from_json(json)?.to_page()
    }

    /// The page, with every node's layout as the browser computed it.
    pub fn to_page(&self) -> Result<Page, CaptureError> {
        if self.nodes.len() > MAX_CAPTURE_NODES {
            return Err(CaptureError::TooLarge(self.nodes.len()));
        }
        let mut b = PageBuilder::new();
        // Builder ids by capture position (0 the document).
        let mut ids: Vec<BuilderId> = Vec::with_capacity(self.nodes.len() + 1);
        let mut is_parent = Vec::with_capacity(self.nodes.len() + 1);
        // The paint a text child takes: its nearest painted element's.
        let mut text_paint: Vec<Option<Paint>> = Vec::with_capacity(self.nodes.len() + 1);
        ids.push(b.document());
        is_parent.push(true);
        text_paint.push(None);
        for (i, node) in self.nodes.iter().enumerate() {
            let parent = match ids.get(node.parent) {
                Some(&p) if node.parent <= i && is_parent[node.parent] => p,
                _ => {
                    return Err(CaptureError::Parent {
                        node: i,
                        parent: node.parent,
                    });
                }
            };
            let id = match node.kind {
                1 => {
                    let attrs = node
                        .attrs
                        .chunks(2)
                        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()));
                    b.element(parent, &node.namespace, &node.name, attrs)
                }
                3 => b.text(parent, node.text.as_str()),
                8 => b.comment(parent, node.text.as_str()),
                10 if node.parent == 0 => b.doctype(node.name.as_str()),
                kind => return Err(CaptureError::Kind { node: i, kind }),
            };
            ids.push(id);
            is_parent.push(node.kind == 1);
            let inherited = || text_paint[node.parent].clone();
            let (paint, for_text) = match node.kind {
                1 => {
                    let own = node.layout.as_ref().and_then(|l| l.paint.as_ref());
                    let own = own.map(CapturedPaint::paint);
                    let for_text = own.clone().or_else(inherited);
                    (own, for_text)
                }
                _ => {
                    let over = node.layout.as_ref().is_some_and(|l| l.painted_over);
                    let paint = inherited().map(|p| Paint {
                        painted_over: over,
                        ..p
                    });
                    (paint, None)
                }
            };
            if let Some(l) = &node.layout {
                b.set_layout(id, self.layout(l, paint));
            }
            text_paint.push(for_text);
        }
        let mut page = b.finish();
        inherit_viewport_to_text(&mut page);
        Ok(page)
    }

    fn layout(&self, l: &CapturedLayout, paint: Option<Paint>) -> Layout {
        let bounds = l.bounds.map(|[x, y, width, height]| LayoutBox {
            x,
            y,
            width,
            height,
        });
        let v = &self.viewport;
        let in_viewport = bounds.is_some_and(|r| {
            r.width >= 0.0
                && r.x < v.scroll_x + v.width
                && r.x + r.width > v.scroll_x
                && r.y < v.scroll_y + v.height
                && r.y + r.height > v.scroll_y
        });
        let generated = |g: &Option<[String; 2]>| {
            g.as_ref().map(|[text, display]| GeneratedContent {
                text: text.clone(),
                display: display.clone(),
            })
        };
        Layout {
            rendered: l.visible,
            bounds,
            in_viewport,
            cursor: l.cursor.clone(),
            receives_pointer_events: !l.no_pointer_events,
            display: l.display.clone(),
            before: generated(&l.before),
            after: generated(&l.after),
            top_layer: l.top_layer,
            paint,
        }
    }
}

/// A text node has no box of its own in the capture: it is in the viewport
/// when its nearest boxed ancestor is. One pass: ids are in preorder, so a
/// parent's answer is known before its children's.
fn inherit_viewport_to_text(page: &mut Page) {
    let Some(layout) = page.layout.as_mut() else {
        return;
    };
    // For each node: whether its nearest boxed ancestor-or-self is in view.
    let mut boxed_in_view = vec![false; page.nodes.len()];
    for i in 0..page.nodes.len() {
        let inherited = page.nodes[i]
            .parent
            .is_some_and(|p| boxed_in_view[p.index()]);
        boxed_in_view[i] = match &layout[i] {
            Some(l) if l.bounds.is_some() => l.in_viewport,
            _ => inherited,
        };
        if matches!(page.nodes[i].data, NodeData::Text(_))
            && let Some(l) = layout[i].as_mut()
        {
            l.in_viewport = inherited;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::{NodeId, Unseen};

    fn capture(json: &str) -> Result<Page, CaptureError> {
        DomCapture::page_from_json(json)
    }

    const VIEW: &str = r#""viewport":{"width":800,"height":600,"scrollY":1000}"#;

    #[test]
    fn layout_decides_what_is_rendered_and_in_view() {
        let json = format!(
            r#"{{{VIEW},"nodes":[
            {{"p":0,"k":10,"n":"html"}},
            {{"p":0,"k":1,"n":"html","l":{{"b":[0,0,800,3000],"r":true,"d":"block"}}}},
            {{"p":2,"k":1,"n":"body","l":{{"b":[0,0,800,3000],"r":true,"d":"block"}}}},
            {{"p":3,"k":1,"n":"button","a":["id","shown","class","cta"],"l":{{"b":[10,1100,80,20],"r":true,"d":"inline-block","c":"pointer"}}}},
            {{"p":4,"k":3,"t":"Buy","l":{{"r":true}}}},
            {{"p":3,"k":1,"n":"div","a":["class","gone"]}},
            {{"p":6,"k":3,"t":"Hidden by a stylesheet"}},
            {{"p":3,"k":1,"n":"p","a":["id","above"],"l":{{"b":[0,10,800,20],"r":true,"d":"block"}}}},
            {{"p":3,"k":1,"n":"svg","ns":"http://www.w3.org/2000/svg","a":["viewBox","0 0 1 1"]}}
            ]}}"#
        );
        let page = capture(&json).unwrap();
        let button = page.query("#shown").unwrap();
        assert!(page.is_rendered(button));
        let l = page.layout(button).unwrap();
        assert!(l.in_viewport, "y 1100 is inside the scrolled viewport");
        assert_eq!(l.cursor.as_deref(), Some("pointer"));
        let text = page.children(button).next().unwrap();
        assert!(page.layout(text).unwrap().in_viewport);
        let gone = page.query(".gone").unwrap();
        assert!(!page.is_rendered(gone), "no box: display none");
        assert!(!page.is_rendered(page.children(gone).next().unwrap()));
        let above = page.query("#above").unwrap();
        assert!(
            !page.layout(above).unwrap().in_viewport,
            "scrolled out of view"
        );
        let svg = page.query("svg").unwrap();
        assert_eq!(page.outer_html(svg), r#"<svg viewBox="0 0 1 1"></svg>"#);
        assert!(
            page.outer_html(NodeId::DOCUMENT)
                .starts_with("<!DOCTYPE html><html>")
        );
    }

    #[test]
    fn bad_captures_are_refused_with_the_node_named() {
        let nodes = |n: &str| format!(r#"{{{VIEW},"nodes":[{n}]}}"#);
        assert_eq!(
            capture(&nodes(r#"{"p":1,"k":1,"n":"html"}"#)).unwrap_err(),
            CaptureError::Parent { node: 0, parent: 1 }
        );
        assert_eq!(
            capture(&nodes(r#"{"p":0,"k":3,"t":"x"},{"p":1,"k":3,"t":"y"}"#)).unwrap_err(),
            CaptureError::Parent { node: 1, parent: 1 },
            "a text node cannot hold children"
        );
        assert_eq!(
            capture(&nodes(r#"{"p":0,"k":9}"#)).unwrap_err(),
            CaptureError::Kind { node: 0, kind: 9 }
        );
        let err = capture(r#"{"nodes":[]}"#).unwrap_err().to_string();
        assert!(err.contains("viewport"), "{err}");
    }

    #[test]
    fn paint_facts_decide_what_a_person_cannot_see() {
        let json = format!(
            r#"{{{VIEW},"nodes":[
            {{"p":0,"k":1,"n":"html","l":{{"b":[0,0,800,600],"r":true,"d":"block","s":{{"c":"rgb(0, 0, 0)","bg":"rgb(255, 255, 255)"}}}}}},
            {{"p":1,"k":1,"n":"body","l":{{"b":[0,0,800,600],"r":true,"d":"block","s":{{"c":"rgb(0, 0, 0)"}}}}}},
            {{"p":2,"k":1,"n":"p","a":["id","shown"],"l":{{"b":[0,0,800,20],"r":true,"d":"block","s":{{"c":"rgb(0, 0, 0)"}}}}}},
            {{"p":3,"k":3,"t":"Read me","l":{{"b":[0,0,60,20],"r":true}}}},
            {{"p":2,"k":1,"n":"p","a":["id","pale"],"l":{{"b":[0,20,800,20],"r":true,"d":"block","s":{{"c":"rgb(255, 255, 255)"}}}}}},
            {{"p":5,"k":3,"t":"White on white","l":{{"b":[0,20,90,20],"r":true}}}},
            {{"p":2,"k":1,"n":"p","a":["id","under"],"l":{{"b":[0,40,800,20],"r":true,"d":"block","s":{{"c":"rgb(0, 0, 0)"}}}}}},
            {{"p":7,"k":3,"t":"Under a box","l":{{"b":[0,40,80,20],"r":true,"cv":true}}}},
            {{"p":2,"k":1,"n":"div","a":["id","faded"],"l":{{"b":[0,60,800,20],"r":true,"d":"block","s":{{"c":"rgb(0, 0, 0)","o":"0"}}}}}},
            {{"p":9,"k":1,"n":"span","l":{{"b":[0,60,50,20],"r":true,"d":"inline","s":{{"c":"rgb(0, 0, 0)"}}}}}},
            {{"p":10,"k":3,"t":"Faded out","l":{{"b":[0,60,50,20],"r":true}}}}
            ]}}"#
        );
        let page = capture(&json).unwrap();
        let text_of = |sel: &str| {
            let mut id = page.query(sel).unwrap();
            while let Some(c) = page.children(id).next() {
                id = c;
            }
            page.unseen(id)
        };
        assert_eq!(text_of("#shown"), None);
        assert_eq!(text_of("#pale"), Some(Unseen::SameColour));
        assert_eq!(text_of("#under"), Some(Unseen::Covered));
        assert_eq!(text_of("#faded"), Some(Unseen::Transparent));
    }

    #[test]
    fn deep_documents_need_no_recursion() {
        let mut nodes = vec![r#"{"p":0,"k":1,"n":"html"}"#.to_string()];
        for i in 1..20_000 {
            nodes.push(format!(r#"{{"p":{i},"k":1,"n":"div"}}"#));
        }
        let page = capture(&format!(r#"{{{VIEW},"nodes":[{}]}}"#, nodes.join(","))).unwrap();
        assert_eq!(page.query_all("div").unwrap().len(), 19_999);
    }
}
