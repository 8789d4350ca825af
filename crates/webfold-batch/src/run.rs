//! The parallel runner: pages fold on `jobs` threads while one thread reads
//! the inputs; results come out in input order, whatever finishes first.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, channel, sync_channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

use crate::fold::{Folded, fold};
use crate::source::{Item, Note};

/// One result, in input order.
#[derive(Debug)]
pub enum Done {
    Page(Box<Folded>),
    Note(Note),
}

/// Folds every page of `items` on `jobs` threads and hands each result, in
/// input order, to `emit`; `emit` returning false stops the run (a closed
/// pipe), leaving the rest unread.
pub fn run<I>(items: I, jobs: usize, emit: impl FnMut(Done) -> bool)
where
    I: Iterator<Item = Item> + Send,
{
    let jobs = jobs.max(1);
    // Results held for order, at most: one slow page cannot make the
    // others pile up in memory.
    let window = Window::new(jobs * 16);
    let (job_tx, job_rx) = sync_channel::<(u64, Item)>(jobs * 2);
    // Held by the workers alone: when the last one ends, the jobs' receiver
    // goes with it, and a reader waiting to send into a full channel is let go.
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = channel::<(u64, Done)>();
    thread::scope(|s| {
        let window = &window;
        s.spawn(move || {
            for (seq, item) in (0u64..).zip(items) {
                if !window.acquire() || job_tx.send((seq, item)).is_err() {
                    break;
                }
            }
        });
        for _ in 0..jobs {
            let done_tx = done_tx.clone();
            let job_rx = Arc::clone(&job_rx);
            s.spawn(move || {
                loop {
                    // The lock is held only to take the next job.
                    let next = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((seq, item))) = next else { break };
                    if done_tx.send((seq, process(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop((done_tx, job_rx));
        in_order(done_rx, window, emit);
    });
}

/// Hands results to `emit` by sequence number; on a stop, closes the window
/// and drops the receiver so every thread ends.
fn in_order(done_rx: Receiver<(u64, Done)>, window: &Window, mut emit: impl FnMut(Done) -> bool) {
    let mut held = BTreeMap::new();
    let mut next = 0u64;
    for (seq, done) in done_rx.iter() {
        held.insert(seq, done);
        while let Some(done) = held.remove(&next) {
            next += 1;
            window.release();
            if !emit(done) {
                window.close();
                return;
            }
        }
    }
}

fn process(item: Item) -> Done {
    match item {
        Item::Note(note) => Done::Note(note),
        Item::Page(page) => {
            // The core does not panic on input; should it, one page is lost,
            // not the run.
            match catch_unwind(AssertUnwindSafe(|| fold(page.page_in()))) {
                Ok(Ok(folded)) => Done::Page(Box::new(folded)),
                Ok(Err(e)) => Done::Note(Note::Skipped {
                    what: page.at.clone(),
                    why: e.to_string(),
                }),
                Err(_) => Done::Note(Note::Skipped {
                    what: page.at.clone(),
                    why: "webfold failed on this page (a bug; please report it with the page)"
                        .into(),
                }),
            }
        }
    }
}

/// A counting gate: how many items are between the reader and the writer.
struct Window {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
    size: usize,
}

impl Window {
    fn new(size: usize) -> Self {
        Window {
            state: Mutex::new((0, false)),
            changed: Condvar::new(),
            size,
        }
    }

    /// Waits for room; false once closed.
    fn acquire(&self) -> bool {
        let Ok(mut st) = self.state.lock() else {
            return false;
        };
        while st.0 >= self.size && !st.1 {
            st = match self.changed.wait(st) {
                Ok(st) => st,
                Err(_) => return false,
            };
        }
        st.0 += 1;
        !st.1
    }

    fn release(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.0 = st.0.saturating_sub(1);
            self.changed.notify_one();
        }
    }

    fn close(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.1 = true;
            self.changed.notify_all();
        }
    }
}
