//! Seed 003's agents against a scripted model and a page of a few states:
//! questions, checks that send the agent back, lookups, expand, the cap.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::{Value, json};
use webfold_agent::message::{Block, Reply};
use webfold_agent::provider::{ChatRequest, Model};
use webfold_agent::team::{
    ActingPage, Ending, NoUser, PageView, Role, TeamOptions, TeamRun, User, run_team,
};
use webfold_agent::{CancellationToken, ProviderError};
use webfold_core::action::{Action, Target};
use webfold_core::cnt::CntId;

/// Answers each call with the next scripted arguments for the tool it is
/// offered, and keeps every (tool, message) it was sent.
struct Script {
    answers: Mutex<VecDeque<Value>>,
    seen: Mutex<Vec<(String, String)>>,
}

impl Script {
    fn new(answers: Vec<Value>) -> Script {
        Script {
            answers: Mutex::new(answers.into()),
            seen: Mutex::new(Vec::new()),
        }
    }

    fn seen(&self, tool: &str) -> Vec<String> {
        let seen = self.seen.lock().unwrap();
        seen.iter()
            .filter(|(t, _)| t == tool)
            .map(|(_, m)| m.clone())
            .collect()
    }
}

impl Model for Script {
    async fn call(
        &self,
        req: &ChatRequest<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ProviderError> {
        let tool = req.tools[0].name.clone();
        let Block::Text { text } = &req.messages[0].content[0] else {
            panic!("a role's message is text");
        };
        self.seen.lock().unwrap().push((tool.clone(), text.clone()));
        let next = self.answers.lock().unwrap().pop_front();
        let arguments = match next {
            Some(Value::String(raw)) => raw,
            Some(v) => v.to_string(),
            None => panic!("no answer left for {tool}"),
        };
        Ok(Reply {
            blocks: vec![Block::ToolUse {
                id: "c".into(),
                name: tool,
                arguments,
            }],
            ..Reply::default()
        })
    }
}

/// A form: a name field (7) and a Save button (9); saving shows "Saved".
#[derive(Default)]
struct Form {
    saved: bool,
    expanded: Vec<String>,
    acts: Vec<String>,
    /// The words each view was focused on.
    focus: Vec<String>,
}

impl ActingPage for Form {
    async fn view(
        &mut self,
        _max: usize,
        expand: Option<&CntId>,
        focus: Option<&str>,
    ) -> Result<PageView, String> {
        self.focus.push(focus.unwrap_or_default().to_string());
        if let Some(id) = expand {
            self.expanded.push(id.to_string());
        }
        let status = if self.saved { "\n 11 p Saved" } else { "" };
        Ok(PageView {
            text: format!("1 body\n 7 input* name=name value=\"\"\n 9 button* Save{status}"),
            url: "https://form.test/".into(),
        })
    }

    fn resolve(&mut self, action: &Action) -> Result<Action, String> {
        match action.target() {
            Some(Target::Node(n)) if [7, 9].contains(&n.get()) => Ok(action.clone()),
            None => Ok(action.clone()),
            Some(t) => Err(format!("unknown id {t}: use an id from the latest CNT")),
        }
    }

    async fn act(&mut self, action: &Action) -> Result<String, String> {
        self.acts.push(action.to_string());
        if matches!(action, Action::Click { id: Target::Node(n) } if n.get() == 9) {
            self.saved = true;
        }
        Ok(format!("did {}", action.name()))
    }

    async fn image(&mut self, _id: &Target) -> Result<String, String> {
        Err("no image here".into())
    }
}

struct Answers(Vec<String>);

impl User for Answers {
    async fn talk(&mut self, _message: &str) -> Option<String> {
        self.0.pop()
    }
}

fn step(action: Value, solved: bool) -> Value {
    json!({"action": action, "solved": solved})
}

async fn go(
    script: &Script,
    page: &mut Form,
    user: &mut (impl User + Send),
    opts: &TeamOptions,
) -> TeamRun {
    run_team(
        script,
        "Save the form as Ada",
        page,
        user,
        opts,
        &CancellationToken::new(),
    )
    .await
    .unwrap()
}

/// A run on a fresh form, nobody watching, default options.
async fn alone(script: &Script) -> (TeamRun, Form) {
    let mut page = Form::default();
    let run = go(script, &mut page, &mut NoUser, &TeamOptions::default()).await;
    (run, page)
}

#[tokio::test]
async fn a_question_nobody_answers_ends_the_run() {
    let script = Script::new(vec![json!({"steps": [], "question": "Which name?"})]);
    let (run, _) = alone(&script).await;
    assert_eq!(run.ending, Ending::NeedsInput);
    assert_eq!(run.said.as_deref(), Some("Which name?"));
    assert_eq!(run.actions, 0);
}

#[tokio::test]
async fn the_users_answer_reaches_the_operator_fenced() {
    let script = Script::new(vec![
        json!({"steps": [], "question": "Which name?"}),
        json!({"steps": ["Type the name", "Click Save"]}),
        step(json!({"action": "write", "id": 7, "text": "Ada"}), true),
        json!({"solved": true}),
        step(json!({"action": "click", "id": 9}), true),
        json!({"solved": true}),
    ]);
    let mut page = Form::default();
    let run = go(
        &script,
        &mut page,
        &mut Answers(vec!["Ada Lovelace".into()]),
        &TeamOptions::default(),
    )
    .await;
    assert_eq!(run.ending, Ending::Solved, "{:#?}", run.turns);
    assert_eq!((run.steps_done, run.actions), (2, 2));
    assert!(script.seen("plan")[1].contains("<user-message>\nAda Lovelace\n</user-message>"));
    assert!(script.seen("step")[1].contains("1. Type the name (done)\n2. Click Save (now)"));
    assert_eq!(page.acts, ["write \"Ada\" to node 7", "click node 9"]);
    // Each view is focused on what its reader is working on: the operator
    // on the task, the agent and the corrector on the step at hand.
    assert_eq!(
        page.focus,
        [
            "Save the form as Ada",
            "Save the form as Ada",
            "Type the name",
            "Type the name",
            "Click Save",
            "Click Save"
        ]
    );
}

#[tokio::test]
async fn a_failed_check_sends_the_agent_back_with_feedback() {
    let script = Script::new(vec![
        json!({"steps": ["Save the form"]}),
        step(json!({"action": "write", "id": 7, "text": "Ada"}), true),
        json!({"solved": false, "feedback": "Nothing says Saved: click Save."}),
        step(json!({"action": "click", "id": 9}), true),
        json!({"solved": true}),
    ]);
    let (run, _) = alone(&script).await;
    assert_eq!(run.ending, Ending::Solved);
    let second = &script.seen("step")[1];
    assert!(
        second.contains("not done yet:\nNothing says Saved: click Save."),
        "{second}"
    );
    assert!(
        second.contains("1. write \"Ada\" to node 7 → did write"),
        "{second}"
    );
    assert!(script.seen("check")[1].contains("11 p Saved"));
}

#[tokio::test]
async fn a_wrong_id_goes_to_the_lookup_with_the_reason() {
    let script = Script::new(vec![
        json!({"steps": ["Save"]}),
        json!({"action": {"action": "click", "id": 99}, "element": "the Save button", "solved": true}),
        json!({"id": 9}),
        json!({"solved": true}),
    ]);
    let (run, page) = alone(&script).await;
    assert_eq!(run.ending, Ending::Solved);
    let lookup = &script.seen("found")[0];
    assert!(
        lookup.contains("Element wanted:\nthe Save button"),
        "{lookup}"
    );
    assert!(
        lookup.contains("did not work: unknown id node 99"),
        "{lookup}"
    );
    assert_eq!(page.acts, ["click node 9"]);
    let roles: Vec<Role> = run.turns.iter().map(|t| t.role).collect();
    assert_eq!(
        roles,
        [Role::Operator, Role::Lookup, Role::Agent, Role::Corrector]
    );
}

#[tokio::test]
async fn a_lookup_that_finds_nothing_is_a_failed_action() {
    let script = Script::new(vec![
        json!({"steps": ["Save"]}),
        json!({"action": {"action": "click"}, "element": "the Publish button", "solved": true}),
        json!({"reason": "there is no Publish button"}),
        step(json!({"action": "click", "id": 9}), true),
        json!({"solved": true}),
    ]);
    let (run, page) = alone(&script).await;
    assert_eq!(run.ending, Ending::Solved);
    assert!(
        script.seen("step")[1]
            .contains("failed: no element fits \"the Publish button\": there is no Publish button")
    );
    assert_eq!(page.acts, ["click node 9"]);
}

#[tokio::test]
async fn expand_opens_the_next_view_and_broken_answers_are_told() {
    let script = Script::new(vec![
        json!({"steps": ["Save"]}),
        step(json!({"action": "expand", "id": "1.2-5"}), false),
        Value::String("{not json".into()),
        step(json!({"action": "click", "id": 9}), true),
        json!({"solved": true}),
    ]);
    let (run, page) = alone(&script).await;
    assert_eq!(run.ending, Ending::Solved);
    assert_eq!(page.expanded, ["1.2-5"]);
    let third = &script.seen("step")[2];
    assert!(
        third.contains("2. failed: the arguments are not JSON"),
        "{third}"
    );
}

#[tokio::test]
async fn the_action_cap_stops_the_run_and_history_folds() {
    let mut answers = vec![json!({"steps": ["Save"]})];
    answers.extend((0..4).map(|_| step(json!({"action": "no_action"}), false)));
    let script = Script::new(answers);
    let opts = TeamOptions {
        max_actions: 4,
        history_steps: 2,
        ..TeamOptions::default()
    };
    let run = go(&script, &mut Form::default(), &mut NoUser, &opts).await;
    assert_eq!(run.ending, Ending::StepLimit);
    assert_eq!(run.actions, 4);
    let last = script.seen("step").pop().unwrap();
    assert!(
        last.contains("(1 earlier actions)\n2. no action → nothing done\n3. no action"),
        "{last}"
    );
}
