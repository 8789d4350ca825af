//! Every view's JSON is one envelope on every surface: `--json` on the
//! command line, the bridge's body and MCP's structured content (which
//! leaves out the text and what lists as much, the content block carrying
//! the text) agree, view by view, through the real binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use webfold_testkit::KillOnDrop;
use webfold_testkit::mcp;

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

const PAGE: &str = r#"<html><head><title>Shop</title></head><body>
<header><a href="/">Home</a><nav><a href="/men">Men</a><a href="/sale">Sale</a></nav></header>
<main><h1>Trail shoes</h1><p>Light shoes for rough ground, tested on every trail we know.</p>
<ul><li><a href="/p/1">Ridge</a></li><li><a href="/p/2">Fell</a></li><li><a href="/p/1">Ridge</a></li></ul>
<form role="search"><input name="q" aria-label="Search"><button>Go</button></form></main>
<footer><a href="/privacy">Privacy</a></footer></body></html>"#;

/// Each view's options for the call, as (name, value) pairs.
fn options(view: &str) -> Vec<(&'static str, Value)> {
    match view {
        "chunk" => vec![("selector", json!("main"))],
        "find" => vec![("query", json!("privacy"))],
        _ => vec![],
    }
}

/// The views the binary lists, from its help.
fn views() -> Vec<String> {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    [
        "outline", "chunk", "snapshot", "find", "markdown", "cnt", "links",
    ]
    .iter()
    .filter(|v| help.contains(&format!("\n  {v} ")))
    .map(|v| v.to_string())
    .collect()
}

/// The envelope without what differs by surface: the text (its hints are
/// spelled in the surface's words) and its tokens, what MCP leaves to the
/// text, and the page's address and version.
fn comparable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        for key in [
            "text",
            "tokens",
            "html",
            "root",
            "matches",
            "chunks",
            "links",
            "nodes",
            "url",
            "version",
            "compressed",
        ] {
            o.remove(key);
        }
    }
    v
}

fn cli(view: &str) -> Value {
    let mut args = vec![view.to_string(), "-".into(), "--json".into()];
    for (name, value) in options(view) {
        match name {
            "query" => args.push(value.as_str().unwrap().into()),
            _ => args.extend([format!("--{name}"), value.as_str().unwrap().into()]),
        }
    }
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(PAGE.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{view}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn http(port: u16, method: &str, path: &str, body: &str) -> Value {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap()
}

#[test]
fn every_view_answers_the_same_json_on_every_surface() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("views-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut serve = Command::new(BIN)
        .args(["serve", "--port", "0", "--json", "--db"])
        .arg(dir.join("webfold.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = serde_json::from_str::<Value>(&line).unwrap()["port"]
        .as_u64()
        .unwrap() as u16;
    let created = http(
        port,
        "POST",
        "/conversations",
        &json!({"html": PAGE}).to_string(),
    );
    let id = created["conversationId"].as_str().unwrap().to_string();
    let (child, mut mcp, _) = mcp::start(Command::new(BIN).arg("mcp").stderr(Stdio::null()));
    let _child = KillOnDrop(child);
    let tools = mcp.request("tools/list", json!({}));
    let views = views();
    assert!(views.contains(&"links".to_string()), "{views:?}");
    for view in &views {
        let from_cli = cli(view);
        assert_eq!(from_cli["view"], view.as_str());
        let query: Vec<String> = options(view)
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
            .collect();
        let from_http = http(
            port,
            "GET",
            &format!("/conversations/{id}/{view}?{}", query.join("&")),
            "",
        );
        // The text spells its hints in each surface's words; the rest is one.
        assert!(
            from_http["tokens"].as_u64().is_some(),
            "{view}: {from_http}"
        );
        assert_eq!(
            comparable(from_http.clone()),
            comparable(from_cli.clone()),
            "{view}: bridge vs command line"
        );
        // The tool the view is on MCP: the one whose name the view's JSON carries.
        let tool = tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .find(|name| tool_of(name) == view.as_str())
            .unwrap_or_else(|| panic!("no MCP tool for {view}"));
        let mut args = serde_json::Map::new();
        args.insert("html".into(), json!(PAGE));
        for (k, v) in options(view) {
            args.insert(k.into(), v);
        }
        let r = mcp.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        assert_ne!(result["isError"], true, "{view}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("<page-content>"), "{view}: MCP text {text}");
        assert_eq!(
            comparable(result["structuredContent"].clone()),
            comparable(from_cli),
            "{view}: MCP vs command line"
        );
    }
    let _ = serve.kill();
    let _ = serve.wait();
}

/// The view an MCP page tool runs.
fn tool_of(tool: &str) -> &str {
    match tool {
        "get_dom_outline" => "outline",
        "get_html_chunk" => "chunk",
        "page_snapshot" => "snapshot",
        "page_find" => "find",
        "web_fetch" => "markdown",
        "cnt_view" => "cnt",
        "page_links" => "links",
        _ => "",
    }
}
