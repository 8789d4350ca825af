//! What the inputs hold, as one stream of pages to fold and notes to pass
//! on: WARC files (plain or gzip), folders of HTML files (walked in name
//! order, `.html`/`.htm`, optionally `.gz`), and single HTML files.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::fold::PageIn;
use crate::http;
use crate::warc::{MAX_BLOCK_BYTES, Record, WarcError, WarcReader, holds_pages};

/// Largest HTML file read.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A page to fold, with what its source said about it.
#[derive(Clone, Debug, Default)]
pub struct PageBytes {
    pub bytes: Vec<u8>,
    pub url: String,
    pub content_type: Option<String>,
    pub content_language: Option<String>,
    /// Where it is, for a message: the file, and in a WARC the record's place.
    pub at: String,
}

impl PageBytes {
    pub fn page_in(&self) -> PageIn<'_> {
        PageIn {
            bytes: &self.bytes,
            url: Some(&self.url),
            content_type: self.content_type.as_deref(),
            content_language: self.content_language.as_deref(),
        }
    }
}

/// Something to tell the user, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// A record or file skipped; the rest of its input is read.
    Skipped { what: String, why: String },
    /// An input read up to a point and no further.
    Stopped { input: String, why: String },
    /// An input that could not be read at all.
    Unreadable { input: String, why: String },
    /// An input was opened (whatever then comes of its records).
    Opened { input: String },
}

/// One element of the stream.
#[derive(Debug)]
pub enum Item {
    Page(Box<PageBytes>),
    Note(Note),
}

type Items = Box<dyn Iterator<Item = Item> + Send>;

/// Every input's pages and notes, in order, read lazily.
pub fn items(inputs: Vec<PathBuf>) -> impl Iterator<Item = Item> + Send {
    inputs.into_iter().flat_map(|path| match open(&path) {
        Ok(items) => {
            let opened = Item::Note(Note::Opened {
                input: path.display().to_string(),
            });
            Box::new(std::iter::once(opened).chain(items)) as Items
        }
        Err(why) => Box::new(std::iter::once(Item::Note(Note::Unreadable {
            input: path.display().to_string(),
            why,
        }))),
    })
}

/// What one input holds, or why it cannot be read.
fn open(path: &Path) -> Result<Items, String> {
    let meta = std::fs::metadata(path).map_err(|e| io_reason(&e))?;
    if meta.is_dir() {
        let files = html_files(path)?;
        if files.is_empty() {
            return Err("the folder holds no .html or .htm files (nor .html.gz, .htm.gz)".into());
        }
        return Ok(Box::new(files.into_iter().map(|f| file_item(&f))));
    }
    if is_warc(path).map_err(|e| io_reason(&e))? {
        let file = File::open(path).map_err(|e| io_reason(&e))?;
        let reader = WarcReader::new(file).map_err(|e| io_reason(&e))?;
        let name = path.display().to_string();
        return Ok(Box::new(reader.filter_map(move |r| warc_item(&name, r))));
    }
    if named_warc(path) {
        return Err("not a WARC file: it does not start with a WARC/1.0 or WARC/1.1 line".into());
    }
    Ok(Box::new(std::iter::once(file_item(path))))
}

fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or folder".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Whether the file's name says WARC (`.warc`, `.warc.gz`), so that it is
/// never read as one page.
fn named_warc(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let name = name.to_ascii_lowercase();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Whether the file (gzip or not) starts with a WARC version line.
fn is_warc(path: &Path) -> io::Result<bool> {
    let mut file = BufReader::new(File::open(path)?);
    let gzip = file.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let mut head = Vec::new();
    let r = if gzip {
        flate2::bufread::MultiGzDecoder::new(file)
            .take(5)
            .read_to_end(&mut head)
    } else {
        file.take(5).read_to_end(&mut head)
    };
    // Unreadable compressed data is not a WARC; as a page it is refused later.
    Ok(r.is_ok() && head == b"WARC/")
}

/// The HTML files under `dir`, sorted by path (a stack, not recursion).
fn html_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("{}: {}", d.display(), io_reason(&e)))?;
        for entry in entries.flatten() {
            let p = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(_) if is_html_name(&p) => found.push(p),
                _ => {}
            }
        }
    }
    found.sort();
    Ok(found)
}

fn is_html_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    name.ends_with(".html") || name.ends_with(".htm")
}

/// An HTML file (gunzipped if gzip) as a page, its URL a `file:` URL.
fn file_item(path: &Path) -> Item {
    let what = path.display().to_string();
    match read_html_file(path) {
        Ok(bytes) => {
            let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let url = url::Url::from_file_path(&abs)
                .map(String::from)
                .unwrap_or_else(|()| what.clone());
            Item::Page(Box::new(PageBytes {
                bytes,
                url,
                at: what,
                ..Default::default()
            }))
        }
        Err(why) => Item::Note(Note::Skipped { what, why }),
    }
}

fn read_html_file(path: &Path) -> Result<Vec<u8>, String> {
    let mut file = BufReader::new(File::open(path).map_err(|e| io_reason(&e))?);
    let gzip = file
        .fill_buf()
        .map_err(|e| io_reason(&e))?
        .starts_with(&[0x1f, 0x8b]);
    let mut bytes = Vec::new();
    let r = if gzip {
        flate2::bufread::MultiGzDecoder::new(file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)
    };
    match r {
        Err(e) if gzip => return Err(format!("its gzip data cannot be read ({e})")),
        Err(e) => return Err(io_reason(&e)),
        Ok(_) => {}
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("it is over {} MB", MAX_FILE_BYTES >> 20));
    }
    Ok(bytes)
}

/// A WARC record as an item: a page, a note, or nothing (records that are
/// never pages: requests, metadata, warcinfo, revisits).
fn warc_item(file: &str, record: Result<Record, WarcError>) -> Option<Item> {
    let record = match record {
        Ok(r) => r,
        Err(e @ WarcError::Broken { .. }) => {
            return Some(Item::Note(Note::Skipped {
                what: file.to_owned(),
                why: e.to_string(),
            }));
        }
        Err(e @ WarcError::Stopped { .. }) => {
            return Some(Item::Note(Note::Stopped {
                input: file.to_owned(),
                why: e.to_string(),
            }));
        }
    };
    if !holds_pages(&record.kind) {
        return None;
    }
    let url = record.target_uri.clone().unwrap_or_default();
    let at = format!("{file}, {} ({url})", record.at);
    Some(match record_page(record, url) {
        Ok(page) => Item::Page(Box::new(PageBytes { at, ..page })),
        Err(why) => Item::Note(Note::Skipped { what: at, why }),
    })
}

/// The page a `response` or `resource` record holds, or why it holds none.
fn record_page(record: Record, url: String) -> Result<PageBytes, String> {
    if record.length > MAX_BLOCK_BYTES {
        return Err(format!("it is over {} MB", MAX_BLOCK_BYTES >> 20));
    }
    if record.kind.eq_ignore_ascii_case("resource") {
        let ct = record.content_type.clone();
        check_html(ct.as_deref())?;
        return Ok(PageBytes {
            bytes: record.block,
            url,
            content_type: ct,
            ..Default::default()
        });
    }
    let response = http::parse(&record.block)?;
    if !(200..300).contains(&response.status) {
        return Err(format!("HTTP status {}, not a page", response.status));
    }
    let content_type = response.header("Content-Type").map(str::to_owned);
    check_html(content_type.as_deref())?;
    let content_language = response.header("Content-Language").map(str::to_owned);
    Ok(PageBytes {
        bytes: response.body,
        url,
        content_type,
        content_language,
        ..Default::default()
    })
}

/// HTML by its media type; none given is left to the page check.
fn check_html(content_type: Option<&str>) -> Result<(), String> {
    let Some(ct) = content_type else {
        return Ok(());
    };
    let mime = webfold_core::fetch_view::mime_essence(ct);
    if mime.is_empty() || mime == "text/html" || mime == "application/xhtml+xml" {
        Ok(())
    } else {
        Err(format!("not HTML ({mime})"))
    }
}
