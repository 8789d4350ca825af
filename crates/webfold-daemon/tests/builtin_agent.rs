//! The built-in agent as a tab meets it: a daemon (in this process) with a
//! scripted provider on 127.0.0.1, and a WebSocket client playing the paired
//! extension. The model reads a chunk, which the daemon takes from the tab's
//! live page; the answer comes back to the tab; a tab that goes away
//! cancels the run; a provider that keeps failing is reported.

use std::time::Duration;

use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use webfold_agent::replay::{Part, ReplayServer, Scripted};
use webfold_agent::{ProviderConfig, ProviderKind, Usage};
use webfold_daemon::builtin::{AGENT_ID, BuiltinAgent};

mod support;

use support::{Daemon, Tab, WAIT};

/// A daemon in a scratch home whose built-in agent calls `server`.
async fn daemon(name: &str, server: &ReplayServer) -> Daemon {
    let base = format!("{}/v1", server.url());
    let mut cfg = ProviderConfig::new(ProviderKind::OpenAi, Some(&base), Some("m"), None).unwrap();
    cfg.stream = false;
    cfg.retry.base_delay = Duration::from_millis(1);
    cfg.retry.max_delay = Duration::from_millis(4);
    let agent = BuiltinAgent::new(cfg).unwrap();
    Daemon::start(&format!("builtin-{name}"), Some(agent), None).await
}

/// The shop page's pick and question, as the panel sends them.
trait Shopper {
    async fn pick(&mut self) -> String;
    async fn ask(&mut self, context_id: &str, message: &str);
}

impl Shopper for Tab {
    /// Picks the price on the shop page; the context id.
    async fn pick(&mut self) -> String {
        self.send("set_context", json!({
            "element": {"tagName": "P", "classList": ["price"], "textContent": "12 €", "attributes": {"class": "price"},
                        "boundingBox": {"x": 10, "y": 40, "width": 80, "height": 20}},
            "ancestors": [{"tagName": "SECTION", "classList": ["hero"]}],
            "page": {"url": "http://shop.test/", "title": "Shop"},
            "selector": "p.price",
            "dom": capture(),
        }))
        .await;
        self.next("context_stored").await["contextId"]
            .as_str()
            .unwrap()
            .to_string()
    }

    async fn ask(&mut self, context_id: &str, message: &str) {
        self.send(
            "user_message",
            json!({"contextId": context_id, "message": message}),
        )
        .await;
        let stored = self.next("message_stored").await;
        assert_eq!(stored["agentId"], AGENT_ID, "{stored}");
    }
}

/// The extension's capture of a small shop page, with boxes.
fn capture() -> Value {
    let b = |y: f64| json!({"b": [0, y, 800, 20], "r": true});
    json!({
        "viewport": {"width": 800, "height": 600},
        "nodes": [
            {"p": 0, "k": 1, "n": "html", "l": b(0.0)},
            {"p": 1, "k": 1, "n": "head"},
            {"p": 1, "k": 1, "n": "body", "l": b(0.0)},
            {"p": 3, "k": 1, "n": "section", "a": ["class", "hero"], "l": b(0.0)},
            {"p": 4, "k": 1, "n": "h1", "l": b(0.0)},
            {"p": 5, "k": 3, "t": "Fixture shop", "l": {"r": true}},
            {"p": 4, "k": 1, "n": "p", "a": ["class", "price"], "l": b(40.0)},
            {"p": 7, "k": 3, "t": "12 €", "l": {"r": true}},
        ]
    })
}

/// The tab's page now: the price changed after the pick.
const LIVE: &str = r#"<html><head></head><body><section class="hero"><h1>Fixture shop</h1><p class="price">7 € (flash sale)</p></section></body></html>"#;

fn openai(parts: &[Part]) -> Scripted {
    let usage = Usage {
        input_tokens: 500,
        output_tokens: 20,
    };
    Scripted::reply(ProviderKind::OpenAi, parts, usage, false)
}

fn answer() -> Value {
    json!({
        "domChanges": [{"selector": "p.price", "type": "text", "value": "7 €"}],
        "response": "The price reads **7 € (flash sale)** now.",
        "action": "append"
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_comes_from_the_live_tab_and_the_answer_reaches_it() {
    let server = ReplayServer::start(vec![
        openai(&[Part::tool(
            "c1",
            "get_html_chunk",
            json!({"selector": ".price"}),
        )]),
        openai(&[Part::tool("c2", "dom_changes_generator", answer())]),
    ])
    .await
    .unwrap();
    let d = daemon("live", &server).await;
    let mut tab = Tab::open(&d, 1).await;
    let agents = tab.next("agents").await;
    assert_eq!(
        agents["agents"],
        json!([{"agentId": AGENT_ID, "project": "", "client": "webfold agent · openai m", "builtIn": true}])
    );
    let context = tab.pick().await;
    tab.send("select_agent", json!({"agentId": AGENT_ID})).await;
    assert_eq!(tab.next("agents").await["selected"], AGENT_ID);
    tab.ask(&context, "Is the price right?").await;

    // The chunk call: the daemon asks the tab for its whole current page.
    let get = tab.next("get_html").await;
    assert!(get.get("selector").is_none(), "{get}");
    tab.send(
        "html",
        json!({"requestId": get["requestId"], "html": LIVE, "matches": 1, "url": "http://shop.test/"}),
    )
    .await;
    let reply = tab.next("agent_response").await;
    assert_eq!(reply["message"], answer()["response"]);
    assert_eq!(reply["isComplete"], true);
    let result = &reply["result"];
    assert_eq!(result["domChanges"], answer()["domChanges"]);
    assert_eq!(result["action"], "append");
    assert_eq!(result["iterations"], 2);
    assert_eq!(result["inputTokens"], 1000);
    assert_eq!(result["outputTokens"], 40);
    assert_eq!(tab.next("status_update").await["status"], "idle");
    let statuses: Vec<String> = tab
        .seen
        .iter()
        .filter(|f| f["type"] == "status_update")
        .map(|f| format!("{} {}", f["payload"]["status"], f["payload"]["detail"]))
        .collect();
    assert!(
        statuses.iter().any(|s| s.contains("reading .price")),
        "{statuses:?}"
    );

    // What the model was given: the capture's outline, then the live chunk.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let system = reqs[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("p.price"), "{system}");
    let results = reqs[1].tool_results();
    let [chunk] = results.as_slice() else {
        panic!("one tool result: {results:?}")
    };
    assert!(
        chunk.contains("7 € (flash sale)") && !chunk.contains("12 €"),
        "{chunk}"
    );
    assert!(chunk.contains("<page-content>"), "fenced: {chunk}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_that_goes_away_cancels_its_run() {
    let server = ReplayServer::start(vec![Scripted::Hang]).await.unwrap();
    let d = daemon("cancel", &server).await;
    let mut tab = Tab::open(&d, 2).await;
    let context = tab.pick().await;
    // The built-in agent is the only agent: the message goes to it unasked.
    tab.ask(&context, "Is the price right?").await;
    tokio::time::timeout(WAIT, server.until_received(1))
        .await
        .expect("the model is called");
    tab.ws.close(None).await.unwrap();
    drop(tab);
    tokio::time::timeout(WAIT, server.until_abandoned(1))
        .await
        .expect("the call in flight is given up");
    // The daemon carries on.
    let mut other = Tab::open(&d, 3).await;
    other
        .ws
        .send(Message::Text(r#"{"type":"ping"}"#.into()))
        .await
        .unwrap();
    other.next("pong").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_provider_is_reported_in_the_users_words() {
    let failing = Scripted::error(500, "overloaded", &[]);
    let server = ReplayServer::start(vec![failing; 4]).await.unwrap();
    let d = daemon("failing", &server).await;
    let mut tab = Tab::open(&d, 4).await;
    let context = tab.pick().await;
    tab.ask(&context, "Is the price right?").await;
    let e = tab.next("error").await;
    assert_eq!(e["code"], "agent_failed", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with("The webfold agent could not answer:")
            && message.contains("500")
            && message.contains("try again later"),
        "{message}"
    );
    assert_eq!(tab.next("status_update").await["status"], "idle");
    assert_eq!(server.requests().len(), 4);
}
