//! Outline and chunk views (seed 000): rules on hand-written pages, goldens on
//! corpus pages, and the budget promise over a corpus sample.
//!
//! Goldens live in tests/golden/outline_*.txt; `UPDATE_GOLDEN=1` rewrites them.

use std::path::PathBuf;

use webfold_core::chunk::{ChunkOptions, ChunkTarget, Chunks, chunk};
use webfold_core::contract::{Handle, Hint, Surface};
use webfold_core::outline::{Outline, OutlineOptions, outline};
use webfold_core::tokens::{self, Encoding};
use webfold_core::{Error, NodeId, Page};

const SEED_PAGE: &str = r#"<!DOCTYPE html><html><head><title>Acme</title>
<style>body { color: red }</style><script>var hidden = "script text";</script></head>
<body>
  <header id="main-header"><h1>Acme</h1></header>
  <nav class="navbar"><a href="/">Home</a> <a href="/p">Pricing</a> <a href="/c">Contact</a></nav>
  <main id="content">
    <section class="hero"><h1>Welcome to Our Platform</h1><p>The best solution for your needs</p>
      <button class="cta-btn">Get Started</button></section>
    <section class="features">
      <div class="feature"><h3>Fast</h3></div><div class="feature"><h3>Safe</h3></div>
      <div class="feature"><h3>Cheap</h3></div><div class="feature"><h3>Small</h3></div>
      <div class="feature"><h3>Open</h3></div><div class="feature"><h3>Kind</h3></div>
    </section>
    <section class="pricing"><p>Plans from $9</p></section>
    <div hidden><p>secret hidden text</p></div>
    <template><p>template text</p></template>
    <noscript><p>noscript text</p></noscript>
  </main>
  <footer id="main-footer">© 2024 Acme</footer>
</body></html>"#;

fn outline_of(html: &str, opts: &OutlineOptions) -> Outline {
    outline(
        &Page::parse(html),
        opts,
        webfold_core::contract::Ctx::default(),
    )
    .expect("outline")
}

fn budget(n: usize) -> OutlineOptions {
    OutlineOptions {
        max_tokens: Some(n),
        ..Default::default()
    }
}

fn select(source: &str) -> ChunkTarget {
    ChunkTarget::Selector(source.to_string())
}

fn chunk_of(
    page: &Page,
    target: &ChunkTarget,
    all: bool,
    max_tokens: Option<usize>,
) -> Result<Chunks, Error> {
    chunk(
        page,
        target,
        &ChunkOptions {
            all,
            max_tokens,
            ..Default::default()
        },
        webfold_core::contract::Ctx::default(),
    )
}

// ---------------------------------------------------------------- outline

#[test]
fn outline_draws_the_seed_tree_with_labels_counts_and_previews() {
    let o = outline_of(
        SEED_PAGE,
        &OutlineOptions {
            max_depth: 2,
            ..Default::default()
        },
    );
    // Two h1 on the page: that label carries its node id. Lines at the depth
    // limit count their children and preview all their text.
    let expected = "\
body (28 elements)
├── header#main-header > h1 @15 \"Acme\"
├── nav.navbar
│   └── a ×3 @19 \"Home\"
├── main#content
│   ├── section.hero (3 children) \"Welcome to Our Platform The best solution for your…\"
│   ├── section.features (6 items) \"Fast Safe Cheap Small Open Kind\"
│   └── section.pricing > p @64 \"Plans from $9\"
└── footer#main-footer \"© 2024 Acme\"
[@N: node id, unfold with chunk --id N]
";
    assert_eq!(o.text, expected);
    assert_eq!(o.tokens, tokens::count(&o.text, Encoding::O200kBase));
    assert_eq!(o.total_elements, 28);
    assert_eq!(o.max_depth, 2);
    assert!(o.truncated.is_none());
}

#[test]
fn outline_leaves_out_head_code_and_hidden_content() {
    let o = outline_of(
        SEED_PAGE,
        &OutlineOptions {
            max_depth: 8,
            ..Default::default()
        },
    );
    for absent in [
        "script text",
        "secret",
        "template",
        "noscript",
        "color: red",
        "title",
        "style",
    ] {
        assert!(
            !o.text.contains(absent),
            "{absent:?} leaked into:\n{}",
            o.text
        );
    }
    // The depth-0 preview of the whole body still reads only visible text.
    let o = outline_of(
        SEED_PAGE,
        &OutlineOptions {
            max_depth: 0,
            ..Default::default()
        },
    );
    assert!(o.text.starts_with(
        "body (28 elements, 4 children) \"Acme Home Pricing Contact Welcome to Our Platform"
    ));
    assert!(!o.text.contains("secret"));
}

#[test]
fn outline_exclude_drops_subtrees_and_rejects_bad_selectors() {
    let opts = OutlineOptions {
        exclude: vec!["nav".into(), "section.features".into()],
        ..Default::default()
    };
    let o = outline_of(SEED_PAGE, &opts);
    assert!(
        !o.text.contains("nav.navbar") && !o.text.contains("features"),
        "{}",
        o.text
    );
    assert_eq!(o.total_elements, 28 - 4 - 13);
    let err = outline(
        &Page::parse(SEED_PAGE),
        &OutlineOptions {
            exclude: vec!["div[".into()],
            ..Default::default()
        },
        webfold_core::contract::Ctx::default(),
    )
    .unwrap_err();
    assert!(matches!(err, Error::InvalidSelector { .. }), "{err}");
}

#[test]
fn outline_depth_counts_lines_and_defaults_to_four() {
    let html = "<body><div class=l1><p>a</p><div class=l2><p>b</p><div class=l3><p>c</p><div class=l4><p>d</p>\
                <div class=l5><p>e</p><div class=l6><p>f</p></div></div></div></div></div></div></body>";
    let o = outline_of(html, &OutlineOptions::default());
    assert_eq!(o.max_depth, 4);
    // body > div.l1 is one wrapper line (level 0), so div.l5 is level 4.
    assert!(
        o.text.starts_with("body > div.l1 (13 elements)\n"),
        "{}",
        o.text
    );
    let deepest = o
        .text
        .lines()
        .find(|l| l.contains("div.l5"))
        .expect("level 4 shown");
    assert!(
        deepest.ends_with("div.l5 (2 children) \"e f\""),
        "{deepest}"
    );
    assert!(!o.text.contains("div.l6"), "{}", o.text);
    let o = outline_of(
        html,
        &OutlineOptions {
            max_depth: 1,
            ..Default::default()
        },
    );
    let lines: Vec<&str> = o.text.lines().filter(|l| !l.starts_with('[')).collect();
    assert_eq!(lines.len(), 3, "{}", o.text);
    assert!(lines[2].contains("div.l2 (2 children)"), "{}", o.text);
}

#[test]
fn outline_folds_same_shaped_siblings_so_long_lists_cannot_flood_it() {
    let items: String = (0..5000)
        .map(|i| {
            format!(
                "<li class=product><a href=/p/{i}>Item {i}</a><span class=price>${i}</span></li>"
            )
        })
        .collect();
    let html = format!("<body><ul class=results>{items}</ul><p>after</p></body>");
    let o = outline_of(&html, &OutlineOptions::default());
    assert!(o.text.contains("li.product ×5000"), "{}", o.text);
    // The run's children are the first item's.
    assert!(
        o.text.contains("a @") && o.text.contains("\"Item 0\""),
        "{}",
        o.text
    );
    assert!(o.tokens < 120, "{} tokens:\n{}", o.tokens, o.text);
    let run = &o.root.children[0].children[0];
    assert_eq!(run.repeat, Some(5000));
    // Differently shaped siblings do not fold.
    let o = outline_of(
        "<body><div class=a>1</div><div class=a>2</div><div class=a><p>3</p></div></body>",
        &OutlineOptions::default(),
    );
    assert!(!o.text.contains('×'), "{}", o.text);
}

#[test]
fn outline_collapses_wrapper_chains_up_to_four_per_line() {
    let html = "<body><div class=a><div class=b><div class=c><div class=d><div class=e>\
                <ul class=list><li>x</li><li>y</li></ul></div></div></div></div></div><p>z</p></body>";
    let o = outline_of(html, &OutlineOptions::default());
    let lines: Vec<&str> = o.text.lines().collect();
    assert_eq!(lines[1], "├── div.a > div.b > div.c > div.d", "{}", o.text);
    assert_eq!(lines[2], "│   └── div.e > ul.list", "{}", o.text);
    // JSON keeps the real nesting: one node per element.
    let a = &o.root.children[0];
    assert_eq!(a.classes, ["a"]);
    assert_eq!(a.child_count, 1);
    assert_eq!(a.children[0].classes, ["b"]);
    // An element with its own text is not a wrapper.
    let o = outline_of(
        "<body><div class=a>intro<div class=b><p>x</p></div></div></body>",
        &OutlineOptions::default(),
    );
    assert!(!o.text.contains("div.a > div.b"), "{}", o.text);
}

#[test]
fn outline_previews_are_collapsed_own_text_cut_at_fifty_characters() {
    let long = "word ".repeat(40);
    let html = format!(
        "<body><article><h2>  Title\n\n  here </h2><p>{long}</p><p>Inline <a href=#>link</a> and <b>bold</b>.</p></article></body>"
    );
    let o = outline_of(&html, &OutlineOptions::default());
    assert!(o.text.contains("h2 \"Title here\""), "{}", o.text);
    let p = o
        .text
        .lines()
        .find(|l| l.contains("\"word"))
        .expect("long paragraph");
    let preview = p.split('"').nth(1).expect("quoted");
    assert_eq!(preview.chars().count(), 50, "{preview:?}");
    assert!(preview.ends_with('…'));
    // Links inside running text are the paragraph's text, not lines.
    assert!(o.text.contains("\"Inline link and bold.\""), "{}", o.text);
    // A parent does not repeat what its lines show.
    assert!(
        !o.text.lines().next().unwrap_or("").contains("Title"),
        "{}",
        o.text
    );
}

#[test]
fn outline_marks_ambiguous_labels_with_node_ids_that_chunk_resolves() {
    let page = Page::parse(SEED_PAGE);
    let o = outline(
        &page,
        &OutlineOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .expect("outline");
    let mut checked = 0;
    for line in o.text.lines() {
        let Some(at) = line.split(" @").nth(1) else {
            continue;
        };
        let id: u32 = at
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("number after @");
        let c =
            chunk_of(&page, &ChunkTarget::Id(NodeId::new(id)), false, None).expect("id resolves");
        assert_eq!(c.chunks[0].html, page.outer_html(NodeId::new(id)));
        checked += 1;
    }
    assert!(checked >= 3, "{}", o.text);
    // Labels without @N select their element on their own.
    for label in [
        "header#main-header",
        "nav.navbar",
        "main#content",
        "section.hero",
        "footer#main-footer",
    ] {
        assert_eq!(page.query_all(label).expect("valid").len(), 1, "{label}");
    }
}

#[test]
fn outline_json_has_the_seed_fields_and_unique_selectors() {
    let page = Page::parse(SEED_PAGE);
    let o = outline(
        &page,
        &OutlineOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .expect("outline");
    let v = serde_json::to_value(&o).expect("serializes");
    for key in [
        "root",
        "totalElements",
        "maxDepth",
        "tokens",
        "text",
        "encoding",
        "shownElements",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let header = &v["root"]["children"][0];
    assert_eq!(header["tag"], "header");
    assert_eq!(header["id"], "main-header");
    assert_eq!(header["selector"], "#main-header");
    assert_eq!(header["childCount"], 1);
    assert!(header.get("nodeId").and_then(|n| n.as_u64()).is_some());
    assert_eq!(v["root"]["children"][1]["classes"][0], "navbar");
    // Every node's selector selects exactly its node.
    let mut stack = vec![&o.root];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        assert_eq!(
            page.query_all(&n.selector).expect("valid"),
            vec![n.node_id],
            "{}",
            n.selector
        );
        stack.extend(n.children.iter());
        seen += 1;
    }
    assert!(seen > 10);
}

#[test]
fn outline_budget_keeps_shallow_lines_and_says_how_to_unfold() {
    let rows: String = (0..300)
        .map(|i| {
            format!("<tr><td>row {i}</td><td><a href=/{i}>open</a></td><td><em>n{i}</em></td></tr>")
        })
        .collect();
    let html = format!(
        "<body><header id=top><nav><a href=/>Home</a></nav></header><main>{}<table><tbody>{rows}</tbody></table></main><footer>f</footer></body>",
        (0..40)
            .map(|i| format!("<section class=s{i}><h2>Part {i}</h2><p>text {i}</p></section>"))
            .collect::<String>()
    );
    let page = Page::parse(&html);
    let full = outline(
        &page,
        &OutlineOptions::default(),
        webfold_core::contract::Ctx::default(),
    )
    .expect("outline");
    assert!(full.tokens > 400, "{}", full.tokens);
    let o = outline(&page, &budget(250), webfold_core::contract::Ctx::default()).expect("outline");
    assert!(o.tokens <= 250 && o.tokens == tokens::count(&o.text, Encoding::O200kBase));
    assert!(
        o.text.contains("header#top") && o.text.contains("footer"),
        "{}",
        o.text
    );
    assert!(o.text.contains("more\n"), "{}", o.text);
    let last = o.text.lines().last().unwrap_or("");
    assert!(
        last.starts_with("[cut to fit 250 tokens:") && last.contains("chunk --selector"),
        "{last}"
    );
    let cut = &o.truncated.as_ref().expect("truncated").cut;
    assert!(!cut.is_empty());
    for part in cut {
        assert_eq!(
            page.query_all(&part.selector).expect("valid"),
            vec![part.node_id]
        );
    }
    // Shallow before deep: every line of the budgeted outline is in the full one.
    let full_lines: Vec<&str> = full
        .text
        .lines()
        .map(|l| l.split(" (").next().unwrap_or(l))
        .collect();
    assert!(
        o.text
            .lines()
            .filter(|l| !l.starts_with('[') && !l.contains("more"))
            .count()
            > 5
    );
    assert!(full_lines.len() > o.text.lines().count());
}

#[test]
fn outline_budget_smaller_than_the_root_line_is_an_error() {
    let err = outline(
        &Page::parse(SEED_PAGE),
        &budget(5),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap_err();
    match err {
        Error::BudgetTooSmall {
            needed, max_tokens, ..
        } => {
            assert_eq!(max_tokens, 5);
            let o = outline(
                &Page::parse(SEED_PAGE),
                &budget(needed),
                webfold_core::contract::Ctx::default(),
            )
            .expect("the stated minimum works");
            assert!(o.tokens <= needed);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn outline_survives_hundred_thousand_deep_nesting() {
    let depth = 100_000;
    let html = format!(
        "<body>{}deep text{}</body>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let o = outline_of(&html, &OutlineOptions::default());
    assert_eq!(o.total_elements, depth + 1);
    assert_eq!(o.text.lines().count(), 5 + 1, "{}", o.text);
    assert!(o.text.contains("\"deep text\""), "{}", o.text);
    let o = outline_of(
        &html,
        &OutlineOptions {
            max_depth: 10_000,
            max_tokens: Some(300),
            ..Default::default()
        },
    );
    assert!(o.tokens <= 300);
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Corpus pages (one per set, plus a large one) rendered at defaults.
#[test]
fn outline_goldens_for_corpus_pages() {
    let pages = webfold_corpus::pages();
    let wanted = [
        ("readability/001", "outline_readability_001.txt"),
        ("readability/yahoo-2", "outline_readability_yahoo_2.txt"),
        ("aeb/042bb7b5fedab6ea", "outline_aeb_042bb7b5fedab6ea.txt"),
        (
            "trafilatura/kinzig.news-Nachhaltigkeit",
            "outline_trafilatura_kinzig.txt",
        ),
    ];
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (id, file) in wanted {
        let cp = pages
            .iter()
            .find(|p| p.id == id)
            .unwrap_or_else(|| panic!("corpus page {id} missing"));
        let o = outline(
            &Page::parse(&cp.html()),
            &OutlineOptions::default(),
            webfold_core::contract::Ctx::default(),
        )
        .expect("outline");
        let path = golden_path(file);
        if update {
            std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
            std::fs::write(&path, &o.text).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_GOLDEN=1", path.display()));
        if expected != o.text {
            failures.push(format!("{id}: differs from {}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{failures:#?}\n(UPDATE_GOLDEN=1 regenerates after review)"
    );
}

// ---------------------------------------------------------------- chunk

#[test]
fn chunk_gives_the_outer_html_of_the_first_match() {
    let page = Page::parse(SEED_PAGE);
    let c = chunk_of(&page, &select("section"), false, None).expect("chunk");
    let hero = page.query("section.hero").expect("hero");
    assert_eq!(c.matches, 1);
    assert_eq!(c.text, page.outer_html(hero));
    assert_eq!(c.chunks[0].selector, "section.hero");
    assert_eq!(c.chunks[0].node_id, hero);
    assert_eq!(c.tokens, tokens::count(&c.text, Encoding::O200kBase));
    assert!(c.text.starts_with("<section class=\"hero\"><h1>Welcome"));
}

#[test]
fn chunk_all_gives_every_match_under_its_unique_selector() {
    let page = Page::parse(SEED_PAGE);
    let c = chunk_of(&page, &select("section"), true, None).expect("chunk");
    assert_eq!(c.matches, 3);
    assert_eq!(c.chunks.len(), 3);
    for (i, ch) in c.chunks.iter().enumerate() {
        assert_eq!(
            page.query_all(&ch.selector).expect("valid"),
            vec![ch.node_id]
        );
        assert!(c.text.contains(&format!(
            "<!-- match {}/3: {} -->\n{}",
            i + 1,
            ch.selector,
            ch.html
        )));
    }
}

#[test]
fn chunk_by_node_id_and_bad_ids() {
    let page = Page::parse(SEED_PAGE);
    let nav = page.query("nav").expect("nav");
    let c = chunk_of(&page, &ChunkTarget::Id(nav), false, None).expect("chunk");
    assert_eq!(c.text, page.outer_html(nav));
    let text_node = page
        .children(nav)
        .find(|&n| !page.is_element(n))
        .expect("text child");
    let template_p = page
        .descendants(NodeId::DOCUMENT)
        .find(|&n| page.node(n).inert && page.is_element(n))
        .expect("template content");
    for bad in [
        NodeId::new(u32::MAX),
        NodeId::DOCUMENT,
        text_node,
        template_p,
    ] {
        let err = chunk_of(&page, &ChunkTarget::Id(bad), false, None).unwrap_err();
        assert_eq!(err, Error::UnknownNodeId(bad.get().into()));
        assert!(err.to_string().contains("outline"), "{err}");
    }
}

#[test]
fn chunk_by_ref_reaches_into_a_declarative_shadow_root() {
    // The snapshot shows a shadow root's content (the parser keeps it as
    // template content); every ref it prints resolves, and a plain
    // template's content stays out of reach.
    let html = r#"<my-card><template shadowrootmode="open"><h2><slot name="title">Default</slot></h2>
<button>In shadow</button><slot></slot></template><span slot="title">Card title</span><p>Body</p></my-card>
<template><button>Plain template</button></template>"#;
    let page = Page::parse(html);
    let url = "https://shop.example/";
    let opts = webfold_core::snapshot::SnapshotOptions {
        full_snapshot: true,
        ..Default::default()
    };
    let snap = webfold_core::snapshot::snapshot(
        &page,
        url,
        &webfold_core::snapshot::Scope::Page,
        &opts,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(snap.text.contains("In shadow"), "{}", snap.text);
    let refs: Vec<&str> = snap
        .text
        .split("[ref=")
        .skip(1)
        .filter_map(|s| s.split(']').next())
        .collect();
    assert!(refs.len() >= 2, "{}", snap.text);
    let mut shadow_html = Vec::new();
    for r in refs {
        let opts = ChunkOptions {
            r#ref: Some(r.to_string()),
            ..Default::default()
        };
        let c = webfold_core::chunk::view(
            &page,
            &opts,
            url,
            None,
            webfold_core::contract::Ctx::default(),
        )
        .unwrap_or_else(|e| panic!("ref {r}: {e}"));
        shadow_html.push(c.text);
    }
    assert!(
        shadow_html
            .iter()
            .any(|h| h == "<button>In shadow</button>"),
        "{shadow_html:?}"
    );
    let plain = page
        .descendants(NodeId::DOCUMENT)
        .filter(|&n| page.tag(n) == Some("button"))
        .last()
        .expect("the plain template's button");
    assert_eq!(
        chunk_of(&page, &ChunkTarget::Id(plain), false, None).unwrap_err(),
        Error::UnknownNodeId(plain.get().into())
    );
}

#[test]
fn chunk_misses_suggest_existing_selectors_and_bad_selectors_name_the_position() {
    let page = Page::parse(SEED_PAGE);
    let err = chunk_of(&page, &select("section.heros"), false, None).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("Element not found: section.heros (did you mean: section.hero"),
        "{msg}"
    );
    match &err {
        Error::ElementNotFound { suggestions, .. } => {
            assert!(suggestions.len() <= 3 && !suggestions.is_empty())
        }
        other => panic!("{other}"),
    }
    let err = chunk_of(&page, &select("section..hero"), false, None).unwrap_err();
    assert!(
        matches!(err, Error::InvalidSelector { position, .. } if position >= 9),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "invalid selector 'section..hero': expected a class name after '.', found '.' (at column 9)"
    );
}

fn product_page(n: usize) -> String {
    let items: String = (0..n)
        .map(|i| format!("<li class=\"product\"><a href=\"/p/{i}\">Product {i}</a> <span>${i}.99</span></li>\n"))
        .collect();
    format!(
        "<body><main><h1>Results</h1><p>Intro.</p><ul class=\"results\">{items}</ul>\
         <article><p>{}</p><p>short</p></article><footer>bye</footer></main></body>",
        "long text ".repeat(400)
    )
}

#[test]
fn chunk_over_budget_folds_parts_into_placeholders_that_unfold() {
    let page = Page::parse(&product_page(300));
    for max in [80, 200, 500, 1500] {
        let c = chunk_of(&page, &select("main"), false, Some(max)).expect("fits");
        assert!(c.tokens <= max, "{} > {max}", c.tokens);
        let ch = &c.chunks[0];
        assert!(!ch.folded.is_empty(), "{max}: nothing folded");
        for part in &ch.folded {
            // The placeholder says how to unfold it, in the words of the surface.
            let hint = Hint::Chunk(Handle::Selector(part.selector.clone()), part.all);
            assert!(
                c.text
                    .contains(&format!("{} -->", hint.spell(Surface::Cli))),
                "{max}: {}",
                c.text
            );
            // Unfolding the placeholder's selector gives back exactly what was folded.
            let again = chunk_of(&page, &select(&part.selector), part.all, None).expect("unfolds");
            assert_eq!(again.matches, part.elements, "{}", part.selector);
            assert_eq!(again.chunks[0].node_id, part.node_id);
            let bytes: usize = again.chunks.iter().map(|c| c.html.len()).sum();
            assert_eq!(bytes as u64, part.bytes, "{}", part.selector);
        }
    }
    // A long list keeps its first items and folds the rest into one range.
    let c = chunk_of(&page, &select("ul"), false, Some(300)).expect("fits");
    assert!(
        c.text
            .starts_with("<ul class=\"results\"><li class=\"product\"><a href=\"/p/0\">"),
        "{}",
        c.text
    );
    assert_eq!(c.chunks[0].folded.len(), 1, "{}", c.text);
    assert!(c.text.contains("<!-- folded li.product ×"), "{}", c.text);
    assert!(
        c.text.contains("chunk --selector 'ul > :nth-child(n+"),
        "{}",
        c.text
    );
}

/// Alternating short and long items: the short ones are shown first, which
/// leaves each long one alone between shown neighbours. A placeholder there
/// would cost more than the item it stands for.
#[test]
fn chunk_never_folds_what_is_smaller_than_its_placeholder() {
    let items: String = (0..2_000)
        .map(|i| {
            if i % 2 == 0 {
                format!("<li class=\"even\">Item {i} of the list here</li>\n")
            } else {
                format!("<li class=\"odd\">Item {i} of the list</li>\n")
            }
        })
        .collect();
    let page = Page::parse(&format!("<body><main><ul>{items}</ul></main></body>"));
    for max in [300, 2_000] {
        let c = chunk_of(&page, &select("ul"), false, Some(max)).expect("fits");
        assert!(c.tokens <= max, "{} > {max}", c.tokens);
        let placeholders: Vec<&str> = c
            .text
            .match_indices("<!-- folded")
            .map(|(at, _)| {
                let end = c.text[at..].find("-->").expect("closed") + 3;
                &c.text[at..at + end]
            })
            .collect();
        let folded = &c.chunks[0].folded;
        assert_eq!(placeholders.len(), folded.len(), "{}", c.text);
        for (text, part) in placeholders.iter().zip(folded) {
            assert!(
                part.bytes > text.len() as u64,
                "{max}: {} bytes folded into the longer {text}",
                part.bytes
            );
        }
    }
}

#[test]
fn chunk_that_cannot_fold_small_enough_says_the_smallest_budget() {
    let page = Page::parse(&format!(
        "<body><pre>{}</pre></body>",
        "token ".repeat(3000)
    ));
    let err = chunk_of(&page, &select("pre"), false, Some(100)).unwrap_err();
    match &err {
        Error::BudgetTooSmall {
            needed,
            max_tokens: 100,
            advice,
            ..
        } => {
            assert!(*needed > 3000, "{needed}");
            assert!(advice.contains("cannot be folded"), "{advice}");
            assert!(chunk_of(&page, &select("pre"), false, Some(*needed)).is_ok());
        }
        other => panic!("{other}"),
    }
}

#[test]
fn chunk_all_within_budget_lists_what_it_left_out() {
    let page = Page::parse(&product_page(200));
    let c = chunk_of(&page, &select("li"), true, Some(300)).expect("fits");
    assert!(c.tokens <= 300);
    assert_eq!(c.matches, 200);
    assert_eq!(c.chunks.len() + c.omitted.len(), 200);
    assert!(!c.omitted.is_empty());
    let last = c.text.lines().last().unwrap_or("");
    assert!(
        last.contains(&format!("{} of 200 matches not shown", c.omitted.len())),
        "{last}"
    );
    assert!(last.contains(&c.omitted[0].to_string()), "{last}");
}

#[test]
fn chunk_survives_hundred_thousand_deep_nesting() {
    let depth = 100_000;
    let html = format!(
        "<body>{}deep{}</body>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let page = Page::parse(&html);
    let c = chunk_of(&page, &select("body"), false, Some(400)).expect("fits");
    assert!(c.tokens <= 400);
    assert!(
        c.text.contains("<!-- folded div"),
        "{}",
        &c.text[..c.text.len().min(500)]
    );
}

// ---------------------------------------------------------------- budgets on the corpus

/// The budget promise: over a corpus sample at several budgets, outline and
/// chunk output is never over budget, token counts are exact, and a budget
/// too small is an error naming a budget that works.
#[test]
fn budgets_hold_on_corpus_pages() {
    let pages = webfold_corpus::sample(12);
    assert!(pages.len() >= 60, "{}", pages.len());
    let enc = Encoding::O200kBase;
    let mut outlines = 0;
    let mut chunks = 0;
    for cp in &pages {
        let page = Page::parse(&cp.html());
        for max in [200, 500, 1000, 4000] {
            let o = outline(&page, &budget(max), webfold_core::contract::Ctx::default())
                .unwrap_or_else(|e| panic!("{} outline {max}: {e}", cp.id));
            assert!(o.tokens <= max, "{} outline {max}: {}", cp.id, o.tokens);
            assert_eq!(o.tokens, tokens::count(&o.text, enc), "{}", cp.id);
            outlines += 1;
            for target in ["body", "body *"] {
                match chunk_of(&page, &select(target), false, Some(max)) {
                    Ok(c) => {
                        assert!(
                            c.tokens <= max,
                            "{} chunk {target} {max}: {}",
                            cp.id,
                            c.tokens
                        );
                        assert_eq!(c.tokens, tokens::count(&c.text, enc), "{}", cp.id);
                        for part in c.chunks.iter().flat_map(|c| &c.folded).filter(|p| !p.all) {
                            assert_eq!(
                                part.bytes,
                                page.outer_html(part.node_id).len() as u64,
                                "{}",
                                cp.id
                            );
                        }
                        chunks += 1;
                    }
                    Err(Error::BudgetTooSmall { needed, .. }) => assert!(needed > max),
                    Err(Error::ElementNotFound { .. }) if target != "body" => {}
                    Err(e) => panic!("{} chunk {target} {max}: {e}", cp.id),
                }
            }
        }
        let all = chunk_of(&page, &select("p, li"), true, Some(1000));
        if let Ok(c) = all {
            assert!(c.tokens <= 1000, "{} all: {}", cp.id, c.tokens);
        }
    }
    assert!(outlines >= 240 && chunks >= 400, "{outlines} {chunks}");
}

/// With a task, the outline keeps first the parts it names (and the lines
/// above them), whatever their place among their siblings; the rest is
/// counted as cut, and the budget holds.
#[test]
fn a_focused_outline_keeps_the_part_the_task_names() {
    let links: String = (0..30)
        .map(|i| format!("<p class=s{i}><a href=/p{i}>Story {i}</a></p>"))
        .collect();
    let html = format!(
        "<body><header>{links}</header><main><h1>News</h1></main>\
         <footer><a href=/impressum>Impressum</a><a href=/datenschutz>Datenschutz</a></footer></body>"
    );
    let plain = outline_of(&html, &budget(120));
    // The link's own line, not the footer's preview.
    let line = "\"Datenschutz\"";
    assert!(!plain.text.contains(line), "{}", plain.text);
    let focused = outline_of(
        &html,
        &OutlineOptions {
            focus: Some("Open the privacy policy in the footer".into()),
            ..budget(120)
        },
    );
    assert!(focused.text.contains(line), "{}", focused.text);
    assert!(focused.tokens <= 120, "{}", focused.text);
    assert!(
        focused.text.contains("[cut to fit 120 tokens"),
        "{}",
        focused.text
    );
}

/// An id past what a page can hold is unknown, and the error names the id
/// as the caller gave it: ids are stored one higher, so the largest 32-bit
/// number is no id at all, and larger numbers are no `u32`.
#[test]
fn ids_past_the_last_possible_node_are_unknown_as_given() {
    let page = Page::parse("<p id=a>hi</p>");
    for id in [
        u64::from(u32::MAX) - 1,
        u64::from(u32::MAX),
        1 << 32,
        u64::MAX,
    ] {
        let opts = ChunkOptions {
            id: Some(id),
            ..Default::default()
        };
        let err = webfold_core::chunk::view(
            &page,
            &opts,
            "",
            None,
            webfold_core::contract::Ctx::default(),
        )
        .unwrap_err();
        assert_eq!(err, Error::UnknownNodeId(id));
        assert!(err.to_string().contains(&id.to_string()), "{err}");
    }
}
