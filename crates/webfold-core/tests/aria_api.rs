//! The snapshot tree API others build on: refs kept stable by an allocator,
//! refs resolved to elements, filtered rendering, live layout, serde, and
//! pages nested far deeper than any recursion could survive.

use webfold_core::aria::{
    self, AriaTree, LineKind, Mode, RefAllocator, assign_refs, build, ref_to_node, render_yaml,
};
use webfold_core::page::{Layout, LayoutBox};
use webfold_core::{NodeId, Page};

fn ai_tree(page: &Page, alloc: &mut RefAllocator) -> AriaTree {
    let mut tree = build(page, page.body().expect("body"), Mode::Ai);
    assign_refs(&mut tree, alloc);
    tree
}

const FORM: &str = r#"<!doctype html><body><nav aria-label="Main"><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main><h1>Title</h1><button id="go">Go</button><input id="q" placeholder="Search"></main></body>"#;

#[test]
fn fresh_allocator_numbers_like_playwright() {
    let page = Page::parse(FORM);
    let yaml = render_yaml(&ai_tree(&page, &mut RefAllocator::new()), None);
    assert_eq!(
        yaml,
        r#"- generic [active] [ref=e1]:
  - navigation "Main" [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: /
    - link "Docs" [ref=e4] [cursor=pointer]:
      - /url: /docs
  - main [ref=e5]:
    - heading "Title" [level=1] [ref=e6]
    - button "Go" [ref=e7]
    - textbox "Search" [ref=e8]"#
    );
    assert_eq!(yaml, aria::snapshot(&page, Mode::Ai));
}

#[test]
fn refs_stay_stable_while_role_and_name_do() {
    let before = Page::parse(FORM);
    let mut alloc = RefAllocator::new();
    let first = ai_tree(&before, &mut alloc);
    // Same structure, one button renamed: node ids line up, so the allocator
    // can recognise every element.
    let after = Page::parse(&FORM.replace(">Go<", ">Send<"));
    let second = ai_tree(&after, &mut alloc);
    let refs = |t: &AriaTree| -> Vec<(String, String)> {
        t.nodes
            .iter()
            .filter_map(|n| Some((n.name.clone(), n.ref_.clone()?)))
            .collect()
    };
    let (a, b) = (refs(&first), refs(&second));
    assert_eq!(a.len(), b.len());
    for ((name_a, ref_a), (name_b, ref_b)) in a.iter().zip(&b) {
        if name_a == "Go" {
            assert_eq!(name_b, "Send");
            assert_eq!(ref_b, "e9", "a renamed element takes the next number");
        } else {
            assert_eq!(ref_a, ref_b, "{name_a} kept its ref");
        }
    }
    assert_eq!(alloc.issued_count(), 9);
}

#[test]
fn refs_resolve_to_their_elements() {
    let page = Page::parse(FORM);
    let tree = ai_tree(&page, &mut RefAllocator::new());
    let button = ref_to_node(&tree, "e7").expect("e7 resolves");
    assert_eq!(page.element(button).and_then(|e| e.id()), Some("go"));
    let input = ref_to_node(&tree, "e8").expect("e8 resolves");
    assert_eq!(page.tag(input), Some("input"));
    assert_eq!(ref_to_node(&tree, "e99"), None);
    // Every printed node points at its element, and find_ref agrees.
    let idx = tree.find_ref("e7").expect("printed");
    assert_eq!(tree.nodes[idx].node, Some(button));
    assert_eq!(tree.nodes[idx].role, "button");
}

#[test]
fn removed_nodes_leave_gaps_and_resolve() {
    // The nameless 1x1 image takes e2 but is distilled away, as in Playwright.
    let page = Page::parse(
        r#"<img src="data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA="><button>OK</button>"#,
    );
    let tree = ai_tree(&page, &mut RefAllocator::new());
    assert_eq!(render_yaml(&tree, None), r#"- button "OK" [ref=e3]"#);
    assert_eq!(
        ref_to_node(&tree, "e2").and_then(|n| page.tag(n)),
        Some("img")
    );
    assert_eq!(tree.find_ref("e2"), None, "not printed");
}

#[test]
fn filter_hides_and_collapses_subtrees() {
    let page = Page::parse(FORM);
    let tree = ai_tree(&page, &mut RefAllocator::new());
    let nav = tree.find_ref("e2").expect("nav");
    let heading = tree.find_ref("e6").expect("heading");
    let filter = |i: usize| {
        if i == nav {
            LineKind::Collapse("(unchanged since previous page)".into())
        } else if i == heading {
            LineKind::Hide
        } else {
            LineKind::Show
        }
    };
    let yaml = render_yaml(&tree, Some(&filter));
    assert_eq!(
        yaml,
        r#"- generic [active] [ref=e1]:
  - navigation "Main" [ref=e2]: (unchanged since previous page)
  - main [ref=e5]:
    - button "Go" [ref=e7]
    - textbox "Search" [ref=e8]"#
    );
    // Hiding every child leaves a bare key line, never a dangling `key:`.
    let main = tree.find_ref("e5").expect("main");
    let hide_main_kids = |i: usize| {
        if tree.nodes[i].parent == Some(main) {
            LineKind::Hide
        } else {
            LineKind::Show
        }
    };
    assert!(render_yaml(&tree, Some(&hide_main_kids)).ends_with("  - main [ref=e5]"));
}

#[test]
fn tree_round_trips_through_serde() {
    let page = Page::parse(FORM);
    let tree = ai_tree(&page, &mut RefAllocator::new());
    let json = serde_json::to_string(&tree).expect("serializes");
    let back: AriaTree = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, tree);
    assert_eq!(render_yaml(&back, None), render_yaml(&tree, None));
    let mut alloc = RefAllocator::new();
    let _ = ai_tree(&page, &mut alloc);
    let alloc_back: RefAllocator =
        serde_json::from_str(&serde_json::to_string(&alloc).unwrap()).unwrap();
    assert_eq!(alloc_back.issued_count(), alloc.issued_count());
}

#[test]
fn live_layout_decides_refs_and_cursor() {
    let mut page = Page::parse(
        r#"<!doctype html><body><button id="a">A</button><button id="b">B</button><div id="c">C</div></body>"#,
    );
    let find = |page: &Page, id: &str| page.query(&format!("#{id}")).expect("element");
    let (a, b, c) = (find(&page, "a"), find(&page, "b"), find(&page, "c"));
    let shown = Layout {
        rendered: true,
        bounds: Some(LayoutBox {
            x: 0.0,
            y: 0.0,
            width: 50.0,
            height: 20.0,
        }),
        in_viewport: true,
        cursor: Some("auto".into()),
        receives_pointer_events: true,
        display: Some("block".into()),
        ..Layout::default()
    };
    let mut layout: Vec<Option<Layout>> = (0..page.len())
        .map(|i| page.is_element(NodeId(i as u32)).then(|| shown.clone()))
        .collect();
    // B is covered by pointer-events: none (no ref, no number taken); C has a pointer cursor.
    layout[b.index()] = Some(Layout {
        receives_pointer_events: false,
        display: Some("inline-block".into()),
        ..shown.clone()
    });
    layout[a.index()] = Some(Layout {
        display: Some("inline-block".into()),
        ..shown.clone()
    });
    layout[c.index()] = Some(Layout {
        cursor: Some("pointer".into()),
        ..shown.clone()
    });
    page.set_layout(layout);
    assert_eq!(
        aria::snapshot(&page, Mode::Ai),
        r#"- generic [active] [ref=e1]:
  - button "A" [ref=e2]
  - button "B"
  - generic [ref=e3] [cursor=pointer]: C"#
    );
}

/// Runs `f` on a thread with a small stack: recursion over depth would overflow it.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no stack overflow");
}

#[test]
fn deep_pages_need_no_deep_stack() {
    on_small_stack(|| {
        let depth = 100_000;
        let html = format!(
            "{}deep{}",
            "<div><span>".repeat(depth),
            "</span></div>".repeat(depth)
        );
        let page = Page::parse(&html);
        for mode in [Mode::Aria, Mode::Ai] {
            let yaml = aria::snapshot(&page, mode);
            assert!(
                yaml.contains("deep"),
                "{mode:?} snapshot keeps the innermost text"
            );
        }
        // Name from content through the whole nesting.
        let html = format!(
            "<button>{}x{}</button>",
            "<b>".repeat(depth),
            "</b>".repeat(depth)
        );
        let page = Page::parse(&html);
        assert_eq!(aria::snapshot(&page, Mode::Aria), r#"- button "x""#);
    });
}

#[test]
fn live_layout_hides_what_css_hides() {
    let mut page = Page::parse(
        r#"<!doctype html><body><nav id="n"><a href="/a">A</a></nav><p id="p">Shown</p></body>"#,
    );
    let nav = page.query("#n").expect("nav");
    let shown = Layout {
        rendered: true,
        bounds: Some(LayoutBox {
            x: 0.0,
            y: 0.0,
            width: 100.0,
            height: 20.0,
        }),
        in_viewport: true,
        cursor: None,
        receives_pointer_events: true,
        display: Some("block".into()),
        ..Layout::default()
    };
    let mut layout: Vec<Option<Layout>> = (0..page.len())
        .map(|i| page.is_element(NodeId(i as u32)).then(|| shown.clone()))
        .collect();
    // A stylesheet rule hid the nav: the capture says display none, no box.
    layout[nav.index()] = Some(Layout {
        rendered: false,
        bounds: None,
        display: Some("none".into()),
        ..shown.clone()
    });
    page.set_layout(layout);
    assert_eq!(aria::snapshot(&page, Mode::Aria), "- paragraph: Shown");
}
