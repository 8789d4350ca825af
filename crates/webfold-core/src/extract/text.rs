//! Plain text of an extraction: what a reader sees, one block per line.

use super::Extraction;
use crate::NodeId;
use crate::page::tags::is_phrasing;
use crate::page::{NodeData, Page};

impl Extraction {
    /// The kept text, whitespace collapsed, one line per block element.
    pub fn text(&self, page: &Page) -> String {
        let mut out = String::new();
        // Open block elements: (subtree end, is block).
        let mut open: Vec<u32> = Vec::new();
        let end = page.node(self.root).subtree_end.get();
        let mut i = self.root.get();
        let mut pending_space = false;
        while i < end {
            while open.last().is_some_and(|&e| e <= i) {
                open.pop();
                newline(&mut out);
                pending_space = false;
            }
            let id = NodeId::new(i);
            if self.is_dropped(id) {
                i = page.node(id).subtree_end.get();
                continue;
            }
            match &page.node(id).data {
                NodeData::Text(t) => {
                    for (k, word) in t.split_whitespace().enumerate() {
                        if (k > 0 || pending_space || t.starts_with(char::is_whitespace))
                            && !out.is_empty()
                            && !out.ends_with('\n')
                        {
                            out.push(' ');
                        }
                        // Soft hyphens and zero-width spaces are invisible where
                        // no line breaks; left in, they split words for search.
                        out.extend(
                            word.chars()
                                .filter(|c| !matches!(c, '\u{ad}' | '\u{200b}' | '\u{feff}')),
                        );
                        pending_space = false;
                    }
                    if t.ends_with(char::is_whitespace) {
                        pending_space = true;
                    }
                }
                NodeData::Element(e) => {
                    let tag = e.local_name();
                    if tag == "br" {
                        newline(&mut out);
                    } else if !is_phrasing(tag) {
                        newline(&mut out);
                        open.push(page.node(id).subtree_end.get());
                    }
                }
                _ => {}
            }
            i += 1;
        }
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }
}

fn newline(out: &mut String) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}
