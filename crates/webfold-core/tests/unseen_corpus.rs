//! The static rules for unseen text on real pages: how much of the text a
//! page renders they take for unseen. Real pages hide little by inline
//! style, and what they hide that way is mostly screen-reader text, so the
//! share must stay small (under 0.5 %); every character counted here is one
//! the views leave out.

use std::collections::BTreeMap;

use webfold_core::Page;
use webfold_core::page::{NodeData, NodeId};

#[test]
fn static_rules_leave_out_under_half_a_percent_of_rendered_text() {
    let pages = webfold_corpus::pages();
    assert!(pages.len() > 500, "{} pages", pages.len());
    let (mut total, mut unseen) = (0usize, 0usize);
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_page: Vec<(usize, String)> = Vec::new();
    for cp in &pages {
        let page = Page::parse(&cp.html());
        let Some(body) = page.body() else { continue };
        let mut here = 0;
        for id in page.subtree(body) {
            let NodeData::Text(t) = &page.node(id).data else {
                continue;
            };
            if !page.is_rendered(id) || in_script(&page, id) {
                continue;
            }
            let chars = t.chars().filter(|c| !c.is_whitespace()).count();
            total += chars;
            if let Some(why) = page.unseen(id) {
                here += chars;
                *by_reason.entry(why.as_str()).or_default() += chars;
            }
        }
        unseen += here;
        if here > 0 {
            by_page.push((here, cp.id.clone()));
        }
    }
    by_page.sort_by(|a, b| b.cmp(a));
    let share = unseen as f64 / total.max(1) as f64;
    println!(
        "static rules: {unseen} of {total} rendered characters unseen ({:.3} %) on {} pages, {} with any",
        share * 100.0,
        pages.len(),
        by_page.len()
    );
    println!("by reason: {by_reason:?}");
    println!("most on: {:?}", &by_page[..by_page.len().min(8)]);
    assert!(share < 0.005, "{:.3} %", share * 100.0);
}

/// Text of a `<script>`, `<style>` or `<noscript>` the markup left in the body.
fn in_script(page: &Page, id: NodeId) -> bool {
    page.parent(id)
        .and_then(|p| page.tag(p))
        .is_some_and(|t| matches!(t, "script" | "style" | "noscript" | "template"))
}
