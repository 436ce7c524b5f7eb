//! Old forms (LANGUAGE.md §5.6): accepted, read as the new form they stand for, and
//! reported as warnings that show that new form, so `--old-forms` can list them and
//! `--deny old-forms` can refuse them.
//!
//! - W0401: a literal host path as a mount source.
//! - W0402: a legacy placeholder `${binding:req.field}`, `${setting:name}`,
//!   `${port:name}`, `${machine:fact}` or `${secret:name}`. Every other check reads it
//!   as the new form, so a legacy placeholder of a secret still taints its string.

use super::module::ModuleChecker;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{OldForm, SyntaxError};
use crate::span::Span;
use crate::syntax::ast::{Ident, InterpRef, Reference};
use crate::syntax::string::LEGACY_KINDS;

impl ModuleChecker<'_, '_> {
    /// The new-form reference a legacy placeholder stands for, after reporting it
    /// (W0402). `None` when it stands for nothing that can be told (reported too).
    pub(crate) fn legacy_reference(
        &mut self,
        interp: InterpRef<'_>,
        kind: &Ident,
    ) -> Option<Reference> {
        // A legacy placeholder always holds one reference (the decoder makes it so).
        let reference = interp.reference()?;
        let old = format!("${{{}:{}}}", kind.name, reference.dotted());
        if !LEGACY_KINDS.contains(&kind.name.as_str()) {
            let rule = SyntaxError::PlaceholderKind {
                kind: &kind.name,
                reference: &reference.dotted(),
            };
            self.cx.report(rule.at(self.cx.path, kind.span));
            return None;
        }
        match self.scope.legacy_replacement(&kind.name, reference) {
            Some(new) => {
                let rule = OldForm::Placeholder {
                    old: &old,
                    new: &new,
                };
                self.cx.report(rule.at(self.cx.path, interp.span));
                self.scope.legacy_reference(&kind.name, reference)
            }
            None => {
                // Only `${machine:fact}` lacks a replacement: there is no `host node`
                // requirement to read the fact from.
                let dotted = reference.dotted();
                let field = match dotted.as_str() {
                    "hostname" | "name" => "private_name",
                    other => other,
                };
                let rule = OldForm::NodeFact { old: &old, field };
                self.cx.report(rule.at(self.cx.path, interp.span));
                None
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
