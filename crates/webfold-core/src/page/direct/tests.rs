//! The pages built here must be the trees html5ever's tree builder builds
//! from the same tokens, and the pages left to it must be left early.

use crate::page::build::parse_with_tree_builder;
use crate::page::{NodeData, Page};

/// The tree, one node a line: what a failure shows.
fn outline(page: &Page) -> String {
    let mut out = format!("quirks={}\n", page.quirks_mode());
    for n in page.nodes() {
        let what = match &n.data {
            NodeData::Element(e) => {
                let attrs: Vec<String> = e
                    .attrs
                    .iter()
                    .map(|a| {
                        format!(
                            "{:?}:{:?}:{}={:?}",
                            a.name.prefix, a.name.ns, a.name.local, a.value
                        )
                    })
                    .collect();
                format!("<{:?}:{} {}>", e.name.ns, e.name.local, attrs.join(" "))
            }
            other => format!("{other:?}"),
        };
        out += &format!(
            "{}{what} {:?} {:?} {:?} {:?} {}\n",
            "  ".repeat(n.depth as usize),
            n.parent,
            n.first_child,
            n.prev_sibling,
            n.next_sibling,
            n.subtree_end,
        );
    }
    out
}

fn builds(html: &str) {
    let Some(ours) = super::parse(html) else {
        panic!("left {html:?} to html5ever");
    };
    let theirs = parse_with_tree_builder(html);
    let (ours, theirs) = (outline(&ours), outline(&theirs));
    assert!(
        ours == theirs,
        "on {html:?}\nours:\n{ours}\ntheirs:\n{theirs}"
    );
}

#[test]
fn documents_and_their_implied_elements() {
    for html in [
        "",
        "x",
        "  \n ",
        "<!DOCTYPE html>",
        "<!-- a --><!DOCTYPE html><!-- b --><html><!-- c --><head> <title>t</title> </head> <body>x</body></html>",
        "<html lang=en><html class=x id=y><body a=1><body a=2 b=3>x",
        "<head><meta charset=utf-8><link rel=x><style>p{}</style><script>if (a<b) x()</script><noscript><p>x</noscript></head>",
        "<title>a &amp; b</title>text in the head",
        "<head></head>\n<body>x</body>\n</html>\n",
        "</head></body>x</html>",
        "<p>x</body>\n<!-- after body -->\n</html>\n<!-- after html -->\n",
        "<p>x</body><!-- a --></html><!-- b -->y<!-- c -->",
        "<p>x</html>\n\n</body>\n",
    ] {
        builds(html);
    }
}

#[test]
fn doctypes_and_quirks() {
    for html in [
        "<p><table><tr><td>x</table>",
        "<!DOCTYPE html><p><table><tr><td>x</table>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\"><p><table></table>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><p><table></table>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\"><p><table></table>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><p><table></table>",
        "<!DOCTYPE svg><p><table></table>",
        "<!DOCTYPE><p>x",
        "<!DOCTYPE html SYSTEM \"about:legacy-compat\"><p>x",
    ] {
        builds(html);
    }
}

#[test]
fn blocks_lists_and_implied_end_tags() {
    for html in [
        "<p>a<p>b<div>c<p>d</div>e</p>f",
        "<ul><li>a<li>b<ul><li>c</ul><li>d</ul>",
        "<dl><dt>a<dd>b<dt>c<div><dd>d</div></dl>",
        "<h1>a<h2>b</h1>c</h2>d",
        "<pre>\nx</pre><pre>\n\ny</pre><listing>\nz</listing>",
        "<pre><code>\nx</code></pre><pre><!-- c -->\ny</pre>",
        "<textarea>\nx</textarea><textarea>y</textarea>",
        "<button>a<button>b</button>c",
        "<form><form><input></form>x</form>",
        "<div><form>a</div>b</form>c",
        "</p></br>x</br>",
        "<p>a</span>b</p></div>",
        "<select><option>a<option>b<optgroup><option>c</select><input>",
        "<select><hr><option>x</option></select><option>y<option>z",
        "<object><p>x</object>y",
        "<iframe><p>x</iframe><noembed><b></noembed><xmp><i></xmp>",
        "<p>\0x\0</p>",
        "<div>a&amp;b&copy c&#x41;</div>",
    ] {
        builds(html);
    }
}

#[test]
fn formatting_elements() {
    for html in [
        "<b>a<i>b</i>c</b>",
        "<p><b>a</p><p>b</b>c",
        "<p><b><i>a</p>b",
        "<b><b><b><b>x</b></b></b></b>y",
        "<p><b class=x><b class=x><b class=x><b class=x>a</p>b",
        "<a href=1>a<a href=2>b</a>c",
        "<a href=1><b>a<a href=2>b",
        "<b>a</i>b</b>",
        "<table><td><b>x</td><td>y</table>z",
    ] {
        builds(html);
    }
}

#[test]
fn tables() {
    for html in [
        "<table><tr><td>a<td>b<tr><th>c</table>",
        "<table>\n <tbody>\n <tr>\n <td>a</td>\n </tr>\n </tbody>\n</table>",
        "<table><caption>c<td>x</table>",
        "<table><colgroup><col><col></colgroup><col><tr><td>x</table>",
        "<table><thead><tr><th>h</thead><tbody><tr><td>b</tbody><tfoot><tr><td>f</table>",
        "<table><tr><td><table><tr><td>inner</table>outer</table>",
        "<table><tr><td>a</tr></tbody><td>b</table>",
        "<table><td>a<table><td>b</table>c</table>",
        "<table><form><tr><td><input type=hidden>x</form></table>",
        "<table><input type=hidden><tr><td>x</table>",
        "<table><script>x</script><style>y</style><tr><td>z</table>",
        "<table><!-- c --><tr><!-- d --><td>x</table>",
        "<table><tr><td>x</td></tr></table></td></tr></table>",
        "<table><table>",
    ] {
        builds(html);
    }
}

#[test]
fn svg() {
    for html in [
        "<svg viewbox='0 0 1 1' xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink'><use xlink:href='#a'/><path d='M0'/></svg>x",
        "<p><svg><lineargradient gradientunits=x><stop/></lineargradient><clippath><rect/></clippath></svg>",
        "<svg><title>t <b>bold</b></title><desc>d</desc><foreignObject><p>html</p></foreignObject></svg>",
        "<svg><g><p>out</p></g></svg>",
        "<svg><g></p>x</svg>",
        "<svg><style>a{}</style><script>b</script></svg>",
        "<svg><![CDATA[x<y]]></svg>",
        "<svg><font color=red>x</font></svg><svg><font>y</font></svg>",
        "<svg><g></G></SVG>z",
        "<svg>\0</svg>",
        "<b><svg><g>x</b>y</svg>",
        "<svg/>x<svg></svg>",
        "<svg><g></body><!-- c -->x</html><!-- d --><g>",
        "<svg><title></body><!-- c --></svg>",
    ] {
        builds(html);
    }
}

#[test]
fn pages_it_leaves_to_html5ever() {
    for html in [
        "<b><p>x</b>y",
        "<table>x</table>",
        "<table><div>x</div></table>",
        "<template><p>x</template>",
        "<math><mi>x</mi></math>",
        "<frameset></frameset>",
        "</head><meta charset=utf-8><body>",
        "<plaintext>x",
        "<!DOCTYPE html PUBLIC \"-//IETF//DTD HTML//EN\">",
    ] {
        assert!(super::parse(html).is_none(), "built {html:?}");
        // And html5ever's tree is what the page gets.
        let page = Page::parse(html);
        assert_eq!(outline(&page), outline(&parse_with_tree_builder(html)));
    }
}

#[test]
fn nesting_near_the_limit_is_left_to_html5ever() {
    let deep = "<div>".repeat(600);
    assert!(super::parse(&deep).is_none());
    let shallow = "<div>".repeat(400);
    builds(&shallow);
}

#[test]
fn most_corpus_pages_are_built_here() {
    let (mut pages, mut built) = (0, 0);
    for page in webfold_corpus::sample(1) {
        let html = page.html();
        pages += 1;
        if let Some(ours) = super::parse(&html) {
            built += 1;
            let theirs = parse_with_tree_builder(&html);
            assert!(
                outline(&ours) == outline(&theirs),
                "{} parses differently",
                page.id
            );
        }
    }
    assert!(pages > 800, "only {pages} pages read");
    // 845 of 911 when this was written: the rest misnest formatting
    // elements across blocks, foster text out of tables, use templates.
    assert!(
        built * 100 >= pages * 90,
        "{built} of {pages} pages built here"
    );
}
