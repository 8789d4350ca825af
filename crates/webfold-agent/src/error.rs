//! Errors of the provider clients and of the loop. Each says what went wrong
//! and what to do next.

use std::time::Duration;

use crate::provider::ProviderKind;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error(
        "no API key for {kind}: set {var}, or pass a local server's address with --base-url (no key needed on 127.0.0.1 or localhost)"
    )]
    MissingKey {
        kind: ProviderKind,
        var: &'static str,
    },

    #[error("invalid base URL '{url}': {reason}")]
    BadUrl { url: String, reason: String },

    #[error("{kind} refused the API key (HTTP {status}): {message}; check {var}")]
    Unauthorized {
        kind: ProviderKind,
        status: u16,
        message: String,
        var: &'static str,
    },

    #[error(
        "{kind} answered HTTP {status}: {message}{}",
        advice(*.status)
    )]
    Status {
        kind: ProviderKind,
        status: u16,
        message: String,
    },

    #[error(
        "{kind} is still failing after {attempts} attempts ({}): {message}; try again later",
        last_failure(*.status)
    )]
    RetriesExhausted {
        kind: ProviderKind,
        attempts: u32,
        /// The last HTTP status, or `None` when the reply broke off.
        status: Option<u16>,
        message: String,
    },

    #[error(
        "{kind} asked to wait {} s before retrying, more than the {} s this run waits; try again later",
        .wait.as_secs(),
        .limit.as_secs()
    )]
    WaitTooLong {
        kind: ProviderKind,
        wait: Duration,
        limit: Duration,
    },

    #[error(
        "no answer from {kind} within {} s; raise the timeout or check the server",
        .after.as_secs_f64()
    )]
    Timeout { kind: ProviderKind, after: Duration },

    #[error("cannot reach {kind} at {url}: {reason}; check --base-url and that the server runs")]
    Connect {
        kind: ProviderKind,
        url: String,
        reason: String,
    },

    #[error("{kind} sent an answer this client cannot read: {reason}")]
    BadReply { kind: ProviderKind, reason: String },

    #[error("cancelled")]
    Cancelled,
}

fn last_failure(status: Option<u16>) -> String {
    match status {
        Some(s) => format!("last HTTP {s}"),
        None => "the last reply broke off".into(),
    }
}

fn advice(status: u16) -> &'static str {
    match status {
        404 => "; check --base-url and --model",
        400 | 422 => "; the request was refused as sent (a model that does not support tools?)",
        _ => "",
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Provider(#[from] ProviderError),

    #[error("invalid final-answer schema: {0}")]
    Schema(String),

    /// Even the full-HTML fallback gave no answer that fits the schema.
    #[error("no valid answer: {0}")]
    NoAnswer(String),

    #[error(transparent)]
    Page(#[from] webfold_core::Error),
}
