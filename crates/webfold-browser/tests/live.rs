//! Real Chromium against pages served from 127.0.0.1: capture facts and act.

use std::collections::HashMap;

use webfold_browser::{Browser, BrowserOptions};
use webfold_core::action::Target;
use webfold_testkit::http::serve_pages;

fn fixtures() -> HashMap<&'static str, String> {
    let list: String = (0..200)
        .map(|i| format!("<li><a href='/item/{i}'>Item {i}</a></li>"))
        .collect();
    let mut m = HashMap::new();
    m.insert(
        "/",
        format!(
            r#"<!doctype html><html><head><title>Fixture</title>
            <style>.modal {{ display: none }} .ghost {{ visibility: hidden }}</style></head>
            <body>
              <form id="f"><label>Name <input id="name" name="name"></label>
                <button id="go" type="button" onclick="document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value">Greet</button></form>
              <p id="out"></p>
              <div class="modal" id="modal"><button>Close</button></div>
              <span class="ghost" id="ghost">ghost</span>
              <div id="host"></div>
              <script>document.getElementById('host').attachShadow({{mode: 'open'}}).innerHTML = '<button id="inner">Shadow button</button>';</script>
              <iframe id="frame" src="/frame" width="300" height="100"></iframe>
              <ul id="list">{list}</ul>
            </body></html>"#
        ),
    );
    m.insert(
        "/frame",
        "<!doctype html><body><a id='in-frame' href='/x'>Inside the frame</a></body>".to_string(),
    );
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capture_has_real_layout_and_acts_on_nodes() {
    let base = serve_pages(fixtures());
    let browser = Browser::launch(BrowserOptions::default())
        .await
        .expect("chromium launches");
    let tab = browser.new_tab().await.unwrap();
    tab.navigate(&format!("{base}/")).await.unwrap();
    let cap = tab.capture().await.unwrap();
    let page = &cap.page;
    assert!(page.has_layout());
    assert_eq!(cap.title, "Fixture");

    // CSS-hidden elements are not rendered; the static view could not know.
    let modal = page.query("#modal").unwrap();
    assert!(!page.is_rendered(modal), "display:none from a stylesheet");
    let ghost = page.query("#ghost").unwrap();
    assert!(
        !page.is_rendered(ghost),
        "visibility:hidden from a stylesheet"
    );

    // Below the fold: the first list item is in the viewport, the last is not.
    let items = page.query_all("#list li").unwrap();
    assert_eq!(items.len(), 200);
    let first = page.layout(items[0]).unwrap();
    let last = page.layout(items[199]).unwrap();
    assert!(last.rendered && !last.in_viewport, "{last:?}");
    assert!(first.bounds.unwrap().y < last.bounds.unwrap().y);

    // Shadow DOM and same-origin iframe content are part of the captured page.
    let all_text = page.text_content(page.body().unwrap());
    assert!(
        all_text.contains("Shadow button"),
        "shadow root content captured"
    );
    assert!(
        all_text.contains("Inside the frame"),
        "iframe document captured"
    );

    // Links get the pointer cursor from Chromium's UA style.
    let link = page.query("#list a").unwrap();
    assert_eq!(
        page.layout(link).unwrap().cursor.as_deref(),
        Some("pointer")
    );

    // Act on captured nodes: type into the input, click the button, capture
    // again, see the change.
    let node = |sel: &str| Target::Node(page.query(sel).unwrap());
    let name = tab.element(&cap, &node("#name"), None).await.unwrap();
    tab.fill(&name, "Rustacean").await.unwrap();
    let go = tab.element(&cap, &node("#go"), None).await.unwrap();
    tab.click(&go).await.unwrap();
    let after = tab.capture().await.unwrap();
    let out = after.page.query("#out").unwrap();
    assert_eq!(after.page.text_content(out), "Hi Rustacean");

    let png = tab.screenshot(None, None).await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

#[tokio::test]
async fn missing_chromium_is_a_clear_error() {
    let opts = BrowserOptions {
        executable: "/nonexistent/chromium".into(),
        ..BrowserOptions::default()
    };
    let err = Browser::launch(opts).await.err().expect("fails");
    let msg = err.to_string();
    assert!(msg.contains("apt-get install chromium"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_url_is_a_navigation_error() {
    let browser = Browser::launch(BrowserOptions::default()).await.unwrap();
    let tab = browser.new_tab().await.unwrap();
    // A port nothing listens on.
    let port = webfold_testkit::free_port();
    let err = tab
        .navigate(&format!("http://127.0.0.1:{port}/"))
        .await
        .expect_err("fails");
    assert!(err.to_string().contains("ERR_CONNECTION_REFUSED"), "{err}");
}
