//! The guard in front of every route, `/mcp` included, run before any handler.
//!
//! Threat model (shared/reference/security.md): a malicious page in the user's
//! browser (DNS rebinding, cross-site requests), other local dev servers, and
//! other local users. In order:
//! 1. `Host` must name us (`127.0.0.1|localhost|[::1]` with our port, plus any
//!    configured extras), else 403: a rebinding attacker's page sends its own host.
//! 2. `OPTIONS` (CORS preflight) is refused with 403: we grant no cross-origin access.
//! 3. An `Origin` that is present and not allowlisted gets 403 (MCP spec MUST).
//!    Browsers always send `Origin` on cross-site requests; CLIs and agents send none.
//!    The one origin accepted without `--allow-origin` is the server's own
//!    (`http://` + the Host of the request, when that Host is a loopback name
//!    with our port): no page is ever served from it, so a request from it
//!    cannot come from a web page, and a rebinding page carries its own host,
//!    which step 1 refuses. The MCP conformance suite checks exactly this.
//! 4. With a token configured, `Authorization: Bearer <token>` is required (401),
//!    compared in constant time. Never from the query string: that ends up in logs.
//! 5. Bodies over the limit get 413, from `Content-Length` or while streaming.

use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// A bearer token. Its `Debug` never prints the secret.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Shortest token accepted: anything shorter is guessable.
pub const MIN_TOKEN_LEN: usize = 16;

impl Token {
    pub fn new(secret: impl Into<String>) -> Result<Self, String> {
        let secret = secret.into();
        if secret.len() < MIN_TOKEN_LEN
            || secret.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(format!(
                "a token must be at least {MIN_TOKEN_LEN} characters without spaces; generate one with: head -c 32 /dev/urandom | xxd -p -c 64"
            ));
        }
        Ok(Self(secret))
    }

    /// Whether `candidate` is this token, in time independent of where they differ.
    pub fn matches(&self, candidate: &[u8]) -> bool {
        bool::from(self.0.as_bytes().ct_eq(candidate))
    }

    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Reads a token file, refusing one that other users can read.
    pub fn read_file(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        check_private(path)?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read token file {shown}: {e}"))?;
        Token::new(text.trim()).map_err(|e| format!("token file {shown}: {e}"))
    }

    /// Reads the token file, or creates it with a fresh random token (mode 0600).
    /// Returns the token and whether it was created.
    pub fn read_or_create(path: &Path) -> Result<(Self, bool), String> {
        if path.exists() {
            return Ok((Self::read_file(path)?, false));
        }
        if let Some(dir) = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty() && !d.is_dir())
        {
            return Err(format!(
                "cannot create token file {}: the directory {} does not exist; create it first",
                path.display(),
                dir.display()
            ));
        }
        let mut bytes = [0u8; 32];
        getrandom_fill(&mut bytes)?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        write_private(path, &format!("{secret}\n"))
            .map_err(|e| format!("cannot create token file {}: {e}", path.display()))?;
        Ok((Token(secret), true))
    }
}

fn getrandom_fill(bytes: &mut [u8]) -> Result<(), String> {
    // ConversationId::random is the one CSPRNG entry point we have; 32 bytes = two ids.
    for chunk in bytes.chunks_mut(16) {
        let id = webfold_store::ConversationId::random().map_err(|e| e.to_string())?;
        chunk.copy_from_slice(&id.as_bytes()[..chunk.len()]);
    }
    Ok(())
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read token file {}: {e}", path.display()))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "token file {} is readable by other users (mode {mode:03o}); run: chmod 600 {}",
            path.display(),
            path.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// What the guard lets through.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Accepted `Host` values, lowercase `host:port`.
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` values, exact (e.g. `chrome-extension://<id>`).
    pub allowed_origins: Vec<String>,
    pub token: Option<Token>,
    pub max_body_bytes: usize,
}

impl Policy {
    /// The loopback policy for a server on `port`.
    pub fn loopback(port: u16) -> Self {
        Self {
            allowed_hosts: loopback_hosts(port),
            allowed_origins: Vec::new(),
            token: None,
            max_body_bytes: crate::DEFAULT_MAX_BODY_BYTES,
        }
    }
}

impl Policy {
    /// Whether `origin` is this server's own: `http://` + the request's Host,
    /// that Host being an allowed loopback one (`127.0.0.1`, `localhost` or
    /// `[::1]` with its port). Exact, so `http://127.0.0.1.evil.test:PORT`,
    /// another port or `https://` do not pass.
    pub fn is_own_origin(&self, origin: &str, headers: &axum::http::HeaderMap) -> bool {
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            return false;
        };
        is_loopback_host(host)
            && self
                .allowed_hosts
                .iter()
                .any(|a| a.eq_ignore_ascii_case(host))
            && origin
                .strip_prefix("http://")
                .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
    }

    /// The origins `/mcp`'s own check must accept: the allowlist plus the
    /// server's own origin for each loopback host (the guard pairs each with
    /// its Host first).
    pub fn mcp_origins(&self) -> Vec<String> {
        let own = self.allowed_hosts.iter().filter(|h| is_loopback_host(h));
        self.allowed_origins
            .iter()
            .cloned()
            .chain(own.map(|h| format!("http://{}", h.to_ascii_lowercase())))
            .collect()
    }
}

/// Whether a `host:port` names this machine's loopback interface.
fn is_loopback_host(host: &str) -> bool {
    ["127.0.0.1:", "localhost:", "[::1]:"].iter().any(|p| {
        host.len() > p.len()
            && host.is_char_boundary(p.len())
            && host[..p.len()].eq_ignore_ascii_case(p)
    })
}

/// `127.0.0.1:port`, `localhost:port`, `[::1]:port`.
pub fn loopback_hosts(port: u16) -> Vec<String> {
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .map(|h| format!("{h}:{port}"))
        .collect()
}

fn forbidden(detail: &str) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "Forbidden")
        .detail(detail)
        .into_response()
}

/// The middleware (see the module docs for the order of checks).
pub async fn guard(State(policy): State<Arc<Policy>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host_ok = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| {
            policy
                .allowed_hosts
                .iter()
                .any(|a| a.eq_ignore_ascii_case(h))
        });
    if !host_ok {
        return forbidden(
            "Host header not allowed: connect to 127.0.0.1, localhost or [::1] with the server's port",
        );
    }
    if req.method() == Method::OPTIONS {
        return forbidden(
            "cross-origin requests are not supported: this server grants no CORS access",
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin.to_str().is_ok_and(|o| {
            policy.allowed_origins.iter().any(|a| a == o) || policy.is_own_origin(o, headers)
        });
        if !allowed {
            return forbidden(
                "Origin not allowed: start the server with --allow-origin for a trusted extension origin",
            );
        }
    }
    if let Some(token) = &policy.token {
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
            .unwrap_or(b"");
        // Evaluated whatever `presented` is, so timing says nothing about the token.
        if !token.matches(presented) {
            let mut resp = ApiError::new(StatusCode::UNAUTHORIZED, "Unauthorized")
                .detail("send Authorization: Bearer <token> with the token from the server's --token-file")
                .into_response();
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return resp;
        }
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > policy.max_body_bytes as u64) {
        return too_large(policy.max_body_bytes);
    }
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(BodyLimit(policy.max_body_bytes));
    let limited = Body::new(http_body_util::Limited::new(body, policy.max_body_bytes));
    next.run(Request::from_parts(parts, limited)).await
}

/// The body limit in force, for handlers that report it.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

pub fn too_large(limit: usize) -> Response {
    ApiError::payload_too_large(Some(limit)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_comparison_and_validation() {
        let t = Token::new("0123456789abcdef0123").unwrap();
        assert!(t.matches(b"0123456789abcdef0123"));
        assert!(!t.matches(b"0123456789abcdef0124"));
        assert!(!t.matches(b"0123456789abcdef012"));
        assert!(!t.matches(b""));
        assert!(Token::new("short").is_err());
        assert!(Token::new("has a space in it, long enough").is_err());
        assert_eq!(format!("{t:?}"), "Token(…)");
    }
}
