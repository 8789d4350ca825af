//! Where a view spends its budget first: the page's main content, then the
//! rest, then its furniture.
//!
//! A uniform cut spends the budget evenly over the tree, and a page is
//! mostly not its article: on an encyclopedia page the body sat behind a
//! `… 139 hidden` marker while the navboxes under it were shown in full.
//! So every CNT node gets a tier from the core's main-content extraction
//! ([`crate::extract`]) and its furniture classifier (tag, ARIA role and
//! class words), and the budget search ([`compress`](super::compress))
//! maximizes the cut of one tier before it gives anything to the next:
//!
//! 0. [`FRONT`]: an open dialog or popover, modal or not
//!    ([`crate::layers`]): what the page just put in front of the reader,
//!    and with a modal dialog the only part of it that can be used.
//! 1. [`PROSE`]: the extracted article's paragraphs (blocks of text less
//!    than half links, by extraction's own scoring rule), what is inside
//!    them and what holds them.
//! 2. [`CONTENT`]: the rest of the article (tables, link lists, figures),
//!    less what extraction drops inside it (share bars, comments, related
//!    links).
//! 3. [`OTHER`]: everything else, including the nodes on the path from the
//!    root to the article. Each of those always shows the child leading to
//!    it ([`Focus::pin`]), so the article is never behind a marker of its
//!    ancestors, however narrow they are cut.
//! 4. [`FURNITURE`]: navigation, banners, footers, sidebars, navboxes,
//!    cookie banners and what extraction dropped, with their subtrees.
//!
//! Prose comes before the rest of the article because that is where its
//! text is. Measured on the corpus (`tests/cnt_recall.rs`), ranking the
//! article first took the default view from 82.5% to 97.7% of the
//! ground-truth article text shown; ranking its prose before its tables and
//! link lists added most on the long articles that do not fit (an
//! encyclopedia page from 4.8% to 6.9%), where they otherwise share the
//! article's width, and took no page down by more than a point.
//!
//! When extraction finds no article (listings, app shells, home pages),
//! there is no content tier: the page is ranked over its furniture only.
//! Nothing is removed in any tier; markers and `expand` reach all of it.

use super::CntNode;
use crate::extract::{ExtractOptions, Parts, extract_parts};
use crate::layers::Front;
use crate::page::Page;

/// An open dialog or popover.
pub(crate) const FRONT: u8 = 0;
/// The main content's prose: its paragraphs, inside and around.
pub(crate) const PROSE: u8 = 1;
/// The rest of the extracted main content (tables, link lists, figures).
pub(crate) const CONTENT: u8 = 2;
/// Neither content nor furniture, and the ancestors of the content.
pub(crate) const OTHER: u8 = 3;
/// Page furniture.
pub(crate) const FURNITURE: u8 = 4;
/// Tiers in the order the budget serves them.
pub(crate) const TIERS: usize = 5;

/// No pinned child.
pub(crate) const NO_PIN: u32 = u32::MAX;

/// Per CNT node (indexed like [`Cnt::nodes`](super::Cnt::nodes)): its tier,
/// and the position among its children of the one leading to the content.
#[derive(Debug, Clone, Default)]
pub(crate) struct Focus {
    pub tier: Vec<u8>,
    pub pin: Vec<u32>,
}

impl Focus {
    /// The tier of node `i` ([`OTHER`] for a tree built without focus).
    pub(crate) fn tier(&self, i: usize) -> usize {
        self.tier.get(i).map_or(OTHER as usize, |&t| t as usize)
    }

    /// The child position of node `i` a view always shows, if any.
    pub(crate) fn pin(&self, i: usize) -> Option<usize> {
        self.pin
            .get(i)
            .filter(|&&p| p != NO_PIN)
            .map(|&p| p as usize)
    }
}

/// What the tiers are made of: the page's main content and furniture.
/// Found before the CNT is merged, so that extraction's working tables
/// are gone by then: a page's peak is otherwise both at once.
pub(crate) fn parts(page: &Page) -> Parts {
    extract_parts(page, &ExtractOptions::default())
}

/// Tiers and pins for `nodes`, the CNT of `page` in preorder, from its
/// [`parts`]. `front` says which nodes are in an open dialog or popover.
pub(crate) fn assign(page: &Page, parts: Parts, nodes: &[CntNode], front: &[Front]) -> Focus {
    let Parts {
        extraction,
        furniture,
        prose,
    } = parts;
    let has_article = extraction.fallback.is_none();
    let flag = |v: &[bool], m: crate::NodeId| v.get(m.index()).copied().unwrap_or(false);
    let mut tier: Vec<u8> = nodes
        .iter()
        .map(|n| {
            // A node stands for every DOM node merged into it (`body,div`
            // heads the article when the div is its root).
            // Extraction's verdict wins inside the article: what it kept
            // under class words that sound like furniture, it kept for a
            // reason (ranking that last took the article text shown over the
            // corpus from 97.7% to 93.5%).
            if has_article && n.members().any(|m| extraction.is_kept(page, m)) {
                if n.members().any(|m| flag(&prose, m)) {
                    PROSE
                } else {
                    CONTENT
                }
            } else if n
                .members()
                .any(|m| flag(&furniture, m) || has_article && extraction.is_dropped(m))
            {
                FURNITURE
            } else {
                OTHER
            }
        })
        .collect();
    let mut pin = vec![NO_PIN; nodes.len()];
    // Children come after their parent in preorder: a reverse loop sees
    // every node after its children, so "holds content" flows up.
    let is_content = |t: u8| t == PROSE || t == CONTENT;
    let mut holds_content: Vec<bool> = tier.iter().map(|&t| is_content(t)).collect();
    for i in (0..nodes.len()).rev() {
        if is_content(tier[i]) {
            continue;
        }
        if let Some(at) = nodes[i]
            .children
            .iter()
            .position(|&c| holds_content[c as usize])
        {
            holds_content[i] = true;
            pin[i] = at as u32;
            // A path to the article is not furniture, whatever it is called.
            tier[i] = OTHER;
        }
    }
    // A cookie dialog is furniture by its words, but while it is open it
    // is what the page shows first (and, modal, all that can be used).
    for (t, f) in tier.iter_mut().zip(front) {
        if *f != Front::None {
            *t = FRONT;
        }
    }
    Focus { tier, pin }
}
