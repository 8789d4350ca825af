//! Hints: the ways to get more of a view, and how each surface spells them.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Surface, ViewName};

/// Names an element for another view. Upper-case placeholders (`SEL`, `REF`,
/// `N`) stand for "the one you want" in general advice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handle {
    Selector(String),
    /// A node id: an outline's `@N`, a CNT id.
    Id(String),
    /// An accessibility snapshot ref.
    Ref(String),
}

impl Handle {
    fn option(&self) -> &'static str {
        match self {
            Handle::Selector(_) => "selector",
            Handle::Id(_) => "id",
            Handle::Ref(_) => "ref",
        }
    }

    fn value(&self) -> &str {
        match self {
            Handle::Selector(s) | Handle::Id(s) | Handle::Ref(s) => s,
        }
    }
}

/// An option whose larger value shows more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    MaxTokens,
    MaxElements,
    MaxMatches,
    /// Snapshot lines printed per `find` match.
    Lines,
}

impl Limit {
    pub fn option(self) -> &'static str {
        match self {
            Limit::MaxTokens => "max_tokens",
            Limit::MaxElements => "max_elements",
            Limit::MaxMatches => "max_matches",
            Limit::Lines => "lines",
        }
    }
}

/// A yes/no option of the same view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    Diff,
    InteractiveOnly,
    FullSnapshot,
    ViewportOnly,
}

impl Switch {
    pub fn option(self) -> &'static str {
        match self {
            Switch::Diff => "diff",
            Switch::InteractiveOnly => "interactive_only",
            Switch::FullSnapshot => "full_snapshot",
            Switch::ViewportOnly => "viewport_only",
        }
    }
}

/// A way to get more than a view showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// The same view from this line on.
    StartLine(usize),
    /// The same view with a larger limit (at least the value, when known).
    Raise(Limit, Option<usize>),
    /// The same view with a switch set.
    Switch(Switch, bool),
    /// An element's HTML (every match of a selector with `true`).
    Chunk(Handle, bool),
    /// The snapshot of one subtree.
    Snapshot(Handle),
    /// What a CNT id hides.
    Expand(String),
    /// A search of the snapshot, names and URLs printed whole.
    Find,
}

/// The placeholder of an option the command line takes as a positional
/// argument rather than a flag (`webfold find page.html TEXT`).
pub fn cli_positional(option: &str) -> Option<&'static str> {
    match option {
        "query" => Some("TEXT"),
        _ => None,
    }
}

/// The CLI flag that sets a yes/no option to `value`. Most are the option's
/// name (`--viewport-only`) or its negation (`--no-diff`); a few keep the
/// names the command line has always had.
pub fn cli_switch(option: &str, value: bool) -> String {
    match (option, value) {
        ("interactive_only", false) => "--all-roles".into(),
        ("full_snapshot", true) => "--full".into(),
        ("include_history", false) => "--no-history".into(),
        (o, true) => format!("--{}", o.replace('_', "-")),
        (o, false) => format!("--no-{}", o.replace('_', "-")),
    }
}

impl Hint {
    /// The view a hint calls, when it is not the one that wrote it.
    pub fn view(&self) -> Option<ViewName> {
        match self {
            Hint::StartLine(_) | Hint::Raise(..) | Hint::Switch(..) => None,
            Hint::Chunk(..) => Some(crate::chunk::NAME),
            Hint::Snapshot(_) => Some(crate::snapshot::NAME),
            Hint::Expand(_) => Some(crate::cnt::NAME),
            Hint::Find => Some(crate::snapshot::find::NAME),
        }
    }

    /// The options the hint sets, with their values as JSON would carry them.
    pub fn args(&self) -> Vec<(&'static str, Value<'_>)> {
        match self {
            Hint::StartLine(n) => vec![("start_line", Value::Num(*n))],
            Hint::Raise(limit, to) => vec![(limit.option(), to.map_or(Value::Larger, Value::Num))],
            Hint::Switch(s, v) => vec![(s.option(), Value::Bool(*v))],
            Hint::Chunk(h, all) => {
                let mut args = vec![(h.option(), Value::of_handle(h))];
                if *all {
                    args.push(("all", Value::Bool(true)));
                }
                args
            }
            Hint::Snapshot(h) => vec![(h.option(), Value::of_handle(h))],
            Hint::Expand(id) if is_placeholder(id) => vec![("expand", Value::Placeholder(id))],
            Hint::Expand(id) => vec![("expand", Value::Text(id))],
            Hint::Find => vec![("query", Value::Placeholder("TEXT"))],
        }
    }

    /// The hint in `surface`'s words: `--start-line 201` on the command
    /// line, `start_line: 201` for MCP, `start_line=201` over HTTP; another
    /// view's call names that view (`chunk --ref e3`, `get_html_chunk {ref: "e3"}`).
    pub fn spell(&self, surface: Surface) -> String {
        let args = self.args();
        let options = match surface {
            Surface::Cli => cli_args(&args),
            Surface::Http => args
                .iter()
                .map(|(name, v)| match v {
                    Value::Larger => name.to_string(),
                    _ => format!("{name}={}", v.http()),
                })
                .collect::<Vec<_>>()
                .join("&"),
            Surface::Mcp | Surface::McpBrowser => args
                .iter()
                .map(|(name, v)| match v {
                    Value::Larger => name.to_string(),
                    _ => format!("{name}: {}", v.json()),
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        let Some(view) = self.view() else {
            return options;
        };
        let name = view.on(surface);
        match surface {
            Surface::Cli => format!("{name} {options}"),
            Surface::Http => format!("{name}?{options}"),
            Surface::Mcp | Surface::McpBrowser => format!("{name} {{{options}}}"),
        }
    }
}

/// Command-line spelling: flags, except positional options, which are
/// written bare.
fn cli_args(args: &[(&'static str, Value<'_>)]) -> String {
    args.iter()
        .map(|(name, v)| match v {
            Value::Placeholder(p) if cli_positional(name).is_some() => (*p).to_string(),
            _ if cli_positional(name).is_some() => v.shell(),
            Value::Bool(b) => cli_switch(name, *b),
            Value::Larger => format!("--{}", name.replace('_', "-")),
            _ => format!("--{} {}", name.replace('_', "-"), v.shell()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A hint's option value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Num(usize),
    Bool(bool),
    Text(&'a str),
    /// Stands for a value the reader picks (`SEL`, `REF`, `N`, `TEXT`).
    Placeholder(&'a str),
    /// A larger value than the one used.
    Larger,
}

/// `SEL`, `REF`, `N`, `ID`: a name for a value the reader picks.
fn is_placeholder(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_uppercase())
}

impl<'a> Value<'a> {
    fn of_handle(h: &'a Handle) -> Value<'a> {
        let v = h.value();
        if is_placeholder(v) {
            Value::Placeholder(v)
        } else if let (Handle::Id(_), Ok(n)) = (h, v.parse::<usize>()) {
            Value::Num(n)
        } else {
            Value::Text(v)
        }
    }

    fn json(&self) -> String {
        match self {
            Value::Num(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Text(s) => serde_json::to_string(s).unwrap_or_default(),
            Value::Placeholder(p) => (*p).to_string(),
            Value::Larger => "more".into(),
        }
    }

    fn http(&self) -> String {
        match self {
            Value::Text(s) => query_value(s),
            other => other.json(),
        }
    }

    /// Quoted for a POSIX shell when it has to be.
    fn shell(&self) -> String {
        match self {
            Value::Text(s) if !is_shell_word(s) => format!("'{}'", s.replace('\'', r"'\''")),
            Value::Text(s) => (*s).to_string(),
            other => other.json(),
        }
    }
}

/// `s` as a query value any client sends as is: every byte outside the
/// unreserved characters and the few punctuation marks selectors read by
/// (`:`, `(`, `)`, `,`, `=`, `*`, `/`) is percent-encoded, so the hint is a
/// valid request target that a form decoder reads back unchanged (`&`, `+`,
/// `%`), that ends at no `#`, and that pasted into a shell or curl neither
/// expands (`$`, `!`, quotes) nor globs (`[`, `{`).
fn query_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:(),=*/".contains(&b) {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

fn is_shell_word(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"#.-_/:@%+,=".contains(&b))
}

/// Structured form for programs: `{"hint": "chunk", "selector": "main > ul"}`.
impl Serialize for Hint {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let kind = match self {
            Hint::StartLine(_) => "start_line",
            Hint::Raise(..) => "raise",
            Hint::Switch(..) => "switch",
            Hint::Chunk(..) => "chunk",
            Hint::Snapshot(_) => "snapshot",
            Hint::Expand(_) => "expand",
            Hint::Find => "find",
        };
        let args = self.args();
        let mut map = ser.serialize_map(Some(args.len() + 1))?;
        map.serialize_entry("hint", kind)?;
        for (name, v) in &args {
            match v {
                Value::Num(n) => map.serialize_entry(name, n)?,
                Value::Bool(b) => map.serialize_entry(name, b)?,
                Value::Text(s) | Value::Placeholder(s) => map.serialize_entry(name, s)?,
                Value::Larger => map.serialize_entry(name, "larger")?,
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_surface_spells_in_its_own_words() {
        let h = Hint::StartLine(201);
        assert_eq!(h.spell(Surface::Cli), "--start-line 201");
        assert_eq!(h.spell(Surface::Mcp), "start_line: 201");
        assert_eq!(h.spell(Surface::Http), "start_line=201");
        let c = Hint::Chunk(Handle::Selector("main > ul".into()), true);
        assert_eq!(c.spell(Surface::Cli), "chunk --selector 'main > ul' --all");
        assert_eq!(
            c.spell(Surface::Mcp),
            r#"get_html_chunk {selector: "main > ul", all: true}"#
        );
        assert_eq!(
            c.spell(Surface::Http),
            "chunk?selector=main%20%3E%20ul&all=true"
        );
        let s = Hint::Snapshot(Handle::Ref("REF".into()));
        assert_eq!(s.spell(Surface::McpBrowser), "browser_snapshot {ref: REF}");
        assert_eq!(
            Hint::Switch(Switch::InteractiveOnly, false).spell(Surface::Cli),
            "--all-roles"
        );
        assert_eq!(
            Hint::Raise(Limit::MaxTokens, None).spell(Surface::Cli),
            "--max-tokens"
        );
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"hint":"chunk","selector":"main > ul","all":true}"#
        );
    }
}
