//! "Did you mean" for selectors that match nothing.

use std::collections::HashSet;

use crate::page::{NodeId, Page};

/// Up to `limit` selectors that exist on the page and are closest (by edit
/// distance) to `wanted`: ids, `tag.class` pairs, classes and tags.
pub fn suggest_selectors(page: &Page, wanted: &str, limit: usize) -> Vec<String> {
    let mut candidates: HashSet<String> = HashSet::new();
    for n in page.descendants(NodeId::DOCUMENT) {
        if page.node(n).inert {
            continue;
        }
        let Some(e) = page.element(n) else { continue };
        let tag = e.local_name();
        candidates.insert(tag.to_string());
        if let Some(id) = e.id() {
            candidates.insert(format!("#{id}"));
            candidates.insert(format!("{tag}#{id}"));
        }
        for c in e.classes() {
            candidates.insert(format!(".{c}"));
            candidates.insert(format!("{tag}.{c}"));
        }
        if candidates.len() > 20_000 {
            break;
        }
    }
    nearest(&wanted.trim().to_lowercase(), candidates, limit)
}

/// The `limit` candidates nearest to `wanted`, by (distance, candidate).
///
/// A candidate farther than the farthest kept one is dropped as soon as that
/// shows, so a long miss on a page with thousands of classes stays cheap.
fn nearest(wanted: &str, candidates: HashSet<String>, limit: usize) -> Vec<String> {
    let wanted: Vec<char> = wanted.chars().collect();
    let mut best: Vec<(usize, String)> = Vec::with_capacity(limit + 1);
    let mut edit = Edit::default();
    for c in candidates {
        if limit == 0 {
            break;
        }
        let bound = (best.len() == limit).then(|| best[limit - 1].0);
        let Some(d) = edit.distance(&wanted, &c.to_lowercase(), bound) else {
            continue;
        };
        let item = (d, c);
        let at = best.partition_point(|b| b < &item);
        if at < limit {
            best.insert(at, item);
            best.truncate(limit);
        }
    }
    best.into_iter().map(|(_, c)| c).collect()
}

/// Levenshtein distance with buffers kept between calls.
#[derive(Default)]
struct Edit {
    b: Vec<char>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

impl Edit {
    /// The edit distance from `a` to `b`, or `None` once it must exceed
    /// `bound`.
    fn distance(&mut self, a: &[char], b: &str, bound: Option<usize>) -> Option<usize> {
        self.b.clear();
        self.b.extend(b.chars());
        let b = &self.b;
        let bound = bound.unwrap_or(usize::MAX);
        if a.len().abs_diff(b.len()) > bound {
            return None;
        }
        self.prev.clear();
        self.prev.extend(0..=b.len());
        self.cur.clear();
        self.cur.resize(b.len() + 1, 0);
        for (i, &ac) in a.iter().enumerate() {
            self.cur[0] = i + 1;
            let mut row_min = self.cur[0];
            for j in 1..=b.len() {
                let cost = usize::from(ac != b[j - 1]);
                let v = (self.prev[j] + 1)
                    .min(self.cur[j - 1] + 1)
                    .min(self.prev[j - 1] + cost);
                self.cur[j] = v;
                row_min = row_min.min(v);
            }
            // Every later row is at least this row's least entry.
            if row_min > bound {
                return None;
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
        }
        Some(self.prev[b.len()]).filter(|&d| d <= bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn a_bound_only_drops_what_lies_beyond_it() {
        let words = [
            "",
            "a",
            "nav",
            "navbar",
            "#main",
            "div.nav-item",
            "naïve",
            "main",
        ];
        let mut edit = Edit::default();
        for a in words {
            let ac: Vec<char> = a.chars().collect();
            for b in words {
                let d = plain(a, b);
                assert_eq!(edit.distance(&ac, b, None), Some(d), "{a} → {b}");
                for bound in 0..8 {
                    let want = (d <= bound).then_some(d);
                    assert_eq!(
                        edit.distance(&ac, b, Some(bound)),
                        want,
                        "{a} → {b} ≤ {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_nearest_are_the_first_of_all_sorted_by_distance_then_name() {
        let candidates: HashSet<String> = [
            "nav", "main", ".nav", "#nav", "a", "navbar", "span", "ul.nav",
        ]
        .map(String::from)
        .into();
        for wanted in ["nav", ".nva", "xyz", "", "navigation"] {
            let mut all: Vec<(usize, String)> = candidates
                .iter()
                .map(|c| (plain(wanted, c), c.clone()))
                .collect();
            all.sort();
            for limit in 0..5 {
                let want: Vec<String> = all.iter().take(limit).map(|(_, c)| c.clone()).collect();
                assert_eq!(
                    nearest(wanted, candidates.clone(), limit),
                    want,
                    "{wanted} {limit}"
                );
            }
        }
    }
}
