//! What an agent pays to learn webfold's tools: the `tools/list` answer,
//! measured whole (the JSON-RPC message with every name, description and
//! schema) as the stdio transport sends it, with the product's exact
//! tokenizer.

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use webfold_core::tokens::{self, Encoding};
use webfold_server::mcp::{ToolContext, WebfoldTools};

/// The README's promise for the default tool list and for `page,ui`.
const BUDGET: usize = 3_000;

/// The line the server writes in answer to `tools/list`, byte for byte.
async fn tools_list_as_sent(groups: &str) -> String {
    let ctx = ToolContext {
        groups: groups.parse().unwrap(),
        ..ToolContext::default()
    };
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(async move {
        let running = WebfoldTools::new(ctx)
            .serve((server_read, server_write))
            .await
            .expect("the handshake is accepted");
        let _ = running.waiting().await;
    });
    let (client_read, mut client_write) = tokio::io::split(client);
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        client_write.write_all(line.as_bytes()).await.unwrap();
        client_write.write_all(b"\n").await.unwrap();
    }
    let mut lines = BufReader::new(client_read).lines();
    let answer = loop {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the server answers tools/list");
        let msg: Value = serde_json::from_str(&line).unwrap();
        if msg["id"] == 2 {
            break line;
        }
    };
    client_write.shutdown().await.unwrap();
    drop(client_write);
    serving.await.unwrap();
    answer
}

#[tokio::test]
async fn the_tool_list_as_sent_fits_its_budget() {
    for groups in ["page,browser", "page,ui"] {
        let sent = tools_list_as_sent(groups).await;
        let msg: Value = serde_json::from_str(&sent).unwrap();
        let tools = msg["result"]["tools"].as_array().unwrap();
        assert!(tools.len() >= 5, "--tools {groups}: {sent}");
        let total = tokens::count(&sent, Encoding::O200kBase);
        for t in tools {
            let n = tokens::count(&t.to_string(), Encoding::O200kBase);
            println!("{:<24} {n:>5} tokens", t["name"].as_str().unwrap());
        }
        println!(
            "--tools {groups}: {} tools, {total} tokens as sent",
            tools.len()
        );
        assert!(
            total <= BUDGET,
            "--tools {groups}: tools/list as sent costs {total} tokens, over {BUDGET}"
        );
    }
}
