//! The bridge API of seed 000, in-process over a real SQLite file.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{HOST, app, query};
use serde_json::json;
use webfold_core::Page;

const FIXTURE: &str = r#"<!doctype html><html><head><title>Acme</title></head><body>
<header id="main-header"><nav class="navbar"><a href="/">Home</a><a href="/p">Pricing</a></nav></header>
<main id="content">
  <section class="hero"><h1>Welcome to Our Platform</h1><p>The best solution for your needs</p><button class="cta-btn">Get Started</button></section>
  <section class="features"><div class="card">A</div><div class="card">B</div><div class="card">C</div></section>
</main>
<footer id="main-footer">© Acme</footer>
</body></html>"#;

#[tokio::test]
async fn create_then_chunk_returns_the_exact_outer_html() {
    let t = app();
    let r = t
        .post_json(
            "/conversations",
            &json!({"session_id": "abcdef-123", "cwd": "/", "permissionMode": "ask", "jsonSchema": {"type": "object"}, "html": FIXTURE, "url": "https://acme.test/"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let id = r.body["conversationId"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(r.body["structure"].is_string());
    assert!(r.body["tokens"].is_u64());
    assert_eq!(r.body["version"], 1);

    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?{}",
            query(&[("selector", "section.hero")])
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["selector"], "section.hero");
    assert_eq!(r.body["found"], true);
    assert_eq!(
        r.body["html"],
        r#"<section class="hero"><h1>Welcome to Our Platform</h1><p>The best solution for your needs</p><button class="cta-btn">Get Started</button></section>"#
    );
    assert_eq!(r.body["matches"], 1);

    // Several matches: the first (querySelector semantics), or all of them.
    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?{}",
            query(&[("selector", ".card")])
        ))
        .await;
    assert_eq!(r.body["html"], r#"<div class="card">A</div>"#);
    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?all=true&{}",
            query(&[("selector", ".card")])
        ))
        .await;
    assert_eq!(r.body["matches"], 3);
    let html = r.body["html"].as_str().unwrap();
    assert!(
        html.contains(r#"<div class="card">A</div>"#)
            && html.contains(r#"<div class="card">C</div>"#),
        "{html}"
    );
    assert!(html.contains("match 3/3"), "{html}");

    // A budget folds instead of cutting, and never exceeds max_tokens.
    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?selector=main&max_tokens=60"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body["tokens"].as_u64().unwrap() <= 60, "{}", r.body);
    assert!(
        !r.body["folded"].as_array().unwrap().is_empty(),
        "{}",
        r.body
    );
    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?selector=main&max_tokens=1"
        ))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert!(
        r.body["detail"]
            .as_str()
            .unwrap()
            .contains("raise max_tokens"),
        "{}",
        r.body
    );

    // By node id: the id the first match reported.
    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=.card"))
        .await;
    let node = r.body["id"].as_u64().unwrap();
    let r = t.get(&format!("/conversations/{id}/chunk?id={node}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["html"], r#"<div class="card">A</div>"#);
    let unique = r.body["selector"].as_str().unwrap().to_string();
    let page = Page::parse(FIXTURE);
    assert_eq!(
        page.query_all(&unique).unwrap().len(),
        1,
        "{unique} selects one element"
    );
}

#[tokio::test]
async fn chunk_errors_follow_the_seed() {
    let t = app();
    let id = t.create(FIXTURE).await;

    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?{}",
            query(&[("selector", "section.heroo")])
        ))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Element not found");
    let suggestions = r.body["suggestions"].as_array().unwrap();
    assert!(
        suggestions.iter().any(|s| s == "section.hero"),
        "{suggestions:?}"
    );

    let r = t
        .get(&format!(
            "/conversations/{id}/chunk?{}",
            query(&[("selector", "div[")])
        ))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["error"], "Invalid selector");
    assert!(r.body["detail"].as_str().unwrap().contains("div["));

    let r = t.get(&format!("/conversations/{id}/chunk")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.body["detail"].as_str().unwrap().contains("selector"));

    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=p&id=3"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);

    let r = t.get(&format!("/conversations/{id}/chunk?id=999999")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);

    let r = t
        .get(&format!("/conversations/{id}/chunk?id=notanumber"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.body["error"].is_string());

    let unknown = "0123456789abcdef0123456789abcdef";
    let r = t
        .get(&format!("/conversations/{unknown}/chunk?selector=p"))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Conversation not found");

    for bad in [
        "conv-123",
        "..%2F..%2Fetc",
        "0123456789ABCDEF0123456789ABCDEF",
        "%C3%A9",
    ] {
        let r = t
            .get(&format!("/conversations/{bad}/chunk?selector=p"))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(r.body["error"], "Invalid conversation id", "{bad}");
    }
}

#[tokio::test]
async fn refresh_keeps_the_previous_version() {
    let t = app();
    let id = t.create(FIXTURE).await;
    let updated = FIXTURE.replace("Welcome to Our Platform", "Welcome back");
    let r = t
        .post_json(
            &format!("/conversations/{id}/refresh"),
            &json!({"html": updated, "structure": "ignored"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["success"], true);
    assert_eq!(r.body["version"], 2);
    assert!(r.body["structure"].is_string());

    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=h1"))
        .await;
    assert_eq!(r.body["html"], "<h1>Welcome back</h1>");
    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=h1&version=1"))
        .await;
    assert_eq!(r.body["html"], "<h1>Welcome to Our Platform</h1>");
    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=h1&version=7"))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Version not found");

    let r = t.get(&format!("/conversations/{id}")).await;
    assert_eq!(r.body["versions"], json!([1, 2]));

    let unknown = "0123456789abcdef0123456789abcdef";
    let r = t
        .post_json(
            &format!("/conversations/{unknown}/refresh"),
            &json!({"html": "<p>x</p>"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Conversation not found");
}

#[tokio::test]
async fn list_and_delete() {
    let t = app();
    let a = t.create(FIXTURE).await;
    let b = t.create("<p>two</p>").await;
    let r = t.get("/conversations").await;
    let ids: Vec<&str> = r.body["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["conversationId"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&a.as_str()) && ids.contains(&b.as_str()));
    assert_eq!(r.body["conversations"][0]["session_id"], "session-0001");

    let r = t.delete(&format!("/conversations/{a}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["success"], true);
    let r = t.get(&format!("/conversations/{a}/chunk?selector=p")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Conversation not found");
    let r = t.delete(&format!("/conversations/{a}")).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = t.get("/conversations?limit=1").await;
    assert_eq!(r.body["conversations"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn bad_bodies_get_json_errors() {
    let t = app();
    let post = |body: &'static str, ct: Option<&'static str>| {
        let mut req = Request::post("/conversations").header("host", HOST);
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        req.body(Body::from(body)).unwrap()
    };
    let r = t.send(post("{not json", Some("application/json"))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.body["error"], "Invalid JSON");

    let r = t.send(post(r#"{"html": "<p>x</p>"}"#, None)).await;
    assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        r.body["detail"]
            .as_str()
            .unwrap()
            .contains("application/json")
    );

    let r = t.get("/nope").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.body["error"], "Not found");
}

/// A misspelt body field is refused as a misspelt query parameter is, in
/// the same words, naming the fields the endpoint takes.
#[tokio::test]
async fn unknown_body_fields_are_refused_like_unknown_parameters() {
    let t = app();
    let r = t.get("/conversations?limt=1").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        r.body["detail"],
        "unknown parameter 'limt'; this endpoint takes: limit, offset"
    );

    let r = t
        .post_json(
            "/conversations",
            &json!({"html": "<p>x</p>", "sesion_id": "abc"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    let detail = r.body["detail"].as_str().unwrap();
    let takes = detail
        .strip_prefix("unknown field 'sesion_id'; this endpoint takes: ")
        .unwrap_or_else(|| panic!("{detail}"));
    for field in [
        "session_id",
        "cwd",
        "permissionMode",
        "jsonSchema",
        "html",
        "url",
    ] {
        assert!(takes.split(", ").any(|f| f == field), "{field} in {detail}");
    }

    let id = t.create("<p>x</p>").await;
    let r = t
        .post_json(
            &format!("/conversations/{id}/refresh"),
            &json!({"html": "<p>y</p>", "link": "https://a.test/"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(
        r.body["detail"],
        "unknown field 'link'; this endpoint takes: html, url, structure"
    );
    // Nothing was stored.
    let r = t.get(&format!("/conversations/{id}")).await;
    assert_eq!(r.body["version"], 1);
}

/// A body whose `html` is empty or binary is refused as the CLI refuses
/// such a file, before anything is stored.
#[tokio::test]
async fn empty_and_binary_pages_are_refused() {
    let t = app();
    let id = t.create(FIXTURE).await;
    for (html, says) in [
        ("", "empty input: "),
        (" \n\t ", "empty input: "),
        ("%PDF-1.7\n1 0 obj", "not HTML (a PDF document): "),
        (
            "\u{0}\u{1}\u{2}\u{3}<\u{0}p\u{0}>",
            "not HTML (binary data: ",
        ),
    ] {
        for (uri, body) in [
            ("/conversations".to_string(), json!({ "html": html })),
            (
                format!("/conversations/{id}/refresh"),
                json!({ "html": html }),
            ),
        ] {
            let r = t.post_json(&uri, &body).await;
            assert_eq!(
                r.status,
                StatusCode::BAD_REQUEST,
                "{uri} {html:?}: {}",
                r.body
            );
            assert_eq!(r.body["error"], "Not a page", "{}", r.body);
            let detail = r.body["detail"].as_str().unwrap();
            assert!(detail.starts_with(says), "{detail}");
            assert!(detail.ends_with("pass the HTML of a web page"), "{detail}");
        }
    }
    let listed = t.get("/conversations").await;
    assert_eq!(listed.body["conversations"].as_array().unwrap().len(), 1);
    assert_eq!(
        t.get(&format!("/conversations/{id}")).await.body["version"],
        1
    );
}

/// `session_id` is the caller's opaque id: any non-empty id up to 128
/// characters of letters, digits and `. _ - : @ + =` is kept and echoed;
/// anything that could break a log line or a file name is refused.
#[tokio::test]
async fn session_ids_are_opaque_but_safe() {
    let t = app();
    for sid in [
        "a",
        "7",
        "short",
        "3f2a9c1e-5b7d-4e8f-a0b1-c2d3e4f5a6b7",
        "01J9Z3K6Q8R2T4V6X8Y0A2C4E6",
        "team:42",
        "user@host",
        "YWJj+ZGVm=",
        "v1.2_x-y",
        &"x".repeat(128),
    ] {
        let r = t
            .post_json(
                "/conversations",
                &json!({"session_id": sid, "html": "<p>x</p>"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{sid}: {}", r.body);
        let id = r.body["conversationId"].as_str().unwrap();
        let r = t.get(&format!("/conversations/{id}")).await;
        assert_eq!(r.body["session_id"], sid);
    }
    for sid in [
        "",
        "../../x",
        "..",
        ".",
        "a/b",
        "C:\\x",
        "has space",
        "tab\there",
        "line\nbreak",
        "quote\"d",
        "ünïcödé-id",
        &"x".repeat(129),
    ] {
        let r = t
            .post_json(
                "/conversations",
                &json!({"session_id": sid, "html": "<p>x</p>"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{sid:?}");
        assert!(
            r.body["detail"]
                .as_str()
                .unwrap()
                .starts_with("session_id must be 1 to 128 characters"),
            "{}",
            r.body
        );
    }
}

/// Every error status the server can answer, over a real socket, carries the
/// JSON `{error, detail}` and says what to do in the user's words.
#[tokio::test]
async fn every_error_status_is_json_on_the_wire() {
    let server = common::serve(|p| p.max_body_bytes = 1024 * 1024).await;
    let json_ct = [("Content-Type", "application/json")];
    let check = |r: &common::Raw, status: u16, error: &str| {
        assert_eq!(r.status, status, "{}\n{}", r.head, r.text);
        assert!(
            r.head.contains("content-type: application/json"),
            "{}",
            r.head
        );
        assert_eq!(r.body["error"], error, "{}", r.text);
        let detail = r.body["detail"]
            .as_str()
            .unwrap_or_else(|| panic!("no detail: {}", r.text));
        assert!(!detail.is_empty());
        for framework in ["Failed to", "deserialize", "target type", "Json"] {
            assert!(!detail.contains(framework), "framework text: {detail}");
        }
        detail.to_string()
    };

    // 404: an unknown route.
    let r = server.request("GET", "/nope", &[], b"").await;
    check(&r, 404, "Not found");

    // 405: a known route, another method; Allow is kept.
    let r = server.request("DELETE", "/health", &[], b"").await;
    let detail = check(&r, 405, "Method not allowed");
    assert!(
        detail.starts_with("DELETE is not allowed on /health; it takes GET"),
        "{detail} {}",
        r.head
    );
    assert!(r.head.contains("allow: get"), "{}", r.head);
    let r = server.request("PUT", "/conversations", &[], b"").await;
    let detail = check(&r, 405, "Method not allowed");
    assert!(
        detail.contains("GET") && detail.contains("POST"),
        "{detail}"
    );

    // 413: declared, and streamed in chunks with no Content-Length.
    let r = server
        .raw(
            format!(
                "POST /conversations HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n",
                server.port
            )
            .as_bytes(),
        )
        .await;
    let detail = check(&r, 413, "Payload too large");
    assert!(
        detail.contains("1 MB limit") && detail.contains("--max-body-mb"),
        "{detail}"
    );
    let mut chunked = format!(
        "POST /conversations HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.port
    )
    .into_bytes();
    for _ in 0..20 {
        chunked.extend_from_slice(format!("{:x}\r\n", 100_000).as_bytes());
        chunked.extend(std::iter::repeat_n(b' ', 100_000));
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = server.raw(&chunked).await;
    check(&r, 413, "Payload too large");

    // 414: a request line past what hyper reads (64 KB).
    let long = format!("/conversations?limit={}", "9".repeat(70_000));
    let r = server.request("GET", &long, &[], b"").await;
    let detail = check(&r, 414, "URI too long");
    assert!(detail.contains("shorten"), "{detail}");

    // 415: a body that is not declared JSON.
    let r = server
        .request(
            "POST",
            "/conversations",
            &[("Content-Type", "text/plain")],
            br#"{"html": "x"}"#,
        )
        .await;
    let detail = check(&r, 415, "Unsupported media type");
    assert!(
        detail.contains("Content-Type: application/json") && detail.contains("text/plain"),
        "{detail}"
    );

    // 431: too many headers, and one header too large.
    let many: Vec<(String, String)> = (0..120).map(|i| (format!("X-H{i}"), "v".into())).collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let r = server.request("GET", "/health", &many, b"").await;
    check(&r, 431, "Request header fields too large");
    let big = "v".repeat(600_000);
    let r = server
        .request("GET", "/health", &[("X-Big", &big)], b"")
        .await;
    check(&r, 431, "Request header fields too large");

    // 400: not HTTP at all, and a malformed header line.
    let r = server.raw(b"HELLO\r\n\r\n").await;
    check(&r, 400, "Bad request");
    let r = server
        .raw(
            format!(
                "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nno colon here\r\n\r\n",
                server.port
            )
            .as_bytes(),
        )
        .await;
    check(&r, 400, "Bad request");

    // 400: bad JSON bodies name the field and what was wrong, or where the
    // JSON broke.
    for (body, error, want) in [
        (
            r#"{"html": 42}"#,
            "Invalid request body",
            "field 'html' must be a string, not a number (42)",
        ),
        (
            r#"{"html": null}"#,
            "Invalid request body",
            "field 'html' must be a string, not null",
        ),
        (
            r#"{"html": ["x"]}"#,
            "Invalid request body",
            "field 'html' must be a string, not an array",
        ),
        (
            r#"{"html": "x", "url": true}"#,
            "Invalid request body",
            "field 'url' must be a string, not true",
        ),
        (
            r#"{"url": "https://a.test/"}"#,
            "Invalid request body",
            "missing field 'html'",
        ),
        (
            r#"[1, 2]"#,
            "Invalid request body",
            "the body must be a JSON object, not an array",
        ),
        (
            r#"{"html" "x"}"#,
            "Invalid JSON",
            "body is not valid JSON at line 1 column 9: expected ':'",
        ),
        (
            r#"{"html": "x",}"#,
            "Invalid JSON",
            "body is not valid JSON at line 1 column 14: a comma before '}' or ']' is not allowed in JSON",
        ),
        (
            r#"{"html": "x"} extra"#,
            "Invalid JSON",
            "body is not valid JSON at line 1 column 15: unexpected text after the JSON value",
        ),
        (
            r#"{"html": "x""#,
            "Invalid JSON",
            "body is not valid JSON: it ends at line 1 column 12 before the JSON is complete",
        ),
        ("", "Invalid JSON", "the body is empty"),
    ] {
        let r = server
            .request("POST", "/conversations", &json_ct, body.as_bytes())
            .await;
        let detail = check(&r, 400, error);
        assert!(detail.starts_with(want), "{body}: {detail}");
    }
    let r = server
        .request("GET", "/conversations?limit=ten", &[], b"")
        .await;
    let detail = check(&r, 400, "Bad request");
    assert_eq!(
        detail,
        "parameter limit='ten': must be a whole number, such as 10"
    );
    let r = server
        .request("GET", "/conversations?limt=10", &[], b"")
        .await;
    let detail = check(&r, 400, "Bad request");
    assert!(detail.starts_with("unknown parameter 'limt'"), "{detail}");

    // 400: an invalid selector shows where and why, with a caret.
    let r = server
        .request(
            "POST",
            "/conversations",
            &json_ct,
            br#"{"html": "<p>x</p>"}"#,
        )
        .await;
    let id = r.body["conversationId"].as_str().unwrap().to_string();
    let r = server
        .request(
            "GET",
            &format!("/conversations/{id}/chunk?selector=a%5B%5D"),
            &[],
            b"",
        )
        .await;
    let detail = check(&r, 400, "Invalid selector");
    assert_eq!(
        detail,
        "invalid selector 'a[]': expected an attribute name after '[' (at column 3)\n  a[]\n    ^"
    );
    assert_eq!(r.body["column"], 3);
    assert_eq!(r.body["selector"], "a[]");
    assert_eq!(r.body["reason"], "expected an attribute name after '['");

    // 403 and 401 come from the guard, JSON as ever.
    let r = server
        .request("GET", "/health", &[("Origin", "https://evil.example")], b"")
        .await;
    check(&r, 403, "Forbidden");

    // /mcp: rmcp's own refusals (plain text from the library) arrive as JSON too.
    let r = server
        .request(
            "POST",
            "/mcp",
            &[
                ("Content-Type", "text/plain"),
                ("Accept", "application/json, text/event-stream"),
            ],
            b"{}",
        )
        .await;
    assert!(r.status >= 400, "{}", r.text);
    assert!(
        r.body["error"].is_string() && r.body["detail"].is_string(),
        "{}",
        r.text
    );
    let r = server
        .request(
            "POST",
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "text/html"),
            ],
            b"{}",
        )
        .await;
    assert!(r.status >= 400, "{}", r.text);
    assert!(
        r.body["error"].is_string() && r.body["detail"].is_string(),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let t = app();
    let big = format!(r#"{{"html": "{}"}}"#, "x".repeat(33 * 1024 * 1024));
    let r = t
        .post_json("/conversations", &serde_json::from_str(&big).unwrap())
        .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.body["error"], "Payload too large");

    // No Content-Length: the limit is enforced while the body streams in.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..40).map(|_| Ok(vec![b' '; 1024 * 1024])).collect();
    let stream = Body::from_stream(tokio_stream::iter(chunks));
    let req = Request::post("/conversations")
        .header("host", HOST)
        .header("content-type", "application/json")
        .body(stream)
        .unwrap();
    let r = t.send(req).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.body);
    assert_eq!(r.body["error"], "Payload too large");

    // Just under the limit is accepted.
    let html = "y".repeat(32 * 1024 * 1024 - 100);
    let r = t
        .post_json("/conversations", &json!({ "html": html }))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}

/// Refreshes race chunk reads on one conversation: every read sees one whole
/// version, never a mix, and versions only move forward for a reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_refresh_and_chunk_never_tear() {
    let t = std::sync::Arc::new(app());
    let page = |v: usize| {
        let items: String = (0..200)
            .map(|i| format!("<li data-v=\"{v}\">item {i} of version {v}</li>"))
            .collect();
        format!("<main id=\"m\" data-v=\"{v}\"><ul>{items}</ul></main>")
    };
    let id = t.create(&page(0)).await;
    let writer = {
        let t = t.clone();
        let id = id.clone();
        tokio::spawn(async move {
            for v in 1..=15 {
                let r = t
                    .post_json(
                        &format!("/conversations/{id}/refresh"),
                        &json!({ "html": page(v) }),
                    )
                    .await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.body);
            }
        })
    };
    let mut readers = Vec::new();
    for _ in 0..4 {
        let t = t.clone();
        let id = id.clone();
        readers.push(tokio::spawn(async move {
            let mut last = 0usize;
            for _ in 0..40 {
                let r = t
                    .get(&format!("/conversations/{id}/chunk?selector=%23m"))
                    .await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.body);
                let html = r.body["html"].as_str().unwrap();
                let versions: std::collections::BTreeSet<&str> = html
                    .split("data-v=\"")
                    .skip(1)
                    .map(|s| &s[..s.find('"').unwrap()])
                    .collect();
                assert_eq!(versions.len(), 1, "torn read: versions {versions:?}");
                let v: usize = versions.into_iter().next().unwrap().parse().unwrap();
                assert!(v >= last, "went back from version {last} to {v}");
                assert_eq!(html.matches("<li ").count(), 200);
                last = v;
            }
        }));
    }
    writer.await.unwrap();
    for r in readers {
        r.await.unwrap();
    }
    let r = t
        .get(&format!("/conversations/{id}/chunk?selector=%23m"))
        .await;
    assert!(
        r.body["html"]
            .as_str()
            .unwrap()
            .starts_with("<main id=\"m\" data-v=\"15\">")
    );
}

/// Elements whose selectors need every kind of escaping in a URL.
const TRICKY: &str = r#"<!doctype html><html><body><main>
<ul><li>one</li><li>two</li></ul>
<p data-x="a b">spaced</p>
<p title="it's">quoted</p>
<p id="größe">umlaut</p>
<p id="50%">percent</p>
<a href="/a?b=1&amp;c=2#frag">link</a>
<p class="a+b">plus</p>
<p data-emoji="😀">emoji</p>
</main></body></html>"#;

/// Sections that fold under a small budget, with selectors that need
/// escaping: a non-ASCII id with a space and `%`, a quote in a class, and a
/// `>` path for the one with neither.
fn folding_page() -> String {
    let prose = |w: &str| format!("<p>{}</p>", format!("{w} ").repeat(120));
    format!(
        r#"<!doctype html><html><body><main><section id="größe 50%">{}</section><section class='it"s'>{}</section><section>{}</section><section>{}</section></main></body></html>"#,
        prose("alpha"),
        prose("beta"),
        prose("gamma"),
        prose("delta")
    )
}

/// A hint the bridge writes is a request target any client sends as is (a
/// raw space or `>` in the request line is a 400 before any handler runs):
/// after the conversation's path, each one returns the element it names,
/// whether spelled for a selector or read off a folded placeholder.
#[tokio::test]
async fn hints_with_any_selector_reach_their_element_over_the_wire() {
    use webfold_core::contract::{Handle, Hint, Surface};
    let server = common::serve(|_| {}).await;
    let create = |html: String| {
        let server = &server;
        async move {
            let body = json!({ "html": html }).to_string();
            let r = server
                .request(
                    "POST",
                    "/conversations",
                    &[("Content-Type", "application/json")],
                    body.as_bytes(),
                )
                .await;
            assert_eq!(r.status, 200, "{}", r.text);
            r.body["conversationId"].as_str().unwrap().to_string()
        }
    };

    let id = create(TRICKY.to_string()).await;
    let page = Page::parse(TRICKY);
    for sel in [
        "main > ul > li:nth-child(2)",
        r#"[data-x="a b"]"#,
        r#"[title="it's"]"#,
        "#größe",
        r"#\35 0\%",
        r#"a[href="/a?b=1&c=2#frag"]"#,
        r"p.a\+b",
        r#"[data-emoji="😀"]"#,
    ] {
        let expected = page.outer_html(page.query(sel).unwrap());
        let spelled = Hint::Chunk(Handle::Selector(sel.to_string()), false).spell(Surface::Http);
        let r = server
            .request("GET", &format!("/conversations/{id}/{spelled}"), &[], b"")
            .await;
        assert_eq!(r.status, 200, "{sel} as `{spelled}`: {}", r.text);
        assert_eq!(r.body["html"], expected, "{sel} as `{spelled}`");
    }

    let html = folding_page();
    let id = create(html.clone()).await;
    let page = Page::parse(&html);
    let r = server
        .request(
            "GET",
            &format!("/conversations/{id}/chunk?selector=main&max_tokens=120"),
            &[],
            b"",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let folded = r.body["html"].as_str().unwrap();
    let hints: Vec<&str> = folded
        .split("<!-- folded ")
        .skip(1)
        .filter_map(|p| Some(p.split_once(" -->")?.0.rsplit_once(": ")?.1))
        .collect();
    assert!(hints.len() >= 2, "{folded}");
    // What folds names elements through the escaped id and a `>` path.
    let all = hints.concat();
    for escaped in ["%C3%B6", "%20", "%5C%25", "%3E"] {
        assert!(all.contains(escaped), "{escaped} in {hints:?}");
    }
    for hint in hints {
        let r = server
            .request("GET", &format!("/conversations/{id}/{hint}"), &[], b"")
            .await;
        assert_eq!(r.status, 200, "`{hint}`: {}", r.text);
        let sel = r.body["selector"].as_str().unwrap();
        let html = r.body["html"].as_str().unwrap();
        for element in page.query_all(sel).unwrap() {
            assert!(html.contains(&page.outer_html(element)), "`{hint}`: {html}");
        }
    }
}

/// Real pages: the bridge's chunk equals the core's outerHTML of the first
/// match, and the structure is the core's outline.
#[tokio::test]
async fn corpus_pages_round_trip() {
    let t = app();
    for p in webfold_corpus::sample(15).into_iter().take(8) {
        let html = p.html();
        let id = t.create(&html).await;
        let page = Page::parse(&html);
        for sel in ["main", "article", "h1", "a[href]", "body > *"] {
            let r = t
                .get(&format!(
                    "/conversations/{id}/chunk?{}",
                    query(&[("selector", sel), ("max_tokens", "100000000")])
                ))
                .await;
            match page.query_all(sel).unwrap().first() {
                Some(&n) => {
                    assert_eq!(r.status, StatusCode::OK, "{} {sel}", p.id);
                    assert_eq!(
                        r.body["html"].as_str().unwrap(),
                        page.outer_html(n),
                        "{} {sel}",
                        p.id
                    );
                }
                None => assert_eq!(r.status, StatusCode::NOT_FOUND, "{} {sel}", p.id),
            }
        }
        let r = t.get(&format!("/conversations/{id}/outline")).await;
        assert_eq!(r.status, StatusCode::OK, "{} {}", p.id, r.body);
        // The bridge's outline is the core's, its hints in the bridge's words.
        let opts = webfold_core::outline::OutlineOptions::default();
        let ctx = webfold_core::contract::Ctx::new(
            webfold_core::contract::Surface::Http,
            Default::default(),
        );
        let expected = webfold_core::outline::outline(&page, &opts, ctx).unwrap();
        assert_eq!(r.body["text"], expected.text, "{}", p.id);
        assert_eq!(r.body["tokens"], expected.tokens, "{}", p.id);
    }
}

#[tokio::test]
async fn outline_and_markdown_take_view_options() {
    let t = app();
    let html = r#"<html><body><main><h1>Title</h1><p>See <a href="/docs">the docs</a>.</p><ul><li>a</li><li>b</li></ul></main><footer id="f">foot</footer></body></html>"#;
    let r = t
        .post_json(
            "/conversations",
            &json!({"html": html, "url": "https://site.test/dir/page"}),
        )
        .await;
    let id = r.body["conversationId"].as_str().unwrap().to_string();
    assert!(
        r.body["structure"].as_str().unwrap().contains("footer#f"),
        "{}",
        r.body
    );

    let r = t
        .get(&format!(
            "/conversations/{id}/outline?exclude=footer&max_depth=2"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        !r.body["text"].as_str().unwrap().contains("footer"),
        "{}",
        r.body
    );
    assert_eq!(r.body["maxDepth"], 2);

    // Outside the declared range: refused with the range, as on every surface.
    for depth in ["0", "65"] {
        let r = t
            .get(&format!("/conversations/{id}/outline?max_depth={depth}"))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
        assert_eq!(
            r.body["detail"],
            format!("max_depth must be a whole number from 1 to 64, not {depth}"),
            "{}",
            r.body
        );
    }

    let r = t
        .get(&format!("/conversations/{id}/outline?maxdepth=2"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.body["detail"].as_str().unwrap().contains("max_depth"),
        "{}",
        r.body
    );

    let r = t.get(&format!("/conversations/{id}/markdown")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let md = r.body["text"].as_str().unwrap();
    assert!(md.contains("# Title"), "{md}");
    assert!(
        md.contains("[the docs](https://site.test/docs)"),
        "links resolve against the page URL: {md}"
    );

    let r = t
        .get(&format!("/conversations/{id}/markdown?max_lines=1"))
        .await;
    assert_eq!(r.body["truncated"], true);
    assert_eq!(r.body["next_start_line"], 2);

    let r = t
        .get(&format!("/conversations/{id}/markdown?selector=ul"))
        .await;
    assert_eq!(r.body["text"].as_str().unwrap().trim(), "- a\n- b");
}

#[tokio::test]
async fn snapshot_and_cnt_endpoints() {
    let t = app();
    let id = t.create(FIXTURE).await;
    let r = t.get(&format!("/conversations/{id}/snapshot")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let text = r.body["text"].as_str().unwrap().to_string();
    let line = text
        .lines()
        .find(|l| l.contains("button \"Get Started\""))
        .unwrap_or_else(|| panic!("{text}"));
    let r#ref = line
        .split("[ref=")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap()
        .to_string();

    let r = t
        .get(&format!("/conversations/{id}/chunk?ref={}", r#ref))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body["html"],
        "<button class=\"cta-btn\">Get Started</button>"
    );
    let r = t
        .get(&format!("/conversations/{id}/chunk?ref=e99999"))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);

    let r = t
        .get(&format!(
            "/conversations/{id}/snapshot?mode=aria&interactive_only=false"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        !r.body["text"].as_str().unwrap().contains("[ref="),
        "aria mode has no refs"
    );
    let r = t
        .get(&format!("/conversations/{id}/snapshot?mode=fancy"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = t
        .get(&format!("/conversations/{id}/snapshot?viewport_only=true"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.body["detail"].as_str().unwrap().contains("viewport"),
        "{}",
        r.body
    );

    let r = t.get(&format!("/conversations/{id}/cnt")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        r.body["text"]
            .as_str()
            .unwrap()
            .contains("Welcome to Our Platform"),
        "{}",
        r.body
    );
    let node = r.body["text"]
        .as_str()
        .unwrap()
        .lines()
        .find(|l| l.contains("Get Started"))
        .unwrap()
        .trim()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let r = t
        .get(&format!("/conversations/{id}/cnt?expand={node}"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = t.get(&format!("/conversations/{id}/chunk?id={node}")).await;
    assert_eq!(r.status, StatusCode::OK, "CNT ids are node ids: {}", r.body);
    assert!(r.body["html"].as_str().unwrap().contains("Get Started"));
    let r = t.get(&format!("/conversations/{id}/cnt?expand=zz")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

/// The number after the first `max_tokens=` in `text`.
fn advised(text: &str) -> usize {
    let rest = text
        .split("max_tokens=")
        .nth(1)
        .unwrap_or_else(|| panic!("no max_tokens=N in: {text}"));
    rest.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("{text}"))
}

fn tokens(text: &str) -> usize {
    webfold_core::tokens::count(text, webfold_core::tokens::Encoding::O200kBase)
}

#[tokio::test]
async fn snapshot_honours_any_budget() {
    let t = app();
    let links: String = (0..150)
        .map(|i| format!("<li><a href=/p/{i}>Product number {i}</a></li>"))
        .collect();
    let id = t
        .create(&format!(
            "<body><main><h1>All products</h1><button>Filter</button><ul>{links}</ul></main></body>"
        ))
        .await;
    let r = t
        .get(&format!("/conversations/{id}/snapshot?max_tokens=300"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let text = r.body["text"].as_str().unwrap();
    assert!(tokens(text) <= 300, "{} tokens: {text}", tokens(text));
    assert_eq!(r.body["tokens"], tokens(text));
    assert!(text.contains("- button \"Filter\" [ref="), "{text}");
    // Too small for the header: refused, with a budget that works.
    let r = t
        .get(&format!("/conversations/{id}/snapshot?max_tokens=10"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    let detail = r.body["detail"].as_str().unwrap();
    assert!(detail.contains("than the budget of 10"), "{detail}");
    let needed = advised(detail);
    let r = t
        .get(&format!("/conversations/{id}/snapshot?max_tokens={needed}"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(tokens(r.body["text"].as_str().unwrap()) <= needed);
}

#[tokio::test]
async fn markdown_endpoint_does_what_format_says() {
    let t = app();
    let html = "<html><body><h1>Title</h1><p>Some text.</p></body></html>";
    let id = t.create(html).await;
    let r = t
        .get(&format!("/conversations/{id}/markdown?format=raw"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["format"], "raw");
    let raw = r.body["text"].as_str().unwrap();
    assert!(raw.contains("<h1>Title</h1><p>Some text.</p>"), "{raw}");
    let r = t
        .get(&format!("/conversations/{id}/markdown?format=base64"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body["text"],
        webfold_core::fetch_view::base64(raw.as_bytes())
    );
    let r = t.get(&format!("/conversations/{id}/markdown")).await;
    assert_eq!(r.body["format"], "markdown");
    assert!(r.body["text"].as_str().unwrap().starts_with("# Title"));
    // Raw is never cut: over the budget it is refused with the one that takes it.
    let r = t
        .get(&format!(
            "/conversations/{id}/markdown?format=raw&max_tokens=5"
        ))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    let needed = advised(r.body["detail"].as_str().unwrap());
    let r = t
        .get(&format!(
            "/conversations/{id}/markdown?format=raw&max_tokens={needed}"
        ))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}
