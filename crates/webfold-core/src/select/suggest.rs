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
    let wanted_lc = wanted.trim().to_lowercase();
    let mut scored: Vec<(usize, String)> = candidates
        .into_iter()
        .map(|c| (levenshtein(&wanted_lc, &c.to_lowercase()), c))
        .collect();
    scored.sort();
    scored.into_iter().take(limit).map(|(_, c)| c).collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}
