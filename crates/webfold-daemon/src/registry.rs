//! `registry.json`: which project each tab's session belongs to, so that a
//! restarted daemon (and an agent of that project) finds its tabs again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::DaemonError;
use crate::home::{Home, write_private};
use webfold_protocol::is_session_id;

pub struct Registry {
    path: PathBuf,
    map: Mutex<BTreeMap<String, PathBuf>>,
}

impl Registry {
    /// Reads the registry; a missing file is an empty one, and entries that
    /// are not valid session ids are dropped.
    pub fn load(home: &Home) -> Result<Registry, DaemonError> {
        let path = home.registry();
        let map = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<BTreeMap<String, PathBuf>>(&bytes)
                .map_err(|e| {
                    DaemonError::Setup(format!(
                        "{} is damaged ({e}); move it away and restart the daemon",
                        path.display()
                    ))
                })?
                .into_iter()
                .filter(|(id, p)| is_session_id(id) && p.is_absolute())
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(DaemonError::io(&path, e)),
        };
        Ok(Registry {
            path,
            map: Mutex::new(map),
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, PathBuf>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn project_of(&self, session_id: &str) -> Option<PathBuf> {
        self.map().get(session_id).cloned()
    }

    pub fn sessions_of(&self, project: &Path) -> Vec<String> {
        self.map()
            .iter()
            .filter(|(_, p)| p.as_path() == project)
            .map(|(s, _)| s.clone())
            .collect()
    }

    /// Takes in the bindings another daemon made (from a shared database),
    /// writing the file once.
    pub fn bind_all(
        &self,
        all: impl IntoIterator<Item = (String, PathBuf)>,
    ) -> Result<(), DaemonError> {
        let mut map = self.map();
        let mut changed = false;
        for (session, project) in all {
            if is_session_id(&session) && map.get(&session) != Some(&project) {
                map.insert(session, project);
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
        let json = serde_json::to_vec_pretty(&*map).unwrap_or_default();
        Ok(write_private(&self.path, &json)?)
    }

    /// Binds a tab to a project, writing the file when that changes it.
    pub fn bind(&self, session_id: &str, project: &Path) -> Result<(), DaemonError> {
        let mut map = self.map();
        if map.get(session_id).map(PathBuf::as_path) == Some(project) {
            return Ok(());
        }
        map.insert(session_id.to_string(), project.to_owned());
        let json = serde_json::to_vec_pretty(&*map).unwrap_or_default();
        Ok(write_private(&self.path, &json)?)
    }
}
