//! LLM providers over HTTP: Anthropic's Messages API and OpenAI-compatible
//! Chat Completions (OpenAI itself, and local servers such as llama.cpp,
//! Ollama and vLLM). Both with native tool calling and streaming; every call
//! retries 429 and 5xx answers with backoff, waiting as long as the server's
//! `retry-after` says, under a timeout and a cancellation token.

mod anthropic;
mod http;
mod openai;

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::ProviderError;
use crate::message::{Message, Reply, ToolChoice, ToolSpec};

/// Which wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Anthropic,
    /// OpenAI's Chat Completions, as OpenAI and compatible servers serve it.
    #[serde(rename = "openai")]
    OpenAi,
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProviderKind::Anthropic => "Anthropic",
            ProviderKind::OpenAi => "the OpenAI-compatible server",
        })
    }
}

impl std::str::FromStr for ProviderKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "anthropic" => Ok(ProviderKind::Anthropic),
            "openai" => Ok(ProviderKind::OpenAi),
            _ => Err(format!("unknown provider '{s}': use anthropic or openai")),
        }
    }
}

impl ProviderKind {
    /// The provider's name as flags and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
        }
    }

    /// The environment variable the API key is read from.
    pub fn key_var(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The provider's own service, as its SDKs name it.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi => "https://api.openai.com/v1",
        }
    }

    pub fn default_model(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "claude-sonnet-4-5",
            ProviderKind::OpenAi => "gpt-4.1",
        }
    }

    /// The endpoint under a base URL, as the SDKs join them: Anthropic's base
    /// is the host (`…/v1/messages` follows), OpenAI's includes `/v1`.
    fn endpoint(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "v1/messages",
            ProviderKind::OpenAi => "chat/completions",
        }
    }
}

/// How often and how long to retry a busy or failing server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff when the server names no wait; doubled each time.
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// The longest `retry-after` obeyed; a longer one ends the call with
    /// an error that says so.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_wait: Duration::from_secs(60),
        }
    }
}

/// Everything a provider client needs.
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub base_url: url::Url,
    pub model: String,
    /// Sent when present; a local server needs none.
    pub api_key: Option<String>,
    /// Longest reply, in tokens (Anthropic requires one; sent to OpenAI-compatible servers as `max_tokens`).
    pub max_output_tokens: u32,
    /// Stream replies as server-sent events.
    pub stream: bool,
    /// Longest wait for one attempt, from sending to the end of the reply.
    pub timeout: Duration,
    pub retry: RetryPolicy,
}

impl ProviderConfig {
    /// A configuration for `kind` at `base_url` (the provider's own service
    /// when `None`) with `model` (a default when `None`), the API key read
    /// from the provider's environment variable. The key may be missing only
    /// for a local server.
    pub fn from_env(
        kind: ProviderKind,
        base_url: Option<&str>,
        model: Option<&str>,
    ) -> Result<ProviderConfig, ProviderError> {
        let key = std::env::var(kind.key_var())
            .ok()
            .filter(|k| !k.trim().is_empty());
        ProviderConfig::new(kind, base_url, model, key)
    }

    /// As [`ProviderConfig::from_env`] with the key given.
    pub fn new(
        kind: ProviderKind,
        base_url: Option<&str>,
        model: Option<&str>,
        api_key: Option<String>,
    ) -> Result<ProviderConfig, ProviderError> {
        let raw = base_url.unwrap_or(kind.default_base_url());
        let base_url = parse_base(raw)?;
        if api_key.is_none() && !is_local(&base_url) {
            return Err(ProviderError::MissingKey {
                kind,
                var: kind.key_var(),
            });
        }
        Ok(ProviderConfig {
            kind,
            base_url,
            model: model.unwrap_or(kind.default_model()).to_string(),
            api_key,
            max_output_tokens: 4096,
            stream: true,
            timeout: Duration::from_secs(300),
            retry: RetryPolicy::default(),
        })
    }

    /// The URL calls are posted to.
    pub fn endpoint(&self) -> url::Url {
        // parse_base ends every base with '/', so joining appends.
        self.base_url
            .join(self.kind.endpoint())
            .unwrap_or_else(|_| self.base_url.clone())
    }
}

fn parse_base(raw: &str) -> Result<url::Url, ProviderError> {
    let bad = |reason: String| ProviderError::BadUrl {
        url: raw.to_string(),
        reason,
    };
    let mut url = url::Url::parse(raw)
        .map_err(|e| bad(format!("{e} (give e.g. http://127.0.0.1:8080/v1)")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("use an http:// or https:// address".into()));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// A server on this machine: no key needed, and none of the user's keys
/// are required to reach it.
pub fn is_local(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// A string in a reply (by JSON pointer), empty when missing: both formats
/// leave fields out freely.
fn str_at(v: &Value, pointer: &str) -> String {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// A token count of a usage object, 0 when missing.
fn count(usage: Option<&Value>, key: &str) -> u64 {
    usage
        .and_then(|u| u.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// One call's input, the same for every provider.
#[derive(Clone, Copy, Debug)]
pub struct ChatRequest<'a> {
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    pub choice: &'a ToolChoice,
}

/// What the loop calls: a provider over HTTP, or anything that answers
/// in-process (benches, tests).
pub trait Model {
    fn call(
        &self,
        req: &ChatRequest<'_>,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<Reply, ProviderError>> + Send;

    /// The request body this model would be sent (for transcripts and the
    /// golden tests); `None` when it is not called over HTTP.
    fn body(&self, _req: &ChatRequest<'_>) -> Option<Value> {
        None
    }
}

/// A provider over HTTP.
#[derive(Clone, Debug)]
pub struct Provider {
    cfg: ProviderConfig,
    http: reqwest::Client,
}

impl Provider {
    pub fn new(cfg: ProviderConfig) -> Result<Provider, ProviderError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| ProviderError::BadUrl {
                url: cfg.base_url.to_string(),
                reason: format!("cannot start the HTTP client: {e}"),
            })?;
        Ok(Provider { cfg, http })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.cfg
    }

    /// The JSON body of one call in the provider's own format.
    pub fn request_body(&self, req: &ChatRequest<'_>) -> Value {
        match self.cfg.kind {
            ProviderKind::Anthropic => anthropic::body(&self.cfg, req),
            ProviderKind::OpenAi => openai::body(&self.cfg, req),
        }
    }
}

impl Model for Provider {
    fn call(
        &self,
        req: &ChatRequest<'_>,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<Reply, ProviderError>> + Send {
        let body = self.request_body(req);
        http::call(&self.http, &self.cfg, body, cancel.clone())
    }

    fn body(&self, req: &ChatRequest<'_>) -> Option<Value> {
        Some(self.request_body(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_needed_except_locally() {
        let e = ProviderConfig::new(ProviderKind::Anthropic, None, None, None).unwrap_err();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        for local in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:9/",
        ] {
            ProviderConfig::new(ProviderKind::OpenAi, Some(local), None, None).unwrap();
        }
        let e = ProviderConfig::new(ProviderKind::OpenAi, Some("http://10.0.0.2/v1"), None, None)
            .unwrap_err();
        assert!(e.to_string().contains("OPENAI_API_KEY"), "{e}");
    }

    #[test]
    fn endpoints_join_as_the_sdks_do() {
        let c = ProviderConfig::new(ProviderKind::Anthropic, None, None, Some("k".into())).unwrap();
        assert_eq!(
            c.endpoint().as_str(),
            "https://api.anthropic.com/v1/messages"
        );
        let c = ProviderConfig::new(ProviderKind::OpenAi, None, None, Some("k".into())).unwrap();
        assert_eq!(
            c.endpoint().as_str(),
            "https://api.openai.com/v1/chat/completions"
        );
        let c = ProviderConfig::new(
            ProviderKind::OpenAi,
            Some("http://127.0.0.1:8080/v1/"),
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            c.endpoint().as_str(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        let e = ProviderConfig::new(ProviderKind::OpenAi, Some("ftp://x"), None, None).unwrap_err();
        assert!(e.to_string().contains("http://"), "{e}");
    }
}
