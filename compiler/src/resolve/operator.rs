//! Operator values (LANGUAGE.md §5.1, §7): the assignment's value, else the
//! requirement's default, else refused (E0501). A secret operator value is never written
//! in a mesh: the vault keeps it, and the instance reads a sealed reference.

use super::evaluate::{Ctx, Evaluate, Resolved};
use super::{Answer, InstanceId, Resolver};
use crate::diagnostics::Code;
use crate::emit::SealedRef;

impl<'m> Resolver<'m> {
    pub(super) fn compute_operator_value(
        &mut self,
        i: InstanceId,
        req: &'m str,
    ) -> Option<(Resolved, &'static str)> {
        let info = self.requirement(i, req)?;
        let op = info.operator.as_ref()?;
        if op.secret {
            let Some(Answer::SecretOperator { vault }) = self.answers[i].get(req) else {
                return None; // refused (E0504)
            };
            let by = self.instance_ref(*vault);
            let key = self.world().secret_key(i, req, "");
            return Some((Resolved::Sealed(Box::new(SealedRef { by, key })), "vault"));
        }
        if let Some(written) = self.entries.settings[i].values.get(req) {
            // `None`: written but refused where it was written (E0513).
            return written
                .clone()
                .map(|v| (Resolved::Plain(v, op.ty.clone()), "assignment"));
        }
        if let Some(default) = op.default {
            return match self.eval_expr(i, Ctx::Definition, default)? {
                Resolved::Plain(v, _) => Some((Resolved::Plain(v, op.ty.clone()), "default")),
                _ => None,
            };
        }
        let m = self.module_of(i)?;
        let d = self
            .diag(
                Code::E0501,
                self.head(i),
                format!(
                    "operator value `{req}` ({}) of instance `{}` on node `{}` is missing, and the requirement has no default",
                    op.ty,
                    self.instances[i].name,
                    self.node_name(i)
                ),
            )
            .with_label_in(&m.path, info.ast.span, "required here")
            .with_help(format!(
                "give it on the assignment: `assign {} to {}{} {{ {req} = … }}`, or give the requirement a default",
                m.name,
                self.node_name(i),
                match &self.instances[i].assign.instance {
                    Some(n) => format!(" as {}", n.name),
                    None => String::new(),
                }
            ));
        self.refuse(i, d);
        None
    }

    /// E0313 for a value that reads itself through other requirements or answers.
    pub(super) fn report_cycle(&mut self, i: InstanceId, what: &str) {
        let d = self
            .diag(
                Code::E0313,
                self.head(i),
                format!(
                    "`{what}` of {} reads itself: the requirements and answers it goes through form a cycle",
                    self.who(i)
                ),
            )
            .with_help("break the cycle: set one of the values it goes through directly");
        self.refuse(i, d);
    }
}
