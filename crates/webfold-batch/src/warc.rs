//! A streaming WARC reader: WARC/1.0 and 1.1, plain or gzip (one member per
//! record, as crawlers write them, or one over the whole file).
//!
//! A record whose header is broken is skipped: the reader looks for the next
//! line that starts a record (`WARC/1.`) and goes on. A file that ends inside
//! a record or a gzip member, or whose compressed data is corrupt, ends the
//! reading there with the place it stopped. Nothing here panics on input.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::GzDecoder;

/// Longest header line read; a longer one is a broken record.
const MAX_LINE: usize = 64 * 1024;
/// Most header lines in a record.
const MAX_HEADERS: usize = 256;
/// Largest block read into memory; larger ones are skipped unread.
pub const MAX_BLOCK_BYTES: u64 = 64 * 1024 * 1024;

/// Where a record starts: a byte of the file, or of the uncompressed data
/// of the gzip member that starts at a byte of the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Byte of the file (of the gzip member holding the record, if gzip).
    pub byte: u64,
    /// Uncompressed bytes into that gzip member.
    pub within: Option<u64>,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.within {
            None => write!(f, "byte {}", self.byte),
            Some(0) => write!(f, "the gzip member at byte {}", self.byte),
            Some(w) => write!(
                f,
                "the gzip member at byte {}, {w} bytes into its data",
                self.byte
            ),
        }
    }
}

/// One WARC record.
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub at: Position,
    /// `WARC-Type` (`response`, `resource`, `request`, `warcinfo`, …).
    pub kind: String,
    /// `WARC-Target-URI`, without the angle brackets WARC/1.0 allowed.
    pub target_uri: Option<String>,
    /// The record's own `Content-Type` (`application/http; msgtype=response`).
    pub content_type: Option<String>,
    /// The block; left empty for records that are never pages (see
    /// [`holds_pages`]) and for blocks over [`MAX_BLOCK_BYTES`].
    pub block: Vec<u8>,
    /// The block's length as the header gave it.
    pub length: u64,
}

/// What went wrong at a place in a WARC file.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// This record is skipped; reading goes on after it.
    #[error("broken record at {at}: {why}; skipped")]
    Broken { at: Position, why: String },
    /// Reading this file ends here.
    #[error("stopped reading at {at}: {why}")]
    Stopped { at: Position, why: String },
}

/// Whether records of this `WARC-Type` can hold a page.
pub fn holds_pages(kind: &str) -> bool {
    kind.eq_ignore_ascii_case("response") || kind.eq_ignore_ascii_case("resource")
}

/// Records of a WARC file, in order. After a [`WarcError::Stopped`] it ends.
pub struct WarcReader<R: Read> {
    stream: Stream<R>,
    /// A record's first line found while skipping a broken record.
    pending: Option<(Position, Vec<u8>)>,
    done: bool,
}

impl<R: Read> WarcReader<R> {
    /// Reads from `input`, gzip or not (told by its first bytes).
    pub fn new(input: R) -> io::Result<Self> {
        let mut input = Counting {
            inner: BufReader::with_capacity(256 * 1024, input),
            pos: 0,
        };
        let gzip = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        let state = if gzip {
            State::Between(input)
        } else {
            State::Plain(input)
        };
        Ok(WarcReader {
            stream: Stream {
                state,
                member_start: 0,
                within: 0,
            },
            pending: None,
            done: false,
        })
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        !matches!(self.stream.state, State::Plain(_))
    }

    fn next_record(&mut self) -> Result<Option<Record>, WarcError> {
        let (at, first) = match self.pending.take() {
            Some(p) => p,
            None => match self.first_line()? {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        if !first.starts_with(b"WARC/") {
            self.resync(at)?;
            return Err(WarcError::Broken {
                at,
                why: "it does not start with a WARC version line".into(),
            });
        }
        let headers = match self.headers(at) {
            Ok(h) => h,
            Err(why) => {
                self.resync(at)?;
                return Err(WarcError::Broken { at, why });
            }
        };
        self.record(at, headers).map(Some)
    }

    /// The next non-blank line and where it starts; none at the end.
    fn first_line(&mut self) -> Result<Option<(Position, Vec<u8>)>, WarcError> {
        loop {
            let at = self.here();
            let line = self.line(at)?;
            if line.is_empty() {
                return Ok(None);
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some((at, line)));
            }
        }
    }

    /// Where the next byte comes from: at a member's end, the next member.
    fn here(&mut self) -> Position {
        // An error here is met again, and reported, by the read that follows.
        let _ = self.stream.fill_buf();
        self.stream.position()
    }

    /// One line, with its line break; empty at the end of the data.
    fn line(&mut self, at: Position) -> Result<Vec<u8>, WarcError> {
        let mut line = Vec::new();
        let r = (&mut self.stream)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line);
        r.map_err(|e| self.stop(at, &e))?;
        Ok(line)
    }

    /// Skips to the next line that starts a record, keeping it for the next
    /// call. `at` is where the broken record started, for the message.
    fn resync(&mut self, at: Position) -> Result<(), WarcError> {
        loop {
            let here = self.here();
            let line = self.line(at)?;
            if line.is_empty() {
                return Ok(());
            }
            if line.starts_with(b"WARC/1.") {
                self.pending = Some((here, line));
                return Ok(());
            }
        }
    }

    /// The header lines after the version line, as name and value.
    fn headers(&mut self, at: Position) -> Result<Vec<(String, String)>, String> {
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            let line = self.line(at).map_err(|e| e.to_string())?;
            if line.is_empty() {
                return Err("the file ends inside its header".into());
            }
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                return Ok(headers);
            }
            if headers.len() >= MAX_HEADERS {
                return Err(format!("its header has over {MAX_HEADERS} lines"));
            }
            // A line starting with white space continues the previous one.
            if line.starts_with([' ', '\t'])
                && let Some((_, value)) = headers.last_mut()
            {
                value.push(' ');
                value.push_str(line.trim());
                continue;
            }
            let Some((name, value)) = line.split_once(':') else {
                return Err(format!("header line '{}' has no ':'", clip(line)));
            };
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }

    fn record(
        &mut self,
        at: Position,
        headers: Vec<(String, String)>,
    ) -> Result<Record, WarcError> {
        let get = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let Some(length) = get("Content-Length").and_then(|v| v.parse::<u64>().ok()) else {
            self.resync(at)?;
            return Err(WarcError::Broken {
                at,
                why: "its Content-Length is missing or not a number".into(),
            });
        };
        let kind = get("WARC-Type").unwrap_or_default();
        let wanted = holds_pages(&kind) && length <= MAX_BLOCK_BYTES;
        let mut block = Vec::new();
        let got = if wanted {
            let r = (&mut self.stream).take(length).read_to_end(&mut block);
            r.map_err(|e| self.stop(at, &e))? as u64
        } else {
            let r = io::copy(&mut (&mut self.stream).take(length), &mut io::sink());
            r.map_err(|e| self.stop(at, &e))?
        };
        if got < length {
            self.done = true;
            return Err(WarcError::Stopped {
                at,
                why: format!(
                    "the file ends inside this record ({got} of its {length} bytes): it is truncated"
                ),
            });
        }
        Ok(Record {
            at,
            target_uri: get("WARC-Target-URI")
                .map(|u| u.trim_start_matches('<').trim_end_matches('>').to_owned()),
            content_type: get("Content-Type"),
            kind,
            block,
            length,
        })
    }

    /// The error that ends reading this file.
    fn stop(&mut self, at: Position, e: &io::Error) -> WarcError {
        self.done = true;
        let why = match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                "the file ends inside a gzip member: it is truncated".to_owned()
            }
            _ => format!("the data cannot be read ({e}); the file is corrupt"),
        };
        WarcError::Stopped { at, why }
    }
}

impl<R: Read> Iterator for WarcReader<R> {
    type Item = Result<Record, WarcError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// The first characters of a line, for a message.
fn clip(line: &str) -> String {
    let mut s: String = line.chars().take(60).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

/// A reader that counts the bytes consumed from it.
struct Counting<R> {
    inner: BufReader<R>,
    pos: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.pos += amt as u64;
    }
}

enum State<R> {
    Plain(Counting<R>),
    /// Inside a gzip member (its decoder stops at the member's end, leaving
    /// the file at the next one). Boxed: the decoder's state is large,
    /// and a file changes state once a record.
    Member(Box<BufReader<GzDecoder<Counting<R>>>>),
    /// Between gzip members.
    Between(Counting<R>),
    /// Only while changing state.
    Gone,
}

/// The file's data, uncompressed across gzip members.
struct Stream<R> {
    state: State<R>,
    /// Where the current gzip member starts in the file.
    member_start: u64,
    /// Uncompressed bytes consumed from the current member.
    within: u64,
}

impl<R: Read> Stream<R> {
    fn position(&self) -> Position {
        match &self.state {
            State::Plain(r) => Position {
                byte: r.pos,
                within: None,
            },
            State::Between(r) => Position {
                byte: r.pos,
                within: Some(0),
            },
            _ => Position {
                byte: self.member_start,
                within: Some(self.within),
            },
        }
    }

    /// Moves past a finished member, or into the next one; false at the end.
    fn advance(&mut self) -> io::Result<bool> {
        match std::mem::replace(&mut self.state, State::Gone) {
            State::Member(d) => {
                self.state = State::Between(d.into_inner().into_inner());
                Ok(true)
            }
            State::Between(mut r) => {
                let more = !r.fill_buf()?.is_empty();
                if more {
                    self.member_start = r.pos;
                    self.within = 0;
                    self.state = State::Member(Box::new(BufReader::new(GzDecoder::new(r))));
                } else {
                    self.state = State::Between(r);
                }
                Ok(more)
            }
            other => {
                self.state = other;
                Ok(false)
            }
        }
    }
}

impl<R: Read> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let got = self.fill_buf()?;
            let n = got.len().min(buf.len());
            buf[..n].copy_from_slice(&got[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Stream<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // First get to a state with data (or the end), then lend its buffer.
        loop {
            let empty = match &mut self.state {
                State::Plain(_) | State::Gone => break,
                State::Member(d) => d.fill_buf()?.is_empty(),
                State::Between(_) => true,
            };
            if !empty {
                break;
            }
            if !self.advance()? {
                return Ok(&[]);
            }
        }
        match &mut self.state {
            State::Plain(r) => r.fill_buf(),
            State::Member(d) => d.fill_buf(),
            _ => Ok(&[]),
        }
    }

    fn consume(&mut self, amt: usize) {
        match &mut self.state {
            State::Plain(r) => r.consume(amt),
            State::Member(d) => {
                d.consume(amt);
                self.within += amt as u64;
            }
            _ => {}
        }
    }
}
