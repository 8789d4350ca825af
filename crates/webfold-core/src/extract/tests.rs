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
        class_signal(page.element(div).unwrap(), &mut Default::default())
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
        sig("author-bio").is_boilerplate() && sig("post-author").is_boilerplate(),
        "a box about the author is not a taxonomy label"
    );
    assert!(
        !sig("post category-popular-posts").is_boilerplate(),
        "a taxonomy label names the category, whatever it is called"
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

const PARA: &str = "This paragraph of the article says something long enough to count, with commas, clauses, and detail. ";

fn extract_text(html: &str) -> (String, Extraction) {
    let page = Page::parse(html);
    let ex = extract(&page, &ExtractOptions::default());
    (ex.text(&page), ex)
}

#[test]
fn the_lede_between_headline_and_body_is_kept_but_not_its_dateline_or_caption() {
    let html = format!(
        r#"<html><head><title>Rivers run backwards in a new study</title></head><body>
        <nav><a href="/">Home</a></nav>
        <article><header>
          <div class="kicker"><a href="/science">Science</a> <a href="/rivers">Rivers</a> <a href="/climate">Climate</a>
            <a href="/studies">New studies</a> <a href="/europe">Europe</a> <a href="/water">Water and waterways</a>
            <a href="/data">Data journalism</a> <a href="/maps">Maps and charts</a></div>
          <h1>Rivers run backwards in a new study</h1>
          <div class="standfirst"><p>A short standfirst that sums the story up in one sentence, as decks do.</p></div>
          <div class="when">Updated 10:39 GMT (11:39 CET) 19.11.2019</div>
          <div class="photo"><img src="a.jpg"><p>The river at dawn, photographed last year.</p></div>
        </header>
        <div class="story"><div class="inner"><p>{PARA}{PARA}</p><p>{PARA}{PARA}</p><p>{PARA}{PARA}</p></div></div>
        </article></body></html>"#
    );
    let (text, ex) = extract_text(&html);
    assert_eq!(ex.fallback, None);
    assert!(text.contains("A short standfirst"), "{text}");
    assert!(text.contains("This paragraph of the article"), "{text}");
    for junk in [
        "Updated 10:39",
        "The river at dawn",
        "Home",
        "Rivers run backwards",
    ] {
        assert!(!text.contains(junk), "{junk} in {text}");
    }
}

#[test]
fn a_heading_over_dropped_links_goes_with_them() {
    let html = format!(
        r#"<body><article>
        <h2>What happened</h2><p>{PARA}{PARA}</p><p>{PARA}{PARA}</p>
        <h2>Background</h2><h3>Earlier years</h3><p>{PARA}{PARA}</p>
        <h3>More on this topic</h3>
        <ul class="related-links"><li><a href="/a">Another story entirely</a></li><li><a href="/b">And one more</a></li></ul>
        </article></body>"#
    );
    let (text, _) = extract_text(&html);
    assert!(!text.contains("More on this topic"), "{text}");
    assert!(!text.contains("Another story"), "{text}");
    // A heading whose content follows under a subheading still heads it.
    for kept in ["What happened", "Background", "Earlier years"] {
        assert!(text.contains(kept), "{kept} missing from {text}");
    }
}

#[test]
fn a_short_post_under_its_own_headline_is_not_a_fallback() {
    let html = r#"<html><head><title>Notes from the garden</title></head><body>
        <nav><ul><li><a href="/">Home</a></li><li><a href="/archive">Archive of every post on this blog</a></li></ul></nav>
        <div class="post"><h1><a href="/notes">Notes from the garden</a></h1>
          <div class="entry"><p>The tomatoes came up early this year. We ate the first one today.</p>
          <p>Next week: beans, and maybe peas if the rain holds off until Sunday.</p></div></div>
        <div class="sidebar-widgets"><p>Subscribe to get every new post by email, the day it is published, with no ads at all.</p>
        <p>Browse the archive by month, by tag, or by the season the post was written in, going back ten years.</p></div>
        </body></html>"#;
    let (text, ex) = extract_text(html);
    assert_eq!(ex.fallback, None, "{text}");
    assert!(text.contains("The tomatoes came up early"), "{text}");
    assert!(!text.contains("Subscribe"), "{text}");
}

#[test]
fn live_ticker_entries_are_content_but_reader_comments_are_not() {
    use classify::class_signal;
    let sig = |class: &str| {
        let page = Page::parse(&format!(r#"<div class="{class}"></div>"#));
        let div = page.query("div").unwrap();
        class_signal(page.element(div).unwrap(), &mut Default::default())
    };
    assert!(!sig("live-match-comment").is_boilerplate());
    assert!(!sig("liveticker-comments").is_boilerplate());
    assert!(sig("article-comments").is_boilerplate());
    assert!(
        sig("live-share-comment").is_boilerplate(),
        "share is furniture live or not"
    );
}

#[test]
fn a_heading_id_that_slugs_its_text_says_nothing_about_its_role() {
    use classify::class_signal;
    let page = Page::parse(r#"<h3 id="nav_the_battery_lives_on">x</h3><div id="nav_main">y</div>"#);
    let h3 = page.query("h3").unwrap();
    let div = page.query("div").unwrap();
    assert!(!class_signal(page.element(h3).unwrap(), &mut Default::default()).is_boilerplate());
    assert!(class_signal(page.element(div).unwrap(), &mut Default::default()).is_boilerplate());
}

#[test]
fn a_body_split_over_like_wrappers_is_taken_whole() {
    let html = format!(
        r#"<body><article><div class="container">
        <div class="section-wrap"><div class="inner"><section><p>First part. {PARA}</p><p>{PARA}</p></section></div><div class="ad-slot"></div></div>
        <div class="section-wrap"><div class="inner"><section><p>Second part. {PARA}{PARA}{PARA}</p><p>{PARA}{PARA}{PARA}</p><p>{PARA}{PARA}{PARA}</p><p>{PARA}{PARA}{PARA}</p><p>{PARA}{PARA}{PARA}</p></section></div><div class="ad-slot"></div></div>
        <div class="section-wrap"><div class="inner"><section><p>Third part. {PARA}</p><p>{PARA}</p></section></div><div class="ad-slot"></div></div>
        <div class="more-stories"><a href="/x">A different story</a> <a href="/y">And another one</a></div>
        </div></article></body>"#
    );
    let (text, _) = extract_text(&html);
    for part in ["First part.", "Second part.", "Third part."] {
        assert!(text.contains(part), "{part} missing from {text}");
    }
    assert!(!text.contains("A different story"), "{text}");
}

#[test]
fn a_link_alone_in_a_paragraph_is_dropped_when_it_stays_on_the_site() {
    let html = format!(
        r#"<html><head><link rel="canonical" href="https://news.example.com/2024/story.html"></head><body><article>
        <p>{PARA}{PARA}</p>
        <p><a href="https://www.news.example.com/2024/other.html">Another story on this site</a></p>
        <p><a href="/2024/third.html">And a third one</a></p>
        <p>{PARA}{PARA}</p>
        <p><a href="https://data.example.org/report.pdf">The report itself</a></p>
        <p><a href="mailto:desk@news.example.com">desk@news.example.com</a></p>
        <p>{PARA}{PARA}</p>
        </article></body></html>"#
    );
    let (text, _) = extract_text(&html);
    assert!(!text.contains("Another story on this site"), "{text}");
    assert!(!text.contains("And a third one"), "{text}");
    assert!(text.contains("The report itself"), "{text}");
    assert!(text.contains("desk@news.example.com"), "{text}");
}

#[test]
fn only_the_first_copy_of_the_title_is_the_headline() {
    let html = format!(
        r#"<html><head><title>How hens lay eggs | Farm Blog</title></head><body>
        <h1>How hens lay eggs</h1>
        <div class="entry"><p>{PARA}{PARA}</p><h2>How hens lay their eggs</h2><p>{PARA}{PARA}</p><p>{PARA}</p></div>
        </body></html>"#
    );
    let (text, _) = extract_text(&html);
    assert!(text.contains("How hens lay their eggs"), "{text}");
    assert!(!text.contains("How hens lay eggs"), "{text}");
}
