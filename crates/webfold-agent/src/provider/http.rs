//! One call over HTTP: attempts under a timeout and a cancellation token,
//! retried with backoff on 429/5xx (and on streams that break off), reading
//! the reply whole or as server-sent events.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{ProviderConfig, ProviderKind, anthropic, openai};
use crate::error::ProviderError;
use crate::message::{Reply, Retry};
use crate::sse;

/// Largest reply read, streamed or not: far above any real reply, low enough
/// that a broken server cannot fill memory.
const MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;
/// Most of an error body kept for the message.
const MAX_ERROR_CHARS: usize = 500;

/// Why one attempt failed.
pub(super) enum Fail {
    /// Worth another attempt: a busy server, a 5xx, a stream cut short.
    Retry {
        status: Option<u16>,
        after: Option<Duration>,
        message: String,
    },
    Fatal(ProviderError),
}

pub(super) async fn call(
    http: &reqwest::Client,
    cfg: &ProviderConfig,
    body: Value,
    cancel: CancellationToken,
) -> Result<Reply, ProviderError> {
    let body = serde_json::to_vec(&body).map_err(|e| ProviderError::BadReply {
        kind: cfg.kind,
        reason: format!("cannot encode the request: {e}"),
    })?;
    let mut retries: Vec<Retry> = Vec::new();
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let once = tokio::time::timeout(cfg.timeout, attempt_once(http, cfg, &body));
        let outcome = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            r = once => r,
        };
        let fail = match outcome {
            Err(_) => {
                return Err(ProviderError::Timeout {
                    kind: cfg.kind,
                    after: cfg.timeout,
                });
            }
            Ok(Ok(mut reply)) => {
                reply.retries = retries;
                return Ok(reply);
            }
            Ok(Err(Fail::Fatal(e))) => return Err(e),
            Ok(Err(Fail::Retry {
                status,
                after,
                message,
            })) => (status, after, message),
        };
        let (status, after, message) = fail;
        if attempt > cfg.retry.max_retries {
            return Err(ProviderError::RetriesExhausted {
                kind: cfg.kind,
                attempts: attempt,
                status,
                message,
            });
        }
        let wait = match after {
            Some(w) if w > cfg.retry.max_wait => {
                return Err(ProviderError::WaitTooLong {
                    kind: cfg.kind,
                    wait: w,
                    limit: cfg.retry.max_wait,
                });
            }
            Some(w) => w,
            None => backoff(&cfg.retry, attempt),
        };
        retries.push(Retry {
            status,
            waited_ms: wait.as_millis() as u64,
            from_header: after.is_some(),
        });
        tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// The wait before retry number `attempt` (1-based): doubling from the base,
/// capped, with up to a quarter of jitter so clients that failed together do
/// not come back together.
fn backoff(p: &super::RetryPolicy, attempt: u32) -> Duration {
    let exp = p
        .base_delay
        .saturating_mul(1u32 << (attempt - 1).min(16))
        .min(p.max_delay);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let quarter = exp.as_nanos() as u64 / 4;
    let jitter = if quarter == 0 {
        0
    } else {
        u64::from(nanos) % quarter
    };
    exp + Duration::from_nanos(jitter)
}

/// The server's wait: `retry-after-ms` (OpenAI's), else `retry-after` in
/// seconds or as an HTTP date (a date past is no wait).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    retry_after_at(headers, std::time::SystemTime::now())
}

fn retry_after_at(headers: &HeaderMap, now: std::time::SystemTime) -> Option<Duration> {
    let num = |v: &HeaderValue| v.to_str().ok()?.trim().parse::<f64>().ok();
    // A wait too large for a Duration is refused as too long, not a panic.
    let secs = |x: f64| {
        (x.is_finite() && x >= 0.0).then(|| Duration::try_from_secs_f64(x).unwrap_or(Duration::MAX))
    };
    if let Some(ms) = headers.get("retry-after-ms").and_then(num) {
        return secs(ms / 1000.0);
    }
    let after = headers.get("retry-after")?;
    if let Some(n) = num(after) {
        return secs(n);
    }
    let date = httpdate::parse_http_date(after.to_str().ok()?.trim()).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

fn retryable(status: u16) -> bool {
    // 529 is Anthropic's "overloaded".
    status == 408 || status == 429 || status >= 500
}

/// The POST of `body` to `url`, with the provider's headers and key.
fn request(
    http: &reqwest::Client,
    cfg: &ProviderConfig,
    url: reqwest::Url,
    body: &[u8],
) -> reqwest::RequestBuilder {
    let mut req = http
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_vec());
    if cfg.stream {
        req = req.header("accept", "text/event-stream");
    }
    match (cfg.kind, &cfg.api_key) {
        (ProviderKind::Anthropic, key) => {
            let r = req.header("anthropic-version", "2023-06-01");
            match key {
                Some(k) => r.header("x-api-key", k),
                None => r,
            }
        }
        (ProviderKind::OpenAi, Some(k)) => req.bearer_auth(k),
        (ProviderKind::OpenAi, None) => req,
    }
}

/// An error status: worth another try (overloaded, rate limited), a key
/// refused, or a request the provider will never take.
fn status_failure(
    cfg: &ProviderConfig,
    status: u16,
    after: Option<Duration>,
    message: String,
) -> Fail {
    if retryable(status) {
        Fail::Retry {
            status: Some(status),
            after,
            message,
        }
    } else if status == 401 || status == 403 {
        Fail::Fatal(ProviderError::Unauthorized {
            kind: cfg.kind,
            status,
            message,
            var: cfg.kind.key_var(),
        })
    } else {
        Fail::Fatal(ProviderError::Status {
            kind: cfg.kind,
            status,
            message,
        })
    }
}

async fn attempt_once(
    http: &reqwest::Client,
    cfg: &ProviderConfig,
    body: &[u8],
) -> Result<Reply, Fail> {
    let url = cfg.endpoint();
    let req = request(http, cfg, url.clone(), body);
    let mut resp = req.send().await.map_err(|e| {
        if e.is_connect() {
            Fail::Fatal(ProviderError::Connect {
                kind: cfg.kind,
                url: url.to_string(),
                reason: root_cause(&e),
            })
        } else {
            Fail::Retry {
                status: None,
                after: None,
                message: root_cause(&e),
            }
        }
    })?;
    let status = resp.status().as_u16();
    if !resp.status().is_success() {
        let after = retry_after(resp.headers());
        let text = read_all(&mut resp).await.unwrap_or_default();
        return Err(status_failure(cfg, status, after, error_message(&text)));
    }
    let bad = |reason: String| {
        Fail::Fatal(ProviderError::BadReply {
            kind: cfg.kind,
            reason,
        })
    };
    let is_sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        // A server may answer whole even when asked to stream.
        let text = read_all(&mut resp).await?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| bad(format!("the reply is not JSON ({e})")))?;
        return match cfg.kind {
            ProviderKind::Anthropic => anthropic::parse(&json),
            ProviderKind::OpenAi => openai::parse(&json),
        }
        .map_err(bad);
    }
    read_stream(cfg.kind, &mut resp).await
}

/// Replies streamed by either provider, gathered as they arrive.
enum Gather {
    Anthropic(anthropic::Stream),
    OpenAi(openai::Stream),
}

/// What a stream event did.
pub(super) enum Step {
    More,
    Done,
}

async fn read_stream(kind: ProviderKind, resp: &mut reqwest::Response) -> Result<Reply, Fail> {
    let mut reader = sse::Reader::default();
    let mut gather = match kind {
        ProviderKind::Anthropic => Gather::Anthropic(anthropic::Stream::default()),
        ProviderKind::OpenAi => Gather::OpenAi(openai::Stream::default()),
    };
    let mut total = 0usize;
    let broke = |message: String| Fail::Retry {
        status: None,
        after: None,
        message,
    };
    loop {
        let chunk = resp
            .chunk()
            .await
            .map_err(|e| broke(format!("the stream broke off: {}", root_cause(&e))))?;
        let ended = chunk.is_none();
        let events = match chunk {
            Some(bytes) => {
                total += bytes.len();
                if total > MAX_REPLY_BYTES {
                    return Err(Fail::Fatal(ProviderError::BadReply {
                        kind,
                        reason: format!("the reply is larger than {MAX_REPLY_BYTES} bytes"),
                    }));
                }
                reader.push(&bytes).map_err(broke)?
            }
            None => reader.finish().into_iter().collect(),
        };
        for ev in events {
            let step = match &mut gather {
                Gather::Anthropic(s) => s.event(&ev),
                Gather::OpenAi(s) => s.event(&ev),
            }?;
            if let Step::Done = step {
                return finish(gather);
            }
        }
        if ended {
            // The body ended without the provider's end marker; a reply
            // that is complete anyway (some servers leave the marker out)
            // is kept, a cut one retried.
            return finish(gather);
        }
    }
}

fn finish(gather: Gather) -> Result<Reply, Fail> {
    let r = match gather {
        Gather::Anthropic(s) => s.finish(),
        Gather::OpenAi(s) => s.finish(),
    };
    r.map_err(|message| Fail::Retry {
        status: None,
        after: None,
        message,
    })
}

async fn read_all(resp: &mut reqwest::Response) -> Result<String, Fail> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| Fail::Retry {
        status: None,
        after: None,
        message: format!("the reply broke off: {}", root_cause(&e)),
    })? {
        if buf.len() + chunk.len() > MAX_REPLY_BYTES {
            return Err(Fail::Retry {
                status: None,
                after: None,
                message: format!("the reply is larger than {MAX_REPLY_BYTES} bytes"),
            });
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The provider's own error message (`{"error": {"message": …}}` in both
/// formats), else the start of the body.
fn error_message(text: &str) -> String {
    let from_json = serde_json::from_str::<Value>(text).ok().and_then(|v| {
        let e = v.get("error")?;
        e.get("message")
            .and_then(Value::as_str)
            .or_else(|| e.as_str())
            .map(str::to_string)
    });
    let msg = from_json.unwrap_or_else(|| text.trim().to_string());
    if msg.is_empty() {
        return "no details given".into();
    }
    let mut cut: String = msg.chars().take(MAX_ERROR_CHARS).collect();
    if cut.len() < msg.len() {
        cut.push('…');
    }
    cut
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &dyn std::error::Error = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("15"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(15)));
        h.insert("retry-after-ms", HeaderValue::from_static("1e300"));
        assert_eq!(retry_after(&h), Some(Duration::MAX));
        h.insert("retry-after-ms", HeaderValue::from_static("-3"));
        assert_eq!(retry_after(&h), None);
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:27:57 GMT").unwrap();
        assert_eq!(retry_after_at(&h, now), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let p = super::super::RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
            ..Default::default()
        };
        let b1 = backoff(&p, 1);
        assert!(b1 >= Duration::from_millis(100) && b1 < Duration::from_millis(125));
        let b2 = backoff(&p, 2);
        assert!(b2 >= Duration::from_millis(200) && b2 < Duration::from_millis(250));
        let b9 = backoff(&p, 9);
        assert!(b9 >= Duration::from_millis(300) && b9 < Duration::from_millis(375));
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "Overloaded"
        );
        assert_eq!(error_message(""), "no details given");
        assert_eq!(error_message("plain"), "plain");
    }
}
