//! The daemon's history on both backends (a project's SQLite file and the
//! PostgreSQL database daemons share), then what only the shared database
//! does: frames for a tab numbered in commit order under concurrent writers,
//! events heard by another daemon, presence that lapses.

#[allow(dead_code)] // the cluster is never killed here
use std::collections::BTreeSet;
use std::time::Duration;

use webfold_store::{
    ChatterEvent, ChatterStore, Heard, History, HistoryStore, Message, Presence, Role,
};
use webfold_testkit::pg::PgCluster;

fn msg(session: &str, role: Role, content: &str, agent: &str) -> Message {
    Message {
        id: 0,
        session_id: session.into(),
        role,
        content: content.into(),
        context_id: Some("ctx-1".into()),
        agent_id: Some(agent.into()),
        timestamp: 1,
    }
}

/// Messages come back per tab in order; unread ones per agent until read.
async fn history_case(h: History, again: History) {
    let first = h.append(msg("s", Role::User, "one", "a1")).await.unwrap();
    h.append(msg("s", Role::Assistant, "two", "a1"))
        .await
        .unwrap();
    h.append(msg("s", Role::User, "three", "a1")).await.unwrap();
    h.append(msg("other", Role::User, "x", "a2")).await.unwrap();
    let recent: Vec<String> = h
        .recent("s", 2)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(recent, ["two", "three"]);
    h.mark_delivered(first).await.unwrap();
    // A second handle (a restarted daemon, or another one) reads the same.
    let unread: Vec<String> = again
        .undelivered("a1")
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(unread, ["three"]);
    let all = again.recent("s", 10).await.unwrap();
    assert_eq!(all.len(), 3);
    assert!(all.windows(2).all(|w| w[0].id < w[1].id));
}

#[tokio::test]
async fn history_in_a_project_file() {
    let dir = std::env::temp_dir().join(format!("webfold-chatter-{}", std::process::id()));
    let path = dir.join("history.db");
    let h = History::File(HistoryStore::open(&path).unwrap());
    let again = History::File(HistoryStore::open(&path).unwrap());
    history_case(h, again).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn history_in_the_shared_database() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let shared = |store: ChatterStore| History::Shared {
        store,
        project: Some("/home/me/shop".into()),
    };
    let a = ChatterStore::open(&url).await.unwrap();
    let b = ChatterStore::open(&url).await.unwrap();
    assert_ne!(a.instance(), b.instance());
    history_case(shared(a), shared(b)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn frames_for_a_tab_arrive_in_commit_order_and_are_heard() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let writer = ChatterStore::open(&url).await.unwrap();
    let holder = ChatterStore::open(&url).await.unwrap();
    let mut heard = holder.events();
    assert!(heard.wait_listening(Duration::from_secs(10)).await);

    // Four writers push 25 frames each to one tab at once.
    let mut tasks = Vec::new();
    for w in 0..4 {
        let store = writer.clone();
        tasks.push(tokio::spawn(async move {
            let mut seqs = Vec::new();
            for i in 0..25 {
                let frame = format!("{{\"w\":{w},\"i\":{i}}}");
                seqs.push(store.push_frame("tab", &frame, true).await.unwrap());
            }
            seqs
        }));
    }
    let mut all = BTreeSet::new();
    for t in tasks {
        let seqs = t.await.unwrap();
        // Each writer's own frames are numbered in the order it wrote them.
        assert!(seqs.windows(2).all(|s| s[0] < s[1]), "{seqs:?}");
        all.extend(seqs);
    }
    assert_eq!(all, (1..=100).collect::<BTreeSet<i64>>());

    // The holder hears every frame, in seq order (commit order).
    let mut seqs = Vec::new();
    while seqs.len() < 100 {
        let next = tokio::time::timeout(Duration::from_secs(10), heard.next())
            .await
            .expect("heard within 10 s")
            .unwrap();
        if let Heard::Event {
            own: false,
            event: ChatterEvent::Frame { session, seq },
        } = next
        {
            assert_eq!(session, "tab");
            seqs.push(seq);
        }
    }
    assert_eq!(seqs, (1..=100).collect::<Vec<i64>>());

    let read = holder.frames_after("tab", 90).await.unwrap();
    assert_eq!(
        read.iter().map(|f| f.0).collect::<Vec<_>>(),
        (91..=100).collect::<Vec<_>>()
    );
    holder.drop_frames("tab", 95).await.unwrap();
    let left = holder.frames_after("tab", 0).await.unwrap();
    assert_eq!(left.first().map(|f| f.0), Some(96));
}

#[tokio::test]
async fn presence_is_seen_by_the_others_until_a_daemon_leaves() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let a = ChatterStore::open(&url).await.unwrap();
    let b = ChatterStore::open(&url).await.unwrap();
    a.present(Presence::Agent, "agent-a", Some("/p"), Some("claude"))
        .await
        .unwrap();
    a.present(Presence::Tab, "tab-1", None, None).await.unwrap();
    let seen = b.agents_elsewhere().await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (
            seen[0].agent_id.as_str(),
            seen[0].project.as_str(),
            seen[0].instance.as_str()
        ),
        ("agent-a", "/p", a.instance())
    );
    // A daemon does not list its own.
    assert!(a.agents_elsewhere().await.unwrap().is_empty());
    let tabs = ["tab-1".to_string(), "tab-2".to_string()];
    assert_eq!(b.tabs_elsewhere(&tabs).await.unwrap(), ["tab-1"]);
    a.leave().await.unwrap();
    assert!(b.agents_elsewhere().await.unwrap().is_empty());
    assert!(b.tabs_elsewhere(&tabs).await.unwrap().is_empty());
}
