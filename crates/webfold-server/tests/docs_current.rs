//! The reference parts of `docs/http.md` and `docs/mcp.md`, generated from
//! the code: each bridge view route's query parameters from the view
//! contract, and each MCP tool set from the server's own `tools/list`
//! answer. A checked-in copy that differs fails here;
//! `WEBFOLD_BLESS=1 cargo test -p webfold-server --test docs_current`
//! rewrites the generated part (below the marker line) and keeps the
//! hand-written part above it.

mod common;

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;
use webfold_core::contract::Surface;
use webfold_core::contract::schema::{Kind, OptionSpec};
use webfold_core::view::VIEWS;
use webfold_testkit::markdown::{cell, check_generated, slug, text};

/// The line that ends a file's hand-written part.
fn marker(test: &str) -> String {
    format!(
        "<!-- Generated from the code below this line: `cargo test -p webfold-server --test {test}` \
         checks it, WEBFOLD_BLESS=1 rewrites it. Edit the text above it by hand. -->"
    )
}

#[tokio::test]
async fn http_reference_is_current() {
    let mut out = String::new();
    out.push_str("## View routes\n\n");
    out.push_str("| Route | MCP tool | CLI command |\n|---|---|---|\n");
    for view in VIEWS {
        let name = view.name().on(Surface::Http);
        writeln!(
            out,
            "| [`GET /conversations/{{id}}/{name}`](#{}) | `{}` | `webfold {}` |",
            slug(&format!("GET /conversations/{{id}}/{name}")),
            view.name().on(Surface::Mcp),
            view.name().on(Surface::Cli),
        )
        .unwrap();
    }
    out.push('\n');
    out.push_str(
        "Every view route also takes `encoding` (`o200k_base` or `cl100k_base`, default \
         `o200k_base`: the tokenizer budgets and counts use) and `version` (a kept page \
         version of the conversation, default the latest). A parameter the route does not \
         take is refused with 400, naming the ones it takes; a value outside its range is \
         refused with the range. The answer is the view's envelope: `text`, `tokens`, \
         `max_tokens`, `cut`, `hints`, `url`, `version` and the view's own data.\n\n",
    );
    for view in VIEWS {
        let name = view.name().on(Surface::Http);
        writeln!(out, "### GET /conversations/{{id}}/{name}\n").unwrap();
        writeln!(
            out,
            "{}, as `webfold {}` and MCP `{}` give it.\n",
            view.about(),
            view.name().on(Surface::Cli),
            view.name().on(Surface::Mcp)
        )
        .unwrap();
        out.push_str(&option_table(
            view.options().iter().map(Param::from_spec).collect(),
        ));
        out.push('\n');
    }
    check("http.md", &out, "docs_current");
}

#[tokio::test]
async fn mcp_reference_is_current() {
    let mut out = String::new();
    let sets = [
        (
            "page",
            "page views of a conversation, a URL, given HTML or a live tab",
        ),
        ("browser", "a live headless Chromium tab"),
        ("ui", "the browser extension's chat, through the daemon"),
    ];
    for (group, what) in sets {
        writeln!(out, "## Tool set `{group}`\n").unwrap();
        let tools = tools_list(group).await;
        writeln!(
            out,
            "`webfold mcp --tools {group}`: {what}. {} tools.\n",
            tools.len()
        )
        .unwrap();
        out.push_str("| Tool | Description | Parameters |\n|---|---|---|\n");
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            let mut names: Vec<String> = properties(tool).into_iter().map(|p| p.name).collect();
            names.sort();
            let params: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            writeln!(
                out,
                "| [`{name}`](#{name}) | {} | {} |",
                cell(&first_sentence(tool["description"].as_str().unwrap_or(""))),
                params.join(", ")
            )
            .unwrap();
        }
        out.push('\n');
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            writeln!(out, "### {name}\n").unwrap();
            writeln!(
                out,
                "{}\n",
                text(tool["description"].as_str().unwrap_or(""))
            )
            .unwrap();
            let params = properties(tool);
            if params.is_empty() {
                out.push_str("No parameters.\n\n");
            } else {
                out.push_str(&option_table(params));
                out.push('\n');
            }
        }
    }
    // What one group's tools gain when listed beside another's.
    out.push_str("## Parameters listed only with other tool sets\n\n");
    let mut extra = Vec::new();
    for (alone, with) in [("page", "page,ui"), ("page", "page,browser")] {
        let base = tools_list(alone).await;
        let joined = tools_list(with).await;
        for tool in &base {
            let name = tool["name"].as_str().unwrap();
            let Some(other) = joined.iter().find(|t| t["name"] == name) else {
                continue;
            };
            let have: Vec<String> = properties(tool).into_iter().map(|p| p.name).collect();
            for p in properties(other) {
                if !have.contains(&p.name) {
                    extra.push(format!(
                        "- `{name}` takes `{}` with `--tools {with}`: {}",
                        p.name,
                        text(&p.description)
                    ));
                }
            }
        }
    }
    if extra.is_empty() {
        out.push_str("None: a tool takes the same parameters in every tool set.\n");
    } else {
        out.push_str(&extra.join("\n"));
        out.push('\n');
    }
    check("mcp.md", &out, "docs_current");
}

/// `tools/list` as the stdio server answers it for `groups`.
async fn tools_list(groups: &str) -> Vec<Value> {
    let line = common::mcp::stdio_tools_list(groups).await;
    let answer: Value = serde_json::from_str(&line).unwrap();
    let mut tools = answer["result"]["tools"].as_array().unwrap().clone();
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    tools
}

/// One parameter row.
struct Param {
    name: String,
    kind: String,
    default: String,
    range: String,
    description: String,
}

impl Param {
    fn from_spec(o: &OptionSpec) -> Param {
        let (kind, range) = match &o.kind {
            Kind::Integer { minimum, maximum } => {
                ("integer".to_string(), range(*minimum, *maximum))
            }
            Kind::Boolean => ("boolean".into(), String::new()),
            Kind::String => ("string".into(), String::new()),
            Kind::Enum(values) => (
                values
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                String::new(),
            ),
            Kind::List => ("list of strings".into(), String::new()),
        };
        Param {
            name: o.name.clone(),
            kind,
            default: default(o.default.as_ref(), o.required),
            range,
            description: o.description.clone(),
        }
    }
}

fn range(min: Option<u64>, max: Option<u64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) => format!("{a}–{b}"),
        (Some(a), None) => format!("≥ {a}"),
        (None, Some(b)) => format!("≤ {b}"),
        (None, None) => String::new(),
    }
}

fn default(value: Option<&Value>, required: bool) -> String {
    if required {
        return "required".into();
    }
    match value {
        Some(Value::String(s)) => format!("`{s}`"),
        Some(v) => format!("`{v}`"),
        None => String::new(),
    }
}

/// A tool's input schema as rows, in the order the schema lists them.
fn properties(tool: &Value) -> Vec<Param> {
    let schema = &tool["inputSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| Param {
            name: name.clone(),
            kind: json_type(p),
            default: default(p.get("default"), required.contains(&name.as_str())),
            range: range(p["minimum"].as_u64(), p["maximum"].as_u64()),
            description: p["description"].as_str().unwrap_or("").to_string(),
        })
        .collect()
}

fn json_type(p: &Value) -> String {
    if let Some(values) = p["enum"].as_array() {
        return values
            .iter()
            .map(|v| format!("`{}`", v.as_str().map_or(v.to_string(), str::to_string)))
            .collect::<Vec<_>>()
            .join(", ");
    }
    match p["type"].as_str() {
        Some("array") => format!("list of {}", plural(&json_type(&p["items"]))),
        Some(t) => t.to_string(),
        None if p.get("anyOf").is_some() || p.get("oneOf").is_some() => "one of several".into(),
        None => "any".into(),
    }
}

fn plural(kind: &str) -> String {
    match kind {
        "string" | "integer" | "boolean" | "object" | "number" => format!("{kind}s"),
        other => other.to_string(),
    }
}

/// The parameters in name order, whatever order the schema kept them in.
fn option_table(mut params: Vec<Param>) -> String {
    params.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::from(
        "| Parameter | Type | Default | Range | Description |\n|---|---|---|---|---|\n",
    );
    for p in params {
        writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            p.name,
            p.kind,
            p.default.replace('|', "\\|"),
            p.range,
            cell(&p.description)
        )
        .unwrap();
    }
    out
}

/// The first sentence of a description, for a summary table.
fn first_sentence(s: &str) -> String {
    let s = s.split("\n\n").next().unwrap_or("").replace('\n', " ");
    match s.find(". ") {
        Some(i) => s[..=i].to_string(),
        None => s,
    }
}

/// Compares the generated part of `docs/NAME` with `generated`, or writes
/// it under `WEBFOLD_BLESS`.
fn check(name: &str, generated: &str, test: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    check_generated(
        &path,
        &marker(test),
        generated,
        &format!("# {name}\n\n"),
        &format!("cargo test -p webfold-server --test {test}"),
    );
}
