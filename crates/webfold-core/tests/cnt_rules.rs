//! Seed 003's CNT rules, one test each, on hand-written HTML. Markup has no
//! whitespace between tags where ids matter, so ids read straight off it:
//! 0 document, 1 html, 2 head, 3 body, then the body's nodes in order.

use webfold_core::cnt::{Cnt, CntId, Cut, HiddenRange, ViewOptions, is_clickable};
use webfold_core::page::{Layout, NodeData};
use webfold_core::tokens::Encoding;
use webfold_core::{NodeId, Page};

/// The whole CNT in the LLM format, nothing cut.
fn tree(html: &str) -> String {
    let cnt = Cnt::build(&Page::parse(html));
    let view = cnt
        .view_with_cut(None, Cut::NONE, Encoding::default())
        .expect("page view");
    view.text
}

fn absorbed_sorted(cnt: &Cnt, id: u32) -> Vec<u32> {
    let node = cnt
        .nodes()
        .iter()
        .find(|n| n.id == NodeId::new(id))
        .expect("node in CNT");
    let mut v: Vec<u32> = node.absorbed.iter().map(|n| n.get()).collect();
    v.sort_unstable();
    v
}

#[test]
fn filtering_drops_script_style_meta_link_and_comments() {
    let html = "<body><a href=1>one</a><script>x</script><style>y</style><meta name=m><link rel=r><!--c--><a href=2>two</a></body>";
    assert_eq!(tree(html), "3 body\n 4 a* href=1 one\n 13 a* href=2 two\n");
}

#[test]
fn filtering_drops_what_is_not_rendered_but_keeps_visible_descendants() {
    let html = "<body><a href=1>one</a><a href=2 hidden>h</a><a href=3 style=\"display:none\">d</a>\
        <div style=\"visibility:hidden\"><a href=4>v</a><a href=5 style=\"visibility:visible\">shown</a></div>\
        <template><a href=6>t</a></template></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 a* href=1 one\n 13 a* href=5 shown\n"
    );
}

#[test]
fn filtering_drops_empty_text_containers_but_not_actions_or_images() {
    let html = "<body><div></div><span> </span><p><b></b></p><button></button><input name=q><img src=x.png><a href=1>l</a></body>";
    assert_eq!(
        tree(html),
        "3 body\n 9 button*\n 10 input* name=q\n 11 img src=x.png\n 12 a* href=1 l\n"
    );
}

#[test]
fn only_listed_attributes_are_kept() {
    let html = "<body><a href=/x id=k class=c style=\"color:red\" data-x=1 title=\"Go there\" aria-label=Label role=link target=_blank>x</a>\
        <input type=text name=n value=\"\" placeholder=P><img src=a.png alt=\"\" title=T></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 a* href=/x title=\"Go there\" aria-label=Label role=link x\n 6 input* type=text name=n value=\"\" placeholder=P\n 7 img src=a.png title=T\n"
    );
}

#[test]
fn clickable_follows_the_documented_list() {
    let page = Page::parse(
        "<body><a href=1>a</a><a name=n>anchor</a><button>b</button><input><select><option>o</option></select>\
         <textarea></textarea><label>l</label><details><summary>s</summary></details><div onclick=f()>c</div>\
         <div role=button>r</div><div role=tab>t</div><div role=menu>m</div><div tabindex=0>t0</div>\
         <div tabindex=-1>tm</div><div contenteditable>e</div><div contenteditable=false>ef</div><p>plain</p></body>",
    );
    let click = |sel: &str| is_clickable(&page, page.query(sel).expect(sel));
    for yes in [
        "a[href]",
        "button",
        "input",
        "select",
        "option",
        "textarea",
        "label",
        "summary",
        "[onclick]",
        "[role=button]",
        "[role=tab]",
        "[tabindex='0']",
        "[contenteditable='']",
    ] {
        assert!(click(yes), "{yes} should be clickable");
    }
    for no in [
        "a[name]",
        "[role=menu]",
        "[tabindex='-1']",
        "[contenteditable=false]",
        "p",
        "details",
    ] {
        assert!(!click(no), "{no} should not be clickable");
    }
}

#[test]
fn cursor_pointer_makes_clickable_only_where_it_starts() {
    let mut page =
        Page::parse("<body><div class=card><span>Open</span></div><a href=1>x</a></body>");
    let card = page.query(".card").unwrap();
    let span = page.query("span").unwrap();
    let layout = (0..page.len())
        .map(|i| {
            let id = NodeId::new(i as u32);
            let pointer = id == card || id == span;
            Some(Layout {
                rendered: true,
                cursor: Some(if pointer { "pointer" } else { "auto" }.to_string()),
                ..Layout::default()
            })
        })
        .collect();
    page.set_layout(layout);
    assert!(is_clickable(&page, card));
    assert!(
        !is_clickable(&page, span),
        "span inherits the pointer; it is not the target"
    );
    let cnt = Cnt::build(&page);
    let text = cnt
        .view_with_cut(None, Cut::NONE, Encoding::default())
        .unwrap()
        .text;
    assert_eq!(text, "3 body\n 4 div,span* Open\n 7 a* href=1 x\n");
}

#[test]
fn adjacent_text_nodes_merge_and_join_as_they_read() {
    // The merged run is the last child and its previous sibling has
    // children, so it stays a text line of its own.
    let html = "<body><ul><li><a href=1>x</a></li><li><a href=2>y</a></li></ul><span>Hello</span> <em>big</em><b>world</b><p>Next</p></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 ul\n  5 li,a* href=1 x\n  8 li,a* href=2 y\n Hello bigworld Next\n"
    );
    let cnt = Cnt::build(&Page::parse(html));
    assert_eq!(absorbed_sorted(&cnt, 11), (12..=19).collect::<Vec<_>>());
}

#[test]
fn merged_text_keeps_a_tag_all_members_share() {
    let html = "<body><ul><li><a href=1>x</a></li><li><a href=2>y</a></li></ul><p title=t>One</p><p title=t>Two</p></body>";
    assert!(
        tree(html).ends_with(" 11 p title=t One Two\n"),
        "{}",
        tree(html)
    );
}

#[test]
fn text_merging_is_recursive() {
    // div's spans merge to "ab", div absorbs that (div,span), and then that
    // merges with the p at the body level.
    let html = "<body><ul><li><a href=1>x</a></li><li><a href=2>y</a></li></ul><div><span>a</span><span>b</span></div><p>c</p></body>";
    assert!(tree(html).ends_with("\n ab c\n"), "{}", tree(html));
}

/// The words an element took in stay, and its own are quoted among them:
/// an agent reads which words are the link's.
#[test]
fn text_is_prepended_into_the_next_non_text_sibling() {
    let html = "<body><p>Read the <a href=/docs>docs</a></p><div><span>Label:</span><button>Go</button><button>Stop</button></div></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 p,a* href=/docs Read the \"docs\"\n 8 div\n  11 button* Label: \"Go\"\n  13 button* Stop\n"
    );
    let both = "<body><p>eu <span onclick=go()>mauris.</span> velit sit.</p><label>Name <input></label></body>";
    assert_eq!(
        tree(both),
        "3 body\n 4 p,span* eu \"mauris.\" velit sit.\n 9 label*\n  11 input* Name\n"
    );
}

#[test]
fn last_text_is_appended_only_into_a_childless_previous_sibling() {
    let appended = "<body><div><button>Save</button> now</div><a href=1>x</a></body>";
    assert_eq!(
        tree(appended),
        "3 body\n 4 div,button* \"Save\" now\n 8 a* href=1 x\n"
    );
    let kept = "<body><div><ul><li><a href=1>x</a></li><li><a href=2>y</a></li></ul>tail</div><a href=3>z</a></body>";
    assert_eq!(
        tree(kept),
        "3 body\n 4 div\n  5 ul\n   6 li,a* href=1 x\n   9 li,a* href=2 y\n  tail\n 13 a* href=3 z\n"
    );
}

/// Headings and live-region messages keep lines of their own, as in the
/// snapshot: merged into a neighbour, a heading would read as the label of
/// the button after it, and a status as part of the button before it.
#[test]
fn headings_and_live_messages_keep_their_own_lines() {
    let beside_buttons = "<body><div><h2>Page B</h2><button>Buy now</button></div><div><button>Sell</button><div role=status>Order placed</div></div></body>";
    assert_eq!(
        tree(beside_buttons),
        "3 body\n 4 div\n  5 h2 Page B\n  7 button* Buy now\n 9 div\n  10 button* Sell\n  12 div role=status Order placed\n"
    );
    // Every heading and live-region kind, among text that still merges.
    let kinds = "<body><p>Intro</p><h3>Title</h3><p>Body</p><div role=heading aria-level=4>Sub</div><p>More</p><p role=alert>Failed</p><p role=log>Joined</p><span aria-live=polite>Saved</span><output>42</output><span aria-live=off>quiet</span><p>end</p></body>";
    assert_eq!(
        tree(kinds),
        "3 body\n 4 p Intro\n 6 h3 Title\n 8 p Body\n 10 div role=heading aria-level=4 Sub\n 12 p More\n 14 p role=alert Failed\n 16 p role=log Joined\n 18 span aria-live=polite Saved\n 20 output 42\n quiet end\n"
    );
    // Loose text before or after one stays a line of its own too; an element
    // that absorbs a heading keeps its line as the heading's.
    let loose = "<body><div>Before<h2>Deals</h2>after</div><section><h2>Menu</h2></section><button>Go</button></body>";
    assert_eq!(
        tree(loose),
        "3 body\n 4 div\n  Before\n  6 h2 Deals\n  after\n 9 section,h2 Menu\n 12 button* Go\n"
    );
    // A role that is not a heading's overrides the tag.
    assert_eq!(
        tree(
            "<body><div><h2 role=presentation>Page B</h2><button>Buy now</button></div><a href=1>x</a></body>"
        ),
        "3 body\n 4 div,button* Page B \"Buy now\"\n 9 a* href=1 x\n"
    );
}

#[test]
fn single_text_child_becomes_the_parents_text() {
    let html = "<body><nav><a href=1>x</a><a href=2>y</a></nav><h1>Title</h1></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 nav\n  5 a* href=1 x\n  7 a* href=2 y\n 9 h1 Title\n"
    );
    let cnt = Cnt::build(&Page::parse(html));
    assert_eq!(absorbed_sorted(&cnt, 9), vec![10]);
}

#[test]
fn single_child_is_absorbed_with_tags_attributes_and_ids() {
    let html = "<body><div role=navigation><ul><li><a href=/a title=A><span>Home</span></a></li></ul></div><a href=1>x</a></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 div,ul,li,a,span* role=navigation href=/a title=A Home\n 10 a* href=1 x\n"
    );
    let cnt = Cnt::build(&Page::parse(html));
    assert_eq!(absorbed_sorted(&cnt, 4), vec![5, 6, 7, 8, 9]);
    // Every absorbed DOM id leads to the same CNT node.
    for d in 4..=9 {
        assert_eq!(
            cnt.node_of(NodeId::new(d)).map(|n| n.id),
            Some(NodeId::new(4))
        );
    }
    // A repeated tag is written once; the child's attribute value wins.
    assert_eq!(
        tree(
            "<body><div title=outer><div title=inner><a href=1>x</a></div></div><a href=2>y</a></body>"
        ),
        "3 body\n 4 div,a* title=inner href=1 x\n 8 a* href=2 y\n"
    );
}

#[test]
fn clickable_parent_keeps_a_clickable_child() {
    let html =
        "<body><div onclick=f()><a href=1>x</a></div><button><span>Go</span></button></body>";
    assert_eq!(
        tree(html),
        "3 body\n 4 div*\n  5 a* href=1 x\n 7 button,span* Go\n"
    );
}

fn list_page(n: usize) -> String {
    let items: String = (0..n)
        .map(|i| format!("<li><a href=/{i}>item {i}</a></li>"))
        .collect();
    format!("<body><ul>{items}</ul></body>")
}

#[test]
fn compression_shows_first_and_last_children_around_a_marker() {
    let cnt = Cnt::build(&Page::parse(&list_page(10)));
    let cut = Cut {
        width: 4,
        text_limit: usize::MAX,
        wide_depths: 0,
    };
    let text = cnt
        .view_with_cut(None, cut, Encoding::default())
        .unwrap()
        .text;
    assert_eq!(
        text,
        "3 body,ul\n 5 li,a* href=/0 item 0\n 8 li,a* href=/1 item 1\n … 6 hidden [3.2-7]\n \
         29 li,a* href=/8 item 8\n 32 li,a* href=/9 item 9\n\
         # to see what is cut (`… N hidden` children, `…+N` characters): cnt --expand ID\n"
    );
    // Expanding the marker shows exactly the hidden children, compressed the same way.
    let id: CntId = "3.2-7".parse().unwrap();
    let text = cnt
        .view_with_cut(Some(&id), cut, Encoding::default())
        .unwrap()
        .text;
    assert_eq!(
        text,
        "# expand 3.2-7\n11 li,a* href=/2 item 2\n14 li,a* href=/3 item 3\n… 2 hidden [3.4-5]\n\
         23 li,a* href=/6 item 6\n26 li,a* href=/7 item 7\n\
         # to see what is cut (`… N hidden` children, `…+N` characters): cnt --expand ID\n"
    );
}

#[test]
fn expanding_a_marker_always_shows_at_least_one_child() {
    let cnt = Cnt::build(&Page::parse(&list_page(10)));
    let id: CntId = "3.0-9".parse().unwrap();
    let text = cnt
        .view_with_cut(Some(&id), Cut::level(0), Encoding::default())
        .unwrap()
        .text;
    assert!(
        text.starts_with("# expand 3.0-9\n5 li,a* href=/0 item 0\n… 9 hidden [3.1-9]\n"),
        "{text}"
    );
}

#[test]
fn budget_picks_the_widest_view_that_fits() {
    let cnt = Cnt::build(&Page::parse(&list_page(200)));
    let smallest = cnt
        .view_with_cut(None, Cut::level(0), Encoding::default())
        .unwrap()
        .tokens;
    assert!(smallest < 60, "{smallest}");
    for budget in [smallest, 100, 400, 1000] {
        let view = cnt
            .view(
                &ViewOptions {
                    max_tokens: budget,
                    ..Default::default()
                },
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
        assert!(view.tokens <= budget, "{} > {budget}", view.tokens);
        assert_eq!(view.tokens, webfold_core::tokens::count_default(&view.text));
        // One child more would not fit.
        let wider = Cut {
            wide_depths: view.cut.wide_depths + 1,
            ..view.cut
        };
        let more = cnt.view_with_cut(None, wider, Encoding::default()).unwrap();
        assert!(
            more.text == view.text || more.tokens > budget,
            "budget {budget}: {:?} also fits",
            wider
        );
    }
    let err = cnt
        .view(
            &ViewOptions {
                max_tokens: smallest - 1,
                ..Default::default()
            },
            webfold_core::contract::Ctx::default(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("raise --max-tokens"), "{err}");
}

#[test]
fn long_text_is_cut_and_expanding_its_node_shows_more() {
    let words: String = (0..400).map(|i| format!("word{i} ")).collect();
    let html = format!("<body><nav><a href=1>x</a><a href=2>y</a></nav><p>{words}</p></body>");
    let cnt = Cnt::build(&Page::parse(&html));
    let view = cnt
        .view(
            &ViewOptions {
                max_tokens: 300,
                ..Default::default()
            },
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
    let line = view
        .text
        .lines()
        .find(|l| l.contains("9 p "))
        .expect("the paragraph line");
    assert!(line.ends_with(" [9]") && line.contains("…+"), "{line}");
    let shown_before = line.len();
    let expanded = cnt
        .view(
            &ViewOptions {
                max_tokens: 2000,
                expand: Some(CntId::Node(NodeId::new(9))),
                focus: None,
            },
            webfold_core::contract::Ctx::default(),
        )
        .unwrap();
    assert!(
        expanded.text.starts_with("# expand 9\n9 p word0 word1"),
        "{}",
        expanded.text
    );
    assert!(expanded.text.len() > shown_before * 2);
}

#[test]
fn ids_parse_and_print() {
    assert_eq!("12".parse::<CntId>().unwrap(), CntId::Node(NodeId::new(12)));
    let r = CntId::Hidden(HiddenRange {
        parent: NodeId::new(12),
        first: 3,
        last: 97,
    });
    assert_eq!("12.3-97".parse::<CntId>().unwrap(), r);
    assert_eq!(" [12.3-97] ".parse::<CntId>().unwrap(), r);
    assert_eq!(r.to_string(), "12.3-97");
    for bad in ["", "x", "12.", "12.3", "12.5-3", "-1", "1.2-3-4"] {
        assert!(bad.parse::<CntId>().is_err(), "{bad:?} parsed");
    }
}

#[test]
fn expand_rejects_ids_that_name_nothing() {
    let cnt = Cnt::build(&Page::parse(&list_page(10)));
    let expand = |s: &str| {
        cnt.view(
            &ViewOptions {
                expand: Some(s.parse().unwrap()),
                ..Default::default()
            },
            webfold_core::contract::Ctx::default(),
        )
    };
    assert!(expand("3.2-7").is_ok());
    assert!(
        expand("3.2-10")
            .unwrap_err()
            .to_string()
            .contains("has 10 children")
    );
    assert!(expand("5.0-0").unwrap_err().to_string().contains("5"));
    assert!(
        expand("99999")
            .unwrap_err()
            .to_string()
            .contains("unknown node id")
    );
    // Node 2 (<head>) exists but is not in the CNT.
    assert!(expand("2").unwrap_err().to_string().contains("chunk"));
}

#[test]
fn json_has_the_tree_and_the_compressed_handles() {
    let cnt = Cnt::build(&Page::parse(&list_page(10)));
    let cut = Cut {
        width: 4,
        text_limit: usize::MAX,
        wide_depths: 0,
    };
    let view = cnt.view_with_cut(None, cut, Encoding::default()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&view.to_json()).expect("valid JSON");
    let root = &json["nodes"][0];
    assert_eq!(root["id"], 3);
    assert_eq!(root["tag"], "body,ul");
    assert_eq!(
        root["compressed"],
        serde_json::json!({"id": "3.2-7", "hidden": 6})
    );
    let kids = root["children"].as_array().unwrap();
    assert_eq!(kids.len(), 4);
    assert_eq!(kids[0]["tag"], "li,a");
    assert_eq!(kids[0]["text"], "item 0");
    assert_eq!(kids[0]["attrs"], serde_json::json!({"href": "/0"}));
    assert_eq!(kids[0]["clickable"], true);
    assert_eq!(kids[0]["children"], serde_json::json!([]));
}

#[test]
fn html_visualization_marks_compressed_nodes() {
    let cnt = Cnt::build(&Page::parse(&list_page(10)));
    let cut = Cut {
        width: 4,
        text_limit: usize::MAX,
        wide_depths: 0,
    };
    let html = cnt
        .view_with_cut(None, cut, Encoding::default())
        .unwrap()
        .to_html();
    let page = Page::parse(&html);
    let compressed = page.query_all("li.compressed").unwrap();
    assert_eq!(compressed.len(), 1);
    assert_eq!(
        page.element(compressed[0]).unwrap().attr("data-id"),
        Some("3")
    );
    let marker = page.query("li.marker").unwrap();
    assert_eq!(page.text_content(marker), "… 6 hidden [3.2-7]");
    assert_eq!(page.query_all("li.clickable").unwrap().len(), 4);
}

#[test]
fn a_page_100000_elements_deep_builds_and_fits() {
    let depth = 100_000;
    let mut html = String::with_capacity(depth * 12);
    html.push_str("<body>");
    for _ in 0..depth {
        html.push_str("<div><i>x</i>");
    }
    html.push_str("<a href=/deep>bottom</a>");
    let page = Page::parse(&html);
    assert!(
        page.nodes()
            .iter()
            .filter(|n| matches!(n.data, NodeData::Element(_)))
            .count()
            > depth
    );
    let cnt = Cnt::build(&page);
    for budget in [500, 8000] {
        let view = cnt
            .view(
                &ViewOptions {
                    max_tokens: budget,
                    ..Default::default()
                },
                webfold_core::contract::Ctx::default(),
            )
            .unwrap();
        assert!(view.tokens <= budget);
        assert!(view.stats.is_cut());
        let _ = view.to_json();
        let _ = view.to_html();
    }
    // The link at the bottom is in the tree.
    assert!(cnt.nodes().iter().any(|n| n.attr("href") == Some("/deep")));
}

#[test]
fn a_line_break_reads_as_a_space() {
    assert_eq!(tree("<body><p>one<br>two</p></body>"), "3 body,p one two\n");
}
