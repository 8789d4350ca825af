//! `webfold-bench aria`: our accessibility snapshot beside Playwright's own, on
//! the same corpus pages.
//!
//! Three passes over one deterministic sample (every N-th manifest page):
//! 1. ours, static: decode + parse + snapshot (`ai --full`, `aria --full`, and
//!    the default budgeted view), each the median of K runs;
//! 2. the oracle (`bench/oracle`, pinned playwright-core driving Debian's
//!    chromium) with `--timing --repeat K`: per page, the time of `goto` and of
//!    each in-page `ariaSnapshot` call, timed in Node around the call, plus the
//!    texts;
//! 3. ours, live: the same file rendered by Chromium through webfold-browser
//!    (same viewport), navigate + one `DOMSnapshot` capture + the core's
//!    snapshot, compared with the oracle's texts.
//!
//! Both browsers run offline (every remote request fails at once): corpus pages
//! name remote scripts and images, and this machine must not fetch them. Pages
//! are written un-gzipped to a scratch folder and loaded from `file://` URLs by
//! both sides, with JavaScript on, as playwright-mcp runs.
//!
//! Line similarity is the multiset Dice coefficient over whole lines
//! (indentation included): 2·|A∩B| / (|A|+|B|). It is order-blind and linear
//! time, so a page of 30,000 lines costs nothing; one missing element costs its
//! own lines only, except in `ai` mode where later refs shift, which is why the
//! `ai` similarity is also given with refs masked.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::json;
use webfold_browser::{Browser, BrowserOptions};
use webfold_core::aria::{self, Mode};
use webfold_core::snapshot::{self, Scope, SnapshotOptions};
use webfold_core::tokens::{self, Encoding};
use webfold_core::{Page, decode};

const USAGE: &str = "usage: webfold-bench aria [--sample N] [--repeat K] [--timeout SECS] \
                     [--dump DIR] [--json]";

/// Same viewport on both sides (Playwright's default).
const VIEWPORT: (u32, u32) = (1280, 720);

#[derive(Debug)]
struct Args {
    sample: usize,
    repeat: usize,
    timeout: Duration,
    dump: Option<PathBuf>,
    json: bool,
}

fn parse_args(args: &[String]) -> anyhow::Result<Args> {
    let mut out = Args {
        sample: 1,
        repeat: 3,
        // Some corpus pages never fire `load` offline (scripts retrying failed
        // requests); both sides give up on them after this long.
        timeout: Duration::from_secs(15),
        dump: None,
        json: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("{name} needs a value; {USAGE}"))
        };
        match a.as_str() {
            "--sample" => out.sample = value("--sample")?.parse().context("--sample N")?,
            "--repeat" => out.repeat = value("--repeat")?.parse().context("--repeat K")?,
            "--timeout" => {
                out.timeout =
                    Duration::from_secs(value("--timeout")?.parse().context("--timeout SECS")?)
            }
            "--dump" => out.dump = Some(PathBuf::from(value("--dump")?)),
            "--json" => out.json = true,
            other => bail!("unknown argument {other}; {USAGE}"),
        }
    }
    if out.sample == 0 || !(1..=100).contains(&out.repeat) {
        bail!("--sample must be at least 1 and --repeat 1–100; {USAGE}");
    }
    Ok(out)
}

/// The bench's copy of the oracle, beside the workspace's crates.
fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/oracle")
}

fn chromium_path() -> PathBuf {
    std::env::var_os("WEBFOLD_CHROMIUM")
        .or_else(|| std::env::var_os("CHROMIUM_PATH"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// A scratch folder removed when the run ends, however it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Default)]
struct StaticRun {
    ai_ms: f64,
    aria_ms: f64,
    default_ms: f64,
    ai: String,
    aria: String,
    ai_tokens: usize,
    default_tokens: usize,
}

#[derive(Deserialize, Default, Clone)]
struct Timing {
    setup_ms: f64,
    load_ms: f64,
    aria_ms: Vec<f64>,
    ai_ms: Vec<f64>,
}

#[derive(Deserialize)]
struct OracleRecord {
    id: String,
    #[serde(default)]
    aria: Option<String>,
    #[serde(default)]
    ai: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    timing: Option<Timing>,
}

struct OracleRun {
    aria: String,
    ai: String,
    ai_tokens: usize,
    timing: Timing,
}

struct LiveRun {
    navigate_ms: f64,
    /// First capture and snapshot after the load.
    capture_ms: f64,
    snapshot_ms: f64,
    /// Median of K (capture + ai snapshot).
    warm_ms: f64,
    aria: String,
    ai: String,
    ai_tokens: usize,
    default_tokens: usize,
}

#[derive(Default)]
struct PageRun {
    id: String,
    raw_tokens: usize,
    ours: StaticRun,
    oracle: Option<OracleRun>,
    oracle_error: Option<String>,
    live: Option<LiveRun>,
    live_error: Option<String>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(v: &[f64]) -> f64 {
    percentile(v, 0.5)
}

/// Nearest-rank percentile; 0 for no values.
fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p).round() as usize]
}

/// Runs `f` K times; returns the first result and the median time.
fn timed_median<T>(k: usize, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut times = Vec::with_capacity(k);
    let mut first = None;
    for _ in 0..k {
        let t = Instant::now();
        let out = f();
        times.push(ms(t.elapsed()));
        first.get_or_insert(out);
    }
    (first.expect("k >= 1"), median(&times))
}

/// Multiset Dice over lines: the share of lines both texts have.
fn line_similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    let mut na = 0usize;
    for l in a.lines() {
        *counts.entry(l).or_default() += 1;
        na += 1;
    }
    let (mut nb, mut common) = (0usize, 0usize);
    for l in b.lines() {
        nb += 1;
        if let Some(c) = counts.get_mut(l).filter(|c| **c > 0) {
            *c -= 1;
            common += 1;
        }
    }
    if na + nb == 0 {
        return 1.0;
    }
    2.0 * common as f64 / (na + nb) as f64
}

/// `[ref=e12]` → `[ref=]`, so one missing element does not shift every later line.
fn mask_refs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("[ref=") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        match rest.find(']') {
            Some(j) => rest = &rest[j..],
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// Progress on stderr: one rewritten line on a terminal, a line every 50 pages otherwise.
struct Progress {
    what: &'static str,
    total: usize,
    tty: bool,
    start: Instant,
}

impl Progress {
    fn new(what: &'static str, total: usize) -> Self {
        Progress {
            what,
            total,
            tty: std::io::stderr().is_terminal(),
            start: Instant::now(),
        }
    }

    fn tick(&self, done: usize) {
        let line = format!(
            "{}: {done}/{} pages, {:.0} s",
            self.what,
            self.total,
            self.start.elapsed().as_secs_f64()
        );
        if self.tty {
            eprint!("\r{line}   ");
            let _ = std::io::stderr().flush();
        } else if done.is_multiple_of(50) || done == self.total {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

/// The 1-minute load average (Linux), printed with the figures: on a shared
/// 2-core machine, what else ran changes the times more than anything measured.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn default_options() -> SnapshotOptions {
    SnapshotOptions::default()
}

fn run_static(html_bytes: &[u8], url: &str, k: usize) -> StaticRun {
    let parse = || Page::parse(&decode::decode_html(html_bytes, None).text);
    let (ai, ai_ms) = timed_median(k, || aria::snapshot(&parse(), Mode::Ai));
    let (aria, aria_ms) = timed_median(k, || aria::snapshot(&parse(), Mode::Aria));
    let (default, default_ms) = timed_median(k, || {
        snapshot::snapshot(
            &parse(),
            url,
            &Scope::Page,
            &default_options(),
            None,
            webfold_core::contract::Ctx::default(),
        )
        .map(|s| s.text)
        .unwrap_or_default()
    });
    StaticRun {
        ai_ms,
        aria_ms,
        default_ms,
        ai_tokens: tokens::count(&ai, Encoding::O200kBase),
        default_tokens: tokens::count(&default, Encoding::O200kBase),
        ai,
        aria,
    }
}

/// Runs the oracle over `files` (index → path), feeding records back as they come.
fn run_oracle(
    files: &[PathBuf],
    scratch: &Path,
    args: &Args,
    mut on_record: impl FnMut(usize, OracleRecord),
) -> anyhow::Result<()> {
    let dir = oracle_dir();
    if !dir
        .join("node_modules/playwright-core/package.json")
        .exists()
    {
        bail!(
            "the Playwright oracle is not installed in {}; run scripts/install-oracle (npm ci of playwright-core 1.65.1)",
            dir.display()
        );
    }
    let input = scratch.join("oracle-in.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&input)?);
    for (i, f) in files.iter().enumerate() {
        writeln!(w, "{}", json!({"id": i.to_string(), "file": f}))?;
    }
    w.flush()?;
    drop(w);
    let timeout_ms = args.timeout.as_millis().to_string();
    let mut child = Command::new("node")
        .arg(dir.join("aria-oracle.mjs"))
        .args(["--jsonl"])
        .arg(&input)
        .args(["--load", "file", "--timing", "--offline", "--quiet"])
        .args(["--repeat", &args.repeat.to_string()])
        .args(["--timeout", &timeout_ms])
        .args(["--viewport", &format!("{}x{}", VIEWPORT.0, VIEWPORT.1)])
        .arg("--chromium")
        .arg(chromium_path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start node (Debian: apt-get install nodejs), needed for the oracle")?;
    let stdout = child.stdout.take().context("oracle stdout")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: OracleRecord = serde_json::from_str(&line)
            .with_context(|| format!("oracle printed a line that is not a record: {line:.200}"))?;
        let idx: usize = rec.id.parse().context("oracle record id")?;
        on_record(idx, rec);
    }
    let status = child.wait()?;
    // Exit 1 means some inputs failed; those records carry "error".
    if !matches!(status.code(), Some(0 | 1)) {
        bail!("the oracle exited with {status}; run it by hand in bench/oracle to see why");
    }
    Ok(())
}

/// The oracle's `--offline` flags, added to webfold-browser's own so both
/// sides load the same pages with every remote request failing at once.
const OFFLINE_FLAGS: &[&str] = &[
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
];

async fn live_page(
    browser: &Browser,
    url: &str,
    k: usize,
    timeout: Duration,
) -> anyhow::Result<LiveRun> {
    let tab = browser.new_tab().await?;
    let run = async {
        let t = Instant::now();
        tab.navigate(url).await?;
        let navigate_ms = ms(t.elapsed());
        let t = Instant::now();
        let cap = tab.capture().await?;
        let capture_ms = ms(t.elapsed());
        let t = Instant::now();
        let ai = aria::snapshot(&cap.page, Mode::Ai);
        let snapshot_ms = ms(t.elapsed());
        let mut warm = vec![capture_ms + snapshot_ms];
        for _ in 1..k {
            let t = Instant::now();
            let again = tab.capture().await?;
            let _ = aria::snapshot(&again.page, Mode::Ai);
            warm.push(ms(t.elapsed()));
        }
        let aria = aria::snapshot(&cap.page, Mode::Aria);
        let default = snapshot::snapshot(
            &cap.page,
            &cap.url,
            &Scope::Page,
            &default_options(),
            None,
            webfold_core::contract::Ctx::default(),
        )
        .map(|s| s.text)
        .unwrap_or_default();
        anyhow::Ok(LiveRun {
            navigate_ms,
            capture_ms,
            snapshot_ms,
            warm_ms: median(&warm),
            ai_tokens: tokens::count(&ai, Encoding::O200kBase),
            default_tokens: tokens::count(&default, Encoding::O200kBase),
            aria,
            ai,
        })
    };
    // The navigation has its own timeout; this one also bounds the captures.
    let out = match tokio::time::timeout(timeout * 2, run).await {
        Ok(r) => r,
        Err(_) => Err(anyhow::anyhow!(
            "no capture within {} s",
            (timeout * 2).as_secs()
        )),
    };
    let _ = tab.close().await;
    out
}

pub fn main(raw_args: &[String]) -> anyhow::Result<()> {
    let args = parse_args(raw_args)?;
    let enc = Encoding::O200kBase;
    let corpus = webfold_corpus::sample(args.sample);
    let scratch =
        Scratch(std::env::temp_dir().join(format!("webfold-bench-aria-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0)
        .with_context(|| format!("cannot create {}", scratch.0.display()))?;
    eprintln!(
        "{} corpus pages (--sample {}), {} runs per timed call",
        corpus.len(),
        args.sample,
        args.repeat
    );

    // Pass 1: ours, static. The pages go to disk un-gzipped on the way, as the
    // browsers load them from file:// URLs.
    let mut load = vec![("static", load_average())];
    let mut runs: Vec<PageRun> = Vec::with_capacity(corpus.len());
    let mut files = Vec::with_capacity(corpus.len());
    let progress = Progress::new("ours, static", corpus.len());
    for (i, cp) in corpus.iter().enumerate() {
        let raw = cp.raw();
        let file = scratch.0.join(format!("{i}.html"));
        std::fs::write(&file, &raw).with_context(|| format!("cannot write {}", file.display()))?;
        let url = url::Url::from_file_path(&file)
            .map(String::from)
            .unwrap_or_default();
        let html = decode::decode_html(&raw, None).text;
        runs.push(PageRun {
            id: cp.id.clone(),
            raw_tokens: tokens::count(&html, enc),
            ours: run_static(&raw, &url, args.repeat),
            ..PageRun::default()
        });
        files.push(file);
        progress.tick(i + 1);
    }
    progress.finish();

    // Pass 2: Playwright.
    load.push(("playwright", load_average()));
    let progress = Progress::new("playwright oracle", corpus.len());
    let mut done = 0;
    run_oracle(&files, &scratch.0, &args, |idx, rec| {
        done += 1;
        progress.tick(done);
        let Some(run) = runs.get_mut(idx) else { return };
        match (rec.aria, rec.ai, rec.timing, rec.error) {
            (Some(aria), Some(ai), Some(timing), None) => {
                run.oracle = Some(OracleRun {
                    ai_tokens: tokens::count(&ai, enc),
                    aria,
                    ai,
                    timing,
                })
            }
            (_, _, _, err) => {
                run.oracle_error = Some(err.unwrap_or_else(|| "no output".into()));
            }
        }
    })?;
    progress.finish();

    // Pass 3: ours, live.
    load.push(("live", load_average()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let browser = Browser::launch(BrowserOptions {
            executable: chromium_path(),
            viewport: webfold_browser::Viewport {
                width: VIEWPORT.0,
                height: VIEWPORT.1,
            },
            navigation_timeout: args.timeout,
            extra_args: OFFLINE_FLAGS.iter().map(|f| f.to_string()).collect(),
            ..BrowserOptions::default()
        })
        .await?;
        let progress = Progress::new("ours, live", corpus.len());
        for (i, file) in files.iter().enumerate() {
            let url = url::Url::from_file_path(file)
                .map(String::from)
                .unwrap_or_default();
            match live_page(&browser, &url, args.repeat, args.timeout).await {
                Ok(live) => runs[i].live = Some(live),
                Err(e) => runs[i].live_error = Some(e.to_string()),
            }
            progress.tick(i + 1);
        }
        progress.finish();
        browser.close().await;
        anyhow::Ok(())
    })?;

    if let Some(dir) = &args.dump {
        dump(dir, &runs)?;
    }
    load.push(("end", load_average()));
    report(&runs, &args, &load)
}

/// Writes both sides' texts for each page whose live snapshot differs from Playwright's.
fn dump(dir: &Path, runs: &[PageRun]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (i, r) in runs.iter().enumerate() {
        let (Some(o), Some(l)) = (&r.oracle, &r.live) else {
            continue;
        };
        let name = format!("{i:04}-{}", r.id.replace('/', "_"));
        for (mode, theirs, ours) in [("aria", &o.aria, &l.aria), ("ai", &o.ai, &l.ai)] {
            if theirs != ours {
                std::fs::write(dir.join(format!("{name}.{mode}.playwright.yaml")), theirs)?;
                std::fs::write(dir.join(format!("{name}.{mode}.ours.yaml")), ours)?;
            }
        }
    }
    eprintln!("differing snapshots written to {}", dir.display());
    Ok(())
}

/// p50, p99 and the per-page values' count, for one timed step.
fn dist(name: &str, values: &[f64]) -> serde_json::Value {
    json!({
        "name": name,
        "pages": values.len(),
        "p50_ms": percentile(values, 0.5),
        "p99_ms": percentile(values, 0.99),
        "mean_ms": values.iter().sum::<f64>() / values.len().max(1) as f64,
    })
}

/// Per-page ratio slow/fast: median over pages, and the ratio of the p50s.
fn ratio(name: &str, slow: &[f64], fast: &[f64]) -> serde_json::Value {
    let per_page: Vec<f64> = slow
        .iter()
        .zip(fast)
        .map(|(s, f)| s / f.max(1e-6))
        .collect();
    json!({
        "name": name,
        "median_per_page": median(&per_page),
        "p50_over_p50": percentile(slow, 0.5) / percentile(fast, 0.5).max(1e-6),
    })
}

struct MatchTally {
    pages: usize,
    aria_exact: usize,
    ai_exact: usize,
    aria_sim: f64,
    ai_sim: f64,
    ai_masked_sim: f64,
}

fn tally<'a>(pairs: impl Iterator<Item = (&'a str, &'a str, &'a str, &'a str)>) -> MatchTally {
    let mut t = MatchTally {
        pages: 0,
        aria_exact: 0,
        ai_exact: 0,
        aria_sim: 0.0,
        ai_sim: 0.0,
        ai_masked_sim: 0.0,
    };
    for (our_aria, their_aria, our_ai, their_ai) in pairs {
        t.pages += 1;
        t.aria_exact += usize::from(our_aria == their_aria);
        t.ai_exact += usize::from(our_ai == their_ai);
        t.aria_sim += line_similarity(our_aria, their_aria);
        t.ai_sim += line_similarity(our_ai, their_ai);
        t.ai_masked_sim += line_similarity(&mask_refs(our_ai), &mask_refs(their_ai));
    }
    let n = t.pages.max(1) as f64;
    t.aria_sim /= n;
    t.ai_sim /= n;
    t.ai_masked_sim /= n;
    t
}

fn tally_json(name: &str, t: &MatchTally) -> serde_json::Value {
    let n = t.pages.max(1) as f64;
    json!({
        "name": name,
        "pages": t.pages,
        "aria_exact": t.aria_exact,
        "aria_exact_rate": t.aria_exact as f64 / n,
        "ai_exact": t.ai_exact,
        "ai_exact_rate": t.ai_exact as f64 / n,
        "aria_line_similarity": t.aria_sim,
        "ai_line_similarity": t.ai_sim,
        "ai_line_similarity_refs_masked": t.ai_masked_sim,
    })
}

fn report(runs: &[PageRun], args: &Args, load: &[(&str, Option<f64>)]) -> anyhow::Result<()> {
    // Timings over pages every side finished, so each row has the same pages.
    let both: Vec<(&PageRun, &OracleRun, &LiveRun)> = runs
        .iter()
        .filter_map(|r| Some((r, r.oracle.as_ref()?, r.live.as_ref()?)))
        .collect();
    let col = |f: &dyn Fn(&PageRun, &OracleRun, &LiveRun) -> f64| -> Vec<f64> {
        both.iter().map(|(r, o, l)| f(r, o, l)).collect()
    };
    let pw_setup = col(&|_, o, _| o.timing.setup_ms);
    let pw_load = col(&|_, o, _| o.timing.load_ms);
    let pw_aria_first = col(&|_, o, _| o.timing.aria_ms.first().copied().unwrap_or(f64::NAN));
    let pw_aria = col(&|_, o, _| median(&o.timing.aria_ms));
    let pw_ai_first = col(&|_, o, _| o.timing.ai_ms.first().copied().unwrap_or(f64::NAN));
    let pw_ai = col(&|_, o, _| median(&o.timing.ai_ms));
    let pw_nav_snap =
        col(&|_, o, _| o.timing.load_ms + o.timing.aria_ms.first().copied().unwrap_or(f64::NAN));
    let ours_ai = col(&|r, _, _| r.ours.ai_ms);
    let ours_aria = col(&|r, _, _| r.ours.aria_ms);
    let ours_default = col(&|r, _, _| r.ours.default_ms);
    let live_nav = col(&|_, _, l| l.navigate_ms);
    let live_cap = col(&|_, _, l| l.capture_ms);
    let live_snap = col(&|_, _, l| l.snapshot_ms);
    let live_cap_snap = col(&|_, _, l| l.capture_ms + l.snapshot_ms);
    let live_warm = col(&|_, _, l| l.warm_ms);
    let live_all = col(&|_, _, l| l.navigate_ms + l.capture_ms + l.snapshot_ms);

    let times = vec![
        dist("playwright: new context + page", &pw_setup),
        dist("playwright: goto (load event)", &pw_load),
        dist("playwright: aria snapshot, first call", &pw_aria_first),
        dist("playwright: aria snapshot, median", &pw_aria),
        dist("playwright: ai snapshot, first call", &pw_ai_first),
        dist("playwright: ai snapshot, median", &pw_ai),
        dist("playwright: goto + first snapshot (aria)", &pw_nav_snap),
        dist("ours static: parse + ai --full", &ours_ai),
        dist("ours static: parse + aria --full", &ours_aria),
        dist("ours static: parse + default view", &ours_default),
        dist("ours live: navigate (load event)", &live_nav),
        dist("ours live: capture (DOMSnapshot)", &live_cap),
        dist("ours live: core ai snapshot", &live_snap),
        dist("ours live: capture + ai, first", &live_cap_snap),
        dist("ours live: capture + ai, median", &live_warm),
        dist("ours live: navigate + capture + ai", &live_all),
    ];
    let ratios = vec![
        ratio("pw ai snapshot (median) / ours static ai", &pw_ai, &ours_ai),
        ratio(
            "pw ai snapshot (first) / ours static ai",
            &pw_ai_first,
            &ours_ai,
        ),
        ratio(
            "pw aria snapshot (median) / ours static aria",
            &pw_aria,
            &ours_aria,
        ),
        ratio(
            "pw ai snapshot (median) / ours static default",
            &pw_ai,
            &ours_default,
        ),
        ratio(
            "pw ai snapshot (median) / ours live capture+ai (median)",
            &pw_ai,
            &live_warm,
        ),
        ratio(
            "pw goto+snapshot / ours live navigate+capture+ai",
            &pw_nav_snap,
            &live_all,
        ),
    ];

    // Tokens over pages the oracle finished (live figures over those live finished too).
    let with_oracle: Vec<(&PageRun, &OracleRun)> = runs
        .iter()
        .filter_map(|r| Some((r, r.oracle.as_ref()?)))
        .collect();
    let sum = |f: &dyn Fn(&PageRun, &OracleRun) -> usize| -> usize {
        with_oracle.iter().map(|(r, o)| f(r, o)).sum()
    };
    let med = |f: &dyn Fn(&PageRun, &OracleRun) -> usize| -> f64 {
        median(
            &with_oracle
                .iter()
                .map(|(r, o)| f(r, o) as f64)
                .collect::<Vec<_>>(),
        )
    };
    let token_row = |name: &str, f: &dyn Fn(&PageRun, &OracleRun) -> usize| json!({"name": name, "total": sum(f), "median": med(f)});
    let live_pairs: Vec<(&OracleRun, &LiveRun)> = with_oracle
        .iter()
        .filter_map(|(r, o)| Some((*o, r.live.as_ref()?)))
        .collect();
    let reduction = |pairs: &[(usize, usize)]| {
        let per_page: Vec<f64> = pairs
            .iter()
            .map(|&(ours, theirs)| 1.0 - ours as f64 / theirs.max(1) as f64)
            .collect();
        let (o, t) = pairs
            .iter()
            .fold((0usize, 0usize), |(a, b), &(x, y)| (a + x, b + y));
        json!({
            "pages": pairs.len(),
            "median_per_page": median(&per_page),
            "total": 1.0 - o as f64 / t.max(1) as f64,
        })
    };
    let static_pairs: Vec<(usize, usize)> = with_oracle
        .iter()
        .map(|(r, o)| (r.ours.default_tokens, o.ai_tokens))
        .collect();
    let live_default_pairs: Vec<(usize, usize)> = live_pairs
        .iter()
        .map(|(o, l)| (l.default_tokens, o.ai_tokens))
        .collect();
    let tokens = json!({
        "pages": with_oracle.len(),
        "rows": [
            token_row("raw HTML", &|r, _| r.raw_tokens),
            token_row("playwright ai (full)", &|_, o| o.ai_tokens),
            token_row("ours static ai --full", &|r, _| r.ours.ai_tokens),
            token_row("ours static default", &|r, _| r.ours.default_tokens),
            token_row("ours live ai --full", &|r, _| r.live.as_ref().map_or(0, |l| l.ai_tokens)),
            token_row("ours live default", &|r, _| r.live.as_ref().map_or(0, |l| l.default_tokens)),
        ],
        "reduction_static_default_vs_playwright_ai": reduction(&static_pairs),
        "reduction_live_default_vs_playwright_ai": reduction(&live_default_pairs),
    });

    let live_match = tally(live_pairs.iter().map(|(o, l)| {
        (
            l.aria.as_str(),
            o.aria.as_str(),
            l.ai.as_str(),
            o.ai.as_str(),
        )
    }));
    let static_match = tally(with_oracle.iter().map(|(r, o)| {
        (
            r.ours.aria.as_str(),
            o.aria.as_str(),
            r.ours.ai.as_str(),
            o.ai.as_str(),
        )
    }));
    let failures: Vec<serde_json::Value> = runs
        .iter()
        .filter(|r| r.oracle_error.is_some() || r.live_error.is_some())
        .map(|r| json!({"id": r.id, "playwright": r.oracle_error, "ours_live": r.live_error}))
        .collect();
    let out = json!({
        "pages": runs.len(),
        "sample_every": args.sample,
        "repeat": args.repeat,
        "viewport": format!("{}x{}", VIEWPORT.0, VIEWPORT.1),
        "timed_pages": both.len(),
        "load_average_1min": load.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "times": times,
        "speed_ratios": ratios,
        "tokens": tokens,
        "match": [tally_json("ours live vs playwright", &live_match),
                  tally_json("ours static vs playwright", &static_match)],
        "failures": failures,
    });
    if args.json {
        println!("{out}");
        return Ok(());
    }
    print_text(&out);
    Ok(())
}

fn print_text(out: &serde_json::Value) {
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    println!(
        "{} pages (--sample {}: every N-th corpus page), viewport {}, medians of {} runs where marked; \
         {} pages timed on every side\n",
        out["pages"],
        out["sample_every"],
        out["viewport"].as_str().unwrap_or(""),
        out["repeat"],
        out["timed_pages"]
    );
    if let Some(load) = out["load_average_1min"].as_object() {
        let parts: Vec<String> = load.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "load average (1 min) at the start of each pass: {}\n",
            parts.join(", ")
        );
    }
    println!(
        "{:<44} {:>9} {:>9} {:>9}",
        "time per page", "p50 ms", "p99 ms", "mean ms"
    );
    for row in out["times"].as_array().into_iter().flatten() {
        println!(
            "{:<44} {:>9.2} {:>9.2} {:>9.2}",
            row["name"].as_str().unwrap_or(""),
            f(row, "p50_ms"),
            f(row, "p99_ms"),
            f(row, "mean_ms")
        );
    }
    println!(
        "\n{:<58} {:>12} {:>10}",
        "speed ratio", "median/page", "p50/p50"
    );
    for row in out["speed_ratios"].as_array().into_iter().flatten() {
        println!(
            "{:<58} {:>11.1}x {:>9.1}x",
            row["name"].as_str().unwrap_or(""),
            f(row, "median_per_page"),
            f(row, "p50_over_p50")
        );
    }
    let t = &out["tokens"];
    println!(
        "\n{:<28} {:>14} {:>12}   (o200k, exact; {} pages)",
        "tokens", "total", "median", t["pages"]
    );
    for row in t["rows"].as_array().into_iter().flatten() {
        println!(
            "{:<28} {:>14} {:>12.0}",
            row["name"].as_str().unwrap_or(""),
            row["total"],
            f(row, "median")
        );
    }
    for (label, key) in [
        ("static", "reduction_static_default_vs_playwright_ai"),
        ("live", "reduction_live_default_vs_playwright_ai"),
    ] {
        let r = &t[key];
        println!(
            "default view ({label}) vs Playwright's full ai snapshot: {:.1}% fewer tokens (median per page), {:.1}% in total",
            100.0 * f(r, "median_per_page"),
            100.0 * f(r, "total")
        );
    }
    println!(
        "\n{:<28} {:>6} {:>12} {:>12} {:>9} {:>9} {:>14}",
        "match (vs playwright)",
        "pages",
        "aria exact",
        "ai exact",
        "aria sim",
        "ai sim",
        "ai sim no refs"
    );
    for row in out["match"].as_array().into_iter().flatten() {
        println!(
            "{:<28} {:>6} {:>11.1}% {:>11.1}% {:>9.3} {:>9.3} {:>14.3}",
            row["name"].as_str().unwrap_or(""),
            row["pages"],
            100.0 * f(row, "aria_exact_rate"),
            100.0 * f(row, "ai_exact_rate"),
            f(row, "aria_line_similarity"),
            f(row, "ai_line_similarity"),
            f(row, "ai_line_similarity_refs_masked")
        );
    }
    println!("(similarity: multiset Dice over whole lines, mean over pages)");
    let failures = out["failures"].as_array().map_or(&[][..], Vec::as_slice);
    if !failures.is_empty() {
        println!("\n{} pages failed on some side:", failures.len());
        for f in failures.iter().take(20) {
            println!("  {f}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_similarity_counts_shared_lines_with_multiplicity() {
        assert_eq!(line_similarity("a\nb", "a\nb"), 1.0);
        // {a, a, b} vs {a, c}: one shared line of five.
        assert!((line_similarity("a\na\nb", "a\nc") - 0.4).abs() < 1e-9);
        assert_eq!(line_similarity("a", "b"), 0.0);
        // Order does not matter.
        assert_eq!(line_similarity("a\nb", "b\na"), 1.0);
    }

    #[test]
    fn mask_refs_blanks_ref_numbers_only() {
        assert_eq!(
            mask_refs("- link \"A [ref=x]\" [ref=e12] [cursor=pointer]:\n- button [ref=f1e3]"),
            "- link \"A [ref=]\" [ref=] [cursor=pointer]:\n- button [ref=]"
        );
        assert_eq!(mask_refs("- text: [ref=e1"), "- text: [ref=e1");
    }

    #[test]
    fn percentile_is_nearest_rank_and_skips_missing_values() {
        let v = [5.0, 1.0, f64::NAN, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&v, 0.5), 3.0);
        assert_eq!(percentile(&v, 0.99), 5.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn args_are_checked() {
        let a = |v: &[&str]| parse_args(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let ok = a(&["--sample", "4", "--repeat", "5", "--json"]).unwrap();
        assert_eq!((ok.sample, ok.repeat, ok.json), (4, 5, true));
        assert!(a(&["--repeat", "0"]).is_err());
        assert!(a(&["--sample"]).is_err());
        assert!(
            a(&["--frobnicate"])
                .unwrap_err()
                .to_string()
                .contains("usage")
        );
    }
}
