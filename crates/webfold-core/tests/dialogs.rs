//! Dialogs in front of the page (static HTML): a modal one (`aria-modal`)
//! leads the snapshot and the CNT, the page behind it is marked and cannot
//! be acted on; a non-modal one (`<dialog open>`) ranks high and blocks
//! nothing. The full snapshot stays Playwright's.

use webfold_core::action::{Action, ActionError, Target};
use webfold_core::aria::{self, Mode};
use webfold_core::cnt::{Cnt, ViewOptions};
use webfold_core::contract::Ctx;
use webfold_core::snapshot::{self, Scope, SnapshotOptions};
use webfold_core::{Error, Page};

const MODAL: &str = r#"<!doctype html><title>Shop</title>
<header><a href="/">Home</a> <button>Search</button></header>
<main><h1>Welcome</h1><p>Fresh bread every day.</p><button>Buy now</button></main>
<div class="overlay"><div role="dialog" aria-modal="true" aria-labelledby="t">
  <h2 id="t">Cookie settings</h2><p>We use cookies.</p>
  <button>Accept all</button> <a href="/privacy">Privacy policy</a>
</div></div>
<footer><a href="/contact">Contact</a></footer>"#;

const NON_MODAL: &str = r#"<!doctype html><title>Shop</title>
<main><h1>Welcome</h1><button>Buy now</button><button>Compare</button></main>
<dialog open aria-label="Newsletter"><a href="/subscribe">Subscribe</a></dialog>"#;

fn snap(html: &str, opts: &SnapshotOptions) -> Result<snapshot::Snapshot, Error> {
    snapshot::snapshot(
        &Page::parse(html),
        "https://shop.example/",
        &Scope::Page,
        opts,
        None,
        Ctx::default(),
    )
}

fn cnt_text(html: &str, max_tokens: usize) -> Result<(String, usize), Error> {
    let page = Page::parse(html);
    let cnt = Cnt::build(&page);
    let opts = ViewOptions {
        max_tokens,
        ..ViewOptions::default()
    };
    let v = cnt.view(&opts, Ctx::default())?;
    Ok((v.text.clone(), v.tokens))
}

#[test]
fn an_aria_modal_dialog_leads_the_snapshot() {
    let s = snap(MODAL, &SnapshotOptions::default()).unwrap();
    let expected = r#"- dialog "Cookie settings" [ref=e10]:
  - heading "Cookie settings" [level=2] [ref=e11]
  - button "Accept all" [ref=e13]
  - link "Privacy policy" [ref=e14]:
    - /url: /privacy
# Behind the modal dialog "Cookie settings" (inert until it closes):
- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - link "Home" [ref=e3]
    - button "Search" [ref=e4]
  - main [ref=e5]:
    - heading "Welcome" [level=1] [ref=e6]
    - button "Buy now" [ref=e8]
  - contentinfo [ref=e15]:
    - link "Contact" [ref=e16]:
      - /url: /contact
# Interactive elements only; all roles (--all-roles) add text and structure"#;
    assert_eq!(s.text, expected);
    // Structured: the dialog and its ref.
    let dialog = snapshot::ModalDialog {
        name: "Cookie settings".into(),
        aria_ref: Some("e10".into()),
    };
    assert_eq!(s.modal_dialog, Some(dialog));
    // The refs are the full snapshot's: the dialog's resolve to its elements.
    let page = Page::parse(MODAL);
    let accept = snapshot::resolve_ref(&page, "e13", "https://shop.example/", None).unwrap();
    assert_eq!(Some(accept), page.query("[role=dialog] button").ok());
}

#[test]
fn the_full_snapshot_keeps_document_order() {
    let opts = SnapshotOptions {
        full_snapshot: true,
        ..SnapshotOptions::default()
    };
    let page = Page::parse(MODAL);
    let s = snap(MODAL, &opts).unwrap();
    assert_eq!(s.text, aria::snapshot(&page, Mode::Ai));
    assert!(!s.text.contains("Behind"), "{}", s.text);
    assert!(s.text.find("Buy now") < s.text.find("Cookie settings"));
}

#[test]
fn an_aria_modal_dialog_leads_the_cnt() {
    let (text, _) = cnt_text(MODAL, 8000).unwrap();
    let expected = r#"# Shop
7 body
 23 div role=dialog aria-modal=true aria-labelledby=t
  26 h2 Cookie settings
  31 button* We use cookies. "Accept all"
  34 a* href=/privacy Privacy policy
# Behind the modal dialog "Cookie settings" (inert until it closes):
 8 header
  9 a* href=/ Home
  12 button* Search
 15 main
  16 h1 Welcome
  20 button* Fresh bread every day. "Buy now"
 38 footer,a* href=/contact Contact
"#;
    assert_eq!(text, expected);
    let page = Page::parse(MODAL);
    // Named by the CNT node holding it (the overlay that absorbed it: `23 div`).
    let cnt = Cnt::build(&page);
    let id = cnt
        .node_of(page.query("[role=dialog]").unwrap())
        .unwrap()
        .id;
    assert_eq!(cnt.modal_dialog(), Some((id, "Cookie settings")));
    assert!(text.contains(&format!("\n {id} div role=dialog")), "{text}");
}

#[test]
fn budgets_hold_with_a_dialog_in_front() {
    for max in (1..400).step_by(7) {
        let opts = SnapshotOptions {
            max_tokens: max,
            ..SnapshotOptions::default()
        };
        if let Ok(s) = snap(MODAL, &opts) {
            assert!(
                s.tokens <= max,
                "snapshot {} > {max}:\n{}",
                s.tokens,
                s.text
            );
            assert_eq!(
                s.tokens,
                webfold_core::tokens::count(&s.text, Default::default())
            );
        }
        if let Ok((text, tokens)) = cnt_text(MODAL, max) {
            assert!(tokens <= max, "cnt {tokens} > {max}:\n{text}");
        }
    }
    // A tight budget keeps the dialog's controls over the page's.
    let tight = SnapshotOptions {
        max_elements: 2,
        ..SnapshotOptions::default()
    };
    let s = snap(MODAL, &tight).unwrap();
    assert!(
        s.text.contains("Accept all") && s.text.contains("Privacy policy"),
        "{}",
        s.text
    );
    assert!(!s.text.contains("Buy now"), "{}", s.text);
}

#[test]
fn a_non_modal_dialog_ranks_high_and_is_not_in_front() {
    // Whole, the view is in document order.
    let s = snap(NON_MODAL, &SnapshotOptions::default()).unwrap();
    let expected = r#"- generic [active] [ref=e1]:
  - main [ref=e2]:
    - heading "Welcome" [level=1] [ref=e3]
    - button "Buy now" [ref=e4]
    - button "Compare" [ref=e5]
  - dialog "Newsletter" [ref=e6]:
    - link "Subscribe" [ref=e7]:
      - /url: /subscribe
# Interactive elements only; all roles (--all-roles) add text and structure"#;
    assert_eq!(s.text, expected);
    // One element of three: the dialog's link, though links rank under buttons.
    let one = SnapshotOptions {
        max_elements: 1,
        ..SnapshotOptions::default()
    };
    let s = snap(NON_MODAL, &one).unwrap();
    assert!(s.text.contains("link \"Subscribe\""), "{}", s.text);
    let (text, _) = cnt_text(NON_MODAL, 8000).unwrap();
    assert!(!text.contains("Behind"), "{text}");
    assert_eq!(s.modal_dialog, None);
    assert_eq!(Cnt::build(&Page::parse(NON_MODAL)).modal_dialog(), None);
}

#[test]
fn acting_behind_a_modal_dialog_names_it() {
    let page = Page::parse(MODAL);
    let cnt = Cnt::build(&page);
    let buy = page.query("main button").unwrap();
    let click = |n| Action::Click {
        id: Target::Node(n),
    };
    let err = click(buy).validate(&page, &cnt).unwrap_err();
    assert!(matches!(err, ActionError::BehindDialog(_)), "{err:?}");
    let dialog = page.query("[role=dialog]").unwrap();
    let id = cnt.node_of(dialog).unwrap().id;
    assert_eq!(
        err.to_string(),
        format!(
            "cannot act on {buy}: the modal dialog \"Cookie settings\" (id {id}) is open and everything behind it is inert; answer or close that dialog first (act on an element inside it), then take a new view"
        )
    );
    let accept = page.query("[role=dialog] button").unwrap();
    assert!(click(accept).validate(&page, &cnt).is_ok());
    // A live page names the dialog by its snapshot ref.
    let url = "https://shop.example/";
    let err = webfold_core::action::reachable(&page, buy, "e9", (url, None)).unwrap_err();
    let r = snapshot::ref_of(&page, dialog, url, None).unwrap();
    assert!(err.to_string().contains(&format!("(ref {r})")), "{err}");
    // Nothing is behind a non-modal dialog.
    let page = Page::parse(NON_MODAL);
    let cnt = Cnt::build(&page);
    let buy = page.query("main button").unwrap();
    assert!(click(buy).validate(&page, &cnt).is_ok());
}

#[test]
fn a_modal_dialog_leads_a_page_whose_chrome_is_collapsed() {
    let chrome = r#"<header><a href="/">Logo</a><nav aria-label="Main"><a href="/a">A</a><a href="/b">B</a></nav></header>"#;
    let modal = r#"<div role="alertdialog" aria-modal="true" aria-label="Session expired"><button>Sign in again</button></div>"#;
    let mut session = snapshot::SnapshotSession::new();
    let take = |html: String, url: &str, s: &mut snapshot::SnapshotSession| {
        let page = Page::parse(&html);
        let opts = SnapshotOptions::default();
        snapshot::snapshot(&page, url, &Scope::Page, &opts, Some(s), Ctx::default()).unwrap()
    };
    take(
        format!("<body>{chrome}<main><button>One</button></main></body>"),
        "https://site.example/1",
        &mut session,
    );
    let second = take(
        format!("<body>{chrome}<main><button>Two</button></main>{modal}</body>"),
        "https://site.example/2",
        &mut session,
    );
    let items: Vec<&str> = second
        .text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert!(
        items[0].starts_with("- alertdialog \"Session expired\""),
        "{}",
        second.text
    );
    assert!(
        items[1].contains("button \"Sign in again\""),
        "{}",
        second.text
    );
    let note = "# Behind the modal dialog \"Session expired\" (inert until it closes):";
    let at = |needle: &str| second.text.find(needle).expect(&second.text);
    assert!(
        at("Sign in again") < at(note) && at(note) < at("Two"),
        "{}",
        second.text
    );
    assert!(
        second
            .text
            .contains(webfold_core::snapshot::dedup::UNCHANGED),
        "the chrome is still collapsed:\n{}",
        second.text
    );
}
