//! The language server's one setting of its allocator: freed memory is kept for reuse
//! instead of being handed back to the system between edits.
//!
//! An edit that the check of a mesh reads (a given field an operator default reads, a
//! renamed requirement) resolves the whole mesh again: at 100,000 modules a resolution
//! writes several hundred megabytes of tables and frees them at its end. mimalloc hands
//! freed memory back to the system 10 ms after it is freed (its `purge_delay`), so every
//! such edit found its memory gone and faulted it in afresh, page by page, zeroed by the
//! kernel: a third of its CPU at 100,000 modules (docs/benchmarks.md, "The language
//! server keeps the memory it frees"). Kept, the next resolution reuses the same pages.
//! The cost is that the server's resident memory stays at its peak once reached; the
//! peak itself does not grow, since the memory kept is the memory the next resolution
//! takes again.
//!
//! The command line does not call this: a command resolves once and ends.
//!
//! Whoever sets `MIMALLOC_PURGE_DELAY` in the server's environment keeps their choice:
//! the setting here is mimalloc's default only, which the environment overrides.

/// mimalloc 2's `mi_option_purge_delay` (`mi_option_e` in `mimalloc.h`, the sixteenth
/// option: after `mi_option_eager_commit_delay`, 14, which the sys crate names). The sys
/// crate has no constant of its own for it; [`tests`] hold the number to the option by
/// its documented default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Makes the allocator keep what is freed for reuse (`purge_delay = -1`), unless the
/// environment set the delay. Call it first thing in `main`, before any other thread
/// starts: mimalloc's options are plain memory that every thread reads without a lock.
pub fn keep_freed_memory() {
    // SAFETY: `mi_option_set_default` writes one entry of mimalloc's option table with a
    // value (-1) the option documents ("use -1 for no purging at all") and an index the
    // tests check. The table is read without synchronisation, so the call must come
    // before any other thread allocates: the function's contract, kept by its two
    // callers, each at the start of `main` before a thread is spawned.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_option_set_default(PURGE_DELAY, -1);
    }
}

/// The allocator's purge delay in milliseconds (-1: never), as it stands.
pub fn purge_delay() -> i64 {
    // SAFETY: `mi_option_get` reads one entry of the option table (initialising it from
    // the environment the first time) and has no other effect.
    #[allow(unsafe_code)]
    let delay = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
    // A C `long`: 64 bits here, 32 on Windows.
    #[allow(clippy::useless_conversion)]
    i64::from(delay)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option at index 15 is the purge delay: its documented default (10 ms) is what
    /// it holds before the call, unless the environment set it, and -1 after the call.
    /// (One test: the option table is one per process, and tests run on threads.)
    #[test]
    fn the_purge_delay_is_kept_at_never_unless_the_environment_set_it() {
        let set = std::env::var("MIMALLOC_PURGE_DELAY").ok();
        let before = purge_delay();
        keep_freed_memory();
        let after = purge_delay();
        match set.as_deref().map(str::parse::<i64>) {
            Some(Ok(value)) => {
                assert_eq!(before, value, "the environment's delay is read");
                assert_eq!(after, value, "the environment's delay is kept");
            }
            _ => {
                assert_eq!(before, 10, "index 15 is not mimalloc 2's purge delay");
                assert_eq!(after, -1, "freed memory is not kept");
            }
        }
    }
}
