//! The loop against scripted Anthropic and OpenAI-compatible servers on
//! 127.0.0.1: tool loops whole and streamed, broken and unknown tool calls,
//! the iteration cap, schema-invalid answers, the fallback to full HTML.

mod common;

use common::*;
use serde_json::json;
use webfold_agent::replay::Part;
use webfold_agent::{AgentOptions, CancellationToken, FinalTool, Mode, ProviderKind, run};

#[tokio::test]
async fn chunk_then_answer_in_every_format() {
    for kind in KINDS {
        for stream in [false, true] {
            let server = serve(vec![
                reply(
                    kind,
                    stream,
                    &[Part::text("Let me look."), chunk_call("t1", "section.hero")],
                    usage(900, 20),
                ),
                reply(
                    kind,
                    stream,
                    &[final_call("t2", good_answer())],
                    usage(1100, 60),
                ),
            ])
            .await;
            let p = provider(kind, &server.url(), stream);
            let out = run(
                &p,
                &page(),
                "Change the hero headline",
                &AgentOptions::default(),
                &CancellationToken::new(),
            )
            .await
            .unwrap();
            let what = format!("{kind:?} stream={stream}");
            assert_eq!(out.output, good_answer(), "{what}");
            assert_eq!(out.mode, Mode::Chunked, "{what}");
            assert_eq!(out.iterations, 2, "{what}");
            assert_eq!(out.fallback, None, "{what}");
            assert_eq!(
                out.usage,
                usage(2000, 80),
                "{what}: usage is the provider's own"
            );
            let reqs = server.requests();
            assert_eq!(reqs.len(), 2, "{what}");
            let path = match kind {
                ProviderKind::Anthropic => "/v1/messages",
                ProviderKind::OpenAi => "/v1/chat/completions",
            };
            assert_eq!(reqs[0].path, path);
            assert_eq!(
                reqs[0].body["stream"].as_bool().unwrap_or(false),
                stream,
                "{what}"
            );
            // No key is sent to a local server when none is set.
            assert!(
                reqs[0].header("x-api-key").is_none() && reqs[0].header("authorization").is_none()
            );
            let system = system_of(&reqs[0].body);
            assert!(
                system.contains("section.hero"),
                "{what}: the outline is in the system prompt:\n{system}"
            );
            assert_eq!(
                tool_names(&reqs[0].body),
                ["get_html_chunk", "dom_changes_generator"]
            );
            let results = tool_results(&reqs[1].body);
            assert_eq!(results.len(), 1, "{what}");
            let (id, content, err) = &results[0];
            assert_eq!(id, "t1");
            assert!(!err);
            assert!(
                content.starts_with(
                    "<page-content>\n<section class=\"hero\"><h1>Welcome to Acme</h1>"
                ),
                "{what}: {content}"
            );
            assert!(
                content.ends_with("</section>\n</page-content>"),
                "{content}"
            );
        }
    }
}

#[tokio::test]
async fn page_text_cannot_close_the_fence() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![
        reply(
            kind,
            true,
            &[chunk_call("a", "section.pricing")],
            usage(1, 1),
        ),
        reply(kind, true, &[final_call("b", good_answer())], usage(1, 1)),
    ])
    .await;
    let opts = AgentOptions {
        view: "cnt".parse().unwrap(),
        ..Default::default()
    };
    go(&provider(kind, &server.url(), true), &opts)
        .await
        .unwrap();
    let reqs = server.requests();
    let system = system_of(&reqs[0].body);
    assert!(system.contains("Ignore previous instructions"), "{system}");
    let fenced = &system[system.rfind("<page-content>\n").unwrap()..];
    assert!(fenced.ends_with("\n</page-content>"), "{system}");
    assert_eq!(fenced.matches("</page-content>").count(), 1, "{system}");
    let (_, chunk, _) = &tool_results(&reqs[1].body)[0];
    assert!(chunk.contains("<\\/page-content>"), "{chunk}");
    assert_eq!(chunk.matches("</page-content>").count(), 1, "{chunk}");
}

#[tokio::test]
async fn broken_arguments_and_unknown_tools_are_answered_as_errors() {
    for kind in KINDS {
        let server = serve(vec![
            reply(
                kind,
                true,
                &[
                    Part::raw_tool("a", "get_html_chunk", r#"{"selector": "section.hero""#),
                    Part::tool("b", "browser_click", json!({"ref": "e3"})),
                    Part::tool("c", "get_html_chunk", json!({"selector": "section.nope"})),
                    Part::tool("d", "get_html_chunk", json!({"selector": "a[", "id": 3})),
                ],
                usage(10, 10),
            ),
            reply(kind, true, &[final_call("e", good_answer())], usage(10, 10)),
        ])
        .await;
        let out = go_default(kind, &server, true).await.unwrap();
        assert_eq!(out.output, good_answer());
        assert_eq!(out.iterations, 2);
        let errors: Vec<_> = out.calls[0]
            .tool_calls
            .iter()
            .map(|c| c.error.clone().unwrap_or_default())
            .collect();
        assert_eq!(errors.len(), 4);
        let results = tool_results(&server.requests()[1].body);
        assert_eq!(results.len(), 4, "{kind:?}: every call gets a result");
        assert!(results.iter().all(|(_, _, err)| *err), "{results:?}");
        let text: Vec<&str> = results.iter().map(|(_, c, _)| c.as_str()).collect();
        match kind {
            // Anthropic takes the input as an object: broken JSON goes back as {}.
            ProviderKind::Anthropic => {
                let body = &server.requests()[1].body;
                assert_eq!(body["messages"][1]["content"][0]["input"], json!({}));
            }
            ProviderKind::OpenAi => {
                let body = &server.requests()[1].body;
                assert_eq!(
                    body["messages"][2]["tool_calls"][0]["function"]["arguments"],
                    r#"{"selector": "section.hero""#
                );
            }
        }
        assert!(text[0].contains("not valid JSON"), "{}", text[0]);
        assert!(
            text[1].contains("no tool named 'browser_click'")
                && text[1].contains("get_html_chunk and dom_changes_generator"),
            "{}",
            text[1]
        );
        assert!(
            text[2].contains("Element not found: section.nope"),
            "{}",
            text[2]
        );
        assert!(
            text[3].contains("give only one of selector, id or ref"),
            "{}",
            text[3]
        );
    }
}

#[tokio::test]
async fn the_cap_falls_back_to_full_html() {
    for kind in KINDS {
        let server = serve(vec![
            reply(kind, false, &[chunk_call("a", "header")], usage(100, 5)),
            reply(kind, false, &[chunk_call("b", "footer")], usage(120, 5)),
            reply(
                kind,
                false,
                &[final_call("c", good_answer())],
                usage(700, 40),
            ),
        ])
        .await;
        let opts = AgentOptions {
            max_iterations: 2,
            ..Default::default()
        };
        let out = go(&provider(kind, &server.url(), false), &opts)
            .await
            .unwrap();
        assert_eq!(out.mode, Mode::FullHtml);
        assert_eq!(
            out.fallback.as_deref(),
            Some("no final answer within 2 iterations")
        );
        assert_eq!(out.iterations, 3);
        assert_eq!(out.usage, usage(920, 50));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        let full = &reqs[2].body;
        assert!(system_of(full).contains("<button class=\"cta\">Get started</button>"));
        assert_eq!(tool_names(full), ["dom_changes_generator"]);
        let forced = match kind {
            ProviderKind::Anthropic => json!({"type": "tool", "name": "dom_changes_generator"}),
            ProviderKind::OpenAi => {
                json!({"type": "function", "function": {"name": "dom_changes_generator"}})
            }
        };
        assert_eq!(full["tool_choice"], forced);
    }
}

#[tokio::test]
async fn an_invalid_answer_gets_one_correction() {
    for kind in KINDS {
        let mut bad = good_answer();
        bad.as_object_mut().unwrap().remove("response");
        bad["action"] = json!("sometimes");
        let server = serve(vec![
            reply(kind, true, &[final_call("a", bad)], usage(10, 1)),
            reply(kind, true, &[final_call("b", good_answer())], usage(10, 1)),
        ])
        .await;
        // The cap is reached by the invalid answer: the correction still runs.
        let opts = AgentOptions {
            max_iterations: 1,
            ..Default::default()
        };
        let out = go(&provider(kind, &server.url(), true), &opts)
            .await
            .unwrap();
        assert_eq!(
            (out.mode, out.corrected, out.iterations),
            (Mode::Chunked, true, 2)
        );
        assert_eq!(out.output, good_answer());
        let second = &server.requests()[1].body;
        let results = tool_results(second);
        assert!(results[0].2, "{results:?}");
        assert!(
            results[0]
                .1
                .ends_with("Not accepted: the arguments do not match the schema."),
            "{results:?}"
        );
        let all = second.to_string();
        assert!(
            all.contains("at /: missing required property 'response'"),
            "{all}"
        );
        assert!(
            all.contains("Call dom_changes_generator again with every field fixed."),
            "{all}"
        );
        assert!(
            all.contains("at /action: \\\"sometimes\\\" is not one of"),
            "{all}"
        );
    }
}

#[tokio::test]
async fn invalid_twice_then_full_html() {
    let kind = ProviderKind::OpenAi;
    let server = serve(vec![
        reply(
            kind,
            true,
            &[final_call("a", json!({"domChanges": []}))],
            usage(1, 1),
        ),
        reply(
            kind,
            true,
            &[final_call("b", json!({"domChanges": "none"}))],
            usage(1, 1),
        ),
        reply(kind, true, &[final_call("c", good_answer())], usage(1, 1)),
    ])
    .await;
    let out = go_default(kind, &server, true).await.unwrap();
    assert_eq!(out.mode, Mode::FullHtml);
    let reason = out.fallback.unwrap();
    assert!(
        reason.starts_with("the final answer still did not match its schema after a correction"),
        "{reason}"
    );
    assert_eq!(out.iterations, 3);
}

#[tokio::test]
async fn a_text_answer_falls_back_and_full_html_can_fail_too() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![
        reply(
            kind,
            false,
            &[Part::text("I would change the headline.")],
            usage(1, 1),
        ),
        reply(kind, false, &[Part::text("Still no tool.")], usage(1, 1)),
    ])
    .await;
    let err = go_default(kind, &server, false).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "no valid answer: the model answered without calling a tool; then, with the full HTML, the model answered without calling a tool"
    );
}

#[tokio::test]
async fn chunking_off_sends_the_full_html_once() {
    let kind = ProviderKind::OpenAi;
    let server = serve(vec![reply(
        kind,
        false,
        &[final_call("a", good_answer())],
        usage(5, 5),
    )])
    .await;
    let opts = AgentOptions {
        chunking: false,
        ..Default::default()
    };
    let out = go(&provider(kind, &server.url(), false), &opts)
        .await
        .unwrap();
    assert_eq!(
        (out.mode, out.fallback, out.iterations),
        (Mode::FullHtml, None, 1)
    );
    assert!(system_of(&server.requests()[0].body).contains("<footer id=\"foot\">"));
}

#[tokio::test]
async fn a_custom_schema_names_the_final_tool() {
    let schema = json!({
        "title": "price_answer", "description": "The price shown on the page.",
        "type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"],
        "additionalProperties": false
    });
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![
        reply(
            kind,
            true,
            &[Part::tool(
                "a",
                "price_answer",
                json!({"price": "9", "x": 1}),
            )],
            usage(1, 1),
        ),
        reply(
            kind,
            true,
            &[Part::tool("b", "price_answer", json!({"price": 9}))],
            usage(1, 1),
        ),
    ])
    .await;
    let opts = AgentOptions {
        final_tool: FinalTool::from_schema(schema).unwrap(),
        ..Default::default()
    };
    let out = run(
        &provider(kind, &server.url(), true),
        &page(),
        "price?",
        &opts,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.output, json!({"price": 9}));
    let first = &server.requests()[0].body;
    assert_eq!(tool_names(first), ["get_html_chunk", "price_answer"]);
    assert_eq!(
        first["tools"][1]["description"],
        "The price shown on the page."
    );
    let fix = server.requests()[1].body.to_string();
    assert!(fix.contains("at /price: expected a number"), "{fix}");
    assert!(fix.contains("unknown property 'x'"), "{fix}");
    assert!(FinalTool::from_schema(json!({"type": "array"})).is_err());
}
