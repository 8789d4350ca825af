//! One text frame from a paired tab to the daemon's frame handler,
//! in-process: a hub in a scratch home with one agent of one project
//! connected, so selections are stored and messages routed for real.
//!
//! Invariants: every frame gets exactly one answer; a frame is refused as
//! malformed exactly when the protocol cannot read it; every answer is a
//! frame the protocol can read back unchanged; an error names a documented
//! code and says something.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use webfold_daemon::home::Home;
use webfold_daemon::hub::Hub;
use webfold_daemon::ws::answer;
use webfold_protocol::{ServerFrame, parse_client_frame};

use crate::panics;

/// The tab every frame comes from.
pub const SESSION: &str = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed";

/// The error codes the protocol documents.
const CODES: [&str; 8] = [
    "bad_frame",
    "unauthorized",
    "too_large",
    "unknown_context",
    "choose_agent",
    "unknown_agent",
    "storage",
    "unknown_request",
];

struct Fixture {
    runtime: tokio::runtime::Runtime,
    hub: Arc<Hub>,
}

thread_local! {
    static FIXTURE: RefCell<Option<Fixture>> = const { RefCell::new(None) };
}

fn fixture() -> Fixture {
    let runtime = panics::runtime("ws_frame");
    let dir = scratch();
    let hub = Hub::new(Home::at(dir.join("home"))).expect("a hub in a scratch home");
    runtime
        .block_on(hub.connect_agent("fuzz-agent", dir.join("project"), "fuzz".into()))
        .expect("the agent connects");
    Fixture { runtime, hub }
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webfold-fuzz-ws-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("project")).expect("scratch dir");
    dir
}

pub fn check(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let answered = FIXTURE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let f = slot.get_or_insert_with(fixture);
        panics::assert_none("ws_frame", || {
            f.runtime.block_on(answer(&f.hub, SESSION, &text))
        })
    });
    let readable = parse_client_frame(&text).is_ok();
    let frame = match answered {
        Ok(frame) => {
            assert!(
                readable,
                "{text:?} was answered as a frame the protocol cannot read"
            );
            // Only an `html` answer to a waiting request goes unanswered,
            // and no request waits here.
            frame.unwrap_or_else(|| panic!("{text:?} got no answer"))
        }
        Err(refusal) => {
            assert!(
                !readable,
                "{text:?} is a readable frame, refused: {refusal:?}"
            );
            let ServerFrame::Error(e) = &refusal else {
                panic!("a refusal that is not an error frame: {refusal:?}");
            };
            assert_eq!(e.code, "bad_frame", "{text:?}");
            refusal
        }
    };
    let json = serde_json::to_string(&frame).expect("an answer serializes");
    let back: ServerFrame = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("the answer {json} does not read back: {e}"));
    assert_eq!(back, frame, "the answer changes on the wire");
    if let ServerFrame::Error(e) = &frame {
        assert!(
            CODES.contains(&e.code.as_str()),
            "undocumented code in {json}"
        );
        assert!(
            !e.message.trim().is_empty(),
            "an error that says nothing: {json}"
        );
    }
}
