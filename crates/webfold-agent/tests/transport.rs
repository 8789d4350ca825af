//! The provider clients' transport: retries that obey `retry-after`, give up
//! when told to wait too long or after too many tries, retried broken
//! streams, timeouts, cancellation, refused keys. Waits are checked by what
//! the client recorded and the server saw, never by the clock.

mod common;

use std::time::Duration;

use common::*;
use webfold_agent::message::Retry;
use webfold_agent::replay::Scripted;
use webfold_agent::{
    AgentError, AgentOptions, CancellationToken, ProviderError, ProviderKind, run,
};

fn answer(kind: ProviderKind) -> Scripted {
    reply(kind, true, &[final_call("a", good_answer())], usage(3, 4))
}

#[tokio::test]
async fn busy_servers_are_retried_as_long_as_they_say() {
    for kind in KINDS {
        let server = serve(vec![
            Scripted::error(429, "rate limited", &[("retry-after-ms", "12")]),
            Scripted::error(529, "overloaded", &[("retry-after", "0")]),
            Scripted::error(503, "unavailable", &[]),
            answer(kind),
        ])
        .await;
        let out = go_default(kind, &server, true).await.unwrap();
        let retries = &out.calls[0].retries;
        assert_eq!(retries.len(), 3, "{retries:?}");
        assert_eq!(
            retries[0],
            Retry {
                status: Some(429),
                waited_ms: 12,
                from_header: true
            }
        );
        assert_eq!(
            retries[1],
            Retry {
                status: Some(529),
                waited_ms: 0,
                from_header: true
            }
        );
        // No header: the backoff (1 ms base in these tests), not a header.
        assert_eq!(
            (retries[2].status, retries[2].from_header),
            (Some(503), false)
        );
        assert!(retries[2].waited_ms <= 5, "{retries:?}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 4);
        // Each retry resends the same request.
        assert!(reqs.iter().all(|r| r.body == reqs[0].body));
        assert_eq!(out.iterations, 1);
        assert_eq!(out.usage, usage(3, 4));
    }
}

#[tokio::test]
async fn retries_end() {
    let kind = ProviderKind::OpenAi;
    let server = serve(vec![
        Scripted::error(500, "boom 1", &[]),
        Scripted::error(500, "boom 2", &[]),
        answer(kind),
    ])
    .await;
    let p = with(&provider(kind, &server.url(), true), |c| {
        c.retry.max_retries = 1
    });
    let err = go(&p, &AgentOptions::default()).await.unwrap_err();
    assert!(
        matches!(
            err,
            AgentError::Provider(ProviderError::RetriesExhausted {
                attempts: 2,
                status: Some(500),
                ..
            })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("boom 2; try again later"), "{err}");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(server.left(), 1);
}

#[tokio::test]
async fn a_wait_longer_than_allowed_is_not_waited() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![
        Scripted::error(429, "slow down", &[("retry-after", "3600")]),
        answer(kind),
    ])
    .await;
    let err = go_default(kind, &server, true).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Anthropic asked to wait 3600 s before retrying, more than the 60 s this run waits; try again later"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_short_is_retried() {
    for kind in KINDS {
        let Scripted::Stream { mut events, .. } = answer(kind) else {
            unreachable!()
        };
        events.truncate(3);
        let server = serve(vec![
            Scripted::Stream {
                events,
                complete: false,
            },
            answer(kind),
        ])
        .await;
        let out = go_default(kind, &server, true).await.unwrap();
        assert_eq!(out.output, good_answer());
        assert_eq!(out.calls[0].retries.len(), 1, "{kind:?}");
        assert_eq!(out.calls[0].retries[0].status, None);
        assert_eq!(server.requests().len(), 2);
    }
}

#[tokio::test]
async fn an_error_event_mid_stream_is_retried() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![
        Scripted::Stream {
            events: vec![
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into(),
            ],
            complete: true,
        },
        answer(kind),
    ]).await;
    let out = go_default(kind, &server, true).await.unwrap();
    assert_eq!(out.calls[0].retries.len(), 1);
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let kind = ProviderKind::OpenAi;
    let server = serve(vec![Scripted::Hang, answer(kind)]).await;
    let p = with(&provider(kind, &server.url(), true), |c| {
        c.timeout = Duration::from_millis(300)
    });
    let err = go(&p, &AgentOptions::default()).await.unwrap_err();
    assert!(
        matches!(err, AgentError::Provider(ProviderError::Timeout { .. })),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "no answer from the OpenAI-compatible server within 0.3 s; raise the timeout or check the server"
    );
    // A timeout is not retried: the next attempt would wait as long again.
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn cancellation_stops_a_call_in_flight() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![Scripted::Hang]).await;
    let p = provider(kind, &server.url(), true);
    let cancel = CancellationToken::new();
    let page = page();
    let opts = AgentOptions::default();
    let running = run(&p, &page, "x", &opts, &cancel);
    let canceller = async {
        // Cancel once the server has the request: the call is in flight.
        while server.requests().is_empty() {
            tokio::task::yield_now().await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(running, canceller);
    let err = result.unwrap_err();
    assert!(
        matches!(err, AgentError::Provider(ProviderError::Cancelled)),
        "{err}"
    );
}

#[tokio::test]
async fn a_refused_key_says_which_variable() {
    let kind = ProviderKind::Anthropic;
    let server = serve(vec![Scripted::error(401, "invalid x-api-key", &[])]).await;
    let p = with(&provider(kind, &server.url(), true), |c| {
        c.api_key = Some("sk-test".into())
    });
    let err = go(&p, &AgentOptions::default()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Anthropic refused the API key (HTTP 401): invalid x-api-key; check ANTHROPIC_API_KEY"
    );
    let req = &server.requests()[0];
    assert_eq!(req.header("x-api-key"), Some("sk-test"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn nobody_listening_is_a_connect_error() {
    // Bind and drop to find a port nobody listens on.
    let port = webfold_testkit::free_port();
    let p = provider(
        ProviderKind::OpenAi,
        &format!("http://127.0.0.1:{port}"),
        true,
    );
    let err = go(&p, &AgentOptions::default()).await.unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("cannot reach the OpenAI-compatible server at http://127.0.0.1:{port}/v1/chat/completions")), "{msg}");
    assert!(
        msg.ends_with("check --base-url and that the server runs"),
        "{msg}"
    );
}
