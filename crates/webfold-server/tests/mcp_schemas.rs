//! Every tool's advertised input schema admits the arguments the tool
//! accepts. A validating client refuses to send what a schema rejects, and a
//! model reads the schema to learn what to send: each would be misled by a
//! schema narrower than the tool.
//!
//! For every tool of every group, a fixed set of argument sets (between
//! them every parameter the tool lists and every value of its enums) is
//! called on a real server, which must take each (a page tool answers; a
//! browser or UI tool, with no browser or daemon here, gets as far as
//! saying so), and each must validate against the `inputSchema` that
//! `tools/list` advertises, with a JSON Schema (draft 2020-12) validator.

mod common;

use std::collections::BTreeSet;

use common::TestApp;
use common::mcp::{Session, stdio_tools_list};
use serde_json::{Value, json};

const PAGE: &str = r#"<html><head><title>Shop</title></head><body><main><h1 id="t">Boots</h1><p class="price">€129 <a href="/sale">on sale</a></p><button>Buy</button><img src="/b.png" alt="Boots"></main></body></html>"#;

/// What a call with accepted arguments comes to here.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The tool answers.
    Answer,
    /// The tool took the arguments and needs what this server lacks (a
    /// browser, a daemon, fetching): it says so, in these words.
    Lacks(&'static str),
}

const NO_BROWSER: Expect = Expect::Lacks("the browser tools are off on this server");
const NO_DAEMON: Expect = Expect::Lacks("the UI tools are off here");
const NO_FETCH: Expect = Expect::Lacks("fetching URLs is disabled on this server");
const NO_TAB: Expect = Expect::Lacks("did not come from a browser tab in this session");

/// Arguments each tool accepts, and what calling it with them comes to.
/// `conversation` is a stored conversation of [`PAGE`].
fn accepted(conversation: &str) -> Vec<(&'static str, Value, Expect)> {
    use Expect::Answer;
    let mut all = Vec::new();
    let mut add = |tool, args: Value, expect| all.push((tool, args, expect));
    // Page tools, over each page source (with what else each needs).
    for (tool, needs) in [
        ("get_dom_outline", json!({})),
        ("get_html_chunk", json!({"selector": "h1"})),
        ("cnt_view", json!({})),
        ("page_snapshot", json!({})),
        ("page_links", json!({})),
        ("web_fetch", json!({})),
        ("count_tokens", json!({})),
        ("page_find", json!({"query": "boots"})),
    ] {
        let with = |source: Value| {
            let mut args = needs.clone();
            args.as_object_mut()
                .unwrap()
                .extend(source.as_object().unwrap().clone());
            args
        };
        add(tool, with(json!({"html": PAGE})), Answer);
        add(tool, with(json!({"conversation_id": conversation})), Answer);
        add(tool, with(json!({"url": "http://shop.test/"})), NO_FETCH);
        add(tool, with(json!({"page_name": "main"})), NO_BROWSER);
    }
    add(
        "page_find",
        json!({"conversation_id": conversation, "query": "/bo+ts/", "mode": "aria", "lines": 2, "max_matches": 3, "max_tokens": 500, "session_id": "find"}),
        Answer,
    );
    add(
        "page_find",
        json!({"html": PAGE, "query": "buy", "mode": "ai"}),
        Answer,
    );
    add(
        "get_dom_outline",
        json!({"html": PAGE, "max_depth": 2, "max_tokens": 300, "exclude": ["img", "a"]}),
        Answer,
    );
    add(
        "get_html_chunk",
        json!({"html": PAGE, "selector": "p", "all": true, "max_tokens": 200}),
        Answer,
    );
    add("get_html_chunk", json!({"html": PAGE, "id": 3}), Answer);
    add(
        "page_snapshot",
        json!({"html": PAGE, "session_id": "refs", "mode": "ai", "interactive_only": false, "full_snapshot": true, "include_history": false, "max_elements": 50, "max_tokens": 900, "viewport_only": false}),
        Answer,
    );
    add(
        "page_snapshot",
        json!({"html": PAGE, "session_id": "refs", "diff": true, "mode": "aria"}),
        Answer,
    );
    add(
        "page_snapshot",
        json!({"html": PAGE, "selector": "main"}),
        Answer,
    );
    add(
        "page_snapshot",
        json!({"html": PAGE, "session_id": "refs", "ref": "e2"}),
        Answer,
    );
    add(
        "get_html_chunk",
        json!({"html": PAGE, "session_id": "refs", "ref": "e2"}),
        Answer,
    );
    // `live` reads the user's tab: this conversation came from none.
    for tool in ["get_html_chunk", "page_snapshot", "web_fetch"] {
        add(
            tool,
            json!({"conversation_id": conversation, "selector": "h1", "live": true}),
            NO_TAB,
        );
    }
    add(
        "cnt_view",
        json!({"html": PAGE, "expand": "6", "max_tokens": 400}),
        Answer,
    );
    // A task to focus on: what it names ranks first.
    for tool in ["cnt_view", "page_snapshot", "get_dom_outline"] {
        add(
            tool,
            json!({"html": PAGE, "focus": "buy the boots"}),
            Answer,
        );
    }
    add(
        "page_find",
        json!({"html": PAGE, "query": "boots", "focus": "buy the boots"}),
        Answer,
    );
    add(
        "page_links",
        json!({"html": PAGE, "base_url": "http://shop.test/", "start_line": 1, "max_tokens": 300}),
        Answer,
    );
    add(
        "web_fetch",
        json!({"html": PAGE, "main": false, "selector": "main", "max_lines": 0, "start_line": 1, "max_tokens": 700, "base_url": "http://shop.test/"}),
        Answer,
    );
    for format in ["markdown", "raw", "base64"] {
        add(
            "web_fetch",
            json!({"url": "http://shop.test/", "format": format}),
            NO_FETCH,
        );
    }
    add("count_tokens", json!({"text": "two words"}), Answer);
    for encoding in ["o200k_base", "cl100k_base"] {
        add(
            "count_tokens",
            json!({"html": PAGE, "encoding": encoding, "session_id": "count"}),
            Answer,
        );
    }
    // Browser tools: no browser here, so each gets as far as saying so.
    add(
        "browser_navigate",
        json!({"url": "https://shop.test/", "page_name": "shop"}),
        NO_BROWSER,
    );
    add("browser_snapshot", json!({}), NO_BROWSER);
    add(
        "browser_snapshot",
        json!({"page_name": "shop", "mode": "aria", "diff": true, "full_snapshot": false, "include_history": true, "interactive_only": false, "max_elements": 10, "max_tokens": 500, "viewport_only": true, "selector": "main"}),
        NO_BROWSER,
    );
    add(
        "browser_snapshot",
        json!({"ref": "e3", "mode": "ai", "focus": "open the cart"}),
        NO_BROWSER,
    );
    add(
        "browser_click",
        json!({"ref": "e3", "page_name": "shop", "full": true}),
        NO_BROWSER,
    );
    add(
        "browser_type",
        json!({"ref": "e4", "text": "boots", "submit": true, "page_name": "shop", "full": false}),
        NO_BROWSER,
    );
    add(
        "browser_select",
        json!({"ref": "e5", "values": ["m", "Large"], "page_name": "shop", "full": true}),
        NO_BROWSER,
    );
    add("browser_back", json!({}), NO_BROWSER);
    add(
        "browser_back",
        json!({"page_name": "shop", "full": true}),
        NO_BROWSER,
    );
    add(
        "browser_screenshot",
        json!({"ref": "e6", "path": "shot.png", "page_name": "shop"}),
        NO_BROWSER,
    );
    add(
        "browser_describe_image",
        json!({"ref": "e7", "page_name": "shop"}),
        NO_BROWSER,
    );
    add(
        "browser_script",
        json!({"actions": [
            {"action": "click", "ref": "e1"},
            {"action": "type", "ref": "e2", "text": "x", "submit": true},
            {"action": "write", "ref": "e2", "text": "y"},
            {"action": "select", "ref": "e3", "values": ["a"]},
            {"action": "check", "ref": "e4", "checked": false},
            {"action": "press", "key": "Enter"},
            {"action": "hover", "ref": "e5"},
            {"action": "scroll_into_view", "ref": "e6"},
            {"action": "navigate", "url": "https://shop.test/"},
            {"action": "back"}
        ], "page_name": "shop", "full": true, "mode": "aria", "diff": false, "full_snapshot": false, "include_history": false, "interactive_only": true, "max_elements": 20, "max_tokens": 800, "viewport_only": false, "selector": "main"}),
        NO_BROWSER,
    );
    add(
        "browser_script",
        json!({"actions": [{"action": "back"}], "ref": "e1", "mode": "ai"}),
        NO_BROWSER,
    );
    // UI tools: no daemon here, so each gets as far as saying so.
    let session = "ab".repeat(32);
    add("get_ui_context", json!({}), NO_DAEMON);
    add(
        "get_ui_context",
        json!({"sessionId": session, "wait_seconds": 30}),
        NO_DAEMON,
    );
    add("list_sessions", json!({}), NO_DAEMON);
    add(
        "respond_to_browser",
        json!({"sessionId": session, "messageId": "m4-1700000000000", "message": "Done: it is **blue**.", "isComplete": true}),
        NO_DAEMON,
    );
    add(
        "respond_to_browser",
        json!({"sessionId": session, "messageId": "m4-1700000000000", "message": "A part, ", "isComplete": false}),
        NO_DAEMON,
    );
    for status in ["idle", "thinking", "searching", "editing"] {
        add(
            "update_status",
            json!({"sessionId": session, "status": status}),
            NO_DAEMON,
        );
    }
    add(
        "update_status",
        json!({"sessionId": session, "status": "searching", "detail": "Searching for the Button component"}),
        NO_DAEMON,
    );
    add(
        "get_conversation_history",
        json!({"sessionId": session}),
        NO_DAEMON,
    );
    add(
        "get_conversation_history",
        json!({"sessionId": session, "limit": 200}),
        NO_DAEMON,
    );
    all
}

/// A server with every tool group, over a fresh database.
fn server() -> TestApp {
    common::app_with_groups("page,browser,ui")
}

/// `tools/list` for `groups`, as the stdio server sends it: name → inputSchema.
async fn schemas(groups: &str) -> Vec<(String, Value)> {
    let sent: Value = serde_json::from_str(&stdio_tools_list(groups).await).unwrap();
    sent["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["inputSchema"].clone(),
            )
        })
        .collect()
}

/// Why `schema` rejects `args`, if it does.
fn rejection(schema: &Value, args: &Value) -> Option<String> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler
        .add_resource("urn:tool", schema.clone())
        .expect("the schema is JSON");
    let index = compiler
        .compile("urn:tool", &mut schemas)
        .unwrap_or_else(|e| panic!("not a valid JSON Schema: {e:#}\n{schema:#}"));
    schemas
        .validate(args, index)
        .err()
        .map(|e| format!("{e:#}"))
}

/// Every value of every enum in a schema, by property path.
fn enum_values(schema: &Value, path: &str, out: &mut BTreeSet<(String, String)>) {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        for v in values {
            out.insert((path.to_string(), v.to_string()));
        }
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            enum_values(p, &format!("{path}/{name}"), out);
        }
    }
}

fn used_values(args: &Value, path: &str, out: &mut BTreeSet<(String, String)>) {
    if let Some(obj) = args.as_object() {
        for (name, v) in obj {
            out.insert((format!("{path}/{name}"), v.to_string()));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_schema_admits_the_arguments_the_tool_accepts() {
    let t = server();
    let conversation = t.create(PAGE).await;
    let cases = accepted(&conversation);

    // The tools take them: each call comes to what it should.
    let (mut s, _) = Session::open(&t, "2025-06-18").await;
    let listed = s.request("tools/list", json!({})).await;
    let listed: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut refused = Vec::new();
    for (tool, args, expect) in &cases {
        let reply = s
            .request("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        if reply.get("error").is_some() {
            refused.push(format!("{tool} refused {args} as a call: {reply}"));
            continue;
        }
        let result = &reply["result"];
        let failed = result["isError"] == true;
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        match expect {
            Expect::Answer if failed => refused.push(format!("{tool} {args}: {text}")),
            Expect::Lacks(what) if !(failed && text.contains(what)) => refused.push(format!(
                "{tool} {args} should get as far as \"{what}\": {text}"
            )),
            _ => {}
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));

    // Their schemas admit them, in every group set a tool is listed in.
    let mut failures = Vec::new();
    for groups in [
        "page",
        "browser",
        "ui",
        "page,browser",
        "page,ui",
        "page,browser,ui",
    ] {
        let with_ui = groups.contains("ui");
        for (tool, schema) in schemas(groups).await {
            assert!(
                listed.contains(&tool.as_str()),
                "--tools {groups} lists {tool}, which the server with every group does not"
            );
            let mine: Vec<&Value> = cases
                .iter()
                .filter(|(name, ..)| *name == tool)
                .map(|(_, args, _)| args)
                // `live` is listed (and taken) only with the UI tools.
                .filter(|args| with_ui || args.get("live").is_none())
                .collect();
            assert!(
                !mine.is_empty(),
                "{tool} has no accepted arguments here: add some to `accepted`"
            );
            for args in &mine {
                if let Some(why) = rejection(&schema, args) {
                    failures.push(format!(
                        "--tools {groups}: {tool}'s schema rejects {args}: {why}"
                    ));
                }
            }
            // Between them, every parameter and every enum value is tried.
            let mut used = BTreeSet::new();
            for args in &mine {
                used_values(args, "", &mut used);
            }
            let used_names: BTreeSet<&str> = used
                .iter()
                .map(|(p, _)| p.trim_start_matches('/'))
                .collect();
            for name in schema["properties"].as_object().unwrap().keys() {
                assert!(
                    used_names.contains(name.as_str()),
                    "{tool}'s parameter {name} is in no accepted arguments: add some to `accepted`"
                );
            }
            let mut values = BTreeSet::new();
            enum_values(&schema, "", &mut values);
            for (path, value) in values {
                assert!(
                    used.contains(&(path.clone(), value.clone())),
                    "{tool}'s {path} = {value} is in no accepted arguments: add some to `accepted`"
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn an_enum_parameter_lists_its_values() {
    let ui = schemas("ui").await;
    let (_, update) = ui.iter().find(|(n, _)| n == "update_status").unwrap();
    assert_eq!(
        update["properties"]["status"],
        json!({"type": "string", "enum": ["idle", "thinking", "searching", "editing"]}),
        "{update}"
    );
    assert!(rejection(update, &json!({"sessionId": "s", "status": "napping"})).is_some());
    assert!(rejection(update, &json!({"sessionId": "s", "status": {}})).is_some());
}
