//! Seed 003's agents acting on a live page's CNT.
//!
//! ```text
//! task ─▶ operator ─plan─▶ for each step:
//!                            agent(CNT) ─action─▶ [lookup, when the id is missing or wrong] ─▶ page
//!                              ▲  solved? ─▶ corrector(CNT after) ─ok─▶ next step
//!                              └──────── feedback ◀─────────────── not done
//! ```
//!
//! The operator talks with the user (a question when the task lacks
//! something) and plans; the agent takes one action per call on the current
//! step and says when it completes it; the corrector checks that on the page
//! after the action; the lookup finds the node id an action needs when the
//! agent names the element in words or gives an id that does not fit. Every
//! call sends its role's latest view only (the CNT within `view_max_tokens`),
//! the history compacts past `history_steps`, and `max_actions` caps the run.
//! Every call is kept in the [`TeamRun`] transcript.

mod roles;

use std::future::Future;

use serde::Serialize;
use webfold_core::action::{Action, Target};
use webfold_core::cnt::CntId;
use webfold_core::tokens::{Encoding, count};

use crate::error::AgentError;
use crate::message::{Message, ToolChoice, Usage};
use crate::provider::{ChatRequest, Model};
use crate::{CancellationToken, ProviderError};

pub use roles::Role;
use roles::{AgentStep, Plan};

/// The page as one role sees it.
#[derive(Clone, Debug, Default)]
pub struct PageView {
    /// The CNT text.
    pub text: String,
    pub url: String,
}

/// The page the agents act on: a live browser tab, or anything that can
/// show its CNT and run an action.
pub trait ActingPage {
    /// The page as it is now: its CNT within `max_tokens`, with `expand`
    /// (a node or marker id of the previous view) opened, and the controls
    /// `focus` (the words of the step at hand) names shown first.
    fn view(
        &mut self,
        max_tokens: usize,
        expand: Option<&CntId>,
        focus: Option<&str>,
    ) -> impl Future<Output = Result<PageView, String>> + Send;
    /// Checks `action` against the page the last view showed, and aims it
    /// at the element that takes it (a CNT node's member). The error says
    /// what is wrong in the words the model reads.
    fn resolve(&mut self, action: &Action) -> Result<Action, String>;
    /// Runs one checked action; what happened, in a few words.
    fn act(&mut self, action: &Action) -> impl Future<Output = Result<String, String>> + Send;
    /// What the image of an element is: its source and text alternative.
    fn image(&mut self, id: &Target) -> impl Future<Output = Result<String, String>> + Send;
}

/// The person the agents work for.
pub trait User {
    /// Shows `message`; answers with the user's reply when one comes (a
    /// question to a terminal), `None` when nobody can answer.
    fn talk(&mut self, message: &str) -> impl Future<Output = Option<String>> + Send;
}

/// A run nobody watches: what is said is kept in the transcript only.
pub struct NoUser;

impl User for NoUser {
    async fn talk(&mut self, _message: &str) -> Option<String> {
        None
    }
}

#[derive(Clone, Debug)]
pub struct TeamOptions {
    /// Agent calls (actions) over the whole run, the step cap.
    pub max_actions: usize,
    /// The CNT's `max_tokens` in each agent, corrector and operator call.
    pub view_max_tokens: usize,
    /// The lookup's CNT budget: it searches more of the page than a step shows.
    pub lookup_max_tokens: usize,
    /// Earlier actions of a step listed one line each; older ones fold into a count.
    pub history_steps: usize,
    /// Questions the operator may ask before it must plan.
    pub max_questions: usize,
}

impl Default for TeamOptions {
    fn default() -> Self {
        TeamOptions {
            max_actions: 10,
            view_max_tokens: 2_000,
            lookup_max_tokens: 8_000,
            history_steps: 8,
            max_questions: 2,
        }
    }
}

/// One model call of the transcript.
#[derive(Clone, Debug, Serialize)]
pub struct Turn {
    pub role: Role,
    /// The plan step it worked on (1-based), for the agent, corrector and lookup.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// The view sent, exactly.
    pub view: String,
    pub view_tokens: usize,
    /// The tool's arguments as the model wrote them (`None`: no tool call).
    pub arguments: Option<String>,
    /// What came of it: the page's answer to an action, the check, the id found.
    pub result: String,
    pub usage: Usage,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Every step of the plan was checked done.
    Solved,
    /// The operator needs an answer nobody gave.
    NeedsInput,
    /// The action cap was reached first.
    StepLimit,
}

#[derive(Clone, Debug, Serialize)]
pub struct TeamRun {
    pub ending: Ending,
    pub plan: Vec<String>,
    /// Plan steps checked done.
    pub steps_done: usize,
    /// Actions taken (agent calls).
    pub actions: usize,
    /// What the agents said to the user last (an answer, or the question left open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said: Option<String>,
    pub usage: Usage,
    pub turns: Vec<Turn>,
    /// The prompt set the calls were made with.
    pub prompt_version: &'static str,
}

/// Runs `task` on `page` with seed 003's agents.
pub async fn run_team<M, P, U>(
    model: &M,
    task: &str,
    page: &mut P,
    user: &mut U,
    opts: &TeamOptions,
    cancel: &CancellationToken,
) -> Result<TeamRun, AgentError>
where
    M: Model + Sync,
    P: ActingPage + Send,
    U: User + Send,
{
    let mut team = Team {
        model,
        opts,
        cancel,
        run: TeamRun {
            ending: Ending::StepLimit,
            plan: Vec::new(),
            steps_done: 0,
            actions: 0,
            said: None,
            usage: Usage::default(),
            turns: Vec::new(),
            prompt_version: crate::prompts::VERSION,
        },
    };
    let Some(plan) = team.plan(task, page, user).await? else {
        team.run.ending = Ending::NeedsInput;
        return Ok(team.run);
    };
    team.run.plan = plan;
    for current in 0..team.run.plan.len() {
        if !team.solve_step(task, current, page, user).await? {
            return Ok(team.run);
        }
        team.run.steps_done = current + 1;
    }
    team.run.ending = Ending::Solved;
    Ok(team.run)
}

struct Team<'a, M> {
    model: &'a M,
    opts: &'a TeamOptions,
    cancel: &'a CancellationToken,
    run: TeamRun,
}

/// A role's call answered: its tool's arguments, if it called the tool.
struct Answer {
    arguments: Option<String>,
    usage: Usage,
}

impl<M: Model + Sync> Team<'_, M> {
    async fn call(&mut self, role: Role, message: String) -> Result<Answer, AgentError> {
        if self.cancel.is_cancelled() {
            return Err(ProviderError::Cancelled.into());
        }
        let system = role.system(self.opts.max_actions);
        let tool = role.tool();
        let choice = ToolChoice::Tool(tool.name.clone());
        let messages = [Message::user_text(message)];
        let req = ChatRequest {
            system: &system,
            messages: &messages,
            tools: std::slice::from_ref(&tool),
            choice: &choice,
        };
        let reply = self.model.call(&req, self.cancel).await?;
        self.run.usage += reply.usage;
        let arguments = reply
            .tool_uses()
            .find(|(_, name, _)| *name == tool.name)
            .map(|(_, _, args)| args.to_string());
        Ok(Answer {
            arguments,
            usage: reply.usage,
        })
    }

    fn record(
        &mut self,
        role: Role,
        step: Option<usize>,
        view: &PageView,
        a: &Answer,
        result: String,
    ) {
        self.run.turns.push(Turn {
            role,
            step: step.map(|s| s + 1),
            view_tokens: count(&view.text, Encoding::O200kBase),
            view: view.text.clone(),
            arguments: a.arguments.clone(),
            result,
            usage: a.usage,
        });
    }

    /// The operator's plan; `None` when it needs an answer nobody gave.
    async fn plan<P: ActingPage + Send, U: User + Send>(
        &mut self,
        task: &str,
        page: &mut P,
        user: &mut U,
    ) -> Result<Option<Vec<String>>, AgentError> {
        let mut answers = Vec::new();
        loop {
            let view = show(page, self.opts.view_max_tokens, None, Some(task)).await;
            let msg = roles::operator_message(task, &answers, &view);
            let a = self.call(Role::Operator, msg).await?;
            let plan = a
                .arguments
                .as_deref()
                .map_or_else(|| Err("no plan was given".to_string()), roles::read_plan);
            match plan {
                Ok(Plan::Steps(steps)) => {
                    self.record(Role::Operator, None, &view, &a, steps.join("; "));
                    return Ok(Some(steps));
                }
                Ok(Plan::Question(q)) if answers.len() < self.opts.max_questions => {
                    let reply = user.talk(&q).await;
                    self.record(Role::Operator, None, &view, &a, format!("asked: {q}"));
                    self.run.said = Some(q);
                    match reply {
                        Some(r) => answers.push(r),
                        None => return Ok(None),
                    }
                }
                // Out of questions, or no usable plan: the task itself is
                // the one step, which the agent and corrector can still do.
                Ok(Plan::Question(_)) | Err(_) => {
                    let why = match plan {
                        Err(e) => e,
                        _ => "too many questions".into(),
                    };
                    self.record(
                        Role::Operator,
                        None,
                        &view,
                        &a,
                        format!("{why}; one step: the task"),
                    );
                    return Ok(Some(vec![task.to_string()]));
                }
            }
        }
    }

    /// Works on plan step `current` until the corrector confirms it; false
    /// when the action cap ends the run first.
    async fn solve_step<P: ActingPage + Send, U: User + Send>(
        &mut self,
        task: &str,
        current: usize,
        page: &mut P,
        user: &mut U,
    ) -> Result<bool, AgentError> {
        let mut history: Vec<String> = Vec::new();
        let mut feedback: Option<String> = None;
        let mut expand: Option<CntId> = None;
        while self.run.actions < self.opts.max_actions {
            let step = self.run.plan.get(current).cloned();
            let view = show(
                page,
                self.opts.view_max_tokens,
                expand.take().as_ref(),
                step.as_deref(),
            )
            .await;
            let msg = roles::agent_message(
                task,
                &self.run.plan,
                current,
                &history,
                self.opts.history_steps,
                feedback.as_deref(),
                &view,
            );
            let a = self.call(Role::Agent, msg).await?;
            self.run.actions += 1;
            let step = match a.arguments.as_deref().map(roles::read_step) {
                Some(Ok(step)) => step,
                Some(Err(e)) => {
                    let result = format!("failed: {e}");
                    history.push(format!("{}. {result}", history.len() + 1));
                    self.record(Role::Agent, Some(current), &view, &a, result);
                    continue;
                }
                None => {
                    let result = "failed: no step was called".to_string();
                    history.push(format!("{}. {result}", history.len() + 1));
                    self.record(Role::Agent, Some(current), &view, &a, result);
                    continue;
                }
            };
            let (done, result) = self.take(current, &step, page, user, &mut expand).await?;
            history.push(format!(
                "{}. {} → {result}",
                history.len() + 1,
                done.as_ref()
                    .map_or_else(|| step.action.to_string(), ToString::to_string)
            ));
            self.record(Role::Agent, Some(current), &view, &a, result.clone());
            let Some(action) = done else { continue };
            if !step.solved {
                continue;
            }
            match self.check(current, &action, &result, page).await? {
                None => return Ok(true),
                Some(f) => feedback = Some(f),
            }
        }
        Ok(false)
    }

    /// Runs the agent's action (through the lookup when its element needs
    /// finding): the action run, or `None` when it failed, and what happened.
    async fn take<P: ActingPage + Send, U: User + Send>(
        &mut self,
        current: usize,
        step: &AgentStep,
        page: &mut P,
        user: &mut U,
        expand: &mut Option<CntId>,
    ) -> Result<(Option<Action>, String), AgentError> {
        let action = match roles::read_action(step.action.clone()) {
            Ok(Some(action)) => match page.resolve(&action) {
                Ok(aimed) => Ok(aimed),
                Err(e) if action.target().is_some() => {
                    let wanted = step.element.clone().unwrap_or_else(|| action.to_string());
                    self.look_up(current, step, &wanted, Some(&e), page).await?
                }
                Err(e) => Err(e),
            },
            Ok(None) => match &step.element {
                Some(wanted) => self.look_up(current, step, wanted, None, page).await?,
                None => Err(
                    "the action needs an element: give its id, or describe it in element".into(),
                ),
            },
            Err(e) => Err(e),
        };
        let action = match action {
            Ok(a) => a,
            Err(e) => return Ok((None, format!("failed: {e}"))),
        };
        let result = match &action {
            Action::Expand { id } => {
                *expand = Some(*id);
                Ok(format!("expanded {id}: the page below shows it"))
            }
            Action::Talk { message } => {
                self.run.said = Some(message.clone());
                Ok(match user.talk(message).await {
                    Some(reply) => {
                        format!("the user answered: <user-message>\n{reply}\n</user-message>")
                    }
                    None => "said to the user".to_string(),
                })
            }
            Action::NoAction => Ok("nothing done".into()),
            Action::DescribeImage { id } => page.image(id).await,
            _ => page.act(&action).await,
        };
        Ok(match result {
            Ok(said) => (Some(action), said),
            Err(e) => (None, format!("failed: {e}")),
        })
    }

    /// Asks the lookup for the element `wanted`, then aims and checks the action.
    async fn look_up<P: ActingPage + Send>(
        &mut self,
        current: usize,
        step: &AgentStep,
        wanted: &str,
        failure: Option<&str>,
        page: &mut P,
    ) -> Result<Result<Action, String>, AgentError> {
        let view = show(page, self.opts.lookup_max_tokens, None, Some(wanted)).await;
        let name = step.action["action"].as_str().unwrap_or("act").to_string();
        let msg = roles::lookup_message(&name, wanted, failure, &view);
        let a = self.call(Role::Lookup, msg).await?;
        let found = a
            .arguments
            .as_deref()
            .map_or_else(|| Err("no id was given".to_string()), roles::read_found);
        let aimed =
            found.and_then(|id| roles::aim(&step.action, id).and_then(|a| page.resolve(&a)));
        let result = match &aimed {
            Ok(a) => format!("found: {a}"),
            Err(e) => format!("not found: {e}"),
        };
        self.record(Role::Lookup, Some(current), &view, &a, result);
        Ok(aimed.map_err(|e| format!("no element fits {wanted:?}: {e}")))
    }

    /// The corrector's check of step `current` after `action`: `None` when
    /// done, else its feedback.
    async fn check<P: ActingPage + Send>(
        &mut self,
        current: usize,
        action: &Action,
        result: &str,
        page: &mut P,
    ) -> Result<Option<String>, AgentError> {
        let step = self.run.plan[current].clone();
        let view = show(page, self.opts.view_max_tokens, None, Some(&step)).await;
        let msg = roles::corrector_message(&step, &action.to_string(), result, &view);
        let a = self.call(Role::Corrector, msg).await?;
        let check = a
            .arguments
            .as_deref()
            .map_or_else(|| Err("no check was given".to_string()), roles::read_check);
        let (verdict, said) = match check {
            Ok(c) if c.solved => (None, "done".to_string()),
            Ok(c) => {
                let f = if c.feedback.is_empty() {
                    "the page does not show the step done".into()
                } else {
                    c.feedback
                };
                (Some(f.clone()), format!("not done: {f}"))
            }
            // An unreadable check proves nothing: the agent looks again.
            Err(e) => (
                Some(format!(
                    "the check could not be read ({e}); look at the page again"
                )),
                format!("failed: {e}"),
            ),
        };
        self.record(Role::Corrector, Some(current), &view, &a, said);
        Ok(verdict)
    }
}

/// The page's view, or a line saying why there is none (the model can still
/// go back or navigate).
async fn show<P: ActingPage + Send>(
    page: &mut P,
    max_tokens: usize,
    expand: Option<&CntId>,
    focus: Option<&str>,
) -> PageView {
    match page.view(max_tokens, expand, focus).await {
        Ok(v) => v,
        Err(e) => PageView {
            text: format!("(the page cannot be shown: {e})"),
            ..PageView::default()
        },
    }
}
