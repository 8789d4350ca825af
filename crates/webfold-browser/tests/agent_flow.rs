//! An agent's loop against real Chromium: navigate, snapshot, act by ref or
//! node id, snapshot again and see the change. Pages come from a server the
//! test starts on 127.0.0.1.

use std::collections::HashMap;
use webfold_testkit::ref_of as ref_text;

use serde_json::json;
use webfold_browser::{Browser, BrowserError, BrowserOptions, CapturedPage, Tab};
use webfold_core::action::Target;
use webfold_core::snapshot::{Scope, SnapshotOptions, snapshot};
use webfold_testkit::http::serve_pages;

const FORM: &str = r#"<!doctype html><html><head><title>Form</title></head><body>
<label>Name <input id="name"></label>
<button id="greet" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value">Greet</button>
<p id="out">nobody greeted</p>
<label>Size <select id="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select></label>
<label><input type="checkbox" id="terms"> I agree</label>
<input id="keys" onkeydown="if (event.key === 'Enter') document.getElementById('out').textContent = 'submitted ' + this.value">
<button id="doomed">Remove me</button>
<div style="height: 2000px"></div>
<button id="far" onmouseover="this.textContent = 'hovered'">Far button</button>
</body></html>"#;

const SECOND: &str = "<!doctype html><title>Second</title><p>second page</p>";

/// The snapshot an agent reads: every role, no budget, no session.
fn view(cap: &CapturedPage) -> String {
    let opts = SnapshotOptions {
        interactive_only: false,
        full_snapshot: true,
        ..SnapshotOptions::default()
    };
    snapshot(
        &cap.page,
        &cap.url,
        &Scope::Page,
        &opts,
        None,
        webfold_core::contract::Ctx::default(),
    )
    .expect("snapshot")
    .text
}

async fn open(base: &str) -> (Browser, Tab) {
    let browser = Browser::launch(BrowserOptions::default())
        .await
        .expect("chromium launches");
    let tab = browser.new_tab().await.expect("tab");
    tab.navigate(&format!("{base}/")).await.expect("navigate");
    (browser, tab)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_snapshot_type_click_snapshot_again() {
    let base = serve_pages(HashMap::from([("/", FORM), ("/second", SECOND)]));
    let (_browser, tab) = open(&base).await;

    let cap = tab.capture().await.unwrap();
    let before = view(&cap);
    assert!(before.contains("nobody greeted"), "{before}");

    let name = tab
        .element(&cap, &ref_of(&before, "textbox \"Name\""), None)
        .await
        .unwrap();
    tab.fill(&name, "Ferris").await.unwrap();
    let greet = tab
        .element(&cap, &ref_of(&before, "button \"Greet\""), None)
        .await
        .unwrap();
    tab.click(&greet).await.unwrap();

    let after = view(&tab.capture().await.unwrap());
    assert!(after.contains("Hello, Ferris"), "{after}");
    assert!(!after.contains("nobody greeted"), "{after}");

    // fill replaces, it does not append.
    tab.fill(&name, "Crab").await.unwrap();
    tab.click(&greet).await.unwrap();
    let again = view(&tab.capture().await.unwrap());
    assert!(again.contains("Hello, Crab"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_check_press_hover_by_ref_and_node_id() {
    let base = serve_pages(HashMap::from([("/", FORM)]));
    let (_browser, tab) = open(&base).await;
    let cap = tab.capture().await.unwrap();
    let snap = view(&cap);

    let size = tab
        .element(&cap, &ref_of(&snap, "combobox \"Size\""), None)
        .await
        .unwrap();
    assert_eq!(
        tab.select(&size, &["Large".to_string()]).await.unwrap(),
        ["l"]
    );
    let err = tab.select(&size, &["Huge".to_string()]).await.unwrap_err();
    assert!(err.to_string().contains("no option"), "{err}");

    let terms = tab
        .element(&cap, &ref_of(&snap, "checkbox \"I agree\""), None)
        .await
        .unwrap();
    tab.check(&terms, true).await.unwrap();
    tab.check(&terms, true).await.unwrap(); // already checked: stays checked
    let after = view(&tab.capture().await.unwrap());
    assert!(after.contains("checkbox \"I agree\" [checked]"), "{after}");
    assert!(after.contains("option \"Large\" [selected]"), "{after}");

    // By CNT node id: the id is the capture's NodeId.
    let keys_id = cap.page.query("#keys").unwrap();
    let keys = tab
        .element(&cap, &Target::Node(keys_id), None)
        .await
        .unwrap();
    tab.fill(&keys, "go").await.unwrap();
    tab.press("Enter").await.unwrap();
    let out = tab
        .evaluate("document.getElementById('out').textContent")
        .await
        .unwrap();
    assert_eq!(out, json!("submitted go"));
    assert!(tab.press("Hyperspace").await.is_err());

    // Hover scrolls a below-the-fold element into view first.
    let far = tab
        .element(&cap, &ref_of(&snap, "button \"Far button\""), None)
        .await
        .unwrap();
    tab.hover(&far).await.unwrap();
    let moved = tab.capture().await.unwrap();
    let far_now = moved.page.query("#far").unwrap();
    assert!(moved.scroll.1 > 0.0, "scrolled: {:?}", moved.scroll);
    assert!(moved.page.layout(far_now).unwrap().in_viewport);
    assert_eq!(moved.page.text_content(far_now), "hovered");

    // A checkbox is not a text field.
    let err = tab.fill(&terms, "x").await.unwrap_err();
    assert!(matches!(err, BrowserError::NotEditable(_)), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_refs_say_to_snapshot_again() {
    let base = serve_pages(HashMap::from([("/", FORM)]));
    let (_browser, tab) = open(&base).await;
    let cap = tab.capture().await.unwrap();
    let snap = view(&cap);
    let doomed = ref_of(&snap, "button \"Remove me\"");
    tab.evaluate("document.getElementById('doomed').remove()")
        .await
        .unwrap();
    let err = tab.element(&cap, &doomed, None).await.unwrap_err();
    assert!(matches!(err, BrowserError::Stale(_)), "{err}");
    assert!(err.to_string().contains("take a new snapshot"), "{err}");

    // A ref the snapshot never issued is not stale: it never named anything.
    let err = tab
        .element(&cap, &Target::Ref("e9999".into()), None)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no element e9999 in the last snapshot; take a new snapshot and use one of its refs"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_back_and_screenshot() {
    let base = serve_pages(HashMap::from([("/", FORM), ("/second", SECOND)]));
    let (_browser, tab) = open(&base).await;
    tab.navigate(&format!("{base}/second")).await.unwrap();
    assert_eq!(tab.capture().await.unwrap().title, "Second");
    tab.go_back().await.unwrap();
    let back = tab.capture().await.unwrap();
    assert_eq!(back.title, "Form");
    assert_eq!(back.url, format!("{base}/"));

    let png = tab.screenshot(None, None).await.unwrap();
    assert_eq!(png_size(&png), (1280, 720));

    let greet_id = back.page.query("#greet").unwrap();
    let greet_box = back.page.layout(greet_id).unwrap().bounds.unwrap();
    let greet = tab
        .element(&back, &Target::Node(greet_id), None)
        .await
        .unwrap();
    let shot = tab.screenshot(Some(&greet), None).await.unwrap();
    let (w, h) = png_size(&shot);
    assert_eq!(w as f64, greet_box.width.round(), "{greet_box:?}");
    assert_eq!(h as f64, greet_box.height.round(), "{greet_box:?}");
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (w, h)
}

/// The ref on the first snapshot line containing `needle`, as a target.
fn ref_of(snapshot: &str, needle: &str) -> Target {
    Target::Ref(ref_text(snapshot, needle))
}
