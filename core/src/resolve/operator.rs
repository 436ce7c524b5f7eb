//! Operator values (LANGUAGE.md §5.1, §7): the assignment's value, else the
//! requirement's default, else refused (E0501). A secret operator value is never written
//! in a mesh: the vault keeps it, and the instance reads a sealed reference.

use super::evaluate::{Ctx, Evaluate, Evaluator, Resolved};
use super::{Answer, InstanceId};
use crate::diagnostics::Reported;
use crate::diagnostics::rules::{Missing, RequirementCycle};
use crate::emit::SealedRef;

impl<'m> Evaluator<'_, '_, 'm> {
    pub(super) fn compute_operator_value(
        &mut self,
        i: InstanceId,
        req: &'m str,
        info: &'m crate::check::scope::ReqInfo<'m>,
    ) -> Option<(Resolved, &'static str)> {
        let op = info.operator.as_ref()?;
        if op.secret {
            let Some(Answer::SecretOperator { vault }) = self.world.answers[i].get(req) else {
                return None; // refused (E0504)
            };
            let by = self.world.instance_ref(*vault);
            let key = self.world().secret_key(i, req, "");
            return Some((Resolved::Sealed(Box::new(SealedRef { by, key })), "vault"));
        }
        let written = &self.world.settings[i].values;
        if let Some(written) = (!written.is_empty()).then(|| written.get(req)).flatten() {
            // Refused where it was written (E0512, E0513): no value.
            return written
                .clone()
                .ok()
                .map(|v| (Resolved::Plain(v, op.ty.clone()), "assignment"));
        }
        if let Some(default) = op.default {
            return match self.eval_expr(i, Ctx::Definition, default)? {
                Resolved::Plain(v, _) => Some((Resolved::Plain(v, op.ty.clone()), "default")),
                _ => None,
            };
        }
        let m = self.module_of(i)?;
        let rule = Missing::OperatorValue {
            requirement: req,
            ty: &op.ty,
            instance: &self.instances[i].name,
            node: self.node_name(i),
            module: &m.name,
            instance_as: self.instances[i]
                .assign
                .instance
                .as_ref()
                .map(|n| n.name.as_str()),
            decl: (&m.path, info.ast.span),
        };
        let d = self.at(self.head(i), rule);
        let _refused = self.refuse(i, d);
        None
    }

    /// E0313 for a value that reads itself through other requirements or answers.
    pub(super) fn report_cycle(&mut self, i: InstanceId, what: &str) -> Reported {
        let who = self.who(i);
        let d = self.at(self.head(i), RequirementCycle::Value { what, who: &who });
        self.refuse(i, d)
    }
}
