//! The full outline before any budget: one [`Entry`] per line, built
//! breadth-first, with same-shaped sibling runs and wrapper chains folded.

use foldhash::fast::FixedState;
use std::hash::{BuildHasher, Hash, Hasher};

use super::scope::Scope;
use crate::page::NodeId;
use crate::purpose::{FOCUSED, Place, TaskFocus};

/// A run of this many same-shaped siblings becomes one line.
pub(super) const MIN_RUN: usize = 3;
/// Elements a wrapper chain shows on one line; a longer chain continues on
/// the next line, so no line (and no JSON nesting) grows with page depth.
pub(super) const MAX_CHAIN: usize = 4;

/// One outline line.
pub(super) struct Entry {
    /// The wrapper chain, outermost first. The last element is the one whose
    /// children are listed and whose text is previewed.
    pub chain: Vec<NodeId>,
    /// Run members (same-shaped consecutive siblings), first is `chain[0]`;
    /// a single element for lines that are not runs.
    pub members: Vec<NodeId>,
    pub level: u32,
    pub parent: Option<usize>,
    /// Position among the parent's lines.
    pub sibling_index: u32,
    /// Outlined element children of the last chain element.
    pub child_count: u32,
    /// All those children share one tag: a list, so "items".
    pub homogeneous: bool,
    /// Lines for the children, in document order (empty at the depth limit).
    pub kids: Vec<usize>,
}

impl Entry {
    pub fn last(&self) -> NodeId {
        *self.chain.last().unwrap_or(&self.members[0])
    }

    pub fn first(&self) -> NodeId {
        self.members[0]
    }

    pub fn repeat(&self) -> usize {
        self.members.len()
    }

    /// Elements this line stands for.
    pub fn covered(&self) -> usize {
        self.chain.len() + self.members.len() - 1
    }
}

pub(super) struct Plan {
    /// Breadth-first: levels are contiguous and ascending.
    pub entries: Vec<Entry>,
    /// `rank[e]`: the order in which a budget keeps lines. Shallow first;
    /// within a level, round-robin over parents (every parent's first child,
    /// then every second child, …), so the widest lists lose lines first and
    /// each parent keeps a prefix of its children.
    pub rank: Vec<usize>,
}

/// Ranks first the lines `focus` points at (by their labels, text and
/// link), each with the lines above it, in breadth-first order; the rest
/// keep their ranks after them. A parent's kept lines are then no longer
/// a prefix of its children: the render lists the kept ones and counts the
/// rest in its `… N more`.
pub(super) fn focus(plan: &mut Plan, scope: &Scope<'_>, focus: &TaskFocus) {
    let page = scope.page;
    let mut first = vec![false; plan.entries.len()];
    for (e, entry) in plan.entries.iter().enumerate() {
        let last = entry.last();
        let mut words: String = entry
            .chain
            .iter()
            .map(|&n| super::label(page, n, true))
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(p) = super::preview::preview(scope, last, &|_| false) {
            words.push(' ');
            words.push_str(&p);
        }
        let url = page.element(last).and_then(|el| el.attr("href"));
        let score = focus.score("", &words, url, place(plan, scope, e));
        if score >= FOCUSED {
            let mut at = Some(e);
            while let Some(a) = at.filter(|&a| !first[a]) {
                first[a] = true;
                at = plan.entries[a].parent;
            }
        }
    }
    let mut order: Vec<usize> = (0..plan.entries.len()).collect();
    order.sort_by_key(|&e| (!first[e], plan.rank[e]));
    for (r, e) in order.into_iter().enumerate() {
        plan.rank[e] = r;
    }
}

/// The landmark a line sits in, from its own and its ancestors' tags.
fn place(plan: &Plan, scope: &Scope<'_>, e: usize) -> Place {
    let mut at = Some(e);
    while let Some(a) = at {
        let tags = plan.entries[a].chain.iter().rev();
        if let Some(place) = tags
            .filter_map(|&n| Place::of_landmark(scope.page.tag(n)?))
            .next()
        {
            return place;
        }
        at = plan.entries[a].parent;
    }
    Place::Anywhere
}

pub(super) fn build(scope: &Scope<'_>, root: NodeId, max_depth: usize) -> Plan {
    let mut entries = vec![new_entry(scope, vec![root], 0, None, 0)];
    let mut next = 0;
    while next < entries.len() {
        let level = entries[next].level;
        if (level as usize) < max_depth {
            let kids: Vec<NodeId> = scope.outlined_children(entries[next].last()).collect();
            let mut lines = Vec::new();
            for members in runs(scope, &kids) {
                let sib = lines.len() as u32;
                lines.push(entries.len());
                entries.push(new_entry(scope, members, level + 1, Some(next), sib));
            }
            entries[next].kids = lines;
        }
        next += 1;
    }
    let rank = ranks(&entries);
    Plan { entries, rank }
}

fn new_entry(
    scope: &Scope<'_>,
    members: Vec<NodeId>,
    level: u32,
    parent: Option<usize>,
    sibling_index: u32,
) -> Entry {
    let chain = if members.len() == 1 {
        chain_from(scope, members[0])
    } else {
        vec![members[0]]
    };
    let last = *chain.last().unwrap_or(&members[0]);
    let mut child_count = 0u32;
    let mut first_tag: Option<&str> = None;
    let mut homogeneous = true;
    for c in scope.outlined_children(last) {
        child_count += 1;
        let tag = scope.page.tag(c);
        match first_tag {
            None => first_tag = tag,
            Some(t) => homogeneous &= tag == Some(t),
        }
    }
    Entry {
        chain,
        members,
        level,
        parent,
        sibling_index,
        child_count,
        homogeneous: homogeneous && child_count > 1,
        kids: Vec::new(),
    }
}

/// Follow elements whose only outlined child is one element and that have no
/// text of their own: such wrappers add depth, not information.
fn chain_from(scope: &Scope<'_>, start: NodeId) -> Vec<NodeId> {
    let mut chain = vec![start];
    while chain.len() < MAX_CHAIN {
        let cur = chain[chain.len() - 1];
        let mut kids = scope.outlined_children(cur);
        let (Some(only), None) = (kids.next(), kids.next()) else {
            break;
        };
        if scope.has_own_text(cur) {
            break;
        }
        chain.push(only);
    }
    chain
}

/// Split siblings into runs of same-shaped elements (at least [`MIN_RUN`]
/// long) and single elements, in document order.
fn runs(scope: &Scope<'_>, kids: &[NodeId]) -> Vec<Vec<NodeId>> {
    let shapes: Vec<u64> = kids.iter().map(|&k| shape(scope, k)).collect();
    let mut out: Vec<Vec<NodeId>> = Vec::new();
    let mut i = 0;
    while i < kids.len() {
        let mut j = i + 1;
        while j < kids.len() && shapes[j] == shapes[i] {
            j += 1;
        }
        if j - i >= MIN_RUN {
            out.push(kids[i..j].to_vec());
        } else {
            out.extend(kids[i..j].iter().map(|&k| vec![k]));
        }
        i = j;
    }
    out
}

/// Tag and class set of the element, and the sequence of its children's tags
/// and class sets with repeats collapsed: two product cards with 3 and 5
/// bullet points have the same shape; a header and a footer do not. Only
/// compared with its siblings' in one call: any hasher that is the same
/// for the whole call does.
fn shape(scope: &Scope<'_>, n: NodeId) -> u64 {
    let hasher = || FixedState::with_seed(0).build_hasher();
    let mut h = hasher();
    hash_tag_and_classes(scope, n, &mut h);
    let mut prev: Option<u64> = None;
    for c in scope.outlined_children(n) {
        let mut ch = hasher();
        hash_tag_and_classes(scope, c, &mut ch);
        let k = ch.finish();
        if prev != Some(k) {
            k.hash(&mut h);
            prev = Some(k);
        }
    }
    h.finish()
}

/// The tag and the set of classes (sorted, each once); most elements have
/// at most one class, and are hashed without a list.
fn hash_tag_and_classes(scope: &Scope<'_>, n: NodeId, h: &mut impl Hasher) {
    let Some(e) = scope.page.element(n) else {
        return "".hash(h);
    };
    e.local_name().hash(h);
    let mut classes = e.classes();
    match (classes.next(), classes.next()) {
        (None, _) => 0usize.hash(h),
        (Some(only), None) => {
            1usize.hash(h);
            only.hash(h);
        }
        (Some(a), Some(b)) => {
            let mut all: Vec<&str> = [a, b].into_iter().chain(classes).collect();
            all.sort_unstable();
            all.dedup();
            all.len().hash(h);
            for c in all {
                c.hash(h);
            }
        }
    }
}

fn ranks(entries: &[Entry]) -> Vec<usize> {
    let mut rank = vec![0usize; entries.len()];
    let mut start = 0;
    let mut next_rank = 0;
    while start < entries.len() {
        let level = entries[start].level;
        let mut end = start;
        while end < entries.len() && entries[end].level == level {
            end += 1;
        }
        let mut order: Vec<usize> = (start..end).collect();
        order.sort_by_key(|&e| {
            let parent_rank = entries[e].parent.map_or(0, |p| rank[p]);
            (entries[e].sibling_index, parent_rank)
        });
        for e in order {
            rank[e] = next_rank;
            next_rank += 1;
        }
        start = end;
    }
    rank
}
