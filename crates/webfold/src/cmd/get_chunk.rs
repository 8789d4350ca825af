use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use webfold_core::chunk::ChunkOptions;

use crate::flags::Flags;

/// Print one element's HTML from a conversation on a running bridge.
#[derive(Parser)]
#[command(
    after_help = "Example:\n  webfold get-chunk --conversation-id 3f2a…c9 --selector \"section.hero\"\n\nOn error prints `error: …` on stderr and exits with code 1."
)]
pub struct Args {
    /// Conversation id returned by POST /conversations
    #[arg(long)]
    conversation_id: String,
    #[command(flatten)]
    view: Flags<ChunkOptions>,
    /// Bridge server URL
    #[arg(long, default_value = "http://localhost:3456")]
    bridge_url: String,
    /// File holding the bridge's bearer token (when it was started with --token-file)
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Print the bridge's JSON answer instead of the HTML
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // Exit code 1 with the reason on one line, as every command reports errors.
    let out = fetch(&args).map_err(anyhow::Error::msg)?;
    crate::out::line(&out)
}

fn fetch(args: &Args) -> Result<String, String> {
    let request = &args.view.request;
    request
        .named(webfold_core::contract::Surface::Cli)
        .map_err(|e| e.to_string())?;
    // The same options, as the bridge's query parameters.
    let mut params: Vec<(String, String)> = Vec::new();
    if let Ok(serde_json::Value::Object(options)) = serde_json::to_value(request) {
        for (k, v) in options {
            match v {
                serde_json::Value::Null => {}
                serde_json::Value::String(s) => params.push((k, s)),
                serde_json::Value::Array(items) => params.extend(
                    items
                        .into_iter()
                        .filter_map(|i| i.as_str().map(|s| (k.clone(), s.to_string()))),
                ),
                other => params.push((k, other.to_string())),
            }
        }
    }
    let base = args.bridge_url.trim_end_matches('/');
    let mut url = url::Url::parse(&format!("{base}/conversations/"))
        .map_err(|e| format!("invalid --bridge-url '{}': {e}", args.bridge_url))?;
    url.path_segments_mut()
        .map_err(|_| format!("invalid --bridge-url '{}'", args.bridge_url))?
        .pop_if_empty()
        .push(&args.conversation_id)
        .push("chunk");
    url.query_pairs_mut()
        .extend_pairs(params.iter().map(|(k, v)| (k.as_str(), v.as_str())));

    let token = match &args.token_file {
        Some(p) => Some(webfold_server::security::Token::read_file(p)?),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let (status, body) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        let mut req = client.get(url.clone());
        if let Some(t) = &token {
            req = req.bearer_auth(t.secret());
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_connect() {
                format!("cannot reach the bridge at {base}: is `webfold serve` running? (pass --bridge-url if it listens elsewhere)")
            } else {
                format!("request to {base} failed: {e}")
            }
        })?;
        let status = resp.status().as_u16();
        let body = resp.text().await.map_err(|e| format!("reading the bridge's answer failed: {e}"))?;
        Ok::<_, String>((status, body))
    })?;
    let json: serde_json::Value = serde_json::from_str(&body).map_err(|_| {
        format!("the bridge at {base} answered HTTP {status} with something that is not JSON")
    })?;
    if let Some(err) = json.get("error").and_then(|e| e.as_str()) {
        let mut msg = err.to_string();
        if let Some(s) = json
            .get("suggestions")
            .and_then(|s| s.as_array())
            .filter(|s| !s.is_empty())
        {
            let list: Vec<&str> = s.iter().filter_map(|v| v.as_str()).collect();
            msg.push_str(&format!(" (did you mean: {}?)", list.join(", ")));
        } else if let Some(d) = json.get("detail").and_then(|d| d.as_str()) {
            msg.push_str(&format!(": {d}"));
        }
        return Err(msg);
    }
    if args.json {
        return Ok(json.to_string());
    }
    json.get("html")
        .and_then(|h| h.as_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("the bridge at {base} answered HTTP {status} without html"))
}
