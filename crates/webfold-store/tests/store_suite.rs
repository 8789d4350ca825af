//! The store's test suite, run against both backends: a SQLite file and a
//! real throwaway PostgreSQL cluster. Every case in `on_both_backends!` runs
//! twice (`sqlite::case` and `postgres::case`); the cases after it check what
//! only one backend has (file permissions, URLs, a server that goes away).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use webfold_store::{
    Change, ConversationId, Database, ListQuery, NewConversation, NewPage, PostgresOptions,
    PostgresStore, SqliteOptions, SqliteStore, Store, StoreError,
};
use webfold_testkit::pg::PgCluster;

fn fresh_db(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("webfold-store-tests")
        .join(format!("{name}-{}", ConversationId::random().unwrap()));
    dir.join("nested").join("webfold.db")
}

fn new_conv(html: &str) -> NewConversation {
    NewConversation {
        session_id: Some("sess-1".into()),
        cwd: Some("/".into()),
        permission_mode: Some("ask".into()),
        json_schema: Some(serde_json::json!({"type": "object"})),
        page: NewPage {
            html: html.into(),
            url: Some("https://example.com/".into()),
            capture: None,
        },
    }
}

async fn pg_client(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

/// One backend's database, which a case may open several times.
enum Backend {
    Sqlite(PathBuf),
    Postgres { _cluster: PgCluster, url: String },
}

impl Backend {
    fn sqlite(name: &str) -> Self {
        Backend::Sqlite(fresh_db(name))
    }

    fn postgres() -> Self {
        let cluster = PgCluster::start();
        let url = cluster.new_database();
        Backend::Postgres {
            _cluster: cluster,
            url,
        }
    }

    async fn open_with(&self, max_versions: u32) -> Result<Arc<dyn Store>, StoreError> {
        Ok(match self {
            Backend::Sqlite(path) => {
                let opts = SqliteOptions {
                    max_versions,
                    ..Default::default()
                };
                Arc::new(SqliteStore::open(path, opts)?)
            }
            Backend::Postgres { url, .. } => {
                let opts = PostgresOptions {
                    max_versions,
                    ..Default::default()
                };
                Arc::new(PostgresStore::open(url, opts).await?)
            }
        })
    }

    async fn open(&self) -> Arc<dyn Store> {
        self.open_with(10).await.unwrap()
    }

    async fn schema_versions(&self) -> Vec<i64> {
        match self {
            Backend::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.prepare("SELECT version FROM schema_version ORDER BY version")
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            Backend::Postgres { url, .. } => pg_client(url)
                .await
                .query("SELECT version FROM schema_version ORDER BY version", &[])
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
        }
    }

    async fn execute(&self, sql: &str) {
        match self {
            Backend::Sqlite(path) => {
                rusqlite::Connection::open(path)
                    .unwrap()
                    .execute_batch(sql)
                    .unwrap();
            }
            Backend::Postgres { url, .. } => pg_client(url).await.batch_execute(sql).await.unwrap(),
        }
    }
}

macro_rules! on_both_backends {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case(super::Backend::sqlite(stringify!($case))).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::$case(super::Backend::postgres()).await
                }
            )*
        }
    };
}

on_both_backends!(
    create_get_list_delete,
    refresh_keeps_previous_versions_up_to_the_limit,
    retention_never_drops_the_latest_two,
    data_survives_reopening_and_migrations_run_once,
    a_newer_schema_is_refused_with_advice,
    concurrent_writers_and_readers_agree,
    two_instances_see_each_others_writes,
);

async fn create_get_list_delete(backend: Backend) {
    let store = backend.open().await;
    let a = store.create(new_conv("<p>a</p>")).await.unwrap();
    let b = store.create(new_conv("<p>bb</p>")).await.unwrap();
    assert_ne!(a.id, b.id);
    assert_eq!(a.version, 1);
    assert_eq!(a.html_bytes, 8);
    assert_eq!(a.session_id.as_deref(), Some("sess-1"));
    assert_eq!(a.json_schema, Some(serde_json::json!({"type": "object"})));

    assert_eq!(store.get(a.id).await.unwrap(), Some(a.clone()));
    let page = store.page(a.id, None).await.unwrap().unwrap();
    assert_eq!((page.version, page.html.as_str()), (1, "<p>a</p>"));
    assert_eq!(page.url.as_deref(), Some("https://example.com/"));

    let all = store.list(ListQuery::default()).await.unwrap();
    assert_eq!(all.len(), 2);
    let one = store
        .list(ListQuery {
            limit: 1,
            offset: 1,
        })
        .await
        .unwrap();
    assert_eq!(one.len(), 1);

    assert!(store.delete(a.id).await.unwrap());
    assert!(!store.delete(a.id).await.unwrap());
    assert_eq!(store.get(a.id).await.unwrap(), None);
    assert_eq!(store.page(a.id, None).await.unwrap(), None);
    assert_eq!(store.versions(a.id).await.unwrap(), Vec::<u32>::new());
    assert_eq!(store.list(ListQuery::default()).await.unwrap().len(), 1);
}

async fn refresh_keeps_previous_versions_up_to_the_limit(backend: Backend) {
    let store = backend.open_with(3).await.unwrap();
    let c = store.create(new_conv("<p>v1</p>")).await.unwrap();
    for v in 2..=5u32 {
        let page = NewPage {
            html: format!("<p>v{v}</p>"),
            url: None,
            capture: None,
        };
        let updated = store.add_version(c.id, page).await.unwrap().unwrap();
        assert_eq!(updated.version, v);
        assert!(updated.updated_at >= c.updated_at);
        assert_eq!(updated.url, None);
    }
    assert_eq!(store.versions(c.id).await.unwrap(), vec![3, 4, 5]);
    assert_eq!(
        store.page(c.id, None).await.unwrap().unwrap().html,
        "<p>v5</p>"
    );
    assert_eq!(
        store.page(c.id, Some(4)).await.unwrap().unwrap().html,
        "<p>v4</p>"
    );
    assert_eq!(store.page(c.id, Some(1)).await.unwrap(), None);
    assert_eq!(store.page(c.id, Some(u32::MAX)).await.unwrap(), None);

    let unknown = ConversationId::random().unwrap();
    let page = NewPage {
        html: "x".into(),
        url: None,
        capture: None,
    };
    assert_eq!(store.add_version(unknown, page).await.unwrap(), None);
}

async fn retention_never_drops_the_latest_two(backend: Backend) {
    // A retention below two is raised to two.
    let store = backend.open_with(0).await.unwrap();
    let c = store.create(new_conv("<p>v1</p>")).await.unwrap();
    for v in 2..=4u32 {
        let page = NewPage {
            html: format!("<p>v{v}</p>"),
            url: None,
            capture: None,
        };
        store.add_version(c.id, page).await.unwrap().unwrap();
    }
    assert_eq!(store.versions(c.id).await.unwrap(), vec![3, 4]);
}

async fn data_survives_reopening_and_migrations_run_once(backend: Backend) {
    let id = {
        let store = backend.open().await;
        let c = store.create(new_conv("<main>kept</main>")).await.unwrap();
        store
            .add_version(
                c.id,
                NewPage {
                    html: "<main>v2</main>".into(),
                    url: None,
                    capture: Some(r#"{"viewport":{"width":800,"height":600},"nodes":[]}"#.into()),
                },
            )
            .await
            .unwrap();
        c.id
    };
    let store = backend.open().await;
    let conv = store.get(id).await.unwrap().unwrap();
    assert_eq!(conv.version, 2);
    assert_eq!(
        store.page(id, Some(1)).await.unwrap().unwrap().html,
        "<main>kept</main>"
    );
    // The extension's capture is kept with its version, and only there.
    assert_eq!(
        store.page(id, Some(1)).await.unwrap().unwrap().capture,
        None
    );
    let v2 = store.page(id, None).await.unwrap().unwrap();
    assert!(v2.capture.is_some_and(|c| c.contains("viewport")));

    // Opening again must not re-apply migrations.
    backend.open().await;
    assert_eq!(backend.schema_versions().await, vec![1, 2]);
}

async fn a_newer_schema_is_refused_with_advice(backend: Backend) {
    backend.open().await;
    backend
        .execute("INSERT INTO schema_version (version) VALUES (99)")
        .await;
    let err = backend.open_with(10).await.err().unwrap().to_string();
    assert!(err.contains("schema version 99"), "{err}");
    assert!(err.contains("upgrade webfold or use another --db"), "{err}");
}

async fn concurrent_writers_and_readers_agree(backend: Backend) {
    let store = backend.open().await;
    let c = store.create(new_conv("<p>0</p>")).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let page = NewPage {
                    html: format!("<p>{i}</p>"),
                    url: None,
                    capture: None,
                };
                s.add_version(c.id, page).await.unwrap().unwrap();
            } else {
                let p = s.page(c.id, None).await.unwrap().unwrap();
                assert!(p.html.starts_with("<p>") && p.html.ends_with("</p>"));
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let conv = store.get(c.id).await.unwrap().unwrap();
    assert_eq!(conv.version, 11);
}

/// Two stores on one database (two server instances, or `serve` beside `mcp`):
/// what one writes, the other reads, and refreshes from both interleave.
async fn two_instances_see_each_others_writes(backend: Backend) {
    let (a, b) = (backend.open().await, backend.open().await);
    let c = a.create(new_conv("<p>from a</p>")).await.unwrap();
    assert_eq!(b.get(c.id).await.unwrap(), Some(c.clone()));
    let mut tasks = Vec::new();
    for i in 0..8 {
        let s = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move {
            let page = NewPage {
                html: format!("<p>{i}</p>"),
                url: None,
                capture: None,
            };
            s.add_version(c.id, page).await.unwrap().unwrap().version
        }));
    }
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort();
    assert_eq!(seen, (2..=9).collect::<Vec<u32>>());
    assert_eq!(a.get(c.id).await.unwrap().unwrap().version, 9);
    assert!(b.delete(c.id).await.unwrap());
    assert_eq!(a.get(c.id).await.unwrap(), None);
}

// --- SQLite only ---------------------------------------------------------

#[tokio::test]
async fn sqlite_uses_wal_mode() {
    let path = fresh_db("wal");
    SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[cfg(unix)]
#[tokio::test]
async fn database_file_and_directory_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let path = fresh_db("perms");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    store.create(new_conv("<p>secret</p>")).await.unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    let wal = path.with_extension("db-wal");
    assert!(wal.exists(), "WAL mode writes a -wal file");
    assert_eq!(mode(&wal), 0o600);
}

#[test]
fn open_reports_an_unusable_path() {
    let dir = fresh_db("notadir");
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    // A directory where the file should be.
    std::fs::create_dir_all(&dir).unwrap();
    let err = SqliteStore::open(&dir, SqliteOptions::default())
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(msg.starts_with("cannot open the database at "), "{msg}");
}

/// A URL is refused before anything touches the disk: no `postgres:` directory
/// appears, and the message says what to pass instead.
#[test]
fn database_urls_are_refused_as_sqlite_paths() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("webfold-store-tests")
        .join(format!("urls-{}", ConversationId::random().unwrap()));
    std::fs::create_dir_all(&dir).unwrap();
    for (url, says) in [
        (
            "postgres://user:pw@localhost:5432/webfold",
            "a PostgreSQL URL looks like postgres://",
        ),
        (
            "postgresql://localhost/webfold",
            "a PostgreSQL URL looks like postgres://",
        ),
        (
            "postgres:webfold",
            "a PostgreSQL URL looks like postgres://",
        ),
        ("sqlite:webfold.db", "without the 'sqlite:' prefix"),
        ("file:///tmp/webfold.db", "without the 'file:' prefix"),
        ("mysql://localhost/db", "mysql databases are not supported"),
        ("redis://localhost", "must be a file path"),
    ] {
        let err = SqliteStore::open(std::path::Path::new(url), SqliteOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{url} was accepted"))
            .to_string();
        assert!(err.contains("must be a file path"), "{err}");
        assert!(err.contains(says), "{url}: {err}");
        assert!(err.contains(url), "names the value: {err}");
    }
    // Nothing was created in the working directory.
    assert!(!std::path::Path::new("postgres:").exists());
    assert!(!std::path::Path::new("postgresql:").exists());
    // Paths that merely contain a colon are still paths.
    let odd = dir.join("notes:v1.db");
    SqliteStore::open(&odd, SqliteOptions::default()).unwrap();
    assert!(odd.exists());
}

// --- Choosing the backend ------------------------------------------------

#[test]
fn db_values_pick_the_backend() {
    use std::path::Path;
    for url in [
        "postgres://web@localhost/webfold",
        "postgresql://localhost:5433/webfold",
        "POSTGRES://localhost/webfold",
    ] {
        assert_eq!(
            Database::from_arg(Path::new(url)),
            Database::Postgres(url.into())
        );
    }
    for path in ["./webfold.db", "postgres:webfold", "/data/notes:v1.db"] {
        assert_eq!(
            Database::from_arg(Path::new(path)),
            Database::Sqlite(path.into())
        );
    }
    let shown = Database::from_arg(Path::new("postgres://web:s3cret@db/webfold")).to_string();
    assert_eq!(shown, "postgres://web:***@db/webfold");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_picks_postgres_for_urls_and_sqlite_for_paths() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let pg = webfold_store::open(&Database::from_arg(std::path::Path::new(&url)))
        .await
        .unwrap();
    let c = pg.create(new_conv("<p>pg</p>")).await.unwrap();
    // The conversation is in PostgreSQL: a direct client sees it.
    let rows = pg_client(&url)
        .await
        .query("SELECT id FROM conversations", &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<_, String>(0), c.id.to_string());

    let path = fresh_db("open");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lite = webfold_store::open(&Database::from_arg(&path))
        .await
        .unwrap();
    lite.create(new_conv("<p>lite</p>")).await.unwrap();
    assert!(path.exists());
}

// --- PostgreSQL only -------------------------------------------------------

#[tokio::test]
async fn an_unreachable_server_is_reported_with_advice() {
    // A port nothing listens on.
    let port = webfold_testkit::free_port();
    let url = format!("postgres://web:s3cret@127.0.0.1:{port}/webfold");
    let err = PostgresStore::open(&url, PostgresOptions::default())
        .await
        .err()
        .unwrap();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!(
            "cannot reach PostgreSQL at postgres://web:***@127.0.0.1:{port}/webfold: "
        )),
        "{msg}"
    );
    assert!(msg.contains("is it running?"), "{msg}");
    assert!(!msg.contains("s3cret"), "{msg}");
}

#[tokio::test]
async fn tls_and_bad_urls_are_refused_clearly() {
    let err = PostgresStore::open(
        "postgres://web@127.0.0.1/webfold?sslmode=require",
        PostgresOptions::default(),
    )
    .await
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("asks for TLS (sslmode=require)"), "{err}");
    assert!(err.contains("sslmode=disable"), "{err}");

    let err = PostgresStore::open(
        "postgres://web@127.0.0.1/webfold?nonsense=1",
        PostgresOptions::default(),
    )
    .await
    .err()
    .unwrap()
    .to_string();
    assert!(err.starts_with("cannot open the database at "), "{err}");
    assert!(
        err.contains("postgres://user:password@host:5432/database"),
        "{err}"
    );
}

/// Calls until `f` succeeds or the deadline passes; returns the errors seen.
async fn until_ok<T, F, Fut>(deadline: Duration, mut f: F) -> (T, Vec<StoreError>)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
{
    let end = Instant::now() + deadline;
    let mut errors = Vec::new();
    loop {
        match f().await {
            Ok(v) => return (v, errors),
            Err(e) if Instant::now() < end => {
                errors.push(e);
                tokio::task::yield_now().await;
            }
            Err(e) => panic!(
                "still failing after {deadline:?}: {e} ({} earlier failures)",
                errors.len()
            ),
        }
    }
}

/// Options for a server that goes away: connecting fails after 2 s.
fn quick_to_give_up() -> PostgresOptions {
    PostgresOptions {
        connect_timeout: Duration::from_secs(2),
        ..Default::default()
    }
}

/// PostgreSQL crashes (`pg_ctl stop -m immediate`) and comes back: calls fail
/// with a clear error while it is down, acknowledged writes survive, and the
/// same store works again after the restart without being reopened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_restart_is_survived() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let opts = quick_to_give_up();
    let store = PostgresStore::open(&url, opts).await.unwrap();
    // Several pooled connections, all of which the crash closes.
    let c = store.create(new_conv("<p>before</p>")).await.unwrap();
    let reads: Vec<_> = (0..4).map(|_| store.get(c.id)).collect();
    for r in reads {
        assert!(r.await.unwrap().is_some());
    }

    cluster.kill();
    let err = store.get(c.id).await.expect_err("fails while down");
    let msg = err.to_string();
    assert!(
        matches!(err, StoreError::Unavailable { .. }),
        "while down: {err:?}"
    );
    assert!(
        msg.starts_with("cannot reach PostgreSQL at postgres://webfold@127.0.0.1:"),
        "{msg}"
    );
    assert!(msg.contains("is it running?"), "{msg}");
    // Every kind of call fails the same way, none hangs.
    let err = store
        .create(new_conv("<p>lost</p>"))
        .await
        .expect_err("fails while down");
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");

    cluster.start_server();
    let (conv, _) = until_ok(Duration::from_secs(30), || store.get(c.id)).await;
    assert_eq!(conv.unwrap().id, c.id, "the acknowledged write survived");
    let (v2, _) = until_ok(Duration::from_secs(30), || {
        store.add_version(
            c.id,
            NewPage {
                html: "<p>after</p>".into(),
                url: None,
                capture: None,
            },
        )
    })
    .await;
    assert_eq!(v2.unwrap().version, 2);
    assert_eq!(store.versions(c.id).await.unwrap(), vec![1, 2]);
}

fn page(html: &str) -> NewPage {
    NewPage {
        html: html.into(),
        url: None,
        capture: None,
    }
}

/// What a subscriber hears next, within a bounded wait.
async fn heard(changes: &mut webfold_store::Changes) -> Option<Change> {
    tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("a change is heard within 10 s")
}

/// A store hears the refreshes and deletions other stores commit, in commit
/// order, never its own, nothing for what was rolled back or did not happen;
/// after PostgreSQL restarts it says it may have missed some and hears the
/// next ones again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_stores_hear_changes_in_commit_order_across_a_restart() {
    let cluster = PgCluster::start();
    let url = cluster.new_database();
    let opts = quick_to_give_up();
    let a = PostgresStore::open(&url, opts.clone()).await.unwrap();
    let b = PostgresStore::open(&url, opts).await.unwrap();
    let mut at_a = a.changes().expect("PostgreSQL stores hear changes");
    let mut at_b = b.changes().expect("PostgreSQL stores hear changes");
    assert!(at_a.wait_listening(Duration::from_secs(10)).await);
    assert!(at_b.wait_listening(Duration::from_secs(10)).await);

    let c = a.create(new_conv("<p>1</p>")).await.unwrap();
    for v in 2..=5 {
        let conv = a.add_version(c.id, page(&format!("<p>{v}</p>"))).await;
        assert_eq!(conv.unwrap().unwrap().version, v);
    }
    let missing = ConversationId::random().unwrap();
    assert!(
        a.add_version(missing, page("<p>x</p>"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(!a.delete(missing).await.unwrap());
    // B refreshes too: A hears it, B does not hear itself.
    assert_eq!(
        b.add_version(c.id, page("<p>6</p>"))
            .await
            .unwrap()
            .unwrap()
            .version,
        6
    );
    assert!(a.delete(c.id).await.unwrap());
    for version in 2..=5 {
        assert_eq!(
            heard(&mut at_b).await,
            Some(Change::Refreshed { id: c.id, version })
        );
    }
    assert_eq!(heard(&mut at_b).await, Some(Change::Deleted { id: c.id }));
    assert_eq!(
        heard(&mut at_a).await,
        Some(Change::Refreshed {
            id: c.id,
            version: 6
        })
    );
    // SQLite has no one to hear from.
    let lite = SqliteStore::open(&fresh_db("changes"), SqliteOptions::default()).unwrap();
    assert!(lite.changes().is_none());

    cluster.kill();
    let mut state = at_b.listening();
    tokio::time::timeout(Duration::from_secs(10), state.wait_for(|up| !*up))
        .await
        .expect("the lost connection is noticed")
        .unwrap();
    cluster.start_server();
    assert!(
        at_b.wait_listening(Duration::from_secs(30)).await,
        "listening again after the restart"
    );
    assert_eq!(heard(&mut at_b).await, Some(Change::Missed));
    let (d, _) = until_ok(Duration::from_secs(30), || a.create(new_conv("<p>1</p>"))).await;
    let (_, _) = until_ok(Duration::from_secs(30), || {
        a.add_version(d.id, page("<p>2</p>"))
    })
    .await;
    assert_eq!(
        heard(&mut at_b).await,
        Some(Change::Refreshed {
            id: d.id,
            version: 2
        })
    );
}
