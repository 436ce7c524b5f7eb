//! `provides` blocks (LANGUAGE.md §5.5): a module answers a `for module` contract. Every
//! field the provider owes is answered (E0310), given fields are the consumer's (E0307),
//! secret fields are made per consumer, never written as literals (E0311), and a secret
//! answers only a secret field (E0302).

use super::expressions::{Place, Slot, What};
use super::module::{ModuleChecker, Seen, duplicate};
use super::registry::{ContractInfo, ProviderKind};
use super::scope::RefContext;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{Duplicate, OtherProvider, UnknownContract, UnknownField};
use crate::diagnostics::{Code, Diagnostic, closest};
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
            self.cx.report(rule.at(self.cx.path, p.contract.span));
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
            let mut d = Diagnostic::new(
                Code::E0310,
                self.cx.path,
                p.contract.span,
                format!(
                    "`provides {}` leaves {listed} unanswered",
                    contract.name
                ),
            )
            .with_help(format!(
                "answer every field the provider owes, like `{} = …`; given fields are the consumer's, and secret fields and fields with a default may be left out",
                missing[0]
            ));
            for name in &missing {
                let field = &contract.fields[*name];
                d = d.with_label_in(
                    &contract.file,
                    field.span,
                    format!("`{name}` is declared here"),
                );
            }
            self.cx.report(d);
        }
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
                    self.eval_names_skipping(&a.value, &["consumer", "given"]);
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
            self.cx.report(
                Diagnostic::new(
                    Code::E0307,
                    self.cx.path,
                    a.field.span,
                    format!(
                        "`{}` is given: the consumer sets it and the provider honours it",
                        field.name
                    ),
                )
                .with_label_in(&contract.file, field.span, "declared given here")
                .with_help(format!(
                    "remove this answer; read what the consumer set as `given.{}`",
                    field.name
                )),
            );
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
                let message = match &a.value {
                    Expr::Str(_) if !val.interpolated => {
                        format!("secret `{}` is written as a literal", field.name)
                    }
                    _ => format!("secret `{}` is answered with no secret part", field.name),
                };
                self.cx.report(
                    Diagnostic::new(Code::E0311, self.cx.path, a.value.span(), message)
                        .with_redacted(a.value.span())
                        .with_label_in(&contract.file, field.span, "declared secret here")
                        .with_help(format!(
                            "a secret answer is made for each consumer: leave `{}` out and the provider makes it, or pass through a secret of this module (a `module secret` requirement's `value`, an `operator secret` value)",
                            field.name
                        )),
                );
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
