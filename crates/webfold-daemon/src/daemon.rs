//! `webfold daemon`: one per user, in the foreground.
//!
//! One instance is enforced by an exclusive lock on `daemon.lock` (released
//! by the kernel when the process dies, however it dies), so a stale
//! `server.pid` or socket is simply replaced: no process is ever signalled.

use std::fs::File;
use std::future::Future;
use std::sync::Arc;

use tokio::net::{TcpListener, UnixListener};

use crate::DaemonError;
use crate::auth::{Token, allowed_extensions};
use crate::builtin::BuiltinAgent;
use crate::home::{Home, write_private};
use crate::hub::Hub;
use crate::ws::Gate;
use webfold_protocol::PROTOCOL_VERSION;
use webfold_store::ChatterStore;

pub use webfold_chatter_client::client::{DEFAULT_PORT, configured_port};

/// Where a running daemon listens, as `daemon.json` records it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub pid: u32,
    pub port: u16,
    pub socket: std::path::PathBuf,
    pub version: String,
    pub protocol_version: u32,
}

impl Endpoint {
    pub fn read(home: &Home) -> Option<Endpoint> {
        serde_json::from_slice(&std::fs::read(home.endpoint()).ok()?).ok()
    }
}

/// The lock that makes this process the user's daemon.
pub struct Instance {
    _lock: File,
    home: Home,
}

impl Instance {
    /// Takes the lock, or says which daemon holds it.
    pub fn acquire(home: &Home) -> Result<Instance, DaemonError> {
        home.ensure()?;
        let path = home.lock();
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(|e| DaemonError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(Instance {
                _lock: file,
                home: home.clone(),
            }),
            Err(std::fs::TryLockError::WouldBlock) => {
                let who = Endpoint::read(home)
                    .map(|e| format!(" (pid {}, port {})", e.pid, e.port))
                    .unwrap_or_default();
                Err(DaemonError::AlreadyRunning(who))
            }
            Err(std::fs::TryLockError::Error(e)) => Err(DaemonError::io(&path, e)),
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        for p in [self.home.socket(), self.home.pid(), self.home.endpoint()] {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Binds both listeners and serves until `stop` completes; `agent`, when
/// given, is offered to tabs beside the coding agents; `shared`, when
/// given, is the database this daemon shares with others.
pub async fn run(
    home: Home,
    port: u16,
    agent: Option<BuiltinAgent>,
    shared: Option<ChatterStore>,
    stop: impl Future<Output = ()>,
    ready: impl FnOnce(&Endpoint),
) -> Result<(), DaemonError> {
    let instance = Instance::acquire(&home)?;
    let token = Token::load_or_create(&home)?;
    let tcp = TcpListener::bind(("127.0.0.1", port)).await.map_err(|e| {
        DaemonError::Setup(format!(
            "cannot listen on 127.0.0.1:{port} ({e}); pass --port with a free port (0 picks one)"
        ))
    })?;
    let port = tcp.local_addr().map(|a| a.port()).unwrap_or(port);
    let socket = home.socket();
    // The lock is ours, so a socket file left here is a dead daemon's.
    let _ = std::fs::remove_file(&socket);
    let unix = UnixListener::bind(&socket).map_err(|e| DaemonError::io(&socket, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| DaemonError::io(&socket, e))?;
    }
    let endpoint = Endpoint {
        pid: std::process::id(),
        port,
        socket: socket.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        protocol_version: PROTOCOL_VERSION,
    };
    write_private(&home.pid(), endpoint.pid.to_string().as_bytes())?;
    write_private(
        &home.endpoint(),
        &serde_json::to_vec_pretty(&endpoint).unwrap_or_default(),
    )?;
    let hub = Hub::start(home.clone(), agent, shared).await?;
    let gate = Arc::new(Gate {
        port,
        token,
        extensions: allowed_extensions(&home),
    });
    ready(&endpoint);
    tokio::select! {
        _ = crate::ws::serve(tcp, hub.clone(), gate) => {},
        _ = crate::ipc::serve(unix, hub.clone(), port) => {},
        _ = stop => {},
    }
    hub.leave().await;
    drop(instance);
    Ok(())
}
