//! Real Chromium: an open modal dialog leads the views and blocks what is
//! behind it; a popover ranks high and blocks nothing.

use std::collections::HashMap;
use webfold_testkit::ref_of;

use webfold_browser::BrowserOptions;
use webfold_core::action::{Action, Target};
use webfold_core::cnt::{CntView, ViewOptions};
use webfold_core::contract::Ctx;
use webfold_core::snapshot::{SnapshotOptions, SnapshotView};
use webfold_core::view::Call;
use webfold_live::{LiveBrowser, LivePage};
use webfold_testkit::http::serve_pages;

const BEHIND: &str = "# Behind the modal dialog \"Cookie settings\" (inert until it closes):";

fn pages() -> HashMap<&'static str, String> {
    let items: String = (0..20)
        .map(|i| format!("<button onclick=\"out.textContent='item {i}'\">Item {i}</button>"))
        .collect();
    HashMap::from([
        (
            "/consent",
            r#"<!doctype html><html><head><title>Shop</title></head><body>
            <header><a href="/">Home</a> <button>Search</button></header>
            <main><h1>Welcome</h1><button onclick="out.textContent='bought'">Buy now</button><p id="out"></p></main>
            <dialog id="consent" aria-labelledby="ct"><h2 id="ct">Cookie settings</h2><p>We use cookies.</p>
              <button onclick="consent.close()">Accept all</button><button onclick="consent.close()">Reject all</button></dialog>
            <script>consent.showModal()</script>
            </body></html>"#
                .to_string(),
        ),
        (
            "/shadow",
            r#"<!doctype html><html><head><title>Account</title></head><body>
            <main><button onclick="out.textContent='saved'">Save</button><p id="out"></p></main>
            <div id="host"></div>
            <script>
              const root = host.attachShadow({mode: 'open'});
              root.innerHTML = '<dialog aria-label="Stay signed in"><button onclick="this.parentNode.close()">Yes</button></dialog>';
              root.querySelector('dialog').showModal();
            </script>
            </body></html>"#
                .to_string(),
        ),
        (
            "/framed",
            r#"<!doctype html><html><head><title>Outer</title></head><body>
            <button onclick="out.textContent='outer'">Outer button</button><p id="out"></p>
            <iframe src="/inner" width="400" height="300"></iframe>
            </body></html>"#
                .to_string(),
        ),
        (
            "/inner",
            r#"<!doctype html><html><body><a href="/deep">Frame link</a>
            <dialog id="d" aria-label="Frame consent"><button>Frame OK</button></dialog>
            <script>d.showModal()</script></body></html>"#
                .to_string(),
        ),
        (
            "/popover",
            format!(
                r#"<!doctype html><html><head><title>Catalog</title></head><body>
                <main>{items}<p id="out"></p></main>
                <div id="help" popover><a href="/help">Help topics</a></div>
                <script>help.showPopover()</script>
                </body></html>"#
            ),
        ),
    ])
}

fn snapshot(opts: SnapshotOptions) -> Call {
    Call::of::<SnapshotView>(opts, Ctx::default())
}

fn click(r: &str) -> Action {
    Action::Click {
        id: Target::Ref(r.to_string()),
    }
}

async fn out_text(page: &LivePage) -> String {
    let v = page
        .tab()
        .evaluate("document.getElementById('out').textContent")
        .await
        .unwrap();
    v.as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consent_modal_leads_the_views_and_blocks_the_page_behind_it() {
    let base = serve_pages(pages());
    let live = LiveBrowser::new(BrowserOptions::default());
    let page = live.page(None).await.expect("Chromium starts");
    let mut page = page.lock().await;
    page.act(&Action::GoTo {
        url: format!("{base}/consent"),
    })
    .await
    .unwrap();

    // The default snapshot: the dialog first, then the note, then the page.
    let snap = page
        .view(snapshot(SnapshotOptions::default()))
        .await
        .unwrap();
    let text = snap.envelope.text.clone();
    let first_item = text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(
        first_item.starts_with("- dialog \"Cookie settings\""),
        "{text}"
    );
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle} in\n{text}"))
    };
    assert!(
        at("Accept all") < at(BEHIND) && at(BEHIND) < at("Buy now"),
        "{text}"
    );
    let dialog = ref_of(&text, "dialog \"Cookie settings\"");
    let named = &snap.envelope.data["modal_dialog"];
    assert_eq!(named["name"], "Cookie settings", "{named}");
    assert_eq!(named["ref"], dialog.as_str(), "{named}");
    let (buy, accept) = (ref_of(&text, "Buy now"), ref_of(&text, "Accept all"));

    // The full view is Playwright's: document order, no note.
    let full = SnapshotOptions {
        full_snapshot: true,
        ..SnapshotOptions::default()
    };
    let full = page.view(snapshot(full)).await.unwrap().envelope.text;
    assert!(!full.contains(BEHIND), "{full}");
    assert!(
        full.find("Buy now") < full.find("Cookie settings"),
        "{full}"
    );

    // The CNT: the dialog is the body's first child, the note after it.
    let cnt = Call::of::<CntView>(ViewOptions::default(), Ctx::default());
    let cnt = page.view(cnt).await.unwrap().envelope.text;
    let nodes: Vec<&str> = cnt.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(nodes[0].contains(" body"), "{cnt}");
    assert!(
        nodes[1].starts_with(" ") && nodes[1].contains("dialog"),
        "{cnt}"
    );
    let at = |needle: &str| {
        cnt.find(needle)
            .unwrap_or_else(|| panic!("{needle} in\n{cnt}"))
    };
    assert!(
        at("Accept all") < at(BEHIND) && at(BEHIND) < at("Buy now"),
        "{cnt}"
    );

    // Behind the dialog: refused, naming the dialog and its ref.
    let snap = page
        .view(snapshot(SnapshotOptions::default()))
        .await
        .unwrap();
    assert_eq!(ref_of(&snap.envelope.text, "Buy now"), buy);
    let err = page.act(&click(&buy)).await.unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "the modal dialog \"Cookie settings\" (ref {dialog})"
        )),
        "{err}"
    );
    assert!(err.contains("close that dialog first"), "{err}");
    assert_eq!(
        out_text(&page).await,
        "",
        "nothing behind the dialog was clicked"
    );

    // Inside the dialog: it works, and the dialog closes.
    page.act(&click(&accept)).await.unwrap();
    let open = page.tab().evaluate("consent.open").await.unwrap();
    assert_eq!(open.as_bool(), Some(false), "the dialog closed");

    // Closed, the page behind is there to act on, with the same refs.
    page.act(&click(&buy)).await.unwrap();
    assert_eq!(out_text(&page).await, "bought");
    let snap = page
        .view(snapshot(SnapshotOptions::default()))
        .await
        .unwrap();
    assert!(
        !snap.envelope.text.contains("Behind the modal"),
        "{}",
        snap.envelope.text
    );
    drop(page);
    live.shutdown().await;
}

/// The user's own tab, read by the browser extension's `capture.js`: a
/// dialog opened with `showModal()` (no `aria-modal`) is in the top layer,
/// so it leads the snapshot there too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extension_capture_knows_a_modal_dialog_by_the_top_layer() {
    let base = serve_pages(pages());
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../extension/dist/capture.js");
    let script = std::fs::read_to_string(script).expect("the extension's built capture.js");
    let live = LiveBrowser::new(BrowserOptions::default());
    let page = live.page(None).await.expect("Chromium starts");
    let mut page = page.lock().await;
    let url = format!("{base}/consent");
    page.act(&Action::GoTo { url: url.clone() }).await.unwrap();
    let run = format!("{script}\nJSON.stringify(webfoldCaptureDom(null))");
    let json = page.tab().evaluate(&run).await.expect("the capture runs");
    let captured =
        webfold_core::page::capture::DomCapture::page_from_json(json.as_str().unwrap()).unwrap();
    let input = &mut webfold_core::view::Input::page(&captured, &url);
    let text = snapshot(SnapshotOptions::default())
        .run(input)
        .unwrap()
        .text;
    let first_item = text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(
        first_item.starts_with("- dialog \"Cookie settings\""),
        "{text}"
    );
    assert!(text.contains(BEHIND), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_popover_ranks_high_and_blocks_nothing() {
    let base = serve_pages(pages());
    let live = LiveBrowser::new(BrowserOptions::default());
    let page = live.page(None).await.expect("Chromium starts");
    let mut page = page.lock().await;
    page.act(&Action::GoTo {
        url: format!("{base}/popover"),
    })
    .await
    .unwrap();

    // Three elements of twenty-one: the popover's link is one of them,
    // though it comes last and links rank under buttons.
    let few = SnapshotOptions {
        max_elements: 3,
        ..SnapshotOptions::default()
    };
    let text = page.view(snapshot(few)).await.unwrap().envelope.text;
    assert!(text.contains("link \"Help topics\""), "{text}");
    assert!(!text.contains("Behind the modal"), "{text}");

    // Nothing is behind it: the page's buttons still act.
    let full = SnapshotOptions {
        full_snapshot: true,
        ..SnapshotOptions::default()
    };
    let text = page.view(snapshot(full)).await.unwrap().envelope.text;
    page.act(&click(&ref_of(&text, "Item 0"))).await.unwrap();
    assert_eq!(out_text(&page).await, "item 0");
    drop(page);
    live.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modal_in_a_shadow_root_blocks_the_page_and_one_in_a_frame_only_the_frame() {
    let base = serve_pages(pages());
    let live = LiveBrowser::new(BrowserOptions::default());
    let page = live.page(None).await.expect("Chromium starts");
    let mut page = page.lock().await;

    // In a shadow root: still the page's top layer, so it leads and blocks.
    page.act(&Action::GoTo {
        url: format!("{base}/shadow"),
    })
    .await
    .unwrap();
    let text = page
        .view(snapshot(SnapshotOptions::default()))
        .await
        .unwrap()
        .envelope
        .text;
    let first_item = text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(
        first_item.starts_with("- dialog \"Stay signed in\""),
        "{text}"
    );
    let err = page.act(&click(&ref_of(&text, "Save"))).await.unwrap_err();
    assert!(err.to_string().contains("\"Stay signed in\""), "{err}");
    page.act(&click(&ref_of(&text, "Yes"))).await.unwrap();
    page.act(&click(&ref_of(&text, "Save"))).await.unwrap();
    assert_eq!(out_text(&page).await, "saved");

    // In a frame: only the frame's document is inert; the views do not
    // lead with it, and the page around the frame acts.
    page.act(&Action::GoTo {
        url: format!("{base}/framed"),
    })
    .await
    .unwrap();
    let cnt = Call::of::<CntView>(ViewOptions::default(), Ctx::default());
    let cnt = page.view(cnt).await.unwrap().envelope.text;
    assert!(!cnt.contains("Behind the modal"), "{cnt}");
    let id_of = |needle: &str| {
        let line = cnt.lines().find(|l| l.contains(needle)).unwrap();
        let id = line.split_whitespace().next().unwrap().parse().unwrap();
        Action::Click {
            id: Target::Node(webfold_core::NodeId::new(id)),
        }
    };
    let err = page.act(&id_of("Frame link")).await.unwrap_err();
    assert!(err.to_string().contains("\"Frame consent\""), "{err}");
    page.act(&id_of("Outer button")).await.unwrap();
    assert_eq!(out_text(&page).await, "outer");
    drop(page);
    live.shutdown().await;
}
