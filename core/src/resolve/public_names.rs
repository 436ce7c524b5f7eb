//! Public names stay singular (ADR 0112): a public name (a given field `public_name`,
//! the route contract's) held by one assignment is refused to every later one, naming
//! the holder (E0507).

use super::InstanceId;
use super::evaluate::{Evaluate as _, Evaluator, Resolved};
use super::fx_hash::FxHashMap;
use crate::check::registry::ProviderKind;
use crate::check::types::Value;
use crate::diagnostics::rules::PublicNameTaken;

/// The given field that holds a public name.
pub(crate) const PUBLIC_NAME: &str = "public_name";

impl<'m> Evaluator<'_, '_, 'm> {
    /// Refuses every assignment asking for a public name an earlier one (in source
    /// order) holds. Names compare case-insensitively, a trailing dot ignored.
    pub(super) fn check_public_names(&mut self) {
        let mut held: FxHashMap<String, (InstanceId, &'m str)> = FxHashMap::default();
        for i in self.instances.ids() {
            self.interrupt();
            let Some(m) = self.module_of(i) else { continue };
            for (&req, info) in &m.scope.requirements {
                if info.kind != Some(ProviderKind::Module) {
                    continue;
                }
                let Some(contract) = info.contract.as_deref() else {
                    continue;
                };
                if !contract.fields.get(PUBLIC_NAME).is_some_and(|f| f.given) {
                    continue;
                }
                // A name refused, or of no value on the proof of why, holds no name.
                let Ok(Resolved::Plain(Value::Str(name), _)) =
                    self.given_value(i, req, PUBLIC_NAME)
                else {
                    continue;
                };
                let key = name.trim_end_matches('.').to_ascii_lowercase();
                match held.get(&key) {
                    Some(&(holder, holder_req)) => {
                        let (who, holder_who) = (self.who(i), self.who(holder));
                        let rule = PublicNameTaken {
                            name: &name,
                            requirement: req,
                            field: PUBLIC_NAME,
                            who: &who,
                            holder_who: &holder_who,
                            holder_requirement: holder_req,
                            held: self.public_name_span(holder, holder_req),
                        };
                        let d = self.at(self.public_name_span(i, req), rule);
                        let _refused = self.refuse(i, d);
                    }
                    None => {
                        held.insert(key, (i, req));
                    }
                }
            }
        }
    }

    /// Where `req.public_name` is written on instance `i`'s assignment, else its head.
    fn public_name_span(&self, i: InstanceId, req: &str) -> crate::span::Span {
        use crate::syntax::ast::AssignEntryKind;
        self.instances[i]
            .assign
            .entries
            .iter()
            .find(|e| {
                matches!(&e.kind, AssignEntryKind::Given { requirement, field, .. }
                    if requirement.name == req && field.name == PUBLIC_NAME)
            })
            .map(|e| e.span)
            .unwrap_or_else(|| self.head(i))
    }
}
