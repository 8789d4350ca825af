//! The four roles' tools and messages: each role is one call with one
//! forced tool, a system prompt from `prompts/` and a user message that
//! carries everything it needs (no role keeps a conversation of its own, so
//! a long run costs each call only its latest view and a compacted history).

use serde_json::{Value, json};
use webfold_core::NodeId;
use webfold_core::action::{Action, Target};
use webfold_core::contract::fence::delimit;

use crate::message::ToolSpec;
use crate::prompts;

use super::PageView;

/// Which of seed 003's agents made a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Talks with the user and plans.
    Operator,
    /// One action per call on the current step.
    Agent,
    /// Checks a step the agent called solved.
    Corrector,
    /// Finds the node an action needs.
    Lookup,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Operator => "operator",
            Role::Agent => "agent",
            Role::Corrector => "corrector",
            Role::Lookup => "lookup",
        }
    }

    pub fn system(self, max_actions: usize) -> String {
        let template = match self {
            Role::Operator => prompts::OPERATOR_SYSTEM,
            Role::Agent => prompts::AGENT_SYSTEM,
            Role::Corrector => prompts::CORRECTOR_SYSTEM,
            Role::Lookup => prompts::LOOKUP_SYSTEM,
        };
        prompts::fill(template, &[("max_actions", &max_actions.to_string())])
    }

    /// The role's one tool.
    pub fn tool(self) -> ToolSpec {
        let (name, description, schema) = match self {
            Role::Operator => (
                "plan",
                "The plan's steps, or a question for the user.",
                json!({
                    "type": "object",
                    "properties": {
                        "steps": {"type": "array", "items": {"type": "string"}},
                        "question": {"type": "string"},
                    },
                    "required": ["steps"],
                }),
            ),
            Role::Agent => (
                "step",
                "One action on the page, and whether it completes the step.",
                json!({
                    "type": "object",
                    "properties": {
                        "action": webfold_core::action::json_schema(),
                        "solved": {"type": "boolean"},
                        "element": {"type": "string", "description": "The element in words, when its id is not shown."},
                    },
                    "required": ["action", "solved"],
                }),
            ),
            Role::Corrector => (
                "check",
                "Whether the step is done, and what to fix when not.",
                json!({
                    "type": "object",
                    "properties": {
                        "solved": {"type": "boolean"},
                        "feedback": {"type": "string"},
                    },
                    "required": ["solved"],
                }),
            ),
            Role::Lookup => (
                "found",
                "The id of the element the action needs, or why none fits.",
                json!({
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 0},
                        "reason": {"type": "string"},
                    },
                }),
            ),
        };
        ToolSpec {
            name: name.into(),
            description: description.into(),
            schema,
        }
    }
}

/// The operator's message: the task, what the user answered, the page.
pub fn operator_message(task: &str, answers: &[String], page: &PageView) -> String {
    let conversation = if answers.is_empty() {
        "nothing".to_string()
    } else {
        answers.join("\n")
    };
    prompts::fill(
        prompts::OPERATOR,
        &[
            ("task", task),
            ("conversation", &delimit_user(&conversation)),
            ("url", &page.url),
            ("view", &delimit(&page.text)),
        ],
    )
}

/// The user's words, labelled as theirs (they are not instructions of ours,
/// though they say what to do).
fn delimit_user(text: &str) -> String {
    if text == "nothing" {
        return text.into();
    }
    format!("<user-message>\n{text}\n</user-message>")
}

/// The agent's message: the task, the plan with the current step marked,
/// this step's actions (older ones folded into a count), the corrector's
/// feedback, the page.
pub fn agent_message(
    task: &str,
    plan: &[String],
    current: usize,
    history: &[String],
    keep: usize,
    feedback: Option<&str>,
    page: &PageView,
) -> String {
    let plan: Vec<String> = plan
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mark = match i.cmp(&current) {
                std::cmp::Ordering::Less => " (done)",
                std::cmp::Ordering::Equal => " (now)",
                std::cmp::Ordering::Greater => "",
            };
            format!("{}. {s}{mark}", i + 1)
        })
        .collect();
    let mut lines = Vec::new();
    let folded = history.len().saturating_sub(keep);
    if folded > 0 {
        lines.push(format!("({folded} earlier actions)"));
    }
    lines.extend(history[folded..].iter().cloned());
    if lines.is_empty() {
        lines.push("none".into());
    }
    let feedback = feedback.map_or(String::new(), |f| {
        format!("\nThe check of this step said it is not done yet:\n{f}\n")
    });
    prompts::fill(
        prompts::AGENT,
        &[
            ("task", task),
            ("plan", &plan.join("\n")),
            ("history", &lines.join("\n")),
            ("feedback", &feedback),
            ("url", &page.url),
            ("view", &delimit(&page.text)),
        ],
    )
}

pub fn corrector_message(step: &str, action: &str, result: &str, page: &PageView) -> String {
    prompts::fill(
        prompts::CORRECTOR,
        &[
            ("step", step),
            ("action", action),
            ("result", result),
            ("url", &page.url),
            ("view", &delimit(&page.text)),
        ],
    )
}

pub fn lookup_message(
    action: &str,
    element: &str,
    failure: Option<&str>,
    page: &PageView,
) -> String {
    let failure = failure.map_or(String::new(), |f| {
        format!("\nThe id given first did not work: {f}\n")
    });
    prompts::fill(
        prompts::LOOKUP,
        &[
            ("action", action),
            ("element", element),
            ("failure", &failure),
            ("url", &page.url),
            ("view", &delimit(&page.text)),
        ],
    )
}

/// The operator's answer: steps, or a question.
pub enum Plan {
    Steps(Vec<String>),
    Question(String),
}

pub fn read_plan(args: &str) -> Result<Plan, String> {
    let v = json_args(args)?;
    let steps: Vec<String> = v["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    match v["question"].as_str().map(str::trim) {
        Some(q) if steps.is_empty() && !q.is_empty() => Ok(Plan::Question(q.into())),
        _ if steps.is_empty() => Err("the plan has no steps and asks nothing".into()),
        _ => Ok(Plan::Steps(steps)),
    }
}

/// The agent's answer: the action as written, whether it completes the
/// step, and the element in words when the id was left out.
pub struct AgentStep {
    pub action: Value,
    pub solved: bool,
    pub element: Option<String>,
}

pub fn read_step(args: &str) -> Result<AgentStep, String> {
    let v = json_args(args)?;
    let action = v.get("action").cloned().unwrap_or(Value::Null);
    if !action.is_object() {
        return Err("step needs an action object, e.g. {\"action\": \"click\", \"id\": 12}".into());
    }
    Ok(AgentStep {
        action,
        solved: v["solved"].as_bool().unwrap_or(false),
        element: v["element"]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    })
}

/// An action as written by the agent: `Ok(None)` when it names no element
/// though it needs one (the lookup finds it).
pub fn read_action(mut action: Value) -> Result<Option<Action>, String> {
    let obj = action.as_object_mut().ok_or("an action is a JSON object")?;
    let needs_element = obj.get("id").or(obj.get("ref")).is_none_or(Value::is_null);
    obj.retain(|_, v| !v.is_null());
    match serde_json::from_value::<Action>(action.clone()) {
        Ok(a) => Ok(Some(a)),
        Err(_) if needs_element && takes_element(&action) => Ok(None),
        Err(e) => Err(format!("not an action: {e}")),
    }
}

/// Whether the action kind names an element (so a missing id can be looked up).
fn takes_element(action: &Value) -> bool {
    let mut probe = action.clone();
    probe["id"] = json!(0);
    serde_json::from_value::<Action>(probe).is_ok_and(|a| a.target().is_some())
}

/// The action with its element set to `id`.
pub fn aim(action: &Value, id: NodeId) -> Result<Action, String> {
    let mut a = action.clone();
    a["id"] = json!(id.get());
    if let Some(o) = a.as_object_mut() {
        o.remove("ref");
    }
    let mut action: Action =
        serde_json::from_value(a).map_err(|e| format!("not an action: {e}"))?;
    if let Some(t) = action.target_mut() {
        *t = Target::Node(id);
    }
    Ok(action)
}

pub struct Check {
    pub solved: bool,
    pub feedback: String,
}

pub fn read_check(args: &str) -> Result<Check, String> {
    let v = json_args(args)?;
    Ok(Check {
        solved: v["solved"]
            .as_bool()
            .ok_or("check needs solved: true or false")?,
        feedback: v["feedback"].as_str().unwrap_or("").trim().to_string(),
    })
}

/// The lookup's answer: a node id, or why none fits.
pub fn read_found(args: &str) -> Result<NodeId, String> {
    let v = json_args(args)?;
    match v["id"].as_u64().and_then(|n| u32::try_from(n).ok()) {
        Some(n) => Ok(NodeId::new(n)),
        None => Err(v["reason"]
            .as_str()
            .filter(|r| !r.trim().is_empty())
            .unwrap_or("no node fits")
            .to_string()),
    }
}

fn json_args(args: &str) -> Result<Value, String> {
    match serde_json::from_str::<Value>(args) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err("the arguments are not a JSON object".into()),
        Err(e) => Err(format!("the arguments are not JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> PageView {
        PageView {
            text: text.into(),
            url: "https://shop.test/".into(),
        }
    }

    #[test]
    fn agent_message_marks_the_step_and_folds_history() {
        let plan = ["Type the name".to_string(), "Click Save".to_string()];
        let h: Vec<String> = (1..=5).map(|i| format!("{i}. click")).collect();
        let m = agent_message(
            "Save",
            &plan,
            1,
            &h,
            2,
            Some("not saved"),
            &page("12 button* Save"),
        );
        assert!(
            m.contains("1. Type the name (done)\n2. Click Save (now)"),
            "{m}"
        );
        assert!(m.contains("(3 earlier actions)\n4. click\n5. click"), "{m}");
        assert!(m.contains("said it is not done yet:\nnot saved"), "{m}");
        assert!(
            m.contains("<page-content>\n12 button* Save\n</page-content>"),
            "{m}"
        );
    }

    #[test]
    fn a_missing_id_goes_to_the_lookup() {
        assert!(read_action(json!({"action": "click"})).unwrap().is_none());
        assert!(
            read_action(json!({"action": "click", "id": null}))
                .unwrap()
                .is_none()
        );
        assert!(read_action(json!({"action": "go_back"})).unwrap().is_some());
        assert!(read_action(json!({"action": "fly"})).is_err());
        let a = aim(&json!({"action": "write", "text": "Ada"}), NodeId::new(7)).unwrap();
        assert_eq!(a.to_string(), "write \"Ada\" to node 7");
    }

    #[test]
    fn plans_and_questions() {
        assert!(matches!(read_plan(r#"{"steps": ["a", " "]}"#), Ok(Plan::Steps(s)) if s == ["a"]));
        assert!(matches!(
            read_plan(r#"{"steps": [], "question": "Which size?"}"#),
            Ok(Plan::Question(q)) if q == "Which size?"
        ));
        assert!(read_plan(r#"{"steps": []}"#).is_err());
        assert!(read_plan("[1]").is_err());
        assert_eq!(read_found(r#"{"id": 12}"#), Ok(NodeId::new(12)));
        assert_eq!(
            read_found(r#"{"reason": "no such button"}"#),
            Err("no such button".into())
        );
    }
}
