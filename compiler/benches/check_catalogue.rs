//! How long checking a large catalogue takes: generates about 10 MB of modules (10,000
//! modules across 100 files, shaped like the catalogue's; `meshc::workload`'s flavour
//! `Catalogue`), then times parsing, the
//! registry and checking every file, from a fresh database, and checking again after
//! one file changed. Run with `cargo bench -p meshc --bench check_catalogue`; it prints
//! figures, and asserts nothing about time.

use meshc::db::{self, Database, SourceFile};
use meshc::workload::{Flavour, Workload};
use salsa::Setter;
use std::sync::Arc;
use std::time::Instant;

/// Files of the catalogue, each of a hundred modules.
const FILES: usize = 100;
const MODULES_PER_FILE: usize = 100;

/// The generated catalogue (`meshc::workload`'s flavour `Catalogue`), by path and text.
fn workspace() -> Vec<(Arc<str>, Arc<str>)> {
    Workload::new(Flavour::Catalogue, FILES * MODULES_PER_FILE)
        .files()
        .into_iter()
        .map(|(path, text)| (Arc::from(path), Arc::from(text)))
        .collect()
}

/// Nanoseconds this thread spent on a CPU (Linux), so figures hold on a busy machine.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn check_all(database: &Database, ws: db::Workspace) -> (usize, usize) {
    let (mut errors, mut warnings) = (0, 0);
    for file in ws.files(database).iter() {
        for d in db::check_file(database, ws, *file).iter() {
            if d.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
        }
    }
    (errors, warnings)
}

fn main() {
    let files = workspace();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    println!(
        "catalogue: {} files, {} modules, {:.1} MB",
        FILES,
        FILES * MODULES_PER_FILE,
        bytes as f64 / 1e6
    );
    for round in 0..3 {
        let start = Instant::now();
        let cpu0 = cpu_ns().unwrap_or(0);
        let (database, ws) = Database::with_files(files.clone());
        for file in ws.files(&database).iter() {
            db::parse_file(&database, *file);
        }
        let cpu1 = cpu_ns().unwrap_or(0);
        db::registry(&database, ws);
        let cpu2 = cpu_ns().unwrap_or(0);
        let (errors, warnings) = check_all(&database, ws);
        let cpu3 = cpu_ns().unwrap_or(0);
        let whole = start.elapsed();
        println!(
            "round {round}: on-CPU parse {:>6.1} ms, registry {:>5.1} ms, checks {:>6.1} ms, total {:>6.1} ms (wall {:>6.1} ms)",
            ms(cpu1 - cpu0),
            ms(cpu2 - cpu1),
            ms(cpu3 - cpu2),
            ms(cpu3 - cpu0),
            whole.as_secs_f64() * 1e3
        );
        // The checker alone, on trees already parsed.
        let registry = db::registry(&database, ws);
        let trees = db::parsed_files(&database, ws);
        let cpu4 = cpu_ns().unwrap_or(0);
        for (path, parsed, std) in &trees {
            meshc::check::check_items(path, &parsed.file, &registry, *std);
        }
        println!(
            "         check_items alone {:>6.1} ms on-CPU",
            ms(cpu_ns().unwrap_or(0) - cpu4)
        );
        assert_eq!(errors, 0, "the generated catalogue checks clean");

        // One edit: only the edited file is checked again (the registry too, since
        // its items may have changed).
        let mut database = database;
        let edited: SourceFile = ws.files(&database)[1];
        let text = format!("{}\n// edited\n", edited.text(&database));
        let start = Instant::now();
        edited.set_text(&mut database).to(Arc::from(text));
        check_all(&database, ws);
        let again = start.elapsed();
        println!(
            "         {warnings} warnings; after one edit {:>6.1} ms",
            again.as_secs_f64() * 1e3
        );
    }
}
