//! The daemon's per-user directory (`~/.webfold`, or `$WEBFOLD_HOME`) and the
//! files in it. Everything here is private to the user: the directory is 0700
//! and every file 0600, written atomically (a reader never sees half a file).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ClientError;

/// The per-user directory and the names of the files in it.
#[derive(Clone, Debug)]
pub struct Home {
    dir: PathBuf,
}

impl Home {
    /// `$WEBFOLD_HOME` when set (tests, several users of one account),
    /// otherwise `~/.webfold`.
    pub fn from_env() -> Result<Home, ClientError> {
        if let Some(dir) = std::env::var_os("WEBFOLD_HOME").filter(|d| !d.is_empty()) {
            return Ok(Home::at(PathBuf::from(dir)));
        }
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())
            .ok_or_else(|| {
                ClientError::Setup(
                    "cannot find your home directory: set HOME, or WEBFOLD_HOME to a directory for webfold's daemon".into(),
                )
            })?;
        Ok(Home::at(home.join(".webfold")))
    }

    pub fn at(dir: PathBuf) -> Home {
        Home { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the directory (0700) if needed.
    pub fn ensure(&self) -> Result<(), ClientError> {
        private_dir(&self.dir)
    }

    pub fn token(&self) -> PathBuf {
        self.dir.join("token")
    }
    pub fn registry(&self) -> PathBuf {
        self.dir.join("registry.json")
    }
    pub fn pid(&self) -> PathBuf {
        self.dir.join("server.pid")
    }
    /// Where the running daemon says how to reach it (port, socket, pid).
    pub fn endpoint(&self) -> PathBuf {
        self.dir.join("daemon.json")
    }
    pub fn socket(&self) -> PathBuf {
        self.dir.join("daemon.sock")
    }
    pub fn lock(&self) -> PathBuf {
        self.dir.join("daemon.lock")
    }
    pub fn log(&self) -> PathBuf {
        self.dir.join("daemon.log")
    }
    /// The tabs `webfold ui list` numbered last, so that `ui N` means the
    /// tab that list showed as N whatever became active since.
    pub fn ui_list(&self) -> PathBuf {
        self.dir.join("ui-list.json")
    }
    /// Extension ids allowed besides webfold's own (one per line).
    pub fn extensions(&self) -> PathBuf {
        self.dir.join("extensions")
    }
}

/// Creates `dir` and its parents; `dir` itself ends 0700.
pub fn private_dir(dir: &Path) -> Result<(), ClientError> {
    std::fs::create_dir_all(dir).map_err(|e| ClientError::io(dir, e))?;
    set_mode(dir, 0o700)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), ClientError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| ClientError::io(path, e))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<(), ClientError> {
    Ok(())
}

/// Writes `bytes` to `path` atomically with mode 0600: a temporary file in the
/// same directory, synced, then renamed over `path`.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), ClientError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let write = || -> std::io::Result<()> {
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        ClientError::io(path, e)
    })?;
    set_mode(path, 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn files_are_private_and_replaced_whole() {
        use std::os::unix::fs::PermissionsExt;
        let base = std::env::temp_dir().join(format!("webfold-home-{}", std::process::id()));
        let home = Home::at(base.join("h"));
        home.ensure().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(home.dir()), 0o700);
        write_private(&home.registry(), b"{}").unwrap();
        write_private(&home.registry(), b"{\"a\":1}").unwrap();
        assert_eq!(std::fs::read(home.registry()).unwrap(), b"{\"a\":1}");
        assert_eq!(mode(&home.registry()), 0o600);
        let leftovers = std::fs::read_dir(home.dir())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
        std::fs::remove_dir_all(base).unwrap();
    }
}
