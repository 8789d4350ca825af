//! The exact requests the loop sends, per provider, against files in
//! `tests/golden/`: a prompt or format change shows up as a diff to review.
//! `WEBFOLD_BLESS=1 cargo test -p webfold-agent --test golden` rewrites them.

mod common;

use common::*;
use serde_json::Value;
use webfold_agent::replay::Part;
use webfold_agent::steps::{ActingPage, StepOptions, run_steps};
use webfold_agent::{AgentOptions, CancellationToken, ProviderKind, run};
use webfold_core::action::Action;

/// A page of two states: a button, then the button after its click.
struct TwoStates(usize);

impl ActingPage for TwoStates {
    async fn view(&mut self, _max_tokens: usize) -> Result<String, String> {
        let label = if self.0 == 0 { "Add to cart" } else { "Added" };
        Ok(format!("- button \"{label}\" [ref=e2]"))
    }

    async fn act(&mut self, action: &Action) -> Result<String, String> {
        self.0 += 1;
        Ok(format!("ran {}", action.name()))
    }
}

/// The acting agent's requests: a click, then done.
async fn steps(kind: ProviderKind) -> Vec<Value> {
    let click = Part::tool(
        "call_1",
        "act",
        serde_json::json!({"action": {"action": "click", "id": "e2"}}),
    );
    let done = Part::tool("call_2", "done", serde_json::json!({"solved": true}));
    let server = serve(vec![
        reply(kind, false, &[click], usage(1, 1)),
        reply(kind, false, &[done], usage(1, 1)),
    ])
    .await;
    let run = run_steps(
        &provider(kind, &server.url(), false),
        "Add the mug to the cart.",
        &mut TwoStates(0),
        &StepOptions::default(),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(run.solved, Some(true));
    assert_eq!(run.steps[0].result, "ran click");
    server.requests().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn acting_agent_requests() {
    check(
        "anthropic_steps.json",
        &steps(ProviderKind::Anthropic).await,
    );
    check("openai_steps.json", &steps(ProviderKind::OpenAi).await);
}

/// The full-HTML prompt alone, as `--no-chunking` and the fallback send it.
async fn full_html(kind: ProviderKind) -> Vec<Value> {
    let server = serve(vec![reply(
        kind,
        false,
        &[final_call("call_1", good_answer())],
        usage(1, 1),
    )])
    .await;
    let opts = AgentOptions {
        chunking: false,
        ..Default::default()
    };
    run(
        &provider(kind, &server.url(), false),
        &page(),
        "Change the hero headline to \"Anvils for everyone\".",
        &opts,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    server.requests().into_iter().map(|r| r.body).collect()
}

async fn transcript(kind: ProviderKind) -> Vec<Value> {
    let mut bad = good_answer();
    bad["action"] = "later".into();
    let server = serve(vec![
        reply(
            kind,
            false,
            &[
                Part::text("I will read the hero."),
                chunk_call("call_1", "section.hero"),
            ],
            usage(1, 1),
        ),
        reply(kind, false, &[final_call("call_2", bad)], usage(1, 1)),
        reply(
            kind,
            false,
            &[final_call("call_3", good_answer())],
            usage(1, 1),
        ),
    ])
    .await;
    run(
        &provider(kind, &server.url(), false),
        &page(),
        "Change the hero headline to \"Anvils for everyone\".",
        &AgentOptions::default(),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    server.requests().into_iter().map(|r| r.body).collect()
}

fn check(name: &str, got: &[Value]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let text = serde_json::to_string_pretty(got).unwrap() + "\n";
    if std::env::var_os("WEBFOLD_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if want != text {
        let first = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(text.lines().count()));
        panic!(
            "{name} differs from the requests sent, first at line {}:\n  want: {}\n  got:  {}\n(review, then rewrite with WEBFOLD_BLESS=1)",
            first + 1,
            want.lines().nth(first).unwrap_or("<end>"),
            text.lines().nth(first).unwrap_or("<end>")
        );
    }
}

#[tokio::test]
async fn anthropic_requests() {
    check("anthropic.json", &transcript(ProviderKind::Anthropic).await);
}

#[tokio::test]
async fn openai_requests() {
    check("openai.json", &transcript(ProviderKind::OpenAi).await);
}

#[tokio::test]
async fn full_html_requests() {
    check(
        "anthropic_full_html.json",
        &full_html(ProviderKind::Anthropic).await,
    );
    check(
        "openai_full_html.json",
        &full_html(ProviderKind::OpenAi).await,
    );
}
