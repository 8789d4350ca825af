use super::*;

fn article_page() -> String {
    let para = "This paragraph of the article says something long enough to count, with commas, clauses, and detail. ";
    format!(
        r#"<html><head><title>A headline worth reading | Example News</title>
        <meta property="og:title" content="A headline worth reading">
        <meta name="author" content="Jane Doe">
        <meta property="article:published_time" content="2024-03-05T10:00:00Z"></head>
        <body><nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li></ul></nav>
        <div class="cookie-banner">We use cookies to improve your experience on this site, please accept them.</div>
        <div id="main"><article><h1>A headline worth reading</h1>
        <p>{p}{p}</p><p>{p}</p><pre><code class="language-rust">fn main() {{}}</code></pre><p>{p}{p}</p>
        <div class="share-buttons"><a href="/s">Share on social media, please share this article</a></div>
        </article>
        <aside class="sidebar"><h3>Related</h3><ul><li><a href="/a">Another story about something else entirely</a></li></ul></aside></div>
        <footer>Copyright Example News, all rights reserved, terms and conditions apply.</footer></body></html>"#,
        p = para
    )
}

#[test]
fn extracts_the_article_and_drops_furniture() {
    let page = Page::parse(&article_page());
    let ex = extract(&page, &ExtractOptions::default());
    assert_eq!(ex.fallback, None);
    let text = ex.text(&page);
    assert!(text.contains("This paragraph of the article"), "{text}");
    assert!(text.contains("fn main()"), "{text}");
    for junk in [
        "Home",
        "cookies",
        "Share on social",
        "Another story",
        "Copyright",
        "A headline worth",
    ] {
        assert!(!text.contains(junk), "{junk} in {text}");
    }
    assert_eq!(
        ex.metadata.title.as_deref(),
        Some("A headline worth reading")
    );
    assert_eq!(ex.metadata.byline.as_deref(), Some("Jane Doe"));
    assert_eq!(ex.metadata.date.as_deref(), Some("2024-03-05"));
}

#[test]
fn an_app_shell_falls_back_to_the_whole_page() {
    let page = Page::parse(
        r#"<body><div id="root"><a href="/login">Log in</a> Loading…</div><script>boot()</script></body>"#,
    );
    let ex = extract(&page, &ExtractOptions::default());
    assert!(ex.fallback.is_some());
    assert_eq!(ex.root, page.body().unwrap());
    let text = ex.text(&page);
    assert!(text.contains("Loading…"), "{text}");
    assert!(!text.contains("boot()"), "{text}");
}

#[test]
fn hundred_thousand_deep_nesting_extracts_without_recursion() {
    let depth = 100_000;
    let para =
        "<p>Deep text that is long enough to be a paragraph, with a comma, and more words.</p>";
    let html = format!(
        "<body>{}{}{}</body>",
        "<div>".repeat(depth),
        para.repeat(5),
        "</div>".repeat(depth)
    );
    let page = Page::parse(&html);
    let ex = extract(&page, &ExtractOptions::default());
    assert!(ex.text(&page).contains("Deep text that is long enough"));
}

#[test]
fn empty_and_odd_documents_fall_back_without_panicking() {
    for html in [
        "",
        "<frameset><frame src=a></frameset>",
        "<svg><text>x</text></svg>",
        "<!-- only a comment -->",
    ] {
        let page = Page::parse(html);
        let ex = extract(&page, &ExtractOptions::default());
        assert!(ex.fallback.is_some(), "{html:?}");
        let _ = ex.text(&page);
    }
}

#[test]
fn a_short_page_that_is_all_article_is_not_a_fallback() {
    let page = Page::parse(
        "<body><p>A short note, just two sentences long. Nothing else here.</p></body>",
    );
    let ex = extract(&page, &ExtractOptions::default());
    assert_eq!(ex.fallback, None);
    assert_eq!(
        ex.text(&page),
        "A short note, just two sentences long. Nothing else here."
    );
}

#[test]
fn siblings_of_the_article_are_kept_and_furniture_between_them_dropped() {
    let p =
        "<p>Story paragraph with enough words to count as prose, and a comma or two, truly.</p>";
    let html = format!(
        r#"<body><div id="wrap"><div class="part">{p}{p}{p}</div><div class="share-tools"><a href="/s">Share</a></div>
        <div class="part">{p}{p}{p}</div></div><div class="footer-links"><a href="/a">About</a></div></body>"#
    );
    let page = Page::parse(&html);
    let ex = extract(&page, &ExtractOptions::default());
    let text = ex.text(&page);
    assert_eq!(text.matches("Story paragraph").count(), 6, "{text}");
    assert!(!text.contains("Share") && !text.contains("About"), "{text}");
}

#[test]
fn class_words_follow_the_token_not_substrings() {
    use classify::class_signal;
    let sig = |class: &str| {
        let page = Page::parse(&format!(r#"<div class="{class}"></div>"#));
        let div = page.query("div").unwrap();
        class_signal(page.element(div).unwrap())
    };
    assert!(sig("article-comments").is_boilerplate());
    assert!(sig("shareButtons").is_boilerplate());
    assert!(
        !sig("shadowed-article").is_boilerplate(),
        "'ad' inside a word is not an ad"
    );
    assert!(
        !sig("content-sidebar-wrap").is_boilerplate(),
        "content wins over a weak word"
    );
    assert!(
        !sig("post type-post tag-travel category-news author-jane").is_boilerplate(),
        "taxonomy labels"
    );
    assert!(
        !sig("js-related-size article-body").is_boilerplate(),
        "script hooks"
    );
    assert!(
        !sig("Layout_Main__2pNav").is_boilerplate(),
        "CSS-module hashes are not words"
    );
}

#[test]
fn read_also_pointers_between_paragraphs_are_dropped() {
    let para = "This paragraph of the article says something long enough to count, with commas, clauses, and detail. ";
    let html = format!(
        r#"<html><body><article>
        <p>{para}{para}</p>
        <p>Lea también: <a href="/other">Otra noticia que no es de este artículo</a></p>
        <p>{para}{para}</p>
        <p><a href="/more">Read more about something else entirely</a></p>
        <p>Related reading habits, the study says, differ between the groups it followed.</p>
        <p>{para}{para}</p>
        </article></body></html>"#
    );
    let page = Page::parse(&html);
    let ex = extract(&page, &ExtractOptions::default());
    let text = ex.text(&page);
    assert!(!text.contains("Otra noticia"), "{text}");
    assert!(!text.contains("something else entirely"), "{text}");
    // An ordinary sentence that happens to start like an opener stays.
    assert!(text.contains("Related reading habits"), "{text}");
    assert!(text.contains("This paragraph of the article"), "{text}");
}
