//! What the process around the library is: a command that ends once its work is done
//! (`meshc`), or a server that lives on (`meshc-lsp`, the tests). Set once by the binary;
//! the library asks it in two places only: to leave its large structures to the
//! operating system instead of freeing them one by one, and to mark its steps for
//! `MESHC_STATS`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Whether the process ends with its command ([`ends_with_command`]).
static ONE_COMMAND: AtomicBool = AtomicBool::new(false);

/// Says that the process ends once its one command is done: what [`release`] is given is
/// then left for the operating system to reclaim at exit. `meshc` calls it first thing;
/// a process that lives on must not.
pub fn ends_with_command() {
    ONE_COMMAND.store(true, Ordering::Relaxed);
}

/// Drops `value`, or, in a process that ends with its command, leaves it to the
/// operating system: freeing a large mesh's resolution (a million small allocations)
/// one by one costs tens of milliseconds that nothing needs.
pub fn release<T>(value: T) {
    if ONE_COMMAND.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// The steps marked so far, when marking is on: when each ended, and the resident memory
/// then and the peak so far (KiB; zero where `/proc` does not say).
static MARKS: Mutex<Vec<Mark>> = Mutex::new(Vec::new());

/// A step marked: its name, when it ended, the resident memory then and the peak so far
/// (KiB, from `/proc/self/status`; zero where it does not say).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    pub what: &'static str,
    pub at: Instant,
    pub rss_kib: u64,
    pub peak_kib: u64,
}

/// Whether steps are marked ([`mark_steps`]).
static MARKING: AtomicBool = AtomicBool::new(false);

/// Turns marking on: every [`mark`] from now on notes when its step ended.
pub fn mark_steps() {
    MARKING.store(true, Ordering::Relaxed);
}

/// Notes that step `what` has ended, when marking is on (else does nothing). Steps are
/// coarse (a phase of a resolution, a command's read): a handful per command.
pub fn mark(what: &'static str) {
    if MARKING.load(Ordering::Relaxed) {
        let at = Instant::now();
        // Read after the time is taken, so the step's time does not count the read (tens
        // of microseconds, a handful of times per command).
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kib = |field: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        let mark = Mark {
            what,
            at,
            rss_kib: kib("VmRSS:"),
            peak_kib: kib("VmHWM:"),
        };
        MARKS.lock().unwrap_or_else(|e| e.into_inner()).push(mark);
    }
}

/// Every step marked, in the order they ended.
pub fn marks() -> Vec<Mark> {
    let mut marks = MARKS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    marks.sort_by_key(|m| m.at);
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_that_lives_on_frees_what_it_releases() {
        // The test process lives on: what it releases is dropped.
        struct Counted<'a>(&'a std::sync::atomic::AtomicUsize);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let dropped = std::sync::atomic::AtomicUsize::new(0);
        release(Counted(&dropped));
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    }
}
