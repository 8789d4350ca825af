//! A unique, readable CSS selector for any element.
//!
//! Preference order, shortest and most readable first: `#id` when the id is
//! unique; the bare tag when the page has one such element (`main`, `nav`);
//! `tag.class…` when unique; otherwise a `>` path of steps (`tag`,
//! `tag.class`, `tag:nth-of-type(k)`) from the nearest ancestor that has one
//! of the former. Each step is unique among its siblings, so the path is
//! unique by construction; the corpus property test checks that
//! `querySelectorAll(selector)` returns exactly the element.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;

use crate::page::{NodeId, Page};

/// Computes (and memoizes) unique selectors for one page.
pub struct UniqueSelectors<'a> {
    page: &'a Page,
    index: Index<'a>,
    /// The index counts only the names on some elements' ancestor chains
    /// (see [`UniqueSelectors::covering`]).
    partial: bool,
    /// The elements a partial index is to cover, until the first selector
    /// asked for counts it.
    pending: Option<Vec<NodeId>>,
    memo: HashMap<NodeId, String>,
    /// Elements on the page matching a `tag.classes` compound, by compound
    /// (one or more).
    /// Siblings alike (`tr.odd`, `tr.even`) ask for one compound again and
    /// again: counted once, the selectors of a page stay linear in its size.
    compounds: HashMap<String, usize>,
    /// Per parent, its element children's places among their type (and the
    /// counts of the compounds asked of them): at most one pass per parent,
    /// not one per child.
    siblings: HashMap<NodeId, Siblings<'a>>,
}

/// An element's children as `step` sees them, read as far as a step has
/// needed: the first items of a list of 100,000 are placed without reading
/// the rest.
struct Siblings<'a> {
    /// The element children read, in document order (so by id), each with
    /// its 1-based position among those of its type key, and the key's kind.
    read: Vec<(NodeId, u32, u32)>,
    /// The next child to read.
    next: Option<NodeId>,
    /// Type keys by kind, and how many children read have each.
    kinds: HashMap<Cow<'a, str>, u32>,
    seen: Vec<u32>,
    /// Children matching a `tag.classes` compound, by compound (one or
    /// more, see [`UniqueSelectors::count_compound`]).
    compounds: HashMap<String, usize>,
}

impl<'a> Siblings<'a> {
    fn of(page: &Page, parent: NodeId) -> Siblings<'a> {
        Siblings {
            read: Vec::new(),
            next: page.node(parent).first_child,
            kinds: HashMap::new(),
            seen: Vec::new(),
            compounds: HashMap::new(),
        }
    }

    /// Reads the next element child; false at the end.
    fn read_one(&mut self, page: &'a Page) -> bool {
        while let Some(c) = self.next {
            self.next = page.node(c).next_sibling;
            let Some(tag) = page.tag(c) else { continue };
            let fresh = self.kinds.len() as u32;
            let kind = *self.kinds.entry(type_key(tag)).or_insert(fresh);
            if kind == fresh {
                self.seen.push(0);
            }
            self.seen[kind as usize] += 1;
            self.read.push((c, self.seen[kind as usize], kind));
            return true;
        }
        false
    }

    /// `child`'s position among children of its type key, and whether it
    /// is the only one.
    fn place(&mut self, page: &'a Page, child: NodeId) -> Option<(u32, bool)> {
        while self.read.last().is_none_or(|&(c, ..)| c < child) {
            if !self.read_one(page) {
                break;
            }
        }
        let i = self.read.binary_search_by_key(&child, |e| e.0).ok()?;
        let (_, position, kind) = self.read[i];
        // Alone of its kind so far: read on until another shows.
        while self.seen[kind as usize] == 1 {
            if !self.read_one(page) {
                return Some((position, true));
            }
        }
        Some((position, false))
    }
}

/// How many elements carry each id and tag, and which carry each class
/// (keys case-folded in quirks mode), not counting template contents. Tags
/// are counted by [`type_key`].
#[derive(Default)]
struct Index<'a> {
    ids: HashMap<String, u32>,
    tags: HashMap<Cow<'a, str>, u32>,
    classes: HashMap<String, Vec<NodeId>>,
}

impl<'a> Index<'a> {
    /// One pass over the page. With `add_new`, every name is counted;
    /// without, only the names already in the index.
    fn count(&mut self, page: &'a Page, add_new: bool) {
        let fold = page.quirks_mode();
        let mut buf = String::new();
        for n in page.descendants(NodeId::DOCUMENT) {
            if page.node(n).inert {
                continue;
            }
            let Some(e) = page.element(n) else { continue };
            let tag = type_key(e.local_name());
            // A class only ever anchors a selector together with its tag
            // (`tag.class`), so a partial index lists only elements of the
            // tags it counts: the counts it answers stay exact.
            let tag_counted = if let Some(c) = self.tags.get_mut(&*tag) {
                *c += 1;
                true
            } else if add_new {
                self.tags.insert(tag, 1);
                true
            } else {
                false
            };
            if let Some(id) = e.id() {
                let k = folded(id, fold, &mut buf);
                if let Some(c) = self.ids.get_mut(k) {
                    *c += 1;
                } else if add_new {
                    self.ids.insert(k.to_string(), 1);
                }
            }
            if !tag_counted {
                continue;
            }
            for c in e.classes() {
                let k = folded(c, fold, &mut buf);
                match self.classes.get_mut(k) {
                    // A class repeated on one element lists it once.
                    Some(list) if list.last() != Some(&n) => list.push(n),
                    Some(_) => {}
                    None if add_new => {
                        self.classes.insert(k.to_string(), vec![n]);
                    }
                    None => {}
                }
            }
        }
    }
}

/// A tag as the index counts it: ASCII-lowercased. A type selector matches
/// HTML elements whatever its case and other elements (SVG's
/// `foreignObject`) only in theirs, so the elements of one key are all the
/// elements a tag's type selector can match, and a count of one is unique.
fn type_key(tag: &str) -> Cow<'_, str> {
    if tag.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(tag.to_ascii_lowercase())
    } else {
        Cow::Borrowed(tag)
    }
}

/// `s` as an index key: ASCII-lowercased in quirks mode, where ids and
/// classes match case-insensitively.
fn folded<'b>(s: &'b str, fold: bool, buf: &'b mut String) -> &'b str {
    if !fold {
        return s;
    }
    buf.clear();
    buf.extend(s.chars().map(|c| c.to_ascii_lowercase()));
    buf
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
        let mut u = UniqueSelectors::empty(page, None);
        u.index.count(page, true);
        u
    }

    fn empty(page: &'a Page, pending: Option<Vec<NodeId>>) -> Self {
        UniqueSelectors {
            page,
            index: Index::default(),
            partial: pending.is_some(),
            pending,
            memo: HashMap::new(),
            compounds: HashMap::new(),
            siblings: HashMap::new(),
        }
    }

    /// For the selectors of `targets` only: one pass over the page, when
    /// the first selector is asked for, counts just the ids, tags and
    /// classes on their ancestor chains, the names their selectors can be
    /// made of. Asked for another element, it counts the whole page first,
    /// so answers never differ from [`Self::new`]'s.
    pub fn covering(page: &'a Page, targets: &[NodeId]) -> Self {
        UniqueSelectors::empty(page, Some(targets.to_vec()))
    }

    /// Selectors of elements anywhere are coming: count the whole page now,
    /// in one pass rather than the targets' and then the whole.
    pub fn cover_page(&mut self) {
        if self.partial {
            self.pending = None;
            self.count_whole_page();
        }
    }

    fn count_whole_page(&mut self) {
        self.index = Index::default();
        self.index.count(self.page, true);
        self.partial = false;
        self.compounds.clear();
    }

    /// The partial index of [`Self::covering`]'s targets.
    fn count_pending(&mut self, targets: &[NodeId]) {
        let page = self.page;
        let fold = page.quirks_mode();
        let mut buf = String::new();
        for &t in targets {
            let mut cur = Some(t);
            while let Some(n) = cur {
                let Some(e) = page.element(n) else { break };
                self.index.tags.entry(type_key(e.local_name())).or_insert(0);
                if let Some(id) = e.id() {
                    let k = folded(id, fold, &mut buf).to_string();
                    self.index.ids.entry(k).or_insert(0);
                }
                for c in e.classes() {
                    let k = folded(c, fold, &mut buf).to_string();
                    self.index.classes.entry(k).or_default();
                }
                cur = page.parent(n);
            }
        }
        self.index.count(page, false);
    }

    /// Whether the index counts every name the selector of `id` may use.
    fn covers(&self, id: NodeId) -> bool {
        if !self.partial {
            return true;
        }
        let fold = self.page.quirks_mode();
        let mut buf = String::new();
        let mut cur = Some(id);
        while let Some(n) = cur {
            let Some(e) = self.page.element(n) else { break };
            if !self.index.tags.contains_key(&*type_key(e.local_name())) {
                return false;
            }
            if let Some(v) = e.id()
                && !self.index.ids.contains_key(folded(v, fold, &mut buf))
            {
                return false;
            }
            for c in e.classes() {
                if !self.index.classes.contains_key(folded(c, fold, &mut buf)) {
                    return false;
                }
            }
            cur = self.page.parent(n);
        }
        true
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
    fn anchor(&mut self, id: NodeId) -> Option<String> {
        let e = self.page.element(id)?;
        if let Some(v) = e.id()
            && self.index.ids.get(&self.key(v)) == Some(&1)
        {
            return Some(format!("#{}", ident(v)));
        }
        let tag = e.local_name();
        if self.index.tags.get(&*type_key(tag)) == Some(&1) {
            return Some(ident(tag));
        }
        let classes = self.class_list(id);
        if classes.is_empty() || classes.len() > MAX_CLASSES {
            return None;
        }
        let sel = compound(tag, &classes);
        let key = self.compound_key(&sel);
        let count = match self.compounds.get(&key) {
            Some(&c) => c,
            None => {
                let c = self.count_compound(tag, &classes, |_| true)?;
                self.compounds.insert(key, c);
                c
            }
        };
        (count == 1).then_some(sel)
    }

    /// How many elements `keep` keeps of those matching `tag.classes`
    /// (classes not empty), read from the shortest of the classes' lists in
    /// the index: one, or two for more (only one is unique, and the second
    /// match of a list's items comes early).
    fn count_compound(
        &self,
        tag: &str,
        classes: &[&str],
        keep: impl Fn(NodeId) -> bool,
    ) -> Option<usize> {
        let shortest = classes
            .iter()
            .filter_map(|c| self.index.classes.get(&self.key(c)))
            .min_by_key(|l| l.len())?;
        let matching =
            |&&n: &&NodeId| keep(n) && self.same_type_key(n, tag) && self.has_classes(n, classes);
        Some(shortest.iter().filter(matching).take(2).count())
    }

    /// A compound as a memo key: the type key and, in quirks mode, the
    /// classes case-folded, as the counts they stand for match.
    fn compound_key(&self, compound: &str) -> String {
        if self.page.quirks_mode() {
            compound.to_ascii_lowercase()
        } else {
            let (tag, rest) = compound.split_once('.').unwrap_or((compound, ""));
            format!("{}.{rest}", type_key(tag))
        }
    }

    /// Whether `n`'s tag has the index key of `tag`: it may match `tag`'s
    /// type selector.
    fn same_type_key(&self, n: NodeId, tag: &str) -> bool {
        self.page
            .tag(n)
            .is_some_and(|t| t.eq_ignore_ascii_case(tag))
    }

    /// A step unique among the element's siblings.
    fn step(&mut self, id: NodeId, parent: NodeId) -> String {
        let tag = self.page.tag(id).unwrap_or("*");
        let page = self.page;
        let siblings = (self.siblings.entry(parent)).or_insert_with(|| Siblings::of(page, parent));
        let (position, alone) = siblings.place(page, id).unwrap_or((1, true));
        if alone {
            return ident(tag);
        }
        let classes = self.class_list(id);
        if !classes.is_empty() && classes.len() <= MAX_CLASSES {
            let sel = compound(tag, &classes);
            let key = self.compound_key(&sel);
            let known = self
                .siblings
                .get(&parent)
                .and_then(|s| s.compounds.get(&key).copied());
            let count = known.unwrap_or_else(|| {
                // From the index, not a walk of the siblings: a parent of
                // many items has as many compounds to count.
                let c = self
                    .count_compound(tag, &classes, |m| page.parent(m) == Some(parent))
                    .unwrap_or(0);
                if let Some(s) = self.siblings.get_mut(&parent) {
                    s.compounds.insert(key, c);
                }
                c
            });
            if count == 1 {
                return sel;
            }
        }
        // `:nth-of-type` counts elements of the very same name, and these
        // are: siblings whose tags differ only in case are of one namespace
        // in any tree the HTML parser builds (foreign content's children are
        // foreign but for integration points, whose only foreign children
        // are `<svg>` and `<math>`, names no HTML element it makes has).
        format!("{}:nth-of-type({position})", ident(tag))
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
        if let Some(targets) = self.pending.take() {
            self.count_pending(&targets);
        }
        if !self.covers(id) {
            self.count_whole_page();
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
