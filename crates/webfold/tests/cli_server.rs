//! `webfold serve` and `webfold get-chunk` as real processes on loopback:
//! persistence across `kill -9`, the CLI client's contract, bind rules.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use webfold_testkit::pg::PgCluster;
use webfold_testkit::{free_port, scratch_dir};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

fn scratch(name: &str) -> PathBuf {
    scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-server"),
        name,
    )
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(db: &Path, extra: &[&str]) -> Server {
        let mut serve = Command::new(BIN);
        serve
            .args(["serve", "--port", "0", "--json", "--db"])
            .arg(db)
            .args(extra);
        Server::spawn(serve)
    }

    /// Runs a command that starts `webfold serve --json` and waits for its
    /// address line.
    fn spawn(mut serve: Command) -> Server {
        let mut child = serve
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            panic!("serve did not start ({e}): stdout {line:?}, stderr {err}")
        });
        let port = info["port"].as_u64().unwrap() as u16;
        assert_eq!(info["url"], format!("http://127.0.0.1:{port}"));
        Server { child, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// SIGKILL: no shutdown code runs.
    fn kill_9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    headers: String,
    body: Value,
}

/// A minimal HTTP/1.1 client: one request per connection.
fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if body.is_some() {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            payload.len()
        ));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(payload.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Reply {
        status,
        headers: head.to_ascii_lowercase(),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    }
}

fn page(n: usize, v: usize) -> String {
    format!(
        "<main><section id=\"s{n}\" data-v=\"{v}\"><h1>page {n} version {v}</h1></section></main>"
    )
}

#[test]
fn nothing_acknowledged_is_lost_on_kill_9() {
    let dir = scratch("kill9");
    let db = dir.join("webfold.db");
    let server = Server::start(&db, &[]);
    let mut acked: Vec<(String, usize, usize)> = Vec::new();
    for n in 0..12 {
        let r = http(
            server.port,
            "POST",
            "/conversations",
            &[],
            Some(&json!({"html": page(n, 1), "session_id": "session-kill9"})),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let id = r.body["conversationId"].as_str().unwrap().to_string();
        let mut v = 1;
        for _ in 0..(n % 3) {
            v += 1;
            let r = http(
                server.port,
                "POST",
                &format!("/conversations/{id}/refresh"),
                &[],
                Some(&json!({"html": page(n, v)})),
            );
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(r.body["version"], v);
        }
        acked.push((id, n, v));
    }
    let deleted = acked.remove(0);
    let r = http(
        server.port,
        "DELETE",
        &format!("/conversations/{}", deleted.0),
        &[],
        None,
    );
    assert_eq!(r.status, 200);
    server.kill_9();

    let server = Server::start(&db, &[]);
    for (id, n, v) in &acked {
        let r = http(
            server.port,
            "GET",
            &format!("/conversations/{id}/chunk?selector=%23s{n}"),
            &[],
            None,
        );
        assert_eq!(r.status, 200, "{id}: {}", r.body);
        assert_eq!(
            r.body["html"],
            format!("<section id=\"s{n}\" data-v=\"{v}\"><h1>page {n} version {v}</h1></section>")
        );
        if *v > 1 {
            let r = http(
                server.port,
                "GET",
                &format!("/conversations/{id}/chunk?selector=h1&version={}", v - 1),
                &[],
                None,
            );
            assert_eq!(
                r.body["html"],
                format!("<h1>page {n} version {}</h1>", v - 1),
                "previous version kept"
            );
        }
    }
    let r = http(
        server.port,
        "GET",
        &format!("/conversations/{}/chunk?selector=h1", deleted.0),
        &[],
        None,
    );
    assert_eq!(r.status, 404, "a delete survives the kill too");
    let r = http(server.port, "GET", "/conversations?limit=100", &[], None);
    assert_eq!(
        r.body["conversations"].as_array().unwrap().len(),
        acked.len()
    );
}

fn get_chunk(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("get-chunk")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn get_chunk_prints_html_or_error_and_exit_code() {
    let dir = scratch("getchunk");
    let server = Server::start(&dir.join("webfold.db"), &[]);
    let html = r#"<main><section class="hero"><h1>Welcome</h1><button class="cta-btn">Go</button></section></main>"#;
    let id = create(server.port, html);
    let url = server.url();

    let (code, out, err) = get_chunk(&[
        "--conversation-id",
        &id,
        "--selector",
        "section.hero",
        "--bridge-url",
        &url,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "<section class=\"hero\"><h1>Welcome</h1><button class=\"cta-btn\">Go</button></section>\n"
    );
    assert!(err.is_empty());

    let (code, out, _) = get_chunk(&[
        "--conversation-id",
        &id,
        "--selector",
        "button",
        "--bridge-url",
        &format!("{url}/"),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["html"], "<button class=\"cta-btn\">Go</button>");

    let (code, out, err) = get_chunk(&[
        "--conversation-id",
        &id,
        "--selector",
        "section.heroo",
        "--bridge-url",
        &url,
    ]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.starts_with("error: Element not found"), "{err}");
    assert!(
        err.contains("section.hero"),
        "suggests the right selector: {err}"
    );

    let (code, _, err) = get_chunk(&[
        "--conversation-id",
        "0123456789abcdef0123456789abcdef",
        "--selector",
        "p",
        "--bridge-url",
        &url,
    ]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: Conversation not found"), "{err}");

    let (code, _, err) = get_chunk(&[
        "--conversation-id",
        &id,
        "--selector",
        "p[",
        "--bridge-url",
        &url,
    ]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: Invalid selector"), "{err}");

    // Nothing listens on port 1.
    let (code, _, err) = get_chunk(&[
        "--conversation-id",
        &id,
        "--selector",
        "p",
        "--bridge-url",
        "http://127.0.0.1:1",
    ]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: cannot reach the bridge"), "{err}");

    // Usage errors are clap's: exit code 2.
    let (code, _, err) = get_chunk(&["--conversation-id", &id]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn binding_beyond_loopback_needs_a_token() {
    let dir = scratch("bind");
    let out = Command::new(BIN)
        .args(["serve", "--host", "0.0.0.0", "--port", "0", "--db"])
        .arg(dir.join("webfold.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--token-file"), "{err}");

    // With a token file: a loud warning, the file is created private, and
    // requests without the token get 401.
    let token_file = dir.join("token");
    let mut child = Command::new(BIN)
        .args([
            "serve", "--host", "0.0.0.0", "--port", "0", "--json", "--db",
        ])
        .arg(dir.join("webfold.db"))
        .arg("--token-file")
        .arg(&token_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: Value = serde_json::from_str(&line).unwrap();
    let port = info["port"].as_u64().unwrap() as u16;
    let token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let r = http(port, "GET", "/health", &[], None);
    assert_eq!(r.status, 401);
    assert!(!r.headers.contains("access-control-"));
    let auth = format!("Bearer {token}");
    let r = http(port, "GET", "/health", &[("Authorization", &auth)], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let _ = child.kill();
    let _ = child.wait();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("warning:"), "{err}");
    assert!(!err.contains(&token), "the token is never logged");

    // The CLI client sends it too.
    let (code, _, err) = get_chunk(&[
        "--conversation-id",
        "0123456789abcdef0123456789abcdef",
        "--selector",
        "p",
        "--bridge-url",
        "http://127.0.0.1:1",
        "--token-file",
        token_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot reach"), "{err}");
}

/// The default bind is 127.0.0.1 only (read from the kernel's socket table).
#[cfg(target_os = "linux")]
#[test]
fn default_bind_is_loopback_only() {
    let dir = scratch("loopback");
    let server = Server::start(&dir.join("webfold.db"), &[]);
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap()
        + &std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    let port_hex = format!(":{:04X}", server.port);
    let listening: Vec<&str> = table
        .lines()
        .filter(|l| l.split_whitespace().nth(3) == Some("0A"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|local| local.ends_with(&port_hex))
        .collect();
    assert_eq!(
        listening,
        vec![format!("0100007F{port_hex}").as_str()],
        "only 127.0.0.1 listens"
    );
}

/// `--db postgres://…` opens PostgreSQL, never a path: with no server there,
/// exit 1 with advice, and nothing is created (not a `postgres:` directory in
/// the working directory, as a path would make). Other URLs are refused.
#[test]
fn database_urls_are_never_paths_for_serve_and_mcp() {
    let dir = scratch("db-url");
    // A port nothing listens on.
    let port = free_port();
    let pg_secret = format!("postgres://webfold:secret@127.0.0.1:{port}/webfold");
    let pg_plain = format!("postgresql://127.0.0.1:{port}/webfold");
    for args in [&["serve", "--port", "0", "--db"][..], &["mcp", "--db"][..]] {
        for (url, says) in [
            (
                pg_secret.as_str(),
                format!("error: cannot reach PostgreSQL at postgres://webfold:***@127.0.0.1:{port}/webfold: "),
            ),
            (
                pg_plain.as_str(),
                format!("error: cannot reach PostgreSQL at {pg_plain}: "),
            ),
            (
                "sqlite:webfold.db",
                "error: the database must be a file path such as ./webfold.db or a postgres:// URL, not 'sqlite:webfold.db'".to_string(),
            ),
        ] {
            let out = Command::new(BIN)
                .args(args)
                .arg(url)
                .current_dir(&dir)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?} {url}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert!(err.starts_with(&says), "{err}");
            if url.starts_with("postgres") {
                assert!(err.contains("is it running?"), "{err}");
                assert!(!err.contains("secret"), "{err}");
            }
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "nothing created: {left:?}");
}

/// A file in a directory that does not exist is refused with the directory
/// named, before anything is created; only the default database's directory
/// is ours to create. A token file likewise.
#[test]
fn missing_directories_are_named_not_created() {
    let dir = scratch("missing-dir");
    let missing = dir.join("no").join("such");
    let db = missing.join("x.db");
    let run = |args: &[&str], extra: &Path| {
        let out = Command::new(BIN)
            .args(args)
            .arg(extra)
            .env("XDG_DATA_HOME", dir.join("data"))
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let no_dir = format!(
        "the directory {} does not exist; create it first",
        missing.display()
    );
    for args in [&["serve", "--port", "0", "--db"][..], &["mcp", "--db"]] {
        let (code, err) = run(args, &db);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!(
                "error: cannot open the database at {}: {no_dir}",
                db.display()
            )),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let token = missing.join("tok");
    let (code, err) = run(
        &["serve", "--port", "0", "--db", "x.db", "--token-file"],
        &token,
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: cannot create token file {}: {no_dir}",
            token.display()
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // The bridge's client reads the token: its errors read like every other.
    let (code, err) = run(
        &[
            "get-chunk",
            "--conversation-id",
            "0123456789abcdef0123456789abcdef",
            "--selector",
            "p",
            "--token-file",
        ],
        &token,
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: cannot read token file {}",
            token.display()
        )),
        "{err}"
    );
    assert!(!dir.join("no").exists(), "nothing was created");
    // The default database's directory is created (with stdin closed, mcp
    // opens its database and ends at the missing handshake).
    let out = Command::new(BIN)
        .args(["mcp", "--tools", "page"])
        .env("XDG_DATA_HOME", dir.join("data"))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("conversations disabled"), "{err}");
    assert!(dir.join("data/webfold/webfold.db").exists());
}

/// Reads what the server sends until it closes (or `limit` passes); the
/// time it took.
fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (String, Duration) {
    let started = std::time::Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the server kept the connection open past {limit:?}: {e}"),
        }
    }
    (
        String::from_utf8_lossy(&got).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn slow_clients_are_cut_off_by_timeouts() {
    let server = Server::start(&scratch("slow").join("db"), &[]);
    let limit = webfold_server::listen::HEADER_TIMEOUT + Duration::from_secs(5);
    // A head that never ends (slowloris).
    let mut head = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        head,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Slow: 1\r\n",
        server.port
    )
    .unwrap();
    // A body that stops halfway.
    let mut body = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        body,
        "POST /conversations HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"html\": \"<p>",
        server.port
    )
    .unwrap();
    let (_, took) = read_until_closed(&mut head, limit);
    assert!(
        took >= webfold_server::listen::HEADER_TIMEOUT - Duration::from_secs(1),
        "{took:?}"
    );
    let (reply, _) = read_until_closed(&mut body, limit);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    let json: Value = serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert!(
        json["detail"].as_str().unwrap().contains("sent nothing"),
        "{json}"
    );
    // Both cost the server nothing lasting: it still answers.
    assert_eq!(http(server.port, "GET", "/health", &[], None).status, 200);
}

#[test]
fn connections_past_the_limit_are_refused_with_a_503() {
    let server = Server::start(&scratch("many").join("db"), &[]);
    let max = webfold_server::listen::MAX_CONNECTIONS;
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..10_000 {
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        if open.len() < max {
            open.push(s);
            continue;
        }
        let (reply, _) = read_until_closed(&mut s, Duration::from_secs(10));
        assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
        assert!(reply.contains("retry shortly"), "{reply}");
        refused += 1;
    }
    assert_eq!(refused, 10_000 - max);
    // The held connections are served, and once they close others are too.
    let held = &mut open[0];
    write!(
        held,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        server.port
    )
    .unwrap();
    let (reply, _) = read_until_closed(held, Duration::from_secs(10));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(open);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while http(server.port, "GET", "/health", &[], None).status != 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "not served after the others closed"
        );
    }
}

/// Creates a conversation of `html`; its id.
fn create(port: u16, html: &str) -> String {
    let r = http(
        port,
        "POST",
        "/conversations",
        &[],
        Some(&json!({"html": html})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["conversationId"].as_str().unwrap().to_string()
}

/// A conversation's chunk for `selector` (URL-encoded) holds `text`.
fn assert_chunk_has(port: u16, id: &str, selector: &str, text: &str) {
    let path = format!("/conversations/{id}/chunk?selector={selector}");
    let r = http(port, "GET", &path, &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    let html = r.body["html"].as_str().unwrap_or_default();
    assert!(html.contains(text), "{text} not in {}", r.body);
}

/// The server's open file descriptors.
fn open_fds(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id()))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn clients_hanging_up_mid_answer_leave_nothing_behind() {
    let server = Server::start(&scratch("hangup").join("db"), &[]);
    let paragraphs: String = (0..20_000)
        .map(|i| format!("<p id=p{i}>paragraph {i} with a few more words</p>"))
        .collect();
    let html = format!("<html><body><main>{paragraphs}</main></body></html>");
    let id = create(server.port, &html);
    let baseline = open_fds(&server);
    for _ in 0..50 {
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        write!(
            s,
            "GET /conversations/{id}/markdown?main=false&max_lines=0&max_tokens=200000 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            server.port
        )
        .unwrap();
        let mut first = [0u8; 64];
        assert!(s.read(&mut first).unwrap() > 0);
        // Hang up with most of the answer unread.
    }
    // Every abandoned connection is let go.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while open_fds(&server) > baseline {
        assert!(
            std::time::Instant::now() < deadline,
            "{} descriptors open, {baseline} before",
            open_fds(&server)
        );
        std::thread::yield_now();
    }
    // And the whole answer still arrives for a client that reads it.
    assert_chunk_has(server.port, &id, "%23p19999", "paragraph 19999");
}

#[test]
fn a_full_disk_is_named_and_what_was_stored_stays() {
    let dir = scratch("full");
    let mnt = dir.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    // A 3 MB filesystem of the server's own, in a private mount namespace.
    let mut serve = Command::new("unshare");
    serve
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(r#"mount -t tmpfs -o size=3m tmpfs "$1" && exec "$2" serve --port 0 --json --db "$1/webfold.db""#)
        .args(["sh"])
        .arg(&mnt)
        .arg(BIN);
    let server = Server::spawn(serve);
    let filler = "<p>filler text to fill the disk</p>".repeat(1000);
    let mut stored = Vec::new();
    let full = loop {
        let n = stored.len();
        let html = format!("{}{filler}", page(n, 1));
        let r = http(
            server.port,
            "POST",
            "/conversations",
            &[],
            Some(&json!({"html": html})),
        );
        if r.status != 200 {
            break r;
        }
        stored.push((r.body["conversationId"].as_str().unwrap().to_string(), n));
        assert!(n < 500, "3 MB never filled");
    };
    assert_eq!(full.status, 507, "{}", full.body);
    assert!(
        full.body["detail"]
            .as_str()
            .unwrap()
            .contains("disk is full"),
        "{}",
        full.body
    );
    assert!(!stored.is_empty());
    // Everything acknowledged before is still there, and the server serves.
    for (id, n) in &stored {
        assert_chunk_has(server.port, id, "h1", &format!("page {n} version 1"));
    }
    assert_eq!(http(server.port, "GET", "/health", &[], None).status, 200);
}

/// Two `webfold serve` instances on one PostgreSQL database: a conversation
/// created on A is read and chunked on B, a refresh on B is what A serves
/// next (no stale cached page), and a delete on A is seen by B. While
/// PostgreSQL is down, requests answer 503 with advice; after it restarts
/// they succeed again without restarting webfold.
#[test]
fn two_instances_share_conversations_on_postgres() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let a = Server::start(Path::new(&url), &[]);
    let b = Server::start(Path::new(&url), &[]);

    let r = http(
        a.port,
        "POST",
        "/conversations",
        &[],
        Some(&json!({"html": page(1, 1), "url": "https://example.com/"})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.body["conversationId"].as_str().unwrap().to_string();
    let chunk = |server: &Server| {
        http(
            server.port,
            "GET",
            &format!("/conversations/{id}/chunk?selector=h1"),
            &[],
            None,
        )
    };
    // A reads it first, so A holds a parsed copy in its cache.
    assert_eq!(chunk(&a).body["html"], "<h1>page 1 version 1</h1>");
    let r = chunk(&b);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["html"], "<h1>page 1 version 1</h1>");

    let r = http(
        b.port,
        "POST",
        &format!("/conversations/{id}/refresh"),
        &[],
        Some(&json!({"html": page(1, 2)})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["version"], 2);
    assert_eq!(chunk(&a).body["html"], "<h1>page 1 version 2</h1>");
    let r = http(
        a.port,
        "GET",
        &format!("/conversations/{id}/chunk?selector=h1&version=1"),
        &[],
        None,
    );
    assert_eq!(r.body["html"], "<h1>page 1 version 1</h1>", "{}", r.body);

    cluster.kill();
    let r = http(b.port, "GET", "/conversations", &[], None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.body["error"], "Database unavailable");
    let detail = r.body["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("cannot reach PostgreSQL at postgres://webfold@127.0.0.1:"),
        "{detail}"
    );
    assert!(detail.contains("is it running?"), "{detail}");

    cluster.start_server();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let r = http(b.port, "GET", "/conversations", &[], None);
        if r.status == 200 {
            assert_eq!(r.body["conversations"].as_array().unwrap().len(), 1);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still {}: {}",
            r.status,
            r.body
        );
    }

    let r = http(a.port, "DELETE", &format!("/conversations/{id}"), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(chunk(&b).status, 404);
}
