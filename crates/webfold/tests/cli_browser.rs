//! `--browser`: views computed from the page as Chromium rendered it, served
//! from a server this test starts on 127.0.0.1.

use std::process::{Command, Output};

mod support;
use support::webfold;
use webfold_testkit::http::serve_page;

const PAGE: &str = r#"<!doctype html><html><head><title>Live fixture</title>
<style>.modal { display: none } .spacer { height: 3000px }</style></head><body>
<form><label>Email <input name="email"></label><button type="submit">Sign up</button></form>
<div class="modal"><button>Close modal</button></div>
<div class="spacer"></div>
<a href="/far">Far link</a>
<script>document.body.insertAdjacentHTML('beforeend', '<button>Added by script</button>')</script>
</body></html>"#;

fn stdout_ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn snapshot_from_the_live_page_drops_css_hidden_and_sees_script_output() {
    let url = serve_page(PAGE);
    let live = stdout_ok(&webfold(&["snapshot", &url, "--browser"]));
    assert!(live.contains("button \"Sign up\""), "{live}");
    assert!(live.contains("button \"Added by script\""), "{live}");
    assert!(
        !live.contains("Close modal"),
        "display:none from a stylesheet: {live}"
    );
    assert!(live.contains("link \"Far link\""), "{live}");
}

#[test]
fn viewport_only_uses_real_boxes_and_the_viewport_flag() {
    let url = serve_page(PAGE);
    let top = stdout_ok(&webfold(&[
        "snapshot",
        &url,
        "--browser",
        "--viewport-only",
    ]));
    assert!(top.contains("button \"Sign up\""), "{top}");
    assert!(!top.contains("Far link"), "3000px below the fold: {top}");
    assert!(
        top.contains("outside the viewport"),
        "says what it cut: {top}"
    );

    let tall = stdout_ok(&webfold(&[
        "snapshot",
        &url,
        "--browser",
        "--viewport-only",
        "--viewport",
        "1280x4000",
    ]));
    assert!(
        tall.contains("link \"Far link\""),
        "a taller viewport: {tall}"
    );
}

#[test]
fn files_render_as_file_urls_and_other_views_take_the_flag() {
    let dir = std::env::temp_dir().join(format!("webfold-cli-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("page.html");
    std::fs::write(&path, PAGE).expect("write fixture");
    let path = path.to_string_lossy().into_owned();

    let md = stdout_ok(&webfold(&[
        "markdown",
        &path,
        "--browser",
        "--no-main",
        "--json",
    ]));
    let md: serde_json::Value = serde_json::from_str(&md).expect("json");
    let text = md["text"].as_str().unwrap_or_default();
    assert!(text.contains("Added by script"), "{text}");
    assert!(!text.contains("Close modal"), "{text}");
    assert!(
        md["url"]
            .as_str()
            .unwrap_or_default()
            .starts_with("file://"),
        "{md}"
    );

    let outline = stdout_ok(&webfold(&["outline", &path, "--browser"]));
    assert!(outline.contains("Added by script"), "{outline}");
    let static_outline = stdout_ok(&webfold(&["outline", &path]));
    assert!(
        !static_outline.contains("Added by script"),
        "{static_outline}"
    );

    let cnt = stdout_ok(&webfold(&["cnt", &path, "--browser"]));
    assert!(cnt.contains("Added by script"), "{cnt}");
    assert!(!cnt.contains("Close modal"), "{cnt}");
    let static_cnt = stdout_ok(&webfold(&["cnt", &path]));
    assert!(
        static_cnt.contains("Close modal"),
        "static HTML cannot see the stylesheet: {static_cnt}"
    );

    let chunk = stdout_ok(&webfold(&[
        "chunk",
        &path,
        "--browser",
        "--selector",
        "form",
    ]));
    assert!(chunk.contains("name=\"email\""), "{chunk}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_chromium_names_the_package_and_exits_1() {
    let out = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(["snapshot", "about:blank", "--browser"])
        .env("WEBFOLD_CHROMIUM", "/nonexistent/chromium")
        .output()
        .expect("run webfold");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("apt-get install chromium"), "{err}");
}

#[test]
fn bad_viewport_is_a_usage_error() {
    let out = webfold(&["snapshot", "x.html", "--browser", "--viewport", "wide"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("WIDTHxHEIGHT"), "{err}");
}
