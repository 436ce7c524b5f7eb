//! The semantic model of one module: what the checker learns of it, kept.
//!
//! [`module_semantics`] is where a module's scope is decided ([`ScopeTable::build`], the
//! one place) and every reference of the module is resolved: the checker reads the
//! module once, and what it learns (the scope, each reference's reading and type, its
//! diagnostics) is held in a [`ModuleSemantics`] instead of being thrown away. The
//! database keeps it per module (`db::module_semantics`); the file's diagnostics, the
//! resolver's scope and the editor's lookups ([`ModuleSemantics::at`]) read it.

use super::Cx;
use super::meaning::{ConsumerField, LoopRead, Read};
use super::registry::Registry;
use super::scope::ScopeTable;
use super::types::Ty;
use crate::diagnostics::Diagnostic;
use crate::span::{FilePath, Span};
use crate::syntax::ast;
use std::sync::Arc;

/// What the words of a reference name ([`Read`], owned): requirements and loop
/// variables by index, the words by their place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// The first word names nothing in scope.
    Nothing,
    /// Requirement `req` itself (by its index in the scope).
    Requirement { req: u32 },
    /// An operator requirement's value.
    OperatorValue { req: u32 },
    /// A field of a contract requirement; `known` when the contract has it.
    ContractField { req: u32, field: Span, known: bool },
    /// `consumer` inside `provides`, and the word after it.
    Consumer {
        word: Option<Span>,
        field: Option<ConsumerField>,
    },
    /// `given` inside `provides`, and the field after it.
    Given { field: Option<Span>, known: bool },
    /// Through loop variable `var` (the checker's index of the loop), declared at
    /// `decl` (the variable's name in its `for`).
    Loop {
        var: u32,
        decl: Span,
        read: LoopReads,
    },
}

/// What a reference reads through a loop variable ([`LoopRead`], owned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopReads {
    Whole,
    Meta {
        word: Span,
        field: ConsumerField,
    },
    Given {
        keyword: Span,
        field: Option<Span>,
        known: bool,
    },
    Answer {
        field: Span,
        known: bool,
    },
    Nothing,
}

impl Reads {
    /// What `read` names, owned; `decl` tells where a loop variable is declared.
    pub fn of(read: &Read<'_, '_>, decl: impl FnOnce(usize) -> Span) -> Reads {
        match *read {
            Read::Nothing => Reads::Nothing,
            Read::Requirement { req } => Reads::Requirement { req: req as u32 },
            Read::OperatorValue { req } => Reads::OperatorValue { req: req as u32 },
            Read::ContractField { req, field, info } => Reads::ContractField {
                req: req as u32,
                field: field.span,
                known: info.is_some(),
            },
            Read::Consumer { word, field } => Reads::Consumer {
                word: word.map(|w| w.span),
                field,
            },
            Read::Given { field, info } => Reads::Given {
                field: field.map(|f| f.span),
                known: info.is_some(),
            },
            Read::Loop { var, read } => Reads::Loop {
                var: var as u32,
                decl: decl(var),
                read: match read {
                    LoopRead::Whole => LoopReads::Whole,
                    LoopRead::Meta { word, field } => LoopReads::Meta {
                        word: word.span,
                        field,
                    },
                    LoopRead::Given {
                        keyword,
                        field,
                        info,
                    } => LoopReads::Given {
                        keyword: keyword.span,
                        field: field.map(|f| f.span),
                        known: info.is_some(),
                    },
                    LoopRead::Answer { field, info } => LoopReads::Answer {
                        field: field.span,
                        known: info.is_some(),
                    },
                    LoopRead::Nothing => LoopReads::Nothing,
                },
            },
        }
    }
}

/// One reference of the module, resolved by the checker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The reference as written (a legacy placeholder's: the placeholder's name).
    pub span: Span,
    /// What its words name.
    pub reads: Reads,
    /// The type of the value read; [`Ty::Error`] when it reads nothing.
    pub ty: Ty,
    /// Whether it reads nothing (the checker reported why, or the cause was reported
    /// where it is written).
    pub refused: bool,
}

/// What the checker learned of one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSemantics {
    /// The module's scope, decided once.
    pub scope: Arc<ScopeTable>,
    /// Every reference the checker read, by place.
    pub references: Vec<Resolved>,
    /// The module's diagnostics (its checks and its literals'), by place.
    pub diagnostics: Vec<Diagnostic>,
    /// Its containers lowered to typed specs, as its checks decided them
    /// (`check::specs`): what resolution builds containers from.
    pub specs: Arc<super::specs::ModuleSpecs>,
}

impl ModuleSemantics {
    /// The reference written over `offset` (its first character to just past its last).
    pub fn at(&self, offset: u32) -> Option<&Resolved> {
        let after = self.references.partition_point(|r| r.span.start <= offset);
        self.references[..after]
            .iter()
            .rev()
            .find(|r| offset <= r.span.end)
    }
}

/// The scope of `module`, decided against `registry`: the one place a module's
/// requirements are looked up and typed (the database's `module_scope` asks it, once per
/// module; so does [`super::check_items_in`], which keeps no database).
pub fn decide_scope(module: &ast::Module, registry: &Registry) -> ScopeTable {
    ScopeTable::build(module, registry)
}

/// The semantic model of `module`, written in `path`, in `scope` (its scope as
/// [`decide_scope`] decided it): its checks run (`std`: the file is the standard library's; `syntax`: the
/// file's syntax diagnostics, see [`super::check_items_in`]).
pub fn module_semantics(
    path: &FilePath,
    module: &ast::Module,
    scope: Arc<ScopeTable>,
    registry: &Registry,
    std: bool,
    syntax: &[Diagnostic],
) -> ModuleSemantics {
    let mut cx = Cx::new(path, registry, std, syntax);
    let (mut references, specs) = super::module::check_module(&mut cx, module, &scope);
    super::definition_rules::check_module_literals(&mut cx, module);
    let mut diagnostics = cx.sink.diagnostics;
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    // A reference read twice (its names again after a refusal) is one entry: the first.
    references.sort_by_key(|r| (r.span.start, r.span.end));
    references.dedup_by_key(|r| r.span);
    ModuleSemantics {
        scope,
        references,
        diagnostics,
        specs: Arc::new(specs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};

    const TEXT: &str = r#"
module app {
  requires db: module postgres
  requires workers: operator int = 4
  container app {
    image "nginx:1.27"
    env {
      HOST = db.host
      COUNT = "${workers}"
      NOPE = db.hots
    }
  }
}
"#;

    /// The model holds what the checker learned: every reference it read, its reading
    /// and its type, found by place; and the file's diagnostics are the model's.
    #[test]
    fn the_model_keeps_each_reference_its_reading_and_its_type() {
        use salsa::Setter as _;
        let (mut database, ws) =
            Database::with_files([(FilePath::from("a.mesh"), Arc::from(TEXT))]);
        ws.set_keep_references(&mut database).to(true);
        let file = ws.files(&database)[1];
        let model = db::module_semantics(&database, ws, file, 0);
        // `meshc` itself keeps none: it reads only the diagnostics.
        let (lean, lean_ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(TEXT))]);
        let lean_model = db::module_semantics(&lean, lean_ws, lean_ws.files(&lean)[1], 0);
        assert!(lean_model.references.is_empty());
        assert_eq!(lean_model.diagnostics, model.diagnostics);
        let at = |needle: &str| {
            let offset = TEXT.find(needle).unwrap() as u32;
            model.at(offset + 1).expect("a reference there").clone()
        };
        let host = at("db.host");
        assert_eq!(host.ty, Ty::Hostname);
        assert!(!host.refused);
        assert!(matches!(
            host.reads,
            Reads::ContractField {
                req: 0,
                known: true,
                ..
            }
        ));
        let workers = at("workers}");
        assert_eq!(workers.ty, Ty::Int);
        assert_eq!(workers.reads, Reads::OperatorValue { req: 1 });
        let typo = at("db.hots");
        assert!(typo.refused);
        assert_eq!(typo.ty, Ty::Error);
        // Nothing is read between references.
        assert!(model.at(TEXT.find("image").unwrap() as u32).is_none());
        // The refusal is the model's diagnostic, and the file's.
        assert_eq!(model.diagnostics.len(), 1, "{:?}", model.diagnostics);
        let checked = db::check_file(&database, ws, file);
        assert_eq!(*checked, model.diagnostics);
        // The scope is decided once: the model's and resolution's are one.
        let scope = db::module_scope_named(&database, ws, "app").unwrap();
        assert!(Arc::ptr_eq(&scope, &model.scope));
        assert_eq!(scope.requirements.len(), 2);
    }
}
