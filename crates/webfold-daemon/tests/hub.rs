//! The hub's routing, driven through its own API (no sockets): tabs are
//! channels, agents are ids with a project.

mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use support::Scratch;
use tokio::sync::mpsc;
use webfold_daemon::home::Home;
use webfold_daemon::hub::{Hub, Outbound};
use webfold_protocol::{BoundingBox, Element, PageInfo, ServerFrame, SetContext, UserMessage};

const LONG: Duration = Duration::from_secs(30);

fn session(n: u8) -> String {
    format!("{n:02x}").repeat(32)
}

fn pick(title: &str) -> SetContext {
    SetContext {
        element: Element {
            tag_name: "BUTTON".into(),
            id: None,
            class_list: Vec::new(),
            text_content: "Buy".into(),
            attributes: Default::default(),
            bounding_box: BoundingBox {
                x: 0.0,
                y: 0.0,
                width: 10.0,
                height: 10.0,
            },
        },
        ancestors: Vec::new(),
        children: None,
        page: PageInfo {
            url: format!("http://shop.test/{title}"),
            title: title.into(),
        },
        screenshot: None,
        selector: Some("button".into()),
        html: None,
        dom: None,
        source: None,
    }
}

struct World {
    hub: Arc<Hub>,
    dir: Scratch,
}

impl World {
    fn new(name: &str) -> World {
        let dir = Scratch::new(&format!("hub-{name}"));
        let home = Home::at(dir.0.join("home"));
        home.ensure().unwrap();
        let hub = Hub::new(home).unwrap();
        World { hub, dir }
    }

    fn project(&self, name: &str) -> PathBuf {
        let p = self.dir.0.join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// A tab's socket: its connection id and what the hub sends it.
    fn tab(&self, session: &str) -> (u64, mpsc::Receiver<ServerFrame>) {
        let (tx, rx): (Outbound, _) = mpsc::channel(64);
        (self.hub.connect_tab(session, tx), rx)
    }

    async fn picked(&self, session: &str, title: &str) -> String {
        match self.hub.set_context(session, pick(title)).await {
            ServerFrame::ContextStored(c) => c.context_id,
            other => panic!("{other:?}"),
        }
    }

    /// The user writes about a pick; `agent` reads it: the message's id.
    async fn asked(&self, agent: &str, session: &str, context_id: &str, text: &str) -> String {
        let m = UserMessage {
            context_id: context_id.into(),
            message: text.into(),
            agent_id: Some(agent.into()),
        };
        let stored = match self.hub.user_message(session, m).await {
            ServerFrame::MessageStored(s) => s.message_id,
            other => panic!("{other:?}"),
        };
        let got = self
            .hub
            .get_ui_context(agent, Some(session), Duration::ZERO)
            .await
            .unwrap()
            .expect("the agent reads the message");
        assert_eq!(got.message_id.as_deref(), Some(stored.as_str()));
        stored
    }
}

/// Everything the hub has sent a tab so far.
fn drain(rx: &mut mpsc::Receiver<ServerFrame>) -> Vec<ServerFrame> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

fn answers(frames: &[ServerFrame]) -> Vec<&str> {
    frames
        .iter()
        .filter_map(|f| match f {
            ServerFrame::AgentResponse(r) => Some(r.message.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_message_goes_to_exactly_the_agent_it_names() {
    let w = World::new("one-agent");
    let (shop, docs) = (w.project("shop"), w.project("docs"));
    w.hub
        .connect_agent("a", shop.clone(), "x".into())
        .await
        .unwrap();
    w.hub.connect_agent("b", docs, "y".into()).await.unwrap();
    let tab = session(1);
    let _socket = w.tab(&tab);
    let ctx = w.picked(&tab, "cart").await;
    let m = UserMessage {
        context_id: ctx.clone(),
        message: "make it blue".into(),
        agent_id: Some("a".into()),
    };
    match w.hub.user_message(&tab, m).await {
        ServerFrame::MessageStored(s) => assert_eq!(s.agent_id, "a"),
        other => panic!("{other:?}"),
    }
    let got = w
        .hub
        .get_ui_context("a", None, Duration::ZERO)
        .await
        .unwrap();
    let got = got.expect("agent a reads the message");
    assert_eq!(got.user_message.as_deref(), Some("make it blue"));
    assert_eq!(
        (got.session_id.as_str(), got.context.context_id.as_str()),
        (tab.as_str(), ctx.as_str())
    );
    // b (another project) reads no message, and a reads it once.
    let b = w
        .hub
        .get_ui_context("b", None, Duration::ZERO)
        .await
        .unwrap();
    assert!(b.as_ref().is_none_or(|c| c.user_message.is_none()), "{b:?}");
    let again = w
        .hub
        .get_ui_context("a", None, Duration::ZERO)
        .await
        .unwrap();
    assert!(again.is_some_and(|c| c.user_message.is_none()));
}

#[tokio::test]
async fn two_agents_and_no_choice_is_refused_not_guessed() {
    let w = World::new("choose");
    let shop = w.project("shop");
    w.hub
        .connect_agent("a", shop.clone(), "x".into())
        .await
        .unwrap();
    w.hub.connect_agent("b", shop, "y".into()).await.unwrap();
    let tab = session(2);
    let _socket = w.tab(&tab);
    let ctx = w.picked(&tab, "cart").await;
    let m = UserMessage {
        context_id: ctx,
        message: "hello".into(),
        agent_id: None,
    };
    match w.hub.user_message(&tab, m).await {
        ServerFrame::Error(e) => assert_eq!(e.code, "choose_agent"),
        other => panic!("{other:?}"),
    }
    for agent in ["a", "b"] {
        let got = w
            .hub
            .get_ui_context(agent, None, Duration::ZERO)
            .await
            .unwrap();
        assert!(got.is_none_or(|c| c.user_message.is_none()), "{agent}");
    }
}

#[tokio::test]
async fn a_reply_reaches_the_tab_it_names_and_no_other() {
    let w = World::new("reply");
    let shop = w.project("shop");
    w.hub.connect_agent("a", shop, "x".into()).await.unwrap();
    let (one, two) = (session(3), session(4));
    let (_, mut rx_one) = w.tab(&one);
    let (_, mut rx_two) = w.tab(&two);
    let ctx = w.picked(&one, "cart").await;
    w.picked(&two, "home").await;
    let asked = w.asked("a", &one, &ctx, "is it done?").await;
    drain(&mut rx_one);
    drain(&mut rx_two);
    let delivered = w
        .hub
        .respond("a", &one, &asked, "done", true)
        .await
        .unwrap();
    assert!(delivered);
    assert_eq!(answers(&drain(&mut rx_one)), ["done"]);
    assert!(answers(&drain(&mut rx_two)).is_empty());
}

#[tokio::test]
async fn frames_for_an_offline_tab_wait_for_its_next_socket() {
    let w = World::new("offline");
    let shop = w.project("shop");
    w.hub.connect_agent("a", shop, "x".into()).await.unwrap();
    let tab = session(5);
    let (conn, rx) = w.tab(&tab);
    let ctx = w.picked(&tab, "cart").await;
    let asked = w.asked("a", &tab, &ctx, "what now?").await;
    drop(rx);
    w.hub.disconnect_tab(&tab, conn);
    w.hub
        .respond("a", &tab, &asked, "part one, ", false)
        .await
        .unwrap();
    let delivered = w
        .hub
        .respond("a", &tab, &asked, "then the rest", true)
        .await
        .unwrap();
    assert!(!delivered, "no socket of the tab is open");
    let (_, mut back) = w.tab(&tab);
    let frames = drain(&mut back);
    assert!(
        matches!(frames.first(), Some(ServerFrame::Agents(_))),
        "{frames:?}"
    );
    let chunks: Vec<&str> = frames
        .iter()
        .filter_map(|f| match f {
            ServerFrame::AgentResponseChunk(c) => Some(c.chunk.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, ["part one, "]);
    assert_eq!(answers(&frames), ["part one, then the rest"]);
    // Delivered once: a second socket of the tab gets nothing old.
    let (_, mut other) = w.tab(&tab);
    assert!(answers(&drain(&mut other)).is_empty());
}

#[tokio::test]
async fn a_request_to_a_tab_fails_when_the_tab_disconnects() {
    let w = World::new("pending");
    let shop = w.project("shop");
    w.hub.connect_agent("a", shop, "x".into()).await.unwrap();
    let tab = session(6);
    let (conn, mut rx) = w.tab(&tab);
    let hub = w.hub.clone();
    let asking = tokio::spawn({
        let tab = tab.clone();
        async move { hub.live_html("a", &tab, "button", LONG).await }
    });
    // The request reaches the tab, which goes away instead of answering.
    loop {
        match rx.recv().await.expect("the tab is asked") {
            ServerFrame::GetHtml(g) => {
                assert_eq!(g.selector.as_deref(), Some("button"));
                break;
            }
            _ => continue,
        }
    }
    drop(rx);
    w.hub.disconnect_tab(&tab, conn);
    let got = tokio::time::timeout(LONG, asking).await.unwrap().unwrap();
    let e = got.unwrap_err();
    assert!(e.contains("disconnected before it answered"), "{e}");
    // And a tab that is not connected is not asked at all.
    let e = w
        .hub
        .live_html("a", &tab, "button", LONG)
        .await
        .unwrap_err();
    assert!(e.contains("is not connected"), "{e}");
}

#[tokio::test]
async fn a_pushed_message_is_taken_once_and_stays_answerable() {
    let w = World::new("push");
    let shop = w.project("shop");
    w.hub.connect_agent("a", shop, "x".into()).await.unwrap();
    let tab = session(5);
    let (_, mut rx) = w.tab(&tab);
    let ctx = w.picked(&tab, "cart").await;
    // The push waits for the message, and a new pick does not end its wait.
    let hub = w.hub.clone();
    let waiting = tokio::spawn(async move { hub.next_message("a", LONG).await });
    w.picked(&tab, "cart-again").await;
    let m = UserMessage {
        context_id: ctx.clone(),
        message: "why grey?".into(),
        agent_id: None,
    };
    let stored = match w.hub.user_message(&tab, m).await {
        ServerFrame::MessageStored(s) => s.message_id,
        other => panic!("{other:?}"),
    };
    let pushed = waiting.await.unwrap().unwrap().expect("the push gets it");
    assert_eq!(pushed.message_id.as_deref(), Some(stored.as_str()));
    assert_eq!(pushed.context.context_id, ctx);
    // Not the next message of get_ui_context, nor pushed again.
    let later = w
        .hub
        .get_ui_context("a", None, Duration::ZERO)
        .await
        .unwrap();
    assert!(later.is_some_and(|c| c.user_message.is_none()));
    let again = w.hub.next_message("a", Duration::ZERO).await.unwrap();
    assert!(again.is_none(), "{again:?}");
    // Still answerable.
    drain(&mut rx);
    assert!(
        w.hub
            .respond("a", &tab, &stored, "disabled", true)
            .await
            .unwrap()
    );
    assert_eq!(answers(&drain(&mut rx)), ["disabled"]);
    // A push waiting when its agent leaves ends at once.
    let hub = w.hub.clone();
    let waiting = tokio::spawn(async move { hub.next_message("a", LONG).await });
    tokio::task::yield_now().await;
    w.hub.disconnect_agent("a").await;
    let ended = tokio::time::timeout(Duration::from_secs(5), waiting).await;
    assert!(matches!(ended, Ok(Ok(Err(_) | Ok(None)))), "{ended:?}");
}
