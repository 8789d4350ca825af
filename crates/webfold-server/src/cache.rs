//! Parsed pages kept in memory, bounded in bytes, least recently used out.
//!
//! Parsing is the expensive step (≈ 10 ms per MB); every view after it is a
//! walk over the arena. Entries are `Arc`s of immutable pages, so a request
//! holds its version for as long as it needs it while a refresh swaps in the
//! next one: no reader ever sees half of a refresh.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use webfold_core::Page;
use webfold_store::ConversationId;

/// One parsed page version of a conversation.
#[derive(Debug)]
pub struct LoadedPage {
    pub id: ConversationId,
    pub version: u32,
    pub url: Option<String>,
    pub html_bytes: usize,
    pub page: Page,
    /// The page's compressed node tree, built on first use and shared by
    /// every CNT view and expansion of this version.
    pub cnt: std::sync::OnceLock<webfold_core::cnt::Cnt>,
}

impl LoadedPage {
    pub fn new(
        id: ConversationId,
        version: u32,
        url: Option<String>,
        html_bytes: usize,
        page: Page,
    ) -> Self {
        Self {
            id,
            version,
            url,
            html_bytes,
            page,
            cnt: std::sync::OnceLock::new(),
        }
    }

    pub fn cnt(&self) -> &webfold_core::cnt::Cnt {
        self.cnt
            .get_or_init(|| webfold_core::cnt::Cnt::build(&self.page))
    }

    /// What the entry costs in memory, roughly: the arena's nodes plus the
    /// strings they own (text and attributes, about the source size).
    pub fn cost(&self) -> usize {
        self.html_bytes + self.page.len() * std::mem::size_of::<webfold_core::page::Node>()
    }
}

type Key = (ConversationId, u32);

struct Entry {
    page: Arc<LoadedPage>,
    tick: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    /// Recency order: tick → key, oldest first.
    order: BTreeMap<u64, Key>,
    /// The newest version known per conversation.
    latest: HashMap<ConversationId, u32>,
    /// Deleted conversations. Ids are random and never reused, so a load that
    /// was in flight during the delete must not bring the page back.
    deleted: HashSet<ConversationId>,
    /// Per conversation, the version another process's refresh made the
    /// latest: older copies are not kept, even one whose load was still in
    /// flight when the refresh was heard.
    retired_below: HashMap<ConversationId, u32>,
    bytes: usize,
    tick: u64,
}

impl Inner {
    /// Drops the entries whose key matches.
    fn evict(&mut self, matches: impl Fn(&Key) -> bool) {
        let keys: Vec<Key> = self
            .entries
            .keys()
            .filter(|k| matches(k))
            .copied()
            .collect();
        for key in keys {
            if let Some(e) = self.entries.remove(&key) {
                self.order.remove(&e.tick);
                self.bytes -= e.page.cost();
            }
        }
    }
}

/// A byte-bounded LRU of parsed pages keyed by (conversation, version).
pub struct PageCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

/// Counters for `/health`-style reporting and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    pub entries: usize,
    pub bytes: usize,
    pub capacity: usize,
}

impl PageCache {
    pub fn new(capacity_bytes: usize) -> Self {
        Self {
            capacity: capacity_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps inconsistent in
        // a way that matters more than serving on, so poisoning is ignored.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The newest version this process knows for `id`.
    pub fn latest_version(&self, id: ConversationId) -> Option<u32> {
        self.lock().latest.get(&id).copied()
    }

    /// The cached page for (`id`, `version`), marking it recently used.
    pub fn get(&self, id: ConversationId, version: u32) -> Option<Arc<LoadedPage>> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner.entries.get_mut(&(id, version))?;
        let old = std::mem::replace(&mut entry.tick, tick);
        let page = entry.page.clone();
        inner.order.remove(&old);
        inner.order.insert(tick, (id, version));
        Some(page)
    }

    /// Records that `version` exists for `id` (it never moves backwards).
    pub fn note_version(&self, id: ConversationId, version: u32) {
        let mut inner = self.lock();
        if inner.deleted.contains(&id) {
            return;
        }
        let latest = inner.latest.entry(id).or_insert(version);
        *latest = (*latest).max(version);
    }

    /// Another process made `version` the latest: records it and drops the
    /// cached copies of older versions, and keeps none from now on (an older
    /// version asked for by number is loaded again from the store).
    pub fn retire(&self, id: ConversationId, version: u32) {
        let mut inner = self.lock();
        if inner.deleted.contains(&id) {
            return;
        }
        let latest = inner.latest.entry(id).or_insert(version);
        *latest = (*latest).max(version);
        let floor = inner.retired_below.entry(id).or_insert(version);
        *floor = (*floor).max(version);
        let floor = *floor;
        inner.evict(|k| k.0 == id && k.1 < floor);
    }

    /// The cached versions of `id`, oldest first.
    pub fn cached_versions(&self, id: ConversationId) -> Vec<u32> {
        let mut versions: Vec<u32> = self
            .lock()
            .entries
            .keys()
            .filter(|k| k.0 == id)
            .map(|k| k.1)
            .collect();
        versions.sort_unstable();
        versions
    }

    /// Inserts a page and evicts the least recently used until under capacity.
    /// A page larger than the whole cache is not kept (callers still use it).
    pub fn insert(&self, page: Arc<LoadedPage>) {
        let key = (page.id, page.version);
        let cost = page.cost();
        let mut inner = self.lock();
        if inner.deleted.contains(&page.id) {
            return;
        }
        let latest = inner.latest.entry(page.id).or_insert(page.version);
        *latest = (*latest).max(page.version);
        if inner
            .retired_below
            .get(&page.id)
            .is_some_and(|&floor| page.version < floor)
        {
            return;
        }
        if let Some(old) = inner.entries.remove(&key) {
            inner.order.remove(&old.tick);
            inner.bytes -= old.page.cost();
        }
        if cost > self.capacity {
            return;
        }
        inner.tick += 1;
        let tick = inner.tick;
        inner.entries.insert(key, Entry { page, tick });
        inner.order.insert(tick, key);
        inner.bytes += cost;
        while inner.bytes > self.capacity {
            let Some((_, victim)) = inner.order.pop_first() else {
                break;
            };
            if let Some(e) = inner.entries.remove(&victim) {
                inner.bytes -= e.page.cost();
            }
        }
    }

    /// Forgets every version of `id`, for good.
    pub fn remove(&self, id: ConversationId) {
        let mut inner = self.lock();
        inner.latest.remove(&id);
        inner.retired_below.remove(&id);
        inner.deleted.insert(id);
        inner.evict(|k| k.0 == id);
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.entries.len(),
            bytes: inner.bytes,
            capacity: self.capacity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(id: ConversationId, version: u32, html: &str) -> Arc<LoadedPage> {
        Arc::new(LoadedPage::new(
            id,
            version,
            None,
            html.len(),
            Page::parse(html),
        ))
    }

    #[test]
    fn evicts_least_recently_used_by_bytes() {
        let a = ConversationId::from_bytes([1; 16]);
        let b = ConversationId::from_bytes([2; 16]);
        let c = ConversationId::from_bytes([3; 16]);
        let html = format!("<p>{}</p>", "x".repeat(1000));
        let one = loaded(a, 1, &html).cost();
        let cache = PageCache::new(one * 2 + one / 2);
        cache.insert(loaded(a, 1, &html));
        cache.insert(loaded(b, 1, &html));
        assert!(cache.get(a, 1).is_some()); // a is now more recent than b
        cache.insert(loaded(c, 1, &html));
        assert!(cache.get(b, 1).is_none(), "b was least recently used");
        assert!(cache.get(a, 1).is_some());
        assert!(cache.get(c, 1).is_some());
        let stats = cache.stats();
        assert_eq!(stats.entries, 2);
        assert!(stats.bytes <= stats.capacity);
        assert_eq!(stats.bytes, 2 * one);
    }

    #[test]
    fn versions_and_removal() {
        let a = ConversationId::from_bytes([7; 16]);
        let cache = PageCache::new(1 << 20);
        cache.insert(loaded(a, 2, "<p>2</p>"));
        cache.insert(loaded(a, 1, "<p>1</p>"));
        assert_eq!(
            cache.latest_version(a),
            Some(2),
            "an older insert never lowers latest"
        );
        cache.note_version(a, 3);
        assert_eq!(cache.latest_version(a), Some(3));
        cache.remove(a);
        assert_eq!(cache.latest_version(a), None);
        assert!(cache.get(a, 2).is_none());
        assert_eq!(cache.stats().bytes, 0);
        // A load that finishes after the delete does not resurrect it.
        cache.insert(loaded(a, 3, "<p>3</p>"));
        cache.note_version(a, 4);
        assert!(cache.get(a, 3).is_none());
        assert_eq!(cache.latest_version(a), None);
    }

    #[test]
    fn a_load_finishing_after_a_newer_version_was_heard_is_not_kept() {
        let a = ConversationId::from_bytes([5; 16]);
        let cache = PageCache::new(1 << 20);
        cache.insert(loaded(a, 1, "<p>1</p>"));
        // Another process refreshed to 3 while this one was loading 2.
        cache.retire(a, 3);
        assert!(cache.get(a, 1).is_none());
        cache.insert(loaded(a, 2, "<p>2</p>"));
        cache.insert(loaded(a, 3, "<p>3</p>"));
        assert_eq!(cache.cached_versions(a), vec![3]);
        assert_eq!(cache.latest_version(a), Some(3));
        // An older notification heard late lowers nothing.
        cache.retire(a, 2);
        cache.insert(loaded(a, 2, "<p>2</p>"));
        assert_eq!(cache.cached_versions(a), vec![3]);
    }

    #[test]
    fn a_page_bigger_than_the_cache_is_not_kept() {
        let a = ConversationId::from_bytes([9; 16]);
        let cache = PageCache::new(10);
        cache.insert(loaded(a, 1, "<p>too big for ten bytes</p>"));
        assert!(cache.get(a, 1).is_none());
        assert_eq!(cache.latest_version(a), Some(1));
        assert_eq!(cache.stats().bytes, 0);
    }
}
