//! Text a person cannot see, in real Chromium and in static HTML: the
//! labelled pages in `tests/data/invisible` each hide an instruction one
//! way (off the page, clipped, zero-size, transparent, the background's
//! colour, `font-size: 0`, covered; in frames of the same and another site
//! and in shadow roots), beside pages where the same words show and must
//! stay. Every view an agent reads either leaves a hidden instruction out
//! or marks its line `invisible`; none loses visible words. The tables
//! (`--nocapture`) count, per view, hidden instructions that reach it
//! unmarked and visible ones it lost.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::PathBuf;

use serde::Deserialize;
use webfold_browser::BrowserOptions;
use webfold_core::Page;
use webfold_core::action::Action;
use webfold_core::cnt::CntView;
use webfold_core::contract::{Ctx, Surface};
use webfold_core::fetch_view::MarkdownRequest;
use webfold_core::markdown::MarkdownPage;
use webfold_core::outline::OutlineView;
use webfold_core::snapshot::find::FindOptions;
use webfold_core::snapshot::{FindView, SnapshotOptions, SnapshotView};
use webfold_core::tokens::Encoding;
use webfold_core::view::{Call, Input};
use webfold_live::LiveBrowser;
use webfold_testkit::http::Site;

#[derive(Debug, Deserialize)]
struct Fixture {
    page: String,
    technique: String,
    marker: String,
    hidden: bool,
    /// What holds the words: `text`, `heading`, `link`, `button`, `label`.
    role: String,
    /// `page`, `same-site iframe`, `cross-site iframe` or `shadow root`.
    #[serde(rename = "where")]
    place: String,
    /// Hidden by what static HTML can tell (inline styles), or only by
    /// stylesheets and layout.
    #[serde(rename = "static", default)]
    static_decidable: Option<bool>,
}

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/invisible")
}

fn fixtures() -> Vec<Fixture> {
    let json = std::fs::read_to_string(data().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&json).expect("the manifest reads")
}

const VIEWS: [&str; 6] = [
    "snapshot",
    "snapshot --all-roles",
    "cnt",
    "outline",
    "markdown",
    "find",
];

fn ctx() -> Ctx {
    Ctx::new(Surface::Cli, Encoding::default())
}

/// The six views as an agent asks for them, `find` looking for the marker.
fn calls(marker: &str) -> Vec<Call> {
    let all_roles = SnapshotOptions {
        interactive_only: false,
        ..SnapshotOptions::default()
    };
    let find = FindOptions {
        query: marker.to_string(),
        ..FindOptions::default()
    };
    vec![
        Call::of::<SnapshotView>(SnapshotOptions::default(), ctx()),
        Call::of::<SnapshotView>(all_roles, ctx()),
        Call::of::<CntView>(Default::default(), ctx()),
        Call::of::<OutlineView>(Default::default(), ctx()),
        Call::of::<MarkdownPage>(MarkdownRequest::default(), ctx()),
        Call::of::<FindView>(find, ctx()),
    ]
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Absent,
    /// Every line holding the words says `invisible`.
    Marked,
    Unmarked,
}

/// How `marker` shows in a view's text. `find` repeats its query in its
/// header, which is no match.
fn seen_in(text: &str, marker: &str, view: &str) -> Seen {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(marker))
        .filter(|l| !(view == "find" && l.contains(&format!("\"{marker}\""))))
        .collect();
    if lines.is_empty() {
        Seen::Absent
    } else if lines.iter().all(|l| l.contains("invisible")) {
        Seen::Marked
    } else {
        Seen::Unmarked
    }
}

/// Whether the view is meant to show these visible words at all: the
/// default snapshot lists controls and headings, and static HTML loads no
/// frame.
fn expected(f: &Fixture, view: &str, live: bool) -> bool {
    if f.place.ends_with("iframe") && !live {
        return false;
    }
    // Static HTML runs no script, and only the snapshot reads declarative
    // shadow roots (the other views take `<template>` content as inert).
    if !live && f.place == "shadow root" {
        let snapshot_view = view.starts_with("snapshot") || view == "find";
        if f.technique.contains("script") || !snapshot_view {
            return false;
        }
    }
    match view {
        "snapshot" => f.role != "text",
        // The outline previews a section's first words; headings it shows.
        "outline" => f.role == "heading",
        // Markdown is the reading text: no buttons, no form labels.
        "markdown" => !matches!(f.role.as_str(), "button" | "label"),
        _ => true,
    }
}

#[derive(Default)]
struct Counts {
    hidden_unmarked: usize,
    /// Of those, hidden only by stylesheets, which static HTML cannot read.
    hidden_undecidable: usize,
    hidden_marked: usize,
    hidden_out: usize,
    visible_lost: usize,
    visible_expected: usize,
}

/// Runs every view on `page` and tallies `f` into `table`; the failures,
/// as lines naming page, view and what went wrong.
fn score(
    page: &Page,
    url: &str,
    f: &Fixture,
    live: bool,
    table: &mut BTreeMap<&'static str, Counts>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for (view, call) in VIEWS.iter().zip(calls(&f.marker)) {
        let text = match call.run(&mut Input::page(page, url)) {
            Ok(e) => e.envelope_text(),
            Err(e) => panic!("{view} on {}: {e}", f.page),
        };
        let c = table.entry(view).or_default();
        let seen = seen_in(&text, &f.marker, view);
        if f.hidden {
            match seen {
                Seen::Absent => c.hidden_out += 1,
                Seen::Marked => c.hidden_marked += 1,
                Seen::Unmarked => {
                    c.hidden_unmarked += 1;
                    // Static HTML cannot tell what only stylesheets hide.
                    if live || f.static_decidable == Some(true) {
                        failures.push(format!(
                            "{view}: {} ({}) reads\n{text}",
                            f.page, f.technique
                        ));
                    } else {
                        c.hidden_undecidable += 1;
                    }
                }
            }
        } else if expected(f, view, live) {
            c.visible_expected += 1;
            if seen != Seen::Unmarked {
                c.visible_lost += 1;
                failures.push(format!(
                    "{view}: {} ({}) lost it:\n{text}",
                    f.page, f.technique
                ));
            }
        }
    }
    failures
}

trait EnvelopeText {
    fn envelope_text(self) -> String;
}

impl EnvelopeText for webfold_core::view::Envelope {
    fn envelope_text(self) -> String {
        self.text
    }
}

fn print_table(title: &str, table: &BTreeMap<&'static str, Counts>, hidden: usize) {
    println!("\n{title}");
    println!(
        "| view | hidden unmarked (of which stylesheet-only) | hidden marked | hidden left out | visible lost |"
    );
    println!("|---|---|---|---|---|");
    for view in VIEWS {
        let c = &table[view];
        println!(
            "| {view} | {} / {hidden} ({}) | {} | {} | {} / {} |",
            c.hidden_unmarked,
            c.hidden_undecidable,
            c.hidden_marked,
            c.hidden_out,
            c.visible_lost,
            c.visible_expected
        );
    }
}

/// Every text node with what hides it, for a page named in `INVISIBLE_DEBUG`.
fn debug(page: &Page) {
    for i in 0..page.len() {
        let id = webfold_core::NodeId::new(i as u32);
        if let Some(t) = page.text(id).filter(|t| !t.trim().is_empty()) {
            let l = page.layout(id);
            println!(
                "{i} {:?} {:?} {:?}",
                page.unseen(id),
                l.and_then(|l| l.bounds),
                t
            );
        } else if page.is_element(id) {
            println!(
                "{i} <{}> {:?} {:?}",
                page.tag(id).unwrap_or(""),
                page.unseen(id),
                page.layout(id).and_then(|l| l.bounds)
            );
        }
    }
}

fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let port = l.local_addr().expect("local address").port();
    (l, port)
}

/// Every file of the set on two sites, each naming the other as `{{OTHER}}`.
fn serve() -> (String, String) {
    let ((la, a_port), (lb, b_port)) = (listener(), listener());
    let a = format!("http://127.0.0.1:{a_port}");
    let b = format!("http://localhost:{b_port}");
    let files: Vec<(String, String)> = std::fs::read_dir(data())
        .expect("the data folder")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(e.path()).expect("a page"))
        })
        .collect();
    let site = |other: &str| {
        files
            .iter()
            .map(|(n, html)| (format!("/{n}"), html.replace("{{OTHER}}", other)))
            .collect::<Vec<_>>()
    };
    Site::new().pages(site(&b)).serve_on(la);
    Site::new().pages(site(&a)).serve_on(lb);
    (a, b)
}

/// How a live page is read: by webfold's own capture (CDP), or by the
/// browser extension's `capture.js` run in the page.
enum LiveCapture {
    Cdp,
    Extension { script: String },
}

impl LiveCapture {
    async fn page(&self, tab: &mut webfold_live::LivePage, marker: &str) -> (Page, String) {
        match self {
            LiveCapture::Cdp => {
                // A view captures the page as it now is; its capture is the one read.
                let first = calls(marker).remove(0);
                tab.view(first).await.expect("a capture");
                let (page, url, _) = tab.current().await.expect("a capture");
                (page, url)
            }
            LiveCapture::Extension { script } => {
                let run = format!("{script}\nJSON.stringify(webfoldCaptureDom(null))");
                let json = tab.tab().evaluate(&run).await.expect("the capture runs");
                let json = json.as_str().expect("the capture is a string");
                let page = webfold_core::page::capture::DomCapture::page_from_json(json)
                    .expect("the capture reads");
                let url = tab.tab().evaluate("location.href").await.expect("the URL");
                (page, url.as_str().unwrap_or_default().to_string())
            }
        }
    }
}

/// Every fixture opened in Chromium, read by `capture`, scored and tabled.
async fn live_run(title: &str, capture: LiveCapture) {
    let (a, _b) = serve();
    let live = LiveBrowser::new(BrowserOptions {
        executable: webfold_testkit::chromium(),
        ..BrowserOptions::default()
    });
    let tab = live.page(None).await.unwrap();
    let mut tab = tab.lock().await;
    let fixtures = fixtures();
    let mut table = BTreeMap::new();
    let mut failures = Vec::new();
    for f in &fixtures {
        // The extension cannot read another site's frame: what shows there is not counted.
        let unreadable = f.place == "cross-site iframe" && !f.hidden;
        if unreadable && matches!(capture, LiveCapture::Extension { .. }) {
            continue;
        }
        let url = format!("{a}/{}", f.page);
        if let Err(e) = tab.act(&Action::GoTo { url: url.clone() }).await {
            panic!("opening {url}: {e}");
        }
        let (page, url) = capture.page(&mut tab, &f.marker).await;
        if std::env::var("INVISIBLE_DEBUG").is_ok_and(|p| f.page.starts_with(&p)) {
            debug(&page);
        }
        failures.extend(score(&page, &url, f, true, &mut table));
    }
    let hidden = fixtures.iter().filter(|f| f.hidden).count();
    print_table(title, &table, hidden);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_instructions_never_reach_a_view_unmarked_in_chromium() {
    live_run("Live (Chromium):", LiveCapture::Cdp).await;
}

/// The same pages as the browser extension captures them: computed styles
/// and text boxes decide, and the page's hit test finds text painted over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_instructions_never_reach_a_view_unmarked_from_the_extension() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../extension/dist/capture.js");
    let script = std::fs::read_to_string(script).expect("the extension's built capture.js");
    live_run(
        "The extension's capture (Chromium):",
        LiveCapture::Extension { script },
    )
    .await;
}

/// The same pages as static HTML: what inline styles and attributes hide
/// is left out or marked; what only a stylesheet hides is counted apart,
/// and frames are not loaded.
#[test]
fn static_pages_leave_out_what_inline_styles_hide() {
    let fixtures = fixtures();
    let mut table = BTreeMap::new();
    let mut failures = Vec::new();
    for f in &fixtures {
        let html = std::fs::read_to_string(data().join(&f.page)).expect("a page");
        let page = Page::parse(&html.replace("{{OTHER}}", "http://localhost:9"));
        let url = format!("http://127.0.0.1:9/{}", f.page);
        failures.extend(score(&page, &url, f, false, &mut table));
    }
    let hidden = fixtures.iter().filter(|f| f.hidden).count();
    print_table("Static HTML:", &table, hidden);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
