//! Two daemons on one real PostgreSQL (a throwaway cluster): the extension's
//! tab is connected to daemon A, the coding agent to daemon B. The tab sees
//! B's agent, a pick and a message cross to B, the answer streams back to
//! the tab in order, B reads the tab's live page through A, and both survive
//! PostgreSQL being killed and restarted mid-run.

use std::path::Path;

use serde_json::{Value, json};
use webfold_chatter_client::client::Connection;
use webfold_store::ChatterStore;
use webfold_testkit::pg::PgCluster;

mod support;

use support::{Daemon, Scratch, Tab, WAIT};

const PAGE: &str = r#"<html><head><title>Shop</title></head><body><main><h1>Boots</h1><p class="price sale">€129</p></main></body></html>"#;

async fn call(agent: &Connection, method: &str, params: Value) -> Value {
    tokio::time::timeout(WAIT, agent.call(method, params))
        .await
        .unwrap_or_else(|_| panic!("{method} did not answer within 10 s"))
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// Reads `agents` frames until one lists `agent`.
async fn until_listed(tab: &mut Tab, agent: &str) -> Value {
    loop {
        let agents = tab.next("agents").await;
        let listed = agents["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["agentId"] == agent);
        if listed {
            return agents;
        }
    }
}

async fn pick(tab: &mut Tab) -> String {
    tab.send("set_context", json!({
        "element": {"tagName": "P", "classList": ["price", "sale"], "textContent": "€129",
                    "attributes": {"class": "price sale"}, "boundingBox": {"x": 10, "y": 40, "width": 80, "height": 20}},
        "ancestors": [{"tagName": "MAIN", "classList": []}],
        "page": {"url": "http://shop.test/boots", "title": "Shop"},
        "selector": "p.price",
        "html": PAGE,
    }))
    .await;
    tab.next("context_stored").await["contextId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Sends a message; the frame that answers it (`message_stored` or `error`).
async fn ask(tab: &mut Tab, context_id: &str, message: &str) -> Value {
    tab.send(
        "user_message",
        json!({"contextId": context_id, "message": message}),
    )
    .await;
    loop {
        let f = tab.frame().await;
        if f["type"] == "message_stored" || f["type"] == "error" {
            return f;
        }
    }
}

/// The agent answers a message in three parts; the tab gets them in order,
/// then the status cleared.
async fn answer_in_parts(agent: &Connection, tab: &mut Tab, session: &str, message_id: &str) {
    let status = call(
        agent,
        "update_status",
        json!({"sessionId": session, "status": "thinking", "detail": "reading the page"}),
    )
    .await;
    assert_eq!(
        status["delivered"], true,
        "the tab is connected to A: {status}"
    );
    for (part, last) in [
        ("The price ", false),
        ("is red: ", false),
        ("`.sale`.", true),
    ] {
        call(
            agent,
            "respond_to_browser",
            json!({"sessionId": session, "messageId": message_id, "message": part, "isComplete": last}),
        )
        .await;
    }
    let mut got = Vec::new();
    while got
        .last()
        .is_none_or(|f: &Value| f["payload"]["status"] != "idle")
    {
        let f = tab.frame().await;
        if f["type"] != "agents" {
            got.push(f);
        }
    }
    let kinds: Vec<&str> = got.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "status_update",
            "agent_response_chunk",
            "agent_response_chunk",
            "agent_response",
            "status_update"
        ],
        "{got:?}"
    );
    assert_eq!(got[3]["payload"]["messageId"], message_id);
    assert_eq!(got[1]["payload"]["chunk"], "The price ");
    assert_eq!(got[2]["payload"]["chunk"], "is red: ");
    assert_eq!(got[3]["payload"]["message"], "The price is red: `.sale`.");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tab_on_one_daemon_talks_to_an_agent_on_another() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let a = Daemon::start("pg-a", None, Some(ChatterStore::open(&url).await.unwrap())).await;
    let b = Daemon::start("pg-b", None, Some(ChatterStore::open(&url).await.unwrap())).await;
    let project = Scratch::new("pg-project");
    let project_dir = std::fs::canonicalize(&project.0).unwrap();

    let agent = Connection::open(&b.socket).await.unwrap();
    call(
        &agent,
        "hello",
        json!({"agentId": "agent-b", "project": project_dir, "client": "test"}),
    )
    .await;

    // The tab on A lists the agent connected to B.
    let mut tab = Tab::open(&a, 1).await;
    let session = tab.session.clone();
    let agents = until_listed(&mut tab, "agent-b").await;
    assert_eq!(
        agents["agents"][0]["project"],
        project_dir.display().to_string()
    );

    // A pick and a message on A reach the agent on B, page and all.
    let context = pick(&mut tab).await;
    let stored = ask(&mut tab, &context, "Why is the price red?").await;
    assert_eq!(stored["payload"]["agentId"], "agent-b", "{stored}");
    let got = call(&agent, "get_ui_context", json!({"wait_seconds": 10})).await;
    assert_eq!(got["userMessage"], "Why is the price red?", "{got}");
    assert_eq!(got["sessionId"], session);
    assert_eq!(got["contextId"], context);
    assert_eq!(got["element"]["textContent"], "€129");
    let html_path = got["htmlPath"]
        .as_str()
        .expect("the page, written on B's side");
    assert!(
        Path::new(html_path).starts_with(&project_dir),
        "{html_path}"
    );
    assert_eq!(std::fs::read_to_string(html_path).unwrap(), PAGE);

    answer_in_parts(
        &agent,
        &mut tab,
        &session,
        got["messageId"].as_str().unwrap(),
    )
    .await;

    // Either daemon reads the same history and knows where the tab is.
    let history = call(
        &agent,
        "get_conversation_history",
        json!({"sessionId": session}),
    )
    .await;
    assert_eq!(
        webfold_testkit::conversation(&history["messages"]),
        [
            "user: Why is the price red?",
            "assistant: The price is red: `.sale`."
        ]
    );
    let sessions = call(&agent, "list_sessions", json!({})).await;
    assert_eq!(sessions["sessions"][0]["sessionId"], session, "{sessions}");
    assert_eq!(sessions["sessions"][0]["connected"], true);
    assert_eq!(sessions["sessions"][0]["pageUrl"], "http://shop.test/boots");

    // The agent on B reads the tab's live page: the request goes through
    // A, and the tab's answer comes back to B.
    let live = {
        let read = agent.call(
            "get_live_html",
            json!({"sessionId": session, "selector": "p.price"}),
        );
        let serve = async {
            let get = tab.next("get_html").await;
            assert_eq!(get["selector"], "p.price");
            let html = PAGE.replace("€129", "€99");
            tab.send(
                "html",
                json!({"requestId": get["requestId"], "html": html, "matches": 1}),
            )
            .await;
        };
        let (live, ()) = tokio::join!(read, serve);
        live.unwrap()
    };
    assert!(live["html"].as_str().unwrap().contains("€99"), "{live}");

    // PostgreSQL dies mid-run: a message is refused in words, not lost
    // silently; once it is back, messages and answers cross again.
    cluster.kill();
    let refused = ask(&mut tab, &context, "Still there?").await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["payload"]["code"], "storage");
    let why = refused["payload"]["message"].as_str().unwrap();
    assert!(why.contains("cannot reach PostgreSQL"), "{why}");
    cluster.start_server();
    let stored = ask(&mut tab, &context, "And now?").await;
    assert_eq!(stored["type"], "message_stored", "{stored}");
    let got = call(&agent, "get_ui_context", json!({"wait_seconds": 10})).await;
    assert_eq!(got["userMessage"], "And now?", "{got}");
    answer_in_parts(
        &agent,
        &mut tab,
        &session,
        got["messageId"].as_str().unwrap(),
    )
    .await;
}
