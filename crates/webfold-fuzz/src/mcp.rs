//! A JSON-RPC byte stream to the MCP server (the stdio transport's framing:
//! one message per line), in-process over a duplex pipe.
//!
//! The first input byte decides whether a valid `initialize` handshake comes
//! first (even) or the input alone (odd), so both the handshake and the tools
//! behind it are explored. The server has no database, fetcher or browser:
//! tool calls name pages by `html`.
//!
//! Invariants: no panic, on any thread; the server ends when its input does;
//! every line it writes is a JSON-RPC 2.0 message.

use std::cell::RefCell;

use rmcp::ServiceExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use webfold_server::mcp::{ToolContext, WebfoldTools};

use crate::panics;

/// What a client says first.
pub const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// Pipe capacity each way; larger inputs and outputs simply wait for the
/// other side.
const PIPE: usize = 64 * 1024;

thread_local! {
    static RUNTIME: RefCell<Option<tokio::runtime::Runtime>> = const { RefCell::new(None) };
}

pub fn check(bytes: &[u8]) {
    check_output(bytes);
}

/// Checks one stream; the messages the server wrote.
pub fn check_output(bytes: &[u8]) -> Vec<serde_json::Value> {
    let Some((&mode, input)) = bytes.split_first() else {
        return Vec::new();
    };
    let handshake = if mode % 2 == 0 {
        HANDSHAKE.as_bytes()
    } else {
        b""
    };
    let output = RUNTIME.with(|cell| {
        let mut slot = cell.borrow_mut();
        let runtime = slot.get_or_insert_with(|| panics::runtime("mcp"));
        panics::assert_none("mcp", || runtime.block_on(session(handshake, input)))
    });
    let mut messages = Vec::new();
    for line in output.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(m) if m["jsonrpc"] == "2.0" => messages.push(m),
            _ => panic!(
                "the server wrote a line that is not a JSON-RPC message: {}",
                String::from_utf8_lossy(line)
            ),
        }
    }
    messages
}

/// Runs one server over `handshake` + `input` until it ends; what it wrote.
async fn session(handshake: &[u8], input: &[u8]) -> Vec<u8> {
    let (client, server) = tokio::io::duplex(PIPE);
    let (server_read, server_write) = tokio::io::split(server);
    let tools = WebfoldTools::new(ToolContext::default());
    let serving = tokio::spawn(async move {
        // A stream that never initializes is refused: that is an answer too.
        if let Ok(running) = tools.serve((server_read, server_write)).await {
            let _ = running.waiting().await;
        }
    });
    let (mut from_server, mut to_server) = tokio::io::split(client);
    let write = async {
        // The server may stop reading (a refused handshake): a broken pipe
        // then is expected.
        let _ = to_server.write_all(handshake).await;
        let _ = to_server.write_all(input).await;
        let _ = to_server.shutdown().await;
        drop(to_server);
    };
    let read = async {
        let mut out = Vec::new();
        let _ = from_server.read_to_end(&mut out).await;
        out
    };
    let ((), out) = tokio::join!(write, read);
    if let Err(e) = serving.await {
        panic!("the MCP server task failed: {e}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_after_the_handshake_reaches_the_tools() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_dom_outline","arguments":{"html":"<main><h1>Hi</h1></main>"}}}"#;
        let out = check_output(&[b"\0".as_slice(), call, b"\n"].concat());
        let reply = out
            .iter()
            .find(|m| m["id"] == 7)
            .expect("an answer to id 7");
        assert!(reply["result"].to_string().contains("h1"), "{reply}");
        // Without the handshake the server refuses the stream and says nothing.
        assert!(check_output(&[b"\x01".as_slice(), call].concat()).is_empty());
    }
}
