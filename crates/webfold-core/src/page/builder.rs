//! Building a [`Page`] from a DOM that was parsed elsewhere: a live browser's
//! capture (CDP `DOMSnapshot`), an extension's serialized DOM.
//!
//! The caller adds nodes under parents it already added, in any order; the
//! page is renumbered in preorder exactly as for parsed HTML, and per-node
//! layout follows its node.

use super::build::{Arena, BData, BNode, Idx, Sink};
use super::{Attr, ElementData, Layout, Page, QualName};
use markup5ever::{LocalName, Namespace, ns};

/// A node of the page being built (not yet a [`super::NodeId`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuilderId(Idx);

impl BuilderId {
    /// Position in insertion order (0 is the document).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Assembles a page node by node.
pub struct PageBuilder {
    nodes: Arena,
    layout: Vec<Option<Layout>>,
    quirks: bool,
}

impl Default for PageBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl PageBuilder {
    pub fn new() -> Self {
        PageBuilder {
            nodes: Arena::new(),
            layout: vec![None],
            quirks: false,
        }
    }

    /// The document node every page starts with.
    pub fn document(&self) -> BuilderId {
        BuilderId(0)
    }

    pub fn set_quirks_mode(&mut self, quirks: bool) {
        self.quirks = quirks;
    }

    fn add(&mut self, parent: BuilderId, data: BData) -> BuilderId {
        let id = self.nodes.push(BNode::new(data));
        self.layout.push(None);
        if parent.0 < id {
            Sink::append_child(&mut self.nodes, parent.0, id);
        }
        BuilderId(id)
    }

    /// An element in `namespace` (`""` or the HTML namespace URL for HTML,
    /// or the SVG / MathML URLs); attributes in source order.
    pub fn element(
        &mut self,
        parent: BuilderId,
        namespace: &str,
        local_name: &str,
        attrs: impl IntoIterator<Item = (String, String)>,
    ) -> BuilderId {
        let ns = if namespace.is_empty() {
            ns!(html)
        } else {
            Namespace::from(namespace)
        };
        // HTML element names are case-insensitive; the DOM reports them upper-cased.
        let local = if ns == ns!(html) {
            LocalName::from(local_name.to_ascii_lowercase())
        } else {
            LocalName::from(local_name)
        };
        let attrs = attrs
            .into_iter()
            .map(|(name, value)| Attr {
                name: QualName::new(None, ns!(), LocalName::from(name)),
                value: value.into_boxed_str(),
            })
            .collect();
        let is_template = ns == ns!(html) && &*local == "template";
        let data = Box::new(ElementData {
            name: QualName::new(None, ns, local),
            attrs,
            is_template,
        });
        self.add(
            parent,
            BData::Element {
                data,
                template_contents: None,
            },
        )
    }

    pub fn text(&mut self, parent: BuilderId, text: impl Into<String>) -> BuilderId {
        self.add(parent, BData::Text(text.into()))
    }

    pub fn comment(&mut self, parent: BuilderId, text: impl Into<String>) -> BuilderId {
        self.add(parent, BData::Comment(text.into()))
    }

    pub fn doctype(&mut self, name: impl Into<String>) -> BuilderId {
        let doc = self.document();
        self.add(doc, BData::Doctype(name.into()))
    }

    /// Real layout for a node, from the capture.
    pub fn set_layout(&mut self, id: BuilderId, layout: Layout) {
        if let Some(slot) = self.layout.get_mut(id.index()) {
            *slot = Some(layout);
        }
    }

    /// Nodes added so far, the document included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The page. With any layout set, the page counts as live-captured:
    /// nodes without layout are then not rendered.
    pub fn finish(self) -> Page {
        self.finish_with_order().0
    }

    /// The page, and for each of its `NodeId`s the `BuilderId::index` it was
    /// added as (nodes never attached under the document are dropped).
    pub fn finish_with_order(self) -> (Page, Vec<usize>) {
        let has_layout = self.layout.iter().any(Option::is_some);
        let (mut page, order) = super::build::finalize_with_order(self.nodes, self.quirks);
        if has_layout {
            let mut layout = self.layout;
            let remapped = order
                .iter()
                .map(|&old| layout.get_mut(old as usize).and_then(Option::take))
                .collect();
            page.set_layout(remapped);
        }
        (page, order.into_iter().map(|i| i as usize).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::NodeId;

    #[test]
    fn builds_in_preorder_with_layout_following_nodes() {
        let mut b = PageBuilder::new();
        let doc = b.document();
        let html = b.element(doc, "", "HTML", []);
        let body = b.element(html, "", "BODY", []);
        let p2 = b.element(body, "", "P", [("id".into(), "second".into())]);
        // Added later but placed before p2's text: ids follow the tree, not insertion.
        let head = b.element(html, "", "HEAD", []);
        b.text(p2, "hello");
        b.set_layout(
            p2,
            Layout {
                rendered: true,
                ..Layout::default()
            },
        );
        let _ = head;
        let page = b.finish();
        let p = page.query("#second").unwrap();
        assert_eq!(page.tag(p), Some("p"));
        assert_eq!(page.text_content(p), "hello");
        assert!(page.layout(p).is_some_and(|l| l.rendered));
        assert!(page.has_layout());
        assert!(
            !page.is_rendered(page.body().unwrap()),
            "no box captured for body"
        );
        assert_eq!(
            page.outer_html(NodeId::DOCUMENT),
            "<html><body><p id=\"second\">hello</p></body><head></head></html>"
        );
    }
}
