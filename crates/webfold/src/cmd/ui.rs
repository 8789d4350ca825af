use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Parser;
use serde::{Deserialize, Serialize};
use webfold_chatter_client::client::Connection;
use webfold_chatter_client::home::{Home, write_private};
use webfold_protocol::agent::{SessionInfo, UiList, UiPick};

/// List this project's browser tabs (`ui list`), or pick the one agents read
/// by default (`ui 2`).
#[derive(Parser)]
pub struct Args {
    /// `list`, or a tab's number from the list (`2` or `#2`)
    #[arg(default_value = "list")]
    what: String,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let home = Home::from_env()?;
    let project = std::env::current_dir().context("cannot read the working directory")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let conn = Connection::open(&home.socket()).await.map_err(|_| {
            anyhow::anyhow!("the webfold daemon is not running: start it with `webfold daemon`")
        })?;
        let sessions = conn
            .request(UiList {
                project: project.clone(),
            })
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .sessions;
        if args.what == "list" {
            remember(&home, &project, &sessions);
            return print_list(&sessions, args.json);
        }
        let numbered = numbered(&home, &project, &sessions);
        let n: usize = args
            .what
            .trim_start_matches('#')
            .parse()
            .ok()
            .filter(|n| (1..=numbered.len()).contains(n))
            .with_context(|| {
                format!(
                    "'{}' is not a tab number: `webfold ui list` shows {} tab(s)",
                    args.what,
                    numbered.len()
                )
            })?;
        let Some(picked) = numbered[n - 1] else {
            anyhow::bail!(
                "tab #{n} of the last `webfold ui list` is gone (closed or forgotten): run `webfold ui list` again"
            );
        };
        conn.request(UiPick {
            project,
            session_id: picked.session_id.clone(),
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        if args.json {
            crate::out::line(&serde_json::to_string(picked)?)
        } else {
            crate::out::line(&format!(
                "Agents of this project now read #{n}: {} ({})",
                picked.page_title, picked.page_url
            ))
        }
    })
}

/// What `ui list` printed, by number: the list kept by [`remember`] for
/// this project (a tab no longer among `sessions` is `None`), or `sessions`
/// as they stand when no list was printed here.
fn numbered<'a>(
    home: &Home,
    project: &Path,
    sessions: &'a [SessionInfo],
) -> Vec<Option<&'a SessionInfo>> {
    let kept = std::fs::read(home.ui_list())
        .ok()
        .and_then(|b| serde_json::from_slice::<PrintedList>(&b).ok())
        .filter(|l| l.project == project);
    match kept {
        Some(list) => list
            .sessions
            .iter()
            .map(|id| sessions.iter().find(|s| &s.session_id == id))
            .collect(),
        None => sessions.iter().map(Some).collect(),
    }
}

#[derive(Serialize, Deserialize)]
struct PrintedList {
    project: PathBuf,
    sessions: Vec<String>,
}

/// Keeps the numbering `ui list` prints; failing to is not worth an error
/// (`ui N` then numbers the tabs as they stand).
fn remember(home: &Home, project: &Path, sessions: &[SessionInfo]) {
    let list = PrintedList {
        project: project.to_owned(),
        sessions: sessions.iter().map(|s| s.session_id.clone()).collect(),
    };
    if let Ok(json) = serde_json::to_vec(&list) {
        let _ = write_private(&home.ui_list(), &json);
    }
}

fn print_list(sessions: &[SessionInfo], json: bool) -> anyhow::Result<()> {
    if json {
        return crate::out::line(&serde_json::to_string_pretty(sessions)?);
    }
    if sessions.is_empty() {
        return crate::out::line(
            "No browser tabs for this project yet: pick an element with the webfold extension.",
        );
    }
    let now = webfold_daemon::hub::now_ms();
    let mut text = String::new();
    for (i, s) in sessions.iter().enumerate() {
        let ago = (now - s.last_active).max(0) / 1000;
        text += &format!(
            "#{} {}  {}  ({ago} s ago{}{})\n",
            i + 1,
            s.page_title,
            s.page_url,
            if s.connected { ", open" } else { "" },
            if s.has_unread_message {
                ", unread message"
            } else {
                ""
            }
        );
    }
    crate::out::line(&text)
}
