//! The page model on real and hostile inputs.

use webfold_core::page::NodeData;
use webfold_core::select::UniqueSelectors;
use webfold_core::{NodeId, Page};

/// Every corpus page: parse, then for a spread of its elements the unique
/// selector must select exactly that element (querySelectorAll semantics).
/// Selectors computed for one element only (`covering`, what chunk uses)
/// are the same, and so are those it gives for other elements afterwards.
#[test]
fn unique_selector_selects_exactly_its_element_on_every_corpus_page() {
    let pages = webfold_corpus::pages();
    assert!(pages.len() > 800, "corpus has {} pages", pages.len());
    let mut checked = 0usize;
    for cp in &pages {
        let page = Page::parse(&cp.html());
        let elements: Vec<NodeId> = page
            .descendants(NodeId::DOCUMENT)
            .filter(|&n| page.is_element(n) && !page.node(n).inert)
            .collect();
        assert!(!elements.is_empty(), "{}: no elements", cp.id);
        let mut uniq = UniqueSelectors::new(&page);
        // An even spread of 40 elements per page keeps the test quick; over the
        // corpus that is ~36,000 checks.
        let step = (elements.len() / 40).max(1);
        let mut beyond = UniqueSelectors::covering(&page, &elements[elements.len() / 2..][..1]);
        for &e in elements.iter().step_by(step) {
            let sel = uniq.selector(e).expect("elements have selectors");
            let own = UniqueSelectors::covering(&page, &[e]).selector(e);
            assert_eq!(
                own.as_deref(),
                Some(sel.as_str()),
                "{}: covering {e}",
                cp.id
            );
            assert_eq!(beyond.selector(e), own, "{}: beyond {e}", cp.id);
            let found = page
                .query_all(&sel)
                .unwrap_or_else(|err| panic!("{}: {sel}: {err}", cp.id));
            assert_eq!(found, vec![e], "{}: selector {sel}", cp.id);
            checked += 1;
        }
    }
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn preorder_ids_and_subtree_ranges() {
    let page = Page::parse(
        "<div><p>a<b>b</b></p><p>c</p></div><template><i>x</i></template>\
         <table><tr><td>1<p>stray<td>2</table><ul><li>a<ul><li>b</ul></ul>",
    );
    for (i, node) in page.nodes().iter().enumerate() {
        let id = NodeId::new(i as u32);
        if let Some(p) = node.parent {
            assert!(p < id);
            assert!(page.is_ancestor_of(p, id));
        }
        for c in page.children(id) {
            assert_eq!(page.parent(c), Some(id));
        }
        // The last child is found by climbing, not stored: it must be where
        // the sibling links end.
        assert_eq!(page.last_child(id), page.children(id).last());
        let end = node.subtree_end;
        assert!(
            page.descendants(id)
                .all(|d| page.ancestors(d).any(|a| a == id))
        );
        assert!(end.index() <= page.len());
    }
    let i = page.query_all("i").unwrap();
    assert!(i.is_empty(), "template contents are inert");
    let tpl = page.query("template").unwrap();
    assert_eq!(page.outer_html(tpl), "<template><i>x</i></template>");
}

#[test]
fn hundred_thousand_deep_nesting_parses_and_serializes() {
    let depth = 100_000;
    let html = format!("{}x{}", "<div>".repeat(depth), "</div>".repeat(depth));
    let page = Page::parse(&html);
    let deepest = page
        .nodes()
        .iter()
        .position(|n| matches!(&n.data, NodeData::Text(t) if &**t == "x"))
        .expect("text survives");
    // Like Blink, nesting stops at 512: deeper elements become siblings, and
    // none of them is lost.
    let max_depth = page.nodes().iter().map(|n| n.depth).max().unwrap();
    assert!((500..=520).contains(&max_depth), "{max_depth}");
    assert_eq!(page.query_all("div").unwrap().len(), depth);
    let body = page.body().unwrap();
    let out = page.outer_html(body);
    assert_eq!(out.matches("<div>").count(), depth);
    let mut uniq = UniqueSelectors::new(&page);
    let sel = uniq
        .selector(page.parent(NodeId::new(deepest as u32)).unwrap())
        .unwrap();
    assert_eq!(
        page.query_all(&sel).unwrap(),
        vec![page.parent(NodeId::new(deepest as u32)).unwrap()]
    );
    drop(page); // dropping must not recurse either
}

#[test]
fn broken_and_hostile_input_never_panics() {
    let cases = [
        "",
        "<",
        "</p></div></body>",
        "<table><tr><td>a<td>b</table></td>",
        "<b><i>x</b>y</i>",
        "<svg><foreignObject><p>hi</svg>",
        "<!-- unterminated",
        "<script>if (a < b) { document.write('<div>') }",
        "\u{0}\u{feff}<p>\u{fffd}</p>",
        "<math><annotation-xml encoding=\"text/html\"><div>x</div></annotation-xml></math>",
        "<frameset><frame></frameset>",
    ];
    for c in cases {
        let page = Page::parse(c);
        let _ = page.outer_html(NodeId::DOCUMENT);
    }
    // Random bytes through the decoder and parser.
    let mut state = 0x9e3779b97f4a7c15u64;
    for _ in 0..50 {
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state & 0xff) as u8
            })
            .collect();
        let page = Page::parse_bytes(&bytes, None);
        let _ = page.outer_html(NodeId::DOCUMENT);
    }
}

#[test]
fn static_visibility_rules() {
    let page = Page::parse(
        r#"<body><div hidden><p id=a>x</p></div><p id=b style="display: none">y</p>
        <div style="visibility:hidden"><span id=c>z</span><span id=d style="visibility: visible">w</span></div>
        <nav aria-hidden="true"><a id=e href=/>e</a></nav><input id=f type=hidden>
        <details><summary id=g>s</summary><p id=h>hidden body</p></details><dialog id=i>d</dialog><p id=j>shown</p></body>"#,
    );
    let id = |s: &str| page.query(&format!("#{s}")).unwrap();
    for hidden in ["a", "b", "c", "f", "h", "i"] {
        assert!(!page.is_rendered(id(hidden)), "#{hidden} should be hidden");
    }
    for shown in ["d", "e", "g", "j"] {
        assert!(page.is_rendered(id(shown)), "#{shown} should be rendered");
    }
    assert!(page.static_visibility(id("e")).aria_hidden);
    assert!(page.is_rendered(page.head().map(|_| id("j")).unwrap()));
    assert!(!page.is_rendered(page.head().unwrap()));
}

#[test]
fn fifty_megabyte_page_parses_and_renders_views_within_budget() {
    let row = "<div class=\"card\"><h2>Title</h2><p>Some <b>text</b> with a <a href=\"/x\">link</a>.</p>\
               <ul><li>one</li><li>two</li></ul><script>var a = '<div>';</script></div>\n";
    let mut html = String::from("<!doctype html><html><head><title>big</title></head><body><main>");
    while html.len() < 50 * 1024 * 1024 {
        html.push_str(row);
    }
    html.push_str("</main></body></html>");
    let page = Page::parse(&html);
    assert!(page.len() > 1_000_000);
    let opts = webfold_core::outline::OutlineOptions {
        max_tokens: Some(2000),
        ..Default::default()
    };
    let outline =
        webfold_core::outline::outline(&page, &opts, webfold_core::contract::Ctx::default())
            .expect("outline");
    assert!(outline.tokens <= 2000, "{}", outline.tokens);
    assert!(outline.text.contains("div.card"));
    let md = webfold_core::markdown::to_markdown(&page, NodeId::DOCUMENT, &Default::default());
    assert!(md.contains("## Title"));
}
