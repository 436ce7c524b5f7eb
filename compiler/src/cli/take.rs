//! `meshc take` and `meshc genesis` (LANGUAGE.md §13.3, §13.5): the mesh resolved as a
//! build would, the host report read and validated, the comparison printed with its
//! digest last, and the cutover or bootstrap plan written atomically.

use super::output::{self, Format};
use crate::Session;
use meshc::base::visible::{visible, visible_lines};
use meshc::diagnostics::render;
use meshc::diagnostics::rules::{DigestMismatch, ReportRefused, ReportStale, TakeFinding};
use meshc::diagnostics::{Diagnostic, Rule};
use meshc::emit::Manifest;
use meshc::resolve::MeshOutcome;
use meshc::span::{FilePath, Span};
use meshc::take::{self, Options, Outcome, Preview};
use std::path::{Path, PathBuf};

/// The largest host report read: a report holds configuration files, not data.
const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// `--format` of take: human (the comparison on stdout, diagnostics on stderr) or json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TakeFormat {
    Human,
    Json,
}

/// What `meshc take` was asked.
pub struct TakeArgs {
    pub instance: String,
    pub node: String,
    pub mesh_file: PathBuf,
    pub paths: Vec<PathBuf>,
    pub report: PathBuf,
    pub max_age: i64,
    pub options: Options,
    pub yes: Option<String>,
    pub out: PathBuf,
    pub format: TakeFormat,
}

/// Parses `--max-age`: `90s`, `15m`, `2h`, `7d`.
pub fn parse_max_age(text: &str) -> Result<i64, String> {
    take::time::parse_duration(text).ok_or_else(|| {
        format!("`{text}` is not a duration: a whole number and one of s, m, h, d (`15m`)")
    })
}

/// Parses `--match DECLARED=FOUND`.
pub fn parse_match(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((d, f)) if !d.is_empty() && !f.is_empty() => Ok((d.to_string(), f.to_string())),
        _ => Err(format!(
            "`{text}` is not DECLARED=FOUND (`--match forge=old-forge`)"
        )),
    }
}

/// The mesh of `mesh_file` resolved against its lock (read, never written), as a build
/// would resolve it.
pub fn resolve(
    mesh_file: &Path,
    paths: Vec<PathBuf>,
) -> Result<(Session, std::sync::Arc<MeshOutcome>), u8> {
    let session = crate::open_for_mesh(mesh_file, paths)?;
    let shown = super::workspace::display_path(mesh_file);
    let registry = meshc::db::registry(&session.db, session.ws);
    let meshes = meshc::resolve::meshes_in(&registry, &shown);
    let mesh = match meshes.as_slice() {
        [one] => one.clone(),
        [] => {
            output::say(&format!("`{shown}` declares no mesh"));
            return Err(2);
        }
        several => {
            output::say(&format!(
                "`{shown}` declares {} meshes ({}); put each in a file of its own",
                several.len(),
                several.join(", ")
            ));
            return Err(2);
        }
    };
    let lock_path = PathBuf::from(format!("{}.lock", mesh_file.display()));
    let lock = match super::workspace::read_lock(&lock_path) {
        Ok(Some(text)) => meshc::resolve::Lock::parse(&text).map_err(|e| {
            output::say(&format!(
                "`{}` is not a lock file meshc can read: {e}",
                lock_path.display()
            ));
            2u8
        })?,
        Ok(None) => meshc::resolve::Lock::default(),
        Err(e) => {
            output::say(&e);
            return Err(2);
        }
    };
    let outcome = meshc::db::resolve_mesh(&session.db, session.ws, mesh, lock);
    Ok((session, outcome))
}

/// The manifest of `node` and its instance `instance`; when there is none, says why
/// (printing the refusals of an instance left out) and gives the exit status.
fn instance_of<'a>(
    outcome: &'a MeshOutcome,
    session: &Session,
    node: &str,
    instance: &str,
    format: Format,
) -> Result<&'a Manifest, u8> {
    let Some(manifest) = outcome.manifests.get(node) else {
        let nodes: Vec<&str> = outcome.manifests.keys().map(String::as_str).collect();
        output::say(&format!(
            "mesh `{}` has no node `{node}` (its nodes: {})",
            outcome.mesh,
            nodes.join(", ")
        ));
        return Err(2);
    };
    if manifest.instances.iter().any(|i| i.instance == instance) {
        return Ok(manifest);
    }
    if let Some(l) = outcome
        .left_out
        .iter()
        .find(|l| l.node == node && l.instance == instance)
    {
        output::say(&format!(
            "instance `{instance}` on node `{node}` is left out of the build, so there is nothing to take:"
        ));
        output::print(&l.diagnostics, &session.sources, format, session.files_read);
        return Err(1);
    }
    output::say(&format!(
        "node `{node}` has no instance `{instance}` in mesh `{}`",
        outcome.mesh
    ));
    Err(2)
}

/// The diagnostic of `rule` about the host report `report` as a whole.
fn about_report(report: &FilePath, rule: impl Rule) -> Diagnostic {
    rule.at(report, Span::default())
}

/// Prints the result of a take: JSON (the §11 object plus `digest` and `rows`) or the
/// human comparison with the digest last on stdout and the diagnostics on stderr.
fn print(diags: &[Diagnostic], preview: Option<&Preview>, session: &Session, format: TakeFormat) {
    let diags = output::finish(diags.to_vec(), &[]);
    match format {
        TakeFormat::Json => {
            let mut v = render::to_json(&diags, &session.sources);
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "digest".into(),
                    preview.map_or(serde_json::Value::Null, |p| p.digest.clone().into()),
                );
                obj.insert(
                    "rows".into(),
                    preview.map_or(serde_json::json!([]), |p| {
                        serde_json::to_value(&p.rows).unwrap_or_default()
                    }),
                );
            }
            output::stdout_line(&serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        TakeFormat::Human => {
            if !diags.is_empty() {
                // A take's messages quote a host report (names, diffs): what the report
                // holds reaches a terminal only as visible escapes (LANGUAGE.md §14.6).
                let diags: Vec<Diagnostic> = diags
                    .into_iter()
                    .map(|mut d| {
                        d.message = visible_lines(&d.message).into_owned();
                        d.help = d.help.map(|h| visible_lines(&h).into_owned());
                        d
                    })
                    .collect();
                output::print(&diags, &session.sources, Format::Human, session.files_read);
            }
            if let Some(p) = preview {
                output::stdout_line(&visible_lines(&human(p)));
            }
        }
    }
}

/// The comparison as a table, one row a line (diffs below their row), the digest last.
fn human(p: &Preview) -> String {
    let mut out = format!("take `{}` on node `{}`\n", p.instance, p.node);
    for r in &p.rows {
        let outcome = match r.outcome {
            Outcome::Same => "same",
            Outcome::Said => "said",
            Outcome::Refused => "REFUSED",
            Outcome::Waived => "waived",
            Outcome::New => "new",
        };
        let code = r.code.map(|c| format!(" [{c}]")).unwrap_or_default();
        let container = if r.container.is_empty() {
            String::new()
        } else {
            format!("{}: ", r.container)
        };
        out.push_str(&format!(
            "  {outcome:<8} {:<9} {container}{}{code}\n",
            r.what, r.note
        ));
        if let Some(d) = &r.diff {
            for line in d.lines() {
                out.push_str(&format!("      {line}\n"));
            }
        }
    }
    let refused = p
        .rows
        .iter()
        .filter(|r| r.outcome == Outcome::Refused)
        .count();
    out.push_str(&match refused {
        0 => "nothing refuses: confirm with `--yes DIGEST`\n".to_string(),
        1 => "1 difference refuses the take\n".to_string(),
        n => format!("{n} differences refuse the take\n"),
    });
    out.push_str(&format!("digest {}", p.digest));
    out
}

/// `meshc take`.
pub fn run(args: TakeArgs) -> u8 {
    let check_format = match args.format {
        TakeFormat::Human => Format::Human,
        TakeFormat::Json => Format::Json,
    };
    let (session, outcome) = match resolve(&args.mesh_file, args.paths.clone()) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let manifest = match instance_of(&outcome, &session, &args.node, &args.instance, check_format) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let instance = manifest
        .instances
        .iter()
        .find(|i| i.instance == args.instance)
        .expect("instance_of found it");
    let report_file: FilePath = super::workspace::display_path(&args.report).into();
    let text = match read_report(&args.report) {
        Ok(t) => t,
        Err(sentence) => {
            output::say(&visible(&sentence));
            return 2;
        }
    };
    let (report, value) = match take::report::read(&text) {
        Ok(x) => x,
        Err(e) => {
            let rule = ReportRefused::Malformed {
                path: &e.path,
                why: &e.message,
            };
            let d = about_report(&report_file, rule);
            print(&[d], None, &session, args.format);
            return 1;
        }
    };
    if report.node != args.node {
        let rule = ReportRefused::OtherNode {
            found: &report.node,
            wanted: &args.node,
        };
        let d = about_report(&report_file, rule);
        print(&[d], None, &session, args.format);
        return 1;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let taken = take::time::parse_rfc3339(&report.taken_at).unwrap_or(0);
    if now - taken > args.max_age {
        let rule = ReportStale {
            taken_at: &report.taken_at,
            age: &take::time::say_duration(now - taken),
            max_age: &take::time::say_duration(args.max_age),
        };
        let d = about_report(&report_file, rule);
        print(&[d], None, &session, args.format);
        return 1;
    }
    let preview = take::preview(manifest, instance, &report, &value, &args.options);
    let mut diags: Vec<Diagnostic> = preview
        .findings
        .iter()
        .map(|f| {
            let rule = TakeFinding {
                code: f.code,
                note: &f.message,
                instance: &instance.instance,
            };
            about_report(&report_file, rule)
        })
        .collect();
    let refuses = preview.refuses();
    let Some(yes) = &args.yes else {
        print(&diags, Some(&preview), &session, args.format);
        return u8::from(refuses);
    };
    let wanted = yes.trim();
    let matches = wanted == preview.digest
        || (!wanted.starts_with("sha256:") && format!("sha256:{wanted}") == preview.digest);
    if !matches {
        let rule = DigestMismatch {
            wanted,
            digest: &preview.digest,
        };
        diags.push(about_report(&report_file, rule));
        print(&diags, Some(&preview), &session, args.format);
        return 1;
    }
    if refuses {
        print(&diags, Some(&preview), &session, args.format);
        output::say("the preview refuses the take: nothing was written");
        return 1;
    }
    let plan = take::plan(manifest, &preview, &report, &args.options);
    let name = format!("{}.{}.take.json", args.node, args.instance);
    let mut bytes = serde_json::to_vec_pretty(&plan).unwrap_or_default();
    bytes.push(b'\n');
    // The plan is the operator's alone (0600): it names the node's files and owners.
    if let Err(e) = super::atomic::write_all_private(&args.out, &[(name.clone(), bytes)]) {
        output::say(&visible(&e));
        output::say("nothing was written");
        return 2;
    }
    print(&diags, Some(&preview), &session, args.format);
    if args.format == TakeFormat::Human {
        output::say(&visible(&format!(
            "wrote the cutover plan {}",
            args.out.join(&name).display()
        )));
    }
    0
}

fn read_report(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read `{shown}`: {}", super::workspace::plain(&e)))?;
    let mut bytes = Vec::new();
    file.take(MAX_REPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {}", super::workspace::plain(&e)))?;
    if bytes.len() as u64 > MAX_REPORT_BYTES {
        return Err(format!(
            "`{shown}` is over {} MiB; a host report is refused above that",
            MAX_REPORT_BYTES / (1024 * 1024)
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("`{shown}` is not UTF-8 text"))
}

/// `meshc genesis`.
pub fn genesis(
    mesh_file: PathBuf,
    paths: Vec<PathBuf>,
    node: String,
    out: PathBuf,
    format: Format,
) -> u8 {
    let (session, outcome) = match resolve(&mesh_file, paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if !outcome.manifests.contains_key(&node) {
        output::say(&format!("mesh `{}` has no node `{node}`", outcome.mesh));
        return 2;
    }
    let manifests: Vec<&Manifest> = outcome.manifests.values().collect();
    let shown: FilePath = super::workspace::display_path(&mesh_file).into();
    let left_out: Vec<Diagnostic> = outcome
        .left_out
        .iter()
        .filter(|l| l.node == node)
        .flat_map(|l| l.diagnostics.iter().cloned())
        .collect();
    match take::genesis::plan(&manifests, &node) {
        Ok(plan) => {
            if !left_out.is_empty() {
                output::print(
                    &output::finish(left_out, &[]),
                    &session.sources,
                    format,
                    session.files_read,
                );
                output::say("an assignment of the node is left out: nothing was written");
                return 1;
            }
            let name = format!("{node}.genesis.json");
            let mut bytes = serde_json::to_vec_pretty(&plan).unwrap_or_default();
            bytes.push(b'\n');
            if let Err(e) = super::atomic::write_all(&out, &[(name.clone(), bytes)]) {
                output::say(&e);
                output::say("nothing was written");
                return 2;
            }
            if format == Format::Human {
                output::say(&format!(
                    "wrote the bootstrap plan {}",
                    out.join(name).display()
                ));
            } else {
                output::print(&[], &session.sources, format, session.files_read);
            }
            0
        }
        Err(refusals) => {
            let diags: Vec<Diagnostic> = refusals
                .into_iter()
                .map(|r| r.rule().at(&shown, outcome.span))
                .chain(left_out)
                .collect();
            output::print(
                &output::finish(diags, &[]),
                &session.sources,
                format,
                session.files_read,
            );
            output::say("nothing was written");
            1
        }
    }
}
