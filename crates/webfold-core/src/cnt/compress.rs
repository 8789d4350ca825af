//! Compression: which children and how much text a view shows, and the search
//! for the largest cut that fits a token budget.

use super::id::HiddenRange;
use super::{Cnt, CntNode, CutStats, render};
use crate::Error;
use crate::tokens::{self, Encoding};

/// How much of the tree a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// A node with more children than this shows its first `ceil(width/2)`
    /// and last `floor(width/2)` children around one marker.
    pub width: usize,
    /// Texts and attribute values longer than this many characters are cut.
    pub text_limit: usize,
    /// Lists at depths below this one get one more child than `width`: how
    /// the search spends a budget that lies between two widths, giving the
    /// overview (the shallow levels) the extra room first.
    pub wide_depths: usize,
}

/// Characters of text a view may show per unit of width. The search moves
/// both together so that structure and text shrink in step: at width 10 a
/// text shows ~440 characters, at width 50 ~2,000.
const TEXT_CHARS_PER_LEVEL: usize = 40;

/// See [`fit`]: o200k and cl100k average 3–5 bytes per token on web text.
const MAX_BYTES_PER_TOKEN: usize = 32;

impl Cut {
    /// Nothing cut.
    pub const NONE: Cut = Cut {
        width: usize::MAX,
        text_limit: usize::MAX,
        wide_depths: 0,
    };

    /// The cut at `level` of the budget search: width `level`, text
    /// `40 × (level + 1)` characters.
    pub fn level(level: usize) -> Cut {
        Cut {
            width: level,
            text_limit: TEXT_CHARS_PER_LEVEL.saturating_mul(level + 1),
            wide_depths: 0,
        }
    }

    /// This cut with width + 1 for lists at depths below `depths`.
    pub fn widened(self, depths: usize) -> Cut {
        Cut {
            wide_depths: depths,
            ..self
        }
    }

    /// The split of the children an expanded marker shows: at least one,
    /// so that expanding always makes progress.
    pub(crate) fn split_expanded(&self, len: usize) -> Option<(usize, usize)> {
        Cut {
            width: self.width.max(1),
            ..*self
        }
        .split(len, 0)
    }

    /// Where a list of `len` children at `depth` is split:
    /// `(head_end, tail_start)`, the hidden ones being `head_end..tail_start`.
    pub(crate) fn split(&self, len: usize, depth: usize) -> Option<(usize, usize)> {
        let width = if depth < self.wide_depths {
            self.width.saturating_add(1)
        } else {
            self.width
        };
        if len <= width {
            return None;
        }
        let head = width.div_ceil(2);
        let tail = width / 2;
        Some((head, len - tail))
    }
}

/// What a view shows: the whole page, a node's subtree, or the children
/// behind a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Whole,
    Node(u32),
    Range { parent: u32, first: u32, last: u32 },
}

impl Scope {
    pub(crate) fn label(&self, cnt: &Cnt) -> String {
        match *self {
            Scope::Whole => "page".to_string(),
            Scope::Node(i) => cnt.nodes[i as usize].id.to_string(),
            Scope::Range {
                parent,
                first,
                last,
            } => HiddenRange {
                parent: cnt.nodes[parent as usize].id,
                first,
                last,
            }
            .to_string(),
        }
    }

    /// The hidden part of the top-level list of a range scope.
    pub(crate) fn top_hidden(&self, cnt: &Cnt, cut: Cut) -> Option<HiddenRange> {
        let Scope::Range {
            parent,
            first,
            last,
        } = *self
        else {
            return None;
        };
        let (h, t) = cut.split_expanded((last - first + 1) as usize)?;
        Some(HiddenRange {
            parent: cnt.nodes[parent as usize].id,
            first: first + h as u32,
            last: first + t as u32 - 1,
        })
    }
}

/// A step of the walk over what a view shows, in document order.
pub(crate) enum Event<'c> {
    /// A node; `hidden` is the part of its children behind a marker.
    Open {
        node: &'c CntNode,
        depth: usize,
        hidden: Option<HiddenRange>,
    },
    /// After a node's shown descendants.
    Close { node: &'c CntNode },
    /// The marker standing for hidden children, at their depth.
    Marker { hidden: HiddenRange, depth: usize },
}

struct Frame<'c> {
    list: &'c [u32],
    /// Position of `list[0]` among the owner's children (ranges start late).
    base: u32,
    pos: usize,
    split: Option<(usize, usize)>,
    owner: Option<&'c CntNode>,
    depth: usize,
}

/// Calls `f` for every shown node and marker: an explicit stack, no recursion.
pub(crate) fn walk<'c>(cnt: &'c Cnt, scope: Scope, cut: Cut, f: &mut dyn FnMut(Event<'c>)) {
    let top = match scope {
        Scope::Whole => Frame {
            list: &[0],
            base: 0,
            pos: 0,
            split: None,
            owner: None,
            depth: 0,
        },
        Scope::Node(i) => Frame {
            list: single(cnt, i),
            base: 0,
            pos: 0,
            split: None,
            owner: None,
            depth: 0,
        },
        Scope::Range {
            parent,
            first,
            last,
        } => {
            let p = &cnt.nodes[parent as usize];
            let list = &p.children[first as usize..=last as usize];
            Frame {
                list,
                base: first,
                pos: 0,
                split: cut.split_expanded(list.len()),
                owner: Some(p),
                depth: 0,
            }
        }
    };
    let mut stack = vec![top];
    while let Some(fr) = stack.last_mut() {
        if fr.pos == fr.list.len() {
            let owner = fr.owner;
            stack.pop();
            // Frames below the top one belong to an opened node.
            if let Some(node) = owner
                && !stack.is_empty()
            {
                f(Event::Close { node });
            }
            continue;
        }
        if let Some((h, t)) = fr.split
            && fr.pos == h
        {
            if let Some(owner) = fr.owner {
                let hidden = HiddenRange {
                    parent: owner.id,
                    first: fr.base + h as u32,
                    last: fr.base + t as u32 - 1,
                };
                f(Event::Marker {
                    hidden,
                    depth: fr.depth,
                });
            }
            fr.pos = t;
            continue;
        }
        let idx = fr.list[fr.pos];
        fr.pos += 1;
        let depth = fr.depth;
        let node = &cnt.nodes[idx as usize];
        let split = cut.split(node.children.len(), depth + 1);
        let hidden = split.map(|(h, t)| HiddenRange {
            parent: node.id,
            first: h as u32,
            last: t as u32 - 1,
        });
        f(Event::Open {
            node,
            depth,
            hidden,
        });
        if node.children.is_empty() {
            f(Event::Close { node });
        } else {
            stack.push(Frame {
                list: &node.children,
                base: 0,
                pos: 0,
                split,
                owner: Some(node),
                depth: depth + 1,
            });
        }
    }
}

/// A one-element slice holding node index `i`, borrowed from the tree.
fn single(cnt: &Cnt, i: u32) -> &[u32] {
    let Some(p) = cnt.nodes[i as usize].parent else {
        return &[0];
    };
    let siblings = &cnt.nodes[p as usize].children;
    match siblings.iter().position(|&c| c == i) {
        Some(at) => &siblings[at..=at],
        None => &[0],
    }
}

/// `text` cut to at most `limit` characters (at a word break when one is
/// near), and how many characters were left out.
pub(crate) fn cut_text(text: &str, limit: usize) -> (&str, usize) {
    let Some((byte, _)) = text.char_indices().nth(limit) else {
        return (text, 0);
    };
    let mut shown = &text[..byte];
    if let Some(space) = shown.rfind(' ')
        && shown[space..].chars().count() <= 16
    {
        shown = &shown[..space];
    }
    let shown = shown.trim_end();
    let hidden = text[shown.len()..].chars().count();
    (shown, hidden)
}

/// The result of the budget search.
pub(crate) struct Fitted {
    pub cut: Cut,
    pub text: String,
    pub tokens: usize,
    pub stats: CutStats,
}

/// The largest level of [`Cut::level`] whose rendering fits `budget`.
///
/// Galloping up from level 0 and then bisecting keeps every rendering we
/// tokenize within a small factor of the budget, so a 3 MB page costs a few
/// budget-sized renders instead of tokenizing its whole tree repeatedly.
pub(crate) fn fit(cnt: &Cnt, scope: Scope, budget: usize, enc: Encoding) -> Result<Fitted, Error> {
    // No tokenizer packs more than this many bytes into a token on text like
    // ours; a rendering past it is rejected unread. Rejecting a cut that would
    // have fit only costs detail, never the budget: fits are always counted.
    let max_bytes = budget
        .saturating_mul(MAX_BYTES_PER_TOKEN)
        .saturating_add(1024);
    let attempt = |cut: Cut| -> (Fitted, bool) {
        match render::text_capped(cnt, scope, cut, max_bytes) {
            Some((text, stats)) => {
                let tokens = tokens::count(&text, enc);
                let fits = tokens <= budget;
                (
                    Fitted {
                        cut,
                        text,
                        tokens,
                        stats,
                    },
                    fits,
                )
            }
            None => (
                Fitted {
                    cut,
                    text: String::new(),
                    tokens: usize::MAX,
                    stats: CutStats::default(),
                },
                false,
            ),
        }
    };
    let top = max_level(cnt);
    let (full, fits) = attempt(Cut::NONE);
    if fits {
        return Ok(full);
    }
    let (mut best, fits) = attempt(Cut::level(0));
    if !fits {
        let (text, _) = render::text(cnt, scope, Cut::level(0));
        return Err(Error::BudgetTooSmall {
            what: format!("the smallest CNT of {}", scope.label(cnt)),
            needed: tokens::count(&text, enc),
            max_tokens: budget,
            advice: "raise --max-tokens, or expand a smaller part".to_string(),
        });
    }
    // Invariant: level `lo` fits, level `hi` does not (`top` shows everything).
    let mut lo = 0usize;
    let mut hi = top;
    let mut step = 1usize;
    while lo + step < hi {
        let (f, fits) = attempt(Cut::level(lo + step));
        if !fits {
            hi = lo + step;
            break;
        }
        lo += step;
        best = f;
        step *= 2;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let (f, fits) = attempt(Cut::level(mid));
        if fits {
            lo = mid;
            best = f;
        } else {
            hi = mid;
        }
    }
    // Width `lo + 1` does not fit; widen the shallowest lists by one as deep
    // as the budget allows. Output grows with width to the power of depth,
    // so without this a page could get half its budget.
    let base = best.cut;
    let (mut lo, mut hi) = (0usize, max_depth(cnt) + 2);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let (f, fits) = attempt(base.widened(mid));
        if fits {
            lo = mid;
            best = f;
        } else {
            hi = mid;
        }
    }
    Ok(best)
}

fn max_depth(cnt: &Cnt) -> usize {
    let mut depth = vec![0usize; cnt.nodes.len()];
    let mut deepest = 0;
    for (i, n) in cnt.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            depth[i] = depth[p as usize] + 1;
            deepest = deepest.max(depth[i]);
        }
    }
    deepest
}

/// The lowest level at which nothing is cut anywhere in the tree.
fn max_level(cnt: &Cnt) -> usize {
    let mut widest = 0usize;
    let mut longest = 0usize;
    for n in &cnt.nodes {
        widest = widest.max(n.children.len());
        longest = longest.max(n.text.len());
        for (_, v) in &n.attrs {
            longest = longest.max(v.len());
        }
    }
    // Byte lengths bound character counts from above.
    widest.max(longest / TEXT_CHARS_PER_LEVEL) + 1
}
