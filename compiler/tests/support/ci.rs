//! What a CI run changes for the tests (shared by `support` and `common`).

#![allow(dead_code)]

/// Whether this is a CI run (`CI` set to anything but empty, `0` or `false`; `.ci/run`
/// sets it): a sample a test cannot find is then an error, never a silent skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Expectation-updating modes write what they see instead of asserting it: refused in CI.
pub fn refuse_update_modes_in_ci() {
    if !in_ci() {
        return;
    }
    for var in ["INSTA_UPDATE", "INSTA_FORCE_PASS", "UPDATE_EXPECT"] {
        let v = std::env::var(var).unwrap_or_default();
        assert!(
            matches!(v.as_str(), "" | "no" | "0"),
            "{var}={v} rewrites expectations instead of asserting them; refused under CI"
        );
    }
}

/// Says that `why` kept the running test from doing its work, where a plain `cargo test`
/// shows it: libtest captures what `eprintln!` prints and shows it only for a test that
/// fails (or under `--nocapture`), but a write to the standard error stream itself is not
/// captured, so a skipped sample is never silent.
pub fn say_skipped(why: &str) {
    use std::io::Write as _;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
