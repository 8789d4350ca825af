//! Why a selector does not parse, and where, in words a user can act on.
//!
//! The `selectors` crate reports an error kind without a location, and its
//! kinds are named for its own parser (`NoQualifiedNameInAttributeSelector`);
//! so the column is found by re-parsing prefixes and each kind is worded
//! from what the selector has at that column.

use cssparser::{BasicParseErrorKind, ParseError, ParseErrorKind};
use selectors::parser::SelectorParseErrorKind;

/// The 1-based column where `source` stops being a selector: the end of the
/// shortest prefix that no continuation can turn into one (one past the end
/// when every prefix can still be completed). A name is judged whole, and an
/// invalid one is reported at its first character: `a:hovr` at the `h`.
pub(super) fn error_column(source: &str, parses: impl Fn(&str) -> bool) -> usize {
    // Each ends a different unfinished construct: a name, an attribute
    // selector (bare or inside a string), a function name or argument
    // (`:is`, `:nth-child(`), a pseudo-class after `:`, inside a function.
    const CONTINUATIONS: [&str; 13] = [
        "", "a", "a]", "]", ")", "a)", "1)", "a\"]", "a']", "root", "root)", "(a)", "(1)",
    ];
    let chars: Vec<(usize, char)> = source.char_indices().collect();
    // Selectors are short; a long one is reported at its end rather than
    // re-parsed hundreds of times.
    if source.len() > 512 {
        return chars.len().max(1);
    }
    let mut candidate = String::with_capacity(source.len() + 8);
    let mut name_start = 0;
    for (col, &(i, ch)) in chars.iter().enumerate() {
        let in_name = is_name_char(ch);
        if !in_name || col == 0 || !is_name_char(chars[col - 1].1) {
            name_start = col;
        }
        if in_name && chars.get(col + 1).is_some_and(|&(_, c)| is_name_char(c)) {
            continue;
        }
        let prefix = &source[..i + ch.len_utf8()];
        let completable = CONTINUATIONS.iter().any(|c| {
            candidate.clear();
            candidate.push_str(prefix);
            candidate.push_str(c);
            parses(&candidate)
        });
        if !completable {
            return name_start + 1;
        }
    }
    chars.len() + 1
}

/// A plain reason for `error` in `source`, whose problem is at 1-based `column`.
pub(super) fn describe(
    error: &ParseError<SelectorParseErrorKind>,
    source: &str,
    column: usize,
    parses: impl Fn(&str) -> bool,
) -> String {
    let chars: Vec<char> = source.chars().collect();
    let at = Context {
        chars: &chars,
        i: column.saturating_sub(1),
    };
    match &error.kind {
        ParseErrorKind::Basic(kind) => describe_basic(kind, &at),
        ParseErrorKind::Custom(kind) => describe_custom(kind, &at, &parses),
    }
}

/// An open bracket around the error.
enum Open {
    /// `name(`, lowercase.
    Function(String),
    /// `[`: inside an attribute selector.
    Bracket,
}

/// The selector around the error: `i` is the 0-based index of its character.
struct Context<'a> {
    chars: &'a [char],
    i: usize,
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_' || !c.is_ascii()
}

impl Context<'_> {
    fn char(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.chars[self.i.min(self.chars.len())..]
            .iter()
            .all(|c| c.is_whitespace())
    }

    /// What stands at the column, as the user typed it: a whole name, a
    /// `:`/`::` with the name after it, or one character.
    fn found(&self) -> String {
        let Some(c) = self.char() else {
            return "the end".into();
        };
        let word = |from: usize| -> String {
            self.chars[from..]
                .iter()
                .take_while(|c| is_name_char(**c))
                .collect()
        };
        if c == ':' || (is_name_char(c) && self.i > 0 && self.chars[self.i - 1] == ':') {
            // A pseudo-class or pseudo-element: shown with all its colons.
            let mut start = self.i;
            while start > 0 && self.chars[start - 1] == ':' {
                start -= 1;
            }
            let colons = self.chars[start..]
                .iter()
                .take_while(|c| **c == ':')
                .count();
            let name = word(start + colons);
            return format!("'{}{name}'", ":".repeat(colons));
        }
        if is_name_char(c) {
            return format!("'{}'", word(self.i));
        }
        if c.is_whitespace() {
            return "a space".into();
        }
        format!("'{c}'")
    }

    /// The last character before the column that is not a space.
    fn previous(&self) -> Option<char> {
        self.chars[..self.i.min(self.chars.len())]
            .iter()
            .rev()
            .find(|c| !c.is_whitespace())
            .copied()
    }

    /// The innermost `(` or `[` still open at the column.
    fn enclosing(&self) -> Option<Open> {
        let mut depth = 0usize;
        let before = &self.chars[..self.i.min(self.chars.len())];
        for (j, c) in before.iter().enumerate().rev() {
            match c {
                ')' | ']' => depth += 1,
                '(' | '[' if depth > 0 => depth -= 1,
                '[' => return Some(Open::Bracket),
                '(' => {
                    let start = before[..j]
                        .iter()
                        .rposition(|c| !is_name_char(*c))
                        .map_or(0, |k| k + 1);
                    let name: String = before[start..j].iter().collect();
                    return Some(Open::Function(name.to_ascii_lowercase()));
                }
                _ => {}
            }
        }
        None
    }

    /// The name of the innermost function (`:nth-child(`, `:is(`, …) still
    /// open at the column, lowercase.
    fn enclosing_function(&self) -> Option<String> {
        match self.enclosing()? {
            Open::Function(name) => Some(name),
            Open::Bracket => None,
        }
    }

    /// The pseudo-class or pseudo-element at or just before the column, with
    /// its colons (`:hover`, `::before`).
    fn pseudo(&self) -> Option<String> {
        let chars = self.chars;
        let mut j = self.i.min(chars.len());
        if chars.get(j) != Some(&':') {
            while j > 0 && is_name_char(chars[j - 1]) {
                j -= 1;
            }
            if j == 0 || chars[j - 1] != ':' {
                return None;
            }
            j -= 1;
        }
        while j > 0 && chars[j - 1] == ':' {
            j -= 1;
        }
        let colons = chars[j..].iter().take_while(|c| **c == ':').count();
        let name: String = chars[j + colons..]
            .iter()
            .take_while(|c| is_name_char(**c))
            .collect();
        (!name.is_empty()).then(|| format!("{}{name}", ":".repeat(colons)))
    }
}

fn describe_basic(kind: &BasicParseErrorKind, at: &Context<'_>) -> String {
    use BasicParseErrorKind as B;
    if let Some(reason) = nth_argument(at) {
        return reason;
    }
    if at.char() == Some('*') && at.previous() == Some('[') {
        return "expected '|' after '*' in the attribute name ([*|name])".into();
    }
    match kind {
        B::UnexpectedToken if at.char().is_none() => ends_early(at),
        B::UnexpectedToken if matches!(at.enclosing(), Some(Open::Bracket)) => format!(
            "unexpected {} after the attribute value; expected ']', or the flag i or s (a value with spaces needs quotes: [name=\"a b\"])",
            at.found()
        ),
        B::UnexpectedToken => match at.char() {
            Some(')') => "unexpected ')' with no '(' open before it".into(),
            Some(']') => "unexpected ']' with no '[' open before it".into(),
            Some('!') => "unexpected '!': CSS selectors have no '!' operator".into(),
            _ => format!(
                "unexpected {}; expected a combinator (space, >, +, ~), ',' or the end of the selector",
                at.found()
            ),
        },
        B::EndOfInput => ends_early(at),
        B::TooManyNestedBlocks => {
            "nested too deeply: more brackets or parentheses than a selector may have".into()
        }
        // `@` rules and qualified rules belong to style sheets, never to a
        // selector; worded generally in case a parser version reports them.
        B::AtRuleInvalid | B::AtRuleBodyInvalid | B::QualifiedRuleInvalid => {
            format!("unexpected {}: this is not CSS selector syntax", at.found())
        }
        // Kinds a newer cssparser adds.
        #[allow(unreachable_patterns)]
        _ => format!("unexpected {}: this is not CSS selector syntax", at.found()),
    }
}

/// Inside `:nth-child(…)` and its siblings nothing but `An+B [of S]` fits.
fn nth_argument(at: &Context<'_>) -> Option<String> {
    let f = at.enclosing_function()?;
    if !f.starts_with("nth-") {
        return None;
    }
    let of = if f.ends_with("child") {
        ", optionally followed by 'of' and a selector"
    } else {
        ""
    };
    Some(format!(
        "':{f}()' takes An+B such as 2n+1, 3, odd or even{of}; found {}",
        at.found()
    ))
}

fn ends_early(at: &Context<'_>) -> String {
    match at.previous() {
        Some(':') => "the selector ends after ':'; expected a pseudo-class name".into(),
        Some('.') => "the selector ends after '.'; expected a class name".into(),
        Some('#') => "the selector ends after '#'; expected an id".into(),
        Some('(') => "the selector ends after '('; expected an argument and ')'".into(),
        Some('[') => "expected an attribute name after '['".into(),
        Some('|') => "the selector ends after '|'; expected a name after it".into(),
        Some(c @ ('>' | '+' | '~')) => {
            format!("the selector ends after combinator '{c}'; expected a selector after it")
        }
        Some(',') => "the selector ends after ','; expected another selector after it".into(),
        _ => "the selector ends before it is complete".into(),
    }
}

fn describe_custom(
    kind: &SelectorParseErrorKind,
    at: &Context<'_>,
    parses: &dyn Fn(&str) -> bool,
) -> String {
    use SelectorParseErrorKind as K;
    let found = at.found();
    match kind {
        K::NoQualifiedNameInAttributeSelector => {
            if at.char().is_some_and(|c| c != ']') {
                format!("expected an attribute name after '[', found {found}")
            } else {
                "expected an attribute name after '['".into()
            }
        }
        K::EmptySelector => empty_selector(at),
        K::DanglingCombinator => dangling_combinator(at),
        K::NonCompoundSelector => {
            "only a compound selector (no combinators) is allowed here".into()
        }
        K::NonPseudoElementAfterSlotted => "only a pseudo-element may follow '::slotted()'".into(),
        K::InvalidPseudoElementAfterSlotted => {
            format!("{found} cannot follow '::slotted()'")
        }
        K::InvalidPseudoElementInsideWhere => {
            "pseudo-elements are not allowed inside ':is()' or ':where()'".into()
        }
        K::InvalidState => invalid_here(at),
        K::UnexpectedTokenInAttributeSelector => format!(
            "expected ']' or an operator (=, ~=, |=, ^=, $=, *=) after the attribute name, found {found}"
        ),
        K::PseudoElementExpectedColon => {
            format!("expected ':' (pseudo-elements start with '::'), found {found}")
        }
        K::PseudoElementExpectedIdent | K::NoIdentForPseudo => {
            if at.char().is_some_and(char::is_whitespace) {
                "expected a pseudo-class name right after ':' (no space between them)".into()
            } else {
                format!("expected a pseudo-class name after ':', found {found}")
            }
        }
        K::UnsupportedPseudoClassOrElement => unsupported_pseudo(at, parses),
        K::UnexpectedIdent => format!("unexpected name {found}"),
        K::ExpectedNamespace => {
            "namespace prefixes ('svg|rect') are not supported: drop the prefix and the '|'".into()
        }
        K::ExpectedBarInAttr => "expected '|' after '*' in the attribute name ([*|name])".into(),
        K::BadValueInAttr => format!(
            "the attribute value must be a name or a quoted string, found {found}; quote it: [name=\"value\"]"
        ),
        K::InvalidQualNameInAttr => format!("expected an attribute name after '|', found {found}"),
        K::ExplicitNamespaceUnexpectedToken => {
            format!("expected an element name or '*' after '|', found {found}")
        }
        K::ClassNeedsIdent => class_needs_name(at),
        // Kinds a newer `selectors` adds.
        #[allow(unreachable_patterns)]
        _ => format!("{found} is not valid here in a CSS selector"),
    }
}

/// A combinator (`>`, `+`, `~` or a space) with no selector after it.
fn dangling_combinator(at: &Context<'_>) -> String {
    let combinator = match at.previous() {
        Some(c @ ('>' | '+' | '~')) => format!("'{c}'"),
        _ => "(a space)".into(),
    };
    if at.at_end() {
        format!("expected a selector after combinator {combinator}")
    } else {
        format!(
            "expected a selector after combinator {combinator}, found {}",
            at.found()
        )
    }
}

/// A pseudo-class the engine does not know: a pseudo-element, one given an
/// argument it does not take, or an unknown name.
fn unsupported_pseudo(at: &Context<'_>, parses: &dyn Fn(&str) -> bool) -> String {
    match at.pseudo() {
        Some(p) if p.starts_with("::") => format!(
            "'{p}' is a pseudo-element: querySelector never matches one; select its element instead"
        ),
        Some(p) if at.char() == Some('(') && parses(&p) => {
            format!("'{p}' takes no argument; drop the parentheses after it")
        }
        Some(p) => format!("unknown or unsupported pseudo-class '{p}'"),
        None => format!("unknown or unsupported pseudo-class at {}", at.found()),
    }
}

/// A `.` with no class name after it (or one starting with a digit).
fn class_needs_name(at: &Context<'_>) -> String {
    let found = at.found();
    match at.char() {
        Some(c) if c.is_ascii_digit() => {
            format!("a class name cannot start with a digit ({found}); use [class~=\"…\"] instead")
        }
        None => "expected a class name after '.'".into(),
        _ => format!("expected a class name after '.', found {found}"),
    }
}

/// An empty entry: the whole selector, or one around a `,`.
fn empty_selector(at: &Context<'_>) -> String {
    if at.chars.iter().all(|c| c.is_whitespace()) {
        return "the selector is empty; pass a CSS selector such as 'main h1'".into();
    }
    match at.char() {
        Some(',') if at.previous().is_none() || at.previous() == Some(',') => {
            "expected a selector before ','".into()
        }
        None => match at.previous() {
            Some(',') => "expected a selector after ','".into(),
            Some('|') => "expected an element name or '*' after '|'".into(),
            _ => "expected a selector".into(),
        },
        Some(c) if c.is_ascii_digit() && at.previous() == Some('#') => {
            "an id selector cannot start with a digit; use [id=\"…\"] instead".into()
        }
        Some(c) if c.is_ascii_digit() && at.previous() == Some('.') => {
            "a class name cannot start with a digit; use [class~=\"…\"] instead".into()
        }
        Some(c @ ('>' | '+' | '~')) => format!(
            "a selector cannot start with combinator '{c}': a combinator goes between two selectors"
        ),
        _ => format!("expected a selector, found {}", at.found()),
    }
}

/// `InvalidState`: something valid elsewhere but not at this point.
fn invalid_here(at: &Context<'_>) -> String {
    let found = at.found();
    let inside = at.enclosing_function();
    if let Some(f) = inside.as_deref() {
        if f == "has" && found.starts_with("':has") {
            return "':has()' cannot be nested inside ':has()'".into();
        }
        if found.starts_with("'::") {
            return format!("pseudo-elements are not allowed inside ':{f}()'");
        }
    }
    format!("{found} is not allowed at this point in the selector")
}
