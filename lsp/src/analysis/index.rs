//! What every name of a file means: the symbol index behind hover, go to definition, find
//! references, rename and semantic tokens.
//!
//! Symbols are named, not placed: `Requirement { module: "forge", name: "db" }` is the same
//! symbol in the module's file and in a mesh file that sets it, so cross-file queries
//! compare names and never spans of another file. The index of a file depends on its own
//! tree and on [`module_shapes`] (which requirement of which module reads which contract),
//! a summary without spans that salsa backdates: typing inside one file re-indexes that
//! file only.

use indexmap::IndexMap;
use meshc::check::semantics::{LoopReads, ModuleSemantics, Reads};
use meshc::db::{SourceFile, Workspace, module_references, parse_file};
use meshc::span::Span;
use meshc::syntax::ast::{
    self, AssignEntryKind, ContainerEntryKind, Expr, Item, MeshEntry, ModuleEntry, NarrowingKind,
    Reference, RequirementBody, StrPart, StringLit, TypeExpr,
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

/// The requirements of one module: each one's provider kind and contract, as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleShape {
    pub requirements: IndexMap<String, RequirementShape>,
}

/// A requirement's kind and contract names, as written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequirementShape {
    pub kind: Option<String>,
    pub contract: Option<String>,
    /// The given fields the definition's narrowing sets (`route { target = … }`): an
    /// assignment may not set them again.
    pub fixed: Vec<String>,
}

/// Every module's requirements, by module name (the first definition of a name wins, as in
/// the registry).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModuleShapes {
    pub modules: IndexMap<String, ModuleShape>,
}

/// The shape of one module's requirements.
pub fn module_shape(module: &ast::Module) -> ModuleShape {
    let mut requirements = IndexMap::new();
    for r in module.requirements() {
        if requirements.contains_key(r.name.name.as_str()) {
            continue;
        }
        let (contract, fixed) = match &r.body {
            RequirementBody::Contract {
                contract,
                narrowing,
                ..
            } => (
                contract.as_ref().map(|c| c.name.to_string()),
                narrowing
                    .iter()
                    .filter(|n| matches!(n.kind, NarrowingKind::Set(_)))
                    .map(|n| n.field.name.to_string())
                    .collect(),
            ),
            RequirementBody::Operator { .. } => (None, Vec::new()),
        };
        requirements.insert(
            r.name.name.to_string(),
            RequirementShape {
                kind: r.kind.as_ref().map(|k| k.name.to_string()),
                contract,
                fixed,
            },
        );
    }
    ModuleShape { requirements }
}

/// Which requirement of which module reads which contract: a summary without spans, so an
/// edit that moves text but renames nothing leaves it equal and its readers memoized.
#[salsa::tracked(returns(clone))]
pub fn module_shapes(db: &dyn salsa::Database, ws: Workspace) -> Arc<ModuleShapes> {
    let mut shapes = ModuleShapes::default();
    for file in ws.files(db) {
        let parsed = parse_file(db, *file);
        for item in &parsed.file.items {
            if let Item::Module(m) = item
                && !shapes.modules.contains_key(m.name.name.as_str())
            {
                shapes
                    .modules
                    .insert(m.name.name.to_string(), module_shape(m));
            }
        }
    }
    Arc::new(shapes)
}

/// The index of one file.
#[salsa::tracked(returns(clone))]
pub fn file_index(db: &dyn salsa::Database, ws: Workspace, file: SourceFile) -> Arc<FileIndex> {
    let parsed = parse_file(db, file);
    let needs_shapes = parsed.file.items.iter().any(|i| matches!(i, Item::Mesh(_)));
    let shapes = if needs_shapes {
        module_shapes(db, ws)
    } else {
        Arc::new(ModuleShapes::default())
    };
    let models: Vec<Option<Arc<ModuleSemantics>>> = parsed
        .file
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            matches!(item, Item::Module(_)).then(|| module_references(db, ws, file, i))
        })
        .collect();
    Arc::new(index_file(&parsed.file, &shapes, &models))
}

/// Indexes a parsed file; `shapes` tells what the requirements an assignment names read,
/// `models` (by item) what each module's references read: the semantic model's reading
/// (`db::module_references`), which the index turns into symbols and token classes.
pub fn index_file(
    file: &ast::SourceFile,
    shapes: &ModuleShapes,
    models: &[Option<Arc<ModuleSemantics>>],
) -> FileIndex {
    let mut ix = Indexer {
        out: FileIndex::default(),
        model: None,
        loops: Vec::new(),
    };
    for (index, item) in file.items.iter().enumerate() {
        match item {
            Item::Contract(c) => ix.contract(c),
            Item::Module(m) => {
                ix.model = models.get(index).cloned().flatten();
                ix.module(m);
                ix.model = None;
                ix.loops.clear();
            }
            Item::Mesh(m) => ix.mesh(m, shapes),
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
    /// The module's `for` loops met so far: where each declares its variable, and the
    /// contract (as written) whose consumers it runs over.
    loops: Vec<LoopScope>,
}

/// A loop variable declared: its symbol, and the contract whose consumers it runs over.
struct LoopScope {
    symbol: Symbol,
    consumers_of: Option<String>,
}

/// What a reference inside a module can read.
struct ModuleCtx<'a> {
    module: &'a str,
    shape: &'a ModuleShape,
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
        let shape = module_shape(m);
        let ctx = ModuleCtx {
            module,
            shape: &shape,
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
                                if m.containers().any(|c| c.name.name == n.name) {
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
        if ctx
            .shape
            .requirements
            .contains_key(w.requirement.name.as_str())
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
        self.def(&f.var, symbol.clone());
        let mut consumers_of = None;
        match &f.iterable {
            Some(ast::Iterable::Consumers { keyword, contract }) => {
                self.name(*keyword, NameClass::Keyword);
                if let Some(c) = contract {
                    self.reference(c, Symbol::Contract(c.name.to_string()));
                    consumers_of = Some(c.name.to_string());
                }
            }
            Some(ast::Iterable::List(r)) => self.reference_expr(r, ctx),
            None => {}
        }
        self.loops.push(LoopScope {
            symbol,
            consumers_of,
        });
        if let Some(t) = &f.template {
            self.string(t, ctx);
        }
    }

    fn string(&mut self, s: &StringLit, ctx: &ModuleCtx<'_>) {
        for part in &s.parts {
            let StrPart::Interp(i) = part else { continue };
            let (Some(kind), Some(reference)) = (&i.legacy, i.reference()) else {
                self.expr(&i.expr, ctx);
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
                .binary_search_by_key(&(r.span.start, r.span.end), |e| (e.span.start, e.span.end))
                .ok()
                .map(|at| m.references[at].reads)
        }) else {
            self.out.unread.push(r.span);
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
                let Some(scope) = self.loops.iter().rev().find(|l| match &l.symbol {
                    Symbol::LoopVar { at, .. } => *at == decl.start,
                    _ => false,
                }) else {
                    return;
                };
                let (symbol, contract) = (scope.symbol.clone(), scope.consumers_of.clone());
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
        let contract = ctx
            .shape
            .requirements
            .get_index(req)
            .and_then(|(_, s)| s.contract.as_ref());
        if let (Some(field), Some(contract)) = (field, contract) {
            self.reference(
                field,
                Symbol::Field {
                    contract: contract.clone(),
                    field: field.name.to_string(),
                },
            );
        }
    }

    fn mesh(&mut self, m: &ast::Mesh, shapes: &ModuleShapes) {
        let mesh = m.name.name.as_str();
        self.def(&m.name, Symbol::Mesh(mesh.to_string()));
        let node_sym = |n: &ast::Ident| Symbol::Node {
            mesh: mesh.to_string(),
            node: n.name.to_string(),
        };
        // Where each instance lives, for pins that leave the node out.
        let mut instance_nodes: IndexMap<&str, Vec<&str>> = IndexMap::new();
        for a in m.assigns() {
            instance_nodes
                .entry(a.instance_name().name.as_str())
                .or_default()
                .push(a.node.as_ref().map_or("", |n| n.name.as_str()));
        }
        let instance_sym = |name: &ast::Ident, node: Option<&ast::Ident>| {
            let node = match node {
                Some(n) => n.name.to_string(),
                None => match instance_nodes.get(name.name.as_str()).map(Vec::as_slice) {
                    Some([only]) => (*only).to_string(),
                    _ => String::new(),
                },
            };
            Symbol::Instance {
                mesh: mesh.to_string(),
                node,
                name: name.name.to_string(),
            }
        };
        for entry in &m.entries {
            match entry {
                MeshEntry::Node(n) => {
                    self.def(&n.name, node_sym(&n.name));
                    for p in &n.props {
                        self.name(p.key.span, NameClass::Property);
                    }
                }
                MeshEntry::Seat(s) => {
                    self.reference(&s.seat, Symbol::Seat(s.seat.name.to_string()));
                    if let Some(i) = &s.instance {
                        self.reference(i, instance_sym(i, s.node.as_ref()));
                    }
                    if let Some(n) = &s.node {
                        self.reference(n, node_sym(n));
                    }
                }
                MeshEntry::Assign(a) => {
                    let module = a.module.name.as_str();
                    self.reference(&a.module, Symbol::Module(module.to_string()));
                    let node_name = a
                        .node
                        .as_ref()
                        .map_or(String::new(), |n| n.name.to_string());
                    let instance = Symbol::Instance {
                        mesh: mesh.to_string(),
                        node: node_name,
                        name: a.instance_name().name.to_string(),
                    };
                    match &a.instance {
                        Some(i) => self.def(i, instance),
                        None => self.push(a.module.span, instance, Role::Def, true),
                    }
                    if let Some(n) = &a.node {
                        self.reference(n, node_sym(n));
                    }
                    let shape = shapes.modules.get(module);
                    let req = |id: &ast::Ident| Symbol::Requirement {
                        module: module.to_string(),
                        name: id.name.to_string(),
                    };
                    let has = |id: &ast::Ident| {
                        shape.is_some_and(|s| s.requirements.contains_key(id.name.as_str()))
                    };
                    for e in &a.entries {
                        match &e.kind {
                            AssignEntryKind::Value { name, .. } => {
                                if name.name == "short" && !has(name) {
                                    self.name(name.span, NameClass::Keyword);
                                } else {
                                    self.reference(name, req(name));
                                }
                            }
                            AssignEntryKind::Given {
                                requirement, field, ..
                            } => {
                                self.reference(requirement, req(requirement));
                                let contract = shape
                                    .and_then(|s| s.requirements.get(requirement.name.as_str()))
                                    .and_then(|r| r.contract.clone());
                                if let Some(contract) = contract {
                                    self.reference(
                                        field,
                                        Symbol::Field {
                                            contract,
                                            field: field.name.to_string(),
                                        },
                                    );
                                }
                            }
                            AssignEntryKind::Pin {
                                requirement,
                                instance,
                                node,
                            } => {
                                self.reference(requirement, req(requirement));
                                self.reference(instance, instance_sym(instance, node.as_ref()));
                                if let Some(n) = node {
                                    self.reference(n, node_sym(n));
                                }
                            }
                            AssignEntryKind::Absent { requirement } => {
                                self.reference(requirement, req(requirement));
                                let end = e.span.end as usize;
                                self.name(
                                    Span::new(end.saturating_sub("absent".len()), end),
                                    NameClass::Keyword,
                                );
                            }
                            AssignEntryKind::Place {
                                requirement, node, ..
                            } => {
                                self.reference(requirement, req(requirement));
                                if let Some(n) = node {
                                    self.reference(n, node_sym(n));
                                }
                            }
                            AssignEntryKind::KeepNetwork { keyword, .. }
                            | AssignEntryKind::Genesis { keyword } => {
                                self.name(*keyword, NameClass::Keyword);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Every `for` of a module, a loop before the loops inside it: whole values, list
/// elements, call arguments and loops inside interpolations (`"${for n in …}"`), also
/// inside another loop's template.
pub fn module_fors(m: &ast::Module) -> Vec<&ast::ForExpr> {
    fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a ast::ForExpr>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match e {
                Expr::For(f) => {
                    out.push(f);
                    if let Some(t) = &f.template {
                        stack.extend(t.interpolations().map(|i| &i.expr));
                    }
                }
                Expr::List(items, _) => stack.extend(items.iter()),
                Expr::Call(c) => stack.extend(c.args.iter()),
                Expr::Str(s) => stack.extend(s.interpolations().map(|i| &i.expr)),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for entry in &m.entries {
        match entry {
            ModuleEntry::Requires(r) => match &r.body {
                RequirementBody::Operator(op) => {
                    let meshc::syntax::ast::OperatorBody { default, .. } = &**op;
                    if let Some(d) = default {
                        walk(d, &mut out);
                    }
                }
                RequirementBody::Contract { narrowing, .. } => {
                    for n in narrowing {
                        if let NarrowingKind::Set(e) = &n.kind {
                            walk(e, &mut out);
                        }
                    }
                }
            },
            ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        ContainerEntryKind::Env(env) => {
                            env.iter().for_each(|x| walk(&x.value, &mut out))
                        }
                        ContainerEntryKind::Command(v) | ContainerEntryKind::ImagePaths(v) => {
                            walk(v, &mut out)
                        }
                        ContainerEntryKind::User(u) => walk(&u.uid, &mut out),
                        ContainerEntryKind::Health(h) => {
                            walk(&h.argv, &mut out);
                            h.options.iter().for_each(|o| walk(&o.value, &mut out))
                        }
                        ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                            walk(&file.value, &mut out)
                        }
                        ContainerEntryKind::Mount(mount) => walk(&mount.source, &mut out),
                        ContainerEntryKind::Image(_)
                        | ContainerEntryKind::Publish(_)
                        | ContainerEntryKind::After(_) => {}
                    }
                }
            }
            ModuleEntry::Provides(p) => p.answers.iter().for_each(|a| walk(&a.value, &mut out)),
            ModuleEntry::Slug(..) => {}
        }
    }
    out
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
