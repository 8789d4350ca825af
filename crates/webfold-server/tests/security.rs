//! The guard's matrix (shared/reference/security.md §7.1): Host, Origin,
//! preflight, bearer token; on the bridge API and on /mcp alike.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{HOST, Reply, TestApp, app, app_with};
use webfold_server::security::{Policy, Token};

fn req(method: Method, uri: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut b = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(Body::empty()).unwrap()
}

fn assert_no_cors(r: &Reply) {
    for (name, _) in r.headers.iter() {
        assert!(
            !name.as_str().starts_with("access-control-"),
            "CORS header {name} sent"
        );
    }
}

async fn status(t: &TestApp, method: Method, uri: &str, headers: &[(&str, &str)]) -> StatusCode {
    let r = t.send(req(method, uri, headers)).await;
    assert_no_cors(&r);
    if r.status == StatusCode::FORBIDDEN || r.status == StatusCode::UNAUTHORIZED {
        assert!(
            r.body["error"].is_string(),
            "JSON error body: {:?}",
            String::from_utf8_lossy(&r.raw)
        );
    }
    r.status
}

#[tokio::test]
async fn host_must_name_this_server() {
    let t = app();
    for (host, want) in [
        ("127.0.0.1:3456", StatusCode::OK),
        ("localhost:3456", StatusCode::OK),
        ("LOCALHOST:3456", StatusCode::OK),
        ("[::1]:3456", StatusCode::OK),
        ("evil.example:3456", StatusCode::FORBIDDEN),
        ("evil.example", StatusCode::FORBIDDEN),
        ("127.0.0.1", StatusCode::FORBIDDEN),
        ("127.0.0.1:80", StatusCode::FORBIDDEN),
        ("localhost.evil.example:3456", StatusCode::FORBIDDEN),
        ("192.168.1.10:3456", StatusCode::FORBIDDEN),
        ("", StatusCode::FORBIDDEN),
    ] {
        for uri in ["/health", "/conversations", "/mcp"] {
            let got = status(&t, Method::GET, uri, &[("host", host)]).await;
            if want == StatusCode::OK {
                assert_ne!(got, StatusCode::FORBIDDEN, "{host} {uri}");
            } else {
                assert_eq!(got, want, "{host} {uri}");
            }
        }
    }
    // No Host header at all.
    assert_eq!(
        status(&t, Method::GET, "/health", &[]).await,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn origin_present_and_not_allowed_is_refused() {
    let t = app();
    for origin in [
        "https://evil.example",
        "null",
        "http://localhost:3000",
        "http://localhost:3456",
        "https://127.0.0.1:3456",
        "http://127.0.0.1:3457",
        "http://127.0.0.1.evil.example:3456",
        "http://127.0.0.1:3456.evil.example",
        "http://127.0.0.1:3456/",
        "http://127.0.0.1",
        "chrome-extension://wrongid",
    ] {
        for uri in ["/health", "/conversations", "/mcp"] {
            let got = status(&t, Method::GET, uri, &[("host", HOST), ("origin", origin)]).await;
            assert_eq!(got, StatusCode::FORBIDDEN, "{origin} {uri}");
        }
        let got = status(
            &t,
            Method::POST,
            "/conversations",
            &[
                ("host", HOST),
                ("origin", origin),
                ("content-type", "application/json"),
            ],
        )
        .await;
        assert_eq!(got, StatusCode::FORBIDDEN, "POST with {origin}");
    }
    // No Origin: CLIs and agents.
    assert_eq!(
        status(&t, Method::GET, "/health", &[("host", HOST)]).await,
        StatusCode::OK
    );

    // An allowlisted extension origin passes, exactly.
    let mut policy = Policy::loopback(3456);
    policy.allowed_origins = vec!["chrome-extension://iophdafbhacggidkbbmpgfdgboipaifh".into()];
    let t = app_with(policy);
    let ok = [
        ("host", HOST),
        (
            "origin",
            "chrome-extension://iophdafbhacggidkbbmpgfdgboipaifh",
        ),
    ];
    assert_eq!(
        status(&t, Method::GET, "/health", &ok).await,
        StatusCode::OK
    );
    let other = [
        ("host", HOST),
        (
            "origin",
            "chrome-extension://iophdafbhacggidkbbmpgfdgboipaifhx",
        ),
    ];
    assert_eq!(
        status(&t, Method::GET, "/health", &other).await,
        StatusCode::FORBIDDEN
    );
}

/// The server's own origin (`http://` + a loopback Host of ours) is the one
/// browser origin accepted without `--allow-origin`: nothing is served from
/// it, and a rebinding page carries its own Host. Exactly that pair passes.
#[tokio::test]
async fn own_origin_is_accepted_exactly() {
    let mut policy = Policy::loopback(3456);
    policy.allowed_hosts.push("myhost:3456".into());
    let t = app_with(policy);
    for host in ["127.0.0.1:3456", "localhost:3456", "[::1]:3456"] {
        let origin = format!("http://{host}");
        let headers = [("host", host), ("origin", origin.as_str())];
        assert_eq!(
            status(&t, Method::GET, "/health", &headers).await,
            StatusCode::OK,
            "{origin}"
        );
        // /mcp runs rmcp's own Origin check after ours: it must agree.
        let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}});
        let r = t
            .send(
                Request::post("/mcp")
                    .header("host", host)
                    .header("origin", &origin)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(Body::from(init.to_string()))
                    .unwrap(),
            )
            .await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "{origin}: {}",
            String::from_utf8_lossy(&r.raw)
        );
    }
    // Another loopback name than the Host, a non-loopback extra host, and
    // lookalikes are refused.
    for (host, origin) in [
        ("127.0.0.1:3456", "http://localhost:3456"),
        ("localhost:3456", "http://127.0.0.1:3456"),
        ("myhost:3456", "http://myhost:3456"),
        ("localhost:3456", "http://LOCALHOST:3456.evil.example"),
        ("127.0.0.1:3456", "http://127.0.0.1:3456@evil.example"),
    ] {
        for uri in ["/health", "/mcp"] {
            assert_eq!(
                status(&t, Method::GET, uri, &[("host", host), ("origin", origin)]).await,
                StatusCode::FORBIDDEN,
                "{host} {origin} {uri}"
            );
        }
    }
}

#[tokio::test]
async fn preflights_are_refused() {
    let t = app();
    for uri in ["/conversations", "/mcp", "/health"] {
        let got = status(
            &t,
            Method::OPTIONS,
            uri,
            &[
                ("host", HOST),
                ("origin", "https://evil.example"),
                ("access-control-request-method", "POST"),
            ],
        )
        .await;
        assert_eq!(got, StatusCode::FORBIDDEN, "{uri}");
        let got = status(&t, Method::OPTIONS, uri, &[("host", HOST)]).await;
        assert_eq!(got, StatusCode::FORBIDDEN, "{uri} without Origin");
    }
}

#[tokio::test]
async fn bearer_token_is_required_when_configured() {
    let secret = "5f2b8c1e9a7d4f3b6c0e8a2d4f6b8c0e";
    let mut policy = Policy::loopback(3456);
    policy.token = Some(Token::new(secret).unwrap());
    let t = app_with(policy);
    let good = format!("Bearer {secret}");
    let bad = format!("Bearer {}", secret.replace('5', "6"));
    for uri in ["/health", "/conversations", "/mcp"] {
        let r = t.send(req(Method::GET, uri, &[("host", HOST)])).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{uri}");
        assert_eq!(r.headers["www-authenticate"], "Bearer");
        assert_eq!(
            status(
                &t,
                Method::GET,
                uri,
                &[("host", HOST), ("authorization", &bad)]
            )
            .await,
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            status(
                &t,
                Method::GET,
                uri,
                &[("host", HOST), ("authorization", secret)]
            )
            .await,
            StatusCode::UNAUTHORIZED
        );
        // Never from the query string.
        let in_query = format!("{uri}?token={secret}&access_token={secret}");
        assert_eq!(
            status(&t, Method::GET, &in_query, &[("host", HOST)]).await,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        status(
            &t,
            Method::GET,
            "/health",
            &[("host", HOST), ("authorization", &good)]
        )
        .await,
        StatusCode::OK
    );
    // Host is still checked first, token or not.
    assert_eq!(
        status(
            &t,
            Method::GET,
            "/health",
            &[("host", "evil.example:3456"), ("authorization", &good)]
        )
        .await,
        StatusCode::FORBIDDEN
    );
}

#[cfg(unix)]
#[test]
fn token_files_must_be_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = common::fresh_db();
    let dir = dir.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("token");
    let (token, created) = Token::read_or_create(&path).unwrap();
    assert!(created);
    assert_eq!(token.secret().len(), 64);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let (again, created) = Token::read_or_create(&path).unwrap();
    assert!(!created);
    assert_eq!(again.secret(), token.secret());

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = Token::read_file(&path).unwrap_err();
    assert!(err.contains("chmod 600"), "{err}");
}
