//! The layout: the tree printed back as text, with the comments where they were.
//!
//! Every node is cut into [`Part`]s: fixed text, string literals, blocks of entries and
//! lists (or sets) of values. A node is written on one line when the rules let it and the
//! line fits ([`Layout::flat`]); otherwise its blocks and lists open over several lines
//! ([`Layout::broken`]). The rules themselves are in `docs/formatting.md`.

use super::comments::Comments;
use super::strings;
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Token, TokenKind};

/// Lines are kept within this many columns where the layout has a choice.
pub const MAX_WIDTH: usize = 100;

/// One indentation step.
const INDENT: usize = 2;

/// A block may be written on one line with at most this many entries.
const MAX_ONE_LINE_ENTRIES: usize = 3;

/// Words that an entry of a block may start with but that, right after another entry on
/// the same line, the parser would read as the end of that entry (`len` after a
/// narrowing's range, `exposed` after an env value, `on` after a placement). A block with
/// such an entry after its first one is never written on one line.
const CONTINUATION_WORDS: &[&str] = &["in", "len", "matches", "exposed", "on"];

/// Something that is laid out: an item, an entry of a block, or a value in a list.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    Item(&'a Item),
    Field(&'a Field),
    ModuleEntry(&'a ModuleEntry),
    Narrowing(&'a Narrowing),
    ContainerEntry(&'a ContainerEntry),
    /// `when NAME { … }` among a container's entries: the block and its entries.
    WhenContainer(&'a When, &'a [ContainerEntry]),
    Env(&'a EnvEntry),
    /// `when NAME { … }` inside `env { }`.
    WhenEnv(&'a When, &'a [EnvEntry]),
    Answer(&'a Answer),
    MeshEntry(&'a MeshEntry),
    Prop(&'a Prop),
    AssignEntry(&'a AssignEntry),
    Expr(&'a Expr),
}

impl Node<'_> {
    fn span(&self) -> Span {
        match self {
            Node::Item(i) => i.span(),
            Node::Field(f) => f.span,
            Node::ModuleEntry(e) => match e {
                ModuleEntry::Slug(_, s) => *s,
                ModuleEntry::Requires(r) => r.span,
                ModuleEntry::Container(c) => c.span,
                ModuleEntry::Provides(p) => p.span,
            },
            Node::Narrowing(n) => n.span,
            Node::ContainerEntry(e) => e.span,
            Node::WhenContainer(w, _) | Node::WhenEnv(w, _) => w.span,
            Node::Env(e) => e.span,
            Node::Answer(a) => a.span,
            Node::MeshEntry(e) => match e {
                MeshEntry::Node(n) => n.span,
                MeshEntry::Seat(s) => s.span,
                MeshEntry::Assign(a) => a.span,
            },
            Node::Prop(p) => p.span,
            Node::AssignEntry(a) => a.span,
            Node::Expr(e) => e.span(),
        }
    }

    /// A one-line item that may stay next to another of its kind without a blank line.
    fn is_seat_decl(&self) -> bool {
        matches!(self, Node::Item(Item::Seat(_)))
    }
}

/// A piece of a node's text.
enum Part<'a> {
    Text(String),
    /// A string literal: the span of its token, and whether it is triple-quoted.
    Str(Span, bool),
    Block(Block<'a>),
    Seq(Seq<'a>),
}

/// `{ entries }`: `open` is the end of `{`, `close` the start of `}`.
struct Block<'a> {
    open: u32,
    close: u32,
    entries: Vec<Node<'a>>,
    /// A contract, module, container or mesh body: always one entry per line.
    structural: bool,
}

/// `[values]` or a set `{values}`: `open` is the end of the opening bracket, `close` the
/// start of the closing one.
struct Seq<'a> {
    open: u32,
    close: u32,
    values: Vec<&'a Expr>,
    brackets: (&'static str, &'static str),
}

/// What separates and ends the entries of a multi-line sequence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The items of the file: one blank line between items.
    Top,
    /// Entries of a block, one per line.
    Block,
    /// Values of a list or set, one per line, each followed by a comma.
    List,
}

/// A line of a multi-line sequence before it is written.
enum Line {
    Comment {
        index: usize,
        blank_before: bool,
    },
    Entry {
        text: String,
        trailing: Option<usize>,
        blank_before: bool,
        seat_decl: bool,
    },
}

pub(crate) struct Layout<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    comments: Comments<'a>,
}

impl<'a> Layout<'a> {
    pub(crate) fn new(text: &'a str, tokens: Vec<Token>, comments: Comments<'a>) -> Layout<'a> {
        Layout {
            text,
            tokens,
            comments,
        }
    }

    /// The whole file.
    pub(crate) fn file(mut self, file: &'a SourceFile) -> String {
        let items: Vec<Node<'a>> = file.items.iter().map(Node::Item).collect();
        let end = self.text.len() as u32;
        let mut out = self.lines(0, end, &items, 0, Kind::Top);
        // Nothing is ever dropped: a comment no place claimed ends the file.
        let rest = self.comments.take_rest();
        for i in rest {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(self.comments.text(i));
            out.push('\n');
        }
        out
    }

    // ---- source helpers ----

    fn slice(&self, span: Span) -> &'a str {
        &self.text[span.range()]
    }

    /// The end of the first `{` token at or after `pos`.
    fn open_brace_after(&self, pos: u32) -> u32 {
        let i = self.tokens.partition_point(|t| t.span.start < pos);
        self.tokens[i..]
            .iter()
            .find(|t| t.kind == TokenKind::LBrace)
            .map(|t| t.span.end)
            .unwrap_or(pos)
    }

    /// A block whose `}` ends `span` and whose `{` is the first one after `after`.
    fn block(&self, after: u32, span: Span, entries: Vec<Node<'a>>, structural: bool) -> Block<'a> {
        let open = self.open_brace_after(after);
        let close = span.end.saturating_sub(1).max(open);
        Block {
            open,
            close,
            entries,
            structural,
        }
    }

    // ---- parts ----

    fn parts(&self, node: Node<'a>) -> Vec<Part<'a>> {
        let mut p = Parts::default();
        match node {
            Node::Item(item) => match item {
                Item::Contract(c) => {
                    p.text(format!("contract {}", c.name.name));
                    let mut after = c.name.span.end;
                    if let Some(k) = &c.kind {
                        p.text(format!(" for {}", k.name));
                        after = k.span.end;
                    }
                    p.text(" ");
                    let fields = c.fields.iter().map(Node::Field).collect();
                    p.block(self.block(after, c.span, fields, true));
                }
                Item::Module(m) => {
                    p.text(format!("module {} ", m.name.name));
                    let entries = m.entries.iter().map(Node::ModuleEntry).collect();
                    p.block(self.block(m.name.span.end, m.span, entries, true));
                }
                Item::Mesh(m) => {
                    p.text(format!("mesh {} ", m.name.name));
                    let entries = m.entries.iter().map(Node::MeshEntry).collect();
                    p.block(self.block(m.name.span.end, m.span, entries, true));
                }
                Item::Seat(s) => {
                    p.text(format!("seat {}", s.name.name));
                    if let Some(c) = &s.contract {
                        p.text(format!(" delivers {}", c.name));
                    }
                }
            },
            Node::Field(f) => {
                if f.given.is_some() {
                    p.text("given ");
                }
                p.text(format!("{}:", f.name.name));
                if let Some(ty) = &f.ty {
                    p.text(" ");
                    p.text(type_text(ty));
                }
                self.refinements(&mut p, &f.refinements);
                if let Some(d) = &f.default {
                    p.text(" = ");
                    self.expr(&mut p, d);
                }
            }
            Node::ModuleEntry(e) => match e {
                ModuleEntry::Slug(s, _) => {
                    p.text("slug ");
                    p.string(s);
                }
                ModuleEntry::Requires(r) => {
                    let optional = if r.optional.is_some() { "?" } else { "" };
                    p.text(format!("requires {}{optional}:", r.name.name));
                    if let Some(k) = &r.kind {
                        p.text(format!(" {}", k.name));
                    }
                    match &r.body {
                        RequirementBody::Operator(op) => {
                            let crate::syntax::ast::OperatorBody {
                                ty,
                                refinements,
                                default,
                            } = &**op;
                            if let Some(ty) = ty {
                                p.text(" ");
                                p.text(type_text(ty));
                            }
                            self.refinements(&mut p, refinements);
                            if let Some(d) = default {
                                p.text(" = ");
                                self.expr(&mut p, d);
                            }
                        }
                        RequirementBody::Contract {
                            contract,
                            narrowing,
                            block,
                        } => {
                            if let Some(c) = contract {
                                p.text(format!(" {}", c.name));
                            }
                            if let Some(b) = block {
                                p.text(" ");
                                let entries = narrowing.iter().map(Node::Narrowing).collect();
                                p.block(self.block(b.start, *b, entries, false));
                            }
                        }
                    }
                }
                ModuleEntry::Container(c) => {
                    p.text(format!("{} {} ", c.keyword(), c.name.name));
                    let entries = when_groups(&c.entries, |e| e.when.as_deref())
                        .into_iter()
                        .map(|g| match g {
                            Group::One(e) => Node::ContainerEntry(e),
                            Group::When(w, es) => Node::WhenContainer(w, es),
                        })
                        .collect();
                    p.block(self.block(c.name.span.end, c.span, entries, true));
                }
                ModuleEntry::Provides(pr) => {
                    p.text(format!("provides {} ", pr.contract.name));
                    let entries = pr.answers.iter().map(Node::Answer).collect();
                    p.block(self.block(pr.contract.span.end, pr.span, entries, false));
                }
            },
            Node::Narrowing(n) => {
                p.text(n.field.name.clone());
                match &n.kind {
                    NarrowingKind::Set(v) => {
                        p.text(" = ");
                        self.expr(&mut p, v);
                    }
                    NarrowingKind::Refine(r) => self.refinements(&mut p, r),
                }
            }
            Node::ContainerEntry(e) => match &e.kind {
                ContainerEntryKind::Image(s) => {
                    p.text("image ");
                    p.string(s);
                }
                ContainerEntryKind::Command(v) => {
                    p.text("command ");
                    self.expr(&mut p, v);
                }
                ContainerEntryKind::User(u) => {
                    p.text("user ");
                    self.expr(&mut p, &u.uid);
                    if let Some(g) = &u.gid {
                        p.text(format!(":{}", self.slice(g.span)));
                    }
                }
                ContainerEntryKind::Health(h) => {
                    p.text("health ");
                    self.expr(&mut p, &h.argv);
                    for o in &h.options {
                        p.text(format!(" {} ", o.kind.word()));
                        self.expr(&mut p, &o.value);
                    }
                }
                ContainerEntryKind::After(names) => {
                    p.text("after");
                    for n in names {
                        p.text(format!(" {}", n.name));
                    }
                }
                ContainerEntryKind::Env(entries) => {
                    p.text("env ");
                    let entries = when_groups(entries, |e| e.when.as_deref())
                        .into_iter()
                        .map(|g| match g {
                            Group::One(e) => Node::Env(e),
                            Group::When(w, es) => Node::WhenEnv(w, es),
                        })
                        .collect();
                    p.block(self.block(e.span.start, e.span, entries, false));
                }
                ContainerEntryKind::Mount(mount) => {
                    let crate::syntax::ast::Mount {
                        source,
                        target,
                        read_only,
                    } = &**mount;
                    p.text("mount ");
                    self.expr(&mut p, source);
                    if let Some(t) = target {
                        p.text(" -> ");
                        p.string(t);
                    }
                    if read_only.is_some() {
                        p.text(" read_only");
                    }
                }
                ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                    let word = match &e.kind {
                        ContainerEntryKind::Secret(_) => "secret ",
                        _ => "file ",
                    };
                    p.text(word);
                    p.string(&file.target);
                    self.owner_and_mode(&mut p, file.owner.as_ref(), file.mode.as_ref());
                    p.text(" = ");
                    self.expr(&mut p, &file.value);
                }
                ContainerEntryKind::Publish(name) => p.text(format!("publish {}", name.name)),
                ContainerEntryKind::ImagePaths(v) => {
                    p.text("image_paths ");
                    self.expr(&mut p, v);
                }
            },
            Node::WhenContainer(w, entries) => {
                p.text(format!("when {} ", w.requirement.name));
                let entries = entries.iter().map(Node::ContainerEntry).collect();
                p.block(self.block(w.requirement.span.end, w.span, entries, true));
            }
            Node::WhenEnv(w, entries) => {
                p.text(format!("when {} ", w.requirement.name));
                let entries = entries.iter().map(Node::Env).collect();
                p.block(self.block(w.requirement.span.end, w.span, entries, false));
            }
            Node::Env(e) => {
                p.text(format!("{} = ", e.key.name));
                self.expr(&mut p, &e.value);
                if let Some(x) = &e.exposed {
                    p.text(" exposed");
                    if let Some(r) = &x.reason {
                        p.text(" ");
                        p.string(r);
                    }
                }
            }
            Node::Answer(a) => {
                p.text(format!("{} = ", a.field.name));
                self.expr(&mut p, &a.value);
            }
            Node::MeshEntry(e) => match e {
                MeshEntry::Node(n) => {
                    p.text(format!("node {} ", n.name.name));
                    let props = n.props.iter().map(Node::Prop).collect();
                    p.block(self.block(n.name.span.end, n.span, props, false));
                }
                MeshEntry::Seat(s) => {
                    p.text(format!("seat {} =", s.seat.name));
                    if let Some(i) = &s.instance {
                        p.text(format!(" {}", i.name));
                    }
                    if let Some(n) = &s.node {
                        p.text(format!(" on {}", n.name));
                    }
                }
                MeshEntry::Assign(a) => {
                    p.text(format!("assign {}", a.module.name));
                    if let Some(n) = &a.node {
                        p.text(format!(" to {}", n.name));
                    }
                    if let Some(i) = &a.instance {
                        p.text(format!(" as {}", i.name));
                    }
                    if let Some(b) = a.block {
                        p.text(" ");
                        let entries = a.entries.iter().map(Node::AssignEntry).collect();
                        p.block(self.block(b.start, b, entries, false));
                    }
                }
            },
            Node::Prop(pr) => {
                p.text(format!("{} = ", pr.key.name));
                self.expr(&mut p, &pr.value);
            }
            Node::AssignEntry(a) => match &a.kind {
                AssignEntryKind::Value { name, value } => {
                    p.text(format!("{} = ", name.name));
                    self.expr(&mut p, value);
                }
                AssignEntryKind::Given {
                    requirement,
                    field,
                    value,
                } => {
                    p.text(format!("{}.{} = ", requirement.name, field.name));
                    self.expr(&mut p, value);
                }
                AssignEntryKind::Pin {
                    requirement,
                    instance,
                    node,
                } => {
                    p.text(format!("{} from {}", requirement.name, instance.name));
                    if let Some(n) = node {
                        p.text(format!(" on {}", n.name));
                    }
                }
                AssignEntryKind::Absent { requirement } => {
                    p.text(format!("{} absent", requirement.name));
                }
                AssignEntryKind::Place {
                    requirement,
                    at,
                    node,
                } => {
                    p.text(format!("{} at ", requirement.name));
                    self.expr(&mut p, at);
                    if let Some(n) = node {
                        p.text(format!(" on {}", n.name));
                    }
                }
                AssignEntryKind::KeepNetwork { network, .. } => {
                    p.text("keep_network ".to_string());
                    self.expr(&mut p, network);
                }
                AssignEntryKind::Genesis { .. } => p.text("genesis".to_string()),
            },
            Node::Expr(e) => self.expr(&mut p, e),
        }
        p.0
    }

    fn refinements(&self, p: &mut Parts<'a>, refinements: &'a [Refinement]) {
        for r in refinements {
            match r {
                Refinement::InRange(range) => {
                    p.text(format!(" in {}", self.range_text(range)));
                }
                Refinement::Len(range) => {
                    p.text(format!(" len {}", self.range_text(range)));
                }
                Refinement::InSet(set) => {
                    p.text(" in ");
                    let open = self.open_brace_after(set.span.start);
                    p.0.push(Part::Seq(Seq {
                        open,
                        close: set.span.end.saturating_sub(1).max(open),
                        values: set.values.iter().collect(),
                        brackets: ("{", "}"),
                    }));
                }
                Refinement::Matches(s) => {
                    // The literal's span takes in the keyword: print the string token.
                    p.text(" matches ");
                    let i = self.tokens.partition_point(|t| t.span.end < s.span.end);
                    let token = self.tokens.get(i).map(|t| t.span).unwrap_or(s.span);
                    p.0.push(Part::Str(token, s.triple));
                }
            }
        }
    }

    /// ` owner UID[:GID] mode MODE`, numbers as written, owner first.
    fn owner_and_mode(&self, p: &mut Parts<'a>, owner: Option<&Owner>, mode: Option<&IntLit>) {
        if let Some(o) = owner {
            p.text(format!(" owner {}", self.slice(o.uid.span)));
            if let Some(g) = &o.gid {
                p.text(format!(":{}", self.slice(g.span)));
            }
        }
        if let Some(m) = mode {
            p.text(format!(" mode {}", self.slice(m.span)));
        }
    }

    fn range_text(&self, r: &RangeLit) -> String {
        let lo = r.lo.as_ref().map(|i| self.slice(i.span)).unwrap_or("");
        let hi = r.hi.as_ref().map(|i| self.slice(i.span)).unwrap_or("");
        format!("{lo}..{hi}")
    }

    fn expr(&self, p: &mut Parts<'a>, e: &'a Expr) {
        match e {
            Expr::Str(s) => p.string(s),
            Expr::Int(i) => p.text(self.slice(i.span)),
            Expr::Bool(b, _) => p.text(if *b { "true" } else { "false" }),
            Expr::Ref(r) => p.text(r.dotted()),
            Expr::Range(r) => p.text(self.range_text(r)),
            Expr::List(values, span) => p.0.push(Part::Seq(Seq {
                open: span.start + 1,
                close: span.end.saturating_sub(1).max(span.start + 1),
                values: values.iter().collect(),
                brackets: ("[", "]"),
            })),
            Expr::Call(c) => {
                p.text(c.name.name.to_string());
                p.0.push(Part::Seq(Seq {
                    open: c.parens.start + 1,
                    close: c.parens.end.saturating_sub(1).max(c.parens.start + 1),
                    values: c.args.iter().collect(),
                    brackets: ("(", ")"),
                }));
            }
            Expr::For(f) => {
                let iterable = match &f.iterable {
                    Some(Iterable::Consumers {
                        contract: Some(c), ..
                    }) => format!("consumers {}", c.name),
                    Some(Iterable::List(r)) => r.dotted(),
                    _ => return p.text(self.slice(f.span)),
                };
                let Some(template) = &f.template else {
                    return p.text(self.slice(f.span));
                };
                p.text(format!("for {} in {iterable} ", f.var.name));
                if let Some(sep) = &f.sep {
                    p.text("sep ");
                    p.string(sep);
                    p.text(" ");
                }
                p.string(template);
            }
            Expr::Error(span) => p.text(self.slice(*span)),
        }
    }

    // ---- one line ----

    /// The node on one line, when the rules allow it (width aside): no triple-quoted
    /// string, every block and list in it free of comments, every block short and simple.
    /// A comment elsewhere inside the node (`mount x.path // note` before `-> "/data"` on
    /// the next line) does not count: it moves above the node whichever way the node is
    /// written, so counting it would make the second run decide differently.
    fn flat(&self, node: Node<'a>) -> Option<String> {
        self.flat_parts(&self.parts(node))
    }

    fn flat_parts(&self, parts: &[Part<'a>]) -> Option<String> {
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Str(span, triple) => {
                    if *triple {
                        return None;
                    }
                    out.push_str(self.slice(*span));
                }
                Part::Block(b) => out.push_str(&self.flat_block(b)?),
                Part::Seq(s) => out.push_str(&self.flat_seq(s)?),
            }
        }
        Some(out)
    }

    fn flat_block(&self, b: &Block<'a>) -> Option<String> {
        if self.comments.any_in(b.open, b.close) {
            return None;
        }
        if b.entries.is_empty() {
            return Some("{}".into());
        }
        if b.structural || b.entries.len() > MAX_ONE_LINE_ENTRIES {
            return None;
        }
        let mut texts = Vec::new();
        for (i, entry) in b.entries.iter().enumerate() {
            let parts = self.parts(*entry);
            if parts.iter().any(|p| matches!(p, Part::Block(_))) {
                return None;
            }
            let text = self.flat_parts(&parts)?;
            if i > 0 && CONTINUATION_WORDS.contains(&first_word(&text)) {
                return None;
            }
            texts.push(text);
        }
        Some(format!("{{ {} }}", texts.join("  ")))
    }

    fn flat_seq(&self, s: &Seq<'a>) -> Option<String> {
        if self.comments.any_in(s.open, s.close) {
            return None;
        }
        let mut texts = Vec::new();
        for v in &s.values {
            texts.push(self.flat(Node::Expr(v))?);
        }
        Some(format!(
            "{}{}{}",
            s.brackets.0,
            texts.join(", "),
            s.brackets.1
        ))
    }

    // ---- several lines ----

    /// The node's text starting at column `indent` (its later lines carry their own
    /// indentation), with `tail` more columns to follow it on its last line.
    fn render(&mut self, node: Node<'a>, indent: usize, tail: usize) -> String {
        if let Some(flat) = self.flat(node)
            && indent + width(&flat) + tail <= MAX_WIDTH
        {
            return flat;
        }
        self.broken(node, indent)
    }

    /// The node with its blocks opened, one entry per line, and its lists opened too
    /// unless they fit on the line from where they start.
    fn broken(&mut self, node: Node<'a>, indent: usize) -> String {
        let mut out = String::new();
        for part in self.parts(node) {
            match part {
                Part::Text(t) => out.push_str(&t),
                Part::Str(span, triple) => {
                    let raw = self.slice(span);
                    if triple {
                        out.push_str(&strings::triple(raw, indent));
                    } else {
                        out.push_str(raw);
                    }
                }
                Part::Block(b) => {
                    if b.entries.is_empty() && !self.comments.any_in(b.open, b.close) {
                        out.push_str("{}");
                    } else {
                        out.push('{');
                        out.push_str(&self.open_lines(
                            &b.entries,
                            b.open,
                            b.close,
                            indent,
                            Kind::Block,
                        ));
                        out.push('}');
                    }
                }
                Part::Seq(s) => {
                    // A list that fits on its line from where it starts stays on it, even
                    // when what follows it does not fit.
                    let column = match out.rfind('\n') {
                        Some(nl) => width(&out[nl + 1..]),
                        None => indent + width(&out),
                    };
                    // (A value of a list is here because it did not fit with its comma.)
                    if !matches!(node, Node::Expr(_))
                        && let Some(flat) = self.flat_seq(&s)
                        && column + width(&flat) <= MAX_WIDTH
                    {
                        out.push_str(&flat);
                        continue;
                    }
                    let values: Vec<Node<'a>> = s.values.iter().map(|v| Node::Expr(v)).collect();
                    out.push_str(s.brackets.0);
                    if !values.is_empty() || self.comments.any_in(s.open, s.close) {
                        out.push_str(&self.open_lines(
                            &values,
                            s.open,
                            s.close,
                            indent,
                            Kind::List,
                        ));
                    }
                    out.push_str(s.brackets.1);
                }
            }
        }
        out
    }

    /// What follows an opening bracket written at a line indented by `indent`: the comment
    /// on its line, then the entries one step deeper, then the indentation of the closing
    /// bracket.
    fn open_lines(
        &mut self,
        entries: &[Node<'a>],
        open: u32,
        close: u32,
        indent: usize,
        kind: Kind,
    ) -> String {
        let limit = entries.first().map(|e| e.span().start).unwrap_or(close);
        let mut out = String::new();
        let mut start = open;
        if let Some(c) = self.comments.take_same_line_plain(open, limit) {
            out.push(' ');
            out.push_str(self.comments.text(c));
            start = self.comments.span(c).end;
        }
        out.push('\n');
        out.push_str(&self.lines(start, close, entries, indent + INDENT, kind));
        out.push_str(&" ".repeat(indent));
        out
    }

    /// The entries between `start` and `end` one per line at `indent`, with the comments
    /// around them; every line ends with a newline.
    fn lines(
        &mut self,
        start: u32,
        end: u32,
        entries: &[Node<'a>],
        indent: usize,
        kind: Kind,
    ) -> String {
        let mut lines = Vec::new();
        let mut cursor = start;
        let tail = if kind == Kind::List { 1 } else { 0 };
        for (i, entry) in entries.iter().enumerate() {
            let span = entry.span();
            let mut group = Vec::new();
            for c in self.comments.take_in(cursor, span.start) {
                group.push(Line::Comment {
                    index: c,
                    blank_before: self
                        .comments
                        .blank_between(cursor, self.comments.span(c).start),
                });
                cursor = self.comments.span(c).end;
            }
            let blank_before = self.comments.blank_between(cursor, span.start);
            let mut text = self.render(*entry, indent, tail);
            if kind == Kind::List {
                text.push(',');
            }
            // Comments inside an entry that was printed on one line go above it: plain
            // ones above its doc comments, which must stay right on top of it, and doc
            // comments (which document the entry they are written in) right above it,
            // after its own.
            let mut entry_blank = blank_before;
            let (inner_docs, inner): (Vec<usize>, Vec<usize>) = self
                .comments
                .take_in(span.start, span.end)
                .into_iter()
                .partition(|&c| self.comments.is_doc(c));
            for index in inner_docs {
                // A blank line before the entry goes before the doc comments moved there.
                let blank_before = std::mem::take(&mut entry_blank);
                group.push(Line::Comment {
                    index,
                    blank_before,
                });
            }
            if !inner.is_empty() {
                let head_blank = match group.first_mut() {
                    Some(Line::Comment { blank_before, .. }) => std::mem::take(blank_before),
                    _ => std::mem::take(&mut entry_blank),
                };
                let mut all: Vec<Line> = inner
                    .into_iter()
                    .enumerate()
                    .map(|(k, c)| Line::Comment {
                        index: c,
                        blank_before: k == 0 && head_blank,
                    })
                    .collect();
                all.append(&mut group);
                group = all;
            }
            let next = entries.get(i + 1).map(|e| e.span().start).unwrap_or(end);
            // A trailing `///` documents the next entry: it goes on its own line above it.
            let trailing = self.comments.take_same_line_plain(span.end, next);
            cursor = trailing
                .map(|c| self.comments.span(c).end)
                .unwrap_or(span.end);
            lines.append(&mut group);
            lines.push(Line::Entry {
                text,
                trailing,
                blank_before: entry_blank,
                seat_decl: entry.is_seat_decl(),
            });
        }
        for c in self.comments.take_in(cursor, end) {
            lines.push(Line::Comment {
                index: c,
                blank_before: self
                    .comments
                    .blank_between(cursor, self.comments.span(c).start),
            });
            cursor = self.comments.span(c).end;
        }
        self.write_lines(lines, indent, kind)
    }

    fn write_lines(&self, lines: Vec<Line>, indent: usize, kind: Kind) -> String {
        let pad = " ".repeat(indent);
        let mut out = String::new();
        // Whether the previous line ended an item (top level) and was a seat declaration.
        let mut prev: Option<(bool, bool)> = None;
        for line in lines {
            let (blank, this) = match &line {
                Line::Comment { blank_before, .. } => (*blank_before, (false, false)),
                Line::Entry {
                    blank_before,
                    seat_decl,
                    ..
                } => (*blank_before, (true, *seat_decl)),
            };
            let blank = match prev {
                None => false,
                Some((prev_item, prev_seat)) => {
                    if kind == Kind::Top && prev_item {
                        // One blank line after every item, except between seat
                        // declarations, which may stay together.
                        !(prev_seat && this.1) || blank
                    } else {
                        blank
                    }
                }
            };
            if blank {
                out.push('\n');
            }
            out.push_str(&pad);
            match line {
                Line::Comment { index, .. } => out.push_str(self.comments.text(index)),
                Line::Entry { text, trailing, .. } => {
                    out.push_str(&text);
                    if let Some(c) = trailing {
                        out.push(' ');
                        out.push_str(self.comments.text(c));
                    }
                }
            }
            out.push('\n');
            prev = Some(this);
        }
        out
    }
}

/// The parts of one node, built in order.
#[derive(Default)]
struct Parts<'a>(Vec<Part<'a>>);

impl<'a> Parts<'a> {
    fn text(&mut self, t: impl Into<String>) {
        let t = t.into();
        if let Some(Part::Text(last)) = self.0.last_mut() {
            last.push_str(&t);
        } else {
            self.0.push(Part::Text(t));
        }
    }

    fn string(&mut self, s: &'a StringLit) {
        self.0.push(Part::Str(s.span, s.triple));
    }

    fn block(&mut self, b: Block<'a>) {
        self.0.push(Part::Block(b));
    }
}

fn type_text(ty: &TypeExpr) -> String {
    let base = match &ty.base {
        BaseType::Named(n) => n.name.to_string(),
        BaseType::List(inner) => format!("list<{}>", type_text(inner)),
        BaseType::Error => String::new(),
    };
    if ty.secret.is_some() {
        format!("secret {base}")
    } else {
        base
    }
}

/// The leading word of an entry's text (`exposed` in `exposed = 1`, `on` in `on.x = 1`).
fn first_word(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Columns a text takes on its widest line.
fn width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// An entry on its own, or the run of entries of one `when` block.
enum Group<'a, T> {
    One(&'a T),
    When(&'a When, &'a [T]),
}

/// The entries of a block cut into runs: the parser flattens a `when` block into its
/// entries, each carrying the block, so entries of one block stand together.
fn when_groups<'a, T>(entries: &'a [T], when: impl Fn(&T) -> Option<&When>) -> Vec<Group<'a, T>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        match when(&entries[i]) {
            None => {
                out.push(Group::One(&entries[i]));
                i += 1;
            }
            Some(w) => {
                let mut j = i + 1;
                while j < entries.len() && when(&entries[j]) == Some(w) {
                    j += 1;
                }
                let w: &'a When = when(&entries[i]).expect("checked");
                out.push(Group::When(w, &entries[i..j]));
                i = j;
            }
        }
    }
    out
}
