//! Soak: mixed load on the bridge API and MCP over streamable HTTP for a
//! given time, printing memory and file descriptors as it goes.
//!
//! `webfold-bench soak --seconds N [--interval S] [--clients K] [--json]`
//!
//! The server is the real one (`webfold_server::app` on a loopback listener,
//! a SQLite store in a temporary folder), run in this process, so the RSS and
//! open file descriptors reported are this process's: the server plus its
//! few client threads, whose own memory stays constant (one connection and
//! one response each). Each client loops over rounds on corpus pages:
//!
//! - bridge: create a conversation, outline, chunk, Markdown, snapshot,
//!   refresh with another page, snapshot diff, CNT, show, delete;
//! - MCP: a session (initialize), page tools on a conversation and on inline
//!   HTML, a named snapshot session with a diff, then the session closed
//!   (`DELETE /mcp`) and the conversation deleted.
//!
//! Every conversation is deleted in the round that made it, so the database
//! stays small; the folder is removed at the end. Every `interval` seconds a
//! line gives elapsed time, requests, errors, RSS (`VmRSS`) and open fds;
//! the verdict compares the last third of the samples with the middle third.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// Growth from the middle third to the last third still called flat.
const FLAT_RSS_PERCENT: f64 = 10.0;
/// Open fds move with the connections in flight: a few more are noise.
const FLAT_FDS_SLACK: f64 = 8.0;
/// Pages larger than this are left out: a round should take milliseconds.
const MAX_PAGE_BYTES: usize = 400 * 1024;
/// First errors kept to print at the end.
const KEEP_ERRORS: usize = 8;

struct Opts {
    seconds: f64,
    interval: f64,
    clients: usize,
    json: bool,
}

fn parse(args: &[String]) -> anyhow::Result<Opts> {
    let mut o = Opts {
        seconds: 60.0,
        interval: 10.0,
        clients: 4,
        json: false,
    };
    let mut it = args.iter();
    let number = |v: Option<&String>, name: &str| -> anyhow::Result<f64> {
        let v = v.with_context(|| format!("{name} needs a number"))?;
        let n: f64 = v
            .parse()
            .with_context(|| format!("{name} takes a number of seconds, got '{v}'"))?;
        anyhow::ensure!(n > 0.0 && n.is_finite(), "{name} must be above 0, got {v}");
        Ok(n)
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => o.seconds = number(it.next(), "--seconds")?,
            "--interval" => o.interval = number(it.next(), "--interval")?,
            "--clients" => {
                o.clients = it
                    .next()
                    .context("--clients needs a number")?
                    .parse()
                    .context("--clients takes a whole number")?;
                anyhow::ensure!((1..=64).contains(&o.clients), "--clients takes 1 to 64");
            }
            "--json" => o.json = true,
            other => {
                bail!("unknown option {other}; use --seconds N, --interval S, --clients K, --json")
            }
        }
    }
    Ok(o)
}

/// One reading of the process.
#[derive(Clone, Copy)]
struct Sample {
    elapsed: f64,
    requests: u64,
    errors: u64,
    rss_kb: u64,
    fds: u64,
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

fn open_fds() -> u64 {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| d.count() as u64)
        .unwrap_or(0)
}

/// What the clients count, shared.
#[derive(Default)]
struct Tally {
    requests: AtomicU64,
    errors: AtomicU64,
    first_errors: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl Tally {
    fn error(&self, what: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut kept = self.first_errors.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < KEEP_ERRORS {
            kept.push(what);
        }
    }
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let opts = parse(args)?;
    let pages: Vec<(String, Option<String>)> = webfold_corpus::sample(7)
        .into_iter()
        .filter(|p| (p.bytes as usize) <= MAX_PAGE_BYTES)
        .map(|p| (p.html(), p.url.clone()))
        .collect();
    anyhow::ensure!(pages.len() >= 2, "the corpus sample has too few pages");
    let pages = Arc::new(pages);

    let dir = std::env::temp_dir().join(format!("webfold-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = run(&opts, pages, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run(
    opts: &Opts,
    pages: Arc<Vec<(String, Option<String>)>>,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let db = webfold_store::Database::Sqlite(dir.join("soak.db"));
    let (addr, stop_server, server) = runtime.block_on(async {
        let store = webfold_store::open(&db).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let conversations = Arc::new(webfold_server::service::Conversations::new(
            store,
            128 * 1024 * 1024,
            webfold_server::service::Freshness::Exclusive,
        ));
        let tools = webfold_server::mcp::ToolContext {
            conversations: Some(conversations.clone()),
            ..Default::default()
        };
        let policy = webfold_server::security::Policy::loopback(port);
        let app = webfold_server::app(conversations, tools, policy);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(webfold_server::serve_until(listener, app, async move {
            let _ = rx.await;
        }));
        anyhow::Ok((SocketAddr::from(([127, 0, 0, 1], port)), tx, server))
    })?;

    let tally = Arc::new(Tally::default());
    let clients: Vec<_> = (0..opts.clients)
        .map(|n| {
            let (tally, pages) = (tally.clone(), pages.clone());
            std::thread::spawn(move || client(n, addr, &pages, &tally))
        })
        .collect();

    let start = Instant::now();
    let sample = |tally: &Tally| Sample {
        elapsed: start.elapsed().as_secs_f64(),
        requests: tally.requests.load(Ordering::Relaxed),
        errors: tally.errors.load(Ordering::Relaxed),
        rss_kb: rss_kb(),
        fds: open_fds(),
    };
    let mut samples = vec![sample(&tally)];
    print_sample(&samples[0], opts.json);
    let end = start + Duration::from_secs_f64(opts.seconds);
    let mut next = start;
    loop {
        next += Duration::from_secs_f64(opts.interval);
        if next >= end {
            break;
        }
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        let s = sample(&tally);
        print_sample(&s, opts.json);
        samples.push(s);
    }
    std::thread::sleep(end.saturating_duration_since(Instant::now()));
    tally.stop.store(true, Ordering::Relaxed);
    for c in clients {
        let _ = c.join();
    }
    // The final reading, once every client has finished its round.
    let last = sample(&tally);
    print_sample(&last, opts.json);
    samples.push(last);
    let _ = stop_server.send(());
    let _ = runtime.block_on(server);
    let errors = tally
        .first_errors
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    verdict(&samples, &errors, opts);
    Ok(())
}

fn print_sample(s: &Sample, json: bool) {
    if json {
        println!(
            "{}",
            json!({"elapsed_s": (s.elapsed * 10.0).round() / 10.0, "requests": s.requests, "errors": s.errors, "rss_kb": s.rss_kb, "fds": s.fds})
        );
    } else {
        println!(
            "{:>8.1} s  {:>10} requests  {:>6} errors  RSS {:>8.1} MB  {:>4} fds",
            s.elapsed,
            s.requests,
            s.errors,
            s.rss_kb as f64 / 1024.0,
            s.fds
        );
    }
}

fn mean(xs: &[Sample], f: impl Fn(&Sample) -> u64) -> f64 {
    xs.iter().map(|s| f(s) as f64).sum::<f64>() / xs.len().max(1) as f64
}

/// The last third of the samples against the middle third.
fn verdict(samples: &[Sample], errors: &[String], opts: &Opts) {
    let n = samples.len();
    let (middle, last) = (&samples[n / 3..2 * n / 3], &samples[2 * n / 3..]);
    let done = samples[n - 1];
    let (rss_mid, rss_last) = (mean(middle, |s| s.rss_kb), mean(last, |s| s.rss_kb));
    let (fds_mid, fds_last) = (mean(middle, |s| s.fds), mean(last, |s| s.fds));
    let growth = |a: f64, b: f64| if a > 0.0 { (b - a) / a * 100.0 } else { 0.0 };
    let (rss_growth, fds_growth) = (growth(rss_mid, rss_last), growth(fds_mid, fds_last));
    let flat = !middle.is_empty()
        && rss_growth <= FLAT_RSS_PERCENT
        && fds_last <= fds_mid + FLAT_FDS_SLACK.max(fds_mid * 0.1);
    let rate = done.requests as f64 / done.elapsed.max(1e-9);
    if opts.json {
        println!(
            "{}",
            json!({
                "seconds": (done.elapsed * 10.0).round() / 10.0,
                "clients": opts.clients,
                "requests": done.requests,
                "errors": done.errors,
                "requests_per_s": (rate * 10.0).round() / 10.0,
                "rss_mb_middle": (rss_mid / 102.4).round() / 10.0,
                "rss_mb_last": (rss_last / 102.4).round() / 10.0,
                "rss_growth_percent": (rss_growth * 10.0).round() / 10.0,
                "fds_middle": (fds_mid * 10.0).round() / 10.0,
                "fds_last": (fds_last * 10.0).round() / 10.0,
                "fds_growth_percent": (fds_growth * 10.0).round() / 10.0,
                "flat": flat,
                "first_errors": errors,
            })
        );
        return;
    }
    println!(
        "{} requests in {:.0} s ({rate:.1}/s) from {} clients, {} errors",
        done.requests, done.elapsed, opts.clients, done.errors
    );
    println!(
        "last third vs middle third: RSS {:.1} → {:.1} MB ({rss_growth:+.1}%), fds {fds_mid:.1} → {fds_last:.1} ({fds_growth:+.1}%): {}",
        rss_mid / 1024.0,
        rss_last / 1024.0,
        if flat {
            "flat"
        } else if middle.is_empty() {
            "too few samples to tell (run longer than three intervals)"
        } else {
            "GROWING"
        }
    );
    for e in errors {
        println!("error: {e}");
    }
}

/// One client: rounds of bridge and MCP calls until told to stop.
fn client(n: usize, addr: SocketAddr, pages: &[(String, Option<String>)], tally: &Tally) {
    let mut http = Http::new(addr);
    let mut round = n;
    while !tally.stop.load(Ordering::Relaxed) {
        let a = &pages[round % pages.len()];
        let b = &pages[(round * 7 + 3) % pages.len()];
        let step = |r: anyhow::Result<()>| {
            if let Err(e) = r {
                tally.error(format!("{e:#}"));
            }
        };
        if round.is_multiple_of(2) {
            step(bridge_round(&mut http, tally, a, b));
        } else {
            step(mcp_round(&mut http, tally, n, round, a, b));
        }
        round += 1;
    }
}

type PageRef<'a> = &'a (String, Option<String>);

fn bridge_round(http: &mut Http, tally: &Tally, a: PageRef, b: PageRef) -> anyhow::Result<()> {
    let id = create(http, tally, a)?;
    let result = bridge_views(http, tally, &id, b);
    let deleted = http.json(tally, "DELETE", &format!("/conversations/{id}"), &[], None);
    result.and(deleted.map(|_| ()))
}

fn bridge_views(http: &mut Http, tally: &Tally, id: &str, b: PageRef) -> anyhow::Result<()> {
    let base = format!("/conversations/{id}");
    for view in [
        "outline?max_tokens=2000",
        "chunk?selector=body&max_tokens=1000",
        "markdown?max_tokens=2000",
        "snapshot",
    ] {
        http.json(tally, "GET", &format!("{base}/{view}"), &[], None)?;
    }
    let body = json!({"html": b.0, "url": b.1});
    http.json(tally, "POST", &format!("{base}/refresh"), &[], Some(&body))?;
    for view in ["snapshot?diff=true", "cnt?max_tokens=2000"] {
        http.json(tally, "GET", &format!("{base}/{view}"), &[], None)?;
    }
    http.json(tally, "GET", &base, &[], None)?;
    Ok(())
}

fn create(http: &mut Http, tally: &Tally, page: PageRef) -> anyhow::Result<String> {
    let body = json!({"html": page.0, "url": page.1, "session_id": "soak"});
    let r = http.json(tally, "POST", "/conversations", &[], Some(&body))?;
    r["conversationId"]
        .as_str()
        .map(str::to_string)
        .with_context(|| format!("POST /conversations answered no conversationId: {r}"))
}

fn mcp_round(
    http: &mut Http,
    tally: &Tally,
    client: usize,
    round: usize,
    a: PageRef,
    b: PageRef,
) -> anyhow::Result<()> {
    let id = create(http, tally, a)?;
    let result = match Mcp::open(http, tally) {
        Ok(mut m) => {
            let session = format!("soak-{client}-{round}");
            let calls = mcp_calls(&mut m, http, tally, &id, &session, a, b);
            calls.and(m.close(http, tally))
        }
        Err(e) => Err(e),
    };
    let deleted = http.json(tally, "DELETE", &format!("/conversations/{id}"), &[], None);
    result.and(deleted.map(|_| ()))
}

fn mcp_calls(
    m: &mut Mcp,
    http: &mut Http,
    tally: &Tally,
    id: &str,
    session: &str,
    a: PageRef,
    b: PageRef,
) -> anyhow::Result<()> {
    let on_conversation = [
        (
            "get_dom_outline",
            json!({"conversation_id": id, "max_tokens": 2000}),
        ),
        (
            "get_html_chunk",
            json!({"conversation_id": id, "selector": "body", "max_tokens": 1000}),
        ),
        (
            "cnt_view",
            json!({"conversation_id": id, "max_tokens": 2000}),
        ),
    ];
    for (tool, args) in on_conversation {
        m.call(http, tally, tool, args)?;
    }
    // A named session: the second snapshot answers with a diff.
    m.call(
        http,
        tally,
        "page_snapshot",
        json!({"html": a.0, "session_id": session}),
    )?;
    let diff = json!({"html": b.0, "session_id": session, "diff": true});
    m.call(http, tally, "page_snapshot", diff)?;
    Ok(())
}

/// An MCP session over streamable HTTP.
struct Mcp {
    session: String,
    next: u64,
}

const MCP_VERSION: &str = "2025-06-18";

impl Mcp {
    fn open(http: &mut Http, tally: &Tally) -> anyhow::Result<Mcp> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": MCP_VERSION, "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}});
        let r = http.send("POST", "/mcp", &Mcp::headers(None), Some(&init))?;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        anyhow::ensure!(r.status == 200, "MCP initialize: HTTP {}", r.status);
        let session = r
            .header("mcp-session-id")
            .context("MCP initialize answered no mcp-session-id")?
            .to_string();
        Mcp::reply(&r.body, 0)?;
        let mcp = Mcp { session, next: 1 };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = http.send("POST", "/mcp", &mcp.own_headers(), Some(&note))?;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        anyhow::ensure!(r.status / 100 == 2, "MCP initialized: HTTP {}", r.status);
        Ok(mcp)
    }

    fn headers(session: Option<&str>) -> Vec<(&'static str, String)> {
        let mut h = vec![
            ("accept", "application/json, text/event-stream".to_string()),
            ("mcp-protocol-version", MCP_VERSION.to_string()),
        ];
        if let Some(s) = session {
            h.push(("mcp-session-id", s.to_string()));
        }
        h
    }

    fn own_headers(&self) -> Vec<(&'static str, String)> {
        Mcp::headers(Some(&self.session))
    }

    /// The JSON-RPC message with `id` in a JSON or SSE body.
    fn reply(body: &[u8], id: u64) -> anyhow::Result<Value> {
        let text = String::from_utf8_lossy(body);
        let found = if text.trim_start().starts_with('{') {
            serde_json::from_str::<Value>(&text).ok()
        } else {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .find(|m| m["id"] == json!(id))
        };
        found
            .filter(|m| m["id"] == json!(id))
            .with_context(|| format!("no JSON-RPC reply with id {id} in: {}", clip(&text)))
    }

    fn call(
        &mut self,
        http: &mut Http,
        tally: &Tally,
        tool: &str,
        args: Value,
    ) -> anyhow::Result<Value> {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        let r = http.send("POST", "/mcp", &self.own_headers(), Some(&msg))?;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        anyhow::ensure!(
            r.status == 200,
            "{tool}: HTTP {}: {}",
            r.status,
            clip(&String::from_utf8_lossy(&r.body))
        );
        let reply = Mcp::reply(&r.body, id)?;
        let result = &reply["result"];
        anyhow::ensure!(
            reply.get("error").is_none() && result["isError"] == json!(false),
            "{tool}: {}",
            clip(&reply.to_string())
        );
        Ok(result.clone())
    }

    /// Ends the session as a client does on exit.
    fn close(&self, http: &mut Http, tally: &Tally) -> anyhow::Result<()> {
        let r = http.send("DELETE", "/mcp", &self.own_headers(), None)?;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        anyhow::ensure!(r.status / 100 == 2, "DELETE /mcp: HTTP {}", r.status);
        Ok(())
    }
}

fn clip(s: &str) -> String {
    let mut end = s.len().min(300);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// A response: status, headers (names lower-cased), body.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A minimal HTTP/1.1 client on one keep-alive connection (reopened when
/// the server closes it): enough for the bridge's JSON and MCP's SSE.
struct Http {
    addr: SocketAddr,
    conn: Option<BufReader<TcpStream>>,
}

impl Http {
    fn new(addr: SocketAddr) -> Http {
        Http { addr, conn: None }
    }

    /// A request whose 2xx answer is JSON; anything else is an error.
    fn json(
        &mut self,
        tally: &Tally,
        method: &str,
        path: &str,
        headers: &[(&str, String)],
        body: Option<&Value>,
    ) -> anyhow::Result<Value> {
        let r = self.send(method, path, headers, body)?;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        let text = String::from_utf8_lossy(&r.body);
        anyhow::ensure!(
            r.status / 100 == 2,
            "{method} {}: HTTP {}: {}",
            path.split('?').next().unwrap_or(path),
            r.status,
            clip(&text)
        );
        serde_json::from_str(&text)
            .with_context(|| format!("{method} {path}: not JSON: {}", clip(&text)))
    }

    fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, String)],
        body: Option<&Value>,
    ) -> anyhow::Result<Response> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        if !body.is_empty() {
            head.push_str("content-type: application/json\r\n");
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        // A kept connection the server has since closed fails at once: retry
        // once on a new one.
        let reused = self.conn.is_some();
        match self.exchange(&head, &body) {
            Ok(r) => Ok(r),
            Err(_) if reused => {
                self.conn = None;
                self.exchange(&head, &body)
            }
            Err(e) => Err(e),
        }
        .with_context(|| format!("{method} {}", path.split('?').next().unwrap_or(path)))
    }

    fn exchange(&mut self, head: &str, body: &str) -> anyhow::Result<Response> {
        if self.conn.is_none() {
            let s = TcpStream::connect(self.addr)?;
            s.set_read_timeout(Some(Duration::from_secs(120)))?;
            s.set_nodelay(true)?;
            self.conn = Some(BufReader::new(s));
        }
        let result = self.exchange_on_conn(head, body);
        match &result {
            Ok((_, true)) | Err(_) => self.conn = None,
            Ok((_, false)) => {}
        }
        result.map(|(r, _)| r)
    }

    /// The response, and whether the connection must be closed after it.
    fn exchange_on_conn(&mut self, head: &str, body: &str) -> anyhow::Result<(Response, bool)> {
        let conn = self.conn.as_mut().context("no connection")?;
        conn.get_mut().write_all(head.as_bytes())?;
        conn.get_mut().write_all(body.as_bytes())?;
        let mut line = String::new();
        anyhow::ensure!(
            conn.read_line(&mut line)? > 0,
            "the server closed the connection"
        );
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("bad status line {line:?}"))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            anyhow::ensure!(
                conn.read_line(&mut line)? > 0,
                "the response ended in its head"
            );
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let get = |n: &str| {
            headers
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, v)| v.to_ascii_lowercase())
        };
        let close = get("connection").is_some_and(|c| c.contains("close"));
        let mut out = Vec::new();
        if get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            loop {
                line.clear();
                conn.read_line(&mut line)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .with_context(|| format!("bad chunk size {line:?}"))?;
                if size == 0 {
                    // Trailers, then the empty line.
                    loop {
                        line.clear();
                        if conn.read_line(&mut line)? == 0 || line.trim().is_empty() {
                            break;
                        }
                    }
                    break;
                }
                let at = out.len();
                out.resize(at + size, 0);
                conn.read_exact(&mut out[at..])?;
                line.clear();
                conn.read_line(&mut line)?;
            }
        } else if let Some(n) = get("content-length") {
            let n: usize = n.parse().context("bad content-length")?;
            out.resize(n, 0);
            conn.read_exact(&mut out)?;
        } else {
            conn.read_to_end(&mut out)?;
            return Ok((
                Response {
                    status,
                    headers,
                    body: out,
                },
                true,
            ));
        }
        Ok((
            Response {
                status,
                headers,
                body: out,
            },
            close,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(rss_kb: u64, fds: u64) -> Sample {
        Sample {
            elapsed: 0.0,
            requests: 0,
            errors: 0,
            rss_kb,
            fds,
        }
    }

    #[test]
    fn options_are_read_and_checked() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = parse(&args(&["--seconds", "2", "--interval", "0.5", "--json"])).unwrap();
        assert_eq!((o.seconds, o.interval, o.json), (2.0, 0.5, true));
        for bad in [&["--seconds", "0"][..], &["--interval", "x"], &["--nope"]] {
            assert!(parse(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn means_of_thirds() {
        let xs = [s(100, 10), s(200, 20), s(300, 30)];
        assert_eq!(mean(&xs[1..2], |s| s.rss_kb), 200.0);
        assert_eq!(mean(&xs, |s| s.fds), 20.0);
        assert_eq!(mean(&[], |s| s.fds), 0.0);
    }
}
