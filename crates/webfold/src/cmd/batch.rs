use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Parser;
use webfold_batch::run::Done;
use webfold_batch::source::{Note, items};

use crate::out;

/// Fold many pages at once into their main content: WARC files, folders of
/// HTML files or HTML files in, one JSON line per page out
#[derive(Parser)]
#[command(
    long_about = "\
Fold many pages at once into their main content: WARC files, folders of \
HTML files or HTML files in, one JSON line per page out.

Each line holds:
  url         the record's WARC-Target-URI, or the file's file: URL
  title       the article's title, else the page's <title>; null if none
  byline      the article's author, as the page gives it; null if none
  date        the article's date, as the page gives it; null if none
  markdown    the main content as Markdown, whole: what `webfold markdown`
              prints for the page (with --base-url set to url) under its
              header, never cut to a token budget or paged by lines
  tokens      exact o200k_base tokens of markdown
  language    <html lang>, else the HTTP Content-Language; null if unknown
  main_chars  non-whitespace characters of the main content
  page_chars  non-whitespace characters of all the text the page shows
  fallback    why markdown is the whole page (no_article, too_little_text),
              or null when an article was found

WARC files may be plain or gzip (per record or whole file), WARC/1.0 or 1.1: \
HTML responses (2xx) and HTML resource records are pages; requests, \
metadata and other records are passed over. Folders are read recursively \
for .html and .htm files (optionally .gz), in name order.

Lines come out in input order whatever --jobs is. A record or file that \
cannot be folded (not HTML, undecodable, a broken WARC record) is named on \
standard error and skipped; a WARC file cut short is read up to where it \
stops. A summary ends the run on standard error; the exit status is 1 only \
when no input could be read at all. A progress line shows on standard \
error when it is a terminal.",
    after_help = "\
Examples:
  webfold batch crawl.warc.gz > pages.jsonl
  webfold batch site/ page.html --output pages.jsonl
  webfold batch *.warc.gz --jobs 4 | head -5"
)]
pub struct Args {
    /// WARC files (.warc, .warc.gz), folders of HTML files, or HTML files
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Write the lines to this file instead of standard output
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Pages folded at once [default: one per core]
    #[arg(long, short, value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// Write the notes and the summary on standard error as JSON lines too,
    /// for programs (the pages are JSON lines in any case)
    #[arg(long)]
    json: bool,
}

/// What the run did, for the summary.
#[derive(Default)]
struct Tally {
    written: u64,
    skipped: u64,
    opened: u64,
    unreadable: u64,
    /// The reader of the output went away (`| head`).
    gone: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    let mut lines = out::Lines::to(args.output.as_deref())?;
    let start = Instant::now();
    let mut progress = Progress::new(std::io::stderr().is_terminal() && !args.json, start);
    let json = args.json;
    let mut tally = Tally::default();
    let mut failure: Option<anyhow::Error> = None;
    webfold_batch::run::run(items(args.inputs), jobs, |done| {
        let keep_on = match take(done, &mut tally, &mut lines, &mut progress, json) {
            Ok(more) => more,
            Err(e) => {
                failure = Some(e);
                false
            }
        };
        progress.show(&tally);
        keep_on
    });
    progress.clear();
    if let Some(e) = failure {
        return Err(e);
    }
    if !tally.gone && !lines.flush()? {
        tally.gone = true;
    }
    if tally.gone {
        return Ok(());
    }
    if tally.opened == 0 {
        bail!(
            "no input could be read (see above): pass WARC files, folders of HTML files or HTML files"
        );
    }
    out::note(&summary(&tally, start.elapsed(), json));
    Ok(())
}

/// Records one result: a page written, a note shown. False to stop.
fn take(
    done: Done,
    tally: &mut Tally,
    lines: &mut out::Lines,
    progress: &mut Progress,
    json: bool,
) -> anyhow::Result<bool> {
    let (note, object) = match done {
        Done::Page(folded) => {
            if !lines.line(&serde_json::to_string(&folded)?)? {
                tally.gone = true;
                return Ok(false);
            }
            tally.written += 1;
            return Ok(true);
        }
        Done::Note(Note::Opened { .. }) => {
            tally.opened += 1;
            return Ok(true);
        }
        Done::Note(Note::Skipped { what, why }) => {
            tally.skipped += 1;
            let object = serde_json::json!({ "skipped": what, "why": why });
            (format!("skipped {what}: {why}"), object)
        }
        Done::Note(Note::Stopped { input, why }) => {
            let object = serde_json::json!({ "stopped": input, "why": why });
            (
                format!("{input}: {why}; going on with the next input"),
                object,
            )
        }
        Done::Note(Note::Unreadable { input, why }) => {
            tally.unreadable += 1;
            let object = serde_json::json!({ "unreadable": input, "why": why });
            (format!("cannot read '{input}': {why}"), object)
        }
    };
    progress.clear();
    out::note(&if json { object.to_string() } else { note });
    Ok(true)
}

fn summary(tally: &Tally, took: Duration, json: bool) -> String {
    let secs = took.as_secs_f64();
    if json {
        let summary = serde_json::json!({
            "pages": tally.written,
            "skipped": tally.skipped,
            "unreadable": tally.unreadable,
            "seconds": (secs * 1000.0).round() / 1000.0,
        });
        return serde_json::json!({ "summary": summary }).to_string();
    }
    let rate = if secs > 0.0 {
        tally.written as f64 / secs
    } else {
        0.0
    };
    let pages = if tally.written == 1 { "page" } else { "pages" };
    let mut s = format!(
        "batch: {} {pages} written, {} skipped, in {secs:.1} s ({rate:.0} pages/s)",
        tally.written, tally.skipped
    );
    if tally.unreadable > 0 {
        let n = tally.unreadable;
        let inputs = if n == 1 { "input" } else { "inputs" };
        s.push_str(&format!("; {n} {inputs} could not be read"));
    }
    s
}

/// A one-line progress report on standard error, redrawn at most ten times
/// a second, and only when standard error is a terminal.
struct Progress {
    on: bool,
    start: Instant,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    fn new(on: bool, start: Instant) -> Self {
        Progress {
            on,
            start,
            last: None,
            shown: false,
        }
    }

    fn show(&mut self, tally: &Tally) {
        let now = Instant::now();
        if !self.on
            || self
                .last
                .is_some_and(|t| now - t < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(now);
        let secs = (now - self.start).as_secs_f64().max(1e-3);
        out::prompt(&format!(
            "\r\x1b[2K{} pages, {:.0} pages/s, {} skipped",
            tally.written,
            tally.written as f64 / secs,
            tally.skipped
        ));
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            out::prompt("\r\x1b[2K");
            self.shown = false;
        }
    }
}
