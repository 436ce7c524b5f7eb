//! The syntax tree. Every node keeps its span; doc comments are attached where the
//! language says they belong. The tree holds whatever parsed: missing parts are `None` or
//! [`Expr::Error`], never a reason to drop the whole item.

use crate::span::Span;
/// A name as written: 16 bytes, inline up to 15 bytes, shared when longer.
pub type Name = ecow::EcoString;

/// A name as written, with its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ident {
    /// Inline when short (most names are), so a tree holds no allocation per name.
    pub name: Name,
    pub span: Span,
}

/// The `///` lines above a node, joined with newlines, without the slashes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Docs {
    /// Exact-size, behind one more box so that a node without docs (most: a dense
    /// workspace's trees hold about 300,000 `Docs`, one in fifteen written) spends 8
    /// bytes on them, not 16.
    text: Option<Box<Box<str>>>,
}

impl Docs {
    /// The docs `text`.
    pub fn new(text: Box<str>) -> Docs {
        Docs {
            text: Some(Box::new(text)),
        }
    }

    /// The text, when the node has docs.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref().map(|t| &**t)
    }

    /// Adds `line` after the text, on a line of its own.
    pub fn push_line(&mut self, line: &str) {
        let text = match self.text.take() {
            Some(before) => format!("{before}\n{line}").into_boxed_str(),
            None => line.into(),
        };
        *self = Docs::new(text);
    }
}

/// A whole source file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceFile {
    pub items: Box<[Item]>,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Contract(Contract),
    Module(Module),
    Mesh(Mesh),
    Seat(SeatDecl),
}

impl Item {
    /// The item's name.
    pub fn name(&self) -> &Ident {
        match self {
            Item::Contract(c) => &c.name,
            Item::Module(m) => &m.name,
            Item::Mesh(m) => &m.name,
            Item::Seat(s) => &s.name,
        }
    }

    /// The item's whole span.
    pub fn span(&self) -> Span {
        match self {
            Item::Contract(c) => c.span,
            Item::Module(m) => m.span,
            Item::Mesh(m) => m.span,
            Item::Seat(s) => s.span,
        }
    }
}

/// `contract NAME for KIND { FIELD… }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    pub docs: Docs,
    pub name: Ident,
    pub kind: Option<Ident>,
    pub fields: Box<[Field]>,
    pub span: Span,
}

/// `[given] NAME: TYPE REFINEMENT* [= DEFAULT]`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub docs: Docs,
    pub given: Option<Span>,
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub refinements: Box<[Refinement]>,
    pub default: Option<Expr>,
    pub span: Span,
}

/// `[secret] BASE`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeExpr {
    pub secret: Option<Span>,
    pub base: BaseType,
    pub span: Span,
}

/// A type without its `secret` modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseType {
    Named(Ident),
    List(Box<TypeExpr>),
    /// Something that did not parse as a type (already reported).
    Error,
}

/// A refinement after a type or in a narrowing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refinement {
    /// `in A..B`
    InRange(RangeLit),
    /// `in {"a", "b"}`
    InSet(SetLit),
    /// `len A..B`
    Len(RangeLit),
    /// `matches "regex"`
    Matches(StringLit),
}

impl Refinement {
    /// The refinement's span, keyword included.
    pub fn span(&self) -> Span {
        match self {
            Refinement::InRange(r) | Refinement::Len(r) => r.span,
            Refinement::InSet(s) => s.span,
            Refinement::Matches(s) => s.span,
        }
    }
}

/// `A..B` with either bound optional; the span covers the bounds (and, inside a
/// refinement, the keyword before them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeLit {
    pub lo: Option<IntLit>,
    pub hi: Option<IntLit>,
    pub span: Span,
}

/// `{"a", "b"}` after `in`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetLit {
    pub values: Box<[Expr]>,
    pub span: Span,
}

/// `seat NAME delivers CONTRACT` (standard library only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatDecl {
    pub docs: Docs,
    pub name: Ident,
    pub contract: Option<Ident>,
    pub span: Span,
}

/// `module NAME { … }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub docs: Docs,
    pub name: Ident,
    pub entries: Box<[ModuleEntry]>,
    pub span: Span,
    /// How many references the module holds ([`Reference::id`] counts them): the size
    /// of the table of what each reads (`check::readings`).
    pub references: u32,
}

impl Module {
    /// The requirements, in source order.
    pub fn requirements(&self) -> impl Iterator<Item = &Requirement> {
        self.entries.iter().filter_map(|e| match e {
            ModuleEntry::Requires(r) => Some(r),
            _ => None,
        })
    }

    /// The containers and jobs (LANGUAGE.md §14.1), in source order: a job is a container
    /// that runs to completion, and counts as one for naming, E0102 and W0004.
    pub fn containers(&self) -> impl Iterator<Item = &Container> {
        self.entries.iter().filter_map(|e| match e {
            ModuleEntry::Container(c) => Some(c),
            _ => None,
        })
    }

    /// The `provides` blocks, in source order.
    pub fn provides(&self) -> impl Iterator<Item = &Provides> {
        self.entries.iter().filter_map(|e| match e {
            ModuleEntry::Provides(p) => Some(p),
            _ => None,
        })
    }

    /// The declared slug, if any.
    pub fn slug(&self) -> Option<&StringLit> {
        self.entries.iter().find_map(|e| match e {
            ModuleEntry::Slug(s, _) => Some(s),
            _ => None,
        })
    }
}

/// An entry of a module body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleEntry {
    /// `slug "forge"` (the string, and the whole entry's span).
    Slug(StringLit, Span),
    Requires(Requirement),
    Container(Container),
    Provides(Provides),
}

/// `requires NAME: KIND …`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub docs: Docs,
    pub name: Ident,
    /// The `?` after the name: an optional requirement (LANGUAGE.md §12.2).
    pub optional: Option<Span>,
    /// The provider kind as written (`module`, `host`, `mesh`, `operator`, or a mistake).
    pub kind: Option<Ident>,
    pub body: RequirementBody,
    pub span: Span,
}

impl Requirement {
    /// The contract's name as written, when the requirement names one.
    pub fn contract_name(&self) -> Option<&str> {
        match &self.body {
            RequirementBody::Contract { contract, .. } => {
                contract.as_ref().map(|c| c.name.as_str())
            }
            RequirementBody::Operator(_) => None,
        }
    }
}

/// What follows the provider kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequirementBody {
    /// `operator [secret] TYPE REFINEMENT* [= DEFAULT]` (boxed: the larger and rarer
    /// body).
    Operator(Box<OperatorBody>),
    /// `KIND CONTRACT [{ NARROWING… }]`
    Contract {
        contract: Option<Ident>,
        narrowing: Box<[Narrowing]>,
        /// The braces, when written.
        block: Option<Span>,
    },
}

/// What follows `operator`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorBody {
    pub ty: Option<TypeExpr>,
    pub refinements: Box<[Refinement]>,
    pub default: Option<Expr>,
}

/// One entry inside a requirement's braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    pub field: Ident,
    pub kind: NarrowingKind,
    pub span: Span,
}

/// Sets a given field, or adds refinements to a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NarrowingKind {
    Set(Expr),
    Refine(Box<[Refinement]>),
}

/// `container NAME { … }`, or `job NAME { … }` (LANGUAGE.md §14.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub docs: Docs,
    pub name: Ident,
    pub entries: Box<[ContainerEntry]>,
    /// Written `job`: it runs to completion, and holds no `publish` or `health` (E0327).
    pub job: bool,
    pub span: Span,
}

impl Container {
    /// `container` or `job`, as written.
    pub fn keyword(&self) -> &'static str {
        if self.job { "job" } else { "container" }
    }
}

/// One entry of a container, with its docs and span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerEntry {
    pub docs: Docs,
    pub kind: ContainerEntryKind,
    /// The `when NAME { … }` block this entry stands in, if any. The parser flattens a
    /// `when` block into its entries, each carrying the block (boxed, as rare).
    pub when: Option<Box<When>>,
    pub span: Span,
}

/// `when NAME { … }`: the entries inside it are kept only when the optional requirement
/// NAME is present (LANGUAGE.md §12.2). Every entry of one block holds an equal `When`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct When {
    /// The requirement named.
    pub requirement: Ident,
    /// The whole block, `when` to `}`.
    pub span: Span,
}

/// What a container entry says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerEntryKind {
    Image(StringLit),
    Command(Expr),
    /// `user UID[:GID]` (LANGUAGE.md §14.2; boxed, as the group makes it large).
    User(Box<User>),
    Env(Box<[EnvEntry]>),
    /// The large entries are boxed: every entry of a tree is the size of the largest.
    Mount(Box<Mount>),
    Secret(Box<FileEntry>),
    File(Box<FileEntry>),
    Publish(Ident),
    ImagePaths(Expr),
    /// `health ARGV [every D] [start D] [retries N]` (LANGUAGE.md §14.1).
    Health(Box<Health>),
    /// `after NAME…`: the containers and jobs of the module this one starts after.
    After(Box<[Ident]>),
}

/// `user UID[:GID]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub uid: Expr,
    /// The group after `:`; `None` when not written, or when the number after `:` is
    /// missing (reported).
    pub gid: Option<IntLit>,
}

/// `health ARGV [every D] [start D] [retries N]`: the options as written, in order, so
/// that one written twice can be refused (E0314).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    pub argv: Expr,
    pub options: Box<[HealthOption]>,
}

/// One option of `health`: `every "10s"`, `start "60s"`, `retries 5`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthOption {
    pub kind: HealthOptionKind,
    /// The keyword's span.
    pub keyword: Span,
    pub value: Expr,
}

/// Which option of `health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HealthOptionKind {
    Every,
    Start,
    Retries,
}

impl HealthOptionKind {
    /// The keyword as written.
    pub fn word(self) -> &'static str {
        match self {
            HealthOptionKind::Every => "every",
            HealthOptionKind::Start => "start",
            HealthOptionKind::Retries => "retries",
        }
    }
}

impl Health {
    /// The value of option `kind`, the first written.
    pub fn option(&self, kind: HealthOptionKind) -> Option<&Expr> {
        self.options
            .iter()
            .find(|o| o.kind == kind)
            .map(|o| &o.value)
    }
}

/// `mount SOURCE -> "TARGET" [read_only]`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: Expr,
    pub target: Option<StringLit>,
    pub read_only: Option<Span>,
}

/// `secret "TARGET" [owner …] [mode …] = VALUE` or `file "TARGET" … = VALUE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub target: StringLit,
    pub owner: Option<Owner>,
    pub mode: Option<IntLit>,
    pub value: Expr,
}

/// `owner UID[:GID]` on a `file` or `secret` (LANGUAGE.md §12.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub uid: IntLit,
    /// The group after `:`; `None` when not written (it defaults to the uid) or when the
    /// number after `:` is missing (reported).
    pub gid: Option<IntLit>,
    /// `owner` to the last number.
    pub span: Span,
}

/// `KEY = VALUE [exposed "reason"]`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvEntry {
    pub docs: Docs,
    pub key: Ident,
    pub value: Expr,
    /// Boxed, as rare: an entry is no larger for the few that have it.
    pub exposed: Option<Box<Exposed>>,
    /// The `when NAME { … }` block inside `env { }` this entry stands in, if any (boxed,
    /// as rare).
    pub when: Option<Box<When>>,
    pub span: Span,
}

/// `exposed "reason"`; the reason may be missing (E0308).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exposed {
    pub span: Span,
    pub reason: Option<StringLit>,
}

/// `provides CONTRACT { FIELD = EXPR … }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provides {
    pub docs: Docs,
    pub contract: Ident,
    pub answers: Box<[Answer]>,
    pub span: Span,
}

/// `FIELD = EXPR` inside `provides`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub docs: Docs,
    pub field: Ident,
    pub value: Expr,
    pub span: Span,
}

/// `mesh NAME { … }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mesh {
    pub docs: Docs,
    pub name: Ident,
    pub entries: Box<[MeshEntry]>,
    pub span: Span,
}

impl Mesh {
    /// The nodes, in source order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.entries.iter().filter_map(|e| match e {
            MeshEntry::Node(n) => Some(n),
            _ => None,
        })
    }

    /// The seat assignments, in source order.
    pub fn seats(&self) -> impl Iterator<Item = &SeatAssign> {
        self.entries.iter().filter_map(|e| match e {
            MeshEntry::Seat(s) => Some(s),
            _ => None,
        })
    }

    /// The assignments, in source order.
    pub fn assigns(&self) -> impl Iterator<Item = &Assign> {
        self.entries.iter().filter_map(|e| match e {
            MeshEntry::Assign(a) => Some(a),
            _ => None,
        })
    }
}

/// An entry of a mesh body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshEntry {
    Node(Node),
    Seat(SeatAssign),
    Assign(Assign),
}

/// `node NAME { KEY = VALUE … }`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub docs: Docs,
    pub name: Ident,
    pub props: Box<[Prop]>,
    pub span: Span,
}

impl Node {
    /// The value of property `key`, if written.
    pub fn prop(&self, key: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.key.name == key)
    }
}

/// `KEY = VALUE` in a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prop {
    pub key: Ident,
    pub value: Expr,
    pub span: Span,
}

/// `seat SEAT = INSTANCE on NODE`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatAssign {
    pub docs: Docs,
    pub seat: Ident,
    pub instance: Option<Ident>,
    pub node: Option<Ident>,
    pub span: Span,
}

/// `assign MODULE to NODE [as INSTANCE] [{ … }]`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assign {
    pub docs: Docs,
    pub module: Ident,
    pub node: Option<Ident>,
    pub instance: Option<Ident>,
    pub entries: Box<[AssignEntry]>,
    /// The braces, when written.
    pub block: Option<Span>,
    pub span: Span,
}

impl Assign {
    /// The instance name: `as NAME`, else the module's name.
    pub fn instance_name(&self) -> &Ident {
        self.instance.as_ref().unwrap_or(&self.module)
    }
}

/// An entry of an assignment, with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignEntry {
    pub kind: AssignEntryKind,
    pub span: Span,
}

/// What an assignment entry says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignEntryKind {
    /// `NAME = VALUE` (an operator value, or `short = "stg"`).
    Value { name: Ident, value: Expr },
    /// `NAME.FIELD = VALUE` (a given field).
    Given {
        requirement: Ident,
        field: Ident,
        value: Expr,
    },
    /// `NAME from INSTANCE on NODE`
    Pin {
        requirement: Ident,
        instance: Ident,
        node: Option<Ident>,
    },
    /// `NAME absent`: the operator declines a provider of an optional requirement.
    Absent { requirement: Ident },
    /// `NAME at "/host/path" [on NODE]` or `NAME at 8080`
    Place {
        requirement: Ident,
        at: Expr,
        node: Option<Ident>,
    },
    /// `keep_network "NAME"`: the instance's containers stay on a found network (only on
    /// an adopted node, LANGUAGE.md §13.4). `keyword` is the word's own span.
    KeepNetwork { keyword: Span, network: Expr },
    /// `genesis`: the instance is raised by the bootstrap plan (LANGUAGE.md §13.5).
    Genesis { keyword: Span },
}

/// An expression: the values a definition or mesh writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Str(StringLit),
    Int(IntLit),
    Bool(bool, Span),
    Ref(Reference),
    List(Box<[Expr]>, Span),
    /// Boxed: rare as a value (a node's `ports`), and twice the size of the others.
    Range(Box<RangeLit>),
    /// `url(db.password)`: a function of the language applied to its arguments
    /// (LANGUAGE.md §12.4). Boxed, as the rarest large variant: every expression of a
    /// tree is the size of the largest.
    Call(Box<Call>),
    /// `for NAME in ITERABLE TEMPLATE` (LANGUAGE.md §12.3): a string.
    For(Box<ForExpr>),
    /// Something that did not parse (already reported).
    Error(Span),
}

/// `NAME(ARG, …)`: a call of one of the language's functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub name: Ident,
    pub args: Box<[Expr]>,
    /// The parentheses, `(` to `)` (to the last argument when `)` is missing).
    pub parens: Span,
    /// `NAME` to `)`.
    pub span: Span,
}

/// `for NAME in ITERABLE [sep STRING] TEMPLATE`: TEMPLATE rendered once per element,
/// concatenated with STRING between renderings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForExpr {
    /// The loop variable.
    pub var: Ident,
    /// What the loop runs over; `None` when missing (already reported).
    pub iterable: Option<Iterable>,
    /// `sep STRING`: placed between renderings, never after the last (LANGUAGE.md §14.2).
    pub sep: Option<StringLit>,
    /// The template, a string literal; `None` when missing (already reported).
    pub template: Option<StringLit>,
    /// `for` to the end of the template.
    pub span: Span,
}

/// What a `for` runs over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Iterable {
    /// `consumers CONTRACT`: the instances this module answers for CONTRACT. `keyword` is
    /// the span of the word `consumers`; the contract is `None` when missing (reported).
    Consumers {
        keyword: Span,
        contract: Option<Ident>,
    },
    /// A list-typed reference.
    List(Reference),
}

impl Expr {
    /// Calls `f` on every reference the expression holds: itself, its string's
    /// interpolations, a list's items, a call's arguments, a `for`'s list, separator
    /// and template (what `syntax::spans` visits, read-only).
    pub fn each_reference(&self, f: &mut dyn FnMut(&Reference)) {
        match self {
            Expr::Ref(r) => f(r),
            Expr::Str(s) => s.each_reference(f),
            Expr::List(items, _) => items.iter().for_each(|e| e.each_reference(f)),
            Expr::Call(c) => c.args.iter().for_each(|e| e.each_reference(f)),
            Expr::For(x) => {
                if let Some(Iterable::List(r)) = &x.iterable {
                    f(r);
                }
                for s in [&x.sep, &x.template].into_iter().flatten() {
                    s.each_reference(f);
                }
            }
            Expr::Int(_) | Expr::Bool(..) | Expr::Range(_) | Expr::Error(_) => {}
        }
    }

    /// The expression's span.
    pub fn span(&self) -> Span {
        match self {
            Expr::Str(s) => s.span,
            Expr::Int(i) => i.span,
            Expr::Bool(_, s) | Expr::List(_, s) | Expr::Error(s) => *s,
            Expr::Ref(r) => r.span(),
            Expr::Range(r) => r.span,
            Expr::Call(c) => c.span,
            Expr::For(f) => f.span,
        }
    }
}

/// `req.field`, `workers`, `consumer.login`, `given.name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// Its words; [`Reference::span`] runs from the first's start to the last's end.
    pub segments: Box<[Ident]>,
    /// Its place among the references of the item that holds it, in the order they
    /// are parsed (source order): not a position, so a module's position-free tree
    /// keeps it, and what the checker decided a reference reads is found by it
    /// (`check::readings`), as rust-analyzer names an expression by its id in the body.
    pub id: u32,
}

impl Reference {
    /// Where it is written: its first word's start to its last word's end (a legacy
    /// placeholder's reference gives every word the placeholder's span). Not kept apart,
    /// so a reference is as small as it was before it had an id.
    pub fn span(&self) -> Span {
        match (self.segments.first(), self.segments.last()) {
            (Some(first), Some(last)) => Span {
                start: first.span.start,
                end: last.span.end,
            },
            _ => Span::default(),
        }
    }

    /// The dotted text: `db.host`.
    pub fn dotted(&self) -> String {
        let mut s = String::new();
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                s.push('.');
            }
            s.push_str(&seg.name);
        }
        s
    }
}

/// An integer as written: its value and radix (the formatter keeps `0o750` octal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntLit {
    pub value: i64,
    pub radix: Radix,
    pub span: Span,
}

/// How an integer literal was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Radix {
    Decimal,
    Octal,
    Hex,
}

/// A string literal, decoded into text and interpolations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringLit {
    pub parts: Box<[StrPart]>,
    pub triple: bool,
    /// Whether the closing quotes are there: an unclosed string (E0002) ends with its
    /// line, or the file, and `span` holds no closing quote.
    pub closed: bool,
    pub span: Span,
}

impl StringLit {
    /// Calls `f` on every reference the string's interpolations hold.
    pub fn each_reference(&self, f: &mut dyn FnMut(&Reference)) {
        for p in &self.parts {
            match p {
                StrPart::Text(_) => {}
                StrPart::Ref(r) => r.expr().each_reference(f),
                StrPart::Interp(i) => i.expr.each_reference(f),
            }
        }
    }

    /// The text when the string has no interpolation.
    pub fn as_plain(&self) -> Option<String> {
        // Most plain literals are one piece: copied once, at its size.
        if let [StrPart::Text(t)] = &*self.parts {
            return Some(t.to_string());
        }
        let mut s = String::new();
        for p in &self.parts {
            match p {
                StrPart::Text(t) => s.push_str(t),
                StrPart::Ref(_) | StrPart::Interp(_) => return None,
            }
        }
        Some(s)
    }

    /// The literal text pieces, interpolations left out.
    pub fn literal_text(&self) -> String {
        let mut s = String::new();
        for p in &self.parts {
            if let StrPart::Text(t) = p {
                s.push_str(t);
            }
        }
        s
    }

    /// The interpolations, in order.
    pub fn interpolations(&self) -> impl Iterator<Item = InterpRef<'_>> {
        self.parts.iter().filter_map(StrPart::interp)
    }
}

/// A piece of a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrPart {
    /// Exact-size text.
    Text(Box<str>),
    /// `${req.field}` as most interpolations are written (no blank, no legacy kind): the
    /// reference kept in the part itself, with no box around it. A dense workspace holds
    /// hundreds of thousands of them; a boxed [`Interp`] costs each 64 bytes more and an
    /// allocation.
    Ref(RefPart),
    /// Any other interpolation. Boxed: five times the size of a text part, and rare.
    Interp(Box<Interp>),
}

impl StrPart {
    /// The interpolation this part is, if it is one.
    pub fn interp(&self) -> Option<InterpRef<'_>> {
        match self {
            StrPart::Text(_) => None,
            StrPart::Ref(r) => Some(InterpRef {
                legacy: None,
                expr: &r.0,
                span: r.span(),
            }),
            StrPart::Interp(i) => Some(InterpRef {
                legacy: i.legacy.as_ref(),
                expr: &i.expr,
                span: i.span,
            }),
        }
    }
}

/// The reference of a plain `${req.field}`: always an [`Expr::Ref`], held as an
/// expression so that it is read like any other interpolation's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefPart(Expr);

impl RefPart {
    /// The part `${reference}`, written with no blank inside its braces.
    pub fn new(reference: Reference) -> Self {
        RefPart(Expr::Ref(reference))
    }

    /// The reference, as an expression.
    pub fn expr(&self) -> &Expr {
        &self.0
    }

    /// The reference, as an expression, to move its places.
    pub fn expr_mut(&mut self) -> &mut Expr {
        &mut self.0
    }

    /// The whole `${…}`: the braces sit right around the reference.
    pub fn span(&self) -> Span {
        let at = self.0.span();
        Span::new((at.start as usize).saturating_sub(2), at.end as usize + 1)
    }
}

/// `${EXPR}` (most often `${req.field}`, or a call `${url(db.password)}`), or a legacy
/// `${binding:req.field}` (old form, W0402), whose expression is always a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interp {
    pub legacy: Option<Ident>,
    pub expr: Expr,
    /// The whole `${…}`.
    pub span: Span,
}

/// An interpolation of a string as its readers see it, whichever way it is stored.
#[derive(Debug, Clone, Copy)]
pub struct InterpRef<'a> {
    /// The kind of a legacy `${kind:req.field}` (old form, W0402).
    pub legacy: Option<&'a Ident>,
    pub expr: &'a Expr,
    /// The whole `${…}`.
    pub span: Span,
}

impl<'a> InterpRef<'a> {
    /// The reference inside, when the interpolation is one reference.
    pub fn reference(&self) -> Option<&'a Reference> {
        match self.expr {
            Expr::Ref(r) => Some(r),
            _ => None,
        }
    }
}

impl Interp {
    /// The reference inside, when the interpolation is one reference.
    pub fn reference(&self) -> Option<&Reference> {
        match &self.expr {
            Expr::Ref(r) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// A workspace of 10,000 modules holds millions of these nodes, and an entry of a list
    /// is the size of its largest variant: each size is held here so that a new field or
    /// variant does not silently grow every tree. Box what is large and rare instead.
    #[test]
    fn the_nodes_a_tree_holds_by_the_thousand_stay_small() {
        let sizes = [
            ("Ident", size_of::<Ident>(), 24),
            ("Docs", size_of::<Docs>(), 8),
            ("StringLit", size_of::<StringLit>(), 32),
            ("StrPart", size_of::<StrPart>(), 32),
            ("Reference", size_of::<Reference>(), 24),
            ("Expr", size_of::<Expr>(), 32),
            ("EnvEntry", size_of::<EnvEntry>(), 88),
            ("ContainerEntryKind", size_of::<ContainerEntryKind>(), 40),
            ("ContainerEntry", size_of::<ContainerEntry>(), 64),
            ("Requirement", size_of::<Requirement>(), 152),
            ("ModuleEntry", size_of::<ModuleEntry>(), 152),
            ("Narrowing", size_of::<Narrowing>(), 64),
            ("Answer", size_of::<Answer>(), 72),
            ("AssignEntry", size_of::<AssignEntry>(), 96),
            ("MeshEntry", size_of::<MeshEntry>(), 136),
            ("Item", size_of::<Item>(), 88),
        ];
        let grown: Vec<String> = sizes
            .iter()
            .filter(|(_, size, limit)| size > limit)
            .map(|(name, size, limit)| format!("{name}: {size} bytes, at most {limit}"))
            .collect();
        assert!(grown.is_empty(), "nodes grew: {grown:?}\nall: {sizes:?}");
    }
}
