use anyhow::Context;
use clap::Parser;
use webfold_chatter_client::client::Connection;
use webfold_chatter_client::home::Home;
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
            return print_list(&sessions, args.json);
        }
        let n: usize = args
            .what
            .trim_start_matches('#')
            .parse()
            .ok()
            .filter(|n| (1..=sessions.len()).contains(n))
            .with_context(|| {
                format!(
                    "'{}' is not a tab number: `webfold ui list` shows {} tab(s)",
                    args.what,
                    sessions.len()
                )
            })?;
        let picked = &sessions[n - 1];
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
