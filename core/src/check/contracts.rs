//! Contract items (LANGUAGE.md §4), and the typed declarations contract fields share with
//! operator requirements: a type, refinements that apply to it, and a default that
//! satisfies them.

use super::Cx;
use super::expressions::{Slot, What, a_type, check_literal, contains_host_path};
use super::module::{Seen, duplicate};
use super::registry::{PROVIDER_KINDS, ProviderKind};
use super::types::{Constraint, TYPE_NAMES, Ty, Value, whole_match_regex};
use crate::diagnostics::rules::{
    Duplicate, GivenSecret, HostOrMeshContract, InvalidLiteral, NoPossibleValue, OtherProvider,
    ProviderKindError, SecretLiteral, TypeMismatch,
};
use crate::diagnostics::{Reported, Rule, closest};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, Refinement, TypeExpr};

/// Checks one contract: its provider kind, its fields' names, types, refinements and
/// defaults.
pub(crate) fn check_contract(cx: &mut Cx<'_>, contract: &ast::Contract) {
    // A refused kind is checked as `module` below.
    let kind = check_contract_kind(cx, contract).unwrap_or(None);
    let mut seen = Seen::new();
    for field in &contract.fields {
        if let Some(first) = seen.insert(&field.name.name, field.name.span) {
            let rule = Duplicate::Field {
                field: &field.name.name,
                contract: &contract.name.name,
                first,
            };
            duplicate(cx, field.name.span, rule);
            continue;
        }
        if let (Some(given), Some(secret)) = (field.given, field.ty.as_ref().and_then(|t| t.secret))
        {
            let rule = GivenSecret {
                field: &field.name.name,
                given,
            };
            cx.report(rule.at(cx.path, secret));
        }
        let owner = match kind {
            Some(k) => Owner::Field(k),
            None => Owner::Field(ProviderKind::Module),
        };
        check_declaration(
            cx,
            &field.name,
            field.ty.as_ref(),
            &field.refinements,
            field.default.as_ref(),
            owner,
        );
    }
}

/// The contract's provider kind, `None` when none is written; refused: E0201 for a kind
/// outside the closed set (or `operator`, which needs no contract), E0203 for a host or
/// mesh contract outside the standard library.
fn check_contract_kind(
    cx: &mut Cx<'_>,
    contract: &ast::Contract,
) -> Result<Option<ProviderKind>, Reported> {
    let Some(kind) = contract.kind.as_ref() else {
        return Ok(None);
    };
    match ProviderKind::from_name(&kind.name) {
        None => {
            let help = match closest(&kind.name, ["module", "host", "mesh"]) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "a contract you declare is answered by a module: write `for module`".into(),
            };
            let rule = ProviderKindError::Unknown {
                kind: &kind.name,
                help,
            };
            Err(cx.refuse(rule.at(cx.path, kind.span)))
        }
        Some(ProviderKind::Operator) => {
            let rule = ProviderKindError::OperatorContract;
            Err(cx.refuse(rule.at(cx.path, kind.span)))
        }
        Some(k @ (ProviderKind::Host | ProviderKind::Mesh)) if !cx.std => {
            let rule = HostOrMeshContract {
                contract: &contract.name.name,
                kind: &kind.name,
            };
            cx.report(rule.at(cx.path, kind.span));
            // Told, and checked as the kind written: the fields' checks go on.
            Ok(Some(k))
        }
        Some(k) => Ok(Some(k)),
    }
}

/// Who declares a typed value: a contract field (answered by its contract's kind), or an
/// operator requirement.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owner {
    Field(ProviderKind),
    Operator,
}

/// Checks a typed declaration: the type exists (E0301) and can be answered by its
/// owner (E0202 for a host path anywhere but a host contract), each refinement applies
/// to the type (E0301) and is well written (E0314), together they allow some value
/// (E0306), and the default is a literal that fits (E0301, E0314, E0304) and is no
/// secret (E0311).
pub(crate) fn check_declaration(
    cx: &mut Cx<'_>,
    name: &ast::Ident,
    ty: Option<&TypeExpr>,
    refinements: &[Refinement],
    default: Option<&Expr>,
    owner: Owner,
) {
    let Some(ty_expr) = ty else {
        return;
    };
    let ty = match Ty::from_ast(ty_expr) {
        Ok(t) => t,
        Err(ident) => {
            unknown_type(cx, ident, owner);
            return;
        }
    };
    if let Some(inner) = inner_secret(ty_expr) {
        cx.report(TypeMismatch::SecretElements { ty: &ty }.at(cx.path, inner));
        return;
    }
    if contains_host_path(&ty) {
        let answerer = match owner {
            Owner::Field(ProviderKind::Host) => None,
            Owner::Field(k) => Some(k.answerer()),
            Owner::Operator => Some("the operator"),
        };
        if let Some(answerer) = answerer {
            cx.report(OtherProvider::HostPath { answerer }.at(cx.path, ty_expr.span));
            return;
        }
    }
    let mut sound = true;
    for r in refinements {
        sound &= check_refinement_applies(cx, r, &ty, &name.name).is_ok();
    }
    let mut constraint = Constraint::of_type(&ty);
    constraint.refine(refinements);
    if sound && !refinements.is_empty() && constraint.is_empty() {
        let span = refinements[0]
            .span()
            .to(refinements[refinements.len() - 1].span());
        let rule = NoPossibleValue::Declared {
            name: &name.name,
            type_range: ty.inherent_range().map(|b| (a_type(&ty), b.to_string())),
        };
        cx.report(rule.at(cx.path, span));
        sound = false;
    }
    let Some(default) = default else {
        return;
    };
    let secret = ty_expr.secret.is_some();
    if Value::from_literal(default).is_none() {
        if !matches!(default, Expr::Error(_)) {
            let rule = TypeMismatch::DefaultNotLiteral { name: &name.name };
            cx.report(rule.at(cx.path, default.span()));
        }
        return;
    }
    if secret {
        let rule = SecretLiteral::Default { name: &name.name };
        cx.report(rule.at(cx.path, default.span()));
        return;
    }
    let found = literal_type(default);
    let what = What::Default(&name.name);
    if !found.fits(&ty) {
        let rule = TypeMismatch::Declared {
            expected: a_type(&ty),
            what: &what,
            found: a_type(&found),
            ty: &ty,
            decl: ty_expr.span,
        };
        cx.report(rule.at(cx.path, default.span()));
        return;
    }
    if sound {
        // The default is refused with its diagnostic; the declaration stands.
        let _ = check_literal(
            cx,
            default,
            &Slot {
                what,
                ty: &ty,
                constraint: &constraint,
                secret: false,
                decl: None,
            },
        );
    }
}

/// The span of a `secret` written inside a list type: `list<secret string>`.
fn inner_secret(ty: &TypeExpr) -> Option<Span> {
    let mut at = ty;
    while let ast::BaseType::List(inner) = &at.base {
        if let Some(s) = inner.secret {
            return Some(s);
        }
        at = inner;
    }
    None
}

/// The type of a literal expression, lists included.
fn literal_type(expr: &Expr) -> Ty {
    match expr {
        Expr::Str(_) => Ty::String,
        Expr::Int(_) => Ty::Int,
        Expr::Bool(..) => Ty::Bool,
        Expr::List(items, _) => Ty::List(Box::new(
            items.first().map(literal_type).unwrap_or(Ty::Error),
        )),
        Expr::For(_) => Ty::String,
        Expr::Ref(_) | Expr::Range(_) | Expr::Call(_) | Expr::Error(_) => Ty::Error,
    }
}

fn unknown_type(cx: &mut Cx<'_>, ident: &ast::Ident, owner: Owner) {
    let mut candidates: Vec<&str> = TYPE_NAMES.to_vec();
    candidates.push("list");
    let help = if let Some(s) = closest(&ident.name, candidates.iter().copied()) {
        format!("did you mean `{s}`?")
    } else if let (Owner::Operator, Some(c)) =
        (owner, cx.registry.contracts.get(ident.name.as_str()))
    {
        let kind = c.kind.map_or("module", ProviderKind::as_str);
        format!(
            "`{}` is a contract, answered by {}: write `{kind} {}` instead of `operator {}`",
            ident.name,
            c.kind.map_or("a module", ProviderKind::answerer),
            ident.name,
            ident.name
        )
    } else if PROVIDER_KINDS.contains(&ident.name.as_str()) {
        format!("`{}` is a provider kind, not a type", ident.name)
    } else {
        format!(
            "the types are {}, and `list<T>`",
            super::list_names(TYPE_NAMES.iter().copied())
        )
    };
    let rule = TypeMismatch::UnknownType {
        name: &ident.name,
        help,
    };
    cx.report(rule.at(cx.path, ident.span));
}

/// Whether a refinement applies to values of `ty` (E0301), and is well written: set
/// values of the type (E0301, E0314), a pattern that compiles (E0314). `ty` is known
/// (not [`Ty::Error`]: a caller whose type is unknown has nothing to check).
pub(crate) fn check_refinement_applies(
    cx: &mut Cx<'_>,
    r: &Refinement,
    ty: &Ty,
    name: &str,
) -> Result<(), Reported> {
    let textual = ty.is_textual();
    let (applies, what) = match r {
        Refinement::InRange(_) => (ty.is_int(), "`in A..B` bounds a number"),
        Refinement::Len(_) => (
            textual || matches!(ty, Ty::List(_)),
            "`len A..B` bounds the length of a string or a list",
        ),
        Refinement::Matches(_) => (textual, "`matches` applies to text"),
        Refinement::InSet(_) => (
            !matches!(ty, Ty::List(_) | Ty::HostPath),
            "`in {…}` lists values of a single value's type",
        ),
    };
    debug_assert!(*ty != Ty::Error, "the caller knows the type");
    if !applies {
        let rule = TypeMismatch::RefinementDoesNotApply {
            name,
            a_type: a_type(ty),
            what: what.into(),
        };
        return Err(cx.refuse(rule.at(cx.path, r.span())));
    }
    match r {
        Refinement::Matches(s) => check_pattern(cx, s),
        Refinement::InSet(set) => {
            // Every value is checked; the first refusal is the set's.
            let plain = Constraint::of_type(ty);
            let mut refused = Ok(());
            for v in &set.values {
                let checked = check_set_value(cx, v, ty, &plain, What::ValueOf(name));
                refused = refused.and(checked);
            }
            refused
        }
        Refinement::InRange(_) | Refinement::Len(_) => Ok(()),
    }
}

/// One value of an `in {…}` set: a literal of the field's type.
pub(crate) fn check_set_value(
    cx: &mut Cx<'_>,
    v: &Expr,
    ty: &Ty,
    constraint: &Constraint,
    what: What<'_>,
) -> Result<(), Reported> {
    if Value::from_literal(v).is_none() {
        let not_literal = || TypeMismatch::SetNotLiteral.at(cx.path, v.span());
        return Err(match v {
            // What failed to parse: the parser told it.
            Expr::Error(_) => {
                let d = not_literal();
                cx.syntax_refusal(|| d)
            }
            _ => {
                let d = not_literal();
                cx.refuse(d)
            }
        });
    }
    let found = literal_type(v);
    if !found.fits(ty) {
        let rule = TypeMismatch::SetElement {
            expected: a_type(ty),
            found: a_type(&found),
        };
        return Err(cx.refuse(rule.at(cx.path, v.span())));
    }
    check_literal(
        cx,
        v,
        &Slot {
            what,
            ty,
            constraint,
            secret: false,
            decl: None,
        },
    )
}

/// A `matches` pattern: plain text that compiles as a regular expression (E0314).
pub(crate) fn check_pattern(cx: &mut Cx<'_>, s: &ast::StringLit) -> Result<(), Reported> {
    let Some(pattern) = s.as_plain() else {
        return Err(cx.refuse(InvalidLiteral::PatternInterpolates.at(cx.path, s.span)));
    };
    match whole_match_regex(&pattern) {
        Ok(_) => Ok(()),
        Err(why) => Err(cx.refuse(InvalidLiteral::PatternNotRegex { why }.at(cx.path, s.span))),
    }
}

/// The span of a list of refinements, for E0306.
pub(crate) fn refinements_span(rs: &[Refinement]) -> Option<Span> {
    Some(rs.first()?.span().to(rs.last()?.span()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E0306 of a narrowing points at its refinements, from the first to the last.
    #[test]
    fn refinements_span_runs_from_the_first_refinement_to_the_last() {
        let text =
            "module a {\n  requires n: operator string len 1..5 matches \"[a-z]+\" = \"x\"\n}\n";
        let parsed = crate::syntax::parse(&crate::span::FilePath::from("case.mesh"), text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let Some(ast::Item::Module(m)) = parsed.file.items.first() else {
            panic!("no module parsed");
        };
        let r = m.requirements().next().expect("one requirement");
        let ast::RequirementBody::Operator(op) = &r.body else {
            panic!("not an operator requirement");
        };
        let refinements = &op.refinements;
        assert_eq!(refinements.len(), 2);
        let span = refinements_span(refinements).expect("a span");
        assert_eq!(
            &text[span.start as usize..span.end as usize],
            "len 1..5 matches \"[a-z]+\""
        );
        let one = refinements_span(&refinements[1..]).expect("a span");
        assert_eq!(
            &text[one.start as usize..one.end as usize],
            "matches \"[a-z]+\""
        );
        assert_eq!(refinements_span(&[]), None);
    }
}
