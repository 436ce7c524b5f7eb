//! What the fuzz targets share: turning bytes into a workspace, and the promise every
//! diagnostic keeps whatever the input: its spans lie inside its file, on character
//! boundaries.

use meshc::db::{Database, SourceFile, Workspace};
use meshc::span::FilePath;
use salsa::Setter as _;
use std::cell::RefCell;
use std::sync::Arc;

/// The tests' helpers: the formatter's (the tree with its positions erased, every
/// promise of a formatted text, shared with `compiler/tests/fmt.rs`) and the promise of
/// every diagnostic (shared with `compiler/tests/properties.rs`).
#[path = "../../compiler/tests/common/mod.rs"]
pub mod common;

pub use common::{assert_diagnostics_sound, assert_span_in, sources_of};

/// The byte that separates the files of a workspace in a fuzz input. It is never part of
/// valid UTF-8, so no text loses anything by it.
pub const FILE_SEPARATOR: u8 = 0xFF;

/// At most this many files are made of one input.
pub const MAX_FILES: usize = 3;

/// The input as text, invalid UTF-8 replaced (as the CLI's loader would refuse it, the
/// library never sees it).
pub fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A workspace of one to three files: the input split on [`FILE_SEPARATOR`], the last
/// file taking whatever follows the second separator.
pub fn workspace_of(bytes: &[u8]) -> Vec<(FilePath, Arc<str>)> {
    let parts: Vec<&[u8]> = bytes.splitn(MAX_FILES, |&b| b == FILE_SEPARATOR).collect();
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let path: FilePath = format!("f{i}.mesh").into();
            (path, Arc::from(text_of(part)))
        })
        .collect()
}

/// One database kept across executions, as in the language server: each input is set as
/// the texts of [`MAX_FILES`] files (the missing ones empty), so the standard library is
/// parsed once and every execution also exercises salsa's re-validation after an edit.
pub struct Session {
    pub db: Database,
    pub ws: Workspace,
    /// The workspace's files, the standard library's left out.
    pub files: Vec<SourceFile>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

impl Session {
    fn new() -> Session {
        let empty =
            (0..MAX_FILES).map(|i| (FilePath::from(format!("f{i}.mesh")), Arc::<str>::from("")));
        let (db, ws) = Database::with_files(empty);
        let files = ws.files(&db)[1..].to_vec();
        Session { db, ws, files }
    }
}

/// Sets the texts of this thread's [`Session`] to the workspace of `data`
/// ([`workspace_of`], the missing files empty) and runs `f` on it with those files.
pub fn in_session<R>(data: &[u8], f: impl FnOnce(&Session, &[(FilePath, Arc<str>)]) -> R) -> R {
    let mut files = workspace_of(data);
    while files.len() < MAX_FILES {
        files.push((format!("f{}.mesh", files.len()).into(), Arc::from("")));
    }
    SESSION.with(|cell| {
        let mut cell = cell.borrow_mut();
        let s = cell.get_or_insert_with(Session::new);
        for (input, (_, text)) in s.files.iter().zip(&files) {
            if input.text(&s.db) != text {
                input.set_text(&mut s.db).to(text.clone());
            }
        }
        f(s, &files)
    })
}

/// The texts of string literals written where a secret is expected, that the input holds
/// nowhere else and that are long enough not to turn up by chance in generated text: a
/// secret operator requirement's or contract field's default, a value assigned in a mesh
/// to a name that some module requires as a secret operator value, a secret field's
/// answer in `provides`. A manifest must hold none of them.
pub fn secret_literals(db: &meshc::db::Database, files: &[meshc::db::SourceFile]) -> Vec<String> {
    use meshc::syntax::ast::*;
    let parsed: Vec<_> = files
        .iter()
        .map(|f| meshc::db::parse_file(db, *f))
        .collect();
    let mut secret_operators: Vec<&str> = Vec::new();
    let mut secret_fields: Vec<&str> = Vec::new();
    let mut found: Vec<&StringLit> = Vec::new();
    fn strings<'a>(e: &'a Expr, out: &mut Vec<&'a StringLit>) {
        match e {
            Expr::Str(s) => out.push(s),
            Expr::List(items, _) => items.iter().for_each(|i| strings(i, out)),
            _ => {}
        }
    }
    for p in &parsed {
        for item in &p.file.items {
            match item {
                Item::Contract(c) => {
                    for f in &c.fields {
                        if f.ty.as_ref().is_some_and(|t| t.secret.is_some()) {
                            secret_fields.push(&f.name.name);
                            if let Some(d) = &f.default {
                                strings(d, &mut found);
                            }
                        }
                    }
                }
                Item::Module(m) => {
                    for e in &m.entries {
                        if let ModuleEntry::Requires(r) = e
                            && let RequirementBody::Operator(op) = &r.body
                            && op.ty.as_ref().is_some_and(|t| t.secret.is_some())
                        {
                            secret_operators.push(&r.name.name);
                            if let Some(d) = &op.default {
                                strings(d, &mut found);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for p in &parsed {
        for item in &p.file.items {
            match item {
                Item::Module(m) => {
                    for e in &m.entries {
                        if let ModuleEntry::Provides(p) = e {
                            for a in &p.answers {
                                if secret_fields.contains(&a.field.name.as_str()) {
                                    strings(&a.value, &mut found);
                                }
                            }
                        }
                    }
                }
                Item::Mesh(m) => {
                    for e in &m.entries {
                        if let MeshEntry::Assign(a) = e {
                            for entry in &a.entries {
                                if let AssignEntryKind::Value { name, value } = &entry.kind
                                    && secret_operators.contains(&name.name.as_str())
                                {
                                    strings(value, &mut found);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let all: String = files
        .iter()
        .map(|f| f.text(db).to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out: Vec<String> = found
        .into_iter()
        .filter_map(|s| s.as_plain())
        .filter(|t| t.chars().count() >= 8 && all.matches(t.as_str()).count() == 1)
        .collect();
    out.sort();
    out.dedup();
    out
}
