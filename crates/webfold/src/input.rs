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
    /// The page as Chromium rendered it (`--browser`), with real layout.
    pub live: Option<Page>,
}

/// What every view command reads besides the view's own options: the page,
/// how to render it, and the tokenizer budgets count with.
#[derive(clap::Args, Clone, Debug)]
pub struct ViewInput {
    /// File path, http(s) or file URL, or - for standard input
    pub input: String,
    /// Tokenizer vocabulary budgets and counts use
    #[arg(long, default_value = "o200k_base", value_name = "ENCODING")]
    pub encoding: webfold_core::tokens::Encoding,
    #[command(flatten)]
    pub browser: BrowserArgs,
}

impl ViewInput {
    pub fn load(&self) -> anyhow::Result<Input> {
        Input::load_with(&self.input, &self.browser)
    }
}

/// `--browser` and its options, shared by every command that renders a view.
#[derive(clap::Args, Clone, Debug)]
pub struct BrowserArgs {
    /// Render INPUT in headless Chromium first and compute the view from the
    /// live page: CSS-hidden elements vanish, scripts have run, and boxes and
    /// the viewport are real
    #[arg(long)]
    pub browser: bool,
    #[command(flatten)]
    pub chromium: ChromiumArgs,
}

/// Which Chromium to drive and how: for `--browser` and the servers' browser tools.
#[derive(clap::Args, Clone, Debug)]
pub struct ChromiumArgs {
    /// Browser viewport as WIDTHxHEIGHT
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub viewport: webfold_browser::Viewport,
    /// Attach to a running Chromium's DevTools WebSocket instead of launching one
    #[arg(long, value_name = "WS_URL")]
    pub cdp_url: Option<String>,
    /// Seconds a page may take to load; a browser tool call still running
    /// after twice as long is stopped and its browser closed
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub browser_timeout: u64,
}

impl ChromiumArgs {
    pub fn options(&self) -> webfold_browser::BrowserOptions {
        webfold_browser::BrowserOptions {
            cdp_url: self.cdp_url.clone(),
            viewport: self.viewport,
            navigation_timeout: std::time::Duration::from_secs(self.browser_timeout),
            ..Default::default()
        }
    }
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
            return Ok(Input {
                bytes,
                url: None,
                content_type: None,
                live: None,
            });
        }
        if spec.starts_with("http://") || spec.starts_with("https://") {
            return Input::fetch(spec);
        }
        let path = match spec.strip_prefix("file://") {
            Some(rest) => rest.to_string(),
            None => spec.to_string(),
        };
        let meta = std::fs::metadata(&path).with_context(|| {
            format!("cannot read '{path}' (pass a file path, an http(s) URL, or - for stdin)")
        })?;
        if meta.is_dir() {
            bail!("'{path}' is a directory; pass an HTML file");
        }
        check_size(meta.len(), &path)?;
        let bytes = std::fs::read(&path).with_context(|| format!("cannot read '{path}'"))?;
        Ok(Input {
            bytes,
            url: None,
            content_type: None,
            live: None,
        })
    }

    /// Fetches an http(s) URL; `url` becomes the final URL after redirects, so
    /// relative links resolve against it.
    pub fn fetch(url: &str) -> anyhow::Result<Input> {
        let opts = webfold_fetch::FetchOptions {
            max_bytes: MAX_INPUT_BYTES.min(webfold_fetch::DEFAULT_MAX_BYTES),
            ..Default::default()
        };
        let fetched = block_on(webfold_fetch::fetch(url, &opts))??;
        Ok(Input {
            url: Some(fetched.final_url.to_string()),
            content_type: fetched.content_type.or(Some(fetched.mime)),
            bytes: fetched.body,
            live: None,
        })
    }

    /// The input decoded to text as a browser would.
    pub fn text(&self) -> String {
        decode_html(&self.bytes, self.content_type.as_deref()).text
    }

    /// The page a view is made of; empty input and binary files are refused.
    pub fn page(&self) -> anyhow::Result<Page> {
        if let Some(page) = &self.live {
            return Ok(page.clone());
        }
        Ok(Page::parse(&self.page_text()?))
    }

    /// [`Self::text`] of input that is a page: empty input and binary files
    /// are refused.
    pub fn page_text(&self) -> anyhow::Result<String> {
        let text = self.text();
        webfold_core::decode::check_page(&self.bytes, &text)?;
        Ok(text)
    }

    /// Loads INPUT, rendering it in Chromium first when `--browser` is given.
    pub fn load_with(spec: &str, browser: &BrowserArgs) -> anyhow::Result<Input> {
        if !browser.browser {
            return Input::load(spec);
        }
        let url = browser_url(spec)?;
        let opts = browser.chromium.options();
        let captured = block_on(async move {
            let chromium = webfold_browser::Browser::launch(opts).await?;
            let tab = chromium.new_tab().await?;
            tab.navigate(&url).await?;
            let captured = tab.capture().await;
            // A browser we attached to keeps running; only our tab goes.
            let _ = tab.close().await;
            captured
        })??;
        Ok(Input {
            bytes: captured
                .page
                .outer_html(webfold_core::NodeId::DOCUMENT)
                .into_bytes(),
            url: Some(captured.url),
            content_type: Some("text/html; charset=utf-8".to_string()),
            live: Some(captured.page),
        })
    }
}

/// The URL Chromium opens for INPUT: URLs as given, files as file:// URLs.
pub(crate) fn browser_url(spec: &str) -> anyhow::Result<String> {
    if spec == "-" {
        bail!("--browser renders a file or URL, not standard input; save the page to a file first");
    }
    if ["http://", "https://", "file://", "about:", "data:"]
        .iter()
        .any(|p| spec.starts_with(p))
    {
        return Ok(spec.to_string());
    }
    let path = std::fs::canonicalize(spec)
        .with_context(|| format!("cannot read '{spec}' (pass a file path or an http(s) URL)"))?;
    if path.is_dir() {
        bail!("'{spec}' is a directory; pass an HTML file");
    }
    let url = url::Url::from_file_path(&path)
        .map_err(|()| anyhow::anyhow!("cannot turn '{}' into a file:// URL", path.display()))?;
    Ok(url.to_string())
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

/// Runs a future to completion on a single-threaded runtime: the CLI does one
/// request at a time, so it needs no thread pool.
pub fn block_on<F: std::future::Future>(future: F) -> anyhow::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime for fetching")?;
    Ok(runtime.block_on(future))
}
