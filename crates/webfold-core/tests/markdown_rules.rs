//! One test per Markdown rule, in webfold's default (compact) style.

use url::Url;
use webfold_core::markdown::{MarkdownOptions, to_markdown, to_markdown_filtered};
use webfold_core::page::PageBuilder;
use webfold_core::{NodeId, Page};

fn md(html: &str) -> String {
    to_markdown(
        &Page::parse(html),
        NodeId::DOCUMENT,
        &MarkdownOptions::default(),
    )
}

fn md_at(html: &str, url: &str) -> String {
    let opts = MarkdownOptions {
        base_url: Some(Url::parse(url).unwrap()),
        ..MarkdownOptions::default()
    };
    to_markdown(&Page::parse(html), NodeId::DOCUMENT, &opts)
}

#[test]
fn headings_are_atx_on_one_line() {
    assert_eq!(
        md("<h1>Title</h1><h3>Sub <em>x</em></h3>"),
        "# Title\n\n### Sub *x*"
    );
    assert_eq!(md("<h2>Two<br>lines\n</h2>"), "## Two lines");
    assert_eq!(md("<h2> </h2><p>after</p>"), "after");
    let setext = MarkdownOptions {
        heading_style: webfold_core::markdown::HeadingStyle::Setext,
        ..Default::default()
    };
    assert_eq!(
        to_markdown(&Page::parse("<h1>Tïtle</h1>"), NodeId::DOCUMENT, &setext),
        "Tïtle\n====="
    );
}

#[test]
fn paragraphs_and_whitespace_collapse() {
    assert_eq!(
        md("<p>  one\n\n   two  </p>\n\n<p>three</p>"),
        "one two\n\nthree"
    );
    assert_eq!(md("<div>a<div>b</div>c</div>"), "a\n\nb\n\nc");
    assert_eq!(md("<p>a <span> b </span> c</p>"), "a b c");
    assert_eq!(md("<p>x&nbsp;y</p>"), "x\u{a0}y");
}

#[test]
fn emphasis_uses_asterisks_and_drops_empty_spans() {
    assert_eq!(
        md("<p><em>a</em> <strong>b</strong> <i> c </i>d</p>"),
        "*a* **b** *c* d"
    );
    assert_eq!(md("<p>in<em>word</em>s</p>"), "in*word*s");
    assert_eq!(md("<p>x<em> </em>y<b></b></p>"), "x y");
    assert_eq!(md("<p><del>old</del> new</p>"), "~~old~~ new");
    // A break inside emphasis would leave the closing `**` on a line of its own.
    assert_eq!(
        md("<p><strong><br></strong>x <b>bold<br></b>y</p>"),
        "x **bold**y"
    );
}

#[test]
fn links_resolve_against_the_base_url() {
    let html = r##"<p><a href="../docs/guide.html">Guide</a> <a href="/root">Root</a>
        <a href="?page=2">Next</a> <a href="#sec">Sec</a> <a href="//cdn.example.net/x">CDN</a>
        <a href="mailto:a@example.com">Mail</a> <a href="tel:+15550100">Call</a>
        <a href="https://other.example/a b">Space</a></p>"##;
    assert_eq!(
        md_at(html, "https://example.com/blog/2024/post.html"),
        "[Guide](https://example.com/blog/docs/guide.html) [Root](https://example.com/root) \
         [Next](https://example.com/blog/2024/post.html?page=2) [Sec](#sec) [CDN](https://cdn.example.net/x) \
         [Mail](mailto:a@example.com) [Call](tel:+15550100) [Space](<https://other.example/a b>)"
    );
    // Without a base, relative links stay relative.
    assert_eq!(md("<a href='a/b.html'>x</a>"), "[x](a/b.html)");
}

#[test]
fn a_repeated_link_keeps_its_text_in_brackets() {
    let html = r#"<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
        <p><a href="/shop">Shop</a> or <a href="/shop">the shop</a>, <a href="/">Home</a>(2)</p>
        <footer><a href="/">Home</a>: start</footer>"#;
    // Same text and address: the address once; other text: a link of its own;
    // a bracket the next text would turn into a link is escaped.
    assert_eq!(
        md_at(html, "https://example.com/"),
        "[Home](https://example.com/) [Shop](https://example.com/shop)\n\n\
         [Shop] or [the shop](https://example.com/shop), [Home]\\(2)\n\n[Home]\\: start"
    );
    // turndown's style is turndown's: every link whole.
    let page = Page::parse(html);
    let turndown = to_markdown(&page, NodeId::DOCUMENT, &MarkdownOptions::turndown());
    assert_eq!(turndown.matches("](/shop)").count(), 3, "{turndown}");
}

#[test]
fn a_link_with_words_is_named_by_them_not_its_images() {
    let html = r#"New: <a href="/p/1"><img src="/t/1.jpg" alt="Blue shirt"> Blue shirt, <img src="/eur.svg"> 20 €</a>
        <a href="/p/2"><img src="/t/2.jpg" alt="Red shirt"></a>
        <a href="/p/3"><img src="/t/3.jpg" alt="Green"><span hidden>Green shirt</span></a>
        <p><img src="/logo.png" alt="ACME"> … <img src="/logo.png" alt="ACME">(c)</p>"#;
    // Words name the link; an image-only link keeps its image (hidden words
    // print nothing, so they name nothing); an image shown again keeps its
    // alt in brackets, escaped where the next text would make it a link.
    assert_eq!(
        md_at(html, "https://example.com/"),
        "New: [Blue shirt, 20 €](https://example.com/p/1) \
         [![Red shirt](https://example.com/t/2.jpg)](https://example.com/p/2) \
         [![Green](https://example.com/t/3.jpg)](https://example.com/p/3)\n\n\
         ![ACME](https://example.com/logo.png) … ![ACME]\\(c)"
    );
    // turndown's style prints every image whole.
    let page = Page::parse(html);
    let turndown = to_markdown(&page, NodeId::DOCUMENT, &MarkdownOptions::turndown());
    assert_eq!(turndown.matches("![").count(), 6, "{turndown}");
}

#[test]
fn a_cards_picture_beside_its_title_link_leaves_the_title_alone() {
    let html = r#"<div><a href="/a/1"><img src="/i/1.jpg" alt="Demo"></a>
        <h3><a href="/a/1">Demo in Berlin</a></h3></div>
        <div><p><a href="/a/2">Rain</a> <a href="/a/2"><img src="/i/2.jpg"></a></p></div>
        <div><a href="/a/3"><img src="/i/3.jpg" alt="Sun"></a> <a href="/a/4">Sun tomorrow</a></div>
        <div><a href="/a/5"><img src="/i/5.jpg" alt="Snow"></a> Snow: <a href="/a/5">more</a></div>"#;
    // The same address in the card, or just before it: the picture goes.
    // Another address: it stays.
    assert_eq!(
        md_at(html, "https://example.com/"),
        "### [Demo in Berlin](https://example.com/a/1)\n\n\
         [Rain](https://example.com/a/2)\n\n\
         [![Sun](https://example.com/i/3.jpg)](https://example.com/a/3) \
         [Sun tomorrow](https://example.com/a/4)\n\n\
         Snow: [more](https://example.com/a/5)"
    );
    // A twin far off, past a card's size, is another part of the page's.
    let far = format!(
        r#"<section><div><a href="/a/6"><img src="/i/6.jpg" alt="Fog"></a></div>{}<a href="/a/6">Fog</a></section>"#,
        "<p>x</p>".repeat(80)
    );
    assert!(
        md(&far).starts_with("[![Fog](/i/6.jpg)](/a/6)"),
        "{}",
        md(&far)
    );
}

#[test]
fn base_href_wins_over_the_document_url() {
    let html =
        "<head><base href='/static/'></head><a href='page.html'>P</a><img src='i.png' alt='I'>";
    assert_eq!(
        md_at(html, "https://example.com/a/b.html"),
        "[P](https://example.com/static/page.html)![I](https://example.com/static/i.png)"
    );
}

#[test]
fn useless_links_keep_only_their_text() {
    assert_eq!(
        md("<p><a href='javascript:void(0)'>Menu</a> <a href='/x'></a>end</p>"),
        "Menu end"
    );
    assert_eq!(md("<p><a name='top'>anchor</a></p>"), "anchor");
    assert_eq!(md("<p><a href='/x' title='tip'>t</a></p>"), "[t](/x)");
    assert_eq!(md("<p>Wow!<a href='/x'>link</a></p>"), "Wow\\![link](/x)");
    // Card links wrap blocks; the link text stays on one line.
    assert_eq!(
        md("<a href='/story'><h3>Big news</h3><p>Read <em>more</em></p></a><p>next</p>"),
        "[Big news Read *more*](/story)\n\nnext"
    );
}

#[test]
fn images_prefer_the_real_source_and_shorten_data_uris() {
    let b64 = "A".repeat(2000);
    let html = format!(
        "<p><img alt='lazy' src='data:image/gif;base64,R0lGODlhAQABAAAAACw=' data-src='/real.jpg'>\
         <img alt='set' srcset='/s.jpg 1x, /l.jpg 2x'>\
         <img alt='inline' src='data:image/png;base64,{b64}'>\
         <img src='data:image/png;base64,{b64}'>\
         <img alt='(x)' src='/p (1).png'></p>"
    );
    assert_eq!(
        md_at(&html, "https://example.com/"),
        "![lazy](https://example.com/real.jpg)![set](https://example.com/s.jpg)\
         ![inline](data:image/png;base64,…)![(x)](https://example.com/p%20(1).png)"
    );
    let kept = MarkdownOptions {
        keep_data_uris: true,
        ..Default::default()
    };
    let out = to_markdown(&Page::parse(&html), NodeId::DOCUMENT, &kept);
    assert!(out.contains(&b64));
}

#[test]
fn decorative_images_are_dropped_outside_links() {
    let html = "<p>Before <img alt='' src='/rule.png'> after \
         <img alt=' ' src='/spacer.gif'><img src='/unnamed.png'></p>\
         <p><a href='/home'><img alt='' src='/logo.png'></a></p>";
    assert_eq!(
        md_at(html, "https://example.com/"),
        "Before after ![](https://example.com/unnamed.png)\n\n\
         [![](https://example.com/logo.png)](https://example.com/home)"
    );
    // turndown keeps them.
    let turndown = to_markdown(
        &Page::parse(html),
        NodeId::DOCUMENT,
        &MarkdownOptions::turndown(),
    );
    assert!(turndown.contains("![](/rule.png)"), "{turndown}");
}

#[test]
fn spacer_pixels_go_with_their_whitespace_in_links_too() {
    let pixel = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
    let html = format!(
        "<p>Before <img src='{pixel}'> after</p>\
         <p><a href='/next'>Next <img alt=' ' src='{pixel}'> page</a></p>\
         <p>Lazy <img src='{pixel}' data-src='/real.png'> image</p>"
    );
    assert_eq!(
        md_at(&html, "https://example.com/"),
        "Before after\n\n[Next page](https://example.com/next)\n\n\
         Lazy ![](https://example.com/real.png) image"
    );
}

#[test]
fn nested_lists_indent_by_marker_width() {
    let html = "<ul><li>one</li><li>two<ol start='9'><li>nine</li><li>ten<ul><li>deep</li></ul></li></ol></li>\
                <li><p>para</p><p>second</p></li></ul>";
    assert_eq!(
        md(html),
        "- one\n- two\n  9. nine\n  10. ten\n      - deep\n- para\n\n  second"
    );
    assert_eq!(
        md("<ol><li>a</li><li hidden>b</li><li>c</li></ol>"),
        "1. a\n2. c"
    );
}

#[test]
fn block_quotes_nest() {
    assert_eq!(
        md("<blockquote><p>a</p><blockquote><p>b</p></blockquote><p>c</p></blockquote>"),
        "> a\n>\n> > b\n>\n> c"
    );
    assert_eq!(md("<blockquote> </blockquote><p>x</p>"), "x");
}

#[test]
fn code_spans_and_fenced_blocks() {
    assert_eq!(
        md("<p>use <code>a`b</code> and <code> x </code></p>"),
        "use ``a`b`` and `x`"
    );
    assert_eq!(md("<p><code>a <b>bold</b> c</code></p>"), "`a bold c`");
    assert_eq!(
        md("<pre><code class='language-rust'>fn main() {\n    x_y * 2;\n}\n</code></pre>"),
        "```rust\nfn main() {\n    x_y * 2;\n}\n```"
    );
    assert_eq!(
        md("<pre class='lang-py'>print(1)</pre>"),
        "```py\nprint(1)\n```"
    );
    assert_eq!(
        md("<pre><span>a</span><br><span>b</span></pre>"),
        "```\na\nb\n```"
    );
    assert_eq!(
        md("<pre><code>```\nx\n```</code></pre>"),
        "````\n```\nx\n```\n````"
    );
    assert_eq!(
        md("<ul><li>code:<pre>x\ny</pre></li></ul>"),
        "- code:\n\n  ```\n  x\n  y\n  ```"
    );
}

#[test]
fn gfm_tables_escape_pipes_and_keep_columns() {
    let html = "<table><caption>Prices</caption><thead><tr><th>Name</th><th>Value</th><th>Note</th></tr></thead>\
                <tbody><tr><td>a|b</td><td colspan=2>wide</td></tr>\
                <tr><td rowspan=2>tall</td><td><p>x</p><p>y</p></td><td>1<br>2</td></tr>\
                <tr><td>z</td><td><code>c|d</code></td></tr></tbody></table>";
    assert_eq!(
        md(html),
        "Prices\n\n| Name | Value | Note |\n| --- | --- | --- |\n| a\\|b | wide | |\n\
         | tall | x y | 1 2 |\n| | z | `c\\|d` |"
    );
    // No header cells: the first row is the header all the same.
    assert_eq!(
        md("<table><tr><td>a</td><td>b</td></tr></table>"),
        "| a | b |\n| --- | --- |"
    );
}

#[test]
fn layout_tables_become_blocks() {
    let html = "<table><tr><td><h2>Side</h2></td><td><p>Main text</p></td></tr></table>";
    assert_eq!(md(html), "## Side\n\nMain text");
    let nested =
        "<table><tr><td><table><tr><td>a</td><td>b</td></tr></table></td><td>c</td></tr></table>";
    assert_eq!(md(nested), "| a | b |\n| --- | --- |\n\nc");
    assert_eq!(md("<table><tr><td>only</td></tr></table>"), "only");
}

#[test]
fn line_breaks() {
    assert_eq!(md("<p>a<br>b</p>"), "a\\\nb");
    assert_eq!(md("<p>a<br></p><p>b<br><br>c</p>"), "a\n\nb\n\nc");
    let two_spaces = MarkdownOptions {
        br: "  ".into(),
        ..Default::default()
    };
    assert_eq!(
        to_markdown(&Page::parse("<p>a<br>b</p>"), NodeId::DOCUMENT, &two_spaces),
        "a  \nb"
    );
}

#[test]
fn hidden_and_non_text_elements_are_dropped() {
    let html = "<head><title>T</title><style>p{}</style></head><body>\
        <script>var x = 1;</script><noscript>enable js</noscript><template><p>tpl</p></template>\
        <p hidden>hidden</p><p style='display:none'>none</p><p>seen <span style='visibility:hidden'>ghost</span></p>\
        <svg><text>chart</text></svg><select><option>France</option></select><iframe src='/x'></iframe>\
        <p aria-hidden='true'>aria</p><nav><a href='/home'>Home</a></nav></body>";
    assert_eq!(md(html), "seen\n\naria\n\n[Home](/home)");
}

#[test]
fn a_parsed_pages_frames_stay_dropped_with_their_fallback_text() {
    let html = "<p>a</p><iframe src='https://ads.example/x'>Your browser shows no \
        <b>frames</b></iframe><p>b</p><frameset><frame src='/menu'></frameset>";
    assert_eq!(md_at(html, "https://example.com/"), "a\n\nb");
}

/// A page as a live capture gives it: the frame's document under its
/// `<iframe>`, which holds another frame by a relative address.
fn framed_page() -> Page {
    let mut b = PageBuilder::new();
    let html = b.element(b.document(), "", "html", []);
    let body = b.element(html, "", "body", []);
    let p = b.element(body, "", "p", []);
    b.text(p, "Checkout");
    let attr = |k: &str, v: &str| [(k.to_string(), v.to_string())];
    let pay = b.element(body, "", "iframe", attr("src", "https://pay.example/card"));
    let doc = b.element(pay, "", "html", []);
    let head = b.element(doc, "", "head", []);
    let title = b.element(head, "", "title", []);
    b.text(title, "Pay");
    let inner_body = b.element(doc, "", "body", []);
    let h2 = b.element(inner_body, "", "h2", []);
    b.text(h2, "Card details");
    let inner = b.element(inner_body, "", "iframe", attr("src", "terms"));
    let inner_doc = b.element(inner, "", "html", []);
    let terms = b.element(inner_doc, "", "body", []);
    let a = b.element(terms, "", "a", attr("href", "full"));
    b.text(a, "Read the terms");
    let after = b.element(body, "", "p", []);
    b.text(after, "Thanks");
    b.finish()
}

#[test]
fn a_captured_frame_shows_its_document_under_its_address() {
    let opts = MarkdownOptions {
        base_url: Some(Url::parse("https://shop.example/checkout").unwrap()),
        ..MarkdownOptions::default()
    };
    assert_eq!(
        to_markdown(&framed_page(), NodeId::DOCUMENT, &opts),
        "Checkout\n\n[iframe https://pay.example/card]\n\n## Card details\n\n\
         [iframe https://pay.example/terms]\n\n[Read the terms](https://pay.example/full)\n\n\
         Thanks"
    );
    // A part inside frames (a frame's article) reads under its frame's line.
    let page = framed_page();
    let link = page.query("a").unwrap();
    let terms = page.parent(link).unwrap();
    assert_eq!(
        to_markdown(&page, terms, &opts),
        "[iframe https://pay.example/terms]\n\n[Read the terms](https://pay.example/full)"
    );
}

#[test]
fn escaping_is_minimal_but_safe() {
    assert_eq!(
        md("<p>snake_case a * b 2*3*4</p>"),
        "snake_case a * b 2\\*3\\*4"
    );
    assert_eq!(
        md("<p># not heading</p><p>1. not list</p><p>- nor this</p>"),
        "\\# not heading\n\n1\\. not list\n\n\\- nor this"
    );
    assert_eq!(md("<p>x<br>+ y</p>"), "x\\\n\\+ y");
    assert_eq!(
        md("<p>[1] &lt;div&gt; `tick` _u_</p>"),
        "[1\\] \\<div> \\`tick\\` \\_u\\_"
    );
    assert_eq!(md("<p>In C# 1. x</p>"), "In C# 1. x");
}

#[test]
fn filter_and_subtree_root() {
    let page = Page::parse(
        "<article><h1>T</h1><div class=ad>Buy</div><p>Body <span class=ad>x</span>text</p></article><footer>f</footer>",
    );
    let article = page.query("article").unwrap();
    let ads: Vec<NodeId> = page.query_all(".ad").unwrap();
    let skip = |id: NodeId| ads.contains(&id);
    let out = to_markdown_filtered(&page, article, &MarkdownOptions::default(), &skip);
    assert_eq!(out, "# T\n\nBody text");
    let p = page.query("p").unwrap();
    assert_eq!(
        to_markdown(&page, p, &MarkdownOptions::default()),
        "Body xtext"
    );
    assert_eq!(
        to_markdown(&page, NodeId::new(u32::MAX), &MarkdownOptions::default()),
        ""
    );
}

#[test]
fn deep_nesting_converts_without_recursion() {
    let depth = 100_000;
    for (open, close) in [
        ("<div>", "</div>"),
        ("<span>", "</span>"),
        ("<blockquote>", "</blockquote>"),
        ("<ul><li>", "</li></ul>"),
        ("<b>", "</b>"),
    ] {
        let html = format!("{}deep text{}", open.repeat(depth), close.repeat(depth));
        let page = Page::parse(&html);
        // Run on a small stack: any recursion over depth would overflow it.
        let out = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || to_markdown(&page, NodeId::DOCUMENT, &MarkdownOptions::default()))
            .unwrap()
            .join()
            .unwrap();
        assert!(
            out.contains("deep text"),
            "{open}: {}",
            &out[..out.len().min(200)]
        );
    }
}

/// A section opened after one block closed and inside another's line breaks:
/// the join before the next text dropped those breaks, and the section's
/// exit sliced the output where they had been, inside the next character.
#[test]
fn a_block_opened_between_line_breaks_a_join_drops_ends_cleanly() {
    for (html, want) in [
        ("<div><a></div><section><div><a></div>&#0", "\u{fffd}"),
        ("<div><a></div><section><div><a></div>é ", "é"),
        (
            "<p>x</p><div><p></p><p></p><span>日本</span>  </div>",
            "x\n\n日本",
        ),
    ] {
        assert_eq!(md(html), want, "{html}");
    }
}
