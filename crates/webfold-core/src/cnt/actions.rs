//! The controls a view keeps whatever else it cuts: what an acting agent
//! most often came for.
//!
//! Tiers ([`focus`](super::focus)) spend the budget on the article first and
//! on the page's furniture last, and the furniture is where pages keep the
//! search box, the sign-in link, the next page, the comment form and the
//! privacy link. Measured on the corpus's labelled tasks
//! (`tests/target_recall.rs`), the element a task needed was in a
//! 2,000-token view 7% of the time. So the controls are ranked here, and a
//! view pins the best of them, each with its label and the path to it, in
//! a share of its budget before the tiers divide the rest
//! ([`compress`](super::compress)).
//!
//! An action is a form field or button, or a link whose name or address
//! says what it is for ([`Purposes`]: search, sign in, newsletter, legal
//! pages, next page, share, comment, author, cookies). They rank:
//! 0. those in an open modal dialog, then those in an open popup
//!    ([`crate::layers`]), before the rest of the page, a task's focus
//!    included;
//! 1. first copies before repeats (a link with the text and address of an
//!    earlier one);
//! 2. named before addressed (a link whose only purpose is in its URL);
//! 3. rarer kinds first: actions are grouped by class and purpose (or kind
//!    of field), and the smaller the group, the likelier it is what a task
//!    needs: the one sign-in link, not one of forty reply links or a
//!    recipe's thirty checkboxes;
//! 4. fields with a purpose, then named links, then other fields;
//! 5. document order.

use std::collections::{HashMap, HashSet};

use super::CntNode;
use crate::layers::Front;
use crate::purpose::{FOCUSED, Place, Purpose, Purposes, TaskFocus};

/// No action in the subtree.
pub(crate) const NONE: u32 = u32::MAX;

/// Action ranks of a CNT, for pinning the first `k` of them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Actions {
    /// Per node, `kids[start[i]..start[i + 1]]`: the positions among its
    /// children of those holding an action, with that child's best rank.
    start: Vec<u32>,
    kids: Vec<(u32, u32)>,
    /// Per node: its own rank ([`NONE`] when it is not an action).
    own: Vec<u32>,
    /// How many actions there are (ranks are `0..count`).
    pub count: u32,
}

impl Actions {
    /// Node `i`'s own rank among the actions.
    pub(crate) fn rank_of(&self, i: usize) -> Option<u32> {
        self.own.get(i).copied().filter(|&r| r != NONE)
    }

    /// Whether child `pos` of node `i` is pinned when `k` actions are.
    pub(crate) fn pinned_kids(&self, i: usize, k: u32) -> impl Iterator<Item = usize> + '_ {
        let (a, b) = match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => (0, 0),
        };
        self.kids[a..b]
            .iter()
            .filter(move |&&(_, r)| r < k)
            .map(|&(p, _)| p as usize)
    }
}

/// Ranks the actions of `nodes` (a CNT in preorder; `front` per node).
pub(crate) fn rank(nodes: &[CntNode], front: &[Front]) -> Actions {
    let found = actions_of(nodes);
    let order = default_order(nodes, front, &found);
    build(nodes, &found, &order)
}

/// The same, with the actions `focus` points at first (the strongest
/// first; of equals, the later when the task says "below").
pub(crate) fn rank_for(nodes: &[CntNode], front: &[Front], focus: &TaskFocus) -> Actions {
    let found = actions_of(nodes);
    let mut order = default_order(nodes, front, &found);
    let front_of = |j: usize| front.get(found[j].1).copied().unwrap_or_default();
    let score: Vec<u32> = found
        .iter()
        .map(|&(kind, i)| focus_score(nodes, i, kind, focus))
        .collect();
    let later = focus.prefers_later();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (score[a] >= FOCUSED, score[b] >= FOCUSED);
        let by_front = front_of(b).cmp(&front_of(a));
        if by_front.is_ne() {
            return by_front;
        }
        match (fa, fb) {
            (true, true) => score[b].cmp(&score[a]).then(if later {
                found[b].1.cmp(&found[a].1)
            } else {
                found[a].1.cmp(&found[b].1)
            }),
            _ => fb.cmp(&fa),
        }
    });
    build(nodes, &found, &order)
}

/// Every action of `nodes` with its kind, in document order.
fn actions_of(nodes: &[CntNode]) -> Vec<(Kind, usize)> {
    (0..nodes.len())
        .filter_map(|i| Some((kind_of(nodes, i)?, i)))
        .collect()
}

/// Positions in `found`, best first, by the rules of the module docs.
fn default_order(nodes: &[CntNode], front: &[Front], found: &[(Kind, usize)]) -> Vec<usize> {
    // How many actions share each kind: the rarer, the likelier what a task
    // needs (the one sign-in link, not one of forty reply links).
    let mut group: HashMap<Kind, u32> = HashMap::new();
    for (k, _) in found {
        *group.entry(*k).or_default() += 1;
    }
    let mut seen = HashSet::new();
    let repeat: Vec<bool> = found
        .iter()
        .map(|&(_, i)| {
            let n = &nodes[i];
            n.attr("href").is_some() && !seen.insert((n.text.as_str(), n.attr("href")))
        })
        .collect();
    let keys: Vec<(std::cmp::Reverse<Front>, bool, bool, u32, u8)> = found
        .iter()
        .zip(&repeat)
        .map(|(&(k, i), &r)| {
            let f = front.get(i).copied().unwrap_or_default();
            let addressed = k.class == ADDRESSED_LINK;
            (std::cmp::Reverse(f), r, addressed, group[&k], k.class)
        })
        .collect();
    let mut order: Vec<usize> = (0..found.len()).collect();
    // Stable: document order among equals.
    order.sort_by_key(|&j| keys[j]);
    order
}

/// How strongly `focus` points at action `i`.
fn focus_score(nodes: &[CntNode], i: usize, kind: Kind, focus: &TaskFocus) -> u32 {
    let n = &nodes[i];
    let role = match kind.field {
        "" => "link",
        "text" if kind.what == Some(Purpose::Search) => "searchbox",
        "text" => "textbox",
        "select" => "combobox",
        other => other,
    };
    let mut name = n.text.clone();
    for attr in ["aria-label", "title", "placeholder", "value", "alt"] {
        if let Some(v) = n.attr(attr) {
            name.push(' ');
            name.push_str(v);
        }
    }
    if let Some(label) = label_before(nodes, i) {
        name.push(' ');
        name.push_str(&label.text);
    }
    focus.score(role, &name, n.attr("href"), place_of(nodes, i))
}

/// The landmark around node `i`, from its ancestors' tags and roles.
fn place_of(nodes: &[CntNode], i: usize) -> Place {
    let mut at = nodes[i].parent;
    while let Some(p) = at {
        let n = &nodes[p as usize];
        let landmark = n.tag.split(',').rev().chain(n.attr("role"));
        if let Some(place) = landmark.filter_map(Place::of_landmark).next() {
            return place;
        }
        at = n.parent;
    }
    Place::Anywhere
}

/// The actions as ranks, with what pinning them needs.
fn build(nodes: &[CntNode], found: &[(Kind, usize)], order: &[usize]) -> Actions {
    let mut best = vec![NONE; nodes.len()];
    for (r, &j) in order.iter().enumerate() {
        best[found[j].1] = r as u32;
    }
    let own = best.clone();
    // A field's label comes with it: without it, `input* name=s` is a
    // field of unknown use.
    for &(_, i) in found {
        if let Some(label) = label_before_index(nodes, i) {
            best[label] = best[label].min(best[i]);
        }
    }
    // Children follow their parent in preorder: a reverse pass sees every
    // node after its descendants.
    for i in (1..nodes.len()).rev() {
        if let Some(p) = nodes[i].parent {
            let p = p as usize;
            best[p] = best[p].min(best[i]);
        }
    }
    let mut start = Vec::with_capacity(nodes.len() + 1);
    let mut kids = Vec::new();
    for n in nodes {
        start.push(kids.len() as u32);
        for (pos, &c) in n.children.iter().enumerate() {
            let r = best[c as usize];
            if r != NONE {
                kids.push((pos as u32, r));
            }
        }
    }
    start.push(kids.len() as u32);
    Actions {
        own,
        start,
        kids,
        count: order.len() as u32,
    }
}

/// What an action is, for ranking: its class and what it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Kind {
    class: u8,
    /// The first purpose its words say.
    what: Option<Purpose>,
    /// The kind of field (`text`, `checkbox`, `select`, `button`…); empty
    /// for links.
    field: &'static str,
}

/// Classes of actions, best first.
const FIELD_WITH_PURPOSE: u8 = 0;
const NAMED_LINK: u8 = 1;
const FIELD: u8 = 2;
const ADDRESSED_LINK: u8 = 3;

/// What node `i` is as an action, if it is one.
fn kind_of(nodes: &[CntNode], i: usize) -> Option<Kind> {
    let n = &nodes[i];
    if !n.clickable || n.is_text() {
        return None;
    }
    let tag = n.tag.rsplit(',').next().unwrap_or_default();
    let role = n.attr("role").unwrap_or_default();
    let field = match (tag, role) {
        (_, "button" | "textbox" | "searchbox" | "checkbox" | "radio" | "combobox" | "switch") => {
            role_name(role)
        }
        ("input", _) => match n.attr("type").unwrap_or("text") {
            "hidden" => return None,
            "checkbox" => "checkbox",
            "radio" => "radio",
            "submit" | "button" | "image" | "reset" => "button",
            _ => "text",
        },
        ("textarea", _) => "text",
        ("select", _) => "select",
        ("button", _) => "button",
        _ => "",
    };
    if !field.is_empty() {
        let mut purposes = words_of(n);
        if let Some(label) = label_before(nodes, i) {
            purposes = purposes.union(Purposes::of_label(&label.text));
        }
        if n.attr("type") == Some("search") || role == "searchbox" {
            purposes.insert(Purpose::Search);
        }
        let what = purposes.iter().next();
        let class = if what.is_some() {
            FIELD_WITH_PURPOSE
        } else {
            FIELD
        };
        return Some(Kind { class, what, field });
    }
    let href = n.attr("href")?;
    let (what, class) = match words_of(n).iter().next() {
        Some(p) => (p, NAMED_LINK),
        None => (Purposes::of_url(href).iter().next()?, ADDRESSED_LINK),
    };
    Some(Kind {
        class,
        what: Some(what),
        field: "",
    })
}

fn role_name(role: &str) -> &'static str {
    match role {
        "checkbox" | "switch" => "checkbox",
        "radio" => "radio",
        "combobox" => "select",
        "button" => "button",
        _ => "text",
    }
}

/// What a node's own words say: its text and the attributes people read.
fn words_of(n: &CntNode) -> Purposes {
    let mut p = Purposes::of_label(&n.text);
    for name in ["aria-label", "title", "placeholder", "value", "alt", "name"] {
        if let Some(v) = n.attr(name) {
            p = p.union(Purposes::of_label(v));
        }
    }
    p
}

/// The `label` just before node `i` among its siblings.
fn label_before(nodes: &[CntNode], i: usize) -> Option<&CntNode> {
    label_before_index(nodes, i).map(|l| &nodes[l])
}

fn label_before_index(nodes: &[CntNode], i: usize) -> Option<usize> {
    let parent = &nodes[nodes[i].parent? as usize];
    let at = parent.children.iter().position(|&c| c as usize == i)?;
    let prev = *parent.children.get(at.checked_sub(1)?)? as usize;
    nodes[prev]
        .tag
        .split(',')
        .any(|t| t == "label")
        .then_some(prev)
}
