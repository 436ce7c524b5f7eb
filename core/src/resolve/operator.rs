//! Operator values (LANGUAGE.md §5.1, §7): the assignment's value, else the
//! requirement's default, else refused (E0501). A secret operator value is never written
//! in a mesh: the vault keeps it, and the instance reads a sealed reference.

use super::evaluate::{Ctx, Evaluate, Evaluation, Evaluator, OperatorValue, Resolved};
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
    ) -> Evaluation<OperatorValue> {
        // A key names an operator requirement of the module's scope.
        let (Some(op), Some(m)) = (info.operator.as_ref(), self.module_of(i)) else {
            return Err(self.passed_over(i, "E0104").into());
        };
        if op.secret {
            let Some(Answer::SecretOperator { vault }) = self.world.answers[i].get(req) else {
                // Refused where it was answered (E0504), on that proof.
                return Err(self.unanswered_requirement(i));
            };
            let by = self.world.instance_ref(*vault);
            let key = self.world().secret_key(i, req, "");
            return Ok((Resolved::Sealed(Box::new(SealedRef { by, key })), "vault"));
        }
        let written = &self.world.settings[i].values;
        if let Some(written) = (!written.is_empty()).then(|| written.get(req)).flatten() {
            // Refused where it was written (E0512, E0513): no value, on that proof.
            return match written {
                Ok(v) => Ok((Resolved::Plain(v.clone(), op.ty.clone()), "assignment")),
                Err(told) => Err((*told).into()),
            };
        }
        if let Some(default) = op.default {
            return match self.eval_expr(i, Ctx::Definition, default)? {
                Resolved::Plain(v, _) => Ok((Resolved::Plain(v, op.ty.clone()), "default")),
                // A secret or host path as a plain operator's default (E0302, E0303).
                _ => Err(self.passed_over(i, "E0302 or E0303").into()),
            };
        }
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
        Err(self.refuse(i, d).into())
    }

    /// E0313 for a value that reads itself through other requirements or answers.
    pub(super) fn report_cycle(&mut self, i: InstanceId, what: &str) -> Reported {
        let who = self.who(i);
        let d = self.at(self.head(i), RequirementCycle::Value { what, who: &who });
        self.refuse(i, d)
    }
}
