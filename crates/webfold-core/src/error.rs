//! Errors a view can return. Each says what went wrong and what to do next.

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum Error {
    /// A selector that does not parse. `{}` prints one line (`invalid selector
    /// 'a[]': expected an attribute name after '[' (at column 3)`); `{:#}` adds
    /// the selector again with a caret under the column, for surfaces that can
    /// show several lines.
    #[error(fmt = fmt_invalid_selector)]
    InvalidSelector {
        selector: String,
        /// 1-based column (in characters) of the first character that makes
        /// the selector invalid; one past the end when it stops too early.
        position: usize,
        /// What is wrong there, in plain words.
        reason: String,
    },

    #[error("Element not found: {selector}{}", suggest(.suggestions))]
    ElementNotFound {
        selector: String,
        suggestions: Vec<String>,
    },

    /// The id as given (any whole number a request can hold).
    #[error("unknown node id {0}: take ids from an outline or CNT of this same page")]
    UnknownNodeId(u64),

    #[error("no element {0} in the last snapshot; take a new snapshot and use one of its refs")]
    UnknownRef(String),

    #[error("{0}")]
    InvalidOption(String),

    /// The input has nothing but white space in it.
    #[error("empty input: there is no page to read; pass the HTML of a web page")]
    EmptyInput,

    /// The input is a binary file, not a page (what it looks like inside).
    #[error("not HTML ({0}): pass the HTML of a web page")]
    NotHtml(String),

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

fn fmt_invalid_selector(
    selector: &str,
    position: &usize,
    reason: &str,
    f: &mut std::fmt::Formatter<'_>,
) -> std::fmt::Result {
    let (shown, caret) = excerpt(selector, *position);
    write!(
        f,
        "invalid selector '{shown}': {reason} (at column {position})"
    )?;
    if f.alternate() {
        write!(f, "\n  {shown}\n  {:caret$}^", "")?;
    }
    Ok(())
}

/// Longest stretch of a selector an error message repeats.
const EXCERPT_CHARS: usize = 80;

/// The part of `selector` to show around 1-based `column`, on one line, and
/// the 0-based offset of the caret in it. Control characters (a pasted newline
/// or tab) show as spaces so the message stays on its line and the caret stays
/// under its character; a long selector is cut to a window with `…`.
fn excerpt(selector: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = selector
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let at = column.saturating_sub(1).min(chars.len());
    if chars.len() <= EXCERPT_CHARS {
        return (chars.into_iter().collect(), at);
    }
    let start = at
        .saturating_sub(EXCERPT_CHARS / 2)
        .min(chars.len() - EXCERPT_CHARS);
    let end = start + EXCERPT_CHARS;
    let mut shown = String::new();
    let mut caret = at - start;
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    (shown, caret)
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" (did you mean: {}?)", s.join(", "))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
