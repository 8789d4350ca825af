//! HTML serialization (`outerHTML`), per the HTML standard's fragment
//! serialization algorithm, iteratively.

use super::tags::{is_raw_text, is_void};
use super::{ElementData, NodeData, NodeId, Page};

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

/// What [`Page::write_html`] writes in place of a node: `text`, standing
/// for the node and its next siblings through `through` (the node itself
/// when it stands for that one alone).
pub struct Replacement {
    pub text: String,
    pub through: NodeId,
}

impl Page {
    /// The node's `outerHTML` (for text, its escaped text).
    pub fn outer_html(&self, id: NodeId) -> String {
        let mut out = String::new();
        self.write_html(id, &mut out, &mut |_| None);
        out
    }

    /// Serialize `root`, letting `fold` replace any descendant (not `root`
    /// itself), and the siblings after it through a later one, by a string
    /// of its choosing — how chunk puts placeholders for runs of subtrees
    /// that do not fit a budget.
    pub fn write_html(
        &self,
        root: NodeId,
        out: &mut String,
        fold: &mut dyn FnMut(NodeId) -> Option<Replacement>,
    ) {
        self.write_html_until(root, out, fold, usize::MAX);
    }

    /// `write_html`, stopping once `out` holds at least `limit` bytes: what
    /// it wrote is then the same as `write_html`'s first bytes. For a sample
    /// of a large element without serializing all of it.
    pub(crate) fn write_html_until(
        &self,
        root: NodeId,
        out: &mut String,
        fold: &mut dyn FnMut(NodeId) -> Option<Replacement>,
        limit: usize,
    ) {
        // Stack entries: (node, closing?). A node's next sibling goes on
        // the stack when the node is visited, under its subtree: a list
        // of 100,000 children costs one entry at a time, not all at once,
        // and a prefix cut early never touches the rest.
        let mut stack: Vec<(NodeId, bool)> = vec![(root, false)];
        while let Some((id, closing)) = stack.pop() {
            if out.len() >= limit {
                return;
            }
            let node = self.node(id);
            if closing {
                if let NodeData::Element(e) = &node.data {
                    out.push_str("</");
                    out.push_str(&qualified(&e.name));
                    out.push('>');
                }
                continue;
            }
            if id != root {
                // A run replaced whole is skipped, not walked: a list of
                // 100,000 folded items costs nothing here.
                let rep = fold(id);
                let last = rep.as_ref().map_or(id, |r| r.through);
                if let Some(next) = self.node(last).next_sibling {
                    stack.push((next, false));
                }
                if let Some(rep) = rep {
                    out.push_str(&rep.text);
                    continue;
                }
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
                NodeData::ProcessingInstruction(pi) => {
                    let (target, data) = (&pi.target, &pi.data);
                    out.push_str("<?");
                    out.push_str(target);
                    out.push(' ');
                    out.push_str(data);
                    out.push('>');
                }
                NodeData::Text(t) => {
                    // Script and style text is written as it is, unescaped.
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
                    write_start_tag(e, out);
                    if e.is_html() && is_void(e.local_name()) {
                        continue;
                    }
                    stack.push((id, true));
                }
            }
            if let Some(first) = node.first_child {
                stack.push((first, false));
            }
        }
    }
}

/// `<name attr="value" …>`, attribute values escaped.
fn write_start_tag(e: &ElementData, out: &mut String) {
    out.push('<');
    out.push_str(&qualified(&e.name));
    for a in &e.attrs {
        out.push(' ');
        out.push_str(&qualified(&a.name));
        out.push_str("=\"");
        escape_attr(&a.value, out);
        out.push('"');
    }
    out.push('>');
}

fn qualified(name: &markup5ever::QualName) -> std::borrow::Cow<'_, str> {
    match &name.prefix {
        Some(p) => std::borrow::Cow::Owned(format!("{}:{}", &**p, &*name.local)),
        None => std::borrow::Cow::Borrowed(&*name.local),
    }
}

#[cfg(test)]
mod tests {
    use crate::page::{NodeId, Page};

    #[test]
    fn write_html_until_writes_a_prefix_of_the_whole() {
        let mut html = String::from(
            "<!doctype html><html><head><title>Shop</title><style>p > b {}</style></head>\
             <body><ul class=\"products\">",
        );
        for i in 0..40 {
            html.push_str(&format!(
                "<li data-i=\"{i}\"><a href=\"/p?id={i}&amp;x=\">Item {i} &lt;new&gt;</a><br></li>"
            ));
        }
        html.push_str("</ul><p>tail &amp; <b>bold</b><!-- note --></p></body></html>");
        let page = Page::parse(&html);
        let whole = page.outer_html(NodeId::DOCUMENT);
        for limit in [
            0,
            1,
            15,
            100,
            1000,
            whole.len() - 1,
            whole.len(),
            whole.len() + 1,
        ] {
            let mut out = String::new();
            page.write_html_until(NodeId::DOCUMENT, &mut out, &mut |_| None, limit);
            assert!(whole.starts_with(&out), "limit {limit}");
            assert!(out.len() >= limit.min(whole.len()), "limit {limit}");
        }
    }
}
