//! Rendering `for NAME in ITERABLE TEMPLATE` (LANGUAGE.md §12.3): the template once per
//! consumer of the provider (by node name, then instance name, then requirement name) or
//! per element of a list, concatenated.
//!
//! A template part that reads a secret keeps its reference, so the loop's result is then
//! a template too; every reference read through a loop variable is named for its element
//! (`c.alpha_forge.password`, `x.0`), so two elements never share a name in the
//! template's references.

use super::evaluate::{Ctx, Evaluate, Evaluation, Resolved, TemplatePart};
use super::{Answer, InstanceId, World};
use crate::check::readings::LoopReading;
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
    /// A consumer: the instance, and its requirement answered by this provider.
    Consumer {
        consumer: InstanceId,
        requirement: &'m str,
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

/// What `read` reads through loop binding `var`, in instance `i`'s definition (the
/// checker's reading told what the reference's words name: `check::readings`).
pub(crate) fn eval_loop_read<'m, E: Evaluate<'m> + ?Sized>(
    e: &mut E,
    i: InstanceId,
    var: usize,
    read: LoopReading,
) -> Evaluation {
    // `var` is the binding `eval_ref` found.
    let Some(b) = e.bindings().get(var).map(|b| b.value.clone()) else {
        return Err(e
            .passed_over(i, "E0104 (a loop variable read outside its loop)")
            .into());
    };
    match (b, read) {
        (Bound::Item(v, ty), LoopReading::Item) => Ok(Resolved::Plain(v, ty)),
        (Bound::Consumer { consumer, .. }, LoopReading::Meta(field)) => {
            e.consumer_field(i, consumer, field)
        }
        (
            Bound::Consumer {
                consumer,
                requirement,
                ..
            },
            LoopReading::Given { field },
        ) => e.given_value_at(consumer, requirement, field),
        (
            Bound::Consumer {
                consumer,
                requirement,
                ..
            },
            LoopReading::Answer { field },
        ) => e.module_answer_at(consumer, requirement, field),
        // The checker read a list's variable as its element and a consumer's as the
        // consumer's fields (E0105 otherwise).
        _ => Err(e.passed_over(i, "E0105").into()),
    }
}

/// Renders `f` in instance `i`'s scope.
pub(crate) fn eval_for<'m, E: Evaluate<'m> + ?Sized>(
    e: &mut E,
    i: InstanceId,
    ctx: Ctx<'m>,
    f: &ForExpr,
) -> Evaluation {
    // A loop the parser could not read whole: its syntax error was reported.
    let (Some(template), Some(iterable)) = (f.template.as_ref(), f.iterable.as_ref()) else {
        return Err(e.passed_over(i, "a syntax error").into());
    };
    let prefix = e
        .bindings()
        .iter()
        .rev()
        .find(|b| b.instance == i)
        .map(|b| format!("{}.", b.label))
        .unwrap_or_default();
    let var = &f.var.name;
    let elements: Vec<(String, Bound<'m>)> = match iterable {
        Iterable::Consumers { contract, .. } => {
            let Some(name) = contract.as_ref().map(|c| c.name.as_str()) else {
                return Err(e.passed_over(i, "a syntax error").into());
            };
            if !e.world().registry.contracts.contains_key(name) {
                // The consumers of a contract the workspace lacks (E0103).
                return Err(e.passed_over(i, "E0103").into());
            }
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
            // A secret or a value that is not a list (E0302, E0301).
            _ => return Err(e.passed_over(i, "E0302 or E0301").into()),
        },
    };
    // `sep` is a plain literal (E0301 otherwise): placed between renderings, never
    // after the last (LANGUAGE.md §14.2).
    let sep = match &f.sep {
        Some(s) => match s.as_plain() {
            Some(sep) => Some(sep),
            None => return Err(e.passed_over(i, "E0301").into()),
        },
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
    e.finished(i, parts)
}
