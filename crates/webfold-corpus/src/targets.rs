//! The labelled tasks of `corpus/targets`: a real page, an instruction an
//! agent is given on it, and the one element the instruction needs. A view
//! *recalls* a task when it holds a handle that resolves, on that page, to
//! the target element itself: a snapshot ref, or a CNT node id whose node
//! stands for it. Text alone, or a matching role and name, is not recall
//! (many targets share both with a twin elsewhere on the page).
//!
//! The same scoring serves the test that keeps floors
//! (`webfold-core/tests/target_recall.rs`) and the benchmark that prints the
//! table (`webfold-bench targets`).

use std::collections::BTreeMap;

use serde::Deserialize;
use webfold_core::aria::Mode;
use webfold_core::cnt::{Cnt, ViewOptions};
use webfold_core::contract::Ctx;
use webfold_core::snapshot::{self, Scope, SnapshotOptions};
use webfold_core::{NodeId, Page};

use crate::{corpus_dir, jsonl};

/// One task of `targets/tasks.jsonl`, with its kind from the baseline file.
#[derive(Clone, Debug, Deserialize)]
pub struct TargetTask {
    pub id: String,
    /// Relative to the corpus folder.
    pub page: String,
    pub gzip: bool,
    pub url: Option<String>,
    /// The instruction, in English.
    pub task: String,
    pub css_selector: String,
    pub role: String,
    pub name: String,
    /// search, comment, newsletter, nav-link, account, … (set from the baseline).
    #[serde(default)]
    pub kind: String,
}

#[derive(Deserialize)]
struct Baseline {
    id: String,
    kind: String,
}

/// Every task, in file order.
pub fn tasks() -> Vec<TargetTask> {
    let dir = corpus_dir().join("targets");
    let kinds: BTreeMap<String, String> = jsonl::<Baseline>(&dir.join("snapshot_baseline.jsonl"))
        .into_iter()
        .map(|b| (b.id, b.kind))
        .collect();
    let mut tasks: Vec<TargetTask> = jsonl(&dir.join("tasks.jsonl"));
    for t in &mut tasks {
        t.kind = kinds.get(&t.id).cloned().unwrap_or_default();
    }
    tasks
}

/// The tasks grouped by page, pages in first-task order.
pub fn by_page() -> Vec<(String, Vec<TargetTask>)> {
    let mut out: Vec<(String, Vec<TargetTask>)> = Vec::new();
    for t in tasks() {
        match out.iter_mut().find(|(p, _)| *p == t.page) {
            Some((_, v)) => v.push(t),
            None => out.push((t.page.clone(), vec![t])),
        }
    }
    out
}

/// The page's HTML, decoded as a browser would.
pub fn page_html(task: &TargetTask) -> String {
    let path = corpus_dir().join(&task.page);
    let bytes = crate::read_required(&path);
    let raw = if task.gzip {
        crate::gunzip(&bytes, &task.page)
    } else {
        bytes
    };
    webfold_core::decode::decode_html(&raw, None).text
}

/// A view under test, as the task's page sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TargetView {
    /// The default snapshot (interactive elements, refs).
    Snapshot,
    /// The default CNT view.
    Cnt,
    /// The snapshot focused on the task's own words.
    FocusedSnapshot,
    /// The CNT focused on the task's own words.
    FocusedCnt,
}

impl TargetView {
    pub const ALL: [TargetView; 4] = [
        TargetView::Snapshot,
        TargetView::Cnt,
        TargetView::FocusedSnapshot,
        TargetView::FocusedCnt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TargetView::Snapshot => "snapshot",
            TargetView::Cnt => "cnt",
            TargetView::FocusedSnapshot => "snapshot+focus",
            TargetView::FocusedCnt => "cnt+focus",
        }
    }

    fn focused(self) -> bool {
        matches!(self, TargetView::FocusedSnapshot | TargetView::FocusedCnt)
    }
}

/// One page, parsed once, ready to score its tasks in any view and budget.
pub struct ScoredPage {
    page: Page,
    url: String,
    cnt: Cnt,
    /// Snapshot ref → the DOM element behind it.
    refs: BTreeMap<String, NodeId>,
}

impl ScoredPage {
    pub fn new(html: &str, url: Option<&str>) -> ScoredPage {
        let page = Page::parse(html);
        let url = url.unwrap_or_default().to_string();
        let cnt = Cnt::build(&page);
        let refs = match snapshot::prepare(&page, Mode::Ai, &url, None) {
            Ok((p, _)) => (0..p.tree.len())
                .filter_map(|i| {
                    Some((
                        p.tree.lines[i].aria_ref.as_deref()?.to_string(),
                        p.nodes[i]?,
                    ))
                })
                .collect(),
            Err(_) => BTreeMap::new(),
        };
        ScoredPage {
            page,
            url,
            cnt,
            refs,
        }
    }

    /// The element `selector` names (the task's target), if exactly one.
    pub fn target(&self, selector: &str) -> Option<NodeId> {
        match self.page.query_all(selector).ok()?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The view's text at `max_tokens` (focused on `task` for the focused
    /// views) and its exact token count.
    pub fn view(&self, view: TargetView, max_tokens: usize, task: &str) -> (String, usize) {
        let ctx = Ctx::default();
        let focus = view.focused().then(|| task.to_string());
        match view {
            TargetView::Snapshot | TargetView::FocusedSnapshot => {
                let opts = SnapshotOptions {
                    max_tokens,
                    focus,
                    ..SnapshotOptions::default()
                };
                snapshot::snapshot(&self.page, &self.url, &Scope::Page, &opts, None, ctx)
                    .map(|s| (s.text, s.tokens))
                    .unwrap_or_default()
            }
            TargetView::Cnt | TargetView::FocusedCnt => {
                let opts = ViewOptions {
                    max_tokens,
                    focus,
                    ..ViewOptions::default()
                };
                self.cnt
                    .view(&opts, ctx)
                    .map(|v| (v.text.clone(), v.tokens))
                    .unwrap_or_default()
            }
        }
    }

    /// Whether `text` (a view of `view`) holds a handle resolving to `target`.
    pub fn recalls(&self, view: TargetView, text: &str, target: NodeId) -> bool {
        match view {
            TargetView::Snapshot | TargetView::FocusedSnapshot => {
                snapshot_refs(text).any(|r| self.refs.get(r) == Some(&target))
            }
            TargetView::Cnt | TargetView::FocusedCnt => cnt_ids(text).any(|id| {
                self.cnt
                    .node_of(NodeId::new(id))
                    .is_some_and(|n| n.members().any(|m| m == target))
            }),
        }
    }
}

/// The refs a snapshot text prints (`[ref=e12]`).
fn snapshot_refs(text: &str) -> impl Iterator<Item = &str> {
    text.split("[ref=")
        .skip(1)
        .filter_map(|rest| rest.split(']').next())
}

/// The node ids a CNT text prints: the number that opens a node's line.
fn cnt_ids(text: &str) -> impl Iterator<Item = u32> + '_ {
    text.lines().filter_map(|line| {
        let word = line.trim_start().split(' ').next()?;
        word.parse().ok()
    })
}

/// Recall of each view at each budget over every task.
#[derive(Debug, Default)]
pub struct Recall {
    /// (view, budget, kind) → (recalled, tasks).
    pub cells: BTreeMap<(TargetView, usize, String), (usize, usize)>,
    /// Views over their budget (each scores 0 for its page).
    pub over_budget: usize,
    /// Tasks recalled by no view at no budget: "view budget id selector".
    pub missed: Vec<String>,
}

impl Recall {
    /// Recalled share over all kinds.
    pub fn rate(&self, view: TargetView, budget: usize) -> f64 {
        let (hit, n) = self
            .cells
            .iter()
            .filter(|((v, b, _), _)| *v == view && *b == budget)
            .fold((0, 0), |(h, n), (_, &(hh, nn))| (h + hh, n + nn));
        if n == 0 { 0.0 } else { hit as f64 / n as f64 }
    }

    /// The table: one row per kind, one column per view and budget.
    pub fn table(&self) -> String {
        let mut kinds: Vec<&str> = self.cells.keys().map(|(_, _, k)| k.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        let mut columns: Vec<(TargetView, usize)> =
            self.cells.keys().map(|&(v, b, _)| (v, b)).collect();
        columns.dedup();
        let mut out = format!("{:<14}", "kind");
        for (v, b) in &columns {
            out.push_str(&format!(" {:>17}", format!("{} {}K", v.name(), b / 1000)));
        }
        out.push('\n');
        for kind in kinds.iter().copied().chain(["all"]) {
            out.push_str(&format!("{kind:<14}"));
            for &(v, b) in &columns {
                {
                    let (h, n) = self
                        .cells
                        .iter()
                        .filter(|((cv, cb, ck), _)| {
                            *cv == v && *cb == b && (kind == "all" || ck == kind)
                        })
                        .fold((0, 0), |(h, n), (_, &(hh, nn))| (h + hh, n + nn));
                    out.push_str(&format!(" {:>17}", format!("{h}/{n}")));
                }
            }
            out.push('\n');
        }
        out
    }
}

/// Scores every task in each view at each of its budgets; `progress` is
/// called per page. An unfocused view is one text per page; a focused one,
/// one per task.
pub fn recall(runs: &[(TargetView, &[usize])], mut progress: impl FnMut(&str)) -> Recall {
    let mut out = Recall::default();
    for (page_path, tasks) in by_page() {
        progress(&page_path);
        let html = page_html(&tasks[0]);
        let scored = ScoredPage::new(&html, tasks[0].url.as_deref());
        for &(view, budgets) in runs {
            for &budget in budgets {
                let shared = (!view.focused()).then(|| scored.view(view, budget, ""));
                for t in &tasks {
                    let (text, tokens) = match &shared {
                        Some(v) => v.clone(),
                        None => scored.view(view, budget, &t.task),
                    };
                    let within = tokens <= budget;
                    out.over_budget += usize::from(!within);
                    let hit = within
                        && scored
                            .target(&t.css_selector)
                            .is_some_and(|target| scored.recalls(view, &text, target));
                    let cell = out.cells.entry((view, budget, t.kind.clone())).or_default();
                    cell.0 += usize::from(hit);
                    cell.1 += 1;
                    if !hit {
                        let rank = scored
                            .target(&t.css_selector)
                            .and_then(|n| scored.cnt.action_rank(n))
                            .map_or("-".to_string(), |r| r.to_string());
                        out.missed.push(format!(
                            "{} {}K {} {} {} (control rank {rank}) {}",
                            view.name(),
                            budget / 1000,
                            t.id,
                            t.kind,
                            t.css_selector,
                            t.task,
                        ));
                    }
                }
            }
        }
    }
    out
}
