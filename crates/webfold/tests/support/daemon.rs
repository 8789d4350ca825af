//! The real `webfold daemon` for the chatter's tests: started on a port
//! (0: any), ready once it prints its address; killed when dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use webfold_daemon::home::Home;

const BIN: &str = env!("CARGO_BIN_EXE_webfold");

pub struct Daemon {
    child: Child,
    pub home: Home,
    pub port: u16,
    pub token: String,
}

impl Daemon {
    /// `kill -9` (no chance to flush anything), then a new daemon on the
    /// same home and port.
    pub fn kill_and_restart(mut self) -> Daemon {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let (home, port) = (self.home.dir().to_owned(), self.port);
        drop(self);
        daemon(&home, port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `webfold daemon` on `port` (0: any) and waits for its ready line.
pub fn daemon(home: &Path, port: u16) -> Daemon {
    let mut child = Command::new(BIN)
        .args(["daemon", "--port", &port.to_string()])
        .env("WEBFOLD_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.contains("ws://127.0.0.1:"),
        "daemon did not start: {line}"
    );
    let home = Home::at(home.to_owned());
    let endpoint = webfold_daemon::daemon::Endpoint::read(&home).expect("daemon.json");
    let token = std::fs::read_to_string(home.token()).unwrap();
    Daemon {
        child,
        port: endpoint.port,
        home,
        token,
    }
}
