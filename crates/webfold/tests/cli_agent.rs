//! `webfold agent` end to end: the real binary against a scripted provider
//! server on 127.0.0.1, with no API key and no network.

mod support;

use std::net::SocketAddr;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, watch};

use serde_json::{Value, json};
use support::{page_file, stderr, stdout};
use webfold_agent::replay::{Part, ReplayServer, Scripted};
use webfold_agent::{ProviderKind, Usage};
use webfold_testkit::http::serve_page;

const PAGE: &str = r#"<!DOCTYPE html><html><head><title>Acme</title></head><body>
<header id="top"><a href="/">Acme</a></header>
<main><section class="hero"><h1>Welcome</h1><p>The best anvils.</p></section></main>
<footer>© Acme</footer></body></html>"#;

/// Runs the binary with no provider keys in its environment.
fn agent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_webfold"))
        .arg("agent")
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("run webfold")
}

fn answer() -> Value {
    json!({"domChanges": [{"selector": "section.hero > h1", "type": "text", "value": "Hello"}],
        "response": "Done.", "action": "append"})
}

fn usage(i: u64, o: u64) -> Usage {
    Usage {
        input_tokens: i,
        output_tokens: o,
    }
}

/// A server that answers one `get_html_chunk` of `selector`, then the final
/// tool, with these token counts.
async fn chunk_then_answer(
    kind: ProviderKind,
    selector: &str,
    stream: bool,
    counts: [(u64, u64); 2],
) -> ReplayServer {
    let chunk = Part::tool("c1", "get_html_chunk", json!({ "selector": selector }));
    let done = Part::tool("c2", "dom_changes_generator", answer());
    ReplayServer::start(vec![
        Scripted::reply(kind, &[chunk], usage(counts[0].0, counts[0].1), stream),
        Scripted::reply(kind, &[done], usage(counts[1].0, counts[1].1), stream),
    ])
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chunks_then_answers_as_json() {
    let kind = ProviderKind::OpenAi;
    let server = chunk_then_answer(kind, "section.hero", true, [(300, 12), (410, 30)]).await;
    let path = page_file("cli_agent", "page.html", PAGE);
    let base = format!("{}/v1", server.url());
    let args = [
        path.to_str().unwrap(),
        "--task",
        "Say hello",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--model",
        "local",
        "--json",
    ];
    // Blocking is fine: the server runs on the worker threads.
    let o = agent(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["output"], answer());
    assert_eq!(v["mode"], "chunked");
    assert_eq!(v["iterations"], 2);
    assert_eq!(v["fallback"], Value::Null);
    assert_eq!(
        v["usage"],
        json!({"input_tokens": 710, "output_tokens": 42})
    );
    assert_eq!(v["provider"], "openai");
    assert_eq!(v["model"], "local");
    assert_eq!(v["calls"][0]["tool_calls"][0]["name"], "get_html_chunk");
    let reqs = server.requests();
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].body["model"], "local");
    assert!(
        reqs[0].body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("section.hero")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fallback_is_reported_and_the_answer_printed() {
    let kind = ProviderKind::Anthropic;
    let server = chunk_then_answer(kind, "header", false, [(100, 5), (900, 30)]).await;
    let path = page_file("cli_agent", "fallback.html", PAGE);
    let base = server.url();
    let o = agent(&[
        path.to_str().unwrap(),
        "--task",
        "Say hello",
        "--base-url",
        &base,
        "--max-iterations",
        "1",
        "--no-stream",
        "--view",
        "cnt",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let printed: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(printed, answer());
    assert_eq!(
        stderr(&o).trim(),
        "2 model calls (full HTML), 1000 input + 35 output tokens; fell back to the full HTML: no final answer within 1 iteration"
    );
    let reqs = server.requests();
    assert!(
        reqs[1].body["system"]
            .as_str()
            .unwrap()
            .contains("<p>The best anvils.</p>")
    );
    assert_eq!(reqs[1].body.get("stream"), None);
}

#[test]
fn errors_say_what_to_do() {
    let path = page_file("cli_agent", "errors.html", PAGE);
    let p = path.to_str().unwrap();
    let o = agent(&[p, "--task", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "error: no API key for Anthropic: set ANTHROPIC_API_KEY, or pass a local server's address with --base-url (no key needed on 127.0.0.1 or localhost)"
    );
    let bad = page_file("cli_agent", "bad.schema.json", r#"{"type": "array"}"#);
    let o = agent(&[
        p,
        "--task",
        "x",
        "--base-url",
        "http://127.0.0.1:9",
        "--schema",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "error: invalid final-answer schema: the schema must describe an object: its top level needs \"type\": \"object\""
    );
    let o = agent(&[
        p,
        "--task",
        "x",
        "--base-url",
        "http://127.0.0.1:9",
        "--provider",
        "openai",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("error: cannot reach the OpenAI-compatible server at http://127.0.0.1:9/chat/completions"), "{err}");
    let o = agent(&[p, "--task", "x", "--max-iterations", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // --view takes the registry's views of a whole page; find and chunk show
    // a part a call names, and say which views the agent can be given.
    for (view, says) in [
        ("find", "the agent cannot be given the find view"),
        ("chunk", "the agent cannot be given the chunk view"),
        ("nope", "unknown view 'nope'"),
    ] {
        let o = agent(&[p, "--task", "x", "--view", view]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(says), "{err}");
        assert!(
            err.contains("can be given outline, snapshot, markdown, cnt, links"),
            "{err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_pages_are_rendered_first() {
    let page = r#"<!doctype html><html><body><h1>Static</h1>
<script>document.querySelector('h1').textContent = 'Rendered'</script></body></html>"#;
    let kind = ProviderKind::OpenAi;
    let server = chunk_then_answer(kind, "h1", true, [(1, 1), (1, 1)]).await;
    let path = page_file("cli_agent", "live.html", page);
    let base = format!("{}/v1", server.url());
    let o = agent(&[
        path.to_str().unwrap(),
        "--task",
        "x",
        "--provider",
        "openai",
        "--base-url",
        &base,
        "--browser",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reqs = server.requests();
    let chunk = reqs[1].body["messages"][3]["content"].as_str().unwrap();
    assert_eq!(chunk, "<page-content>\n<h1>Rendered</h1>\n</page-content>");
}

/// With --browser the tab stays open: each chunk reads it again. The page
/// changes between the two reads (the provider holds its second reply until
/// the tab shows the new value), and the second chunk carries the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_chunks_read_the_live_tab() {
    let page = serve_counter().await;
    let kind = ProviderKind::Anthropic;
    let read = |id| Part::tool(id, "get_html_chunk", json!({"selector": "#n"}));
    let done = Part::tool("c3", "dom_changes_generator", answer());
    let gate = Arc::new(Notify::new());
    let server = ReplayServer::start(vec![
        Scripted::reply(kind, &[read("c1")], usage(1, 1), false),
        Scripted::Gated {
            open: gate.clone(),
            then: Box::new(Scripted::reply(kind, &[read("c2")], usage(1, 1), false)),
        },
        Scripted::reply(kind, &[done], usage(1, 1), false),
    ])
    .await
    .unwrap();
    let (url, base) = (page.url.clone(), server.url());
    let mut run = tokio::task::spawn_blocking(move || {
        agent(&[&url, "--task", "x", "--base-url", &base, "--browser"])
    });
    // The second request carries the first read; change the page, wait until
    // the tab shows it, then let the agent read again.
    tokio::select! {
        _ = server.until_received(2) => {}
        o = &mut run => panic!("the agent ended early: {}", stderr(&o.unwrap())),
    }
    page.value.send_replace(1);
    let mut shown = page.shown.clone();
    let showing = tokio::time::timeout(Duration::from_secs(60), shown.wait_for(|v| *v == 1));
    assert!(matches!(showing.await, Ok(Ok(_))), "the tab never showed 1");
    gate.notify_one();
    let o = run.await.unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reqs = server.requests();
    let results = reqs[2].tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    let count = |r: &str| -> u64 {
        let inner = r
            .split("<p id=\"n\">")
            .nth(1)
            .and_then(|t| t.split('<').next());
        inner
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no counter in {r}"))
    };
    assert_eq!((count(results[0]), count(results[1])), (0, 1));
}

/// A page whose counter changes only when the test sends a new `value`. The
/// page long-polls `/next?shown=N` and shows what it gets, so each poll also
/// reports the number the tab shows (`shown`).
struct Counter {
    url: String,
    value: watch::Sender<u64>,
    shown: watch::Receiver<u64>,
}

const COUNTER_PAGE: &str = r#"<!doctype html><p id="n">0</p><script>
const p = document.getElementById('n');
(async () => { for (;;) { const r = await fetch('/next?shown=' + p.textContent); p.textContent = await r.text(); } })();
</script>"#;

async fn serve_counter() -> Counter {
    let (value, value_rx) = watch::channel(0u64);
    let (shown_tx, shown) = watch::channel(0u64);
    let addr = serve(move |path| {
        let (mut value, shown) = (value_rx.clone(), shown_tx.clone());
        async move {
            let Some(now) = path.strip_prefix("/next?shown=") else {
                return Some(match path.as_str() {
                    "/" => ("200 OK", "text/html", COUNTER_PAGE.to_string()),
                    _ => ("404 Not Found", "text/plain", String::new()),
                });
            };
            let now: u64 = now.parse().unwrap_or(0);
            shown.send_replace(now);
            let next = *value.wait_for(|v| *v != now).await.ok()?;
            Some(("200 OK", "text/plain", next.to_string()))
        }
    })
    .await;
    Counter {
        url: format!("http://{addr}/"),
        value,
        shown,
    }
}

/// A status line, a content type and a body.
type Answer = (&'static str, &'static str, String);

/// Serves on 127.0.0.1, one request a connection: `answer` gets the path and
/// may hold the request; `None` closes the connection unanswered.
async fn serve<F, Fut>(answer: F) -> SocketAddr
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<Answer>> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let Some((status, kind, body)) = answer(path).await else {
                    return;
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(reply.as_bytes()).await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn act_runs_one_action_per_step_in_the_browser() {
    let url = serve_page(
        r#"<!doctype html><title>Shop</title><button onclick="this.textContent='Added'">Add to cart</button>"#,
    );
    // The button's CNT id, as the live page numbers it.
    let cnt = Command::new(env!("CARGO_BIN_EXE_webfold"))
        .args(["cnt", "--browser", &url])
        .output()
        .expect("run webfold");
    let cnt = stdout(&cnt);
    let button: u32 = cnt
        .lines()
        .find(|l| l.contains("button*"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no button in {cnt}"));
    let kind = ProviderKind::Anthropic;
    let calls = [
        ("plan", json!({"steps": ["Add it to the cart"]})),
        (
            "step",
            json!({"action": {"action": "click"}, "element": "Add to cart", "solved": true}),
        ),
        ("found", json!({"id": button})),
        ("check", json!({"solved": true})),
    ];
    let server = ReplayServer::start(
        calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                let call = Part::tool(&format!("a{i}"), name, args.clone());
                Scripted::reply(kind, &[call], usage(5, 1), false)
            })
            .collect(),
    )
    .await
    .unwrap();
    let o = agent(&[
        &url,
        "--task",
        "Add it to the cart",
        "--base-url",
        &server.url(),
        "--act",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}{out}", stderr(&o));
    assert!(
        out.contains(&format!(
            "[1] lookup {{\"id\":{button}}} → found: click node"
        )),
        "{out}"
    );
    assert!(out.contains("→ clicked node"), "{out}");
    assert!(out.contains("solved (1/1 steps, 1 actions)"), "{out}");
    // The corrector sees the page after the click.
    let reqs = server.requests();
    let check = reqs[3].body["messages"][0]["content"].to_string();
    assert!(check.contains("button* Added"), "{check}");
    assert!(
        stderr(&o).contains("20 input + 4 output tokens"),
        "{}",
        stderr(&o)
    );

    let o = agent(&[
        "page.html",
        "--task",
        "x",
        "--base-url",
        &server.url(),
        "--act",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("give an http(s) URL"), "{}", stderr(&o));
}
