//! Removing what is not article inside the chosen container: furniture by
//! tag/role/class, and Readability's "conditional cleaning" of containers
//! that look like link lists, image galleries, forms or ads — decided
//! bottom-up, so a container is judged after its inner junk is gone.

use super::candidate::Selection;
use super::classify::{ClassSignal, Classes, Kind};
use super::stats::{Counts, Stats, count_chars};
use crate::NodeId;
use crate::page::Page;

/// Tags whose elements are judged by their statistics.
fn judged(tag: &str) -> bool {
    matches!(
        tag,
        "div"
            | "section"
            | "ul"
            | "ol"
            | "dl"
            | "table"
            | "form"
            | "fieldset"
            | "figure"
            | "center"
    )
}

/// Longest subtree scanned to tell a data table from a layout table; bigger
/// ones are taken as data (their rows are content either way).
const TABLE_SCAN_LIMIT: usize = 4000;

/// Data tables (rows of facts) are content; layout tables are judged like divs.
pub(crate) fn is_data_table(page: &Page, table: NodeId) -> bool {
    let e = match page.element(table) {
        Some(e) => e,
        None => return false,
    };
    if e.attr("role")
        .is_some_and(|r| r.eq_ignore_ascii_case("presentation"))
    {
        return false;
    }
    if e.attr("summary").is_some_and(|s| !s.trim().is_empty()) {
        return true;
    }
    let end = page.node(table).subtree_end.index();
    if end - table.index() > TABLE_SCAN_LIMIT {
        return true;
    }
    let mut rows = 0usize;
    let mut max_cols = 0usize;
    for d in page.descendants(table) {
        match page.tag(d) {
            Some("table") => return false,
            Some("caption") | Some("thead") | Some("tfoot") | Some("th") | Some("colgroup")
            | Some("col") => {
                return true;
            }
            Some("tr") => {
                rows += 1;
                let cols = page
                    .element_children(d)
                    .filter(|&c| matches!(page.tag(c), Some("td") | Some("th")))
                    .count();
                max_cols = max_cols.max(cols);
            }
            _ => {}
        }
    }
    rows >= 10 || max_cols > 4 || rows * max_cols > 10
}

/// Readability's `_cleanConditionally`, on bottom-up sums.
fn looks_like_junk(
    page: &Page,
    id: NodeId,
    c: &Counts,
    signal: ClassSignal,
    in_figure: bool,
) -> bool {
    let Some(e) = page.element(id) else {
        return false;
    };
    let tag = e.local_name();
    // Figures are illustrations and their captions: an article reads without
    // them (AEB's bodies leave them out, as trafilatura does). Code listings
    // and tables in figures are content.
    if matches!(tag, "figure" | "figcaption") {
        return c.code == 0 && c.tables == 0;
    }
    if !judged(tag) {
        return false;
    }
    if c.code > 0 {
        return false;
    }
    if tag == "table" && is_data_table(page, id) {
        return false;
    }
    let weight = signal.weight();
    if weight < 0.0 {
        return true;
    }
    if c.commas >= 10 {
        return false;
    }
    let is_list = matches!(tag, "ul" | "ol" | "dl")
        || (c.chars > 0 && c.list_chars as f32 / c.chars as f32 > 0.9);
    let p = c.paragraphs as f32;
    let img = c.images as f32;
    let li = c.list_items as f32 - 100.0;
    let heading_density = if c.chars == 0 {
        0.0
    } else {
        c.heading_chars as f32 / c.chars as f32
    };
    let ld = c.link_density();
    let len = c.chars;
    let remove = (img > 1.0 && p / img < 0.5 && !in_figure)
        || (!is_list && li > p)
        || (c.controls as f32 > (p / 3.0).floor())
        || (!is_list
            && heading_density < 0.9
            && len < 20
            && (img == 0.0 || img > 2.0)
            && !in_figure)
        || (!is_list && weight < 25.0 && ld > 0.2)
        || (weight >= 25.0 && ld > 0.5)
        || (c.embeds == 1 && len < 65)
        || c.embeds > 1;
    if remove && is_list {
        // A list of images (a gallery in the article) stays.
        if c.images > 0 && c.images >= c.list_items && ld < 0.5 {
            return false;
        }
    }
    remove
}

/// What to drop inside the selection's root: every excluded subtree
/// (hidden, scripts, furniture), the root's children not kept, and junk
/// containers. The top candidate itself is never dropped. Returns dropped
/// subtree roots in document order.
pub(crate) fn drops(
    page: &Page,
    classes: &Classes,
    furniture: impl Fn(Kind) -> bool,
    stats: &Stats,
    selection: &Selection,
    prose: &[f32],
    title: Option<&str>,
) -> Vec<NodeId> {
    let root = selection.root;
    // The candidate was chosen for its prose: an element inside holding
    // half of it is the article's own wrapper, whatever its class says.
    let core = 0.5 * prose[selection.top.index()];
    let keep = &selection.keep;
    let title = title.map(|t| (t, count_chars(t))).filter(|&(_, n)| n > 0);
    let start = root.index();
    let end = page.node(root).subtree_end.index();
    // Inside a <figure> (images there are illustrations, not a gallery of links).
    let mut in_figure = vec![false; end - start];
    for i in start..end {
        let id = NodeId(i as u32);
        let own = page.tag(id) == Some("figure");
        let parent = page.parent(id).map(|p| p.index()).filter(|&p| p >= start);
        in_figure[i - start] = own || parent.is_some_and(|p| in_figure[p - start]);
    }
    let restrict_children = selection.restricted();
    let (_, mut dropped) = stats.accumulate(page, root, |id, c| {
        if id == selection.top {
            return false;
        }
        if restrict_children && page.parent(id) == Some(root) && keep.binary_search(&id).is_err() {
            return true;
        }
        if furniture(classes.kinds[id.index()]) {
            return true;
        }
        if core > 0.0 && prose[id.index()] >= core {
            return false;
        }
        if let Some((t, t_chars)) = title
            && c.chars * 5 >= t_chars * 4
            && c.chars * 4 <= t_chars * 5
            && same_text(&page.text_content(id), t)
        {
            return true;
        }
        if let Some((t, _)) = title
            && matches!(page.tag(id), Some("h1") | Some("h2"))
            && c.chars < 400
            && mostly_in(&page.text_content(id), t)
        {
            return true;
        }
        if c.chars <= CROSS_LINK_MAX_CHARS
            && matches!(
                page.tag(id),
                Some("p" | "div" | "li" | "h2" | "h3" | "h4" | "h5" | "h6" | "strong" | "b")
            )
            && is_cross_link(&page.text_content(id), c.link_density())
        {
            return true;
        }
        looks_like_junk(
            page,
            id,
            c,
            classes.signals[id.index()],
            in_figure[id.index() - start],
        )
    });
    // Text nodes directly under a restricted root are not part of the kept siblings.
    if restrict_children {
        for c in page.children(root) {
            if !page.is_element(c) && !stats.excluded[c.index()] {
                dropped.push(c);
            }
        }
    }
    // Excluded subtrees (scripts, hidden, furniture) inside the root.
    for i in start + 1..end {
        let p = page
            .parent(NodeId(i as u32))
            .map(|p| p.index())
            .unwrap_or(0);
        if stats.excluded[i] && !stats.excluded[p] {
            dropped.push(NodeId(i as u32));
        }
    }
    dropped.sort_unstable();
    dropped.dedup();
    // Keep only the outermost of nested drops.
    let mut out: Vec<NodeId> = Vec::with_capacity(dropped.len());
    for d in dropped {
        if let Some(&last) = out.last()
            && page.is_ancestor_of(last, d)
        {
            continue;
        }
        out.push(d);
    }
    out
}

/// Longest block (non-whitespace chars) taken for a "read also" pointer.
const CROSS_LINK_MAX_CHARS: u32 = 160;

/// Openers of pointers to other pages that newsrooms put between paragraphs
/// ("Lea también: …", "Read more: …") and labels of the link blocks after
/// an article, lower case.
const CROSS_LINK_OPENERS: &[&str] = &[
    "read also",
    "read more",
    "see also",
    "related",
    "you might also like",
    "you may also like",
    "more on this",
    "lea también",
    "lea además",
    "lea más",
    "lea",
    "lee también",
    "leia também",
    "leia mais",
    "lire aussi",
    "à lire aussi",
    "voir aussi",
    "leggi anche",
    "czytaj też",
    "czytaj także",
    "lesen sie auch",
    "lesen sie mehr",
    "auch interessant",
    "das könnte sie auch interessieren",
    "schon gelesen",
    "weitere artikel",
    "mehr zum thema",
    "siehe auch",
];

/// A "read also" pointer: a known opener followed by a colon or a link, or
/// standing alone as a label.
fn is_cross_link(text: &str, link_density: f32) -> bool {
    let t = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    CROSS_LINK_OPENERS.iter().any(|o| {
        let Some(rest) = t.strip_prefix(o) else {
            return false;
        };
        if rest.starts_with(char::is_alphanumeric) {
            return false;
        }
        let rest = rest.trim_start();
        rest.is_empty()
            || rest.starts_with([':', '?', '!', '»', '|'])
            || link_density >= 0.5
            || rest.chars().all(|c| !c.is_alphanumeric())
    })
}

fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

/// A heading that says the title again in other words: three quarters of
/// its words are the title's (Readability's `_headerDuplicatesTitle` test).
fn mostly_in(heading: &str, title: &str) -> bool {
    let title_words: std::collections::HashSet<String> = words(title).collect();
    let (mut all, mut shared) = (0usize, 0usize);
    for w in words(heading) {
        all += 1;
        shared += usize::from(title_words.contains(&w));
    }
    all >= 2 && shared * 4 >= all * 3
}

/// Headline repeated in the body (the header shows it already).
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (normalize(a), normalize(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    a == b
        || (a.len() >= 20 && b.contains(&a))
        || (b.len() >= 20 && a.contains(&b) && b.len() * 4 >= a.len() * 3)
}
