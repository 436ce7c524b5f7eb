//! Rendering `for NAME in ITERABLE TEMPLATE` (LANGUAGE.md §12.3): the template once per
//! consumer of the provider (by node name, then instance name, then requirement name) or
//! per element of a list, concatenated.
//!
//! A template part that reads a secret keeps its reference, so the loop's result is then
//! a template too; every reference read through a loop variable is named for its element
//! (`c.alpha_forge.password`, `x.0`), so two elements never share a name in the
//! template's references.

use super::evaluate::{Ctx, Evaluate, Resolved, TemplatePart};
use super::{Answer, InstanceId, World};
use crate::check::meaning::LoopRead;
use crate::check::registry::ContractInfo;
use crate::check::types::{Ty, Value};
use crate::syntax::ast::{ForExpr, Iterable, Name, Reference};

/// A loop variable bound to one element while its template is rendered.
#[derive(Debug, Clone)]
pub(crate) struct Binding<'m> {
    /// The instance whose definition holds the loop.
    pub instance: InstanceId,
    pub name: Name,
    /// The element's name in template references: `c.alpha_forge`, `c.alpha_forge.n.0`.
    pub label: String,
    pub value: Bound<'m>,
}

/// What a loop variable stands for.
#[derive(Debug, Clone)]
pub(crate) enum Bound<'m> {
    /// A consumer: the instance, its requirement answered by this provider, the contract.
    Consumer {
        consumer: InstanceId,
        requirement: &'m str,
        contract: &'m ContractInfo,
    },
    /// An element of a list.
    Item(Value, Ty),
}

/// The consumers instance `i` answers for `contract` and builds for: `(consumer,
/// requirement)` in a stable order (node name, instance name, requirement).
fn consumers_for<'m>(
    w: World<'_, 'm>,
    i: InstanceId,
    contract: &str,
) -> Vec<(InstanceId, &'m str)> {
    let mut out = Vec::new();
    for c in w.instances.ids() {
        if w.is_left_out(c) {
            continue;
        }
        let Some(m) = w.module_of(c) else { continue };
        for (&req, info) in &m.scope.requirements {
            if let Some(Answer::Module { provider, .. }) = w.answers[c].get(req)
                && *provider == i
                && info.contract_name() == Some(contract)
            {
                out.push((c, req));
            }
        }
    }
    out.sort_by(|a, b| {
        (w.node_name(a.0), &w.instances[a.0].name, a.1).cmp(&(
            w.node_name(b.0),
            &w.instances[b.0].name,
            b.1,
        ))
    });
    out
}

/// The binding of `name` in instance `i`'s loops, innermost first, with its index among
/// `bindings`.
pub(crate) fn binding<'e, 'm>(
    bindings: &'e [Binding<'m>],
    i: InstanceId,
    name: &str,
) -> Option<(usize, &'e Binding<'m>)> {
    bindings
        .iter()
        .enumerate()
        .rev()
        .find(|(_, b)| b.instance == i && b.name == name)
}

/// The name a template gives `reference`: its dotted text, the loop variable it
/// starts with replaced by the element's label.
pub(crate) fn reference_name<'m, E: Evaluate<'m> + ?Sized>(
    e: &E,
    i: InstanceId,
    reference: &Reference,
) -> String {
    let dotted = reference.dotted();
    let Some(first) = reference.segments.first() else {
        return dotted;
    };
    match binding(e.bindings(), i, &first.name) {
        Some((_, b)) => format!("{}{}", b.label, &dotted[first.name.len()..]),
        None => dotted,
    }
}

/// What `read` reads through loop binding `var` ([`crate::check::meaning`] told what the
/// reference's words name).
pub(crate) fn eval_loop_read<'m, E: Evaluate<'m> + ?Sized>(
    e: &mut E,
    var: usize,
    read: LoopRead<'_, 'm>,
) -> Option<Resolved> {
    let b = e.bindings().get(var)?.value.clone();
    match (b, read) {
        (Bound::Item(v, ty), LoopRead::Whole) => Some(Resolved::Plain(v, ty)),
        (Bound::Consumer { consumer, .. }, LoopRead::Meta { field, .. }) => {
            super::evaluate::consumer_text(e.world(), consumer, field)
        }
        (
            Bound::Consumer {
                consumer,
                requirement,
                ..
            },
            LoopRead::Given {
                field: Some(field), ..
            },
        ) => e.given_value(consumer, requirement, &field.name),
        (
            Bound::Consumer {
                consumer,
                requirement,
                ..
            },
            LoopRead::Answer { field, .. },
        ) => e.module_answer(consumer, requirement, &field.name),
        _ => None,
    }
}

/// Renders `f` in instance `i`'s scope.
pub(crate) fn eval_for<'m, E: Evaluate<'m> + ?Sized>(
    e: &mut E,
    i: InstanceId,
    ctx: Ctx<'m>,
    f: &ForExpr,
) -> Option<Resolved> {
    let template = f.template.as_ref()?;
    let prefix = e
        .bindings()
        .iter()
        .rev()
        .find(|b| b.instance == i)
        .map(|b| format!("{}.", b.label))
        .unwrap_or_default();
    let var = &f.var.name;
    let elements: Vec<(String, Bound<'m>)> = match f.iterable.as_ref()? {
        Iterable::Consumers { contract, .. } => {
            let name = contract.as_ref()?.name.as_str();
            let registry: &'m crate::check::registry::Registry = e.world().registry;
            let contract: &'m ContractInfo = registry.contracts.get(name)?;
            let w = e.world();
            let consumers = consumers_for(w, i, name);
            consumers
                .iter()
                .map(|&(c, req)| {
                    let login = &w.logins[c];
                    let twice = consumers
                        .iter()
                        .filter(|&&(o, _)| w.logins[o] == *login)
                        .count()
                        > 1;
                    let key = if twice {
                        format!("{login}.{req}")
                    } else {
                        login.clone()
                    };
                    (
                        format!("{prefix}{var}.{key}"),
                        Bound::Consumer {
                            consumer: c,
                            requirement: req,
                            contract,
                        },
                    )
                })
                .collect()
        }
        Iterable::List(r) => match e.eval_ref(i, ctx, r)? {
            Resolved::Plain(Value::List(items), Ty::List(inner)) => items
                .into_iter()
                .enumerate()
                .map(|(k, v)| {
                    (
                        format!("{prefix}{var}.{k}"),
                        Bound::Item(v, (*inner).clone()),
                    )
                })
                .collect(),
            Resolved::Plain(Value::List(items), _) => items
                .into_iter()
                .enumerate()
                .map(|(k, v)| {
                    let ty = v.ty();
                    (format!("{prefix}{var}.{k}"), Bound::Item(v, ty))
                })
                .collect(),
            _ => return None, // a secret or a value that is not a list: the checker's
        },
    };
    // `sep` is a plain literal (E0301 otherwise, the checker's): placed between
    // renderings, never after the last (LANGUAGE.md §14.2).
    let sep = match &f.sep {
        Some(s) => Some(s.as_plain()?),
        None => None,
    };
    let mut parts = Vec::new();
    for (k, (label, value)) in elements.into_iter().enumerate() {
        if k > 0
            && let Some(sep) = &sep
        {
            parts.push(TemplatePart::Text(sep.clone()));
        }
        e.bindings_mut().push(Binding {
            instance: i,
            name: var.clone(),
            label,
            value,
        });
        let rendered = e.string_parts(i, ctx, template);
        e.bindings_mut().pop();
        parts.extend(rendered?);
    }
    super::evaluate::finish_parts(parts)
}
