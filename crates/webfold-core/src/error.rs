//! Errors a view can return. Each says what went wrong and what to do next.

use crate::NodeId;

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    #[error("invalid selector '{selector}' at position {position}: {reason}")]
    InvalidSelector {
        selector: String,
        position: usize,
        reason: String,
    },

    #[error("Element not found: {selector}{}", suggest(.suggestions))]
    ElementNotFound {
        selector: String,
        suggestions: Vec<String>,
    },

    #[error(
        "unknown node id {0}: ids come from an outline, CNT or --json output of this page version"
    )]
    UnknownNodeId(NodeId),

    #[error("unknown ref '{0}': take a fresh snapshot and use a ref from it")]
    UnknownRef(String),

    #[error("{0}")]
    InvalidOption(String),

    /// Even the smallest form of a view does not fit the token budget.
    #[error(
        "{what} needs at least {needed} tokens, more than the budget of {max_tokens}: {advice}"
    )]
    BudgetTooSmall {
        what: String,
        needed: usize,
        max_tokens: usize,
        advice: String,
    },
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" (did you mean: {}?)", s.join(", "))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
