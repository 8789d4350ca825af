//! The links view: text, absolute URL and landmark per distinct link, the
//! main content's first, within the budget, and a way to read on.

use webfold_core::Page;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::links::{LinksOptions, links};
use webfold_core::tokens::{self, Encoding};
use webfold_core::view::{Input, by_name};

const PAGE: &str = r##"<html><head><title>Blog</title></head><body>
<header><a href="/">Home</a><nav><a href="/archive">Archive</a><a href="/about">About</a></nav></header>
<main><article><h1>A post about trails</h1>
<p>We walked the <a href="/trails/ridge">ridge trail</a> at dawn and the light over the valley was
worth every step of the climb; see also the <a href="https://maps.example/ridge">map</a>.</p>
<p>The descent took longer than the climb, as descents on loose stone do, and we stopped often to
look back at the <a href="/trails/ridge">ridge trail</a> behind us in the morning sun.</p>
<p>Next time we will start earlier and carry more water, because the afternoon heat on the open
slopes is no joke even in spring, and the streams run dry by June.</p></article>
<a href="/page/2">Older posts</a></main>
<aside><a href="/tags/hiking">hiking</a></aside>
<footer><a href="/privacy">Privacy</a><a href="#">Top</a><a href="javascript:void(0)">Menu</a>
<a href="/contact" hidden>Hidden</a><a href="/img"><img src="x.png" alt="Logo"></a></footer>
</body></html>"##;

fn opts(max_tokens: usize) -> LinksOptions {
    LinksOptions {
        max_tokens,
        ..Default::default()
    }
}

#[test]
fn every_link_once_with_absolute_url_landmark_and_count() {
    let page = Page::parse(PAGE);
    let out = links(
        &page,
        Some("https://blog.example/post/1"),
        &opts(8000),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    let urls: Vec<&str> = out.links.iter().map(|l| l.url.as_str()).collect();
    // The article's links first, in document order, repeats folded.
    assert_eq!(urls[0], "https://blog.example/trails/ridge");
    assert_eq!(out.links[0].count, 2);
    assert_eq!(out.links[0].landmark, "main");
    assert_eq!(urls[1], "https://maps.example/ridge");
    // Then the rest of the main landmark, then navigation and furniture.
    let older = urls.iter().position(|u| u.ends_with("/page/2")).unwrap();
    let privacy = urls.iter().position(|u| u.ends_with("/privacy")).unwrap();
    assert!(older < privacy, "{urls:?}");
    let home = out
        .links
        .iter()
        .find(|l| l.url == "https://blog.example/")
        .unwrap();
    assert_eq!(home.landmark, "banner");
    let archive = out
        .links
        .iter()
        .find(|l| l.url.ends_with("/archive"))
        .unwrap();
    assert_eq!(archive.landmark, "navigation");
    let tag = out
        .links
        .iter()
        .find(|l| l.url.ends_with("/tags/hiking"))
        .unwrap();
    assert_eq!(tag.landmark, "complementary");
    // An image link is named by its alt; scripts and hidden links are not links to follow.
    assert!(out.links.iter().any(|l| l.text == "Logo"), "{}", out.text);
    assert!(
        !out.text.contains("Top") && !out.text.contains("Menu") && !out.text.contains("Hidden")
    );
    assert_eq!(out.total, out.links.iter().map(|l| l.count).sum::<usize>());
    assert_eq!(out.tokens, tokens::count(&out.text, Encoding::default()));
}

#[test]
fn a_base_url_resolves_relative_links() {
    let page = Page::parse(PAGE);
    let o = LinksOptions {
        base_url: Some("https://mirror.example/blog/".into()),
        ..opts(8000)
    };
    let out = links(
        &page,
        Some("https://blog.example/post/1"),
        &o,
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(
        out.text.contains("(https://mirror.example/trails/ridge)"),
        "{}",
        out.text
    );
    // Without any address, links stay as written.
    let out = links(
        &page,
        None,
        &opts(8000),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(
        out.text.contains("[ridge trail](/trails/ridge) main ×2"),
        "{}",
        out.text
    );
}

#[test]
fn the_budget_holds_and_the_hint_reads_on_to_the_end() {
    let page = Page::parse(PAGE);
    let url = Some("https://blog.example/post/1");
    let all = links(
        &page,
        url,
        &opts(8000),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut start = 1;
    loop {
        let o = LinksOptions {
            start_line: start,
            ..opts(60)
        };
        let out = links(&page, url, &o, webfold_core::contract::Ctx::default()).unwrap();
        assert!(out.tokens <= 60, "{} tokens:\n{}", out.tokens, out.text);
        assert!(!out.links.is_empty(), "{}", out.text);
        seen.extend(out.links.iter().map(|l| l.url.clone()));
        match out.next_start_line {
            Some(next) => {
                assert!(
                    out.text.contains(&format!("--start-line {next}")),
                    "{}",
                    out.text
                );
                start = next;
            }
            None => break,
        }
    }
    let want: Vec<String> = all.links.iter().map(|l| l.url.clone()).collect();
    assert_eq!(seen, want);
}

#[test]
fn too_small_a_budget_names_the_one_that_works() {
    let page = Page::parse(PAGE);
    let err = links(
        &page,
        None,
        &opts(3),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap_err()
    .to_string();
    let needed: usize = err
        .rsplit("--max-tokens ")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    let out = links(
        &page,
        None,
        &opts(needed),
        webfold_core::contract::Ctx::default(),
    )
    .unwrap();
    assert!(out.tokens <= needed);
}

#[test]
fn the_registry_runs_it_with_each_surfaces_words() {
    let page = Page::parse(PAGE);
    let view = by_name("page_links", Surface::Mcp).expect("links on MCP");
    let mut args = serde_json::Map::new();
    args.insert("max_tokens".into(), 60.into());
    let call = view
        .call_from_json(args, Ctx::new(Surface::Mcp, Encoding::default()))
        .unwrap();
    let env = call
        .run(&mut Input::page(&page, "https://blog.example/post/1"))
        .unwrap();
    assert!(env.cut);
    assert!(env.text.contains("start_line: "), "{}", env.text);
    assert_eq!(env.max_tokens, Some(60));
    assert!(env.tokens() <= 60);
}

/// Golden links views of three corpus pages (one per set) at 1,000 tokens.
/// `UPDATE_GOLDEN=1 cargo test -p webfold-core --test links` rewrites them;
/// review the diff before keeping it.
#[test]
fn links_views_of_corpus_pages_match_the_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let corpus = webfold_corpus::pages();
    let mut failures = Vec::new();
    for id in [
        "readability/001",
        "aeb/87438a0dacbeb979",
        "trafilatura/neos.eu.wir",
    ] {
        let cp = corpus.iter().find(|p| p.id == id).expect("in the corpus");
        let page = Page::parse(&cp.html());
        let out = links(
            &page,
            cp.url.as_deref(),
            &opts(1000),
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
        assert!(out.tokens <= 1000);
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(format!("links_{}.txt", id.replace('/', "_")));
        if update {
            std::fs::write(&path, &out.text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_GOLDEN=1", path.display()));
        if expected != out.text {
            failures.push(format!("{id}: differs from {}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{failures:#?}\nrun with UPDATE_GOLDEN=1 and review the diff"
    );
}
