//! A throwaway PostgreSQL cluster for tests: `initdb` into a temp dir,
//! `pg_ctl start` on a free loopback port (its socket in the same dir),
//! stopped and removed on drop. As root, the server runs as the `postgres`
//! user (PostgreSQL refuses to run as root).
//!
//! This file stands alone (std only): `webfold-bench` includes it by path,
//! as a normal build cannot depend on this dev-only crate.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

fn find_bin() -> PathBuf {
    if let Some(dir) = std::env::var_os("WEBFOLD_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").exists() && b.join("pg_ctl").exists())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: the store tests run a real PostgreSQL. \
             Install them with `apt-get install postgresql` (scripts/test does this), or set WEBFOLD_PG_BIN to their directory"
        )
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A loopback port nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// 16 random hex digits, for names no other test run picks.
pub fn unique_tag() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .expect("read /dev/urandom");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl PgCluster {
    /// Creates and starts a cluster; panics with the server's log if it cannot.
    pub fn start() -> Self {
        let bin = find_bin();
        let as_postgres = is_root();
        let dir = std::env::temp_dir().join(format!("webfold-pg-{}", unique_tag()));
        std::fs::create_dir_all(&dir).unwrap();
        if as_postgres {
            let ok = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, "cannot hand {} to the postgres user", dir.display());
        }
        let cluster = Self {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "webfold",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
        );
        cluster.start_server();
        cluster
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, tool: &str) -> Command {
        let path = self.bin.join(tool);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let out = self
            .command(tool)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
        if !out.status.success() {
            let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
            panic!(
                "{tool} {args:?} failed: {}\n{}\nserver log:\n{log}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Starts the server and waits until it accepts connections (`pg_ctl -w`).
    pub fn start_server(&self) {
        let opts = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c max_connections=40",
            self.port,
            self.dir.display()
        );
        let data = self.data();
        let log = self.dir.join("server.log");
        self.run(
            "pg_ctl",
            &[
                "start",
                "-w",
                "-t",
                "60",
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-o",
                &opts,
            ],
        );
    }

    /// Stops the server the hard way, as a crash would (`-m immediate`).
    pub fn kill(&self) {
        let data = self.data();
        self.run(
            "pg_ctl",
            &[
                "stop",
                "-w",
                "-m",
                "immediate",
                "-D",
                data.to_str().unwrap(),
            ],
        );
    }

    /// A URL to a new, empty database in this cluster.
    pub fn new_database(&self) -> String {
        let name = format!("t{}", unique_tag());
        let out = self
            .command("psql")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args([
                "-U",
                "webfold",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
            ])
            .arg(format!("CREATE DATABASE {name}"))
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "CREATE DATABASE failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.url(&name)
    }

    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://webfold@127.0.0.1:{}/{database}?sslmode=disable",
            self.port
        )
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self
            .command("pg_ctl")
            .args(["stop", "-m", "immediate", "-D"])
            .arg(&data)
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
