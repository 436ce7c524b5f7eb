//! What every name of a file means: the symbol index behind hover, go to definition, find
//! references, rename and semantic tokens.
//!
//! Symbols are named, not placed: `Requirement { module: "forge", name: "db" }` is the same
//! symbol in the module's file and in a mesh file that sets it, so cross-file queries
//! compare names and never spans of another file. The index places the semantic model's
//! readings on the file's words: a module's references from `db::module_references`, its
//! requirements and loops from `db::module_names`, a mesh's names from
//! `db::mesh_semantics` (which reads each assigned module's requirements without
//! positions, so salsa backdates it: typing inside one file re-indexes that file only).
//! The tree is read for where words are and what plain syntax they are (keywords,
//! properties, types), never for what a name means.

use meshc::check::semantics::{
    LoopOver, LoopReads, MeshReads, MeshSemantics, ModuleNames, ModuleSemantics, Reads,
};
use meshc::db::{
    SourceFile, Workspace, mesh_semantics, module_names, module_references, parse_file,
};
use meshc::span::Span;
use meshc::syntax::ast::{
    self, AssignEntryKind, ContainerEntryKind, Expr, Item, MeshEntry, ModuleEntry, NarrowingKind,
    Reference, RequirementBody, StringLit, TypeExpr,
};
use std::sync::Arc;

/// A named thing of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    Contract(String),
    Field {
        contract: String,
        field: String,
    },
    Module(String),
    Requirement {
        module: String,
        name: String,
    },
    Mesh(String),
    Node {
        mesh: String,
        node: String,
    },
    /// An assignment's instance; `node` is empty when the assignment names none.
    Instance {
        mesh: String,
        node: String,
        name: String,
    },
    Seat(String),
    /// A container or job of a module (LANGUAGE.md §14.1): declared by its block, named
    /// by `after` in the module's other containers and jobs.
    Container {
        module: String,
        name: String,
    },
    /// The variable of a `for` loop in a module, named by where the loop declares it
    /// (`at`, the byte offset of its name): two loops may use one name.
    LoopVar {
        module: String,
        name: String,
        at: u32,
    },
}

impl Symbol {
    /// The symbol's own name, as written where it is used.
    pub fn name(&self) -> &str {
        match self {
            Symbol::Contract(n) | Symbol::Module(n) | Symbol::Mesh(n) | Symbol::Seat(n) => n,
            Symbol::Field { field, .. } => field,
            Symbol::Requirement { name, .. }
            | Symbol::Instance { name, .. }
            | Symbol::Container { name, .. }
            | Symbol::LoopVar { name, .. } => name,
            Symbol::Node { node, .. } => node,
        }
    }

    /// What the symbol is, in a word, for messages.
    pub fn what(&self) -> &'static str {
        match self {
            Symbol::Contract(_) => "contract",
            Symbol::Field { .. } => "field",
            Symbol::Module(_) => "module",
            Symbol::Requirement { .. } => "requirement",
            Symbol::Mesh(_) => "mesh",
            Symbol::Node { .. } => "node",
            Symbol::Instance { .. } => "instance",
            Symbol::Seat(_) => "seat",
            Symbol::Container { .. } => "container",
            Symbol::LoopVar { .. } => "loop variable",
        }
    }
}

/// Whether an occurrence declares its symbol or uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Def,
    Ref,
}

/// One place a symbol is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    pub symbol: Symbol,
    pub role: Role,
    /// The instance an assignment declares by naming its module (`assign postgres to beta`
    /// declares instance `postgres` at the module's name).
    pub implicit: bool,
}

/// How a word that is no symbol reads, for semantic tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameClass {
    /// A keyword in its place (`module`, `requires`, a provider kind, `exposed`).
    Keyword,
    /// A type name (`string`, `port`, `list`).
    Type,
    /// An env key, a node property, `consumer.login`: a property that is no contract field.
    Property,
    /// A container's name.
    Container,
    /// A legacy placeholder's kind (`binding` in `${binding:db.host}`).
    Legacy,
    /// One of the language's functions (`url` in `url(db.password)`).
    Function,
}

/// A legacy placeholder `${kind:…}` in a module, with what it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyPlaceholder {
    /// The whole `${…}`.
    pub span: Span,
    pub module: String,
    pub kind: String,
    pub reference: Reference,
}

/// Every symbol occurrence and classified word of one file, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileIndex {
    pub occurrences: Vec<Occurrence>,
    pub names: Vec<(Span, NameClass)>,
    pub legacy: Vec<LegacyPlaceholder>,
    /// References of a module that its semantic model does not hold, so the index
    /// could tell nothing of them. Empty unless the checker skipped one: a test holds it
    /// empty over every fixture and the catalogue.
    pub unread: Vec<Span>,
}

impl FileIndex {
    /// The occurrence under byte `offset`: one that holds the offset, else one that ends
    /// there (a cursor just after a word). An explicit occurrence wins over an implicit one.
    pub fn at(&self, offset: u32) -> Option<&Occurrence> {
        let inside = |o: &&Occurrence| o.span.start <= offset && offset < o.span.end;
        let touching = |o: &&Occurrence| o.span.end == offset;
        let pick = |f: &dyn Fn(&&Occurrence) -> bool| {
            self.occurrences
                .iter()
                .filter(f)
                .min_by_key(|o| (o.implicit, o.span.end - o.span.start))
        };
        pick(&inside).or_else(|| pick(&touching))
    }

    /// Every occurrence of `symbol`.
    pub fn of<'a>(&'a self, symbol: &'a Symbol) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occurrences.iter().filter(move |o| &o.symbol == symbol)
    }
}

/// The index of one file.
#[salsa::tracked(returns(clone))]
pub fn file_index(db: &dyn salsa::Database, ws: Workspace, file: SourceFile) -> Arc<FileIndex> {
    let parsed = parse_file(db, file);
    let models: Vec<ItemModel> = parsed
        .file
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Item::Module(_) => ItemModel::Module(
                module_references(db, ws, file, i),
                module_names(db, file, i),
            ),
            Item::Mesh(_) => ItemModel::Mesh(mesh_semantics(db, ws, file, i)),
            _ => ItemModel::None,
        })
        .collect();
    Arc::new(index_file(&parsed.file, &models))
}

/// What the semantic model tells of one item of a file.
pub enum ItemModel {
    /// A module's references read (`db::module_references`) and its names in scope
    /// (`db::module_names`).
    Module(Arc<ModuleSemantics>, Option<Arc<ModuleNames>>),
    /// A mesh's names resolved (`db::mesh_semantics`).
    Mesh(Arc<MeshSemantics>),
    None,
}

/// Indexes a parsed file; `models` (by item) tells what each module's references and each
/// mesh's names read: the semantic model's reading, which the index turns into symbols
/// and token classes.
pub fn index_file(file: &ast::SourceFile, models: &[ItemModel]) -> FileIndex {
    let mut ix = Indexer {
        out: FileIndex::default(),
        model: None,
        names: None,
    };
    for (index, item) in file.items.iter().enumerate() {
        match item {
            Item::Contract(c) => ix.contract(c),
            Item::Module(m) => {
                if let Some(ItemModel::Module(model, names)) = models.get(index) {
                    ix.model = Some(model.clone());
                    ix.names = names.clone();
                }
                ix.module(m);
                ix.model = None;
                ix.names = None;
            }
            Item::Mesh(m) => {
                let model = match models.get(index) {
                    Some(ItemModel::Mesh(model)) => model.clone(),
                    _ => Arc::default(),
                };
                ix.mesh(m, &model)
            }
            Item::Seat(s) => {
                ix.def(&s.name, Symbol::Seat(s.name.name.to_string()));
                if let Some(c) = &s.contract {
                    ix.reference(c, Symbol::Contract(c.name.to_string()));
                }
            }
        }
    }
    ix.out
        .occurrences
        .sort_by_key(|o| (o.span.start, o.implicit));
    ix.out.names.sort_by_key(|(s, _)| s.start);
    ix.out
}

struct Indexer {
    out: FileIndex,
    /// The semantic model of the module being indexed: what each reference reads.
    model: Option<Arc<ModuleSemantics>>,
    /// The names of the module being indexed: its requirements and loops.
    names: Option<Arc<ModuleNames>>,
}

/// What a reference inside a module can read.
struct ModuleCtx<'a> {
    module: &'a str,
    /// The contract of the `provides` block being read, if any.
    provides: Option<&'a str>,
}

impl Indexer {
    fn push(&mut self, span: Span, symbol: Symbol, role: Role, implicit: bool) {
        self.out.occurrences.push(Occurrence {
            span,
            symbol,
            role,
            implicit,
        });
    }

    fn def(&mut self, id: &ast::Ident, symbol: Symbol) {
        self.push(id.span, symbol, Role::Def, false);
    }

    fn reference(&mut self, id: &ast::Ident, symbol: Symbol) {
        self.push(id.span, symbol, Role::Ref, false);
    }

    fn name(&mut self, span: Span, class: NameClass) {
        self.out.names.push((span, class));
    }

    fn ty(&mut self, ty: &TypeExpr) {
        match &ty.base {
            ast::BaseType::Named(id) => self.name(id.span, NameClass::Type),
            // The word `list` itself is classed by the semantic tokens (a word before `<`).
            ast::BaseType::List(inner) => self.ty(inner),
            ast::BaseType::Error => {}
        }
    }

    fn contract(&mut self, c: &ast::Contract) {
        let name = &c.name.name;
        self.def(&c.name, Symbol::Contract(name.to_string()));
        if let Some(k) = &c.kind {
            self.name(k.span, NameClass::Keyword);
        }
        for f in &c.fields {
            self.def(
                &f.name,
                Symbol::Field {
                    contract: name.to_string(),
                    field: f.name.name.to_string(),
                },
            );
            if let Some(t) = &f.ty {
                self.ty(t);
            }
        }
    }

    fn module(&mut self, m: &ast::Module) {
        let module = m.name.name.as_str();
        self.def(&m.name, Symbol::Module(module.to_string()));
        let ctx = ModuleCtx {
            module,
            provides: None,
        };
        for entry in &m.entries {
            match entry {
                ModuleEntry::Slug(..) => {}
                ModuleEntry::Requires(r) => {
                    self.def(
                        &r.name,
                        Symbol::Requirement {
                            module: module.to_string(),
                            name: r.name.name.to_string(),
                        },
                    );
                    if let Some(k) = &r.kind {
                        self.name(k.span, NameClass::Keyword);
                    }
                    match &r.body {
                        RequirementBody::Operator(op) => {
                            let meshc::syntax::ast::OperatorBody { ty, default, .. } = &**op;
                            if let Some(t) = ty {
                                self.ty(t);
                            }
                            if let Some(d) = default {
                                self.expr(d, &ctx);
                            }
                        }
                        RequirementBody::Contract {
                            contract,
                            narrowing,
                            ..
                        } => {
                            if let Some(c) = contract {
                                self.reference(c, Symbol::Contract(c.name.to_string()));
                            }
                            for n in narrowing {
                                if let Some(c) = contract {
                                    self.reference(
                                        &n.field,
                                        Symbol::Field {
                                            contract: c.name.to_string(),
                                            field: n.field.name.to_string(),
                                        },
                                    );
                                }
                                if let NarrowingKind::Set(e) = &n.kind {
                                    self.expr(e, &ctx);
                                }
                            }
                        }
                    }
                }
                ModuleEntry::Container(c) => {
                    self.name(c.name.span, NameClass::Container);
                    self.def(
                        &c.name,
                        Symbol::Container {
                            module: module.to_string(),
                            name: c.name.name.to_string(),
                        },
                    );
                    let mut whens: Vec<Span> = Vec::new();
                    for e in &c.entries {
                        self.when(e.when.as_deref(), &ctx, &mut whens);
                        self.container_entry(&e.kind, &ctx, &mut whens);
                        if let ContainerEntryKind::After(names) = &e.kind {
                            // A name of a container or job of the module: the checker
                            // tells the others (E0104).
                            for n in names.iter() {
                                let names = self.names.as_ref();
                                if names.is_some_and(|ns| {
                                    ns.containers.iter().any(|(c, _, _)| *c == n.name.as_str())
                                }) {
                                    self.reference(
                                        n,
                                        Symbol::Container {
                                            module: module.to_string(),
                                            name: n.name.to_string(),
                                        },
                                    );
                                }
                            }
                        }
                    }
                }
                ModuleEntry::Provides(p) => {
                    let contract = p.contract.name.as_str();
                    self.reference(&p.contract, Symbol::Contract(contract.to_string()));
                    let pctx = ModuleCtx {
                        provides: Some(contract),
                        ..ctx
                    };
                    for a in &p.answers {
                        self.reference(
                            &a.field,
                            Symbol::Field {
                                contract: contract.to_string(),
                                field: a.field.name.to_string(),
                            },
                        );
                        self.expr(&a.value, &pctx);
                    }
                }
            }
        }
    }

    /// `when NAME { … }`: the keyword, and the requirement it names, once per block
    /// (every entry of a block carries it).
    fn when(&mut self, when: Option<&ast::When>, ctx: &ModuleCtx<'_>, seen: &mut Vec<Span>) {
        let Some(w) = when else { return };
        if seen.contains(&w.span) {
            return;
        }
        seen.push(w.span);
        self.name(
            Span::new(w.span.start as usize, w.span.start as usize + "when".len()),
            NameClass::Keyword,
        );
        if self
            .names
            .as_ref()
            .is_some_and(|n| n.requirements.get(w.requirement.name.as_str()).is_some())
        {
            self.reference(
                &w.requirement,
                Symbol::Requirement {
                    module: ctx.module.to_string(),
                    name: w.requirement.name.to_string(),
                },
            );
        }
    }

    fn container_entry(
        &mut self,
        kind: &ContainerEntryKind,
        ctx: &ModuleCtx<'_>,
        whens: &mut Vec<Span>,
    ) {
        match kind {
            ContainerEntryKind::Image(s) => self.string(s, ctx),
            ContainerEntryKind::Command(e) | ContainerEntryKind::ImagePaths(e) => self.expr(e, ctx),
            ContainerEntryKind::User(u) => self.expr(&u.uid, ctx),
            ContainerEntryKind::Health(h) => {
                self.expr(&h.argv, ctx);
                for o in &h.options {
                    self.name(o.keyword, NameClass::Keyword);
                    self.expr(&o.value, ctx);
                }
            }
            ContainerEntryKind::After(_) => {}
            ContainerEntryKind::Env(entries) => {
                for e in entries {
                    self.when(e.when.as_deref(), ctx, whens);
                    self.name(e.key.span, NameClass::Property);
                    self.expr(&e.value, ctx);
                }
            }
            ContainerEntryKind::Mount(mount) => {
                let meshc::syntax::ast::Mount { source, target, .. } = &**mount;
                self.expr(source, ctx);
                if let Some(t) = target {
                    self.string(t, ctx);
                }
            }
            ContainerEntryKind::Secret(file) => {
                let meshc::syntax::ast::FileEntry { target, value, .. } = &**file;
                self.string(target, ctx);
                self.expr(value, ctx);
            }
            ContainerEntryKind::File(file) => {
                let meshc::syntax::ast::FileEntry { target, value, .. } = &**file;
                self.string(target, ctx);
                self.expr(value, ctx);
            }
            ContainerEntryKind::Publish(id) => self.reference(
                id,
                Symbol::Requirement {
                    module: ctx.module.to_string(),
                    name: id.name.to_string(),
                },
            ),
        }
    }

    fn expr(&mut self, e: &Expr, ctx: &ModuleCtx<'_>) {
        match e {
            Expr::Str(s) => self.string(s, ctx),
            Expr::Ref(r) => self.reference_expr(r, ctx),
            Expr::List(items, _) => {
                for i in items {
                    self.expr(i, ctx);
                }
            }
            Expr::Call(c) => {
                if meshc::functions::Func::from_name(&c.name.name).is_some() {
                    self.name(c.name.span, NameClass::Function);
                }
                for arg in &c.args {
                    self.expr(arg, ctx);
                }
            }
            Expr::For(f) => self.for_expr(f, ctx),
            Expr::Int(_) | Expr::Bool(..) | Expr::Range(_) | Expr::Error(_) => {}
        }
    }

    /// `for NAME in ITERABLE TEMPLATE`: the variable is declared at its name and read in
    /// the template.
    fn for_expr(&mut self, f: &ast::ForExpr, ctx: &ModuleCtx<'_>) {
        let start = f.span.start as usize;
        self.name(Span::new(start, start + "for".len()), NameClass::Keyword);
        let symbol = Symbol::LoopVar {
            module: ctx.module.to_string(),
            name: f.var.name.to_string(),
            at: f.var.span.start,
        };
        self.def(&f.var, symbol);
        match &f.iterable {
            Some(ast::Iterable::Consumers { keyword, contract }) => {
                self.name(*keyword, NameClass::Keyword);
                if let Some(c) = contract {
                    self.reference(c, Symbol::Contract(c.name.to_string()));
                }
            }
            Some(ast::Iterable::List(r)) => self.reference_expr(r, ctx),
            None => {}
        }
        if let Some(t) = &f.template {
            self.string(t, ctx);
        }
    }

    fn string(&mut self, s: &StringLit, ctx: &ModuleCtx<'_>) {
        for part in &s.parts {
            let Some(i) = part.interp() else { continue };
            let (Some(kind), Some(reference)) = (i.legacy, i.reference()) else {
                self.expr(i.expr, ctx);
                continue;
            };
            {
                {
                    self.name(kind.span, NameClass::Legacy);
                    self.out.legacy.push(LegacyPlaceholder {
                        span: i.span,
                        module: ctx.module.to_string(),
                        kind: kind.name.to_string(),
                        reference: reference.clone(),
                    });
                    // `${machine:fact}` names a fact, not a requirement.
                    if kind.name != "machine" {
                        self.reference_expr(reference, ctx);
                    }
                }
            }
        }
    }

    /// A reference: its words as the module's semantic model read them (the checker's
    /// reading, the resolver's too), turned into symbols.
    fn reference_expr(&mut self, r: &Reference, ctx: &ModuleCtx<'_>) {
        let Some(first) = r.segments.first() else {
            return;
        };
        let Some(reads) = self.model.as_ref().and_then(|m| {
            m.references
                .binary_search_by_key(&(r.span().start, r.span().end), |e| {
                    (e.span.start, e.span.end)
                })
                .ok()
                .map(|at| m.references[at].reads)
        }) else {
            self.out.unread.push(r.span());
            return;
        };
        // The words the model's reading names are the reference's own, by their place.
        let word = |i: usize| r.segments.get(i);
        let field = |contract: &str, field: &ast::Ident| Symbol::Field {
            contract: contract.to_string(),
            field: field.name.to_string(),
        };
        match reads {
            Reads::Nothing => {}
            Reads::Loop { decl, read, .. } => {
                let Some(lp) = self.names.as_ref().and_then(|n| n.loop_at(decl.start)) else {
                    return;
                };
                let symbol = Symbol::LoopVar {
                    module: ctx.module.to_string(),
                    name: lp.var.clone(),
                    at: decl.start,
                };
                let contract = match &lp.over {
                    LoopOver::Consumers(c) => c.clone(),
                    _ => None,
                };
                self.reference(first, symbol);
                match (read, contract) {
                    (LoopReads::Meta { .. }, _) => {
                        if let Some(w) = word(1) {
                            self.name(w.span, NameClass::Property);
                        }
                    }
                    (LoopReads::Given { .. }, Some(contract)) => {
                        if let Some(k) = word(1) {
                            self.name(k.span, NameClass::Keyword);
                        }
                        if let Some(f) = word(2) {
                            self.reference(f, field(&contract, f));
                        }
                    }
                    (LoopReads::Answer { .. }, Some(contract)) => {
                        if let Some(f) = word(1) {
                            self.reference(f, field(&contract, f));
                        }
                    }
                    _ => {}
                }
            }
            Reads::Requirement { req } | Reads::OperatorValue { req } => {
                self.requirement_ref(first, ctx, req as usize, None)
            }
            Reads::ContractField { req, .. } => {
                self.requirement_ref(first, ctx, req as usize, word(1))
            }
            Reads::Consumer { .. } => {
                self.name(first.span, NameClass::Keyword);
                if let Some(w) = word(1) {
                    self.name(w.span, NameClass::Property);
                }
            }
            Reads::Given { .. } => {
                self.name(first.span, NameClass::Keyword);
                if let (Some(f), Some(contract)) = (word(1), ctx.provides) {
                    self.reference(f, field(contract, f));
                }
            }
        }
    }

    /// Requirement `req` of the module read at `first`, and the contract's field it reads.
    fn requirement_ref(
        &mut self,
        first: &ast::Ident,
        ctx: &ModuleCtx<'_>,
        req: usize,
        field: Option<&ast::Ident>,
    ) {
        self.reference(
            first,
            Symbol::Requirement {
                module: ctx.module.to_string(),
                name: first.name.to_string(),
            },
        );
        let contract = self
            .names
            .as_ref()
            .and_then(|n| n.requirements.requirements.get(req))
            .and_then(|r| r.contract.clone());
        if let (Some(field), Some(contract)) = (field, contract) {
            self.reference(
                field,
                Symbol::Field {
                    contract,
                    field: field.name.to_string(),
                },
            );
        }
    }

    /// A mesh: what each name reads, as the mesh's model resolved it; the tree tells only
    /// where the plain words are (node properties, `absent`, `keep_network`, `genesis`).
    fn mesh(&mut self, m: &ast::Mesh, model: &MeshSemantics) {
        let mesh = m.name.name.as_str();
        self.def(&m.name, Symbol::Mesh(mesh.to_string()));
        for entry in &m.entries {
            match entry {
                MeshEntry::Node(n) => {
                    for p in &n.props {
                        self.name(p.key.span, NameClass::Property);
                    }
                }
                MeshEntry::Seat(_) => {}
                MeshEntry::Assign(a) => {
                    for e in &a.entries {
                        match &e.kind {
                            AssignEntryKind::Absent { .. } => {
                                let end = e.span.end as usize;
                                self.name(
                                    Span::new(end.saturating_sub("absent".len()), end),
                                    NameClass::Keyword,
                                );
                            }
                            AssignEntryKind::KeepNetwork { keyword, .. }
                            | AssignEntryKind::Genesis { keyword } => {
                                self.name(*keyword, NameClass::Keyword);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        for r in &model.references {
            let name = r.name.as_str();
            let symbol = match &r.reads {
                MeshReads::Module => Symbol::Module(name.to_string()),
                MeshReads::Node => Symbol::Node {
                    mesh: mesh.to_string(),
                    node: name.to_string(),
                },
                MeshReads::Instance { node } => Symbol::Instance {
                    mesh: mesh.to_string(),
                    node: node.clone(),
                    name: name.to_string(),
                },
                MeshReads::Requirement { module, .. } => Symbol::Requirement {
                    module: module.clone(),
                    name: name.to_string(),
                },
                MeshReads::Field { contract } => Symbol::Field {
                    contract: contract.clone(),
                    field: name.to_string(),
                },
                MeshReads::Seat => Symbol::Seat(name.to_string()),
                MeshReads::Keyword => {
                    self.name(r.span, NameClass::Keyword);
                    continue;
                }
            };
            let role = if r.declares { Role::Def } else { Role::Ref };
            self.push(r.span, symbol, role, r.implicit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> FileIndex {
        let (database, ws) =
            meshc::db::Database::with_files([("t.mesh".into(), Arc::<str>::from(text))]);
        let file = ws.files(&database)[1];
        (*file_index(&database, ws, file)).clone()
    }

    fn at<'a>(ix: &'a FileIndex, text: &str, needle: &str) -> &'a Occurrence {
        let off = text.find(needle).expect("needle") as u32;
        ix.at(off).expect("occurrence")
    }

    #[test]
    fn references_inside_strings_and_assignments() {
        let text = "module m {\n  requires db: module postgres\n  container c {\n    env { A = \"x ${db.host}\" }\n  }\n}\nmesh lab {\n  node a { private_name = \"a.lab.internal\" }\n  assign m to a { db from pg on a }\n  assign pg to a\n}\n";
        let ix = index(text);
        assert_eq!(
            at(&ix, text, "db.host").symbol,
            Symbol::Requirement {
                module: "m".into(),
                name: "db".into()
            }
        );
        assert_eq!(
            at(&ix, text, "host}").symbol,
            Symbol::Field {
                contract: "postgres".into(),
                field: "host".into()
            }
        );
        assert_eq!(
            at(&ix, text, "db from").symbol,
            Symbol::Requirement {
                module: "m".into(),
                name: "db".into()
            }
        );
        let pin = at(&ix, text, "pg on").symbol.clone();
        assert_eq!(
            pin,
            Symbol::Instance {
                mesh: "lab".into(),
                node: "a".into(),
                name: "pg".into()
            }
        );
        // `assign pg to a` declares the instance implicitly, at the module's name.
        let defs: Vec<_> = ix.of(&pin).filter(|o| o.role == Role::Def).collect();
        assert_eq!(defs.len(), 1);
        assert!(defs[0].implicit);
        // The module wins over the implicit instance under the cursor.
        assert_eq!(at(&ix, text, "pg to").symbol, Symbol::Module("pg".into()));
    }
}
