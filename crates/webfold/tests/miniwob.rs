//! MiniWoB++ through the acting agent, in Chromium. Each task page (from
//! PyPI's `miniwob`, unpacked by `scripts/install-miniwob`) is served on
//! 127.0.0.1; an episode starts from a seed, the agent's step loop shows a
//! scripted policy the page's snapshot exactly as a model would get it, the
//! policy answers with `act`/`done` tool calls, and the live page runs them.
//! The reward is the page's own (`WOB_RAW_REWARD_GLOBAL`, set by its
//! JavaScript). The policy reads only the step's message: the task, the steps
//! so far and the fenced view. This shows the views carry what an agent needs
//! and the actions land; it is not a score to tune.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use webfold_agent::message::{Block, Reply};
use webfold_agent::provider::{ChatRequest, Model};
use webfold_agent::team::{Ending, NoUser, Role, TeamOptions, run_team};
use webfold_agent::{CancellationToken, ProviderError};
use webfold_browser::BrowserOptions;
use webfold_live::LiveBrowser;
use webfold_testkit::http::Site;

const TASKS: &[&str] = &[
    "click-button",
    "click-link",
    "enter-text",
    "click-checkboxes",
    "choose-list",
    "login-user",
    "click-tab",
    "focus-text",
];
const SEEDS: u32 = 20;
#[derive(Default)]
struct Tally {
    reward: f64,
    wrong: usize,
    actions: usize,
    calls: usize,
    lookups: usize,
    view_tokens: usize,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const STATES: [&str; 3] = ["checked", "selected", "disabled"];

/// One node line of the CNT: `ID TAGS[*] [attr=value]... [text]`.
struct Node {
    id: u32,
    tags: Vec<String>,
    clickable: bool,
    line: String,
}

impl Node {
    fn is(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }
    fn text(&self) -> &str {
        // Attributes come before the text; MiniWoB's values are single words.
        let mut rest = self.line.as_str();
        while let Some((word, tail)) = rest.split_once(' ') {
            if !word.contains('=') && !STATES.contains(&word) {
                break;
            }
            rest = tail;
        }
        if rest.contains('=') && !rest.contains(' ') || STATES.contains(&rest) {
            ""
        } else {
            rest
        }
    }
    fn checked(&self) -> bool {
        self.line.split(' ').any(|w| w == "checked")
    }
    /// The element's label: its whole text, or the words the CNT quotes
    /// as its own among the loose words it took in (`eu "mauris." velit`).
    fn reads(&self, label: &str) -> bool {
        let t = self.text();
        t == label || t.contains(&format!("\"{label}\""))
    }
    fn attr(&self, name: &str) -> Option<&str> {
        let key = format!("{name}=");
        let at = self.line.find(&key)? + key.len();
        let v = &self.line[at..];
        Some(match v.strip_prefix('"') {
            Some(q) => &q[..q.find('"').unwrap_or(q.len())],
            None => v.split(' ').next().unwrap_or(""),
        })
    }
}

fn nodes(view: &str) -> Vec<Node> {
    view.lines()
        .filter_map(|l| {
            let (id, rest) = l.trim_start().split_once(' ')?;
            let id: u32 = id.parse().ok()?;
            let (tags, line) = rest.split_once(' ').unwrap_or((rest, ""));
            let clickable = tags.ends_with('*');
            let tags = tags
                .trim_end_matches('*')
                .split(',')
                .map(str::to_owned)
                .collect();
            Some(Node {
                id,
                tags,
                clickable,
                line: line.to_string(),
            })
        })
        .collect()
}

/// The quoted parts of the task, in order.
fn quoted(task: &str) -> Vec<&str> {
    task.split('"').skip(1).step_by(2).collect()
}

fn section<'a>(msg: &'a str, head: &str, next: &str) -> &'a str {
    let start = msg.find(head).map_or(0, |i| i + head.len());
    let rest = &msg[start..];
    rest[..rest.find(next).unwrap_or(rest.len())].trim()
}

/// The scripted team: each role reads only its own message and answers its
/// one tool.
struct Policy;

fn decide(tool: &str, msg: &str) -> serde_json::Value {
    let view = section(msg, "<page-content>\n", "</page-content>");
    let ns = nodes(view);
    match tool {
        "plan" => json!({"steps": [section(msg, "Task:\n", "\n\nThe user said")]}),
        "check" => {
            // A write shows on the page as the field's value.
            let action = section(msg, "Action taken:\n", "\n\nThe page now");
            let written = action
                .strip_prefix("write \"")
                .and_then(|a| a.split('"').next());
            match written {
                Some(text) if !ns.iter().any(|n| n.attr("value") == Some(text)) => {
                    json!({"solved": false, "feedback": format!("no field shows {text:?}")})
                }
                _ => json!({"solved": true}),
            }
        }
        "found" => {
            let wanted = section(msg, "Element wanted:\n", "\n\nThe page");
            let wanted = wanted.split('"').nth(1).unwrap_or(wanted);
            // Something to act on: a clickable node that reads so.
            let mut can = ns.iter().filter(|n| n.clickable);
            match can.find(|n| n.reads(wanted)) {
                Some(n) => json!({"id": n.id}),
                None => json!({"reason": format!("nothing reads {wanted:?}")}),
            }
        }
        _ => agent(msg, &ns),
    }
}

/// The agent: one action for the task's next move, from the CNT alone.
fn agent(msg: &str, ns: &[Node]) -> serde_json::Value {
    let task = section(msg, "Task:\n", "\n\nPlan:");
    let history = section(msg, "Actions on this step so far:\n", "\n\nThe page now");
    let done = if history.starts_with("none") {
        0
    } else {
        history.lines().filter(|l| !l.contains("failed")).count()
    };
    let q = quoted(task);
    let step =
        |action: serde_json::Value, solved: bool| json!({"action": action, "solved": solved});
    let give_up =
        json!({"action": {"action": "talk", "message": "I cannot find it."}, "solved": false});
    let with_text = |tag: &str, text: &str| {
        let exact = ns.iter().find(|n| n.is(tag) && n.text() == text);
        exact
            .or_else(|| ns.iter().find(|n| n.is(tag) && n.reads(text)))
            .map(|n| n.id)
    };
    let click = |id: Option<u32>, solved: bool| match id {
        Some(id) => step(json!({"action": "click", "id": id}), solved),
        None => give_up.clone(),
    };
    let fields: Vec<u32> = ns
        .iter()
        .filter(|n| {
            n.is("input") && matches!(n.attr("type"), Some("text" | "password")) || n.is("textarea")
        })
        .map(|n| n.id)
        .collect();
    let submit = || with_text("button", "Submit");
    if task.starts_with("Click on the \"") {
        return click(with_text("button", q[0]), true);
    }
    if task.starts_with("Click on the link") {
        // The links are spans in a paragraph: named in words, the lookup finds them.
        return json!({"action": {"action": "click"}, "element": format!("the link \"{}\"", q[0]), "solved": true});
    }
    if let Some(tab) = task
        .strip_prefix("Click on ")
        .and_then(|t| t.strip_suffix('.'))
    {
        return click(with_text("a", tab), true);
    }
    if task.starts_with("Focus into the textbox") {
        return click(fields.first().copied(), true);
    }
    if task.starts_with("Enter \"") {
        return match done {
            0 => step(
                json!({"action": "write", "id": fields.first(), "text": q[0]}),
                false,
            ),
            _ => click(submit(), true),
        };
    }
    if task.starts_with("Enter the username") {
        return match done {
            0 => step(
                json!({"action": "write", "id": fields.first(), "text": q[0]}),
                false,
            ),
            1 => step(
                json!({"action": "write", "id": fields.get(1), "text": q[1]}),
                false,
            ),
            _ => click(with_text("button", "Login"), true),
        };
    }
    if let Some(rest) = task.strip_prefix("Select ") {
        if let Some(item) = rest.strip_suffix(" from the list and click Submit.") {
            let select = ns.iter().find(|n| n.is("select")).map(|n| n.id);
            return match done {
                0 => step(
                    json!({"action": "select", "id": select, "values": [item]}),
                    false,
                ),
                _ => click(submit(), true),
            };
        }
        let wanted = rest.trim_end_matches(" and click Submit.");
        let wanted: Vec<&str> = if wanted == "nothing" {
            Vec::new()
        } else {
            wanted.split(", ").collect()
        };
        let unchecked = ns.iter().find(|n| {
            n.is("input")
                && n.attr("type") == Some("checkbox")
                && !n.checked()
                && wanted.iter().any(|w| n.reads(w))
        });
        return match unchecked {
            Some(n) => step(json!({"action": "click", "id": n.id}), false),
            None => click(submit(), true),
        };
    }
    give_up
}

impl Model for Policy {
    async fn call(
        &self,
        req: &ChatRequest<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ProviderError> {
        let msg = req
            .messages
            .last()
            .and_then(|m| m.content.first())
            .map(|b| match b {
                Block::Text { text } => text.clone(),
                _ => String::new(),
            })
            .unwrap_or_default();
        let tool = req.tools.first().map_or("", |t| t.name.as_str());
        Ok(Reply {
            blocks: vec![Block::ToolUse {
                id: "call-1".into(),
                name: tool.into(),
                arguments: decide(tool, &msg).to_string(),
            }],
            ..Reply::default()
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn miniwob_tasks_through_the_acting_agent() {
    let root = repo().join("target/miniwob/html");
    if !root.join("miniwob/click-button.html").exists() {
        let ok = Command::new(repo().join("scripts/install-miniwob"))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "scripts/install-miniwob did not install the task pages");
    }
    let base = Site::new().files(root).serve();
    let live = LiveBrowser::new(BrowserOptions::default());
    let page = live.page(Some("miniwob")).await.expect("Chromium starts");
    let mut page = page.lock().await;
    let opts = TeamOptions {
        max_actions: 8,
        ..TeamOptions::default()
    };
    let cancel = CancellationToken::new();
    let mut report = Vec::new();
    for task in TASKS {
        page.tab()
            .navigate(&format!("{base}/miniwob/{task}.html"))
            .await
            .unwrap();
        let mut t = Tally::default();
        for seed in 0..SEEDS {
            let utterance = page
                .tab()
                .evaluate(&format!(
                    "Math.seedrandom('{task}-{seed}'); core.startEpisodeReal(); document.getElementById('query').textContent"
                ))
                .await
                .unwrap();
            let utterance = utterance.as_str().unwrap_or("").to_string();
            let run = run_team(&Policy, &utterance, &mut *page, &mut NoUser, &opts, &cancel)
                .await
                .unwrap();
            let reward = page
                .tab()
                .evaluate("WOB_DONE_GLOBAL ? WOB_RAW_REWARD_GLOBAL : (WOB_RAW_REWARD_GLOBAL || 0)")
                .await
                .unwrap()
                .as_f64()
                .unwrap_or(0.0);
            if reward <= 0.0 || run.ending != Ending::Solved {
                eprintln!(
                    "{task} seed {seed}: reward {reward}, {:?} for {utterance:?}; turns: {:#?}",
                    run.ending, run.turns
                );
            }
            t.reward += reward.max(0.0);
            t.wrong += usize::from(reward < 0.0);
            t.actions += run.actions;
            t.calls += run.turns.len();
            t.lookups += run.turns.iter().filter(|c| c.role == Role::Lookup).count();
            t.view_tokens += run.turns.iter().map(|c| c.view_tokens).sum::<usize>();
        }
        report.push((task, t));
    }
    drop(page);
    live.shutdown().await;
    let n = f64::from(SEEDS);
    eprintln!(
        "task type          reward  actions  calls  lookups  view tokens/call  ({SEEDS} seeds each)"
    );
    for (task, t) in &report {
        eprintln!(
            "{task:<18} {:>6.2}  {:>7.1}  {:>5.1}  {:>7}  {:>16}",
            t.reward / n,
            t.actions as f64 / n,
            t.calls as f64 / n,
            t.lookups,
            t.view_tokens / t.calls.max(1)
        );
    }
    for (task, t) in &report {
        let mean = t.reward / n;
        assert_eq!(t.wrong, 0, "{task}: an episode ended with a wrong answer");
        assert!(
            mean >= 0.9,
            "{task}: mean reward {mean:.2} over {SEEDS} seeds (see the failed episodes above)"
        );
    }
}
