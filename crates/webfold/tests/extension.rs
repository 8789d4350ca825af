//! The browser extension end to end, in Debian's Chromium: the real
//! `webfold daemon`, the built extension loaded unpacked, and
//! `webfold mcp --tools ui` as the coding agent. `extension/e2e/drive.mjs`
//! (playwright-core, no browser download) works the browser and the agent
//! and checks each step (pick, ask, streamed answer, Refresh, a service
//! worker restart, two tabs routed to two agents); this test writes the
//! extension out as users do (`webfold extension DIR`), starts the daemon,
//! runs the driver, and checks the daemon's own record afterwards.
//! `extension/e2e/agent.mjs` asks the daemon's built-in agent, with a
//! scripted provider on 127.0.0.1 as its model.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webfold_agent::replay::{Part, ReplayServer, Scripted};
use webfold_agent::{ProviderKind, Usage};
use webfold_chatter_client::client::Connection;
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::home::Home;
use webfold_testkit::{KillOnDrop, chromium};

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_script(name: &str, what: &str) {
    let status = Command::new(repo().join("scripts").join(name)).status();
    assert!(
        matches!(status, Ok(s) if s.success()),
        "scripts/{name} failed: {what}; run it by hand to see why (it needs node and npm, and the npm registry for its first install)"
    );
}

fn scratch(name: &str) -> PathBuf {
    webfold_testkit::temp_dir(&format!("extension-{name}"))
}

/// Starts `webfold daemon` on any free port (with `extra` flags); ready
/// once its socket answers.
fn daemon(home: &Path, extra: &[&str]) -> KillOnDrop {
    let log = std::fs::File::create(home.join("daemon.stderr")).unwrap();
    let child = Command::new(BIN)
        .args(["daemon", "--port", "0"])
        .args(extra)
        .env("WEBFOLD_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let daemon = KillOnDrop(child);
    let socket = Home::at(home.to_owned()).socket();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            Instant::now() < deadline,
            "the daemon did not start: {}",
            std::fs::read_to_string(home.join("daemon.stderr")).unwrap_or_default()
        );
        std::thread::park_timeout(Duration::from_millis(20));
    }
    daemon
}

/// Installs the driver; Chromium's path.
fn prepare() -> PathBuf {
    let chromium = chromium();
    run_script(
        "install-extension-e2e",
        "playwright-core (the test's driver) did not install",
    );
    chromium
}

/// The extension as users get it: written out by `webfold extension`, from
/// the copy built into the binary (so a test run loads what ships).
fn unpacked(home: &Path) -> PathBuf {
    let dir = home.join("extension");
    let out = Command::new(BIN)
        .args(["extension", "--json"])
        .arg(&dir)
        .output()
        .expect("webfold runs");
    assert!(
        out.status.success(),
        "webfold extension failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(written["extension_id"], EXTENSION_ID);
    assert!(dir.join("manifest.json").is_file());
    dir
}

/// Runs a driver script of `extension/e2e` with `envs`; its JSON summary.
fn drive(script: &str, home: &Path, chromium: &Path, envs: &[(&str, &OsStr)]) -> Value {
    let ext = repo().join("extension");
    let out = Command::new("node")
        .arg(ext.join("e2e").join(script))
        .env("WEBFOLD_BIN", BIN)
        .env("WEBFOLD_HOME", home)
        .env("EXTENSION_DIR", unpacked(home))
        .env("EXTENSION_ID", EXTENSION_ID)
        .env("CHROMIUM", chromium)
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    assert!(
        out.status.success(),
        "the extension driver {script} failed:\n{stdout}\n{stderr}"
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(summary["ok"], true, "{summary}");
    summary
}

#[test]
fn the_extension_picks_asks_streams_restarts_and_routes_two_tabs() {
    let chromium = prepare();
    let home = scratch("home");
    let project = scratch("project");
    let project2 = scratch("project2");
    let shots = scratch("screenshots");
    let _daemon = daemon(&home, &[]);
    let summary = drive(
        "drive.mjs",
        &home,
        &chromium,
        &[
            ("WEBFOLD_PROJECT", project.as_os_str()),
            ("WEBFOLD_PROJECT2", project2.as_os_str()),
            ("SHOTS_DIR", shots.as_os_str()),
        ],
    );
    assert_eq!(summary["extensionId"], EXTENSION_ID);
    assert_eq!(
        summary["origin"],
        format!("chrome-extension://{EXTENSION_ID}")
    );
    for shot in summary["screenshots"].as_array().unwrap() {
        let path = shots.join(shot.as_str().unwrap());
        let png = std::fs::read(&path).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{}", path.display());
    }
    eprintln!(
        "click → get_ui_context: {} ms; worker restart → answer shown: {} ms; chat share of a 360×665 panel: {} (controls hidden: {}); {} entries restored after a browser restart; screenshots in {}",
        summary["clickToContextMs"],
        summary["reconnectMs"],
        summary["chatShare"],
        summary["chatShareCollapsed"],
        summary["restoredEntries"],
        shots.display()
    );

    // The daemon's own record: the conversation, stored in order.
    let session = summary["sessionId"].as_str().unwrap().to_string();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let history = runtime.block_on(async {
        let home = Home::at(home.clone());
        let c = Connection::open(&home.socket()).await.unwrap();
        c.call(
            "hello",
            json!({"agentId": "checker", "project": project, "client": "test"}),
        )
        .await
        .unwrap();
        c.call(
            "get_conversation_history",
            json!({"sessionId": session, "limit": 20}),
        )
        .await
        .unwrap()
    });
    let expected = [
        "user: Make this button blue <script>alert(1)</script>",
        "assistant: Sure: make it **blue** in `shop.css`:\n\n```css\n#buy { background: blue; }\n```\n\n- done\n- <img src=x onerror=\"window.pwned=1\"> stays text\n\nAll set.",
        "assistant: Still here after a restart: [the docs](https://example.com/docs), [not a link](javascript:alert(1)).",
        "user: and the border too",
        "user: tab one again",
    ];
    assert_eq!(
        webfold_testkit::conversation(&history["messages"]),
        expected,
        "{history}"
    );
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&project);
    let _ = std::fs::remove_dir_all(&project2);
}

/// The scripted model's final answer.
const AGENT_REPLY: &str = "The price now reads 7 € (flash sale).";

#[test]
fn the_panel_asks_the_built_in_agent_which_reads_the_live_page() {
    let chromium = prepare();
    let home = scratch("agent-home");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let usage = Usage {
        input_tokens: 800,
        output_tokens: 30,
    };
    let answer = json!({
        "domChanges": [{"selector": ".price", "type": "text", "value": "7 €"}],
        "response": AGENT_REPLY,
        "action": "append"
    });
    let server = runtime
        .block_on(ReplayServer::start(vec![
            Scripted::reply(
                ProviderKind::OpenAi,
                &[Part::tool(
                    "c1",
                    "get_html_chunk",
                    json!({"selector": ".price"}),
                )],
                usage,
                true,
            ),
            Scripted::reply(
                ProviderKind::OpenAi,
                &[Part::tool("c2", "dom_changes_generator", answer)],
                usage,
                true,
            ),
        ]))
        .unwrap();
    let base = format!("{}/v1", server.url());
    let _daemon = daemon(
        &home,
        &["--provider", "openai", "--base-url", &base, "--model", "m"],
    );
    drive(
        "agent.mjs",
        &home,
        &chromium,
        &[("AGENT_REPLY", OsStr::new(AGENT_REPLY))],
    );

    // The model read the price as the page has it now, not as captured.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let read = reqs[1].tool_results().concat();
    assert!(
        read.contains("7 € (flash sale)") && !read.contains("12 €"),
        "{read}"
    );
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn the_extension_pairs_itself_and_brings_the_daemon_back_through_the_native_host() {
    let chromium = prepare();
    let home = scratch("host-home");
    let project = scratch("host-project");
    let profile = scratch("host-profile");
    let shots = scratch("host-screenshots");
    let out = Command::new(BIN)
        .args(["install-host", "--json", "--profile"])
        .arg(&profile)
        .env("WEBFOLD_HOME", &home)
        .output()
        .expect("webfold runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let installed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(profile.join("NativeMessagingHosts/dev.webfold.host.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        installed["manifests"][0],
        json!(profile.join("NativeMessagingHosts/dev.webfold.host.json"))
    );
    assert_eq!(
        manifest["allowed_origins"],
        json!([format!("chrome-extension://{EXTENSION_ID}/")]),
        "only webfold's extension may start it"
    );
    assert_eq!(
        Path::new(manifest["path"].as_str().unwrap()),
        std::fs::canonicalize(BIN).unwrap()
    );
    // A port of its own: the daemon the host starts must not meet another test's.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let summary = drive(
        "host.mjs",
        &home,
        &chromium,
        &[
            ("PROFILE", profile.as_os_str()),
            ("WEBFOLD_PROJECT", project.as_os_str()),
            ("SHOTS_DIR", shots.as_os_str()),
            ("WEBFOLD_DAEMON_PORT", OsStr::new(&port)),
        ],
    );
    assert_eq!(summary["pastes"], 0);
    eprintln!(
        "panel opened → paired with a daemon the host started: {} ms; kill -9 → a new daemon and the panel back: {} ms; screenshots in {}",
        summary["pairMs"],
        summary["backMs"],
        shots.display()
    );
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&profile);
}

#[test]
fn a_pick_in_a_development_build_names_the_file_and_line_that_write_it() {
    let chromium = prepare();
    let home = scratch("source-home");
    let project = scratch("source-project");
    let shots = scratch("source-screenshots");
    let apps = scratch("source-apps");
    let _daemon = daemon(&home, &[]);
    let summary = drive(
        "source.mjs",
        &home,
        &chromium,
        &[
            ("WEBFOLD_PROJECT", project.as_os_str()),
            ("SHOTS_DIR", shots.as_os_str()),
            ("APPS_OUT", apps.as_os_str()),
        ],
    );
    let mut table = String::from("framework | picks | right file and line\n");
    for (app, r) in summary["apps"].as_object().unwrap() {
        let (picks, right) = (r["picks"].as_u64().unwrap(), r["right"].as_u64().unwrap());
        table.push_str(&format!("{app} | {picks} | {right}\n"));
        assert!(
            right * 100 >= picks * 95,
            "{app}: {right} of {picks} picks name their source; misses: {}",
            r["misses"]
        );
    }
    eprintln!("{table}screenshots in {}", shots.display());
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&apps);
}
