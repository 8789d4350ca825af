//! Server-sent events, read incrementally from a byte stream: both providers
//! stream their replies this way.

/// One event: its `event:` name (if any) and its `data:` lines joined by `\n`.
#[derive(Debug, PartialEq, Eq)]
pub struct Event {
    pub name: Option<String>,
    pub data: String,
}

/// Feeds bytes in, takes complete events out. Lines are split on bytes, so a
/// UTF-8 character cut between two network chunks is joined before decoding.
#[derive(Default)]
pub struct Reader {
    buf: Vec<u8>,
    name: Option<String>,
    data: Option<String>,
}

/// Longest line kept: a stream that never ends a line is refused, not buffered.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

impl Reader {
    /// The events completed by `bytes`.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(nl) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + nl;
            let line = &self.buf[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = String::from_utf8_lossy(line).into_owned();
            start = end + 1;
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
        }
        self.buf.drain(..start);
        if self.buf.len() > MAX_LINE {
            return Err(format!(
                "an event stream line is longer than {MAX_LINE} bytes"
            ));
        }
        Ok(out)
    }

    /// The event left when the stream ends without a blank line.
    pub fn finish(&mut self) -> Option<Event> {
        if !self.buf.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned();
            if let Some(ev) = self.line(rest.trim_end_matches('\r')) {
                return Some(ev);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None; // a comment (keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.name = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            _ => {} // id, retry: not needed for one reply
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let name = self.name.take();
        let data = self.data.take()?;
        Some(Event { name, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks_and_crlf() {
        let mut r = Reader::default();
        let mut evs = r.push(b"event: a\r\ndata: {\"x\":").unwrap();
        assert!(evs.is_empty());
        evs.extend(
            r.push(b"1}\r\n\r\n: ping\n\ndata: l1\ndata: l2\n\n")
                .unwrap(),
        );
        assert_eq!(
            evs,
            vec![
                Event {
                    name: Some("a".into()),
                    data: "{\"x\":1}".into()
                },
                Event {
                    name: None,
                    data: "l1\nl2".into()
                }
            ]
        );
        assert_eq!(r.finish(), None);
    }

    #[test]
    fn utf8_split_between_chunks() {
        let mut r = Reader::default();
        let s = "data: é\n\n".as_bytes();
        let mut evs = r.push(&s[..7]).unwrap();
        evs.extend(r.push(&s[7..]).unwrap());
        assert_eq!(evs[0].data, "é");
    }

    #[test]
    fn last_event_without_blank_line() {
        let mut r = Reader::default();
        assert!(r.push(b"data: [DONE]").unwrap().is_empty());
        assert_eq!(r.finish().unwrap().data, "[DONE]");
    }
}
