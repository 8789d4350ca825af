#![allow(dead_code)] // each test file uses its own part of it

//! What the daemon's tests share: a daemon in this process in a scratch
//! home, and a WebSocket client playing the paired extension's tab.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use webfold_daemon::auth::EXTENSION_ID;
use webfold_daemon::builtin::BuiltinAgent;
use webfold_daemon::home::Home;
use webfold_store::ChatterStore;

pub const WAIT: Duration = Duration::from_secs(10);

pub use webfold_testkit::Scratch;

pub struct Daemon {
    pub port: u16,
    pub token: String,
    pub socket: PathBuf,
    _stop: tokio::sync::oneshot::Sender<()>,
    _home: Scratch,
}

impl Daemon {
    /// A daemon in a scratch home, with a built-in agent and a shared
    /// database when given.
    pub async fn start(
        name: &str,
        agent: Option<BuiltinAgent>,
        shared: Option<ChatterStore>,
    ) -> Daemon {
        let dir = Scratch::new(&format!("daemon-{name}"));
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let home = Home::at(dir.0.clone());
        tokio::spawn(webfold_daemon::daemon::run(
            home.clone(),
            0,
            agent,
            shared,
            async {
                let _ = stopped.await;
            },
            move |e| {
                let _ = ready_tx.send((e.port, e.socket.clone()));
            },
        ));
        let (port, socket) = ready_rx.await.expect("the daemon starts");
        Daemon {
            port,
            token: std::fs::read_to_string(home.token()).unwrap(),
            socket,
            _stop: stop,
            _home: dir,
        }
    }
}

pub struct Tab {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub session: String,
    /// Every frame read, in order.
    pub seen: Vec<Value>,
}

impl Tab {
    pub async fn open(d: &Daemon, n: u8) -> Tab {
        let session = format!("{n:02x}").repeat(32);
        let mut req = format!("ws://127.0.0.1:{}/ws?sessionId={session}", d.port)
            .into_client_request()
            .unwrap();
        let h = req.headers_mut();
        let origin = format!("chrome-extension://{EXTENSION_ID}");
        h.insert("origin", HeaderValue::from_str(&origin).unwrap());
        let proto = format!("webfold.token.{}", d.token);
        h.insert(
            "sec-websocket-protocol",
            HeaderValue::from_str(&proto).unwrap(),
        );
        let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
        Tab {
            ws,
            session,
            seen: Vec::new(),
        }
    }

    pub async fn send(&mut self, kind: &str, payload: Value) {
        let frame = json!({"type": kind, "payload": payload}).to_string();
        self.ws.send(Message::Text(frame.into())).await.unwrap();
    }

    /// The next frame of this type (others are kept in `seen`).
    pub async fn next(&mut self, kind: &str) -> Value {
        loop {
            let v = self.frame().await;
            if v["type"] == kind {
                return v["payload"].clone();
            }
        }
    }

    /// The next frame of any type.
    pub async fn frame(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("no frame within 10 s after {:?}", self.seen))
                .expect("socket open")
                .expect("readable frame");
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(&t).unwrap();
                self.seen.push(v.clone());
                return v;
            }
        }
    }
}
