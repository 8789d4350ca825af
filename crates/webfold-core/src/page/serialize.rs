//! HTML serialization (`outerHTML`), per the HTML standard's fragment
//! serialization algorithm, iteratively.

use super::tags::{is_raw_text, is_void};
use super::{NodeData, NodeId, Page};

fn escape_text(s: &str, out: &mut String) {
    let mut last = 0;
    for (i, ch) in s.char_indices() {
        let rep = match ch {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '\u{a0}' => "&nbsp;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + ch.len_utf8();
    }
    out.push_str(&s[last..]);
}

fn escape_attr(s: &str, out: &mut String) {
    let mut last = 0;
    for (i, ch) in s.char_indices() {
        let rep = match ch {
            '&' => "&amp;",
            '"' => "&quot;",
            '\u{a0}' => "&nbsp;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + ch.len_utf8();
    }
    out.push_str(&s[last..]);
}

impl Page {
    /// The node's `outerHTML` (for text, its escaped text).
    pub fn outer_html(&self, id: NodeId) -> String {
        let mut out = String::new();
        self.write_html(id, &mut out, &mut |_| None);
        out
    }

    /// Serialize `root`, letting `fold` replace any descendant (not `root`
    /// itself) by a string of its choosing — how chunk puts placeholders for
    /// subtrees that do not fit a budget.
    pub fn write_html(
        &self,
        root: NodeId,
        out: &mut String,
        fold: &mut dyn FnMut(NodeId) -> Option<String>,
    ) {
        // Stack entries: (node, closing?)
        let mut stack: Vec<(NodeId, bool)> = vec![(root, false)];
        while let Some((id, closing)) = stack.pop() {
            let node = self.node(id);
            if closing {
                if let NodeData::Element(e) = &node.data {
                    out.push_str("</");
                    out.push_str(&qualified(&e.name));
                    out.push('>');
                }
                continue;
            }
            if id != root
                && let Some(rep) = fold(id)
            {
                out.push_str(&rep);
                continue;
            }
            match &node.data {
                NodeData::Document => {}
                NodeData::Doctype { name } => {
                    out.push_str("<!DOCTYPE ");
                    out.push_str(name);
                    out.push('>');
                }
                NodeData::Comment(t) => {
                    out.push_str("<!--");
                    out.push_str(t);
                    out.push_str("-->");
                }
                NodeData::ProcessingInstruction { target, data } => {
                    out.push_str("<?");
                    out.push_str(target);
                    out.push(' ');
                    out.push_str(data);
                    out.push('>');
                }
                NodeData::Text(t) => {
                    let raw = node
                        .parent
                        .and_then(|p| self.element(p))
                        .is_some_and(|pe| pe.is_html() && is_raw_text(pe.local_name()));
                    if raw {
                        out.push_str(t);
                    } else {
                        escape_text(t, out);
                    }
                }
                NodeData::Element(e) => {
                    let name = qualified(&e.name);
                    out.push('<');
                    out.push_str(&name);
                    for a in &e.attrs {
                        out.push(' ');
                        out.push_str(&qualified(&a.name));
                        out.push_str("=\"");
                        escape_attr(&a.value, out);
                        out.push('"');
                    }
                    out.push('>');
                    if e.is_html() && is_void(e.local_name()) {
                        continue;
                    }
                    stack.push((id, true));
                    let kids: Vec<NodeId> = self.children(id).collect();
                    for &k in kids.iter().rev() {
                        stack.push((k, false));
                    }
                }
            }
            if matches!(node.data, NodeData::Document) {
                let kids: Vec<NodeId> = self.children(id).collect();
                for &k in kids.iter().rev() {
                    stack.push((k, false));
                }
            }
        }
    }
}

fn qualified(name: &markup5ever::QualName) -> std::borrow::Cow<'_, str> {
    match &name.prefix {
        Some(p) => std::borrow::Cow::Owned(format!("{}:{}", &**p, &*name.local)),
        None => std::borrow::Cow::Borrowed(&*name.local),
    }
}
