//! What the fixture tests share: a workspace from files, checking and resolving it as
//! `meshc check` and `meshc build` would, and the fixture formats of the conformance
//! suite (a `.mesh` file with `// expect:` headers; a build folder with `expect.json`).

#![allow(dead_code)]

use meshc::db::{self, Database, Workspace};
use meshc::diagnostics::Diagnostic;
use meshc::emit::{self, Manifest};
use meshc::resolve::{Lock, MeshOutcome};
use meshc::span::FilePath;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod ci;
pub mod command;
pub mod header;
pub use ci::*;
pub use command::repo_root;
pub use header::*;

/// A database provider with a directory of its own, which the hand-written resolution
/// and build tests assign.
pub const PG: &str = r#"
module pg {
  requires here: host node
  requires p: host port { container = 5432 }
  requires data: host directory { owner = 999  mode = 0o700 }
  container pg { image "postgres:16.4"  publish p  mount data.path -> "/var/lib/postgresql/data" }
  provides postgres { host = here.private_name  port = p.host_port  database = consumer.login  user = consumer.login }
}
"#;

/// What a test that needs the conformance sample says when it is absent.
pub const CONFORMANCE_ABSENT: &str = "no conformance sample at ../shared/conformance (the \
     specification's public sample, which a clone of this repository does not hold)";

/// The shared conformance suite, when it is beside the repository. Absent, a plain
/// `cargo test` skips what needs it (the caller says so); under CI it fails here.
pub fn conformance_dir() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/conformance");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !in_ci(),
        "the shared conformance suite is absent at {}, and CI is set: a CI run never skips it",
        dir.display()
    );
    None
}

/// A database holding `files` (name, text) and the standard library.
pub fn workspace(files: &[(String, String)]) -> (Database, Workspace) {
    Database::with_files(
        files
            .iter()
            .map(|(p, t)| (FilePath::from(p.as_str()), Arc::<str>::from(t.as_str()))),
    )
}

/// The names of the meshes declared in `file`, in source order.
pub fn meshes_in(db: &Database, ws: Workspace, file: &str) -> Vec<String> {
    meshc::resolve::meshes_in(&db::registry(db, ws), file)
}

/// What `meshc check` reports for the workspace: every file's diagnostics, then every
/// mesh's resolution.
pub fn check_workspace(files: &[(String, String)]) -> Vec<Diagnostic> {
    let (db, ws) = workspace(files);
    let mut out = Vec::new();
    for f in ws.files(&db).iter() {
        out.extend(db::check_file(&db, ws, *f).iter().cloned());
    }
    let reg = db::registry(&db, ws);
    for name in reg.meshes.keys() {
        let outcome = db::resolve_mesh(&db, ws, name.clone(), Lock::default());
        out.extend(outcome.diagnostics.iter().cloned());
    }
    out
}

/// What `meshc build FILE` gives: the outcome of each mesh of `file`, the workspace's
/// check diagnostics, and the exit status (1 on any error or anything left out).
pub struct Build {
    pub outcomes: Vec<Arc<MeshOutcome>>,
    pub check: Vec<Diagnostic>,
    pub exit: i32,
}

impl Build {
    /// Every manifest of every mesh built, by node.
    pub fn manifests(&self) -> Vec<&Manifest> {
        self.outcomes
            .iter()
            .flat_map(|o| o.manifests.values())
            .collect()
    }

    /// The manifest of `node`, as JSON (the bytes `meshc build` writes, read back).
    pub fn json(&self, node: &str) -> Option<Value> {
        self.outcomes
            .iter()
            .find_map(|o| o.manifests.get(node))
            .map(|m| serde_json::from_slice(&emit::manifest_bytes(m)).unwrap())
    }

    /// The bytes written for every node, in order.
    pub fn bytes(&self) -> Vec<(String, Vec<u8>)> {
        self.outcomes
            .iter()
            .flat_map(|o| o.manifests.iter())
            .map(|(n, m)| (n.clone(), emit::manifest_bytes(m)))
            .collect()
    }

    /// Every diagnostic: the workspace's and the meshes'.
    pub fn diagnostics(&self) -> Vec<&Diagnostic> {
        self.check
            .iter()
            .chain(self.outcomes.iter().flat_map(|o| o.diagnostics.iter()))
            .collect()
    }
}

/// Builds every mesh of `file` with `lock`.
pub fn build_with_lock(files: &[(String, String)], file: &str, lock: &Lock) -> Build {
    let (db, ws) = workspace(files);
    let mut check = Vec::new();
    for f in ws.files(&db).iter() {
        check.extend(db::check_file(&db, ws, *f).iter().cloned());
    }
    let outcomes: Vec<Arc<MeshOutcome>> = meshes_in(&db, ws, file)
        .into_iter()
        .map(|m| db::resolve_mesh(&db, ws, m, lock.clone()))
        .collect();
    let refused = check.iter().any(Diagnostic::is_error)
        || outcomes.is_empty()
        || outcomes.iter().any(|o| o.refused());
    Build {
        outcomes,
        check,
        exit: i32::from(refused),
    }
}

/// Builds every mesh of `file` with no lock.
pub fn build(files: &[(String, String)], file: &str) -> Build {
    build_with_lock(files, file, &Lock::default())
}

/// Resolves mesh `mesh` of the one file `file` of `files` as the build does, but told of
/// no checker error in any module: what the resolver does on its own when a caller
/// forgets to leave a module in error out.
pub fn resolve_told_of_no_error(
    files: &[(String, String)],
    file: &str,
    mesh: &str,
    manifests: bool,
) -> MeshOutcome {
    let (database, ws) = workspace(files);
    let reg = db::registry(&database, ws);
    let at = *reg.meshes.get(mesh).expect("the mesh is declared");
    let source = ws.files(&database)[at.file];
    let parsed = db::parse_file(&database, source);
    let meshc::syntax::ast::Item::Mesh(mesh_ast) = &parsed.file.items[at.item] else {
        panic!("`{mesh}` is not a mesh")
    };
    let path = FilePath::from(file);
    let module = |name: &str| db::module_source(&database, ws, name);
    let scope = |name: &str| db::module_scope_named(&database, ws, name);
    let specs = |name: &str| db::module_specs_named(&database, ws, name);
    let no_errors = |_: &str| Vec::new();
    let lock = Lock::default();
    meshc::resolve::resolve_mesh(&meshc::resolve::ResolveInput {
        mesh: mesh_ast,
        path: &path,
        registry: &reg,
        module: &module,
        scope: &scope,
        specs: &specs,
        module_errors: &no_errors,
        lock: &lock,
        manifests,
        choices: false,
        sink: None,
        interrupt: &|| {},
    })
}

/// One `.mesh` file as a workspace.
pub fn one_file(name: &str, text: &str) -> Vec<(String, String)> {
    vec![(name.to_string(), text.to_string())]
}

/// Every `.mesh` file of a folder, sorted, as (name, text).
pub fn read_mesh_files(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension().is_some_and(|x| x == "mesh")).then(|| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
        })
        .collect();
    out.sort();
    out
}

/// What `meshc check` reports for a workspace of the one case file `name`: every file's
/// diagnostics and every mesh's, the case's `--deny` flags applied, in the command line's
/// order (by file, place, code and message, duplicates dropped).
pub fn case_diagnostics(name: &str, text: &str, h: &CaseHeader) -> Vec<Diagnostic> {
    let (db, ws) = workspace(&one_file(name, text));
    let mut diags = db::workspace_diagnostics(&db, ws);
    h.raise(&mut diags);
    meshc::diagnostics::put_in_order(&mut diags);
    diags
}

/// `diags` of the one case file `name` as `meshc check` prints them, without colour.
pub fn render_human(name: &str, text: &str, diags: &[Diagnostic]) -> String {
    let mut sources: std::collections::HashMap<FilePath, Arc<str>> = Default::default();
    sources.insert(name.into(), Arc::from(text));
    sources.insert(db::STDLIB_PATH.into(), Arc::from(db::STDLIB_TEXT));
    meshc::diagnostics::render::to_human(diags, &sources, false)
}

/// The places of the one case file `name` that may hold a secret, as `meshc` masks them
/// when it shows source: the checker's secret places and every diagnostic's own.
pub fn secret_places(name: &str, text: &str, diags: &[Diagnostic]) -> Vec<meshc::span::Span> {
    let path = FilePath::from(name);
    let mut places = meshc::check::secrets::secret_spans_of_texts([(&path, text)])
        .remove(&path)
        .unwrap_or_default();
    places.extend(
        diags
            .iter()
            .filter(|d| d.file == path)
            .flat_map(Diagnostic::redacted),
    );
    places
}

/// Runs one case in process as `meshc check` would (resolution included); `Err` says
/// what failed. Only the `--deny` flags can be honoured in process: a case with any
/// other flag fails here, and belongs where the command-line runner reads it.
pub fn run_check_case(name: &str, text: &str) -> Result<(), String> {
    let h = case_header(text)?;
    check_case(name, text, &h).1
}

/// Runs one case whose header is `h`: its diagnostics, and whether they are what the
/// header says.
pub fn check_case(name: &str, text: &str, h: &CaseHeader) -> (Vec<Diagnostic>, Result<(), String>) {
    if !h.other_flags.is_empty() {
        let why = format!(
            "`// flags: {}` cannot be honoured in process; put the case where the command-line runner (tests/cases/check/) reads it",
            h.flags.join(" ")
        );
        return (Vec::new(), Err(why));
    }
    let diags = case_diagnostics(name, text, h);
    let seen: Vec<Seen> = diags.iter().map(Seen::of).collect();
    let exit = i32::from(diags.iter().any(Diagnostic::is_error));
    let verdict = judge(h, &seen, exit);
    (diags, verdict)
}

/// A path into a manifest: `a.b[k=v][0].c`.
enum Step {
    Key(String),
    Index(usize),
    Select(String, String),
}

fn parse_path(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let mut name = String::new();
    let chars: Vec<char> = path.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                if !name.is_empty() {
                    out.push(Step::Key(std::mem::take(&mut name)));
                }
                i += 1;
            }
            '[' => {
                if !name.is_empty() {
                    out.push(Step::Key(std::mem::take(&mut name)));
                }
                let j = i + chars[i..].iter().position(|&c| c == ']').unwrap();
                let inner: String = chars[i + 1..j].iter().collect();
                if let Ok(n) = inner.parse::<usize>() {
                    out.push(Step::Index(n));
                } else {
                    let (k, v) = inner.split_once('=').unwrap();
                    out.push(Step::Select(k.to_string(), v.to_string()));
                }
                i = j + 1;
            }
            c => {
                name.push(c);
                i += 1;
            }
        }
    }
    if !name.is_empty() {
        out.push(Step::Key(name));
    }
    out
}

fn python_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        other => other.to_string(),
    }
}

/// The value at `path` in `doc`, as the conformance runner selects it.
pub fn lookup<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = doc;
    for step in parse_path(path) {
        cur = match step {
            Step::Key(k) => cur.as_object()?.get(&k)?,
            Step::Index(n) => cur.as_array()?.get(n)?,
            Step::Select(k, v) => cur
                .as_array()?
                .iter()
                .find(|e| e.get(&k).is_some_and(|x| python_str(x) == v))?,
        };
    }
    Some(cur)
}

/// Runs one build case folder (`*.mesh` and `expect.json`); `Err` lists what failed.
pub fn run_build_case(dir: &Path) -> Result<(), String> {
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap()).unwrap();
    let files = read_mesh_files(dir);
    let file = spec["build"].as_str().unwrap();
    let b = build(&files, file);
    let mut problems = Vec::new();
    let want_exit = spec["exit"].as_i64().unwrap() as i32;
    if b.exit != want_exit {
        let ds: Vec<String> = b
            .diagnostics()
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        problems.push(format!(
            "exit {}, expected {want_exit}: {}",
            b.exit,
            ds.join(" | ")
        ));
    }
    for a in spec["asserts"].as_array().unwrap() {
        let node = a["node"].as_str().unwrap();
        let path = a["path"].as_str().unwrap();
        let Some(doc) = b.json(node) else {
            problems.push(format!("no manifest for node {node}"));
            continue;
        };
        let got = lookup(&doc, path);
        let desc = format!("{node}:{path}");
        if let Some(want) = a.get("equals")
            && got != Some(want)
        {
            problems.push(format!("{desc} = {got:?}, expected {want}"));
        }
        if let Some(re) = a.get("matches").and_then(Value::as_str) {
            let re = regex::Regex::new(re).unwrap();
            if !got.is_some_and(|g| re.is_match(&python_str(g))) {
                problems.push(format!("{desc} = {got:?} does not match {re}"));
            }
        }
        if a.get("absent").and_then(Value::as_bool) == Some(true) && got.is_some() {
            problems.push(format!("{desc} should be absent, is {got:?}"));
        }
        if let Some(n) = a.get("len").and_then(Value::as_u64) {
            let len = got.and_then(|g| {
                g.as_array()
                    .map(Vec::len)
                    .or(g.as_object().map(|o| o.len()))
                    .or(g.as_str().map(|s| s.chars().count()))
            });
            if len != Some(n as usize) {
                problems.push(format!("{desc} has length {len:?}, expected {n}"));
            }
        }
        if let Some(other) = a.get("differs_from") {
            let other_doc = b
                .json(other["node"].as_str().unwrap())
                .unwrap_or(Value::Null);
            let other_val = lookup(&other_doc, other["path"].as_str().unwrap());
            if got.is_none() || got == other_val {
                problems.push(format!("{desc} = {got:?} should differ from {other_val:?}"));
            }
        }
    }
    if spec.get("deterministic").and_then(Value::as_bool) == Some(true) {
        let again = build(&files, file);
        if again.bytes() != b.bytes() {
            problems.push("two builds of the same input differ".into());
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
