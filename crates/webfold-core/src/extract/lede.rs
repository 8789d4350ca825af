//! The lede: a standfirst, subtitle or intro that sits between an article's
//! headline and its body, in a wrapper of its own (a header block, an
//! abstract box), where sibling merging under the body's parent cannot see it.
//!
//! The headline marks where the article starts, so what lies between it and
//! the chosen body, and reads as prose, belongs to the article too.

use super::candidate::Selection;
use super::classify::for_each_word;
use super::clean::{mostly_in, same_text};
use super::stats::{Stats, count_chars};
use crate::NodeId;
use crate::page::Page;
use crate::page::tags::{is_heading, is_phrasing};

/// Levels above the chosen root the headline's container may be.
const MAX_LEVELS: usize = 6;
/// Prose (chars) a block between headline and body needs to be a lede.
const MIN_PROSE: f32 = 30.0;
/// Prose (chars) that makes a block between headline and body part of the
/// article even when it also holds images, dates or headings.
const LONG_PROSE: f32 = 400.0;
/// Prose (chars) beside an image below which it is the image's caption.
const CAPTION_PROSE: f32 = 250.0;

/// The heading that states the page's title: the last one in `from..until`
/// (outside furniture).
pub(crate) fn title_heading(
    page: &Page,
    stats: &Stats,
    title: &str,
    from: NodeId,
    until: NodeId,
) -> Option<NodeId> {
    let t_chars = count_chars(title);
    if t_chars == 0 {
        return None;
    }
    let mut found = None;
    let mut i = from.index();
    while i < until.index() {
        let id = NodeId::new(i as u32);
        if stats.excluded[i] {
            i = page.node(id).subtree_end.index();
            continue;
        }
        if matches!(page.tag(id), Some("h1" | "h2")) {
            let c = stats.total(i).chars;
            if c > 0 && c <= 2 * t_chars + 20 && c * 2 + 20 >= t_chars {
                let text = page.text_content(id);
                if same_text(&text, title) || mostly_in(&text, title) {
                    found = Some(id);
                }
            }
            i = page.node(id).subtree_end.index();
            continue;
        }
        i += 1;
    }
    found
}

/// The smallest container of `content` and `heading`, at most `levels`
/// above `content` and below `<body>`.
pub(crate) fn container(
    page: &Page,
    content: NodeId,
    heading: NodeId,
    levels: usize,
) -> Option<NodeId> {
    let body = page.body();
    let mut cur = page.parent(content);
    for _ in 0..levels {
        let p = cur?;
        if Some(p) == body || page.tag(p).is_none() {
            return None;
        }
        if page.is_ancestor_of(p, heading) {
            return Some(p);
        }
        cur = page.parent(p);
    }
    None
}

/// Widen `selection` to take the prose between the title `heading` and the
/// chosen content, when the heading comes first and not far above.
pub(crate) fn gather(
    page: &Page,
    stats: &Stats,
    prose: &[f32],
    selection: Selection,
    heading: NodeId,
) -> Selection {
    let Some(&first) = selection.keep.first() else {
        return selection;
    };
    if heading > first || page.is_ancestor_of(selection.root, heading) {
        return selection;
    }
    let Some(container) = container(page, selection.root, heading, MAX_LEVELS) else {
        return selection;
    };
    // Whole subtrees between the heading and the content, in document order;
    // a mixed one (an image beside its caption, a date beside a lede) is
    // judged by its parts.
    let mut ledes = Vec::new();
    let end = first.index();
    let mut i = page.node(heading).subtree_end.index();
    while i < end {
        let id = NodeId::new(i as u32);
        let sub_end = page.node(id).subtree_end.index();
        if sub_end > end {
            // An ancestor of the content: look inside.
            i += 1;
            continue;
        }
        match judge(page, stats, prose, id) {
            Lede::Yes => ledes.push(id),
            Lede::Mixed => {
                i += 1;
                continue;
            }
            Lede::No => {}
        }
        i = sub_end;
    }
    if ledes.is_empty() {
        return selection;
    }
    let mut keep = ledes;
    if selection.restricted() {
        keep.extend(selection.keep);
    } else {
        keep.push(selection.root);
    }
    Selection {
        top: selection.top,
        root: container,
        keep,
    }
}

/// Class words publishers give a standfirst.
const LEDE_WORDS: &[&str] = &[
    "lead",
    "lede",
    "intro",
    "summary",
    "teaser",
    "standfirst",
    "subtitle",
    "subheadline",
    "deck",
    "dek",
];

/// Whether the element's class says it is the lede.
fn names_a_lede(page: &Page, id: NodeId) -> bool {
    let Some(class) = page.element(id).and_then(|e| e.attr("class")) else {
        return false;
    };
    let mut found = false;
    for token in class.split_ascii_whitespace() {
        for_each_word(token, |w| {
            found |= LEDE_WORDS.iter().any(|l| w.eq_ignore_ascii_case(l));
        });
    }
    found
}

enum Lede {
    Yes,
    No,
    /// Holds prose beside what is not: judge the children.
    Mixed,
}

fn judge(page: &Page, stats: &Stats, prose: &[f32], id: NodeId) -> Lede {
    let i = id.index();
    let Some(tag) = page.tag(id).filter(|_| !stats.excluded[i]) else {
        return Lede::No;
    };
    let c = stats.total(i);
    let p = prose[i];
    if p < MIN_PROSE || c.link_density() >= 0.3 {
        return Lede::No;
    }
    // A heading is a deck only when its class says so: the benchmarks
    // disagree on decks, and most headings up here are kickers and labels.
    if is_heading(tag) {
        return if names_a_lede(page, id) {
            Lede::Yes
        } else {
            Lede::No
        };
    }
    // Key points and tag lists.
    if c.list_chars * 2 > c.chars {
        return Lede::No;
    }
    // A long run of prose is content whatever else it holds.
    let long = p >= LONG_PROSE && p * 2.0 >= c.chars as f32;
    if !long {
        // An image and a sentence or two: a picture and its caption.
        if c.images > 0 && p < CAPTION_PROSE {
            return Lede::No;
        }
        if c.images > 0 || c.times > 0 || c.heading_chars > 0 || p * 2.0 < c.chars as f32 {
            return Lede::Mixed;
        }
    }
    // A dateline ("Updated 0339 GMT, November 19") is mostly digits.
    if is_phrasing(tag) || c.digits * 6 > c.chars {
        return Lede::No;
    }
    Lede::Yes
}
