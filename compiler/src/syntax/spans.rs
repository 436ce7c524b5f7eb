//! Every span of a module's tree, visited in one fixed order, and the module's
//! position-free form built on it.
//!
//! [`position_free`] replaces every position of a module's tree by its rank among the
//! tree's own positions (the distinct starts and ends of its spans, sorted), and drops
//! its doc comments. Two trees that differ only in where they sit in their file, in
//! whitespace or in plain comments give equal position-free trees. Ranks keep the order
//! of positions (a span before another, inside another, joined with another), so what
//! reads the position-free tree compares and joins spans as it would the real ones, and
//! [`Positions::place`] turns a span it reported back into the file's positions, read
//! from the current tree. `db::module_view` gives resolution modules in this form.

use super::ast::*;
use crate::span::Span;

/// Calls `f` on every span of `module`: the module's, then each entry's in source order,
/// a node before what it holds.
pub fn module_spans_mut(module: &mut Module, f: &mut impl FnMut(&mut Span)) {
    f(&mut module.span);
    ident(&mut module.name, f);
    for entry in &mut module.entries {
        match entry {
            ModuleEntry::Slug(s, span) => {
                f(span);
                string(s, f);
            }
            ModuleEntry::Requires(r) => requirement(r, f),
            ModuleEntry::Container(c) => container(c, f),
            ModuleEntry::Provides(p) => {
                f(&mut p.span);
                ident(&mut p.contract, f);
                for a in &mut p.answers {
                    f(&mut a.span);
                    ident(&mut a.field, f);
                    expr(&mut a.value, f);
                }
            }
        }
    }
}

/// The positions of a module's tree: the distinct starts and ends of its spans, sorted.
/// A rank (what [`position_free`] writes in place of a position) indexes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Positions(Vec<u32>);

impl Positions {
    /// The positions of `module`.
    pub fn of(module: &Module) -> Positions {
        let mut copy = module.clone();
        let mut all = Vec::new();
        module_spans_mut(&mut copy, &mut |s| {
            all.push(s.start);
            all.push(s.end);
        });
        all.sort_unstable();
        all.dedup();
        Positions(all)
    }

    /// The rank of `position` (a position of the tree).
    fn rank(&self, position: u32) -> u32 {
        self.0.partition_point(|&p| p < position) as u32
    }

    /// The span of the file that `span`, written in ranks, stands for. A rank past the
    /// last position (nothing the tree holds) is the module's end.
    pub fn place(&self, span: Span) -> Span {
        let at = |rank: u32| {
            self.0
                .get(rank as usize)
                .or(self.0.last())
                .copied()
                .unwrap_or(0)
        };
        Span {
            start: at(span.start),
            end: at(span.end),
        }
    }
}

/// `module` with every position replaced by its rank in [`Positions::of`] and its doc
/// comments dropped: what resolution reads of a module, equal across an edit that moves
/// nothing but positions.
pub fn position_free(module: &Module) -> Module {
    let positions = Positions::of(module);
    let mut out = module.clone();
    module_spans_mut(&mut out, &mut |s| {
        *s = Span {
            start: positions.rank(s.start),
            end: positions.rank(s.end),
        };
    });
    strip_docs(&mut out);
    out
}

fn strip_docs(module: &mut Module) {
    module.docs = Docs::default();
    for entry in &mut module.entries {
        match entry {
            ModuleEntry::Slug(..) => {}
            ModuleEntry::Requires(r) => r.docs = Docs::default(),
            ModuleEntry::Container(c) => {
                c.docs = Docs::default();
                for e in &mut c.entries {
                    e.docs = Docs::default();
                    if let ContainerEntryKind::Env(entries) = &mut e.kind {
                        for env in entries {
                            env.docs = Docs::default();
                        }
                    }
                }
            }
            ModuleEntry::Provides(p) => {
                p.docs = Docs::default();
                for a in &mut p.answers {
                    a.docs = Docs::default();
                }
            }
        }
    }
}

fn ident(i: &mut Ident, f: &mut impl FnMut(&mut Span)) {
    f(&mut i.span);
}

fn opt_ident(i: &mut Option<Ident>, f: &mut impl FnMut(&mut Span)) {
    if let Some(i) = i {
        ident(i, f);
    }
}

fn opt_span(s: &mut Option<Span>, f: &mut impl FnMut(&mut Span)) {
    if let Some(s) = s {
        f(s);
    }
}

fn requirement(r: &mut Requirement, f: &mut impl FnMut(&mut Span)) {
    f(&mut r.span);
    ident(&mut r.name, f);
    opt_span(&mut r.optional, f);
    opt_ident(&mut r.kind, f);
    match &mut r.body {
        RequirementBody::Operator(op) => {
            let OperatorBody {
                ty,
                refinements,
                default,
            } = &mut **op;
            if let Some(t) = ty {
                type_expr(t, f);
            }
            for r in refinements {
                refinement(r, f);
            }
            if let Some(d) = default {
                expr(d, f);
            }
        }
        RequirementBody::Contract {
            contract,
            narrowing,
            block,
        } => {
            opt_ident(contract, f);
            for n in narrowing {
                f(&mut n.span);
                ident(&mut n.field, f);
                match &mut n.kind {
                    NarrowingKind::Set(e) => expr(e, f),
                    NarrowingKind::Refine(rs) => {
                        for r in rs {
                            refinement(r, f);
                        }
                    }
                }
            }
            opt_span(block, f);
        }
    }
}

fn type_expr(t: &mut TypeExpr, f: &mut impl FnMut(&mut Span)) {
    f(&mut t.span);
    opt_span(&mut t.secret, f);
    match &mut t.base {
        BaseType::Named(i) => ident(i, f),
        BaseType::List(inner) => type_expr(inner, f),
        BaseType::Error => {}
    }
}

fn refinement(r: &mut Refinement, f: &mut impl FnMut(&mut Span)) {
    match r {
        Refinement::InRange(r) | Refinement::Len(r) => range(r, f),
        Refinement::InSet(s) => {
            f(&mut s.span);
            for v in &mut s.values {
                expr(v, f);
            }
        }
        Refinement::Matches(s) => string(s, f),
    }
}

fn range(r: &mut RangeLit, f: &mut impl FnMut(&mut Span)) {
    f(&mut r.span);
    if let Some(lo) = &mut r.lo {
        f(&mut lo.span);
    }
    if let Some(hi) = &mut r.hi {
        f(&mut hi.span);
    }
}

fn container(c: &mut Container, f: &mut impl FnMut(&mut Span)) {
    f(&mut c.span);
    ident(&mut c.name, f);
    for e in &mut c.entries {
        f(&mut e.span);
        match &mut e.kind {
            ContainerEntryKind::Image(s) => string(s, f),
            ContainerEntryKind::Command(x)
            | ContainerEntryKind::User(x)
            | ContainerEntryKind::ImagePaths(x) => expr(x, f),
            ContainerEntryKind::Env(entries) => {
                for env in entries {
                    f(&mut env.span);
                    ident(&mut env.key, f);
                    expr(&mut env.value, f);
                    if let Some(x) = &mut env.exposed {
                        f(&mut x.span);
                        if let Some(r) = &mut x.reason {
                            string(r, f);
                        }
                    }
                    when(&mut env.when, f);
                }
            }
            ContainerEntryKind::Mount(mount) => {
                let Mount {
                    source,
                    target,
                    read_only,
                } = &mut **mount;
                expr(source, f);
                if let Some(t) = target {
                    string(t, f);
                }
                opt_span(read_only, f);
            }
            ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                let FileEntry {
                    target,
                    owner,
                    mode,
                    value,
                } = &mut **file;
                string(target, f);
                if let Some(o) = owner {
                    f(&mut o.span);
                    f(&mut o.uid.span);
                    if let Some(g) = &mut o.gid {
                        f(&mut g.span);
                    }
                }
                if let Some(m) = mode {
                    f(&mut m.span);
                }
                expr(value, f);
            }
            ContainerEntryKind::Publish(i) => ident(i, f),
        }
        when(&mut e.when, f);
    }
}

fn when(w: &mut Option<Box<When>>, f: &mut impl FnMut(&mut Span)) {
    if let Some(w) = w {
        f(&mut w.span);
        ident(&mut w.requirement, f);
    }
}

fn string(s: &mut StringLit, f: &mut impl FnMut(&mut Span)) {
    f(&mut s.span);
    for p in &mut s.parts {
        if let StrPart::Interp(i) = p {
            f(&mut i.span);
            opt_ident(&mut i.legacy, f);
            expr(&mut i.expr, f);
        }
    }
}

fn reference(r: &mut Reference, f: &mut impl FnMut(&mut Span)) {
    f(&mut r.span);
    for s in &mut r.segments {
        ident(s, f);
    }
}

fn expr(e: &mut Expr, f: &mut impl FnMut(&mut Span)) {
    match e {
        Expr::Str(s) => string(s, f),
        Expr::Int(i) => f(&mut i.span),
        Expr::Bool(_, s) | Expr::Error(s) => f(s),
        Expr::Ref(r) => reference(r, f),
        Expr::List(items, s) => {
            f(s);
            for i in items {
                expr(i, f);
            }
        }
        Expr::Range(r) => range(r, f),
        Expr::Call(c) => {
            f(&mut c.span);
            ident(&mut c.name, f);
            f(&mut c.parens);
            for a in &mut c.args {
                expr(a, f);
            }
        }
        Expr::For(x) => {
            f(&mut x.span);
            ident(&mut x.var, f);
            match &mut x.iterable {
                Some(Iterable::Consumers { keyword, contract }) => {
                    f(keyword);
                    opt_ident(contract, f);
                }
                Some(Iterable::List(r)) => reference(r, f),
                None => {}
            }
            if let Some(t) = &mut x.template {
                string(t, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module_of(text: &str) -> Module {
        let parsed = crate::syntax::parse(&crate::span::FilePath::from("t.mesh"), text);
        match parsed.file.items.into_iter().next() {
            Some(Item::Module(m)) => m,
            other => panic!("a module: {other:?}"),
        }
    }

    const TEXT: &str = "/// The web.\nmodule web {\n  requires db: module postgres { port = 5432 }\n  requires n: operator int in 1..4 = 2\n  container web {\n    image \"web:${n}\"\n    env {\n      A = \"${db.host}:${db.port}\" exposed \"why\" when db\n      B = for c in consumers store: \"${c.login}\"\n      C = join([\"a\", db.user], \",\")\n    }\n    secret \"/run/s\" owner 1:2 mode 0o400 = db.password\n    mount \"/data\" -> \"/d\" read_only\n  }\n  /// What it gives.\n  provides store { url = db.host }\n}\n";

    /// Every span of `m`, in the visitor's order.
    fn spans(m: &Module) -> Vec<Span> {
        let mut copy = m.clone();
        let mut out = Vec::new();
        module_spans_mut(&mut copy, &mut |s| out.push(*s));
        out
    }

    #[test]
    fn every_span_of_the_tree_is_visited() {
        let m = module_of(TEXT);
        // With every visited span set to one value, the tree's debug form holds no other
        // span: none was missed.
        let mut copy = m.clone();
        module_spans_mut(&mut copy, &mut |s| {
            *s = Span {
                start: 4_000_000,
                end: 4_000_000,
            }
        });
        let text = format!("{copy:?}");
        let all = text.matches("Span {").count();
        let marked = text
            .matches("Span { start: 4000000, end: 4000000 }")
            .count();
        assert_eq!(all, marked, "{text}");
        assert_eq!(marked, spans(&m).len());
        assert!(marked > 60, "{marked}");
    }

    #[test]
    fn placing_the_position_free_spans_gives_the_tree_back() {
        let m = module_of(TEXT);
        let free = position_free(&m);
        let positions = Positions::of(&m);
        let placed: Vec<Span> = spans(&free)
            .into_iter()
            .map(|s| positions.place(s))
            .collect();
        assert_eq!(placed, spans(&m));
        // Ranks keep the order of positions: joining two spans joins their places.
        let (a, b) = (spans(&free)[3], spans(&free)[9]);
        let (ra, rb) = (spans(&m)[3], spans(&m)[9]);
        assert_eq!(positions.place(a.to(b)), ra.to(rb));
    }

    #[test]
    fn whitespace_comments_and_docs_leave_it_equal_and_a_value_does_not() {
        let a = module_of(TEXT);
        let moved = module_of(&format!(
            "// above\n\n{}",
            TEXT.replacen("  container web", "   container web", 1)
                .replacen("    env {", "    // a comment\n    env {", 1)
                .replacen("/// The web.", "/// The web server.", 1)
        ));
        assert_ne!(a, moved);
        assert_eq!(position_free(&a), position_free(&moved));
        let valued = module_of(&TEXT.replacen("0o400", "0o440", 1));
        assert_ne!(position_free(&a), position_free(&valued));
        let renamed = module_of(&TEXT.replacen("requires n:", "requires m:", 1));
        assert_ne!(position_free(&a), position_free(&renamed));
    }
}
