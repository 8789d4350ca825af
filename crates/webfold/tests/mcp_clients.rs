//! MCP end to end with clients no one here wrote: the Python `mcp` SDK (PyPI)
//! and the MCP Inspector CLI (npm), over stdio (`webfold mcp`) and streamable
//! HTTP (`/mcp` on `webfold serve`). `scripts/install-mcp-clients` puts them
//! under target/mcp-clients; this test runs it when they are missing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use webfold_testkit::mcp::page_text;
use webfold_testkit::scratch_dir;

mod support;

use support::{mcp_clients as clients, repo};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

struct Serve {
    child: Child,
    port: u16,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(db: &Path) -> Serve {
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0", "--json", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: Value = serde_json::from_str(&line).unwrap();
    Serve {
        child,
        port: info["port"].as_u64().unwrap() as u16,
    }
}

/// Creates a conversation over the bridge and returns its id.
fn create_conversation(port: u16) -> String {
    let body = r#"{"html": "<main><div id=\"target\">from the bridge</div></main>"}"#;
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST /conversations HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let json: Value = serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap();
    json["conversationId"].as_str().unwrap().to_string()
}

fn scratch_db() -> PathBuf {
    scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-clients"),
        "db",
    )
    .join("webfold.db")
}

fn run_python(clients: &Path, args: &[&str]) -> Value {
    let out = Command::new(clients.join("venv/bin/python"))
        .arg(repo().join("crates/webfold/tests/mcp_clients/python_client.py"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python mcp client {args:?} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn python_sdk_over_stdio_and_streamable_http() {
    let clients = clients();
    let db = scratch_db();
    let server = serve(&db);
    let conv = create_conversation(server.port);
    let db_arg = db.to_str().unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);

    let mut versions = Vec::new();
    for mode in ["legacy", "auto"] {
        let seen = run_python(&clients, &["stdio", BIN, db_arg, &conv, mode]);
        versions.push(format!("stdio/{mode}: {}", seen["protocol_version"]));
        let seen_http = run_python(&clients, &["http", &url, "-", &conv, mode]);
        versions.push(format!("http/{mode}: {}", seen_http["protocol_version"]));
        assert_eq!(
            seen["tools"], seen_http["tools"],
            "both transports serve the same tools"
        );
        if mode == "legacy" {
            assert_eq!(seen["protocol_version"], "2025-11-25");
            assert_eq!(seen_http["protocol_version"], "2025-11-25");
        } else {
            assert_eq!(seen["protocol_version"], "2026-07-28");
            assert_eq!(seen_http["protocol_version"], "2026-07-28");
        }
    }
    eprintln!("negotiated: {versions:?}");
}

fn inspector(clients: &Path, target: &[&str], method: &[&str]) -> Value {
    let out = Command::new(clients.join("inspector/node_modules/.bin/mcp-inspector"))
        .arg("--cli")
        .args(target)
        .args(["--method"])
        .args(method)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {method:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn mcp_inspector_cli_over_stdio_and_http() {
    let clients = clients();
    let db = scratch_db();
    let server = serve(&db);
    let conv = create_conversation(server.port);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let db_arg = db.to_str().unwrap();
    let stdio: [&str; 4] = [BIN, "mcp", "--db", db_arg];
    let http: [&str; 3] = [&url, "--transport", "http"];

    for target in [&stdio[..], &http[..]] {
        let list = inspector(&clients, target, &["tools/list"]);
        let tools = list["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        for want in [
            "get_html_chunk",
            "get_dom_outline",
            "web_fetch",
            "count_tokens",
        ] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        // Page tools only read; browser tools that act on a live page say so.
        for t in tools {
            let acting = [
                "navigate",
                "click",
                "type",
                "select",
                "back",
                "screenshot",
                "script",
            ]
            .iter()
            .any(|a| t["name"] == format!("browser_{a}"));
            // readOnlyHint defaults to false: only read-only tools say it.
            let read_only = t["annotations"]["readOnlyHint"].as_bool().unwrap_or(false);
            assert_eq!(read_only, !acting, "{t}");
        }

        let selector = "selector=#target";
        let conv_arg = format!("conversation_id={conv}");
        let r = inspector(
            &clients,
            target,
            &[
                "tools/call",
                "--tool-name",
                "get_html_chunk",
                "--tool-arg",
                &conv_arg,
                selector,
            ],
        );
        assert_eq!(r["isError"], false, "{r}");
        assert_eq!(page_text(&r), "<div id=\"target\">from the bridge</div>");

        let r = inspector(
            &clients,
            target,
            &[
                "tools/call",
                "--tool-name",
                "count_tokens",
                "--tool-arg",
                "text=hello world",
            ],
        );
        assert_eq!(r["structuredContent"]["tokens"], 2, "{r}");

        let r = inspector(
            &clients,
            target,
            &[
                "tools/call",
                "--tool-name",
                "get_html_chunk",
                "--tool-arg",
                &conv_arg,
                "selector=#targett",
            ],
        );
        assert_eq!(r["isError"], true, "{r}");
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("#target"),
            "{r}"
        );
    }
}

/// `webfold mcp` writes nothing but JSON-RPC to stdout and exits when stdin closes.
#[test]
fn stdio_carries_only_json_rpc_and_ends_on_eof() {
    let db = scratch_db();
    let mut child = Command::new(BIN)
        .args(["mcp", "--db"])
        .arg(&db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"count_tokens","arguments":{{"text":"hello world"}}}}}}"#).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut replies = Vec::new();
    while replies.len() < 3 {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line:?}"));
        assert_eq!(msg["jsonrpc"], "2.0");
        replies.push(msg);
    }
    // Requests may be answered in any order: match replies by id.
    let reply = |id: u64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no reply {id} in {replies:?}"))
    };
    assert_eq!(reply(1)["result"]["protocolVersion"], "2025-06-18");
    assert!(reply(2)["result"]["tools"].as_array().unwrap().len() >= 4);
    assert_eq!(reply(3)["result"]["structuredContent"]["tokens"], 2);
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(rest.trim().is_empty(), "nothing else on stdout: {rest:?}");
    let status = child.wait().unwrap();
    assert!(status.success(), "exits cleanly on EOF: {status}");
}
