//! An MCP client speaking JSON-RPC lines: over a child's stdin and stdout
//! ([`McpClient`]), or over any async pipe ([`ask_over`]).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt};

/// The protocol version the tests speak.
pub const VERSION: &str = "2025-06-18";

/// The `initialize` request's params, naming the client `client`.
pub fn initialize_params(client: &str) -> Value {
    json!({"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": client, "version": "1"}})
}

/// A JSON-RPC client over a server's stdin and stdout (one message a line).
pub struct McpClient {
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

/// Spawns `command` with piped stdin and stdout (stderr as the command
/// says) and completes the MCP handshake; the child, the client and the
/// `initialize` reply.
pub fn start(command: &mut Command) -> (Child, McpClient, Value) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the MCP server");
    let mut client = McpClient::over(&mut child);
    let init = client.initialize("test");
    (child, client, init)
}

impl McpClient {
    /// Takes `child`'s stdin and stdout.
    pub fn over(child: &mut Child) -> McpClient {
        McpClient {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().expect("a piped stdout")),
            next: 1,
        }
    }

    /// `initialize` then `notifications/initialized`; the `initialize` reply.
    pub fn initialize(&mut self, client: &str) -> Value {
        let init = self.request("initialize", initialize_params(client));
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Writes one message.
    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").expect("write a message");
        stdin.flush().expect("flush");
    }

    /// Sends a request and reads lines up to the reply with its id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self
                .read()
                .unwrap_or_else(|| panic!("the server closed stdout before answering {method}"));
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    /// The next message, `None` at the end of stdout.
    pub fn read(&mut self) -> Option<Value> {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read a reply");
        if n == 0 {
            return None;
        }
        let msg = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not a JSON-RPC line ({e}): {line:?}"));
        Some(msg)
    }

    /// `tools/call`; the result (an error result too).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": args}));
        reply["result"].clone()
    }

    /// `tools/call`, asserting the result is not an error; the result.
    pub fn call_ok(&mut self, tool: &str, args: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = reply["result"].clone();
        assert_eq!(result["isError"], false, "{tool}: {reply}");
        result
    }

    /// `tools/list`; the tools.
    pub fn tools(&mut self) -> Vec<Value> {
        let reply = self.request("tools/list", json!({}));
        reply["result"]["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Closes the server's stdin (its end of input).
    pub fn close(&mut self) {
        self.stdin = None;
    }
}

/// The page content of a tool result: its text between the
/// `<page-content>` delimiters (all of it when they are missing).
pub fn page_text(r: &Value) -> String {
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    let start = text.find("<page-content>\n").map_or(0, |i| i + 15);
    let end = text.rfind("\n</page-content>").unwrap_or(text.len());
    text[start..end].to_string()
}

/// Over an async pipe to a server: the handshake, then `method` (as id 2,
/// with `params` unless null); the reply's line exactly as sent. Closes the
/// writing side afterwards, so the server ends.
pub async fn ask_over<R, W>(read: R, mut write: W, method: &str, params: Value) -> String
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut request = json!({"jsonrpc": "2.0", "id": 2, "method": method});
    if !params.is_null() {
        request["params"] = params;
    }
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("test")});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for msg in [init, initialized, request] {
        write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut lines = tokio::io::BufReader::new(read).lines();
    let answer = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("the server answers {method}"));
        let msg: Value = serde_json::from_str(&line).unwrap();
        if msg["id"] == 2 {
            break line;
        }
    };
    write.shutdown().await.unwrap();
    answer
}
