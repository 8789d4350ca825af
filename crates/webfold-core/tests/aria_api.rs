//! The snapshot tree API others build on: refs numbered as Playwright
//! numbers them, printed nodes pointing at their elements, live layout,
//! serde, and pages nested far deeper than any recursion could survive.

use webfold_core::aria::{self, AriaTree, Mode, assign_refs, build, render_yaml};
use webfold_core::page::{Layout, LayoutBox};
use webfold_core::{NodeId, Page};

fn ai_tree(page: &Page) -> AriaTree {
    let mut tree = build(page, page.body().expect("body"), Mode::Ai);
    assign_refs(&mut tree);
    tree
}

/// The arena index of the printed node carrying `r`.
fn printed(tree: &AriaTree, r: &str) -> Option<usize> {
    tree.nodes.iter().position(|n| n.ref_.as_deref() == Some(r))
}

const FORM: &str = r#"<!doctype html><body><nav aria-label="Main"><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main><h1>Title</h1><button id="go">Go</button><input id="q" placeholder="Search"></main></body>"#;

#[test]
fn fresh_allocator_numbers_like_playwright() {
    let page = Page::parse(FORM);
    let yaml = render_yaml(&ai_tree(&page));
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
fn refs_resolve_to_their_elements() {
    let page = Page::parse(FORM);
    let tree = ai_tree(&page);
    let node = |r: &str| printed(&tree, r).and_then(|i| tree.nodes[i].node);
    let button = node("e7").expect("e7 resolves");
    assert_eq!(page.element(button).and_then(|e| e.id()), Some("go"));
    assert_eq!(tree.nodes[printed(&tree, "e7").unwrap()].role, "button");
    let input = node("e8").expect("e8 resolves");
    assert_eq!(page.tag(input), Some("input"));
    assert_eq!(node("e99"), None);
}

#[test]
fn removed_nodes_leave_gaps_and_resolve() {
    // The nameless 1x1 image takes e2 but is distilled away, as in Playwright.
    let page = Page::parse(
        r#"<img src="data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA="><button>OK</button>"#,
    );
    let tree = ai_tree(&page);
    assert_eq!(render_yaml(&tree), r#"- button "OK" [ref=e3]"#);
    assert_eq!(tree.ref_slots.len(), 3, "body, the image and the button");
    assert_eq!(tree.ref_slots[1].index, None, "e2 is not printed");
    let button = tree.ref_slots[2].index.expect("the button is printed");
    assert_eq!(tree.nodes[button as usize].ref_.as_deref(), Some("e3"));
}

#[test]
fn tree_round_trips_through_serde() {
    let page = Page::parse(FORM);
    let tree = ai_tree(&page);
    let json = serde_json::to_string(&tree).expect("serializes");
    let back: AriaTree = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, tree);
    assert_eq!(render_yaml(&back), render_yaml(&tree));
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
        .map(|i| {
            page.is_element(NodeId::new(i as u32))
                .then(|| shown.clone())
        })
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
        .map(|i| {
            page.is_element(NodeId::new(i as u32))
                .then(|| shown.clone())
        })
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

/// A block's spacing after an element the distillation removes (an
/// unnamed image in `ai` mode) still parts the words on either side.
#[test]
fn spacing_after_a_removed_element_parts_words() {
    let page = Page::parse(r#"<div><span>a</span><img><div role="none">b</div></div>"#);
    let yaml = aria::snapshot(&page, Mode::Ai);
    assert!(yaml.contains(": a b"), "{yaml}");
}
