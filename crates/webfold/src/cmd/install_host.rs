use std::path::{Path, PathBuf};

use clap::{Parser, ValueEnum};
use webfold_daemon::auth::allowed_extensions;
use webfold_daemon::home::{Home, write_private};
use webfold_protocol::native::HOST_NAME;

/// Let the browser extension start the daemon and pair by itself: writes
/// the browser's native messaging host manifest, which names this webfold
/// binary and admits only webfold's extension.
#[derive(Parser)]
pub struct Args {
    /// The browser to set up
    #[arg(long, value_enum, default_value_t = Browser::All)]
    browser: Browser,
    /// For a browser started with --user-data-dir=DIR: set up that profile
    /// folder instead of the user's own
    #[arg(long, value_name = "DIR")]
    profile: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum Browser {
    Chrome,
    Chromium,
    All,
}

impl Browser {
    fn each(self) -> &'static [Browser] {
        match self {
            Browser::Chrome => &[Browser::Chrome],
            Browser::Chromium => &[Browser::Chromium],
            Browser::All => &[Browser::Chrome, Browser::Chromium],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Browser::Chrome => "Chrome",
            Browser::Chromium => "Chromium",
            Browser::All => "Chrome and Chromium",
        }
    }

    /// The browser's own folder of per-user host manifests.
    fn hosts_dir(self) -> anyhow::Result<PathBuf> {
        let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
            anyhow::anyhow!("HOME is not set: give the profile folder with --profile DIR")
        })?;
        let (chrome, chromium) = if cfg!(target_os = "macos") {
            let support = home.join("Library/Application Support");
            (support.join("Google/Chrome"), support.join("Chromium"))
        } else {
            let config = std::env::var_os("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(".config"));
            (config.join("google-chrome"), config.join("chromium"))
        };
        let dir = if self == Browser::Chrome {
            chrome
        } else {
            chromium
        };
        Ok(dir.join("NativeMessagingHosts"))
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        cfg!(unix),
        "install-host sets up Chrome and Chromium on Linux and macOS; elsewhere, pair with `webfold pair`"
    );
    let home = Home::from_env()?;
    let exe = crate::self_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| anyhow::anyhow!("cannot tell where this webfold binary is: {e}"))?;
    let manifest = manifest(&exe, &allowed_extensions(&home));
    let dirs: Vec<PathBuf> = match &args.profile {
        Some(p) => vec![p.join("NativeMessagingHosts")],
        None => args
            .browser
            .each()
            .iter()
            .map(|b| b.hosts_dir())
            .collect::<anyhow::Result<_>>()?,
    };
    let mut written = Vec::new();
    for dir in dirs {
        let path = write_manifest(&dir, &manifest)?;
        written.push(path.display().to_string());
    }
    if args.json {
        let out = serde_json::json!({ "manifests": written, "host": HOST_NAME, "path": exe });
        return crate::out::line(&serde_json::to_string_pretty(&out)?);
    }
    let mut text = format!(
        "Set up {} to start webfold for its extension:\n",
        args.profile
            .as_ref()
            .map_or(args.browser.name(), |_| "the profile")
    );
    for w in &written {
        text.push_str(&format!("  {w}\n"));
    }
    text.push_str(
        "Open webfold's side panel: it starts the daemon when it is down and pairs by itself \
         (reload the extension at chrome://extensions if it was already open).\n\
         If this binary moves, run `webfold install-host` again.\n",
    );
    crate::out::line(&text)
}

/// The browsers whose own folder holds webfold's host manifest (for
/// `webfold doctor`).
pub fn set_up_for() -> Vec<&'static str> {
    Browser::All
        .each()
        .iter()
        .filter(|b| {
            b.hosts_dir()
                .is_ok_and(|d| d.join(format!("{HOST_NAME}.json")).is_file())
        })
        .map(|b| b.name())
        .collect()
}

/// The host manifest: this binary, for the admitted extensions only.
fn manifest(exe: &Path, extensions: &[String]) -> serde_json::Value {
    let origins: Vec<String> = extensions
        .iter()
        .map(|id| format!("chrome-extension://{id}/"))
        .collect();
    serde_json::json!({
        "name": HOST_NAME,
        "description": "webfold: starts the daemon and pairs the browser extension",
        "path": exe,
        "type": "stdio",
        "allowed_origins": origins,
    })
}

fn write_manifest(dir: &Path, manifest: &serde_json::Value) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("{HOST_NAME}.json"));
    let mut bytes = serde_json::to_vec_pretty(manifest)?;
    bytes.push(b'\n');
    write_private(&path, &bytes)?;
    Ok(path)
}
