//! Frames on another site (out-of-process iframes) in real Chromium: a page
//! on 127.0.0.1 holds a frame on localhost (another port, so another site),
//! which holds a frame back on 127.0.0.1 and one of its own site — frames two
//! deep, mixing cross-site and same-site. Every view shows their content with
//! frame-qualified refs, and every action reaches into them.

use std::net::TcpListener;
use webfold_testkit::ref_of as ref_text;

use webfold_browser::BrowserOptions;
use webfold_core::action::{Action, Target};
use webfold_core::chunk::{ChunkOptions, ChunkView};
use webfold_core::cnt::CntView;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::fetch_view::MarkdownRequest;
use webfold_core::markdown::MarkdownPage;
use webfold_core::outline::OutlineView;
use webfold_core::snapshot::find::FindOptions;
use webfold_core::snapshot::{FindView, SnapshotOptions, SnapshotView};
use webfold_core::tokens::Encoding;
use webfold_core::view::{Call, View};
use webfold_live::{LiveBrowser, LivePage, png_size};
use webfold_testkit::http::Site;

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let port = l.local_addr().expect("local address").port();
    (l, port)
}

/// The checkout page on 127.0.0.1 and its payment frame on localhost, with
/// the frames inside that; the checkout page's URL.
fn checkout() -> String {
    let ((la, a_port), (lb, b_port)) = (listener(), listener());
    let a = format!("http://127.0.0.1:{a_port}");
    let b = format!("http://localhost:{b_port}");
    Site::new()
        .page(
            "/",
            format!(
                r#"<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1>
<p id="log">No payment yet</p>
<iframe id="pay" src="{b}/pay" width="600" height="520"
  style="margin-left: 40px; border: 5px solid black; padding: 7px"></iframe>
<script>addEventListener('message', e => {{ document.getElementById('log').textContent = 'Frame says: ' + e.data; }});</script>
</body></html>"#
            ),
        )
        .page(
            "/inner",
            r#"<!doctype html><html><body style="margin: 10px">
<button id="b" onclick="document.getElementById('out').textContent = 'Inner clicked'">Inner button</button>
<p id="out">Inner idle</p></body></html>"#,
        )
        .serve_on(la);
    Site::new()
        .page(
            "/pay",
            format!(
                r#"<!doctype html><html><head><title>Pay</title></head><body style="margin: 0">
<h2>Card details</h2>
<label>Card holder <input id="holder"></label>
<label>Postcode <input id="post"></label>
<label>Country <select id="country"><option value="fr">France</option><option value="de">Germany</option></select></label>
<label><input type="checkbox" id="save"> Save card</label>
<button id="pay" onclick="payNow()">Pay now</button>
<button id="dismiss" onclick="this.remove()">Dismiss</button>
<div id="hoverme" onmouseover="this.textContent = 'Hovered'" style="width: 150px; height: 30px">Hover target</div>
<img id="swatch" alt="Swatch" width="80" height="40" style="background: rgb(255, 0, 0)" src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==">
<p id="status">Not paid</p>
<p id="keys">Keys:</p>
<p id="seen">Far button not seen</p>
<iframe id="inner" src="{a}/inner" width="300" height="90"></iframe>
<iframe id="same" src="/same" width="300" height="60"></iframe>
<div style="height: 1500px"></div>
<button id="far">Far button</button>
<script>
const $ = id => document.getElementById(id);
function payNow() {{
  $('status').textContent = 'Paid by ' + $('holder').value + ' from ' + $('post').value + ' in ' + $('country').value + ($('save').checked ? ', card saved' : '');
  parent.postMessage('paid', '*');
}}
$('holder').addEventListener('keydown', e => {{ $('keys').textContent += ' ' + e.key; }});
new IntersectionObserver(es => {{ if (es.some(e => e.isIntersecting)) $('seen').textContent = 'Far button seen'; }}).observe($('far'));
</script></body></html>"#
            ),
        )
        .page(
            "/same",
            r#"<!doctype html><html><body><label><input type="checkbox" id="agree"> I agree</label></body></html>"#,
        )
        .serve_on(lb);
    format!("{a}/")
}

fn ctx() -> Ctx {
    Ctx::new(Surface::McpBrowser, Encoding::default())
}

/// The whole snapshot of the page, as the browser tools take it.
async fn snapshot(page: &mut LivePage) -> String {
    let opts = SnapshotOptions {
        interactive_only: false,
        full_snapshot: true,
        include_history: false,
        ..SnapshotOptions::default()
    };
    view::<SnapshotView>(page, opts).await
}

async fn view<V: View>(page: &mut LivePage, request: V::Request) -> String {
    match page.view(Call::of::<V>(request, ctx())).await {
        Ok(v) => v.envelope.text,
        Err(e) => panic!("{:?} failed: {e}", V::NAME),
    }
}

/// The frame a ref is in: `f2e5` → 2, `e5` → 0.
fn frame_of(target: &Target) -> u32 {
    let Target::Ref(r) = target else {
        panic!("{target} is no ref")
    };
    r.strip_prefix('f')
        .and_then(|rest| rest.split('e').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn browser() -> LiveBrowser {
    LiveBrowser::new(BrowserOptions {
        executable: webfold_testkit::chromium(),
        ..BrowserOptions::default()
    })
}

/// The full snapshot of `url`, in a browser of its own.
async fn snapshot_of(url: String) -> String {
    let live = browser();
    let page = live.page(None).await.unwrap();
    let mut page = page.lock().await;
    act(&mut page, Action::GoTo { url }).await;
    snapshot(&mut page).await
}

async fn act(page: &mut LivePage, action: Action) -> String {
    match page.act(&action).await {
        Ok(done) => done,
        Err(e) => panic!("{action} failed: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_frames_show_in_every_view() {
    let url = checkout();
    let live = browser();
    let page = live.page(None).await.unwrap();
    let mut page = page.lock().await;
    act(&mut page, Action::GoTo { url: url.clone() }).await;
    let snap = snapshot(&mut page).await;

    // The payment frame (localhost), the frame it holds back on 127.0.0.1
    // and its own same-site frame, each with refs of its own frame.
    let pay = ref_of(&snap, "button \"Pay now\"");
    let inner = ref_of(&snap, "button \"Inner button\"");
    let agree = ref_of(&snap, "checkbox \"I agree\"");
    let heading = ref_of(&snap, "heading \"Checkout\"");
    assert_eq!(frame_of(&heading), 0, "{snap}");
    assert!(frame_of(&pay) > 0, "{snap}");
    assert!(
        frame_of(&inner) > 0 && frame_of(&inner) != frame_of(&pay),
        "{snap}"
    );
    assert!(
        frame_of(&agree) > 0 && frame_of(&agree) != frame_of(&pay),
        "{snap}"
    );
    assert_ne!(frame_of(&inner), frame_of(&agree), "{snap}");
    for text in ["Card details", "textbox \"Card holder\"", "Inner idle"] {
        assert!(snap.contains(text), "{text} missing from\n{snap}");
    }
    assert!(!snap.contains("not readable"), "{snap}");

    let found = view::<FindView>(
        &mut page,
        FindOptions {
            query: "Inner button".into(),
            ..FindOptions::default()
        },
    )
    .await;
    assert!(found.contains(&format!("[ref={inner}]")), "find:\n{found}");

    let cnt = view::<CntView>(&mut page, Default::default()).await;
    for text in ["Pay now", "Inner button", "I agree"] {
        assert!(cnt.contains(text), "CNT misses {text}:\n{cnt}");
    }
    let outline = view::<OutlineView>(&mut page, Default::default()).await;
    assert!(outline.contains("Card details"), "outline:\n{outline}");
    // Markdown reads the frames where they are, each under a line naming
    // its address: the payment frame on localhost, the frame it holds back
    // on 127.0.0.1 (two deep) and its own same-site one. The payment form
    // is the main content, under its frame's line too.
    let on_localhost = |line: &str, path: &str| {
        line.starts_with("[iframe http://localhost:") && line.ends_with(&format!("/{path}]"))
    };
    for main in [false, true] {
        let request = MarkdownRequest {
            main,
            ..MarkdownRequest::default()
        };
        let markdown = view::<MarkdownPage>(&mut page, request).await;
        let inner = format!("[iframe {url}inner]");
        let page_text = ["No payment yet"].into_iter().filter(|_| !main);
        let frames = ["## Card details", &inner, "Inner idle", "I agree"];
        for text in page_text.chain(frames) {
            assert!(
                markdown.contains(text),
                "{text} missing from Markdown:\n{markdown}"
            );
        }
        for path in ["pay", "same"] {
            let line = markdown.lines().find(|l| on_localhost(l, path));
            assert!(line.is_some(), "no line for /{path} in\n{markdown}");
        }
    }
    // The payment frame's element, by its frame-qualified ref, and the
    // payment frame's <iframe> with the documents within.
    let by_ref = |r: &Target| ChunkOptions {
        r#ref: Some(r.to_string()),
        ..ChunkOptions::default()
    };
    let chunk = view::<ChunkView>(&mut page, by_ref(&pay)).await;
    assert!(chunk.contains("Pay now</button>"), "chunk:\n{chunk}");
    let frame = ref_of(&snap, "- iframe [ref=e");
    let chunk = view::<ChunkView>(&mut page, by_ref(&frame)).await;
    assert!(
        chunk.contains("Inner idle") && chunk.contains("I agree"),
        "chunk:\n{chunk}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_action_reaches_into_cross_site_frames() {
    let url = checkout();
    let live = browser();
    let page = live.page(None).await.unwrap();
    let mut page = page.lock().await;
    act(&mut page, Action::GoTo { url }).await;
    let snap = snapshot(&mut page).await;
    let r = |needle: &str| ref_of(&snap, needle);

    act(
        &mut page,
        Action::Type {
            id: r("textbox \"Card holder\""),
            text: "Ada".into(),
            submit: false,
        },
    )
    .await;
    act(&mut page, Action::Press { key: "!".into() }).await;
    act(
        &mut page,
        Action::Write {
            id: r("textbox \"Postcode\""),
            text: "75001".into(),
        },
    )
    .await;
    act(
        &mut page,
        Action::Select {
            id: r("combobox \"Country\""),
            values: vec!["Germany".into()],
        },
    )
    .await;
    act(
        &mut page,
        Action::Check {
            id: r("checkbox \"Save card\""),
            checked: true,
        },
    )
    .await;
    act(
        &mut page,
        Action::Hover {
            id: r("Hover target"),
        },
    )
    .await;
    act(
        &mut page,
        Action::Click {
            id: r("button \"Pay now\""),
        },
    )
    .await;
    // Two frames deep: 127.0.0.1 inside localhost inside 127.0.0.1, and the
    // payment frame's own same-site frame.
    act(
        &mut page,
        Action::Click {
            id: r("button \"Inner button\""),
        },
    )
    .await;
    act(
        &mut page,
        Action::Check {
            id: r("checkbox \"I agree\""),
            checked: true,
        },
    )
    .await;

    let after = snapshot(&mut page).await;
    for effect in [
        "textbox \"Card holder\"",
        // Typing inserts text as an input method does; a press is a key.
        "Keys: !",
        "Paid by Ada! from 75001 in de, card saved",
        "Hovered",
        "Inner clicked",
        "Frame says: paid",
    ] {
        assert!(after.contains(effect), "{effect} missing from\n{after}");
    }
    let line = |needle: &str| {
        after
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("checkbox \"Save card\"").contains("[checked]"),
        "{after}"
    );
    assert!(
        line("checkbox \"I agree\"").contains("[checked]"),
        "{after}"
    );
    assert!(line("option \"Germany\"").contains("[selected]"), "{after}");

    // Scrolling within the frame brings its last button into its view; the
    // frame's observer says so at its next rendering.
    act(
        &mut page,
        Action::ScrollIntoView {
            id: ref_of(&after, "button \"Far button\""),
        },
    )
    .await;
    let scrolled = snapshot_once(&mut page, "Far button seen").await;

    // An element's screenshot is of that element: the red swatch, whole.
    let swatch = ref_of(&scrolled, "img \"Swatch\"");
    let png = page
        .screenshot(Some(&swatch.to_string()), None)
        .await
        .unwrap();
    assert_eq!(png_size(&png), Some((80, 40)));
    assert_eq!(centre_pixel(&png), [255, 0, 0], "the swatch is red");

    // A ref whose element has gone from the frame is refused as stale.
    let dismiss = ref_of(&scrolled, "button \"Dismiss\"");
    act(
        &mut page,
        Action::Click {
            id: dismiss.clone(),
        },
    )
    .await;
    let now = page.tab().capture().await.unwrap();
    let text = now
        .page
        .text_content(now.page.document_element().expect("a root"));
    assert!(
        !text.contains("Dismiss") && text.contains("Far button"),
        "{text}"
    );
    let err = page
        .act(&Action::Click {
            id: dismiss.clone(),
        })
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains(&format!("{dismiss} is stale")),
        "{err}"
    );
}

/// The first snapshot holding `text`, taken as the page changes (the page's
/// own timers and rendering decide when); fails after ten seconds.
async fn snapshot_once(page: &mut LivePage, text: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let snap = snapshot(page).await;
        if snap.contains(text) {
            return snap;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{text} never showed in\n{snap}"
        );
        tokio::task::yield_now().await;
    }
}

/// The RGB of a PNG's centre pixel.
fn centre_pixel(png: &[u8]) -> [u8; 3] {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let at = ((info.height / 2) as usize * info.line_size) + (info.width / 2) as usize * channels;
    [buf[at], buf[at + 1], buf[at + 2]]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_never_loads_says_so_with_its_address() {
    // A server on the other site that takes connections and never answers.
    let (hang, port) = listener();
    let frame_url = format!("http://localhost:{port}/slow");
    let held = std::thread::spawn(move || hang.incoming().take(4).collect::<Vec<_>>());
    let (la, a_port) = listener();
    Site::new()
        .page(
            "/",
            format!(
                r#"<!doctype html><html><body><h1>Widget</h1>
<script>addEventListener('load', () => {{
  const f = document.createElement('iframe'); f.src = '{frame_url}'; document.body.append(f);
}});</script></body></html>"#
            ),
        )
        .serve_on(la);
    let snap = snapshot_of(format!("http://127.0.0.1:{a_port}/")).await;
    let note = format!("(not readable: still loading after 2 s) {frame_url}");
    let line = snap.lines().find(|l| l.contains(&note));
    assert!(line.is_some(), "no note in\n{snap}");
    drop(held);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_frame_says_so_with_its_address() {
    let url = checkout();
    let live = browser();
    let page = live.page(None).await.unwrap();
    let mut page = page.lock().await;
    act(&mut page, Action::GoTo { url }).await;
    let tab = page.tab();
    let captured = tab.capture().await.unwrap();
    let pay = captured
        .frames
        .iter()
        .find(|f| f.owner.is_some_and(|(parent, _)| parent == 0))
        .and_then(|f| f.session.clone())
        .expect("the payment frame has a session of its own");
    // The renderer dies without answering. Until the browser reports the
    // crash, the frame is one that does not answer; then it says it crashed.
    let crash = tab.call_in(Some(&pay), "Page.crash", serde_json::json!({}));
    let mut shown = std::pin::pin!(async {
        loop {
            let c = tab.capture().await.unwrap();
            let text = c
                .page
                .text_content(c.page.document_element().expect("a root"));
            if text.contains("(not readable: the frame crashed)") {
                return text;
            }
            tokio::task::yield_now().await;
        }
    });
    let wait = async {
        tokio::select! {
            text = &mut shown => text,
            _ = crash => (&mut shown).await,
        }
    };
    let text = tokio::time::timeout(std::time::Duration::from_secs(30), wait)
        .await
        .expect("the crash shows within 30 s");
    assert!(
        text.contains("(not readable: the frame crashed) http://localhost:"),
        "{text}"
    );
    assert!(
        text.contains("Checkout"),
        "the page itself still reads: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_refusing_to_be_framed_says_so_with_its_address() {
    // X-Frame-Options: DENY on the other site: the browser shows its own
    // error page in the frame, which names the host only.
    let ((la, a_port), (lb, b_port)) = (listener(), listener());
    let frame_url = format!("http://localhost:{b_port}/login");
    Site::new()
        .page(
            "/",
            format!(r#"<!doctype html><html><body><h1>Shop</h1><iframe src="{frame_url}"></iframe></body></html>"#),
        )
        .serve_on(la);
    let login = r#"<!doctype html><html><body><button>Sign in</button></body></html>"#;
    Site::new()
        .route(
            "/login",
            webfold_testkit::http::Response::html(login).header("X-Frame-Options", "DENY"),
        )
        .serve_on(lb);
    let snap = snapshot_of(format!("http://127.0.0.1:{a_port}/")).await;
    let note =
        format!("(not readable: it failed to load or refuses to be shown in a frame) {frame_url}");
    assert!(snap.contains(&note), "no note in\n{snap}");
    assert!(!snap.contains("Sign in"), "{snap}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_loaded_nothing_is_not_waited_for() {
    // A 204 answer ends the frame's navigation without a page, on either site.
    let ((la, a_port), (lb, b_port)) = (listener(), listener());
    let empty = || webfold_testkit::http::Response::status("204 No Content", "text/plain", "");
    Site::new()
        .page(
            "/",
            format!(
                r#"<!doctype html><html><body><h1>Shop</h1>
<iframe src="http://localhost:{b_port}/empty"></iframe><iframe src="/empty"></iframe></body></html>"#
            ),
        )
        .route("/empty", empty())
        .serve_on(la);
    Site::new().route("/empty", empty()).serve_on(lb);
    let snap = snapshot_of(format!("http://127.0.0.1:{a_port}/")).await;
    assert!(!snap.contains("not readable"), "{snap}");
    assert_eq!(snap.matches("- iframe [ref=").count(), 2, "{snap}");
}

/// The ref on the first line of `snapshot` containing `needle`, as a target.
fn ref_of(snapshot: &str, needle: &str) -> Target {
    ref_text(snapshot, needle).parse().expect("a ref")
}
