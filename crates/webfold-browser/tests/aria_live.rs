//! Playwright conformance in a real browser: every ARIA corpus case served
//! from 127.0.0.1, rendered by Chromium, captured, and snapshotted by the
//! core; compared byte for byte with Playwright's output. Prints the match
//! rate per mode and per tag (`--nocapture`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use webfold_browser::{Browser, BrowserOptions};
use webfold_core::aria::{Mode, snapshot};

/// Floors from the first measurement (Debian chromium: 588/624 aria,
/// 578/624 ai on Chromium 156); a drop fails. Most misses are in the
/// `iframe` (2/15) and `css` (59/80) cases, not yet investigated.
const FLOOR_ARIA: f64 = 0.94;
const FLOOR_AI: f64 = 0.92;

async fn serve(pages: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let pages = Arc::new(pages);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let pages = pages.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]);
                let path = req.split_whitespace().nth(1).unwrap_or("/");
                let body = path
                    .strip_prefix("/case/")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| pages.get(i).cloned());
                let (status, body) = match body {
                    Some(b) => ("200 OK", b),
                    None => ("404 Not Found", String::new()),
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}")
}

#[derive(Default)]
struct Tally {
    cases: usize,
    aria: usize,
    ai: usize,
}

impl Tally {
    fn add(&mut self, aria_ok: bool, ai_ok: bool) {
        self.cases += 1;
        self.aria += aria_ok as usize;
        self.ai += ai_ok as usize;
    }

    fn row(&self, label: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.cases.max(1) as f64;
        format!(
            "{label:<16} {:>5} {:>5} {:>6.1}% {:>5} {:>6.1}%",
            self.cases,
            self.aria,
            pct(self.aria),
            self.ai,
            pct(self.ai)
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aria_cases_in_chromium_match_playwright() {
    let cases = webfold_corpus::aria_cases();
    assert!(cases.len() >= 600, "{} cases", cases.len());
    let base = serve(cases.iter().map(|c| c.html.clone()).collect()).await;
    let browser = Browser::launch(BrowserOptions {
        navigation_timeout: Duration::from_secs(10),
        ..BrowserOptions::default()
    })
    .await
    .expect("chromium launches");
    let tab = browser.new_tab().await.unwrap();
    let show = std::env::var("ARIA_SHOW").ok();
    let mut all = Tally::default();
    let mut by_tag: BTreeMap<String, Tally> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        let (aria_ok, ai_ok) = match tab.navigate(&format!("{base}/case/{i}")).await {
            Ok(()) => match tab.capture().await {
                Ok(cap) => {
                    let aria = snapshot(&cap.page, Mode::Aria);
                    let ai = snapshot(&cap.page, Mode::Ai);
                    if show.as_deref().is_some_and(|f| case.id.contains(f)) {
                        if aria != case.aria {
                            eprintln!(
                                "=== {} aria\n{}\n--- expected\n{}\n--- actual\n{}",
                                case.id, case.html, case.aria, aria
                            );
                        }
                        if ai != case.ai {
                            eprintln!(
                                "=== {} ai\n--- expected\n{}\n--- actual\n{}",
                                case.id, case.ai, ai
                            );
                        }
                    }
                    (aria == case.aria, ai == case.ai)
                }
                Err(e) => {
                    eprintln!("{}: capture failed: {e}", case.id);
                    (false, false)
                }
            },
            Err(e) => {
                eprintln!("{}: navigation failed: {e}", case.id);
                (false, false)
            }
        };
        all.add(aria_ok, ai_ok);
        for tag in &case.tags {
            by_tag.entry(tag.clone()).or_default().add(aria_ok, ai_ok);
        }
    }
    println!(
        "{:<16} {:>5} {:>5} {:>7} {:>5} {:>7}",
        "tag", "cases", "aria", "rate", "ai", "rate"
    );
    for (tag, t) in &by_tag {
        println!("{}", t.row(tag));
    }
    println!("{}", all.row("ALL (chromium)"));
    let rate = |n: usize| n as f64 / all.cases as f64;
    assert!(
        rate(all.aria) >= FLOOR_ARIA,
        "aria rate in Chromium fell below {FLOOR_ARIA}"
    );
    assert!(
        rate(all.ai) >= FLOOR_AI,
        "ai rate in Chromium fell below {FLOOR_AI}"
    );
}
