//! Answers never mix: each belongs to the user message it answers. A real
//! daemon, the extension's tab on its WebSocket and coding agents on its
//! agent socket, as `webfold mcp` talks to it; what the tab is sent and what
//! the project's history.db keeps are both checked.
//!
//! The rule agents are given: each `respond_to_browser` adds the next part,
//! the last one has `isComplete`, and a part that repeats everything sent so
//! far replaces it. An answer left open is closed by the daemon when its
//! agent disconnects or another agent answers the same message; a status
//! clears when its agent completes an answer or disconnects.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use webfold_chatter_client::client::Connection;
use webfold_store::{HistoryStore, Role};

use support::{Daemon, Scratch, Tab, WAIT};

async fn call(agent: &Connection, method: &str, params: Value) -> Value {
    tokio::time::timeout(WAIT, agent.call(method, params))
        .await
        .unwrap_or_else(|_| panic!("{method} did not answer within 10 s"))
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// A coding agent of `project`, connected as `id`.
async fn agent(d: &Daemon, id: &str, project: &Path) -> Connection {
    let agent = Connection::open(&d.socket).await.unwrap();
    call(
        &agent,
        "hello",
        json!({"agentId": id, "project": project, "client": "test"}),
    )
    .await;
    agent
}

fn project(scratch: &Scratch) -> PathBuf {
    std::fs::canonicalize(&scratch.0).unwrap()
}

async fn pick(tab: &mut Tab) -> String {
    tab.send("set_context", json!({
        "element": {"tagName": "BUTTON", "classList": [], "textContent": "Buy",
                    "attributes": {}, "boundingBox": {"x": 1, "y": 2, "width": 30, "height": 10}},
        "ancestors": [],
        "page": {"url": "http://shop.test/cart", "title": "Cart"},
        "selector": "button",
    }))
    .await;
    let stored = tab.next("context_stored").await;
    stored["contextId"].as_str().unwrap().to_string()
}

/// The user writes to `agent` about the pick; the message's id.
async fn ask(tab: &mut Tab, context_id: &str, agent: &str, message: &str) -> String {
    tab.send(
        "user_message",
        json!({"contextId": context_id, "message": message, "agentId": agent}),
    )
    .await;
    let stored = tab.next("message_stored").await;
    assert_eq!(stored["agentId"], agent, "{stored}");
    stored["messageId"].as_str().unwrap().to_string()
}

/// The agent reads the next message: its id, checked against the tab's.
async fn read(agent: &Connection, expected_id: &str, expected: &str) {
    let got = call(agent, "get_ui_context", json!({"wait_seconds": 10})).await;
    assert_eq!(got["userMessage"], expected, "{got}");
    assert_eq!(got["messageId"], expected_id, "{got}");
}

async fn respond(agent: &Connection, tab: &Tab, message_id: &str, part: &str, complete: bool) {
    call(
        agent,
        "respond_to_browser",
        json!({"sessionId": tab.session, "messageId": message_id, "message": part, "isComplete": complete}),
    )
    .await;
}

async fn status(agent: &Connection, tab: &Tab, status: &str) {
    call(
        agent,
        "update_status",
        json!({"sessionId": tab.session, "status": status, "detail": "working on it"}),
    )
    .await;
}

/// The answer frames the tab was sent (chunks, answers, closes), as
/// (type, messageId, text).
fn answer_frames(tab: &Tab) -> Vec<(String, String, String)> {
    tab.seen
        .iter()
        .filter_map(|f| {
            let p = &f["payload"];
            let text = match f["type"].as_str()? {
                "agent_response_chunk" => &p["chunk"],
                "agent_response" | "answer_closed" => &p["message"],
                _ => return None,
            };
            Some((
                f["type"].as_str()?.to_string(),
                p["messageId"].as_str()?.to_string(),
                text.as_str()?.to_string(),
            ))
        })
        .collect()
}

fn frame(kind: &str, message_id: &str, text: &str) -> (String, String, String) {
    (kind.into(), message_id.into(), text.into())
}

/// What the project's history.db holds for the tab: (role, text), in order.
async fn history(project: &Path, tab: &Tab) -> Vec<(Role, String)> {
    let store = HistoryStore::open(&project.join(".webfold").join("history.db")).unwrap();
    store
        .recent(&tab.session, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.role, m.content))
        .collect()
}

/// The status frames the tab was sent, in order.
fn statuses(tab: &Tab) -> Vec<String> {
    tab.seen
        .iter()
        .filter(|f| f["type"] == "status_update")
        .map(|f| f["payload"]["status"].as_str().unwrap().to_string())
        .collect()
}

/// Reads `agents` frames until one no longer lists `agent`.
async fn until_gone(tab: &mut Tab, agent: &str) {
    loop {
        let agents = tab.next("agents").await;
        let listed = agents["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["agentId"] == agent);
        if !listed {
            return;
        }
    }
}

const DISCONNECTED: &str = "the agent disconnected before it finished this answer";

#[tokio::test(flavor = "multi_thread")]
async fn two_agents_answering_in_turn_never_mix() {
    let d = Daemon::start("answers-turns", None, None).await;
    let dir = Scratch::new("answers-turns-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let mut tab = Tab::open(&d, 1).await;
    let context = pick(&mut tab).await;

    // Agent A starts an answer and stops mid-way (no isComplete).
    let first = ask(&mut tab, &context, "agent-a", "Why is it red?").await;
    read(&a, &first, "Why is it red?").await;
    respond(&a, &tab, &first, "It is red because ", false).await;
    tab.next("agent_response_chunk").await;

    // Agent B answers the next message about the same selection.
    let b = agent(&d, "agent-b", &project).await;
    let second = ask(&mut tab, &context, "agent-b", "Make it blue").await;
    assert_ne!(first, second);
    read(&b, &second, "Make it blue").await;
    respond(&b, &tab, &second, "Done: ", false).await;
    respond(&b, &tab, &second, "it is blue now.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(answer["messageId"], second.as_str());
    assert_eq!(answer["message"], "Done: it is blue now.");

    // A is killed: its answer is closed as it stood, under its own message.
    drop(a);
    let closed = tab.next("answer_closed").await;
    assert_eq!(closed["reason"], "disconnected", "{closed}");

    assert_eq!(
        answer_frames(&tab),
        [
            frame("agent_response_chunk", &first, "It is red because "),
            frame("agent_response_chunk", &second, "Done: "),
            frame("agent_response", &second, "Done: it is blue now."),
            frame("answer_closed", &first, "It is red because "),
        ]
    );
    assert_eq!(
        history(&project, &tab).await,
        [
            (Role::User, "Why is it red?".to_string()),
            (Role::User, "Make it blue".to_string()),
            (Role::Assistant, "Done: it is blue now.".to_string()),
            (
                Role::Assistant,
                format!("It is red because \n\n({DISCONNECTED})")
            ),
        ]
    );
    drop(b);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_agent_closes_its_answer_and_clears_its_status() {
    let d = Daemon::start("answers-killed", None, None).await;
    let dir = Scratch::new("answers-killed-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let mut tab = Tab::open(&d, 2).await;
    let context = pick(&mut tab).await;
    let asked = ask(&mut tab, &context, "agent-a", "Fix the header").await;
    read(&a, &asked, "Fix the header").await;
    status(&a, &tab, "editing").await;
    respond(&a, &tab, &asked, "Editing `header.css`", false).await;
    tab.next("agent_response_chunk").await;

    drop(a);
    let closed = tab.next("answer_closed").await;
    assert_eq!(
        (&closed["messageId"], &closed["reason"], &closed["message"]),
        (
            &json!(asked),
            &json!("disconnected"),
            &json!("Editing `header.css`")
        )
    );
    let cleared = tab.next("status_update").await;
    assert_eq!(cleared["status"], "idle", "{cleared}");
    assert_eq!(statuses(&tab), ["editing", "idle"]);
    assert_eq!(
        history(&project, &tab).await,
        [
            (Role::User, "Fix the header".to_string()),
            (
                Role::Assistant,
                format!("Editing `header.css`\n\n({DISCONNECTED})")
            ),
        ]
    );

    // The agent's next process answers the next message afresh: nothing of
    // the closed answer is carried into it.
    let again = agent(&d, "agent-a2", &project).await;
    let next = ask(&mut tab, &context, "agent-a2", "Try again").await;
    read(&again, &next, "Try again").await;
    respond(&again, &tab, &next, "Fixed.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(
        (&answer["messageId"], &answer["message"]),
        (&json!(next), &json!("Fixed."))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_complete_answer_clears_the_status() {
    let d = Daemon::start("answers-status", None, None).await;
    let dir = Scratch::new("answers-status-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let mut tab = Tab::open(&d, 3).await;
    let context = pick(&mut tab).await;
    let asked = ask(&mut tab, &context, "agent-a", "What is this?").await;
    read(&a, &asked, "What is this?").await;
    status(&a, &tab, "thinking").await;
    assert_eq!(tab.next("status_update").await["status"], "thinking");
    respond(&a, &tab, &asked, "A button.", true).await;
    tab.next("agent_response").await;
    let cleared = tab.next("status_update").await;
    assert_eq!(cleared["status"], "idle", "{cleared}");
    assert_eq!(statuses(&tab), ["thinking", "idle"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_whole_text_sent_after_its_parts_is_not_repeated() {
    let d = Daemon::start("answers-whole", None, None).await;
    let dir = Scratch::new("answers-whole-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let mut tab = Tab::open(&d, 4).await;
    let context = pick(&mut tab).await;

    // The whole text last, after its parts: shown and kept once.
    let whole = ask(&mut tab, &context, "agent-a", "Explain").await;
    read(&a, &whole, "Explain").await;
    respond(&a, &tab, &whole, "One, ", false).await;
    respond(&a, &tab, &whole, "two, ", false).await;
    respond(&a, &tab, &whole, "One, two, three.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(answer["message"], "One, two, three.");

    // The rule as stated: the last part after the others.
    let parts = ask(&mut tab, &context, "agent-a", "Again").await;
    read(&a, &parts, "Again").await;
    respond(&a, &tab, &parts, "One, ", false).await;
    respond(&a, &tab, &parts, "two, ", false).await;
    respond(&a, &tab, &parts, "three.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(answer["message"], "One, two, three.");

    // Each part whole so far (a growing text): each shown once too.
    let growing = ask(&mut tab, &context, "agent-a", "Once more").await;
    read(&a, &growing, "Once more").await;
    respond(&a, &tab, &growing, "One, ", false).await;
    respond(&a, &tab, &growing, "One, two, ", false).await;
    respond(&a, &tab, &growing, "One, two, three.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(answer["message"], "One, two, three.");

    let chunks = |id: &str| -> Vec<String> {
        answer_frames(&tab)
            .into_iter()
            .filter(|(kind, m, _)| kind == "agent_response_chunk" && m == id)
            .map(|(_, _, text)| text)
            .collect()
    };
    for id in [&whole, &parts, &growing] {
        assert_eq!(chunks(id), ["One, ", "two, "], "{id}");
    }
    let kept: Vec<(Role, String)> = history(&project, &tab)
        .await
        .into_iter()
        .filter(|(role, _)| *role == Role::Assistant)
        .collect();
    assert_eq!(
        kept,
        vec![(Role::Assistant, "One, two, three.".to_string()); 3]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_answer_to_the_same_message_closes_the_open_one() {
    let d = Daemon::start("answers-superseded", None, None).await;
    let dir = Scratch::new("answers-superseded-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let mut tab = Tab::open(&d, 5).await;
    let context = pick(&mut tab).await;
    let asked = ask(&mut tab, &context, "agent-a", "Why so slow?").await;
    read(&a, &asked, "Why so slow?").await;
    respond(&a, &tab, &asked, "Looking at the network", false).await;
    tab.next("agent_response_chunk").await;

    // Agent B finds the message in the history and answers it.
    let b = agent(&d, "agent-b", &project).await;
    let history_b = call(
        &b,
        "get_conversation_history",
        json!({"sessionId": tab.session}),
    )
    .await;
    assert_eq!(history_b["messages"][0]["messageId"], asked.as_str());
    respond(&b, &tab, &asked, "The images ", false).await;
    // A's answer is closed (and kept) before B's first part reaches the tab.
    tab.next("answer_closed").await;
    assert_eq!(history(&project, &tab).await.len(), 2);
    respond(&b, &tab, &asked, "are large.", true).await;
    let answer = tab.next("agent_response").await;
    assert_eq!(answer["message"], "The images are large.");
    assert_eq!(
        answer_frames(&tab),
        [
            frame("agent_response_chunk", &asked, "Looking at the network"),
            frame("answer_closed", &asked, "Looking at the network"),
            frame("agent_response_chunk", &asked, "The images "),
            frame("agent_response", &asked, "The images are large."),
        ]
    );
    let closed = tab
        .seen
        .iter()
        .find(|f| f["type"] == "answer_closed")
        .unwrap();
    assert_eq!(closed["payload"]["reason"], "superseded");
    assert_eq!(
        history(&project, &tab).await,
        [
            (Role::User, "Why so slow?".to_string()),
            (
                Role::Assistant,
                "Looking at the network\n\n(another agent answered this message before this answer was finished)".to_string()
            ),
            (Role::Assistant, "The images are large.".to_string()),
        ]
    );
    // A disconnecting now closes nothing more (the tab hears of closed
    // answers before it sees their agent gone).
    drop(a);
    until_gone(&mut tab, "agent-a").await;
    assert_eq!(
        answer_frames(&tab)
            .iter()
            .filter(|(kind, _, _)| kind == "answer_closed")
            .count(),
        1
    );
    drop(b);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_names_a_message_of_its_tab() {
    let d = Daemon::start("answers-unknown", None, None).await;
    let dir = Scratch::new("answers-unknown-project");
    let project = project(&dir);
    let a = agent(&d, "agent-a", &project).await;
    let tab = Tab::open(&d, 6).await;
    let refused = a
        .call(
            "respond_to_browser",
            json!({"sessionId": tab.session, "messageId": "m99-1", "message": "hi", "isComplete": true}),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("m99-1 is not a message of tab") && refused.contains("get_ui_context"),
        "{refused}"
    );
}
