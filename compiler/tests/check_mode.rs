//! `meshc check` resolves each mesh without building its manifests
//! (`db::check_mesh`); `meshc build` builds them (`db::resolve_mesh`). The diagnostics,
//! the lock and what was left out must not depend on which: every fixture case, the
//! build cases, the catalogue and the shared conformance suite are resolved both ways.
//! What `meshc build` writes (`db::build_mesh`: each node's manifest serialised where it
//! is built, with its compose file) must be the bytes of `db::resolve_mesh`'s manifests.

mod support;

use meshc::db;
use meshc::emit::manifest::Requirement;
use meshc::resolve::{Lock, ProviderChoice};
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
        assert_eq!(built.lock, checked.lock, "{label}: mesh `{mesh}`");
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
                    Requirement::Module(m) => Some((m.provider.clone(), m.by)),
                    Requirement::Absent(_) => None,
                    _ => continue,
                };
                out.push(ProviderChoice {
                    node: node.clone(),
                    instance: inst.instance.clone(),
                    module: inst.module.clone(),
                    requirement: name.clone(),
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
