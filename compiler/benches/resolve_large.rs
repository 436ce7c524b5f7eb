//! How long resolving a large mesh takes: a generated catalogue of 10,000 modules, each
//! assigned once over 100 nodes, with ports, directories, operator values, a database
//! from the provider on its own node and a secret from the vault seat
//! (`meshc::workload`'s flavour `Resolve`). Prints figures; asserts nothing about time.
//!
//! Run: `cargo bench -p meshc --bench resolve_large` (add a count to change the size).

use meshc::db::{self, Database};
use meshc::emit;
use meshc::resolve::Lock;
use meshc::span::FilePath;
use meshc::workload::{Flavour, Workload};
use std::sync::Arc;
use std::time::Instant;

/// CPU time this thread has run, from the scheduler's own count (Linux), so figures hold
/// on a machine other jobs share; `None` elsewhere.
fn cpu_time() -> Option<std::time::Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let modules: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let files: Vec<(FilePath, Arc<str>)> = Workload::new(Flavour::Resolve, modules)
        .files()
        .into_iter()
        .map(|(path, text)| (FilePath::from(path.as_str()), Arc::from(text)))
        .collect();
    let start = Instant::now();
    let cpu0 = cpu_time();
    let (db, ws) = Database::with_files(files);
    let reg = db::registry(&db, ws);
    let (parsed, cpu1) = (start.elapsed(), cpu_time());
    let outcome = db::resolve_mesh(&db, ws, "big".into(), Lock::default());
    let (resolved, cpu2) = (start.elapsed(), cpu_time());
    let mut bytes = 0;
    for m in outcome.manifests.values() {
        bytes += emit::manifest_bytes(m).len();
    }
    let (emitted, cpu3) = (start.elapsed(), cpu_time());
    let again = db::resolve_mesh(&db, ws, "big".into(), outcome.lock.clone());
    let (relocked, cpu4) = (start.elapsed(), cpu_time());
    assert_eq!(reg.modules.len(), modules + 2);
    assert!(
        outcome.diagnostics.is_empty(),
        "{:?}",
        &outcome.diagnostics[..3.min(outcome.diagnostics.len())]
    );
    assert!(outcome.left_out.is_empty());
    assert_eq!(again.lock, outcome.lock);
    let cpu = |a: Option<std::time::Duration>, b: Option<std::time::Duration>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.0} ms cpu", ms(b - a)),
        _ => "cpu n/a".to_string(),
    };
    println!(
        "resolve_large: {modules} modules over 100 nodes, {} manifests, {:.1} MB",
        outcome.manifests.len(),
        bytes as f64 / 1e6
    );
    println!(
        "  parse + registry     {:>6.0} ms wall, {}",
        ms(parsed),
        cpu(cpu0, cpu1)
    );
    println!(
        "  resolve              {:>6.0} ms wall, {}",
        ms(resolved - parsed),
        cpu(cpu1, cpu2)
    );
    println!(
        "  write the manifests  {:>6.0} ms wall, {}",
        ms(emitted - resolved),
        cpu(cpu2, cpu3)
    );
    println!(
        "  resolve with a lock  {:>6.0} ms wall, {}",
        ms(relocked - emitted),
        cpu(cpu3, cpu4)
    );
    println!(
        "  build in all         {:>6.0} ms wall, {}",
        ms(emitted),
        cpu(cpu0, cpu3)
    );
}
