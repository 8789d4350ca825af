//! A global allocator that keeps the high-water mark of live heap bytes, so
//! a test or benchmark can say how much memory a view took beside the page's
//! size. It allocates with mimalloc, as the shipped binary and packages do,
//! so a benchmark times what users run. Install it in the binary that
//! measures:
//! `#[global_allocator] static A: PeakAlloc = PeakAlloc;`

use std::alloc::{GlobalAlloc, Layout};

use mimalloc::MiMalloc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

pub struct PeakAlloc;

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is passed to mimalloc unchanged; the
// counters only watch.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { MiMalloc.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

/// Heap bytes `f` held at most beyond what was live when it started, and
/// what it returned. Other threads' allocations count too: measure alone.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (PEAK.load(Relaxed).saturating_sub(base), out)
}

/// Heap bytes live now (what a kept value holds: measure before and after).
pub fn live() -> usize {
    LIVE.load(Relaxed)
}
