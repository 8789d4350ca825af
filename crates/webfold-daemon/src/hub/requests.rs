//! Requests to a tab that wait for its answer (`get_html` → `html`): kept
//! by request id, failed at once when the tab is not connected or
//! disconnects, else after their timeout.

use tokio::sync::oneshot;
use webfold_protocol::agent::LiveHtml;
use webfold_protocol::{GetHtml, HtmlReply, ServerFrame};

use super::{Hub, error};

/// A request waiting for its tab.
pub(super) struct Waiting {
    pub(super) session_id: String,
    pub(super) reply: oneshot::Sender<HtmlReply>,
}

impl Hub {
    /// Asks a connected tab for its current HTML (checked against
    /// `selector` there), waiting up to `timeout` for the answer.
    pub async fn live_html(
        &self,
        agent_id: &str,
        session_id: &str,
        selector: &str,
        timeout: std::time::Duration,
    ) -> Result<LiveHtml, String> {
        self.project_of_agent(agent_id)?;
        self.tab_html(session_id, Some(selector), timeout).await
    }

    /// Asks a connected tab for its current HTML: the request/answer
    /// exchange behind [`Hub::live_html`] and the built-in agent's chunks.
    pub(crate) async fn tab_html(
        &self,
        session_id: &str,
        selector: Option<&str>,
        timeout: std::time::Duration,
    ) -> Result<LiveHtml, String> {
        let (tx, rx) = oneshot::channel();
        let here = self.is_here(session_id);
        let elsewhere = !here && self.is_elsewhere(session_id).await;
        let request_id = {
            let mut st = self.state();
            if !here && !elsewhere {
                return Err(format!(
                    "the browser tab {session_id} is not connected (closed, navigated away, or its browser is not running): \
                     ask the user to open the page and pick again, or read the captured copy without live"
                ));
            }
            st.next_request += 1;
            let request_id = self.transport.request_id(st.next_request);
            st.waiting.insert(
                request_id.clone(),
                Waiting {
                    session_id: session_id.to_string(),
                    reply: tx,
                },
            );
            let frame = ServerFrame::GetHtml(GetHtml {
                request_id: request_id.clone(),
                selector: selector.map(str::to_string),
            });
            self.send(&mut st, session_id, frame, false);
            request_id
        };
        let got = tokio::time::timeout(timeout, rx).await;
        self.state().waiting.remove(&request_id);
        let reply = match got {
            Err(_) => {
                return Err(format!(
                    "the browser tab did not answer within {} s (a busy page, or the extension was reloaded): try again, or ask the user to press Refresh page",
                    timeout.as_secs()
                ));
            }
            Ok(Err(_)) => {
                return Err(
                    "the browser tab disconnected before it answered (closed or navigated away): ask the user to open the page and pick again"
                        .into(),
                );
            }
            Ok(Ok(r)) => r,
        };
        match (reply.html, reply.error) {
            (Some(html), _) => Ok(LiveHtml {
                html,
                matches: reply.matches.unwrap_or(1),
                url: reply.url,
            }),
            (None, Some(why)) => Err(format!("the live page says: {why}")),
            (None, None) => Err("the browser tab answered without HTML; try again".into()),
        }
    }

    /// A tab's answer to `get_html`: handed to the waiting request (`None`:
    /// nothing to send back), or an error frame when none waits for it.
    pub fn html_reply(&self, session_id: &str, reply: HtmlReply) -> Option<ServerFrame> {
        let mut st = self.state();
        let mine = st
            .waiting
            .get(&reply.request_id)
            .is_some_and(|w| w.session_id == session_id);
        if let Some(w) = st.waiting.remove(&reply.request_id).filter(|_| mine) {
            let _ = w.reply.send(reply);
            return None;
        }
        drop(st);
        if self.transport.forward_reply(session_id, &reply) {
            return None;
        }
        Some(error(
            "unknown_request",
            format!(
                "no request {} is waiting for this tab: it timed out or was answered already",
                reply.request_id
            ),
        ))
    }
}
