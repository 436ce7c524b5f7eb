//! The one reader of fixture headers, and the one judge of a case by its header.
//!
//! A fixture's header is its leading comment lines (`//` and `///`, blank lines between
//! them allowed), up to the first line of source. A header line `// key: value` is a
//! directive. Every fixture runner reads headers here: the case runners of
//! `tests/cases/` (`cases.rs`, `check_cases.rs`, `resolve.rs`) through [`case_header`],
//! the language server's fixtures (`lsp/tests/fixtures.rs`, which includes this file)
//! through [`directives`] with keys of their own.
//!
//! A line whose key is not among the known ones but reads like a key someone meant to
//! write (`expect-txt:`, `expct:`, `flag:`) is refused, so a misspelt key never asserts
//! nothing; prose that wraps before a colon (`// user: both are root's`) is left alone.

#![allow(dead_code)]

use meshc::diagnostics::{Code, Diagnostic, Severity};
use std::path::{Path, PathBuf};

/// One `// key: value` line of a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// One-based line number in the file.
    pub line: usize,
    pub key: String,
    pub value: String,
}

/// The header lines of `text` (one-based number, text after `//`): the leading comment
/// lines (doc comments too), blank lines between them allowed, up to the first line of
/// source.
pub fn header_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim_start()))
        .take_while(|(_, l)| l.is_empty() || l.starts_with("//"))
        .filter_map(|(n, l)| l.strip_prefix("//").map(|rest| (n, rest)))
}

/// The directives of `text`'s header whose key is in `known`. A line whose key is not
/// known but reads like a key ([`looks_like_key`]) is an error naming it.
pub fn directives(text: &str, known: &[&str]) -> Result<Vec<Directive>, String> {
    let mut out = Vec::new();
    let mut unknown = Vec::new();
    for (line, rest) in header_lines(text) {
        let Some((key, value)) = rest.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if known.contains(&key) {
            out.push(Directive {
                line,
                key: key.to_string(),
                value: value.trim().to_string(),
            });
        } else if looks_like_key(key, known) {
            unknown.push(format!("line {line}: unknown header key `{key}:`"));
        }
    }
    if unknown.is_empty() {
        Ok(out)
    } else {
        Err(unknown.join("; "))
    }
}

/// Whether `key` reads as a header key someone meant to write (`expect-txt`, `expcet`,
/// `flag`), not prose that wrapped before a colon (`// user: both are root's`): a
/// hyphenated word, or one within two edits of a known key or starting like one.
pub fn looks_like_key(key: &str, known: &[&str]) -> bool {
    let shaped = key.starts_with(|c: char| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    shaped
        && (key.contains('-')
            || known
                .iter()
                .any(|k| edit_distance(k, key) <= 2 || key.starts_with(&k[..k.len().min(4)])))
}

/// The Levenshtein distance of two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The keys a case of `tests/cases/` (or of the conformance sample) may write.
pub const CASE_KEYS: &[&str] = &[
    "expect",
    "allow",
    "flags",
    "expect-text",
    "exit",
    "expect-count",
    "expect-in",
];

/// The header of a case of `tests/cases/`.
#[derive(Debug, Default, Clone)]
pub struct CaseHeader {
    /// `// expect: ok`: no error at all (warnings allowed).
    pub ok: bool,
    /// `// expect: E0302 W0001`: each code appears; no error outside `expect` and `allow`.
    pub expect: Vec<Code>,
    /// `// allow: E0005`: other error codes that may appear too.
    pub allow: Vec<Code>,
    /// `// expect-text: postgres`: a diagnostic of an expected code mentions the text.
    pub expect_text: Vec<String>,
    /// `// flags: --deny warnings`: the command line's extra flags, as written.
    pub flags: Vec<String>,
    /// `--deny warnings` among the flags.
    pub deny_warnings: bool,
    /// `--deny old-forms` among the flags.
    pub deny_old_forms: bool,
    /// Flags other than the two `--deny`s, which only the command line honours.
    pub other_flags: Vec<String>,
    /// `// exit: N`: the exit status, when not the one `expect` implies.
    pub exit: Option<i32>,
    /// `// expect-count: E0514=2`: exactly this many diagnostics of the code.
    pub counts: Vec<(Code, usize)>,
    /// `// expect-in: E0514 app`: a diagnostic of the code mentions the text.
    pub code_texts: Vec<(Code, String)>,
}

impl CaseHeader {
    /// The exit status the case expects: `exit:` when written, else 1 when an error code
    /// is expected, else 0.
    pub fn want_exit(&self) -> i32 {
        self.exit.unwrap_or(i32::from(
            !self.ok && self.expect.iter().any(|c| c.severity() == Severity::Error),
        ))
    }

    /// Raises the warnings the case's `--deny` flags name to errors, as the command line
    /// does before it prints.
    pub fn raise(&self, diags: &mut [Diagnostic]) {
        for d in diags {
            if d.severity == Severity::Warning
                && (self.deny_warnings || (self.deny_old_forms && d.code.is_old_form()))
            {
                d.severity = Severity::Error;
            }
        }
    }
}

fn codes(list: &str, problems: &mut Vec<String>) -> Vec<Code> {
    list.split([' ', ','])
        .filter(|w| !w.is_empty())
        .filter_map(|w| {
            let c = Code::parse(w);
            if c.is_none() {
                problems.push(format!("unknown code `{w}`"));
            }
            c
        })
        .collect()
}

/// Reads a case's header; `Err` says every way it is malformed: an unknown key, an
/// unknown code, a value not of its key's form, no `expect:` line, `ok` beside codes.
pub fn case_header(text: &str) -> Result<CaseHeader, String> {
    let mut problems = Vec::new();
    let lines = directives(text, CASE_KEYS).unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    });
    let mut h = CaseHeader::default();
    let mut any_expect = false;
    for Directive { line, key, value } in lines {
        let mut bad = |what: &str| problems.push(format!("line {line}: `{key}: {value}` {what}"));
        match key.as_str() {
            "expect" => {
                any_expect = true;
                let words = value.split([' ', ',']).filter(|w| !w.is_empty());
                let (ok, listed): (Vec<&str>, Vec<&str>) = words.partition(|w| *w == "ok");
                h.ok |= !ok.is_empty();
                h.expect.extend(codes(&listed.join(" "), &mut problems));
            }
            "allow" => h.allow.extend(codes(&value, &mut problems)),
            "expect-text" if !value.is_empty() => h.expect_text.push(value),
            "flags" => {
                let mut words = value.split_whitespace().peekable();
                while let Some(w) = words.next() {
                    h.flags.push(w.to_string());
                    match (w, words.peek().copied()) {
                        ("--deny", Some("warnings")) => h.deny_warnings = true,
                        ("--deny", Some("old-forms")) => h.deny_old_forms = true,
                        _ => {
                            h.other_flags.push(w.to_string());
                            continue;
                        }
                    }
                    h.flags.push(words.next().unwrap_or_default().to_string());
                }
            }
            "exit" => match value.parse() {
                Ok(n) => h.exit = Some(n),
                Err(_) => bad("is not a number"),
            },
            "expect-count" => {
                for w in value.split_whitespace() {
                    let parsed = w
                        .split_once('=')
                        .and_then(|(c, n)| Some((Code::parse(c)?, n.parse::<usize>().ok()?)));
                    match parsed {
                        Some(p) => h.counts.push(p),
                        None => bad("is not CODE=N"),
                    }
                }
                if value.is_empty() {
                    bad("is not CODE=N");
                }
            }
            "expect-in" => match value
                .split_once(char::is_whitespace)
                .and_then(|(c, t)| Some((Code::parse(c)?, t.trim())))
            {
                Some((c, t)) if !t.is_empty() => h.code_texts.push((c, t.to_string())),
                _ => bad("is not CODE TEXT"),
            },
            _ => bad("says nothing"),
        }
    }
    if !any_expect {
        problems.push("the header has no `// expect:` line (`ok` or codes)".into());
    } else if h.ok && !h.expect.is_empty() {
        problems.push("`expect: ok` beside expected codes".into());
    } else if !h.ok && h.expect.is_empty() && problems.is_empty() {
        problems.push("`expect:` names no code".into());
    }
    if problems.is_empty() {
        Ok(h)
    } else {
        Err(problems.join("; "))
    }
}

/// One diagnostic as a case sees it, whichever way the case was run (in process, or the
/// command line's JSON).
#[derive(Debug, Clone)]
pub struct Seen {
    pub code: String,
    pub error: bool,
    /// The message, the help and every label's message, one per line.
    pub text: String,
}

impl Seen {
    pub fn of(d: &Diagnostic) -> Seen {
        let mut text = d.message.clone();
        for part in d.help.iter().chain(d.labels.iter().map(|l| &l.message)) {
            text.push('\n');
            text.push_str(part);
        }
        Seen {
            code: d.code.as_str().to_string(),
            error: d.is_error(),
            text,
        }
    }
}

/// Whether what came out of a case (`seen`, and the exit status) is what its header
/// says; `Err` lists every difference and what came out.
pub fn judge(h: &CaseHeader, seen: &[Seen], exit: i32) -> Result<(), String> {
    let mut problems = Vec::new();
    let has = |code: &Code| seen.iter().any(|s| s.code == code.as_str());
    let listed = |code: &str, list: &[Code]| list.iter().any(|c| c.as_str() == code);
    if h.ok {
        if seen.iter().any(|s| s.error) {
            problems.push("expected no errors".to_string());
        }
    } else {
        let missing: Vec<&str> = h
            .expect
            .iter()
            .filter(|c| !has(c))
            .map(|c| c.as_str())
            .collect();
        if !missing.is_empty() {
            problems.push(format!("missing {}", missing.join(" ")));
        }
        let mut unexpected: Vec<&str> = seen
            .iter()
            .filter(|s| s.error && !listed(&s.code, &h.expect) && !listed(&s.code, &h.allow))
            .map(|s| s.code.as_str())
            .collect();
        unexpected.dedup();
        if !unexpected.is_empty() {
            problems.push(format!("unexpected errors {}", unexpected.join(" ")));
        }
        for t in &h.expect_text {
            if !seen
                .iter()
                .any(|s| listed(&s.code, &h.expect) && s.text.contains(t.as_str()))
            {
                problems.push(format!("no diagnostic of an expected code mentions {t:?}"));
            }
        }
    }
    for (code, want) in &h.counts {
        let got = seen.iter().filter(|s| s.code == code.as_str()).count();
        if got != *want {
            problems.push(format!("{got} diagnostics {code}, expected exactly {want}"));
        }
    }
    for (code, t) in &h.code_texts {
        if !seen
            .iter()
            .any(|s| s.code == code.as_str() && s.text.contains(t.as_str()))
        {
            problems.push(format!("no {code} diagnostic mentions {t:?}"));
        }
    }
    let want_exit = h.want_exit();
    if exit != want_exit {
        problems.push(format!("exit {exit}, expected {want_exit}"));
    }
    if problems.is_empty() {
        return Ok(());
    }
    let got: String = seen
        .iter()
        .map(|s| {
            let severity = if s.error { "error" } else { "warning" };
            format!(
                "\n    {} {severity}: {}",
                s.code,
                s.text.replace('\n', "\n      ")
            )
        })
        .collect();
    Err(format!("{}\n  diagnostics:{got}", problems.join("; ")))
}

/// The `.mesh` files directly in `dir`, sorted; a folder that cannot be read fails.
pub fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "mesh"))
        .collect();
    files.sort();
    files
}

/// Runs `run` over every case file of `dir` that `keep` accepts, and fails listing every
/// case that failed, or when fewer than `floor` ran (a runner that lost its folder, or a
/// filter that drops everything, fails instead of passing on zero). `run` returns
/// `Ok(false)` for a case it skips (counted, not run). Returns how many ran.
pub fn run_cases(
    dir: &Path,
    floor: usize,
    keep: impl Fn(&Path) -> bool,
    mut run: impl FnMut(&Path, &str) -> Result<bool, String>,
) -> usize {
    let (mut ran, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for path in case_files(dir).into_iter().filter(|p| keep(p)) {
        let text = std::fs::read_to_string(&path).unwrap();
        match run(&path, &text) {
            Ok(true) => ran += 1,
            Ok(false) => skipped += 1,
            Err(e) => {
                ran += 1;
                let name = path.file_name().unwrap().to_string_lossy();
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    eprintln!(
        "{}: {ran} cases ran, {} failed, {skipped} skipped",
        dir.display(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} cases in {} failed:\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    assert!(
        ran >= floor,
        "only {ran} cases ran in {} (at least {floor} expected)",
        dir.display()
    );
    ran
}
