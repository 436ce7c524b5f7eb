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
use super::registry::HostContract;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{OldForm, SyntaxError, UnknownField};
use crate::span::Span;
use crate::syntax::ast::{Ident, InterpRef, Reference};
use crate::syntax::string::LEGACY_KINDS;

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
                let field = NodeFact::legacy_field(&dotted);
                if let Some(fact) = NodeFact::of_field(field) {
                    let rule = OldForm::NodeFact {
                        old: &old,
                        field: fact.field(),
                    };
                    self.cx.report(rule.at(self.cx.path, interp.span));
                    self.readings.write(reference, Reading::NodeFact(fact));
                    return LegacyRead::NodeFact;
                }
                // A fact no node has: refused alone, since the new form the warning would
                // show reads the same unknown field. The facts are the `node` contract's.
                let facts = || {
                    self.cx
                        .registry
                        .contracts
                        .get(HostContract::Node.as_str())
                        .into_iter()
                        .flat_map(|c| c.fields.keys().map(String::as_str))
                };
                let rule = UnknownField::OfContract {
                    contract: HostContract::Node.as_str(),
                    field,
                    // The old names are words a placeholder may still be meant to write.
                    suggestion: crate::diagnostics::closest(
                        field,
                        facts().chain(NodeFact::OLD_NAMES),
                    ),
                    fields: super::list_names(facts()),
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
