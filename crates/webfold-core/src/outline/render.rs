//! Turning the first `k` lines of a [`Plan`] (in budget rank order) into the
//! text tree and the JSON tree.

use std::collections::HashMap;

use super::plan::{Entry, Plan};
use super::preview::preview;
use super::scope::{Scope, label, label_is_unique};
use super::{CutPart, DomNode};
use crate::contract::{Handle, Hint, Surface};
use crate::page::NodeId;
use crate::select::UniqueSelectors;

pub(super) struct Renderer<'s, 'p> {
    scope: &'s Scope<'p>,
    plan: &'s Plan,
    uniq: UniqueSelectors<'p>,
    /// Per entry: whether its label needs the `@id` handle (lazily computed).
    needs_handle: Vec<Option<bool>>,
    /// `shown[n] == generation`: element `n` has its own line in this render.
    shown: Vec<u32>,
    generation: u32,
    pub total_elements: usize,
    /// Whose words the cut note is written in.
    surface: Surface,
}

pub(super) struct Rendered {
    pub text: String,
    pub shown_elements: usize,
    /// Lines whose children were cut by the budget, with how many.
    pub cut: Vec<(usize, usize)>,
}

/// A line still to print in the outline's tree, in print order on a stack.
enum Item {
    /// Entry `e`'s line, after `prefix` and its `connector`; its children's
    /// lines start with `child_prefix`.
    Line {
        e: usize,
        connector: &'static str,
        prefix: String,
        child_prefix: String,
    },
    /// The `… N more` line of `hidden` children left out.
    More { hidden: usize, prefix: String },
}

/// Queue the `kept` children of a line (whose lines start with
/// `child_prefix`), then a `… N more` line for the `hidden` ones, so they pop
/// in print order.
fn push_children(stack: &mut Vec<Item>, kept: &[usize], hidden: usize, child_prefix: &str) {
    if hidden > 0 && !kept.is_empty() {
        stack.push(Item::More {
            hidden,
            prefix: child_prefix.to_string(),
        });
    }
    for (i, &c) in kept.iter().enumerate().rev() {
        let last = i + 1 == kept.len() && hidden == 0;
        let (connector, extend) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        stack.push(Item::Line {
            e: c,
            connector,
            prefix: child_prefix.to_string(),
            child_prefix: format!("{child_prefix}{extend}"),
        });
    }
}

impl<'s, 'p> Renderer<'s, 'p> {
    pub fn new(
        scope: &'s Scope<'p>,
        plan: &'s Plan,
        total_elements: usize,
        surface: Surface,
    ) -> Self {
        Renderer {
            surface,
            scope,
            plan,
            uniq: UniqueSelectors::new(scope.page),
            needs_handle: vec![None; plan.entries.len()],
            shown: vec![0; scope.page.len()],
            generation: 0,
            total_elements,
        }
    }

    fn kept(&self, e: usize, k: usize) -> bool {
        self.plan.rank[e] < k
    }

    /// The kept children of entry `e`: a prefix of its kids, unless a
    /// focus ranked some first (see `plan::focus`).
    fn kept_kids(&self, e: usize, k: usize) -> Vec<usize> {
        let kids = &self.plan.entries[e].kids;
        kids.iter()
            .copied()
            .filter(|&c| self.plan.rank[c] < k)
            .collect()
    }

    pub fn selector(&mut self, n: NodeId) -> String {
        self.uniq.selector(n).unwrap_or_default()
    }

    fn needs_handle(&mut self, e: usize) -> bool {
        if let Some(v) = self.needs_handle[e] {
            return v;
        }
        let plan = self.plan;
        let entry = &plan.entries[e];
        let v = entry.repeat() > 1 || {
            let last = entry.last();
            let sel = self.selector(last);
            !label_is_unique(&sel, &label(self.scope.page, last, true))
        };
        self.needs_handle[e] = Some(v);
        v
    }

    fn mark_shown(&mut self, k: usize) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.shown.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
        for (e, entry) in self.plan.entries.iter().enumerate() {
            if self.plan.rank[e] < k {
                for &m in &entry.members {
                    self.shown[m.index()] = self.generation;
                }
            }
        }
    }

    fn preview_of(&self, entry: &Entry) -> Option<String> {
        let shown = &self.shown;
        let generation = self.generation;
        preview(self.scope, entry.last(), &|n| {
            shown[n.index()] == generation
        })
    }

    /// The line for an entry, without tree drawing.
    fn line(&mut self, e: usize, k: usize) -> String {
        let page = self.scope.page;
        let plan = self.plan;
        let entry = &plan.entries[e];
        let mut s = if entry.repeat() > 1 {
            format!("{} ×{}", label(page, entry.first(), false), entry.repeat())
        } else {
            let parts: Vec<String> = entry.chain.iter().map(|&n| label(page, n, true)).collect();
            parts.join(" > ")
        };
        let mut notes: Vec<String> = Vec::new();
        if entry.parent.is_none() {
            notes.push(format!("{} elements", self.total_elements));
        }
        if entry.child_count > 0 && self.kept_kids(e, k).is_empty() {
            notes.push(match (entry.child_count, entry.homogeneous) {
                (1, _) => "1 child".to_string(),
                (c, true) => format!("{c} items"),
                (c, false) => format!("{c} children"),
            });
        }
        if !notes.is_empty() {
            s.push_str(&format!(" ({})", notes.join(", ")));
        }
        if self.needs_handle(e) {
            s.push_str(&format!(" @{}", entry.last()));
        }
        if let Some(p) = self.preview_of(entry) {
            s.push_str(&format!(" \"{p}\""));
        }
        s
    }

    /// The text of the outline showing the `k` highest-ranked lines.
    pub fn render(&mut self, k: usize, max_tokens: Option<usize>) -> Rendered {
        let k = k.clamp(1, self.plan.entries.len());
        self.mark_shown(k);
        let mut text = String::new();
        let mut shown_elements = 0;
        let mut any_handle = false;
        let mut cut = Vec::new();
        let mut stack = vec![Item::Line {
            e: 0,
            connector: "",
            prefix: String::new(),
            child_prefix: String::new(),
        }];
        while let Some(item) = stack.pop() {
            match item {
                Item::More { hidden, prefix } => {
                    text.push_str(&prefix);
                    text.push_str(&format!("└── … {hidden} more\n"));
                }
                Item::Line {
                    e,
                    connector,
                    prefix,
                    child_prefix,
                } => {
                    let line = self.line(e, k);
                    any_handle |= self.needs_handle(e);
                    text.push_str(&prefix);
                    text.push_str(connector);
                    text.push_str(&line);
                    text.push('\n');
                    let plan = self.plan;
                    let entry = &plan.entries[e];
                    shown_elements += entry.covered();
                    let kept = self.kept_kids(e, k);
                    let hidden: usize = entry
                        .kids
                        .iter()
                        .filter(|&&c| !self.kept(c, k))
                        .map(|&c| self.plan.entries[c].repeat())
                        .sum();
                    if hidden > 0 {
                        cut.push((e, hidden));
                    }
                    push_children(&mut stack, &kept, hidden, &child_prefix);
                }
            }
        }
        text.push_str(&self.closing_note(k, shown_elements, any_handle, max_tokens));
        Rendered {
            text,
            shown_elements,
            cut,
        }
    }

    /// The line after the tree: how much a cut outline shows and how to
    /// unfold the rest, or how to unfold an `@N` handle.
    fn closing_note(
        &self,
        k: usize,
        shown_elements: usize,
        any_handle: bool,
        max_tokens: Option<usize>,
    ) -> String {
        if k < self.plan.entries.len() {
            let budget = max_tokens
                .map(|b| format!(" {b} tokens"))
                .unwrap_or_default();
            format!(
                "[cut to fit{budget}: {shown_elements} of {} elements shown. Unfold a part with {}, or {} for @N]\n",
                self.total_elements,
                Hint::Chunk(Handle::Selector("SEL".into()), false).spell(self.surface),
                Hint::Chunk(Handle::Id("N".into()), false).spell(self.surface),
            )
        } else if any_handle {
            format!(
                "[@N: node id, unfold with {}]\n",
                Hint::Chunk(Handle::Id("N".into()), false).spell(self.surface)
            )
        } else {
            String::new()
        }
    }

    /// The JSON tree for the last render of `k` lines (call after `render`).
    pub fn dom_tree(&mut self, k: usize) -> DomNode {
        let k = k.clamp(1, self.plan.entries.len());
        let plan = self.plan;
        let entries = &plan.entries;
        // Only kept entries are built: a slot per plan entry would cost a
        // node's size for each of a listing's 100,000 entries.
        let mut built: HashMap<usize, DomNode> = HashMap::with_capacity(k);
        // Breadth-first order puts children after parents: build in reverse.
        for e in (0..entries.len()).rev() {
            if !self.kept(e, k) {
                continue;
            }
            let entry = &entries[e];
            let children: Vec<DomNode> = self
                .kept_kids(e, k)
                .iter()
                .filter_map(|c| built.remove(c))
                .collect();
            let mut node = self.dom_node(entry.last(), entry.child_count as usize);
            node.text_preview = self.preview_of(entry);
            node.children = children;
            for &wrapper in entry.chain.iter().rev().skip(1) {
                let mut outer = self.dom_node(wrapper, 1);
                outer.children = vec![node];
                node = outer;
            }
            if entry.repeat() > 1 {
                node.repeat = Some(entry.repeat());
            }
            built.insert(e, node);
        }
        built
            .remove(&0)
            .unwrap_or_else(|| self.dom_node(entries[0].first(), 0))
    }

    fn dom_node(&mut self, n: NodeId, child_count: usize) -> DomNode {
        let page = self.scope.page;
        let (tag, id, classes) = match page.element(n) {
            Some(e) => {
                let mut classes: Vec<String> = Vec::new();
                for c in e.classes() {
                    if !classes.iter().any(|x| x == c) {
                        classes.push(c.to_string());
                    }
                }
                (
                    e.local_name().to_string(),
                    e.id().map(str::to_string),
                    classes,
                )
            }
            None => (String::new(), None, Vec::new()),
        };
        DomNode {
            tag,
            id,
            classes,
            selector: self.selector(n),
            node_id: n,
            child_count,
            text_preview: None,
            repeat: None,
            children: Vec::new(),
        }
    }

    pub fn cut_parts(&mut self, cut: &[(usize, usize)]) -> Vec<CutPart> {
        cut.iter()
            .map(|&(e, hidden)| {
                let n = self.plan.entries[e].last();
                CutPart {
                    selector: self.selector(n),
                    node_id: n,
                    hidden_children: hidden,
                }
            })
            .collect()
    }
}
