//! A unique, readable CSS selector for any element.
//!
//! Preference order, shortest and most readable first: `#id` when the id is
//! unique; the bare tag when the page has one such element (`main`, `nav`);
//! `tag.class…` when unique; otherwise a `>` path of steps (`tag`,
//! `tag.class`, `tag:nth-of-type(k)`) from the nearest ancestor that has one
//! of the former. Each step is unique among its siblings, so the path is
//! unique by construction; the corpus property test checks that
//! `querySelectorAll(selector)` returns exactly the element.

use std::collections::HashMap;

use crate::page::{NodeId, Page};

/// Computes (and memoizes) unique selectors for one page.
pub struct UniqueSelectors<'a> {
    page: &'a Page,
    ids: HashMap<String, u32>,
    tags: HashMap<&'a str, u32>,
    classes: HashMap<String, Vec<NodeId>>,
    memo: HashMap<NodeId, String>,
}

const MAX_CLASSES: usize = 3;
const MEMO_MAX_LEN: usize = 2048;

fn ident(s: &str) -> String {
    let mut out = String::new();
    // serialize_identifier only fails on a fmt::Write error, which String never gives.
    let _ = cssparser::serialize_identifier(s, &mut out);
    out
}

impl<'a> UniqueSelectors<'a> {
    pub fn new(page: &'a Page) -> Self {
        let fold = page.quirks_mode();
        let key = |s: &str| {
            if fold {
                s.to_ascii_lowercase()
            } else {
                s.to_string()
            }
        };
        let mut ids = HashMap::new();
        let mut tags = HashMap::new();
        let mut classes: HashMap<String, Vec<NodeId>> = HashMap::new();
        for n in page.descendants(NodeId::DOCUMENT) {
            if page.node(n).inert {
                continue;
            }
            let Some(e) = page.element(n) else { continue };
            *tags.entry(e.local_name()).or_insert(0) += 1;
            if let Some(id) = e.id() {
                *ids.entry(key(id)).or_insert(0) += 1;
            }
            for c in e.classes() {
                let list = classes.entry(key(c)).or_default();
                if list.last() != Some(&n) {
                    list.push(n);
                }
            }
        }
        UniqueSelectors {
            page,
            ids,
            tags,
            classes,
            memo: HashMap::new(),
        }
    }

    fn key(&self, s: &str) -> String {
        if self.page.quirks_mode() {
            s.to_ascii_lowercase()
        } else {
            s.to_string()
        }
    }

    fn class_list(&self, id: NodeId) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        if let Some(e) = self.page.element(id) {
            for c in e.classes() {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        out
    }

    fn has_classes(&self, n: NodeId, classes: &[&str]) -> bool {
        let fold = self.page.quirks_mode();
        let Some(e) = self.page.element(n) else {
            return false;
        };
        classes.iter().all(|want| {
            e.classes().any(|c| {
                if fold {
                    c.eq_ignore_ascii_case(want)
                } else {
                    c == *want
                }
            })
        })
    }

    /// A selector that matches only `id` on the whole page, on its own.
    fn anchor(&self, id: NodeId) -> Option<String> {
        let e = self.page.element(id)?;
        if let Some(v) = e.id()
            && self.ids.get(&self.key(v)) == Some(&1)
        {
            return Some(format!("#{}", ident(v)));
        }
        let tag = e.local_name();
        if self.tags.get(tag) == Some(&1) {
            return Some(ident(tag));
        }
        let classes = self.class_list(id);
        if !classes.is_empty() && classes.len() <= MAX_CLASSES {
            // The shortest posting list bounds the candidates.
            let shortest = classes
                .iter()
                .filter_map(|c| self.classes.get(&self.key(c)))
                .min_by_key(|l| l.len())?;
            let count = shortest
                .iter()
                .filter(|&&n| self.page.tag(n) == Some(tag) && self.has_classes(n, &classes))
                .count();
            if count == 1 {
                return Some(compound(tag, &classes));
            }
        }
        None
    }

    /// A step unique among the element's siblings.
    fn step(&self, id: NodeId, parent: NodeId) -> String {
        let tag = self.page.tag(id).unwrap_or("*");
        let same_tag: Vec<NodeId> = self
            .page
            .element_children(parent)
            .filter(|&c| self.page.tag(c) == Some(tag))
            .collect();
        if same_tag.len() == 1 {
            return ident(tag);
        }
        let classes = self.class_list(id);
        if !classes.is_empty()
            && classes.len() <= MAX_CLASSES
            && same_tag
                .iter()
                .filter(|&&c| self.has_classes(c, &classes))
                .count()
                == 1
        {
            return compound(tag, &classes);
        }
        let k = same_tag.iter().position(|&c| c == id).unwrap_or(0) + 1;
        format!("{}:nth-of-type({k})", ident(tag))
    }

    /// The unique selector of element `id` (`None` for non-elements and
    /// template contents, which no selector can reach).
    pub fn selector(&mut self, id: NodeId) -> Option<String> {
        if !self.page.is_element(id) || self.page.node(id).inert {
            return None;
        }
        if let Some(s) = self.memo.get(&id) {
            return Some(s.clone());
        }
        // Climb to the nearest element that is memoized or anchored, then
        // build back down. Iterative: pages nest arbitrarily deep.
        let mut chain = vec![id];
        let base: String;
        loop {
            let cur = *chain.last().unwrap_or(&id);
            if let Some(s) = self.memo.get(&cur) {
                chain.pop();
                base = s.clone();
                break;
            }
            if let Some(a) = self.anchor(cur) {
                chain.pop();
                self.memo.insert(cur, a.clone());
                base = a;
                break;
            }
            match self.page.parent(cur).filter(|&p| self.page.is_element(p)) {
                Some(p) => chain.push(p),
                None => {
                    chain.pop();
                    self.memo.insert(cur, ":root".into());
                    base = ":root".into();
                    break;
                }
            }
        }
        let mut sel = base;
        for &n in chain.iter().rev() {
            let parent = self.page.parent(n).unwrap_or(NodeId::DOCUMENT);
            sel = format!("{sel} > {}", self.step(n, parent));
            // Memoizing every prefix of a very deep path would cost memory
            // quadratic in depth; short prefixes are the ones reused.
            if sel.len() <= MEMO_MAX_LEN {
                self.memo.insert(n, sel.clone());
            }
        }
        Some(sel)
    }
}

fn compound(tag: &str, classes: &[&str]) -> String {
    let mut s = ident(tag);
    for c in classes {
        s.push('.');
        s.push_str(&ident(c));
    }
    s
}
