use super::*;

fn page() -> Page {
    Page::parse(
        r#"<!doctype html><html><head><title>T</title></head><body>
        <header id="main-header"><nav class="navbar"><a href="/">Home</a><a href="/a">A</a></nav></header>
        <main id="content"><section class="hero"><h1>Hi</h1></section>
        <ul><li class="item">1</li><li class="item">2</li><li class="item special">3</li></ul>
        <form><input type="checkbox" checked><input type="text" disabled><fieldset disabled><button>b</button></fieldset></form>
        <template><p class="inside">x</p></template>
        </main></body></html>"#,
    )
}

#[test]
fn query_semantics() {
    let p = page();
    assert_eq!(p.query_all("li").unwrap().len(), 3);
    assert_eq!(p.query_all("li:nth-child(2 of .item)").unwrap().len(), 1);
    assert_eq!(p.query_all("ul:has(> li.special)").unwrap().len(), 1);
    assert_eq!(p.query_all(":is(h1, nav) ").unwrap().len(), 2);
    assert_eq!(p.query_all("input:checked").unwrap().len(), 1);
    assert_eq!(
        p.query_all(":disabled").unwrap().len(),
        3,
        "input, fieldset and its button"
    );
    assert_eq!(p.query_all("a[href^='/a' i]").unwrap().len(), 1);
    // Template contents are not in the document.
    assert!(p.query_all("p.inside").unwrap().is_empty());
}

#[test]
fn invalid_selector_names_position() {
    let p = page();
    match p.query("div >> p") {
        Err(Error::InvalidSelector { position, .. }) => assert!(position >= 5, "{position}"),
        other => panic!("{other:?}"),
    }
    match p.query("section..hero") {
        Err(Error::InvalidSelector { position, .. }) => assert_eq!(position, 9),
        other => panic!("{other:?}"),
    }
    match p.query("div >> p") {
        Err(Error::InvalidSelector { position, .. }) => assert_eq!(position, 6),
        other => panic!("{other:?}"),
    }
    // Like browsers, an unclosed bracket at the end is closed for you.
    assert!(p.query("a[href").is_ok());
    assert!(matches!(
        p.query("::nope"),
        Err(Error::InvalidSelector { .. })
    ));
    assert!(matches!(p.query(""), Err(Error::InvalidSelector { .. })));
}

#[test]
fn not_found_suggests() {
    let p = page();
    match p.query("section.heros") {
        Err(Error::ElementNotFound { suggestions, .. }) => {
            assert_eq!(
                suggestions.first().map(String::as_str),
                Some("section.hero")
            );
            assert!(suggestions.len() <= 3);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unique_selectors_round_trip() {
    let p = page();
    let mut u = UniqueSelectors::new(&p);
    let mut seen = 0;
    for n in p.descendants(NodeId::DOCUMENT) {
        let Some(sel) = u.selector(n) else { continue };
        assert_eq!(p.query_all(&sel).unwrap(), vec![n], "{sel}");
        seen += 1;
    }
    assert!(seen > 15);
    let li = p.query_all("li").unwrap();
    assert_eq!(u.selector(li[2]).unwrap(), "li.item.special");
    assert_eq!(u.selector(li[0]).unwrap(), "ul > li:nth-of-type(1)");
    assert_eq!(u.selector(p.query("main").unwrap()).unwrap(), "#content");
}

/// A type selector matches HTML elements whatever its case, SVG's in theirs:
/// `foreignObject` finds an HTML `<foreignobject>` too, so it is no anchor
/// while both exist.
#[test]
fn unique_selectors_count_tags_as_type_selectors_match_them() {
    let p = Page::parse(
        r#"<foreignObject class="x">a</foreignObject>
        <svg><foreignObject class="x"><p>b</p></foreignObject><clipPath></clipPath></svg>
        <clippath></clippath><svg><clipPath></clipPath></svg>"#,
    );
    let svg = p.query_all("svg > foreignObject").unwrap();
    assert_eq!(p.query_all("foreignObject").unwrap().len(), 2);
    let mut u = UniqueSelectors::new(&p);
    for n in p.descendants(NodeId::DOCUMENT) {
        let Some(sel) = u.selector(n) else { continue };
        assert_eq!(p.query_all(&sel).unwrap(), vec![n], "{sel}");
        let mut partial = UniqueSelectors::covering(&p, &[n]);
        assert_eq!(partial.selector(n).as_deref(), Some(sel.as_str()));
    }
    assert_ne!(u.selector(svg[0]).unwrap(), "foreignObject");
}
