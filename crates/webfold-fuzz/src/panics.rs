//! Counts panics on the threads a check runs on, so a check can see one that
//! a runtime swallowed (tokio turns a task's panic into a `JoinError`, and a
//! server answers on regardless).

use std::cell::Cell;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Name prefix of the threads a check's runtime starts (its blocking pool):
/// their panics count wherever they happen.
pub const THREAD_PREFIX: &str = "webfold-fuzz-";

static PANICS: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

thread_local! {
    /// This thread is running a check (other tests' threads are not counted).
    static WATCHED: Cell<bool> = const { Cell::new(false) };
}

/// Panics counted so far. The first call installs the counting hook; it calls
/// the hook that was there before (libFuzzer's, which aborts).
pub fn count() -> usize {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = WATCHED.with(Cell::get)
                || std::thread::current()
                    .name()
                    .is_some_and(|n| n.starts_with(THREAD_PREFIX));
            if ours {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            previous(info);
        }));
    });
    PANICS.load(Ordering::SeqCst)
}

/// Runs `f` and asserts that no thread of the check panicked meanwhile.
pub fn assert_none<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let before = count();
    WATCHED.with(|w| w.set(true));
    let out = f();
    WATCHED.with(|w| w.set(false));
    let after = count();
    assert_eq!(
        after, before,
        "{what}: a task panicked (see the message above)"
    );
    out
}

/// A single-threaded runtime for a check, its blocking threads named so
/// their panics count.
pub fn runtime(name: &str) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name(format!("{THREAD_PREFIX}{name}"))
        .build()
        .expect("tokio runtime")
}
