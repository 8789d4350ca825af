//! The view the system prompt carries comes from the core's registry, in the
//! words the view's definition gives: the outline, snapshot and CNT prompts
//! are the ones the loop sent before views were one trait, byte for byte;
//! any other view of a whole page (the links) works too, and views that show
//! only a part a call names are refused with the usable ones listed.

mod common;

use common::*;
use webfold_agent::run::system_prompt;
use webfold_agent::{AgentOptions, AgentView, ViewChoiceError};
use webfold_core::Page;
use webfold_core::cnt::{self, Cnt};
use webfold_core::contract::{Ctx, Surface, fence};
use webfold_core::outline::{self, OutlineOptions};
use webfold_core::snapshot::{self, SnapshotOptions};
use webfold_core::tokens::Encoding;

/// The prompt words of each view as `prompts/v1/view_*.md` held them.
const OUTLINE_WORDS: &str = r#"one line per element or run of alike elements. A line is a selector label (tag#id or tag.class; "@N" is a node id) with a short preview of its text; "(N children)" marks where a line stops, and "×N" a run of N alike siblings. Pass a label as get_html_chunk's selector, or @N's number as its id."#;
const SNAPSHOT_WORDS: &str = "YAML, one line per element with its role, its name and a [ref=eN]. Pass a ref to get_html_chunk to read that element's HTML.";
const CNT_WORDS: &str = r#"one node per line, "ID TAGS [attributes] text", indented by depth, "*" for clickable nodes, quoted words a node's own among loose words it took in; "… N hidden [P.F-L]" stands for children left out. Pass a node's ID to get_html_chunk as its id."#;

fn ctx() -> Ctx {
    Ctx::new(Surface::Mcp, Encoding::default())
}

/// The view as the loop rendered it with its own match per view.
fn old_view(name: &str, max_tokens: Option<usize>) -> String {
    let page = Page::parse(PAGE);
    match name {
        "outline" => {
            let mut opts = OutlineOptions::default();
            if max_tokens.is_some() {
                opts.max_tokens = max_tokens;
            }
            outline::outline(&page, &opts, ctx()).unwrap().text
        }
        "snapshot" => {
            let mut opts = SnapshotOptions::default();
            if let Some(n) = max_tokens {
                opts.max_tokens = n;
            }
            let scope = opts.scope(Surface::Mcp).unwrap();
            snapshot::snapshot(&page, "https://acme.test/", &scope, &opts, None, ctx())
                .unwrap()
                .text
        }
        "cnt" => {
            let mut opts = cnt::ViewOptions::default();
            if let Some(n) = max_tokens {
                opts.max_tokens = n;
            }
            Cnt::build(&page).view(&opts, ctx()).unwrap().text
        }
        other => panic!("no old view {other}"),
    }
}

/// The system prompt as the loop wrote it before.
fn old_prompt(name: &str, article: &str, words: &str, opts: &AgentOptions) -> String {
    let view = old_view(name, opts.view_max_tokens);
    webfold_agent::prompts::fill(
        webfold_agent::prompts::SYSTEM,
        &[
            ("view_name", article),
            ("view_guide", words),
            ("final_tool", &opts.final_tool.name),
            ("max_iterations", &opts.max_iterations.max(1).to_string()),
            ("view", &fence::defuse(view.trim_end())),
        ],
    )
}

#[test]
fn outline_snapshot_and_cnt_prompts_are_unchanged() {
    let cases = [
        ("outline", "an outline", OUTLINE_WORDS),
        ("snapshot", "an accessibility snapshot", SNAPSHOT_WORDS),
        ("cnt", "a compressed node tree", CNT_WORDS),
    ];
    for (name, article, words) in cases {
        for max_tokens in [None, Some(120)] {
            let opts = AgentOptions {
                view: name.parse().unwrap(),
                view_max_tokens: max_tokens,
                ..Default::default()
            };
            let now = system_prompt(&page(), &opts).unwrap();
            assert_eq!(
                now,
                old_prompt(name, article, words, &opts),
                "{name} at {max_tokens:?}"
            );
        }
    }
}

#[test]
fn links_and_markdown_are_views_the_agent_can_be_given() {
    for (name, shows) in [
        ("links", "[Pricing](https://acme.test/pricing)"),
        ("markdown", "## Pricing"),
    ] {
        let view: AgentView = name.parse().unwrap();
        let opts = AgentOptions {
            view,
            ..Default::default()
        };
        let prompt = system_prompt(&page(), &opts).unwrap();
        assert!(
            prompt.contains(&format!("Below is {} of it, ", view.article())),
            "{prompt}"
        );
        assert!(prompt.contains(view.reading()), "{prompt}");
        assert!(prompt.contains(shows), "{name}: {prompt}");
    }
}

#[test]
fn views_of_a_part_are_refused_with_the_usable_ones() {
    assert_eq!(
        AgentView::usable(),
        ["outline", "snapshot", "markdown", "cnt", "links"]
    );
    for (name, needs) in [("find", "what to find"), ("chunk", "selector")] {
        let err = AgentView::named(name).unwrap_err();
        assert!(
            matches!(err, ViewChoiceError::PartOnly { .. }),
            "{name}: {err}"
        );
        let msg = err.to_string();
        assert!(msg.contains(needs), "{msg}");
        assert!(
            msg.contains("outline, snapshot, markdown, cnt, links"),
            "{msg}"
        );
    }
    let err = AgentView::named("nope").unwrap_err().to_string();
    assert!(err.contains("unknown view 'nope'"), "{err}");
    assert!(
        err.contains("outline, snapshot, markdown, cnt, links"),
        "{err}"
    );
}

#[test]
fn the_budget_holds_for_every_view() {
    for name in AgentView::usable() {
        let view: AgentView = name.parse().unwrap();
        let text = page().view(view, Some(200)).unwrap();
        let tokens = webfold_core::tokens::count(&text, Encoding::default());
        assert!(tokens <= 200, "{name}: {tokens} tokens\n{text}");
    }
}
