//! Several `webfold serve` instances on PostgreSQL beside one on SQLite:
//! requests/s and latency percentiles of `GET …/chunk` and
//! `POST /conversations` under keep-alive load on loopback, with one SQLite
//! instance, one PostgreSQL instance, and two PostgreSQL instances sharing
//! the load (a conversation created on the first is read on both); then how
//! long a refresh committed by one store takes to be heard by another
//! (PostgreSQL's `LISTEN/NOTIFY`, what retires the other instances' cached
//! pages); last, the chat's round trips with the tab on one `webfold daemon`
//! and the agent on another sharing a database, beside one daemon alone.
//!
//! `webfold-bench instances --binary target/release/webfold [--db postgres://…]
//! [--seconds N] [--connections C] [--events N]`
//!
//! Without `--db` it starts a throwaway PostgreSQL cluster (`initdb` and
//! `pg_ctl` from `/usr/lib/postgresql/*/bin`, or `WEBFOLD_PG_BIN`) on a free
//! loopback port with a fresh database per row, and removes it afterwards.
//! With `--db` every PostgreSQL row uses that database (it keeps the
//! conversations the bench creates).

/// The test kit's throwaway cluster (initdb + pg_ctl), shared, not copied
/// (included by path: a normal build cannot depend on the dev-only kit).
#[path = "../../webfold-testkit/src/pg.rs"]
#[allow(dead_code)]
mod pg;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use webfold_daemon::home::Home;
use webfold_store::{Change, NewConversation, NewPage, PostgresOptions, PostgresStore, Store};

use crate::ui_latency;

struct Options {
    binary: PathBuf,
    db: Option<String>,
    seconds: u64,
    connections: usize,
    events: usize,
}

fn options(args: &[String]) -> anyhow::Result<Options> {
    let mut o = Options {
        binary: PathBuf::from("target/release/webfold"),
        db: None,
        seconds: 10,
        connections: 16,
        events: 500,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--binary" => o.binary = value()?.into(),
            "--db" => o.db = Some(value()?.clone()),
            "--seconds" => o.seconds = value()?.parse().context("--seconds takes a number")?,
            "--connections" => {
                o.connections = value()?.parse().context("--connections takes a number")?
            }
            "--events" => o.events = value()?.parse().context("--events takes a number")?,
            other => bail!(
                "unknown option {other}; use --binary PATH, --db postgres://…, --seconds N, --connections C, --events N"
            ),
        }
    }
    anyhow::ensure!(
        o.seconds > 0 && o.connections > 0 && o.events > 0,
        "--seconds, --connections and --events take positive numbers"
    );
    Ok(o)
}

/// A `webfold serve` process, killed on drop.
struct Instance {
    child: Child,
    port: u16,
}

impl Instance {
    fn start(binary: &Path, db: &str) -> anyhow::Result<Self> {
        let mut child = Command::new(binary)
            .args(["serve", "--port", "0", "--json", "--db", db])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| {
                format!(
                    "cannot run {}; build it with cargo build --release -p webfold",
                    binary.display()
                )
            })?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().context("no stdout")?).read_line(&mut line)?;
        let info: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("webfold serve did not start: {line:?}"))?;
        let port = info["port"]
            .as_u64()
            .context("no port in serve's address line")? as u16;
        Ok(Self { child, port })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive HTTP/1.1 connection.
struct Client {
    reader: BufReader<TcpStream>,
    port: u16,
    body: Vec<u8>,
}

impl Client {
    fn connect(port: u16) -> std::io::Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        Ok(Self {
            reader: BufReader::new(stream),
            port,
            body: Vec::new(),
        })
    }

    /// Sends one request and reads the whole answer; returns its status.
    fn send(&mut self, method: &str, path: &str, body: &[u8]) -> anyhow::Result<u16> {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.port,
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("not an HTTP status line: {line:?}"))?;
        let mut length = None;
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let length = length.context("an answer without Content-Length")?;
        self.body.resize(length, 0);
        self.reader.read_exact(&mut self.body)?;
        Ok(status)
    }
}

struct Load {
    requests: usize,
    failures: usize,
    seconds: f64,
    /// Latencies, sorted.
    times: Vec<Duration>,
}

impl Load {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds
    }

    fn ms(&self, q: f64) -> f64 {
        let i = ((self.times.len().saturating_sub(1)) as f64 * q) as usize;
        self.times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    }
}

/// `connections` keep-alive clients spread over `ports`, each sending
/// `method path body` back to back for `seconds`.
fn load(ports: &[u16], method: &str, path: &str, body: &[u8], o: &Options) -> anyhow::Result<Load> {
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..o.connections)
        .map(|i| {
            let (port, method, path, body) = (
                ports[i % ports.len()],
                method.to_string(),
                path.to_string(),
                body.to_vec(),
            );
            std::thread::spawn(move || -> anyhow::Result<(Vec<Duration>, usize)> {
                let mut client = Client::connect(port)?;
                let (mut times, mut failures) = (Vec::new(), 0);
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let status = client.send(&method, &path, &body)?;
                    times.push(t.elapsed());
                    if status != 200 {
                        failures += 1;
                    }
                }
                Ok((times, failures))
            })
        })
        .collect();
    let mut all = Load {
        requests: 0,
        failures: 0,
        seconds: 0.0,
        times: Vec::new(),
    };
    for w in workers {
        let (times, failures) = w
            .join()
            .map_err(|_| anyhow::anyhow!("a load thread panicked"))??;
        all.failures += failures;
        all.times.extend(times);
    }
    all.seconds = start.elapsed().as_secs_f64();
    all.requests = all.times.len();
    all.times.sort_unstable();
    Ok(all)
}

/// A page of about 100 KB: a heading and many sections.
fn page() -> String {
    let mut html = String::from(
        "<!doctype html><html><head><title>bench</title></head><body><main><h1>Instances</h1>",
    );
    for i in 0..400 {
        html.push_str(&format!(
            "<section id=s{i}><h2>Section {i}</h2><p>Paragraph {i} of the bench page, with <a href=/p/{i}>a link</a> and some words to parse.</p></section>"
        ));
    }
    html.push_str("</main></body></html>");
    html
}

fn body_of(html: &str) -> Vec<u8> {
    serde_json::json!({ "html": html, "url": "https://example.com/" })
        .to_string()
        .into_bytes()
}

struct Row {
    name: String,
    chunk: Load,
    create: Load,
}

fn row(name: &str, binary: &Path, dbs: &[String], o: &Options) -> anyhow::Result<Row> {
    let instances = dbs
        .iter()
        .map(|db| Instance::start(binary, db))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let ports: Vec<u16> = instances.iter().map(|i| i.port).collect();
    let mut first = Client::connect(ports[0])?;
    first.send("POST", "/conversations", &body_of(&page()))?;
    let created: serde_json::Value = serde_json::from_slice(&first.body)?;
    let id = created["conversationId"]
        .as_str()
        .context("no conversationId in the answer to POST /conversations")?
        .to_string();
    let chunk = format!("/conversations/{id}/chunk?selector=h1");
    // Every instance parses the page once before the clock starts.
    for port in &ports {
        let status = Client::connect(*port)?.send("GET", &chunk, b"")?;
        anyhow::ensure!(status == 200, "GET {chunk} answered {status}");
    }
    eprintln!("{name}: GET chunk, {} s", o.seconds);
    let chunk = load(&ports, "GET", &chunk, b"", o)?;
    eprintln!("{name}: POST /conversations, {} s", o.seconds);
    let small = "<main><h1>Order</h1><p>Check the items and place the order.</p><ul><li>Tea</li><li>Cups</li></ul><button>Place order</button></main>";
    let create = load(&ports, "POST", "/conversations", &body_of(small), o)?;
    Ok(Row {
        name: name.to_string(),
        chunk,
        create,
    })
}

/// Refreshes committed by one store, heard by another: from the start of the
/// refresh call, and after its acknowledgement.
async fn events(url: &str, n: usize) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let a = PostgresStore::open(url, PostgresOptions::default()).await?;
    let b = PostgresStore::open(url, PostgresOptions::default()).await?;
    let mut heard = b.changes().context("PostgreSQL stores hear changes")?;
    anyhow::ensure!(
        heard.wait_listening(Duration::from_secs(10)).await,
        "the second store did not start listening within 10 s"
    );
    let conv = a
        .create(NewConversation {
            page: NewPage {
                html: "<p>0</p>".into(),
                url: None,
                capture: None,
            },
            ..Default::default()
        })
        .await?;
    let (mut from_start, mut after_ack) = (Vec::new(), Vec::new());
    for i in 0..n {
        let start = Instant::now();
        let page = NewPage {
            html: format!("<p>{i}</p>"),
            url: None,
            capture: None,
        };
        let version = a
            .add_version(conv.id, page)
            .await?
            .context("the conversation is gone")?
            .version;
        let acked = Instant::now();
        loop {
            let change = tokio::time::timeout(Duration::from_secs(10), heard.next())
                .await
                .context("a refresh was not heard within 10 s")?;
            match change {
                Some(Change::Refreshed { id, version: v }) if id == conv.id && v == version => {
                    break;
                }
                Some(_) => continue,
                None => bail!("the listening store stopped"),
            }
        }
        from_start.push(start.elapsed());
        after_ack.push(acked.elapsed());
    }
    from_start.sort_unstable();
    after_ack.sort_unstable();
    Ok((from_start, after_ack))
}

fn quantile_ms(times: &[Duration], q: f64) -> f64 {
    let i = ((times.len().saturating_sub(1)) as f64 * q) as usize;
    times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

pub fn main(args: &[String]) -> anyhow::Result<()> {
    let o = options(args)?;
    let scratch = std::env::temp_dir().join(format!("webfold-instances-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let cluster = match o.db {
        Some(_) => None,
        None => Some(pg::PgCluster::start()),
    };
    let pg_db = || match (&o.db, &cluster) {
        (Some(url), _) => url.clone(),
        (None, Some(c)) => c.new_database(),
        (None, None) => unreachable!("a cluster is started when no --db is given"),
    };
    let sqlite = scratch.join("bench.db").display().to_string();
    let one = pg_db();
    let two = pg_db();
    let rows = [
        row("1 instance, SQLite", &o.binary, &[sqlite], &o)?,
        row(
            "1 instance, PostgreSQL",
            &o.binary,
            std::slice::from_ref(&one),
            &o,
        )?,
        row(
            "2 instances, PostgreSQL",
            &o.binary,
            &[two.clone(), two.clone()],
            &o,
        )?,
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let (from_start, after_ack) = runtime.block_on(events(&pg_db(), o.events))?;
    let alone = chatter(&o.binary, &scratch, None, o.events, &runtime)?;
    let shared = chatter(&o.binary, &scratch, Some(&pg_db()), o.events, &runtime)?;
    let _ = std::fs::remove_dir_all(&scratch);

    println!(
        "{} keep-alive connections on loopback, {} s per measurement; latencies in ms\n",
        o.connections, o.seconds
    );
    println!("| setup | GET chunk req/s | p50 | p99 | POST /conversations req/s | p50 | p99 |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {:.0} | {:.2} | {:.2} | {:.0} | {:.2} | {:.2} |",
            r.name,
            r.chunk.per_second(),
            r.chunk.ms(0.5),
            r.chunk.ms(0.99),
            r.create.per_second(),
            r.create.ms(0.5),
            r.create.ms(0.99),
        );
        if r.chunk.failures + r.create.failures > 0 {
            println!(
                "|   (non-200 answers: {} chunk, {} create) | | | | | | |",
                r.chunk.failures, r.create.failures
            );
        }
    }
    println!(
        "\nrefresh on store A heard on store B (NOTIFY), {} refreshes: from the refresh call p50 {:.2} ms, p99 {:.2} ms; after A's acknowledgement p50 {:.2} ms, p99 {:.2} ms",
        from_start.len(),
        quantile_ms(&from_start, 0.5),
        quantile_ms(&from_start, 0.99),
        quantile_ms(&after_ack, 0.5),
        quantile_ms(&after_ack, 0.99),
    );
    println!(
        "\nchat, {} round trips: one daemon alone (tab and agent on it)",
        o.events
    );
    alone.print();
    println!("tab on daemon A, agent on daemon B, one PostgreSQL database");
    shared.print();
    Ok(())
}

/// The chat's round trips: one daemon alone (`db` none), or the tab on one
/// daemon and the agent on another sharing `db`.
fn chatter(
    binary: &Path,
    scratch: &Path,
    db: Option<&str>,
    rounds: usize,
    runtime: &tokio::runtime::Runtime,
) -> anyhow::Result<ui_latency::RoundTrips> {
    let homes = [scratch.join("daemon-a"), scratch.join("daemon-b")];
    let mut daemons = Vec::new();
    for home in &homes[..if db.is_some() { 2 } else { 1 }] {
        let _ = std::fs::remove_dir_all(home);
        std::fs::create_dir_all(home)?;
        let extra: Vec<&str> = db.map(|url| vec!["--db", url]).unwrap_or_default();
        daemons.push(ui_latency::start(binary, home, &extra)?);
    }
    let tab = Home::at(homes[0].clone());
    let agent = Home::at(homes[daemons.len() - 1].clone());
    runtime.block_on(ui_latency::round_trips(&tab, &agent, rounds))
}
