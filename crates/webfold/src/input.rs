//! Reading INPUT: a file path, a `file://` URL, an http(s) URL, or `-` for stdin.

use std::io::Read;

use anyhow::{Context, bail};
use webfold_core::Page;
use webfold_core::decode::decode_html;

/// Raw input bytes and what we know about where they came from.
pub struct Input {
    pub bytes: Vec<u8>,
    /// The URL the page came from, to resolve relative links against.
    pub url: Option<String>,
    /// The `Content-Type` header, when fetched.
    pub content_type: Option<String>,
}

/// Inputs larger than this are refused before parsing: a clear error beats
/// an out-of-memory kill.
const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

impl Input {
    pub fn load(spec: &str) -> anyhow::Result<Input> {
        if spec == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_INPUT_BYTES + 1)
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            check_size(bytes.len() as u64, "standard input")?;
            return Ok(Input { bytes, url: None, content_type: None });
        }
        if spec.starts_with("http://") || spec.starts_with("https://") {
            bail!("fetching URLs is not available in this build yet; save the page and pass the file");
        }
        let path = match spec.strip_prefix("file://") {
            Some(rest) => rest.to_string(),
            None => spec.to_string(),
        };
        let meta = std::fs::metadata(&path)
            .with_context(|| format!("cannot read '{path}' (pass a file path, an http(s) URL, or - for stdin)"))?;
        if meta.is_dir() {
            bail!("'{path}' is a directory; pass an HTML file");
        }
        check_size(meta.len(), &path)?;
        let bytes = std::fs::read(&path).with_context(|| format!("cannot read '{path}'"))?;
        Ok(Input { bytes, url: None, content_type: None })
    }

    /// The input decoded to text as a browser would.
    pub fn text(&self) -> String {
        decode_html(&self.bytes, self.content_type.as_deref()).text
    }

    pub fn page(&self) -> Page {
        Page::parse(&self.text())
    }
}

fn check_size(len: u64, what: &str) -> anyhow::Result<()> {
    if len > MAX_INPUT_BYTES {
        bail!(
            "{what} is larger than {} MB; webfold reads pages up to that size",
            MAX_INPUT_BYTES / (1024 * 1024)
        );
    }
    Ok(())
}
