//! Answers: each belongs to one user message (its message id), never to
//! the selection it is about, so two answers never mix.
//!
//! The rule agents are told (`respond_to_browser`): each call adds the next
//! part of the answer, and the last call, with `isComplete`, adds the last
//! part. A part that starts with everything sent so far is the whole answer
//! again (a common slip: the whole text sent last), so it replaces the parts
//! rather than repeating them. The daemon keeps the text; the tab gets each
//! new part, then the whole answer once it is complete.
//!
//! An answer left open is closed by the daemon, its text as it stands kept
//! in the history: when its agent disconnects, and when another agent
//! answers the same message. A status the tab shows is cleared when its
//! agent completes an answer or disconnects.

use std::path::{Path, PathBuf};

use webfold_store::{Message, Role};

use super::{Hub, Session, now_ms};
use webfold_protocol::{
    AgentResponse, AgentResponseChunk, AnswerClosed, CloseReason, ServerFrame, Status, StatusUpdate,
};

/// How many messages read lately a tab remembers (older ones are found in
/// the history).
const MAX_ASKED: usize = 64;

/// How far back the history is searched for the message an answer names.
const HISTORY_REACH: usize = 500;

/// An answer being written.
pub(super) struct OpenAnswer {
    agent_id: String,
    context_id: String,
    project: PathBuf,
    text: String,
}

impl OpenAnswer {
    /// The new text a part adds: the part, or what follows the text so far
    /// when the part repeats it.
    fn news<'a>(&self, part: &'a str) -> &'a str {
        match part.strip_prefix(self.text.as_str()) {
            Some(rest) if !self.text.is_empty() => rest,
            _ => part,
        }
    }
}

/// One `respond_to_browser` call, with its message's context and project.
struct Part<'a> {
    agent_id: &'a str,
    session_id: &'a str,
    message_id: &'a str,
    context_id: String,
    project: PathBuf,
    text: &'a str,
}

/// What adding a part came to.
struct Added {
    /// The whole answer, when the part was the last.
    whole: Option<String>,
    /// Whether the tab got what was sent now.
    here: bool,
}

/// An answer closed before it was complete, for the history.
struct Closed {
    session_id: String,
    answer: OpenAnswer,
    reason: CloseReason,
}

fn idle() -> ServerFrame {
    ServerFrame::StatusUpdate(StatusUpdate {
        status: Status::Idle,
        detail: None,
    })
}

fn closed_frame(message_id: &str, answer: &OpenAnswer, reason: CloseReason) -> ServerFrame {
    ServerFrame::AnswerClosed(AnswerClosed {
        context_id: answer.context_id.clone(),
        message_id: message_id.to_string(),
        message: answer.text.clone(),
        reason,
    })
}

/// Clears the status `agent_id` set on a tab, if it shows one.
fn clear_status(session: &mut Session, agent_id: &str) -> Option<ServerFrame> {
    if session.status_by.as_deref() != Some(agent_id) {
        return None;
    }
    session.status_by = None;
    Some(idle())
}

impl Hub {
    /// Remembers that an agent read a message of a tab (an answer names it).
    pub(super) fn asked(&self, session_id: &str, message_id: String, context_id: String) {
        let mut st = self.state();
        let asked = &mut st.sessions.entry(session_id.to_string()).or_default().asked;
        if asked.iter().any(|(id, _)| *id == message_id) {
            return;
        }
        if asked.len() >= MAX_ASKED {
            asked.pop_front();
        }
        asked.push_back((message_id, context_id));
    }

    /// The context of the tab's message `message_id`: one read here lately,
    /// else one in the agent's project's history.
    async fn message_context(
        &self,
        session_id: &str,
        message_id: &str,
        project: &Path,
    ) -> Result<String, String> {
        let kept = self.state().sessions.get(session_id).and_then(|s| {
            s.asked
                .iter()
                .find(|(id, _)| id == message_id)
                .map(|(_, c)| c.clone())
        });
        if let Some(context) = kept {
            return Ok(context);
        }
        let unknown = || {
            format!(
                "{message_id} is not a message of tab {session_id}: answer with the messageId that get_ui_context gave for the user's message"
            )
        };
        let history = self.history(project).map_err(|e| e.to_string())?;
        let recent = history
            .recent(session_id, HISTORY_REACH)
            .await
            .map_err(|e| e.to_string())?;
        recent
            .into_iter()
            .find(|m| m.role == Role::User && super::message_id(m.id, m.timestamp) == message_id)
            .map(|m| m.context_id.unwrap_or_default())
            .ok_or_else(unknown)
    }

    /// A part of an answer, or its last part (`complete`), for the tab
    /// whose message it answers. `Ok`: whether the tab got it now.
    pub async fn respond(
        &self,
        agent_id: &str,
        session_id: &str,
        message_id: &str,
        text: &str,
        complete: bool,
    ) -> Result<bool, String> {
        let project = self.project_of_agent(agent_id)?;
        let context_id = self
            .message_context(session_id, message_id, &project)
            .await?;
        let part = Part {
            agent_id,
            session_id,
            message_id,
            context_id,
            project,
            text,
        };
        // Another agent's open answer to the message ends here, kept in the
        // history before the tab hears of it.
        let superseded = self.supersede(&part);
        if let Some(closed) = &superseded {
            self.keep_closed(closed).await;
        }
        let added = self.add_part(&part, superseded, complete);
        let here = match added.whole {
            Some(whole) => self.complete(&part, whole).await? || added.here,
            None => added.here,
        };
        Ok(here || self.is_elsewhere(session_id).await)
    }

    /// Adds a part to the open answer to its message (opening one; the tab
    /// hears first of the answer it `superseded`): a part goes to the tab
    /// now; the last one makes the whole answer, for [`Hub::complete`].
    fn add_part(&self, p: &Part, superseded: Option<Closed>, complete: bool) -> Added {
        let mut st = self.state();
        let session = st.sessions.entry(p.session_id.to_string()).or_default();
        let answer = session
            .answers
            .entry(p.message_id.to_string())
            .or_insert_with(|| OpenAnswer {
                agent_id: p.agent_id.to_string(),
                context_id: p.context_id.clone(),
                project: p.project.clone(),
                text: String::new(),
            });
        let news = answer.news(p.text).to_string();
        let mut frames = Vec::new();
        if let Some(old) = &superseded {
            frames.push(closed_frame(p.message_id, &old.answer, old.reason));
        }
        // The last part is added once the whole answer is stored.
        let whole = if complete {
            Some(format!("{}{news}", answer.text))
        } else {
            answer.text.push_str(&news);
            if !news.is_empty() {
                frames.push(ServerFrame::AgentResponseChunk(AgentResponseChunk {
                    context_id: p.context_id.clone(),
                    message_id: p.message_id.to_string(),
                    chunk: news,
                }));
            }
            None
        };
        let mut here = false;
        for frame in frames {
            here |= self.send(&mut st, p.session_id, frame, true);
        }
        Added { whole, here }
    }

    /// Takes another agent's open answer to the message a part answers.
    fn supersede(&self, p: &Part) -> Option<Closed> {
        let mut st = self.state();
        let session = st.sessions.get_mut(p.session_id)?;
        if session.answers.get(p.message_id)?.agent_id == p.agent_id {
            return None;
        }
        Some(Closed {
            session_id: p.session_id.to_string(),
            answer: session.answers.remove(p.message_id)?,
            reason: CloseReason::Superseded,
        })
    }

    /// Stores the whole answer, then tells the tab it is complete and
    /// clears the agent's status there. Not stored: the answer stays open
    /// as it was, for the last call to be made again.
    async fn complete(&self, p: &Part<'_>, whole: String) -> Result<bool, String> {
        let stored = Message {
            id: 0,
            session_id: p.session_id.to_string(),
            role: Role::Assistant,
            content: whole.clone(),
            context_id: Some(p.context_id.clone()),
            agent_id: Some(p.agent_id.to_string()),
            timestamp: now_ms(),
        };
        self.history(&p.project)
            .map_err(|e| e.to_string())?
            .append(stored)
            .await
            .map_err(|e| {
                format!("the answer could not be stored ({e}); send the last part again")
            })?;
        let mut st = self.state();
        let session = st.sessions.entry(p.session_id.to_string()).or_default();
        if session
            .answers
            .get(p.message_id)
            .is_some_and(|a| a.agent_id == p.agent_id)
        {
            session.answers.remove(p.message_id);
        }
        let cleared = clear_status(session, p.agent_id);
        let frame = ServerFrame::AgentResponse(AgentResponse {
            context_id: p.context_id.clone(),
            message_id: p.message_id.to_string(),
            message: whole,
            is_complete: true,
            result: None,
        });
        let here = self.send(&mut st, p.session_id, frame, true);
        if let Some(idle) = cleared {
            self.send(&mut st, p.session_id, idle, true);
        }
        Ok(here)
    }

    /// What an agent is doing, shown in the tab until it says `idle`,
    /// completes an answer there, or disconnects.
    pub async fn update_status(
        &self,
        agent_id: &str,
        session_id: &str,
        status: Status,
        detail: Option<String>,
    ) -> Result<bool, String> {
        self.project_of_agent(agent_id)?;
        let frame = ServerFrame::StatusUpdate(StatusUpdate { status, detail });
        let here = {
            let mut st = self.state();
            st.sessions
                .entry(session_id.to_string())
                .or_default()
                .status_by = (status != Status::Idle).then(|| agent_id.to_string());
            self.send(&mut st, session_id, frame, false)
        };
        Ok(here || self.is_elsewhere(session_id).await)
    }

    /// An agent is gone: its open answers are closed as they stand and
    /// kept in the history, then the tabs are told (and their statuses
    /// from it cleared) before they see it leave their agents list.
    pub(super) async fn close_answers_of(&self, agent_id: &str) {
        let (closed, cleared) = {
            let mut st = self.state();
            let mut closed = Vec::new();
            let mut cleared = Vec::new();
            for (session_id, session) in st.sessions.iter_mut() {
                let mine: Vec<String> = session
                    .answers
                    .iter()
                    .filter(|(_, a)| a.agent_id == agent_id)
                    .map(|(id, _)| id.clone())
                    .collect();
                for message_id in mine {
                    if let Some(answer) = session.answers.remove(&message_id) {
                        closed.push((
                            message_id,
                            Closed {
                                session_id: session_id.clone(),
                                answer,
                                reason: CloseReason::Disconnected,
                            },
                        ));
                    }
                }
                if let Some(idle) = clear_status(session, agent_id) {
                    cleared.push((session_id.clone(), idle));
                }
            }
            (closed, cleared)
        };
        let mut frames = Vec::new();
        for (message_id, c) in closed {
            frames.push((
                c.session_id.clone(),
                closed_frame(&message_id, &c.answer, c.reason),
            ));
            self.keep_closed(&c).await;
        }
        let mut st = self.state();
        for (session_id, frame) in frames.into_iter().chain(cleared) {
            self.send(&mut st, &session_id, frame, true);
        }
        self.broadcast_agents(&mut st);
    }

    /// An unfinished answer, kept in the history as the user saw it, with
    /// why it ends there (nothing is kept of an answer with no text).
    async fn keep_closed(&self, c: &Closed) {
        if c.answer.text.trim().is_empty() {
            return;
        }
        let stored = Message {
            id: 0,
            session_id: c.session_id.clone(),
            role: Role::Assistant,
            content: format!("{}\n\n({})", c.answer.text, c.reason.said()),
            context_id: Some(c.answer.context_id.clone()),
            agent_id: Some(c.answer.agent_id.clone()),
            timestamp: now_ms(),
        };
        let kept = match self.history(&c.answer.project) {
            Ok(h) => h.append(stored).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = kept {
            eprintln!("webfold daemon: an unfinished answer was not kept in the history: {e}");
        }
    }
}
