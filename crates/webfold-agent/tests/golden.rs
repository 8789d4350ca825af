//! The exact requests the loop sends, per provider, against files in
//! `tests/golden/`: a prompt or format change shows up as a diff to review.
//! `WEBFOLD_BLESS=1 cargo test -p webfold-agent --test golden` rewrites them.

mod common;

use common::*;
use serde_json::Value;
use serde_json::json;
use webfold_agent::replay::Part;
use webfold_agent::team::{ActingPage, Ending, NoUser, PageView, TeamOptions, run_team};
use webfold_agent::{AgentOptions, CancellationToken, ProviderKind, run};
use webfold_core::action::{Action, Target};
use webfold_core::cnt::CntId;

/// A shop page of two states: the mug's button, then the cart.
struct Shop(usize);

impl ActingPage for Shop {
    async fn view(
        &mut self,
        _max_tokens: usize,
        _expand: Option<&CntId>,
        _focus: Option<&str>,
    ) -> Result<PageView, String> {
        let button = if self.0 == 0 {
            "Add to cart"
        } else {
            "In your cart"
        };
        Ok(PageView {
            text: format!("1 body\n 5 h1 Mug\n 12 button* {button}\n"),
            url: "https://shop.test/mug".into(),
        })
    }

    fn resolve(&mut self, action: &Action) -> Result<Action, String> {
        match action.target() {
            Some(Target::Node(n)) if [5, 12].contains(&n.get()) => Ok(action.clone()),
            None => Ok(action.clone()),
            Some(t) => Err(format!("unknown id {t}")),
        }
    }

    async fn act(&mut self, action: &Action) -> Result<String, String> {
        self.0 += 1;
        Ok(format!("ran {}", action.name()))
    }

    async fn image(&mut self, _id: &Target) -> Result<String, String> {
        Err("no image".into())
    }
}

/// The agents' requests: a plan, a click named in words, its lookup, the check.
async fn team(kind: ProviderKind) -> Vec<Value> {
    let plan = Part::tool(
        "call_1",
        "plan",
        json!({"steps": ["Add the mug to the cart"]}),
    );
    let step = Part::tool(
        "call_2",
        "step",
        json!({"action": {"action": "click"}, "element": "the Add to cart button", "solved": true}),
    );
    let found = Part::tool("call_3", "found", json!({"id": 12}));
    let check = Part::tool("call_4", "check", json!({"solved": true}));
    let server = serve(
        [plan, step, found, check]
            .iter()
            .map(|p| reply(kind, false, std::slice::from_ref(p), usage(1, 1)))
            .collect(),
    )
    .await;
    let run = run_team(
        &provider(kind, &server.url(), false),
        "Add the mug to the cart.",
        &mut Shop(0),
        &mut NoUser,
        &TeamOptions::default(),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(run.ending, Ending::Solved);
    assert_eq!(run.turns[2].result, "ran click");
    server.requests().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn acting_agents_requests() {
    check("anthropic_team.json", &team(ProviderKind::Anthropic).await);
    check("openai_team.json", &team(ProviderKind::OpenAi).await);
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
