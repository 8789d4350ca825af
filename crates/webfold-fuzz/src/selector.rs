//! A CSS selector (the input, read as UTF-8 with replacement characters)
//! against a fixed page.
//!
//! Invariants: parsing answers a selector or an error whose column lies in
//! the selector; `querySelector` is the first of `querySelectorAll`; every
//! match is an element the selector matches, and the engine alone matches
//! the same (the keys that pass over elements first never drop one); each
//! match's unique selector selects it alone; a miss's suggestions parse;
//! chunk and outline's `exclude` answer within budget or with an error.

use std::sync::OnceLock;

use webfold_core::chunk::{self, ChunkOptions, ChunkTarget};
use webfold_core::outline::{self, OutlineOptions};
use webfold_core::select::{Selector, UniqueSelectors};
use webfold_core::tokens;
use webfold_core::{Error, Page};

/// Tags, ids, classes, attributes, forms, tables, nesting and repeated
/// siblings: something for every kind of selector to match.
const PAGE: &str = r##"<!DOCTYPE html><html lang="en"><head><title>Fixture</title>
<base href="/base/"><style>.x{}</style></head>
<body class="home page" data-mode="dark">
<header id="top" class="site-header"><a class="logo" href="/">Logo</a>
<nav aria-label="Main"><ul class="menu"><li class="item active"><a href="/a" hreflang="en-US">A</a></li>
<li class="item"><a href="/b" rel="next noopener">B</a></li><li class="item"><a href="/c">C</a></li>
<li class="item" hidden><a href="/d">D</a></li></ul></nav></header>
<main id="content"><article class="post" lang="fr-CA"><h1 id="t">Titre</h1><p class="lead">One <em>two</em> <strong>three</strong></p>
<p>Plain</p><p></p><img src="a.png" alt=""><figure><img src="b.png" alt="B"><figcaption>Cap</figcaption></figure></article>
<form id="f" action="/s"><label for="q">Q</label><input id="q" name="q" type="search" required placeholder="Find">
<input type="checkbox" checked disabled><select name="s"><option>1</option><option selected>2</option></select>
<textarea readonly>t</textarea><button type="submit">Go</button></form>
<table><thead><tr><th>H1</th><th>H2</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr><tr><td colspan="2">3</td></tr></tbody></table>
<div class="a"><div class="a b"><div class="a b c"><span id="deep">deep</span></div></div></div>
<svg viewBox="0 0 1 1"><circle r="1"/><a href="#x"><text>svg</text></a></svg>
<template><p class="inert">inert</p></template><ol start="3"><li>x</li><li>y</li><li>z</li></ol></main>
<footer id="bottom"><p>&copy; Fixture</p><a href="/privacy">Privacy</a></footer></body></html>"##;

fn page() -> &'static Page {
    static PAGE_ONCE: OnceLock<Page> = OnceLock::new();
    PAGE_ONCE.get_or_init(|| Page::parse(PAGE))
}

/// The same page in quirks mode (no doctype), where classes and ids match
/// without regard to case, with some written in capitals.
fn quirks_page() -> &'static Page {
    static PAGE_ONCE: OnceLock<Page> = OnceLock::new();
    PAGE_ONCE.get_or_init(|| {
        let html = PAGE.replacen("<!DOCTYPE html>", "", 1);
        Page::parse(&format!(
            "{html}<p class=\"Mixed CASE\" ID=Upper Data-X=1>q</p>"
        ))
    })
}

pub fn check(bytes: &[u8]) {
    let source = String::from_utf8_lossy(bytes);
    check_selector(page(), &source);
    if let Ok(sel) = Selector::parse(&source) {
        matches(quirks_page(), &sel);
    }
}

pub fn check_selector(page: &Page, source: &str) {
    match Selector::parse(source) {
        Ok(sel) => matches(page, &sel),
        Err(Error::InvalidSelector { position, .. }) => {
            let chars = source.chars().count();
            assert!(
                (1..=chars + 1).contains(&position),
                "error column {position} outside {source:?} ({chars} characters)"
            );
        }
        Err(e) => panic!("{source:?}: a parse error that is not InvalidSelector: {e}"),
    }
    for all in [false, true] {
        let opts = ChunkOptions {
            all,
            max_tokens: Some(120),
            ..Default::default()
        };
        match chunk::chunk(
            page,
            &ChunkTarget::Selector(source.to_string()),
            &opts,
            webfold_core::contract::Ctx::default(),
        ) {
            Ok(c) => {
                assert_eq!(
                    tokens::count(&c.text, webfold_core::tokens::Encoding::default()),
                    c.tokens
                );
                assert!(c.tokens <= 120, "chunk {source:?}: {} tokens", c.tokens);
            }
            // Suggestions are made where the product makes them: on a miss.
            Err(Error::ElementNotFound { suggestions, .. }) => {
                for s in suggestions {
                    assert!(
                        Selector::parse(&s).is_ok(),
                        "suggestion {s:?} does not parse"
                    );
                }
            }
            Err(_) => {}
        }
    }
    let opts = OutlineOptions {
        exclude: vec![source.to_string()],
        max_tokens: Some(150),
        ..Default::default()
    };
    if let Ok(o) = outline::outline(page, &opts, webfold_core::contract::Ctx::default()) {
        assert_eq!(
            tokens::count(&o.text, webfold_core::tokens::Encoding::default()),
            o.tokens
        );
        assert!(
            o.tokens <= 150,
            "outline excluding {source:?}: {}",
            o.tokens
        );
    }
}

fn matches(page: &Page, sel: &Selector) {
    let all = page.select(sel);
    assert_eq!(
        page.select_first(sel),
        all.first().copied(),
        "{}",
        sel.source()
    );
    assert!(all.windows(2).all(|w| w[0] < w[1]), "not in document order");
    let by_engine: Vec<_> = page
        .descendants(webfold_core::NodeId::DOCUMENT)
        .filter(|&n| sel.matches_by_engine_alone(page, n))
        .collect();
    assert_eq!(
        all,
        by_engine,
        "{}: the keys changed what matches",
        sel.source()
    );
    let mut uniq = UniqueSelectors::new(page);
    for &id in &all {
        assert!(page.is_element(id) && sel.matches(page, id));
        if let Some(u) = uniq.selector(id) {
            let found = page.query_all(&u);
            assert!(
                matches!(&found, Ok(f) if f == &[id]),
                "unique selector {u:?} of {id} finds {found:?}"
            );
        }
    }
}
