//! Old forms (LANGUAGE.md §5.6): accepted, read as the new form they stand for, and
//! reported as warnings that show that new form, so `--old-forms` can list them and
//! `--deny old-forms` can refuse them.
//!
//! - W0401: a literal host path as a mount source.
//! - W0402: a legacy placeholder `${binding:req.field}`, `${setting:name}`,
//!   `${port:name}`, `${machine:fact}` or `${secret:name}`. Every other check reads it
//!   as the new form, so a legacy placeholder of a secret still taints its string.

use super::module::ModuleChecker;
use super::readings::{NodeFact, Reading};
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{OldForm, SyntaxError, UnknownField};
use crate::span::Span;
use crate::syntax::ast::{Ident, InterpRef, Reference};
use crate::syntax::string::LEGACY_KINDS;

/// The facts of a node that `${machine:fact}` reads: the `node` contract's fields
/// (`hostname` and `name` are old names for `private_name`, [`NodeFact::named`]).
const NODE_FACTS: [&str; 2] = ["private_name", "mesh_names"];

/// What a legacy placeholder reads, as the checker read it ([`ModuleChecker::legacy_reference`]).
pub(crate) enum LegacyRead {
    /// The new-form reference it stands for.
    Reads(Reference),
    /// `${machine:fact}` in a module with no `host node` requirement: a plain fact of the
    /// node the instance runs on, which resolution reads from the node itself.
    NodeFact,
    /// Nothing that can be told (reported).
    Refused,
}

impl ModuleChecker<'_, '_> {
    /// What a legacy placeholder reads, after reporting it (W0402); a fact a node lacks
    /// is refused too (E0105).
    pub(crate) fn legacy_reference(&mut self, interp: InterpRef<'_>, kind: &Ident) -> LegacyRead {
        // A legacy placeholder always holds one reference (the decoder makes it so).
        let Some(reference) = interp.reference() else {
            return LegacyRead::Refused;
        };
        let old = format!("${{{}:{}}}", kind.name, reference.dotted());
        if !LEGACY_KINDS.contains(&kind.name.as_str()) {
            let rule = SyntaxError::PlaceholderKind {
                kind: &kind.name,
                reference: &reference.dotted(),
            };
            self.cx.report(rule.at(self.cx.path, kind.span));
            return LegacyRead::Refused;
        }
        match self.scope.legacy_replacement(&kind.name, reference) {
            Some(new) => {
                let rule = OldForm::Placeholder {
                    old: &old,
                    new: &new,
                };
                self.cx.report(rule.at(self.cx.path, interp.span));
                match self.scope.legacy_reference(&kind.name, reference) {
                    Some(r) => LegacyRead::Reads(r),
                    None => LegacyRead::Refused,
                }
            }
            None => {
                // Only `${machine:fact}` lacks a replacement: there is no `host node`
                // requirement to read the fact from, so it is read from the node itself
                // (as written, an old form), when the node has that fact.
                let dotted = reference.dotted();
                let field = match dotted.as_str() {
                    "hostname" | "name" => "private_name",
                    other => other,
                };
                let rule = OldForm::NodeFact { old: &old, field };
                self.cx.report(rule.at(self.cx.path, interp.span));
                if let Some(fact) = NodeFact::named(field) {
                    self.readings.write(reference, Reading::NodeFact(fact));
                    return LegacyRead::NodeFact;
                }
                let rule = UnknownField::OfContract {
                    contract: "node",
                    field,
                    suggestion: crate::diagnostics::closest(field, NODE_FACTS),
                    fields: super::list_names(NODE_FACTS),
                };
                self.cx.report(rule.at(self.cx.path, interp.span));
                LegacyRead::Refused
            }
        }
    }

    /// W0401: `mount "/srv/data" -> …`, a host path written in the definition.
    pub(crate) fn literal_mount_source(
        &mut self,
        span: Span,
        host_path: &str,
        target: Option<&str>,
    ) {
        let name = target
            .and_then(|t| t.rsplit('/').find(|s| !s.is_empty()))
            .filter(|n| crate::syntax::string::is_ident(n))
            .unwrap_or("data");
        let rule = OldForm::HostPathMount { name, host_path };
        self.cx.report(rule.at(self.cx.path, span));
    }
}
