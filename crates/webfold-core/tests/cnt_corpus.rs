//! The CNT on real pages: budgets hold, every hidden child is reachable by
//! expanding exactly once, and how much smaller than the HTML it is.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;
use webfold_core::Page;
use webfold_core::cnt::{Cnt, CntId, Cut, ViewOptions};
use webfold_core::tokens::{self, Encoding};

#[test]
fn views_never_exceed_the_budget() {
    let pages = webfold_corpus::sample(10);
    assert!(pages.len() > 80, "{} pages", pages.len());
    let mut cut_views = 0;
    for cp in &pages {
        let page = Page::parse(&cp.html());
        let cnt = Cnt::build(&page);
        for (budget, encoding) in [
            (500, Encoding::O200kBase),
            (2000, Encoding::Cl100kBase),
            (8000, Encoding::O200kBase),
        ] {
            let view = cnt
                .view(
                    &ViewOptions {
                        max_tokens: budget,
                        expand: None,
                        focus: None,
                    },
                    webfold_core::contract::Ctx::new(
                        webfold_core::contract::Surface::Cli,
                        encoding,
                    ),
                )
                .unwrap_or_else(|e| panic!("{} at {budget}: {e}", cp.id));
            assert_eq!(
                view.tokens,
                tokens::count(&view.text, encoding),
                "{}",
                cp.id
            );
            assert!(
                view.tokens <= budget,
                "{}: {} tokens > {budget}",
                cp.id,
                view.tokens
            );
            if view.stats.is_cut() {
                cut_views += 1;
                assert!(
                    view.text.ends_with("`…+N` characters): cnt --expand ID\n"),
                    "{}: cuts are announced",
                    cp.id
                );
                // The first marker's expansion fits the same budget.
                if let Some(marker) = first_marker(&view.text) {
                    let id: CntId = marker.parse().unwrap();
                    let more = cnt
                        .view(
                            &ViewOptions {
                                max_tokens: budget,
                                expand: Some(id),
                                focus: None,
                            },
                            webfold_core::contract::Ctx::new(
                                webfold_core::contract::Surface::Cli,
                                encoding,
                            ),
                        )
                        .unwrap_or_else(|e| panic!("{} expand {marker}: {e}", cp.id));
                    assert!(more.tokens <= budget);
                }
            }
        }
    }
    assert!(cut_views > 100, "only {cut_views} views needed cutting");
}

fn first_marker(text: &str) -> Option<&str> {
    let line = text.lines().find(|l| l.trim_start().starts_with("… "))?;
    Some(line.rsplit('[').next()?.trim_end_matches(']'))
}

/// Follows every marker from the page view, expansion after expansion, and
/// counts how often each CNT node shows up: exactly once each.
fn assert_expand_round_trip(id: &str, cnt: &Cnt, cut: Cut) {
    assert_reach_every_node_once(id, cnt, |scope| {
        cnt.view_with_cut(scope, cut, Encoding::default()).unwrap()
    });
}

/// The round trip over the views `view_of` gives for the page (`None`) and
/// for each marker id, including the later runs of a list split around
/// children a view keeps (`compressed_after`).
fn assert_reach_every_node_once<'c>(
    id: &str,
    cnt: &'c Cnt,
    view_of: impl Fn(Option<&CntId>) -> webfold_core::cnt::View<'c>,
) {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let mut queue: Vec<Option<CntId>> = vec![None];
    let mut views = 0;
    let handles = |n: &Value, queue: &mut Vec<Option<CntId>>| {
        let after = n.get("compressed_after").and_then(Value::as_array);
        for c in n
            .get("compressed")
            .into_iter()
            .chain(after.into_iter().flatten())
        {
            queue.push(Some(c["id"].as_str().unwrap().parse().unwrap()));
        }
    };
    while let Some(scope) = queue.pop() {
        views += 1;
        let view = view_of(scope.as_ref());
        let json: Value = serde_json::from_str(&view.to_json()).expect("valid JSON");
        handles(&json, &mut queue);
        let mut stack: Vec<&Value> = json["nodes"].as_array().unwrap().iter().collect();
        while let Some(n) = stack.pop() {
            *seen.entry(n["id"].as_u64().unwrap()).or_default() += 1;
            handles(n, &mut queue);
            stack.extend(n["children"].as_array().unwrap());
        }
    }
    assert_eq!(
        seen.len(),
        cnt.nodes().len(),
        "{id}: every node is reachable"
    );
    for n in cnt.nodes() {
        assert_eq!(
            seen.get(&(n.id.get() as u64)),
            Some(&1),
            "{id}: node {} shown once",
            n.id
        );
    }
    assert!(
        views > 1 || cnt.nodes().len() < 3,
        "{id}: nothing was compressed"
    );
}

#[test]
fn every_hidden_child_is_reachable_by_expanding_and_none_twice() {
    for cp in webfold_corpus::sample(60) {
        let cnt = Cnt::build(&Page::parse(&cp.html()));
        for width in [0, 1, 4] {
            assert_expand_round_trip(&cp.id, &cnt, Cut::level(width));
        }
    }
}

/// Budgeted views rank the article before the rest of the page and show
/// the path to it between two markers: expanding still reaches every node
/// exactly once.
#[test]
fn focused_views_reach_every_node_by_expanding_and_none_twice() {
    let (mut checked, mut pinned) = (0, 0);
    for cp in webfold_corpus::sample(30) {
        let cnt = Cnt::build(&Page::parse(&cp.html()));
        let opts = |expand: Option<&CntId>| ViewOptions {
            focus: None,
            max_tokens: 1500,
            expand: expand.copied(),
        };
        let page_view = cnt
            .view(&opts(None), webfold_core::contract::Ctx::default())
            .unwrap();
        if !page_view.stats.is_cut() {
            continue;
        }
        checked += 1;
        pinned += page_view.to_json().contains("\"compressed_after\"") as usize;
        assert_reach_every_node_once(&cp.id, &cnt, |scope| {
            cnt.view(&opts(scope), webfold_core::contract::Ctx::default())
                .unwrap_or_else(|e| panic!("{} {scope:?}: {e}", cp.id))
        });
    }
    println!("{checked} cut page views, {pinned} with a list split around the article");
    assert!(
        checked > 5 && pinned > 0,
        "{checked} cut views, {pinned} split"
    );
}

/// CNT tokens against raw HTML tokens, and build + view speed. Run with
/// `--nocapture` to read the figures; the assertions hold the floor.
#[test]
fn measure_cnt_against_raw_html() {
    let pages = webfold_corpus::sample(10);
    let (mut raw, mut full, mut budgeted, mut bytes) = (0usize, 0usize, 0usize, 0usize);
    let mut secs = 0.0;
    let mut ratios = Vec::new();
    for cp in &pages {
        let html = cp.html();
        let page = Page::parse(&html);
        let start = Instant::now();
        let cnt = Cnt::build(&page);
        let view = cnt
            .view(
                &ViewOptions::default(),
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
        secs += start.elapsed().as_secs_f64();
        let whole = cnt
            .view_with_cut(None, Cut::NONE, Encoding::default())
            .unwrap();
        let r = tokens::count_default(&html);
        raw += r;
        full += whole.tokens;
        budgeted += view.tokens;
        bytes += html.len();
        ratios.push(whole.tokens as f64 / r.max(1) as f64);
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "{} pages: raw HTML {raw} tokens, CNT uncut {full} ({:.1}%), CNT at 8000 {budgeted} ({:.1}%); \
         median uncut/raw {:.1}%; build+view {:.1} MB/s",
        pages.len(),
        100.0 * full as f64 / raw as f64,
        100.0 * budgeted as f64 / raw as f64,
        100.0 * ratios[ratios.len() / 2],
        bytes as f64 / 1e6 / secs,
    );
    assert!(
        full * 3 < raw,
        "the uncut CNT should be well under a third of the HTML"
    );
}
