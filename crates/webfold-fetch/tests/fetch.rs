//! End-to-end tests of `webfold_fetch` against a tiny HTTP/1.1 server started on
//! 127.0.0.1 inside each test (raw tokio sockets: no network, no extra crates).
//! The server only ever delays its own responses; no assertion depends on timing
//! beyond "the client gave up before the server answered".

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use webfold_core::contract::Surface;
use webfold_core::decode::{Decoded, EncodingSource};
use webfold_core::fetch_view::Format;
use webfold_fetch::{FetchError, FetchOptions, Fetched, fetch};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// How the core shows a response this crate fetched: what every surface
/// does with the bytes (the fetch itself knows nothing of views).
trait Shown {
    fn format(
        &self,
        asked: Option<Format>,
        surface: Surface,
    ) -> Result<Format, webfold_core::Error>;
    fn text(&self) -> Decoded;
    fn into_text(self) -> Decoded;
    fn base64(&self) -> String;
}

impl Shown for Fetched {
    fn format(
        &self,
        asked: Option<Format>,
        surface: Surface,
    ) -> Result<Format, webfold_core::Error> {
        webfold_core::fetch_view::choose_format(Some(&self.mime), asked, surface)
    }
    fn text(&self) -> Decoded {
        self.clone().into_text()
    }
    fn into_text(self) -> Decoded {
        let url = self.final_url.to_string();
        webfold_core::decode::decode_body(
            self.body,
            self.content_type.as_deref(),
            &self.mime,
            Some(&url),
        )
    }
    fn base64(&self) -> String {
        webfold_core::fetch_view::base64(&self.body)
    }
}

struct Reply {
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    delay: Duration,
    /// Stream zeros without a length until the client hangs up (bounded at 64 MB).
    endless: bool,
}

impl Reply {
    fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status: "200 OK",
            headers: vec![("Content-Type", content_type.to_owned())],
            body: body.into(),
            delay: Duration::ZERO,
            endless: false,
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).expect("gzip in memory");
    enc.finish().expect("gzip in memory")
}

/// The routes every test server knows. `head` is the raw request head.
fn route(path: &str, head: &str) -> Reply {
    match path {
        "/html" => Reply::ok("text/html; charset=windows-1252", &b"<p>caf\xe9</p>"[..]),
        "/html-meta" => Reply::ok(
            "text/html",
            &b"<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"[..],
        ),
        "/json" => Reply::ok("application/json", r#"{"a": [1, 2]}"#),
        "/png" => Reply::ok("image/png", PNG),
        "/text" => Reply::ok("text/plain; charset=utf-8", "línea 1\nlínea 2\n"),
        "/bare" => {
            let mut r = Reply::ok("", "<!DOCTYPE html><title>t</title>");
            r.headers.clear();
            r
        }
        "/gzip" => {
            let mut r = Reply::ok(
                "text/html; charset=utf-8",
                gzip("<h1>zipped ✓</h1>".as_bytes()),
            );
            r.headers.push(("Content-Encoding", "gzip".to_owned()));
            r
        }
        "/gzip-bomb" => {
            let mut r = Reply::ok("text/plain", gzip(&vec![b'a'; 8 << 20]));
            r.headers.push(("Content-Encoding", "gzip".to_owned()));
            r
        }
        "/big" => Reply::ok("text/plain", vec![b'x'; 2 << 20]),
        "/endless" => Reply {
            endless: true,
            ..Reply::ok("application/octet-stream", "")
        },
        "/slow" => Reply {
            delay: Duration::from_secs(5),
            ..Reply::ok("text/plain", "late")
        },
        "/missing" => Reply {
            status: "404 Not Found",
            ..Reply::ok(
                "text/html",
                "<html><head><title>404 Not Found</title></head><body><h1>No such page</h1></body></html>",
            )
        },
        "/ua" => {
            let ua = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("user-agent: ")
                        .or_else(|| l.strip_prefix("User-Agent: "))
                })
                .unwrap_or("")
                .to_owned();
            Reply::ok("text/plain", ua)
        }
        _ => {
            if let Some(n) = path
                .strip_prefix("/redirect/")
                .and_then(|n| n.parse::<u32>().ok())
            {
                if n == 0 {
                    return Reply::ok("text/plain", "done");
                }
                return Reply {
                    status: "302 Found",
                    headers: vec![("Location", format!("/redirect/{}", n - 1))],
                    ..Reply::ok("text/plain", "")
                };
            }
            Reply {
                status: "404 Not Found",
                ..Reply::ok("text/plain", "no route")
            }
        }
    }
}

struct Server {
    addr: SocketAddr,
    /// Bytes the server wrote for `/endless`.
    streamed: Arc<AtomicU64>,
}

impl Server {
    async fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let streamed = Arc::new(AtomicU64::new(0));
        let counter = streamed.clone();
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                tokio::spawn(handle(sock, counter.clone()));
            }
        });
        Server { addr, streamed }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

async fn handle(mut sock: TcpStream, streamed: Arc<AtomicU64>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match sock.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let reply = route(&path, &head);
    tokio::time::sleep(reply.delay).await;

    let mut out = format!("HTTP/1.1 {}\r\nConnection: close\r\n", reply.status);
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if !reply.endless {
        out.push_str(&format!("Content-Length: {}\r\n", reply.body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&reply.body);
    if sock.write_all(&bytes).await.is_err() {
        return;
    }
    if reply.endless {
        let chunk = vec![0u8; 64 * 1024];
        for _ in 0..1024 {
            if sock.write_all(&chunk).await.is_err() {
                break;
            }
            streamed.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
    }
    let _ = sock.shutdown().await;
}

fn opts() -> FetchOptions {
    FetchOptions {
        use_env_proxy: false,
        ..FetchOptions::default()
    }
}

async fn get(server: &Server, path: &str) -> Result<Fetched, FetchError> {
    fetch(&server.url(path), &opts()).await
}

#[tokio::test]
async fn html_is_fetched_and_decoded_with_the_header_charset() {
    let s = Server::start().await;
    let f = get(&s, "/html").await.expect("fetch /html");
    assert_eq!(f.status, 200);
    assert_eq!(f.mime, "text/html");
    assert_eq!(
        f.content_type.as_deref(),
        Some("text/html; charset=windows-1252")
    );
    assert_eq!(f.final_url.as_str(), s.url("/html"));
    assert_eq!(f.body, b"<p>caf\xe9</p>");
    assert!(f.is_html());
    assert_eq!(f.format(None, Surface::Cli), Ok(Format::Markdown));
    assert_eq!(
        f.format(Some(Format::Base64), Surface::Cli),
        Ok(Format::Base64)
    );
    assert_eq!(f.format(Some(Format::Raw), Surface::Cli), Ok(Format::Raw));
    let text = f.into_text();
    assert_eq!(text.text, "<p>café</p>");
    assert_eq!(
        (text.encoding.name(), text.source),
        ("windows-1252", EncodingSource::Header)
    );
}

#[tokio::test]
async fn html_without_header_charset_uses_meta() {
    let s = Server::start().await;
    let text = get(&s, "/html-meta").await.expect("fetch").into_text();
    assert_eq!(text.source, EncodingSource::Meta);
    assert!(text.text.ends_with("<p>Привет</p>"), "{}", text.text);
}

#[tokio::test]
async fn json_text_and_images_dispatch_as_the_seed_says() {
    let s = Server::start().await;
    let json = get(&s, "/json").await.expect("fetch /json");
    assert_eq!(
        (json.mime.as_str(), json.format(None, Surface::Cli)),
        ("application/json", Ok(Format::Raw))
    );
    assert_eq!(json.text().text, r#"{"a": [1, 2]}"#);

    let text = get(&s, "/text").await.expect("fetch /text");
    assert_eq!(
        (
            text.mime.as_str(),
            text.format(Some(Format::Base64), Surface::Cli)
        ),
        ("text/plain", Ok(Format::Base64))
    );
    assert_eq!(text.text().text, "línea 1\nlínea 2\n");

    let png = get(&s, "/png").await.expect("fetch /png");
    assert_eq!(png.mime, "image/png");
    assert_eq!(png.format(None, Surface::Cli), Ok(Format::Base64));
    assert!(png.format(Some(Format::Raw), Surface::Cli).is_err());
    assert_eq!(png.body, PNG);
    assert_eq!(png.base64(), "iVBORw0KGgoAAAANSUhEUg==");

    let bare = get(&s, "/bare").await.expect("fetch /bare");
    assert_eq!(
        (bare.content_type.as_deref(), bare.mime.as_str()),
        (None, "text/html")
    );
}

#[tokio::test]
async fn gzip_bodies_are_decoded() {
    let s = Server::start().await;
    let f = get(&s, "/gzip").await.expect("fetch /gzip");
    assert_eq!(f.body, "<h1>zipped ✓</h1>".as_bytes());
    assert_eq!(f.text().text, "<h1>zipped ✓</h1>");
}

#[tokio::test]
async fn redirects_are_followed_up_to_ten() {
    let s = Server::start().await;
    let f = get(&s, "/redirect/10")
        .await
        .expect("10 redirects are fine");
    assert_eq!(f.final_url.path(), "/redirect/0");
    assert_eq!(f.body, b"done");

    let err = get(&s, "/redirect/11")
        .await
        .expect_err("11 redirects are too many");
    assert!(
        matches!(err, FetchError::TooManyRedirects { limit: 10, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("redirected more than 10 times"),
        "{err}"
    );
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let s = Server::start().await;
    let small = FetchOptions {
        max_bytes: 1 << 20,
        ..opts()
    };

    // Declared length over the limit: refused before reading the body.
    let err = fetch(&s.url("/big"), &small)
        .await
        .expect_err("2 MB > 1 MB");
    assert!(
        matches!(
            err,
            FetchError::TooLarge {
                limit: 1_048_576,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "response from {} is larger than the 1 MB limit; pass --max-bytes to raise it",
            s.url("/big")
        )
    );
    // Within the default limit it is fine.
    assert_eq!(
        get(&s, "/big").await.expect("2 MB < 20 MB").body.len(),
        2 << 20
    );

    // No length: stopped while streaming, long before the server's 64 MB are sent.
    let err = fetch(&s.url("/endless"), &small)
        .await
        .expect_err("endless body");
    assert!(matches!(err, FetchError::TooLarge { .. }), "{err:?}");
    assert!(s.streamed.load(Ordering::Relaxed) < 32 << 20);

    // A gzip bomb: 8 KB on the wire, 8 MB decoded.
    let err = fetch(&s.url("/gzip-bomb"), &small)
        .await
        .expect_err("gzip bomb");
    assert!(matches!(err, FetchError::TooLarge { .. }), "{err:?}");
}

#[tokio::test]
async fn connection_refused_is_a_clear_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let err = fetch(&format!("http://{addr}/"), &opts())
        .await
        .expect_err("nobody listens");
    assert!(matches!(err, FetchError::Connect { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("could not connect to {addr}")),
        "{msg}"
    );
    assert!(
        msg.contains(": tcp connect error: Connection refused"),
        "{msg}"
    );
}

#[tokio::test]
async fn slow_servers_time_out() {
    let s = Server::start().await;
    let quick = FetchOptions {
        timeout: Duration::from_millis(300),
        ..opts()
    };
    let err = fetch(&s.url("/slow"), &quick)
        .await
        .expect_err("server waits 5 s");
    assert!(matches!(err, FetchError::Timeout { .. }), "{err:?}");
    assert!(
        err.to_string().contains("did not answer within 0.3 s"),
        "{err}"
    );
}

#[tokio::test]
async fn error_statuses_carry_a_preview() {
    let s = Server::start().await;
    let err = get(&s, "/missing").await.expect_err("404");
    assert_eq!(err.status(), Some(404));
    assert_eq!(
        err.to_string(),
        format!(
            "HTTP 404 from {}: 404 Not Found No such page",
            s.url("/missing")
        )
    );
    let lenient = FetchOptions {
        accept_error_status: true,
        ..opts()
    };
    let f = fetch(&s.url("/missing"), &lenient).await.expect("accepted");
    assert_eq!(f.status, 404);
    assert!(f.text().text.contains("No such page"));
}

#[tokio::test]
async fn sends_the_webfold_user_agent() {
    let s = Server::start().await;
    let f = get(&s, "/ua").await.expect("fetch /ua");
    let ua = String::from_utf8(f.body).expect("utf-8");
    assert_eq!(ua, webfold_fetch::USER_AGENT);
    assert!(ua.starts_with("webfold/"), "{ua}");
}

#[tokio::test]
async fn other_schemes_are_refused() {
    for url in [
        "ftp://127.0.0.1/x",
        "file:///etc/hostname",
        "data:text/plain,hi",
    ] {
        let err = fetch(url, &opts()).await.expect_err(url);
        assert!(
            matches!(err, FetchError::UnsupportedScheme { .. }),
            "{url}: {err:?}"
        );
    }
    let err = fetch("no scheme here", &opts())
        .await
        .expect_err("relative");
    assert!(matches!(err, FetchError::InvalidUrl { .. }));
}
