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

/// What walks a tree's spans: [`walk_file`] and [`walk_module`] call `span` on every
/// span of the tree, a node's before those of what it holds, in source order; and
/// `string` on every string literal, whose default visits the literal's spans
/// ([`walk_string`]). A visitor that reads strings as it goes overrides `string` and
/// calls [`walk_string`] itself, before or after reading.
pub trait VisitSpans {
    /// Called on every span.
    fn span(&mut self, span: &mut Span);

    /// Called on every string literal instead of [`walk_string`].
    fn string(&mut self, s: &mut StringLit) {
        walk_string(self, s);
    }

    /// Called on every reference (an expression's, an interpolation's, a `for`'s
    /// list), before its words' spans.
    fn reference(&mut self, _reference: &Reference) {}
}

/// A function called on every span.
struct Each<F>(F);

impl<F: FnMut(&mut Span)> VisitSpans for Each<F> {
    fn span(&mut self, span: &mut Span) {
        (self.0)(span);
    }
}

/// Calls `f` on every span of `module`: the module's, then each entry's in source order,
/// a node before what it holds.
pub fn module_spans_mut(module: &mut Module, f: &mut impl FnMut(&mut Span)) {
    walk_module(&mut Each(f), module);
}

/// Visits every span of `file`, its items in source order.
pub fn walk_file<V: VisitSpans + ?Sized>(v: &mut V, file: &mut SourceFile) {
    for item in &mut file.items {
        match item {
            Item::Contract(c) => contract(c, v),
            Item::Module(m) => walk_module(v, m),
            Item::Mesh(m) => mesh(m, v),
            Item::Seat(s) => {
                v.span(&mut s.span);
                ident(&mut s.name, v);
                opt_ident(&mut s.contract, v);
            }
        }
    }
}

/// Visits every span of `module`: the module's, then each entry's in source order.
pub fn walk_module<V: VisitSpans + ?Sized>(v: &mut V, module: &mut Module) {
    v.span(&mut module.span);
    ident(&mut module.name, v);
    for entry in &mut module.entries {
        match entry {
            ModuleEntry::Slug(s, span) => {
                v.span(span);
                string(s, v);
            }
            ModuleEntry::Requires(r) => requirement(r, v),
            ModuleEntry::Container(c) => container(c, v),
            ModuleEntry::Provides(p) => {
                v.span(&mut p.span);
                ident(&mut p.contract, v);
                for a in &mut p.answers {
                    v.span(&mut a.span);
                    ident(&mut a.field, v);
                    expr(&mut a.value, v);
                }
            }
        }
    }
}

/// Visits the spans of a string literal: its own, then each interpolation's and what
/// the interpolation holds.
pub fn walk_string<V: VisitSpans + ?Sized>(v: &mut V, s: &mut StringLit) {
    v.span(&mut s.span);
    for p in &mut s.parts {
        match p {
            StrPart::Text(_) => {}
            // Its span is the reference's with the braces around it.
            StrPart::Ref(r) => expr(r.expr_mut(), v),
            StrPart::Interp(i) => {
                v.span(&mut i.span);
                opt_ident(&mut i.legacy, v);
                expr(&mut i.expr, v);
            }
        }
    }
}

fn contract<V: VisitSpans + ?Sized>(c: &mut Contract, v: &mut V) {
    v.span(&mut c.span);
    ident(&mut c.name, v);
    opt_ident(&mut c.kind, v);
    for f in &mut c.fields {
        v.span(&mut f.span);
        opt_span(&mut f.given, v);
        ident(&mut f.name, v);
        if let Some(t) = &mut f.ty {
            type_expr(t, v);
        }
        for r in &mut f.refinements {
            refinement(r, v);
        }
        if let Some(d) = &mut f.default {
            expr(d, v);
        }
    }
}

fn mesh<V: VisitSpans + ?Sized>(m: &mut Mesh, v: &mut V) {
    v.span(&mut m.span);
    ident(&mut m.name, v);
    for e in &mut m.entries {
        match e {
            MeshEntry::Node(n) => {
                v.span(&mut n.span);
                ident(&mut n.name, v);
                for p in &mut n.props {
                    v.span(&mut p.span);
                    ident(&mut p.key, v);
                    expr(&mut p.value, v);
                }
            }
            MeshEntry::Seat(s) => {
                v.span(&mut s.span);
                ident(&mut s.seat, v);
                opt_ident(&mut s.instance, v);
                opt_ident(&mut s.node, v);
            }
            MeshEntry::Assign(a) => assign(a, v),
        }
    }
}

fn assign<V: VisitSpans + ?Sized>(a: &mut Assign, v: &mut V) {
    v.span(&mut a.span);
    ident(&mut a.module, v);
    opt_ident(&mut a.node, v);
    opt_ident(&mut a.instance, v);
    for e in &mut a.entries {
        v.span(&mut e.span);
        match &mut e.kind {
            AssignEntryKind::Value { name, value } => {
                ident(name, v);
                expr(value, v);
            }
            AssignEntryKind::Given {
                requirement,
                field,
                value,
            } => {
                ident(requirement, v);
                ident(field, v);
                expr(value, v);
            }
            AssignEntryKind::Pin {
                requirement,
                instance,
                node,
            } => {
                ident(requirement, v);
                ident(instance, v);
                opt_ident(node, v);
            }
            AssignEntryKind::Absent { requirement } => ident(requirement, v),
            AssignEntryKind::Place {
                requirement,
                at,
                node,
            } => {
                ident(requirement, v);
                expr(at, v);
                opt_ident(node, v);
            }
            AssignEntryKind::KeepNetwork { keyword, network } => {
                v.span(keyword);
                expr(network, v);
            }
            AssignEntryKind::Genesis { keyword } => v.span(keyword),
        }
    }
    opt_span(&mut a.block, v);
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

fn ident<V: VisitSpans + ?Sized>(i: &mut Ident, v: &mut V) {
    v.span(&mut i.span);
}

fn opt_ident<V: VisitSpans + ?Sized>(i: &mut Option<Ident>, v: &mut V) {
    if let Some(i) = i {
        ident(i, v);
    }
}

fn opt_span<V: VisitSpans + ?Sized>(s: &mut Option<Span>, v: &mut V) {
    if let Some(s) = s {
        v.span(s);
    }
}

fn requirement<V: VisitSpans + ?Sized>(r: &mut Requirement, v: &mut V) {
    v.span(&mut r.span);
    ident(&mut r.name, v);
    opt_span(&mut r.optional, v);
    opt_ident(&mut r.kind, v);
    match &mut r.body {
        RequirementBody::Operator(op) => {
            let OperatorBody {
                ty,
                refinements,
                default,
            } = &mut **op;
            if let Some(t) = ty {
                type_expr(t, v);
            }
            for r in refinements {
                refinement(r, v);
            }
            if let Some(d) = default {
                expr(d, v);
            }
        }
        RequirementBody::Contract {
            contract,
            narrowing,
            block,
        } => {
            opt_ident(contract, v);
            for n in narrowing {
                v.span(&mut n.span);
                ident(&mut n.field, v);
                match &mut n.kind {
                    NarrowingKind::Set(e) => expr(e, v),
                    NarrowingKind::Refine(rs) => {
                        for r in rs {
                            refinement(r, v);
                        }
                    }
                }
            }
            opt_span(block, v);
        }
    }
}

fn type_expr<V: VisitSpans + ?Sized>(t: &mut TypeExpr, v: &mut V) {
    v.span(&mut t.span);
    opt_span(&mut t.secret, v);
    match &mut t.base {
        BaseType::Named(i) => ident(i, v),
        BaseType::List(inner) => type_expr(inner, v),
        BaseType::Error => {}
    }
}

fn refinement<V: VisitSpans + ?Sized>(r: &mut Refinement, v: &mut V) {
    match r {
        Refinement::InRange(r) | Refinement::Len(r) => range(r, v),
        Refinement::InSet(s) => {
            v.span(&mut s.span);
            for value in &mut s.values {
                expr(value, v);
            }
        }
        Refinement::Matches(s) => string(s, v),
    }
}

fn range<V: VisitSpans + ?Sized>(r: &mut RangeLit, v: &mut V) {
    v.span(&mut r.span);
    if let Some(lo) = &mut r.lo {
        v.span(&mut lo.span);
    }
    if let Some(hi) = &mut r.hi {
        v.span(&mut hi.span);
    }
}

fn container<V: VisitSpans + ?Sized>(c: &mut Container, v: &mut V) {
    v.span(&mut c.span);
    ident(&mut c.name, v);
    for e in &mut c.entries {
        v.span(&mut e.span);
        match &mut e.kind {
            ContainerEntryKind::Image(s) => string(s, v),
            ContainerEntryKind::Command(x) | ContainerEntryKind::ImagePaths(x) => expr(x, v),
            ContainerEntryKind::User(u) => {
                expr(&mut u.uid, v);
                if let Some(g) = &mut u.gid {
                    v.span(&mut g.span);
                }
            }
            ContainerEntryKind::Health(h) => {
                expr(&mut h.argv, v);
                for o in &mut h.options {
                    v.span(&mut o.keyword);
                    expr(&mut o.value, v);
                }
            }
            ContainerEntryKind::After(names) => {
                for n in names {
                    ident(n, v);
                }
            }
            ContainerEntryKind::Env(entries) => {
                for env in entries {
                    v.span(&mut env.span);
                    ident(&mut env.key, v);
                    expr(&mut env.value, v);
                    if let Some(x) = &mut env.exposed {
                        v.span(&mut x.span);
                        if let Some(r) = &mut x.reason {
                            string(r, v);
                        }
                    }
                    when(&mut env.when, v);
                }
            }
            ContainerEntryKind::Mount(mount) => {
                let Mount {
                    source,
                    target,
                    read_only,
                } = &mut **mount;
                expr(source, v);
                if let Some(t) = target {
                    string(t, v);
                }
                opt_span(read_only, v);
            }
            ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                let FileEntry {
                    target,
                    owner,
                    mode,
                    value,
                } = &mut **file;
                string(target, v);
                if let Some(o) = owner {
                    v.span(&mut o.span);
                    v.span(&mut o.uid.span);
                    if let Some(g) = &mut o.gid {
                        v.span(&mut g.span);
                    }
                }
                if let Some(m) = mode {
                    v.span(&mut m.span);
                }
                expr(value, v);
            }
            ContainerEntryKind::Publish(i) => ident(i, v),
        }
        when(&mut e.when, v);
    }
}

fn when<V: VisitSpans + ?Sized>(w: &mut Option<Box<When>>, v: &mut V) {
    if let Some(w) = w {
        v.span(&mut w.span);
        ident(&mut w.requirement, v);
    }
}

fn string<V: VisitSpans + ?Sized>(s: &mut StringLit, v: &mut V) {
    v.string(s);
}

fn reference<V: VisitSpans + ?Sized>(r: &mut Reference, v: &mut V) {
    v.reference(r);
    // Its own span is its words' (`Reference::span`), kept nowhere else.
    for s in &mut r.segments {
        ident(s, v);
    }
}

fn expr<V: VisitSpans + ?Sized>(e: &mut Expr, v: &mut V) {
    match e {
        Expr::Str(s) => string(s, v),
        Expr::Int(i) => v.span(&mut i.span),
        Expr::Bool(_, s) | Expr::Error(s) => v.span(s),
        Expr::Ref(r) => reference(r, v),
        Expr::List(items, s) => {
            v.span(s);
            for i in items {
                expr(i, v);
            }
        }
        Expr::Range(r) => range(r, v),
        Expr::Call(c) => {
            v.span(&mut c.span);
            ident(&mut c.name, v);
            v.span(&mut c.parens);
            for a in &mut c.args {
                expr(a, v);
            }
        }
        Expr::For(x) => {
            v.span(&mut x.span);
            ident(&mut x.var, v);
            match &mut x.iterable {
                Some(Iterable::Consumers { keyword, contract }) => {
                    v.span(keyword);
                    opt_ident(contract, v);
                }
                Some(Iterable::List(r)) => reference(r, v),
                None => {}
            }
            if let Some(s) = &mut x.sep {
                string(s, v);
            }
            if let Some(t) = &mut x.template {
                string(t, v);
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
    fn every_span_of_a_whole_file_is_visited() {
        let text = format!(
            "contract store for module {{\n  given url: string len 1..8 = \"x\"\n  n: list[secret string]\n}}\nseat vault delivers secret\n{TEXT}mesh m {{\n  node a {{ private_name = \"a.internal\"  ports = 1..9 }}\n  seat vault = keeper on a\n  assign web to a as w {{\n    n = 3\n    db.port = 1\n    db from pg on a\n    x absent\n    p at 80 on a\n    keep_network \"net\"\n    genesis\n  }}\n}}\n"
        );
        let mut file = crate::syntax::parse(&crate::span::FilePath::from("t.mesh"), &text).file;
        assert_eq!(file.items.len(), 4);
        let mut visited = 0;
        walk_file(
            &mut Each(|s: &mut Span| {
                visited += 1;
                *s = Span {
                    start: 4_000_000,
                    end: 4_000_000,
                }
            }),
            &mut file,
        );
        let text = format!("{file:?}");
        let all = text.matches("Span {").count();
        let marked = text
            .matches("Span { start: 4000000, end: 4000000 }")
            .count();
        assert_eq!(all, marked, "{text}");
        assert_eq!(marked, visited);
        assert!(
            text.contains("KeepNetwork")
                && text.contains("Genesis")
                && text.contains("given: Some")
        );
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
