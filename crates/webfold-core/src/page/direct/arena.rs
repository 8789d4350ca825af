//! The page's arena, written in document order: every node is made after
//! all of its parent's descendants so far.

use html5ever::{LocalName, QualName, ns};

use super::{Leave, Open, State, Step, html_name};
use crate::page::build::MAX_TREE_DEPTH;
use crate::page::tokenize::RawTag;
use crate::page::{Attr, ElementData, Node, NodeData, NodeId};

impl State {
    /// The last text node's text, when more joined it.
    pub(super) fn seal_text(&mut self) {
        if let Some(t) = self.text_node.take()
            && !self.text.is_empty()
        {
            self.nodes[t as usize].data = NodeData::Text(Box::from(self.text.as_str()));
            self.text.clear();
        }
    }

    /// A new node as `parent`'s last child; every node is made after all
    /// of its parent's descendants so far, so ids are in document order.
    pub(super) fn append(&mut self, parent: u32, data: NodeData) -> u32 {
        self.seal_text();
        let id = self.nodes.len() as u32;
        let node_id = NodeId::new(id);
        let prev = self.last_child[parent as usize].replace(node_id);
        match prev {
            Some(p) => self.nodes[p.index()].next_sibling = Some(node_id),
            None => self.nodes[parent as usize].first_child = Some(node_id),
        }
        let depth = self.nodes[parent as usize].depth.saturating_add(1);
        self.nodes.push(Node {
            parent: Some(NodeId::new(parent)),
            first_child: None,
            prev_sibling: prev,
            next_sibling: None,
            subtree_end: NodeId::new(id + 1),
            depth,
            inert: false,
            data,
        });
        self.last_child.push(None);
        id
    }

    pub(super) fn append_text(&mut self, parent: u32, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(t) = self.text_node
            && self.last_child[parent as usize] == Some(NodeId::new(t))
        {
            // Text in pieces (around a character reference, say) joins
            // in `text` until another node is made.
            if self.text.is_empty()
                && let NodeData::Text(first) = &self.nodes[t as usize].data
            {
                self.text.push_str(first);
            }
            self.text.push_str(text);
            return;
        }
        let id = self.append(parent, NodeData::Text(text.into()));
        self.text_node = Some(id);
    }

    pub(super) fn current(&self) -> Step<&Open> {
        self.open.last().ok_or(Leave)
    }

    pub(super) fn current_id(&self) -> Step<u32> {
        Ok(self.current()?.id)
    }

    /// An element made from `name` and `attrs` as the current node's last
    /// child, pushed on the stack of open elements when `push`.
    pub(super) fn insert(&mut self, name: QualName, attrs: Vec<Attr>, push: bool) -> Step<u32> {
        let parent = self.current_id()?;
        if u32::from(self.nodes[parent as usize].depth) + 1 >= MAX_TREE_DEPTH - 12 {
            return Err(Leave);
        }
        let svg = name.ns == ns!(svg);
        let local = name.local.clone();
        let data = ElementData {
            name,
            attrs: attrs.into_boxed_slice(),
            is_template: false,
        };
        let id = self.append(parent, NodeData::Element(Box::new(data)));
        if push {
            self.open.push(Open {
                id,
                name: local,
                svg,
            });
        }
        Ok(id)
    }

    pub(super) fn insert_html(&mut self, tag: RawTag) -> Step<u32> {
        self.insert(html_name(tag.name), tag.attrs, true)
    }

    pub(super) fn insert_void(&mut self, tag: RawTag) -> Step {
        self.insert(html_name(tag.name), tag.attrs, false).map(drop)
    }

    pub(super) fn insert_phantom(&mut self, name: LocalName) -> Step<u32> {
        self.insert(html_name(name), Vec::new(), true)
    }

    pub(super) fn comment(&mut self, text: &str) -> Step {
        let parent = self.current_id()?;
        self.append(parent, NodeData::Comment(text.into()));
        Ok(())
    }

    pub(super) fn element(&self, id: u32) -> Step<&ElementData> {
        match &self.nodes[id as usize].data {
            NodeData::Element(e) => Ok(e),
            _ => Err(Leave),
        }
    }

    /// `<html>` or `<body>` again: its attributes join the element's,
    /// those it lacks.
    pub(super) fn add_missing_attrs(&mut self, id: u32, attrs: Vec<Attr>) {
        if attrs.is_empty() {
            return;
        }
        if let NodeData::Element(e) = &mut self.nodes[id as usize].data {
            let mut all = std::mem::take(&mut e.attrs).into_vec();
            for a in attrs {
                if !all.iter().any(|b| b.name == a.name) {
                    all.push(a);
                }
            }
            e.attrs = all.into_boxed_slice();
        }
    }
}
