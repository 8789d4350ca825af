//! Two conversation services on one PostgreSQL database, as two `serve`
//! instances run them: a refresh acknowledged on one is what the other
//! serves from then on, even while its notification is still on the way,
//! and the notification retires the other's cached copies.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use webfold_server::service::{Conversations, Freshness, ServiceError};
use webfold_store::{NewConversation, NewPage, PostgresOptions, PostgresStore};
use webfold_testkit::pg::PgCluster;

async fn instance(url: &str) -> Arc<Conversations> {
    let opts = PostgresOptions {
        connect_timeout: Duration::from_secs(2),
        ..Default::default()
    };
    let store = PostgresStore::open(url, opts).await.unwrap();
    let conversations = Arc::new(Conversations::new(
        Arc::new(store),
        64 << 20,
        Freshness::Shared,
    ));
    assert!(
        conversations.follow_changes(Duration::from_secs(10)).await,
        "listening for the other instance's changes"
    );
    conversations
}

fn html(version: u32) -> String {
    format!("<h1>version {version}</h1>")
}

fn text(page: &webfold_server::cache::LoadedPage) -> String {
    page.page.text_content(webfold_core::page::NodeId::DOCUMENT)
}

/// A new conversation at version 1, created on `on`.
async fn create(on: &Conversations) -> webfold_store::Conversation {
    let page = NewPage {
        html: html(1),
        url: None,
        capture: None,
    };
    let new = NewConversation {
        page,
        ..Default::default()
    };
    on.create(new).await.unwrap().0
}

/// Waits, within a bounded deadline, until `done` holds.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_on_one_instance_is_never_followed_by_the_old_page_on_another() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let a = instance(&url).await;
    let b = instance(&url).await;

    let conv = create(&a).await;
    let id = conv.id;
    // B parses and caches version 1.
    assert_eq!(b.latest(id).await.unwrap().version, 1);
    assert_eq!(b.cache().cached_versions(id), vec![1]);

    // B reads without pause while A refreshes: every read that starts after
    // a refresh was acknowledged serves that version or a newer one.
    let acked = Arc::new(AtomicU32::new(1));
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (b, acked, stop) = (b.clone(), acked.clone(), stop.clone());
        tokio::spawn(async move {
            let mut reads = 0u32;
            while !stop.load(Ordering::SeqCst) {
                let floor = acked.load(Ordering::SeqCst);
                let page = b.latest(id).await.unwrap();
                assert!(
                    page.version >= floor,
                    "B served version {} after version {floor} was acknowledged",
                    page.version
                );
                assert_eq!(text(&page), format!("version {}", page.version));
                reads += 1;
            }
            reads
        })
    };
    for version in 2..=30 {
        let (conv, _) = a
            .refresh(
                id,
                NewPage {
                    html: html(version),
                    url: None,
                    capture: None,
                },
            )
            .await
            .unwrap();
        assert_eq!(conv.version, version);
        acked.store(version, Ordering::SeqCst);
        // And right after the acknowledgement, with no wait at all.
        let page = b.latest(id).await.unwrap();
        assert_eq!(page.version, version);
        assert_eq!(text(&page), format!("version {version}"));
    }
    stop.store(true, Ordering::SeqCst);
    assert!(reader.await.unwrap() > 0);

    // The notifications retire B's copies of the older versions; an old
    // version asked for by number is loaded again.
    eventually("B retires its old copies", || {
        b.cache().cached_versions(id) == vec![30]
    })
    .await;
    assert_eq!(b.version(id, 29).await.unwrap().version, 29);

    // A deletion on A: B answers "not found" at once and drops the pages.
    a.delete(id).await.unwrap();
    assert!(matches!(
        b.latest(id).await,
        Err(ServiceError::ConversationNotFound)
    ));
    eventually("B drops the deleted pages", || {
        b.cache().cached_versions(id).is_empty()
    })
    .await;

    // PostgreSQL crashes and restarts: B listens again and hears A's next refresh.
    let conv = create(&a).await;
    assert_eq!(b.latest(conv.id).await.unwrap().version, 1);
    cluster.kill();
    assert!(b.latest(conv.id).await.is_err(), "unavailable while down");
    cluster.start_server();
    let deadline = Instant::now() + Duration::from_secs(30);
    let refreshed = loop {
        let page = NewPage {
            html: html(2),
            url: None,
            capture: None,
        };
        match a.refresh(conv.id, page).await {
            Ok((c, _)) => break c,
            Err(e) => assert!(Instant::now() < deadline, "still failing: {e}"),
        }
    };
    assert_eq!(refreshed.version, 2);
    assert_eq!(b.latest(conv.id).await.unwrap().version, 2);
    eventually("B listens again after the restart", || {
        b.listening() == Some(true)
    })
    .await;
    let third = NewPage {
        html: html(3),
        url: None,
        capture: None,
    };
    a.refresh(conv.id, third).await.unwrap();
    // B holds version 2; the notification of version 3 retires it.
    eventually("B hears refreshes after the restart", || {
        b.cache().cached_versions(conv.id).is_empty()
    })
    .await;
}
