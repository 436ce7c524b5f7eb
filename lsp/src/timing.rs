//! Where an edit's time goes, written to standard error when `MESHC_LSP_TIMING` is set:
//! one line per edit with the milliseconds of each step from `didChange` to
//! `publishDiagnostics` (waiting for the state's lock, for older snapshots to drop, the
//! write of the text, pinning the summaries, the edited file's check, publishing). For
//! finding what a slow edit waits for; off by default.

use std::sync::OnceLock;
use std::time::Instant;

/// Whether `MESHC_LSP_TIMING` is set.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MESHC_LSP_TIMING").is_some())
}

/// The steps of one edit, each with when it ended.
pub struct Steps {
    start: Instant,
    steps: Vec<(&'static str, Instant)>,
    notes: Vec<String>,
}

impl Steps {
    /// Starts timing an edit, or `None` when timing is off.
    pub fn start() -> Option<Steps> {
        enabled().then(|| Steps {
            start: Instant::now(),
            steps: Vec::new(),
            notes: Vec::new(),
        })
    }

    /// Records that step `name` ended now.
    pub fn mark(&mut self, name: &'static str) {
        self.steps.push((name, Instant::now()));
    }

    /// Records that step `name` ended at `at`.
    pub fn mark_at(&mut self, name: &'static str, at: Instant) {
        self.steps.push((name, at));
    }

    /// Adds `note` to the line, after the steps.
    pub fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    /// Writes the steps as one line.
    pub fn report(&self, what: &str) {
        let mut line = format!("meshc-lsp timing: {what}:");
        let mut last = self.start;
        for (name, at) in &self.steps {
            line.push_str(&format!(
                " {name} {:.2}",
                at.duration_since(last).as_secs_f64() * 1000.0
            ));
            last = *at;
        }
        line.push_str(&format!(
            " (total {:.2} ms)",
            last.duration_since(self.start).as_secs_f64() * 1000.0
        ));
        for note in &self.notes {
            line.push_str(&format!("; {note}"));
        }
        eprintln!("{line}");
    }
}

/// Records step `name` when timing is on.
pub fn mark(steps: &mut Option<Steps>, name: &'static str) {
    if let Some(s) = steps {
        s.mark(name);
    }
}

/// How long the calling thread has run on a core and waited in the run queue for one,
/// from the scheduler (`/proc/thread-self/schedstat`, in nanoseconds): a slow step that
/// mostly waited was starved by other processes. The waits are exact; the time run is a
/// lower bound (the kernel adds a running thread's time when it is switched out or at a
/// tick), so a step that neither ran nor waited may have run or slept.
#[derive(Debug, Clone, Copy)]
pub struct ThreadTimes {
    ran: u64,
    waited: u64,
}

impl ThreadTimes {
    /// The calling thread's times so far; `None` where the scheduler does not tell.
    pub fn now() -> Option<ThreadTimes> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        let mut fields = stat.split_whitespace().map(|f| f.parse::<u64>().ok());
        Some(ThreadTimes {
            ran: fields.next()??,
            waited: fields.next()??,
        })
    }

    /// What the thread ran and waited between `earlier` and these times.
    pub fn since(self, earlier: ThreadTimes) -> ThreadTimes {
        ThreadTimes {
            ran: self.ran.saturating_sub(earlier.ran),
            waited: self.waited.saturating_sub(earlier.waited),
        }
    }

    pub fn ran_ms(self) -> f64 {
        self.ran as f64 / 1e6
    }

    pub fn waited_ms(self) -> f64 {
        self.waited as f64 / 1e6
    }
}
