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
}

impl Steps {
    /// Starts timing an edit, or `None` when timing is off.
    pub fn start() -> Option<Steps> {
        enabled().then(|| Steps {
            start: Instant::now(),
            steps: Vec::new(),
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
        eprintln!("{line}");
    }
}

/// Records step `name` when timing is on.
pub fn mark(steps: &mut Option<Steps>, name: &'static str) {
    if let Some(s) = steps {
        s.mark(name);
    }
}
