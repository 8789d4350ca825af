//! The SQLite store against real files: round trips, versions, retention,
//! reopening, permissions and schema checks.

use std::path::PathBuf;

use webfold_store::{
    ConversationId, ListQuery, NewConversation, NewPage, SqliteOptions, SqliteStore, Store,
};

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
        },
    }
}

#[tokio::test]
async fn create_get_list_delete() {
    let store = SqliteStore::open(&fresh_db("crud"), SqliteOptions::default()).unwrap();
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

#[tokio::test]
async fn refresh_keeps_previous_versions_up_to_the_limit() {
    let opts = SqliteOptions {
        max_versions: 3,
        ..Default::default()
    };
    let store = SqliteStore::open(&fresh_db("versions"), opts).unwrap();
    let c = store.create(new_conv("<p>v1</p>")).await.unwrap();
    for v in 2..=5u32 {
        let page = NewPage {
            html: format!("<p>v{v}</p>"),
            url: None,
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

    let unknown = ConversationId::random().unwrap();
    let page = NewPage {
        html: "x".into(),
        url: None,
    };
    assert_eq!(store.add_version(unknown, page).await.unwrap(), None);
}

#[tokio::test]
async fn data_survives_reopening_and_migrations_run_once() {
    let path = fresh_db("reopen");
    let id = {
        let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
        let c = store.create(new_conv("<main>kept</main>")).await.unwrap();
        store
            .add_version(
                c.id,
                NewPage {
                    html: "<main>v2</main>".into(),
                    url: None,
                },
            )
            .await
            .unwrap();
        c.id
    };
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let conv = store.get(id).await.unwrap().unwrap();
    assert_eq!(conv.version, 2);
    assert_eq!(
        store.page(id, Some(1)).await.unwrap().unwrap().html,
        "<main>kept</main>"
    );

    // Opening again must not re-apply migrations.
    SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let versions: Vec<i64> = conn
        .prepare("SELECT version FROM schema_version")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(versions, vec![1]);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn a_newer_schema_is_refused_with_advice() {
    let path = fresh_db("newer");
    SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("INSERT INTO schema_version (version) VALUES (99)", [])
        .unwrap();
    drop(conn);
    let err = SqliteStore::open(&path, SqliteOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("schema version 99"), "{err}");
    assert!(err.contains("upgrade webfold or use another --db"), "{err}");
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

#[tokio::test]
async fn concurrent_writers_and_readers_agree() {
    let store = SqliteStore::open(&fresh_db("concurrent"), SqliteOptions::default()).unwrap();
    let c = store.create(new_conv("<p>0</p>")).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let s = store.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let page = NewPage {
                    html: format!("<p>{i}</p>"),
                    url: None,
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
fn database_urls_are_refused() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("webfold-store-tests")
        .join(format!("urls-{}", ConversationId::random().unwrap()));
    std::fs::create_dir_all(&dir).unwrap();
    for (url, says) in [
        (
            "postgres://user:pw@localhost:5432/webfold",
            "PostgreSQL support is not there yet",
        ),
        (
            "postgresql://localhost/webfold",
            "PostgreSQL support is not there yet",
        ),
        ("postgres:webfold", "PostgreSQL support is not there yet"),
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
