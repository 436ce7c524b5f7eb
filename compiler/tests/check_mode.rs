//! `meshc check` resolves each mesh without building its manifests
//! (`db::check_mesh`); `meshc build` builds them (`db::resolve_mesh`). The diagnostics
//! and what was left out must not depend on which, and a check makes no lock (it writes
//! none; a build does): every fixture case, the build cases, the catalogue and the shared
//! conformance suite are resolved both ways.
//! What `meshc build` writes (`db::build_mesh`: each node's manifest serialised where it
//! is built, with its compose file) must be the bytes of `db::resolve_mesh`'s manifests.

mod support;

use meshc::db;
use meshc::emit::manifest::Requirement;
use meshc::resolve::{ChoiceRef, Lock, ProviderChoice};
use std::path::Path;
use support::*;

/// How many provider choices were compared, so a test can tell it compared some.
static CHOICES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many diagnostics and labels of the compared outcomes point inside a module's
/// definition (placed from a position-free module when resolution is reused).
static IN_MODULES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many files a build would write were compared with the manifests' bytes.
static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Resolves every mesh of `files` both ways and compares; returns how many meshes. Each
/// is also resolved as the language server resolves it, from position-free modules
/// (`Workspace::reuse_resolution`), which must give the very same outcome.
fn same_both_ways(label: &str, files: &[(String, String)]) -> usize {
    let (mut database, ws) = workspace(files);
    let (mut reusing, reuse_ws) = workspace(files);
    // As `meshc` resolves: no provider choices listed, and nothing else different.
    let (unlisting, unlisting_ws) = workspace(files);
    {
        use salsa::Setter as _;
        reuse_ws.set_reuse_resolution(&mut reusing).to(true);
        // Both list their provider choices, as the language server's does, to compare.
        ws.set_provider_choices(&mut database).to(true);
        reuse_ws.set_provider_choices(&mut reusing).to(true);
    }
    let meshes: Vec<String> = db::registry(&database, ws).meshes.keys().cloned().collect();
    for mesh in &meshes {
        let built = db::resolve_mesh(&database, ws, mesh.clone(), Lock::default());
        let checked = db::check_mesh(&database, ws, mesh.clone());
        let reused_built = db::resolve_mesh(&reusing, reuse_ws, mesh.clone(), Lock::default());
        let reused_checked = db::check_mesh(&reusing, reuse_ws, mesh.clone());
        assert_eq!(
            *reused_built, *built,
            "{label}: mesh `{mesh}`: resolved from position-free modules, the build differs"
        );
        assert_eq!(
            *reused_checked, *checked,
            "{label}: mesh `{mesh}`: resolved from position-free modules, the check differs"
        );
        // Places inside a module's definition: those the reusing database placed from
        // a position-free module.
        let in_module = |file: &str, span: meshc::span::Span| {
            reuse_ws.files(&reusing).iter().any(|f| {
                &**f.path(&reusing) == file
                    && db::parse_file(&reusing, *f).file.items.iter().any(|i| {
                        matches!(i, meshc::syntax::ast::Item::Module(_))
                            && i.span().start <= span.start
                            && span.end <= i.span().end
                    })
            })
        };
        let placed = reused_checked
            .diagnostics
            .iter()
            .chain(reused_checked.left_out.iter().flat_map(|l| &l.diagnostics))
            .flat_map(|d| {
                std::iter::once((&d.file, d.span)).chain(d.labels.iter().map(|l| (&l.file, l.span)))
            })
            .filter(|(f, s)| in_module(f, *s))
            .count();
        IN_MODULES.fetch_add(placed, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            built.diagnostics, checked.diagnostics,
            "{label}: mesh `{mesh}`: check-mode diagnostics differ from build-mode ones"
        );
        assert_eq!(built.left_out, checked.left_out, "{label}: mesh `{mesh}`");
        assert!(
            checked.lock == Lock::default(),
            "{label}: mesh `{mesh}`: a check makes no lock"
        );
        assert_eq!(built.span, checked.span, "{label}: mesh `{mesh}`");
        assert!(checked.manifests.is_empty(), "{label}: mesh `{mesh}`");
        assert_eq!(built.choices, checked.choices, "{label}: mesh `{mesh}`");
        let unlisted = db::check_mesh(&unlisting, unlisting_ws, mesh.clone());
        let mut listed = (*checked).clone();
        listed.choices.clear();
        assert_eq!(
            *unlisted, listed,
            "{label}: mesh `{mesh}`: without choices listed"
        );
        let sink = Collected::default();
        let compose = meshc::target::find("compose").expect("the compose target");
        let compose = (compose.make)();
        let writer = meshc::target::Build::new(&*compose, &sink);
        let files = db::build_mesh(&database, ws, mesh, &Lock::default(), &writer);
        writer.finish(&files.nodes);
        // Files reach the sink in the order their threads finish: compared by name, each
        // name once.
        let mut sent = sink.0.into_inner().unwrap();
        sent.sort();
        let mut want = files_of(&built);
        want.sort();
        assert_eq!(
            sent, want,
            "{label}: mesh `{mesh}`: the bytes a build writes differ from its manifests'"
        );
        assert!(files.manifests.is_empty(), "{label}: mesh `{mesh}`");
        assert_eq!(
            (&files.diagnostics, &files.left_out, &files.choices),
            (&built.diagnostics, &built.left_out, &built.choices),
            "{label}: mesh `{mesh}`"
        );
        assert_eq!(
            files.lock_to_write(),
            built.lock_to_write(),
            "{label}: mesh `{mesh}`"
        );
        FILES.fetch_add(want.len(), std::sync::atomic::Ordering::Relaxed);
        CHOICES.fetch_add(checked.choices.len(), std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            choices_of_manifests(&built),
            checked.choices,
            "{label}: mesh `{mesh}`: the provider choices differ from the manifests'"
        );
    }
    meshes.len()
}

/// What a build's sink was given: every file's name and bytes.
#[derive(Default)]
struct Collected(std::sync::Mutex<Vec<(String, Vec<u8>)>>);

impl meshc::target::FileSink for Collected {
    fn put(&self, name: &str, bytes: &[u8]) {
        self.0
            .lock()
            .unwrap()
            .push((name.to_string(), bytes.to_vec()));
    }
}

/// The files a build writes of `outcome`'s manifests: each node's bytes, then each
/// node's Compose project (its compose file and the `.env` naming it).
fn files_of(outcome: &meshc::resolve::MeshOutcome) -> Vec<(String, Vec<u8>)> {
    let json = outcome
        .manifests
        .iter()
        .map(|(node, m)| (format!("{node}.json"), meshc::emit::manifest_bytes(m)));
    let compose = outcome.manifests.iter().flat_map(|(node, m)| {
        [
            (
                format!("{node}/compose.yaml"),
                meshc::emit::compose::compose_yaml(m, &outcome.nodes).into_bytes(),
            ),
            (
                format!("{node}/.env"),
                meshc::emit::compose::dot_env(m).into_bytes(),
            ),
        ]
    });
    json.chain(compose).collect()
}

/// The module requirements' answers as the built manifests write them, in their order.
fn choices_of_manifests(outcome: &meshc::resolve::MeshOutcome) -> Vec<ProviderChoice> {
    let mut out = Vec::new();
    for (node, manifest) in &outcome.manifests {
        for inst in &manifest.instances {
            for (name, req) in &inst.requirements {
                let provider = match req {
                    Requirement::Module(m) => Some((
                        ChoiceRef {
                            node: m.provider.node.as_str().into(),
                            instance: m.provider.instance.as_str().into(),
                        },
                        m.by,
                    )),
                    Requirement::Absent(_) => None,
                    _ => continue,
                };
                out.push(ProviderChoice {
                    node: node.as_str().into(),
                    instance: inst.instance.as_str().into(),
                    module: inst.module.as_str().into(),
                    requirement: name.as_str().into(),
                    provider,
                });
            }
        }
    }
    out
}

/// Each `.mesh` file of `dir` as a workspace of its own.
fn each_file(dir: &Path) -> usize {
    let mut meshes = 0;
    for p in &case_files(dir) {
        let text = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        meshes += same_both_ways(&name, &one_file(&name, &text));
    }
    meshes
}

#[test]
fn fixture_cases_resolve_the_same_both_ways() {
    let root = repo_root();
    let mut meshes = each_file(&root.join("tests/cases/resolve"));
    meshes += each_file(&root.join("tests/cases/check"));
    for dir in ["tests/cases/build/lab", "tests/cases/build/refusals"] {
        meshes += same_both_ways(dir, &read_mesh_files(&root.join(dir)));
    }
    meshes += same_both_ways("catalogue", &read_mesh_files(&root.join("catalogue")));
    assert!(meshes > 50, "only {meshes} meshes resolved");
    let choices = CHOICES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(choices > 20, "only {choices} provider choices compared");
    // Diagnostics that point into modules' files were compared, not only the mesh's own.
    let placed = IN_MODULES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(placed > 20, "only {placed} places inside modules compared");
    let files = FILES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(files > 100, "only {files} written files compared");
}

#[test]
fn conformance_cases_resolve_the_same_both_ways() {
    let Some(dir) = conformance_dir() else {
        support::ci::say_skipped(support::CONFORMANCE_ABSENT);
        return;
    };
    each_file(&dir.join("check"));
    let mut builds: Vec<_> = std::fs::read_dir(dir.join("build"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    builds.sort();
    for b in &builds {
        same_both_ways(&b.display().to_string(), &read_mesh_files(b));
    }
}

/// A workspace whose given fields are read every way a check reads one: by a provider's
/// answer (`given.depth`), which the consumer narrows; by a loop over the consumers
/// (`c.given.tag`), whose text the consumer narrows; by the module's own answer
/// (`p.size`), which another consumer narrows; and not at all (`on`, and `size` of
/// `small`, read by nobody).
const READERS_POOL: &str = r#"contract pool for module {
  given size: int in 1..100 = 10
  given tag: string = "t"
  given depth: int in 1..100 = 5
  given on: bool = false
  limit: int
  note: string
}

contract gauge for module {
  level: int
}

module provider {
  container provider {
    image "p:1"
  }
  provides pool {
    limit = given.depth
    note = "${for c in consumers pool sep "," "${c.given.tag}"}"
  }
}
"#;
const READERS_USERS: &str = r#"module user {
  requires small: module pool { size = 64  tag = "a"  depth = 8  on = true  limit in 1..8  note len 1..5 }
  requires g: module gauge { level in 1..50 }
  container user {
    image "u:1"
    env {
      LEVEL = g.level
    }
  }
}

module other {
  requires p: module pool { size = 50  depth = 3  tag = "bb" }
  provides gauge {
    level = p.size
  }
}
"#;
const READERS_LAB: &str = r#"mesh lab {
  node alpha { private_name = "alpha.internal"  ports = 20000..20999 }
  assign provider to alpha
  assign user to alpha
  assign other to alpha
}
"#;

/// Every literal a module requirement's narrowing sets in `files` (a given field's, as
/// `requires key: module secret { length = 64 }` sets it), by file and span, with the
/// edits tried on it: within what the field likely takes and far out of it.
fn set_literals(files: &[(String, String)]) -> Vec<(usize, meshc::span::Span, Vec<String>)> {
    use meshc::syntax::ast;
    let mut out = Vec::new();
    for (k, (path, text)) in files.iter().enumerate() {
        let parsed = meshc::syntax::parse(&meshc::span::FilePath::from(path.as_str()), text);
        for item in parsed.file.items.iter() {
            let ast::Item::Module(m) = item else { continue };
            for r in m.requirements() {
                let ast::RequirementBody::Contract { narrowing, .. } = &r.body else {
                    continue;
                };
                for n in narrowing.iter() {
                    let ast::NarrowingKind::Set(e) = &n.kind else {
                        continue;
                    };
                    let edits = match e {
                        ast::Expr::Int(i) => vec![
                            (i.value + 1).to_string(),
                            (i.value - 1).to_string(),
                            "99999".to_string(),
                        ],
                        ast::Expr::Bool(b, _) => vec![(!b).to_string()],
                        ast::Expr::Str(s) => match s.as_plain() {
                            Some(t) if !s.triple => vec![
                                format!("\"{t}x\""),
                                "\"\"".to_string(),
                                "\"tcp\"".to_string(),
                            ],
                            _ => continue,
                        },
                        _ => continue,
                    };
                    out.push((k, e.span(), edits));
                }
            }
        }
    }
    out
}

/// The language server's check of a mesh keeps its resolution across an edit of a given
/// field's literal that no check can observe (`db::module_check_view` makes it
/// canonical; `db::incrementality` counts the resolutions): every literal a module
/// requirement sets in the fixtures, the build lab, the conformance builds and a fifth of
/// the catalogue's, edited within and out of what it takes, one at a time and back, must
/// give the check a fresh database gives from the edited files.
#[test]
fn every_set_literal_edited_checks_as_a_fresh_database() {
    use salsa::Setter as _;
    let root = repo_root();
    let mut sets: Vec<(String, Vec<(String, String)>)> = vec![(
        "readers".to_string(),
        [
            ("pool.mesh", READERS_POOL),
            ("users.mesh", READERS_USERS),
            ("lab.mesh", READERS_LAB),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect(),
    )];
    for dir in ["tests/cases/resolve", "tests/cases/check"] {
        for p in &case_files(&root.join(dir)) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).unwrap();
            sets.push((name.clone(), one_file(&name, &text)));
        }
    }
    for dir in ["tests/cases/build/lab", "catalogue"] {
        sets.push((dir.to_string(), read_mesh_files(&root.join(dir))));
    }
    if let Some(dir) = conformance_dir() {
        for e in std::fs::read_dir(dir.join("build")).unwrap() {
            let b = e.unwrap().path();
            if b.is_dir() {
                sets.push((b.display().to_string(), read_mesh_files(&b)));
            }
        }
    }
    let mut edits = 0;
    for (label, files) in &sets {
        let mut literals = set_literals(files);
        // The catalogue sets hundreds, each edit checked against a fresh catalogue: a
        // fifth of them, each edited twice, keeps the test to seconds.
        if literals.len() > 50 {
            literals = literals
                .into_iter()
                .step_by(5)
                .map(|(k, span, mut tries)| {
                    tries.truncate(2);
                    (k, span, tries)
                })
                .collect();
        }
        if literals.is_empty() {
            continue;
        }
        let (mut reusing, ws) = workspace(files);
        ws.set_reuse_resolution(&mut reusing).to(true);
        let meshes: Vec<String> = db::registry(&reusing, ws).meshes.keys().cloned().collect();
        if meshes.is_empty() {
            continue;
        }
        let source = |db: &db::Database, path: &str| {
            *ws.files(db)
                .iter()
                .find(|f| &**f.path(db) == path)
                .expect("the file is in the workspace")
        };
        let before: Vec<_> = meshes
            .iter()
            .map(|m| db::check_mesh(&reusing, ws, m.clone()))
            .collect();
        for (k, span, tries) in literals {
            let (path, text) = &files[k];
            for edit in tries {
                let mut edited = files.clone();
                edited[k].1 = format!(
                    "{}{edit}{}",
                    &text[..span.start as usize],
                    &text[span.end as usize..]
                );
                source(&reusing, path)
                    .set_text(&mut reusing)
                    .to(std::sync::Arc::from(edited[k].1.as_str()));
                let (fresh, fresh_ws) = workspace(&edited);
                for mesh in &meshes {
                    let now = db::check_mesh(&reusing, ws, mesh.clone());
                    assert_eq!(
                        *now,
                        *db::check_mesh(&fresh, fresh_ws, mesh.clone()),
                        "{label}: `{edit}` at {span:?} in {path}: mesh `{mesh}`"
                    );
                }
                edits += 1;
                // Back to the file's text, and to the first check.
                source(&reusing, path)
                    .set_text(&mut reusing)
                    .to(std::sync::Arc::from(text.as_str()));
                for (mesh, was) in meshes.iter().zip(&before) {
                    assert_eq!(
                        *db::check_mesh(&reusing, ws, mesh.clone()),
                        **was,
                        "{label}"
                    );
                }
            }
        }
    }
    assert!(edits > 50, "only {edits} edits tried");
}
