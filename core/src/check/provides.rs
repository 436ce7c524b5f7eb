//! `provides` blocks (LANGUAGE.md §5.5): a module answers a `for module` contract. Every
//! field the provider owes is answered (E0310), given fields are the consumer's (E0307),
//! secret fields are made per consumer, never written as literals (E0311), and a secret
//! answers only a secret field (E0302).

use super::expressions::{Place, Slot, What};
use super::module::{ModuleChecker, Seen, duplicate};
use super::registry::{ContractInfo, ProviderKind};
use super::scope::RefContext;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{
    Duplicate, OtherProvider, ProviderField, SecretLiteral, Unanswered, UnknownContract,
    UnknownField,
};
use crate::diagnostics::{Reported, closest};
use crate::syntax::ast::{Answer, Expr, Provides};

impl<'a> ModuleChecker<'a, '_> {
    /// Every `provides` block of the module.
    pub(crate) fn check_provides(&mut self) {
        let module = self.module;
        let mut contracts = Seen::new();
        for p in module.provides() {
            if let Some(first) = contracts.insert(&p.contract.name, p.contract.span) {
                let rule = Duplicate::Provides {
                    module: &module.name.name,
                    contract: &p.contract.name,
                    first,
                };
                duplicate(self.cx, p.contract.span, rule);
                self.answer_names(p);
                continue;
            }
            self.check_provides_block(p);
        }
    }

    fn check_provides_block(&mut self, p: &'a Provides) {
        let registry = self.cx.registry;
        let Some(contract) = registry
            .contracts
            .get(p.contract.name.as_str())
            .map(|c| &**c)
        else {
            let _ = self.unknown_provided(p);
            self.answer_names(p);
            return;
        };
        let ctx = RefContext::Provides(contract);
        if let Some(kind) = contract.kind
            && kind != ProviderKind::Module
        {
            let rule = OtherProvider::Provides {
                contract: &contract.name,
                answered_by: kind.answerer(),
                kind: kind.as_str(),
                decl: (&contract.file, contract.name_span),
            };
            self.cx.report(rule.at(self.cx.path, p.contract.span));
            for a in &p.answers {
                self.eval_names(&a.value, ctx);
            }
            return;
        }
        let mut seen = Seen::new();
        for a in &p.answers {
            if let Some(first) = seen.insert(&a.field.name, a.field.span) {
                let rule = Duplicate::Answer {
                    field: &a.field.name,
                    first,
                };
                duplicate(self.cx, a.field.span, rule);
                self.eval_names(&a.value, ctx);
                continue;
            }
            self.check_answer(contract, a, ctx);
        }
        if contract.kind.is_none() || self.cx.is_broken(p.span) {
            // A contract of an unknown kind is reported where it is declared; a block
            // with a broken answer may hold the missing one.
            return;
        }
        let missing: Vec<&str> = contract
            .fields
            .values()
            .filter(|f| !f.given && !f.secret && f.default.is_none())
            .filter(|f| !seen.contains(&f.name))
            .map(|f| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            let listed = super::list_names(missing.iter().copied());
            let rule = Unanswered::Fields {
                contract: &contract.name,
                listed,
                file: &contract.file,
                fields: missing
                    .iter()
                    .map(|name| (*name, contract.fields[*name].span))
                    .collect(),
            };
            self.cx.report(rule.at(self.cx.path, p.contract.span));
        }
    }

    /// E0103 for the first `provides` block of a contract the workspace lacks, told once
    /// whoever asks first: the block's check, or a loop over the consumers of that
    /// contract (checked before the blocks).
    pub(crate) fn unknown_provided(&mut self, p: &Provides) -> Reported {
        if let Some(&(_, told)) = self
            .told_provides
            .iter()
            .find(|(at, _)| *at == p.contract.span)
        {
            return told;
        }
        let registry = self.cx.registry;
        let help = closest(
            &p.contract.name,
            registry
                .contracts
                .values()
                .filter(|c| c.kind == Some(ProviderKind::Module))
                .map(|c| c.name.as_str()),
        )
        .map(|s| format!("did you mean `{s}`?"))
        .unwrap_or_else(|| {
            format!(
                "declare it: `contract {} for module {{ … }}`",
                p.contract.name
            )
        });
        let rule = UnknownContract {
            name: &p.contract.name,
            help,
        };
        let told = self.cx.refuse(rule.at(self.cx.path, p.contract.span));
        self.told_provides.push((p.contract.span, told));
        told
    }

    /// The names the answers of a block not otherwise checked read: a duplicate block, or
    /// one of an unknown contract (where `consumer` and `given` are still in place).
    fn answer_names(&mut self, p: &'a Provides) {
        let registry = self.cx.registry;
        match registry.contracts.get(p.contract.name.as_str()) {
            Some(contract) => {
                for a in &p.answers {
                    self.eval_names(&a.value, RefContext::Provides(contract));
                }
            }
            None => {
                for a in &p.answers {
                    self.eval_names(&a.value, RefContext::ProvidesUnknown);
                }
            }
        }
    }

    fn check_answer(&mut self, contract: &'a ContractInfo, a: &'a Answer, ctx: RefContext<'a>) {
        let Some(field) = contract.fields.get(a.field.name.as_str()) else {
            let names = || contract.fields.keys().map(String::as_str);
            let rule = UnknownField::OfContract {
                contract: &contract.name,
                field: &a.field.name,
                suggestion: closest(&a.field.name, names()),
                fields: super::list_names(names()),
            };
            self.cx.report(rule.at(self.cx.path, a.field.span));
            self.eval_names(&a.value, ctx);
            return;
        };
        if field.given {
            let rule = ProviderField::AnswersGiven {
                field: &field.name,
                decl: (&contract.file, field.span),
            };
            self.cx.report(rule.at(self.cx.path, a.field.span));
            self.eval_names(&a.value, ctx);
            return;
        }
        let place = Place::Answer(&field.name);
        let val = self.eval(&a.value, place, ctx);
        if val.is_error() {
            return;
        }
        if field.secret {
            if val.secret.is_none() {
                let rule = SecretLiteral::Answer {
                    field: &field.name,
                    literal: matches!(&a.value, Expr::Str(_)) && !val.interpolated,
                    decl: (&contract.file, field.span),
                };
                self.cx.report(rule.at(self.cx.path, a.value.span()));
                return;
            }
        } else if let Some(taint) = val.secret {
            self.secret_refused(taint, place, &val);
            return;
        }
        self.check_fit(
            &a.value,
            &val,
            &Slot {
                what: What::Name(&field.name),
                ty: &field.ty,
                constraint: &field.constraint,
                secret: field.secret,
                decl: Some((&contract.file, field.span)),
            },
        );
    }
}
