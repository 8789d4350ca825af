//! What an agent pays to learn webfold's tools: the `tools/list` answer,
//! measured whole (the JSON-RPC message with every name, description and
//! schema) as the stdio transport sends it, with the product's exact
//! tokenizer.

mod common;

use common::mcp::stdio_tools_list;
use serde_json::Value;
use webfold_core::tokens::{self, Encoding};

/// The README's promise for the default tool list and for `page,ui`.
const BUDGET: usize = 3_000;

#[tokio::test]
async fn the_tool_list_as_sent_fits_its_budget() {
    for groups in ["page,browser", "page,ui"] {
        let sent = stdio_tools_list(groups).await;
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
