//! A recursive-descent parser with error recovery. Parsing never fails: it returns a tree
//! of whatever parsed and every syntax diagnostic. One broken entry does not hide the
//! errors of the next: recovery resumes at the next line of the same block, or at the
//! block's closing brace. Nesting is bounded, so hostile input cannot overflow the stack.

use super::ast::*;
use super::keywords;
use super::lexer::{Comment, Lexed, Token, TokenKind, lex};
use super::string;
use crate::diagnostics::rules::{BlockEnd, InvalidNumber, Nesting, SyntaxError, Unclosed};
use crate::diagnostics::{Diagnostic, Rule};
use crate::span::{FilePath, Span};
use smallvec::SmallVec;

/// Lists and types nest at most this deep; deeper input is refused with a diagnostic.
pub const MAX_NESTING: usize = 64;

/// The entries of a block, gathered on the stack while it is parsed; [`exact`] then moves
/// them into the tree.
type Gather<T> = SmallVec<[T; 16]>;

/// `nodes` in one allocation of their exact size (none when empty): the tree holds no
/// spare capacity, and a short block or list is never copied while it grows.
pub(crate) fn exact<A: smallvec::Array>(nodes: SmallVec<A>) -> Box<[A::Item]> {
    if nodes.spilled() {
        let nodes = nodes.into_vec();
        if nodes.len() == nodes.capacity() {
            return nodes.into_boxed_slice();
        }
        let mut out = Vec::with_capacity(nodes.len());
        out.extend(nodes);
        return out.into_boxed_slice();
    }
    if nodes.is_empty() {
        return Box::default();
    }
    let mut out = Vec::with_capacity(nodes.len());
    out.extend(nodes);
    out.into_boxed_slice()
}

/// A parsed file: its tree, its comments (for the formatter) and its syntax diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub file: SourceFile,
    pub comments: Vec<Comment>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `text`, read from `path`.
pub fn parse(path: &FilePath, text: &str) -> Parsed {
    let Lexed { tokens, comments } = lex(text);
    let mut p = Parser {
        text,
        tokens: &tokens,
        comments: &comments,
        pos: 0,
        path: path.clone(),
        diags: Vec::new(),
        last_error_at: None,
        depth: 0,
        claimed: Vec::new(),
        in_when: false,
        embedded: false,
        references: 0,
    };
    let mut file = p.source_file();
    attach_inner_docs(&mut file, text, &comments, &p.claimed);
    let diagnostics = p.diags;
    Parsed {
        file,
        comments,
        diagnostics,
    }
}

struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    comments: &'a [Comment],
    pos: usize,
    path: FilePath,
    diags: Vec<Diagnostic>,
    last_error_at: Option<usize>,
    depth: usize,
    /// The start of every doc comment handed to a node by [`Parser::docs`].
    claimed: Vec<u32>,
    /// Whether a `when` block is being parsed.
    in_when: bool,
    /// Whether these tokens are the body of one `${…}`, whose end is its `}`.
    embedded: bool,
    /// The references of the item being parsed so far: the next one's
    /// [`Reference::id`].
    references: u32,
}

/// Parses the body of an interpolation, `text[start..end]` (between `${` and `}`), as one
/// expression. `depth` is how deep this interpolation nests in others; deeper than
/// [`MAX_NESTING`] is refused. `None` when nothing parsed (already reported).
pub(crate) fn parse_embedded(
    text: &str,
    start: usize,
    end: usize,
    path: &FilePath,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
    references: &mut u32,
) -> Option<Expr> {
    let Lexed { mut tokens, .. } = lex(&text[start..end]);
    for t in &mut tokens {
        t.span = Span::new(t.span.start as usize + start, t.span.end as usize + start);
        t.newline_before = false;
    }
    let mut p = Parser {
        text,
        tokens: &tokens,
        comments: &[],
        pos: 0,
        path: path.clone(),
        diags: Vec::new(),
        last_error_at: None,
        depth,
        claimed: Vec::new(),
        in_when: false,
        embedded: true,
        references: *references,
    };
    if depth >= MAX_NESTING {
        p.error_here(SyntaxError::TooDeep {
            nesting: Nesting::Interpolations,
            max: MAX_NESTING,
        });
        diags.append(&mut p.diags);
        return None;
    }
    let e = p.expr();
    *references = p.references;
    if !matches!(e, Expr::Error(_)) && p.kind() != TokenKind::Eof {
        let found = p.found();
        p.error_here(SyntaxError::InterpolationNotClosed { found });
    }
    let ok = p.diags.is_empty();
    diags.append(&mut p.diags);
    (ok || !matches!(e, Expr::Error(_))).then_some(e)
}

impl<'a> Parser<'a> {
    /// The id of the reference being made ([`Reference::id`]).
    fn next_reference(&mut self) -> u32 {
        let id = self.references;
        // An item cannot hold 2^32 references (its text would be larger than a file).
        self.references = self.references.saturating_add(1);
        id
    }

    // ---- token helpers ----

    fn peek(&self) -> Token {
        self.tokens[self.pos]
    }

    fn peek_at(&self, n: usize) -> Token {
        self.tokens[(self.pos + n).min(self.tokens.len() - 1)]
    }

    fn kind(&self) -> TokenKind {
        self.tokens[self.pos].kind
    }

    fn slice(&self, span: Span) -> &'a str {
        &self.text[span.range()]
    }

    fn at_word(&self, word: &str) -> bool {
        debug_assert!(
            keywords::is_keyword(word),
            "`{word}` is not in the keyword table"
        );
        let t = self.peek();
        t.kind == TokenKind::Ident && self.slice(t.span) == word
    }

    fn at_word_same_line(&self, word: &str) -> bool {
        self.at_word(word) && !self.peek().newline_before
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos];
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.kind() == kind {
            Some(self.bump())
        } else {
            None
        }
    }

    fn eat_word(&mut self, word: &str) -> Option<Token> {
        if self.at_word(word) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.tokens[self.pos - 1].span.end
        }
    }

    fn span_from(&self, start: Span) -> Span {
        Span {
            start: start.start,
            end: self.prev_end().max(start.end),
        }
    }

    // ---- diagnostics ----

    fn found(&self) -> String {
        let t = self.peek();
        // After an `=` on its line, a word is a value written without quotes, which may
        // be a secret: it is named by its kind, never quoted.
        let line_start = self.text[..t.span.start as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        if matches!(t.kind, TokenKind::Ident | TokenKind::Int | TokenKind::Error)
            && self.text[line_start..t.span.start as usize].contains('=')
        {
            return match t.kind {
                TokenKind::Ident => "a word".into(),
                TokenKind::Int => "a number".into(),
                _ => "an unexpected character".into(),
            };
        }
        match t.kind {
            TokenKind::Ident => format!("`{}`", self.slice(t.span)),
            TokenKind::Int => format!("the number `{}`", self.slice(t.span)),
            TokenKind::Error => {
                format!("the character `{}`", self.slice(t.span).escape_debug())
            }
            TokenKind::Eof if self.embedded => "the `}` that ends the interpolation".into(),
            k => k.describe().to_string(),
        }
    }

    /// Reports "expected …, found …" at the current token, once per position.
    fn expected(&mut self, what: &str) {
        let found = self.found();
        self.error_here(SyntaxError::Expected { what, found });
    }

    /// Reports `error` at the current token, once per position.
    fn error_here(&mut self, error: SyntaxError<'_>) {
        if self.last_error_at == Some(self.pos) {
            return;
        }
        self.last_error_at = Some(self.pos);
        let t = self.peek();
        let d = error.at(&self.path, t.span);
        self.diags.push(d);
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> Option<Token> {
        if let Some(t) = self.eat(kind) {
            return Some(t);
        }
        self.expected(what);
        None
    }

    fn ident(&mut self, what: &str) -> Option<Ident> {
        if self.kind() == TokenKind::Ident {
            let t = self.bump();
            return Some(Ident {
                name: Name::from(self.slice(t.span)),
                span: t.span,
            });
        }
        self.expected(what);
        None
    }

    /// An identifier on the same line as what precedes it.
    fn ident_same_line(&mut self, what: &str) -> Option<Ident> {
        if self.kind() == TokenKind::Ident && !self.peek().newline_before {
            return self.ident(what);
        }
        self.expected(what);
        None
    }

    // ---- doc comments ----

    /// The `///` lines directly above the current token, marked as claimed.
    fn docs(&mut self) -> Docs {
        let tok = self.peek().span.start;
        let prev_end = self.prev_end();
        let mut i = self.comments.partition_point(|c| c.span.end <= tok);
        // Most docs are a line or two: gathered with no allocation but the text's.
        let mut lines = SmallVec::<[&str; 4]>::new();
        while i > 0 {
            let c = self.comments[i - 1];
            if !c.doc || c.span.start < prev_end {
                break;
            }
            lines.push(doc_line(self.slice(c.span)));
            self.claimed.push(c.span.start);
            i -= 1;
        }
        let text: Box<str> = match lines.as_slice() {
            [] => return Docs::default(),
            [line] => Box::from(*line),
            _ => {
                lines.reverse();
                lines.join("\n").into_boxed_str()
            }
        };
        Docs::new(text)
    }

    // ---- recovery ----

    /// Skips the rest of a broken entry: at least one token, then up to the next line or
    /// the closing brace of the enclosing block (nested brackets skipped whole). A `}`
    /// closes the innermost `{` skipped, passing over any `[` left open inside it (`bad
    /// [2J }` leaves its block closed by that `}`), and ends the skip when no skipped `{`
    /// is open: it is the block's own.
    fn recover_in_block(&mut self) {
        let mut open = Brackets::default();
        let mut first = true;
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::RBrace | TokenKind::RBracket if open.is_empty() => {
                    if first && t.kind == TokenKind::RBracket {
                        self.bump();
                    }
                    return;
                }
                _ if open.is_empty() && !first && t.newline_before => return,
                // What was opened in the skip is left open: the next item is not skipped.
                TokenKind::Ident if !first && self.item_begins() => return,
                TokenKind::LBrace | TokenKind::LBracket => open.push(t.kind),
                TokenKind::RBrace | TokenKind::RBracket => {
                    // A `}` that closes no `{` skipped is the block's own.
                    let closed = open.close(t.kind);
                    if !closed && t.kind == TokenKind::RBrace {
                        return;
                    }
                }
                _ => {}
            }
            first = false;
            self.bump();
        }
    }

    /// Skips to the next item keyword at the start of a line, outside any braces. Only
    /// braces count: a `[` left open in what is skipped (`garbage [`) hides no item after
    /// it, and a stray `]` opens nothing.
    fn recover_at_top(&mut self) {
        let mut depth = 0usize;
        let mut first = true;
        loop {
            let t = self.peek();
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Ident
                    if depth == 0
                        && !first
                        && t.newline_before
                        && keywords::words_of(keywords::Kind::Item)
                            .any(|w| w == self.slice(t.span)) =>
                {
                    return;
                }
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => depth = depth.saturating_sub(1),
                _ => {}
            }
            first = false;
            self.bump();
        }
    }

    /// Parses `{ entry… }` after the current `{`, recovering inside it.
    fn block<T>(
        &mut self,
        what: &str,
        within: Within,
        mut entry: impl FnMut(&mut Self) -> Option<T>,
    ) -> (Box<[T]>, Span) {
        let mut out = Gather::new();
        let span = self.block_into(what, within, &mut out, |p, out| {
            entry(p).map(|t| out.push(t)).is_some()
        });
        (exact(out), span)
    }

    /// Parses `{ entry… }` after the current `{` into `out`, recovering inside it; `entry`
    /// adds what one entry holds (a `when` block, several), or says it parsed nothing.
    fn block_into<T>(
        &mut self,
        what: &str,
        within: Within,
        out: &mut Gather<T>,
        mut entry: impl FnMut(&mut Self, &mut Gather<T>) -> bool,
    ) -> Span {
        let at = self.pos;
        let open = self.bump().span;
        loop {
            match self.kind() {
                TokenKind::RBrace => {
                    let close = self.bump().span;
                    return open.to(close);
                }
                TokenKind::Eof => {
                    self.unclosed_block(what, at, BlockEnd::FileEnd);
                    return self.span_from(open);
                }
                _ => {
                    if let Some(ends) = self.open_block_ends(within) {
                        self.unclosed_block(what, at, ends);
                        return self.span_from(open);
                    }
                    let start = self.pos;
                    if !entry(self, out) {
                        self.recover_in_block();
                    }
                    if self.pos == start {
                        self.bump();
                    }
                }
            }
        }
    }

    /// E0005 for the block of `what` whose `{` is token `at`, which `ends` ends. Names
    /// the likeliest forgotten `}` when a block inside it was closed by a `}` indented as
    /// an outer block is.
    #[cold]
    fn unclosed_block(&mut self, what: &str, at: usize, ends: BlockEnd) {
        let open = self.tokens[at].span;
        let end = self.peek().span;
        let suspect = self.misaligned_between(at + 1, self.pos);
        let d = Unclosed::Block {
            what,
            end,
            ends,
            suspect,
        }
        .at(&self.path, open);
        self.diags.push(d);
    }

    /// What begins here beyond doubt that ends a block lying `within` and left open: the
    /// next item (then that item is read as one), or, inside a module's or a mesh's
    /// entry, that item's next entry (which it then reads).
    #[inline(always)]
    fn open_block_ends(&self, within: Within) -> Option<BlockEnd> {
        if self.kind() != TokenKind::Ident {
            return None;
        }
        if self.item_begins() {
            return Some(BlockEnd::Item);
        }
        match within {
            Within::ModuleEntry if self.module_entry_begins() => Some(BlockEnd::ModuleEntry),
            Within::MeshEntry if self.mesh_entry_begins() => Some(BlockEnd::MeshEntry),
            _ => None,
        }
    }

    /// Whether the next item begins here beyond doubt: `module`, `contract` or `mesh` in
    /// the first column of a line, then a name on that line, then `{` (or a contract's
    /// `for`). No entry of any block begins so, so a block that meets it was left open.
    #[inline]
    fn item_begins(&self) -> bool {
        // Asked at every entry: most are indented, and the byte before them is no line
        // break. One that is (a first column) has a line break before it.
        let start = self.peek().span.start as usize;
        start > 0 && self.text.as_bytes()[start - 1] == b'\n' && self.item_begins_in_first_column()
    }

    /// Whether a module's entry begins here beyond doubt: at the start of a line,
    /// `container` or `job` and a name and `{`, `requires` and a name and `:`, or
    /// `provides` and a contract and `{`. No entry of a block inside a module's entry
    /// begins so (a narrowing's `container = 80` is a field), so such a block that meets
    /// it was left open.
    #[inline]
    fn module_entry_begins(&self) -> bool {
        let t = self.peek();
        // Asked at every entry of those blocks: most begin with no such first letter (an
        // env key is in capitals).
        t.newline_before
            && matches!(
                self.text.as_bytes()[t.span.start as usize],
                b'c' | b'j' | b'p' | b'r'
            )
            && self.module_entry_begins_with_its_letter()
    }

    /// Whether a mesh's entry begins here beyond doubt: at the start of a line, `node`
    /// and a name and `{`, `assign` and a module and `to` or `as`, or `seat` and a name
    /// and `=`. No node property or assignment entry begins so (an assignment's
    /// `node at …` is a requirement placed), so a node's or an assignment's block that
    /// meets it was left open.
    fn mesh_entry_begins(&self) -> bool {
        let t = self.peek();
        if !t.newline_before {
            return false;
        }
        let (name, next) = (self.peek_at(1), self.peek_at(2));
        if name.kind != TokenKind::Ident || name.newline_before || next.newline_before {
            return false;
        }
        match self.slice(t.span) {
            "node" => next.kind == TokenKind::LBrace,
            "seat" => next.kind == TokenKind::Eq,
            "assign" => {
                next.kind == TokenKind::Ident && matches!(self.slice(next.span), "to" | "as")
            }
            _ => false,
        }
    }

    /// [`Parser::module_entry_begins`] for a word at the start of a line whose first
    /// letter is one of a module entry's.
    #[inline(never)]
    fn module_entry_begins_with_its_letter(&self) -> bool {
        let t = self.peek();
        let after = match self.slice(t.span) {
            "container" | "job" | "provides" => TokenKind::LBrace,
            "requires" => TokenKind::Colon,
            _ => return false,
        };
        let (name, next) = (self.peek_at(1), self.peek_at(2));
        name.kind == TokenKind::Ident
            && !name.newline_before
            && next.kind == after
            && !next.newline_before
    }

    /// [`Parser::item_begins`] for a token in the first column of its line.
    #[inline(never)]
    fn item_begins_in_first_column(&self) -> bool {
        let t = self.peek();
        if t.kind != TokenKind::Ident
            || !matches!(self.slice(t.span), "module" | "contract" | "mesh")
        {
            return false;
        }
        let (name, after) = (self.peek_at(1), self.peek_at(2));
        name.kind == TokenKind::Ident
            && !name.newline_before
            && !after.newline_before
            && (after.kind == TokenKind::LBrace
                || (after.kind == TokenKind::Ident && self.slice(after.span) == "for"))
    }

    /// The first block among tokens `from..to` (in the order they close) whose `}`, first
    /// on its line, is not indented as the line of its `{` is: that `{` and `}`. Asked
    /// only of a block left open, so the files that parse pay nothing for it.
    fn misaligned_between(&self, from: usize, to: usize) -> Option<(Span, Span)> {
        let mut open: Vec<Span> = Vec::new();
        for t in &self.tokens[from..to] {
            match t.kind {
                TokenKind::LBrace => open.push(t.span),
                TokenKind::RBrace => {
                    let Some(brace) = open.pop() else { continue };
                    if t.newline_before
                        && self.indentation(t.span.start) != self.indentation(brace.start)
                    {
                        return Some((brace, t.span));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The indentation of the line that holds byte `at`: its leading spaces and tabs.
    fn indentation(&self, at: u32) -> usize {
        let before = &self.text.as_bytes()[..at as usize];
        let line = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        before[line..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count()
    }

    /// `KEYWORD NAME { ENTRY… }` after the current keyword: the name, the entries and the
    /// whole span. A missing block is reported and the item kept with no entries.
    fn named_block<T>(
        &mut self,
        name_what: &str,
        block_what: &str,
        missing: &str,
        entry: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<(Ident, Box<[T]>, Span)> {
        let start = self.bump().span;
        let name = self.ident(name_what)?;
        let mut entries = Box::default();
        if self.kind() == TokenKind::LBrace {
            entries = self.block(block_what, Within::Item, entry).0;
        } else {
            self.expected(missing);
        }
        Some((name, entries, self.span_from(start)))
    }

    // ---- items ----

    fn source_file(&mut self) -> SourceFile {
        let mut items = SmallVec::<[Item; 4]>::new();
        while self.kind() != TokenKind::Eof {
            let start = self.pos;
            // Each item numbers its own references (`Reference::id`), so one item's
            // never depend on another's.
            self.references = 0;
            let docs = self.docs();
            let item = if self.at_word("contract") {
                self.contract(docs).map(Item::Contract)
            } else if self.at_word("module") {
                self.module(docs).map(Item::Module)
            } else if self.at_word("mesh") {
                self.mesh(docs).map(Item::Mesh)
            } else if self.at_word("seat") {
                self.seat_decl(docs).map(Item::Seat)
            } else {
                self.expected("an item (`contract`, `module` or `mesh`)");
                None
            };
            match item {
                Some(item) => items.push(item),
                None => self.recover_at_top(),
            }
            if self.pos == start {
                self.bump();
            }
        }
        SourceFile {
            items: exact(items),
        }
    }

    fn contract(&mut self, docs: Docs) -> Option<Contract> {
        let start = self.bump().span;
        let name = self.ident("the contract's name")?;
        let kind = if self.eat_word("for").is_some() {
            self.ident("a provider kind (`module`, `host` or `mesh`)")
        } else {
            self.expected("`for` and the provider kind that answers the contract");
            None
        };
        let mut fields = Box::default();
        if self.kind() == TokenKind::LBrace {
            fields = self.block("the contract", Within::Item, |p| p.field()).0;
        } else if kind.is_some() {
            self.expected("`{`");
        }
        Some(Contract {
            docs,
            name,
            kind,
            fields,
            span: self.span_from(start),
        })
    }

    fn field(&mut self) -> Option<Field> {
        let docs = self.docs();
        let start = self.peek().span;
        let given = if self.at_word("given") && self.peek_at(1).kind == TokenKind::Ident {
            Some(self.bump().span)
        } else {
            None
        };
        let name = self.ident("a field name")?;
        self.expect(TokenKind::Colon, "`:` and the field's type")?;
        let ty = self.type_expr();
        let refinements = self.refinements();
        let default = if self.eat(TokenKind::Eq).is_some() {
            Some(self.expr())
        } else {
            None
        };
        Some(Field {
            docs,
            given,
            name,
            ty,
            refinements,
            default,
            span: self.span_from(start),
        })
    }

    fn type_expr(&mut self) -> Option<TypeExpr> {
        let start = self.peek().span;
        let secret = if self.at_word("secret") && self.peek_at(1).kind == TokenKind::Ident {
            Some(self.bump().span)
        } else {
            None
        };
        let base = self.base_type()?;
        Some(TypeExpr {
            secret,
            base,
            span: self.span_from(start),
        })
    }

    fn base_type(&mut self) -> Option<BaseType> {
        if self.at_word("list") && self.peek_at(1).kind == TokenKind::Lt {
            if self.depth >= MAX_NESTING {
                self.error_here(SyntaxError::TooDeep {
                    nesting: Nesting::Types,
                    max: MAX_NESTING,
                });
                self.recover_in_block();
                return Some(BaseType::Error);
            }
            self.bump();
            self.bump();
            self.depth += 1;
            let inner = self.type_expr();
            self.depth -= 1;
            self.expect(TokenKind::Gt, "`>` to close `list<`");
            return Some(match inner {
                Some(t) => BaseType::List(Box::new(t)),
                None => BaseType::Error,
            });
        }
        if self.kind() == TokenKind::Ident && !self.peek().newline_before {
            return self.ident("a type").map(BaseType::Named);
        }
        self.expected("a type (`string`, `int`, `port`, …)");
        None
    }

    fn refinements(&mut self) -> Box<[Refinement]> {
        let mut out = SmallVec::<[Refinement; 2]>::new();
        loop {
            if self.at_word_same_line("in") {
                let kw = self.bump().span;
                if self.kind() == TokenKind::LBrace {
                    if let Some(mut set) = self.set_lit() {
                        set.span = kw.to(set.span);
                        out.push(Refinement::InSet(set));
                    }
                } else if let Some(mut r) = self.range_lit() {
                    r.span = kw.to(r.span);
                    out.push(Refinement::InRange(r));
                } else {
                    break;
                }
            } else if self.at_word_same_line("len") {
                let kw = self.bump().span;
                match self.range_lit() {
                    Some(mut r) => {
                        r.span = kw.to(r.span);
                        out.push(Refinement::Len(r));
                    }
                    None => break,
                }
            } else if self.at_word_same_line("matches") {
                let kw = self.bump().span;
                match self.kind() {
                    TokenKind::Str(_) | TokenKind::TripleStr(_) => {
                        let mut s = self.string_lit();
                        s.span = kw.to(s.span);
                        out.push(Refinement::Matches(s));
                    }
                    _ => {
                        self.expected("a regular expression in a string");
                        break;
                    }
                }
            } else {
                break;
            }
        }
        exact(out)
    }

    fn range_lit(&mut self) -> Option<RangeLit> {
        let start = self.peek().span;
        let lo = if self.kind() == TokenKind::Int {
            Some(self.int_lit())
        } else {
            None
        };
        if self.eat(TokenKind::DotDot).is_none() {
            self.expected("a range such as `1..64`, `16..` or `..20`");
            return None;
        }
        let hi = if self.kind() == TokenKind::Int && !self.peek().newline_before {
            Some(self.int_lit())
        } else {
            None
        };
        Some(RangeLit {
            lo,
            hi,
            span: self.span_from(start),
        })
    }

    fn set_lit(&mut self) -> Option<SetLit> {
        let open = self.bump().span;
        let mut values = SmallVec::<[Expr; 8]>::new();
        loop {
            match self.kind() {
                TokenKind::RBrace => {
                    let close = self.bump().span;
                    return Some(SetLit {
                        values: exact(values),
                        span: open.to(close),
                    });
                }
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::Str(_) | TokenKind::TripleStr(_) | TokenKind::Int | TokenKind::Ident => {
                    values.push(self.expr())
                }
                TokenKind::Eof => {
                    self.unclosed(open, "`{` of this set");
                    return None;
                }
                _ => {
                    self.expected("a value of the set or `}`");
                    return None;
                }
            }
        }
    }

    fn unclosed(&mut self, open: Span, what: &str) {
        let end = self.peek().span;
        let d = Unclosed::AtEnd { what, end }.at(&self.path, open);
        self.diags.push(d);
    }

    fn seat_decl(&mut self, docs: Docs) -> Option<SeatDecl> {
        let start = self.bump().span;
        let name = self.ident("the seat's name")?;
        let contract = if self.eat_word("delivers").is_some() {
            self.ident("the contract the seat delivers")
        } else {
            self.expected("`delivers` and a contract");
            None
        };
        Some(SeatDecl {
            docs,
            name,
            contract,
            span: self.span_from(start),
        })
    }

    // ---- modules ----

    fn module(&mut self, docs: Docs) -> Option<Module> {
        let (name, entries, span) = self.named_block(
            "the module's name",
            "the module",
            "`{` and the module's requirements and containers",
            |p| p.module_entry(),
        )?;
        Some(Module {
            docs,
            name,
            entries,
            span,
            references: self.references,
        })
    }

    fn module_entry(&mut self) -> Option<ModuleEntry> {
        let claimed = self.claimed.len();
        let docs = self.docs();
        if self.at_word("requires") {
            self.requirement(docs).map(ModuleEntry::Requires)
        } else if self.at_word("container") || self.at_word("job") {
            self.container(docs).map(ModuleEntry::Container)
        } else if self.at_word("provides") {
            self.provides(docs).map(ModuleEntry::Provides)
        } else if self.at_word("slug") {
            // A slug has no docs: those above it document the module.
            self.claimed.truncate(claimed);
            let start = self.bump().span;
            let s = self.string_expected("the slug, a string such as `\"forge\"`")?;
            Some(ModuleEntry::Slug(s, self.span_from(start)))
        } else {
            self.expected("`requires`, `container`, `job`, `provides` or `slug`");
            None
        }
    }

    fn requirement(&mut self, docs: Docs) -> Option<Requirement> {
        let start = self.bump().span;
        let name = self.ident("the requirement's name")?;
        let optional = self.eat(TokenKind::Question).map(|t| t.span);
        self.expect(TokenKind::Colon, "`:` and a provider kind")?;
        let kind =
            self.ident_same_line("a provider kind (`module`, `host`, `mesh` or `operator`)")?;
        // `requires db: postgres`: a contract with its kind forgotten. It is kept as a
        // requirement with no kind, so the checker can name the kinds and show the line
        // with the one the contract takes (E0201).
        if !keywords::words_of(keywords::Kind::ProviderKind).any(|w| w == kind.name)
            && (self.kind() != TokenKind::Ident || self.peek().newline_before)
        {
            let (narrowing, block) = if self.kind() == TokenKind::LBrace {
                let (n, s) = self.block("the narrowing", Within::ModuleEntry, |p| p.narrowing());
                (n, Some(s))
            } else {
                (Box::default(), None)
            };
            return Some(Requirement {
                docs,
                name,
                optional,
                kind: None,
                body: RequirementBody::Contract {
                    contract: Some(kind),
                    narrowing,
                    block,
                },
                span: self.span_from(start),
            });
        }
        let body = if kind.name == "operator" {
            let ty = self.type_expr();
            let refinements = self.refinements();
            let default = if self.eat(TokenKind::Eq).is_some() {
                Some(self.expr())
            } else {
                None
            };
            RequirementBody::Operator(Box::new(OperatorBody {
                ty,
                refinements,
                default,
            }))
        } else {
            // The words of the error are made only when there is one: every contract
            // requirement of a workspace comes here.
            let contract = match self.kind() == TokenKind::Ident && !self.peek().newline_before {
                true => self.ident_same_line(""),
                false => self.ident_same_line(&format!("a contract name after `{}`", kind.name)),
            };
            let (narrowing, block) = if contract.is_some() && self.kind() == TokenKind::LBrace {
                let (n, s) = self.block("the narrowing", Within::ModuleEntry, |p| p.narrowing());
                (n, Some(s))
            } else {
                (Box::default(), None)
            };
            RequirementBody::Contract {
                contract,
                narrowing,
                block,
            }
        };
        Some(Requirement {
            docs,
            name,
            optional,
            kind: Some(kind),
            body,
            span: self.span_from(start),
        })
    }

    fn narrowing(&mut self) -> Option<Narrowing> {
        let start = self.peek().span;
        let field = self.ident("a field to set or narrow")?;
        let kind = if self.eat(TokenKind::Eq).is_some() {
            NarrowingKind::Set(self.expr())
        } else {
            let r = self.refinements();
            if r.is_empty() {
                self.expected("`=` and a value, or a refinement (`in`, `len`, `matches`)");
                return None;
            }
            NarrowingKind::Refine(r)
        };
        Some(Narrowing {
            field,
            kind,
            span: self.span_from(start),
        })
    }

    /// `container NAME { … }` or `job NAME { … }` at the current keyword.
    fn container(&mut self, docs: Docs) -> Option<Container> {
        let job = self.at_word("job");
        let start = self.bump().span;
        let name = self.ident(if job {
            "the job's name"
        } else {
            "the container's name"
        })?;
        let mut entries = Gather::new();
        if self.kind() == TokenKind::LBrace {
            self.block_into(
                "the container",
                Within::ModuleEntry,
                &mut entries,
                |p, out| {
                    if p.at_word("when") && p.peek_at(1).kind != TokenKind::Eq {
                        p.when_block(
                            "container entries",
                            out,
                            |p| p.container_entry(),
                            |e| &mut e.when,
                        )
                    } else {
                        p.container_entry().map(|e| out.push(e)).is_some()
                    }
                },
            );
        } else if job {
            self.expected("`{` and the job's entries");
        } else {
            self.expected("`{` and the container's entries");
        }
        Some(Container {
            docs,
            name,
            entries: exact(entries),
            job,
            span: self.span_from(start),
        })
    }

    fn container_entry(&mut self) -> Option<ContainerEntry> {
        let docs = self.docs();
        let start = self.peek().span;
        let word = if self.kind() == TokenKind::Ident {
            self.slice(start)
        } else {
            ""
        };
        let kind = match word {
            "image" => {
                self.bump();
                ContainerEntryKind::Image(self.string_expected("the image reference, a string")?)
            }
            "command" => {
                self.bump();
                ContainerEntryKind::Command(self.expr())
            }
            "user" => {
                self.bump();
                let uid = self.expr();
                let gid = if self.kind() == TokenKind::Colon
                    && self.peek().span.start == uid.span().end
                {
                    self.bump();
                    if self.kind() == TokenKind::Int && !self.peek().newline_before {
                        Some(self.int_lit())
                    } else {
                        let found = self.found();
                        let uid = self.slice(uid.span()).to_string();
                        self.error_here(SyntaxError::GroupId {
                            keyword: "user",
                            uid: &uid,
                            found,
                        });
                        None
                    }
                } else {
                    None
                };
                ContainerEntryKind::User(Box::new(User { uid, gid }))
            }
            "health" => {
                self.bump();
                ContainerEntryKind::Health(Box::new(self.health()))
            }
            "after" => {
                self.bump();
                let mut names = SmallVec::<[Ident; 4]>::new();
                // Nothing named is told, and the next line is read as the next entry.
                let what = "the name of a container or job of the module this one starts after";
                if self.kind() != TokenKind::Ident || self.peek().newline_before {
                    self.expected(what);
                    return Some(ContainerEntry {
                        docs,
                        kind: ContainerEntryKind::After(Box::default()),
                        when: None,
                        span: self.span_from(start),
                    });
                }
                names.push(self.ident_same_line(what)?);
                while self.kind() == TokenKind::Ident
                    && !self.peek().newline_before
                    && !self.at_next_container_entry()
                {
                    let t = self.bump();
                    names.push(Ident {
                        name: Name::from(self.slice(t.span)),
                        span: t.span,
                    });
                }
                ContainerEntryKind::After(exact(names))
            }
            "image_paths" => {
                self.bump();
                ContainerEntryKind::ImagePaths(self.expr())
            }
            "env" => {
                self.bump();
                if self.kind() != TokenKind::LBrace {
                    self.expected("`{` and the environment's entries");
                    return None;
                }
                let mut entries = Gather::new();
                self.block_into(
                    "the env block",
                    Within::ModuleEntry,
                    &mut entries,
                    |p, out| {
                        if p.at_word("when") && p.peek_at(1).kind != TokenKind::Eq {
                            p.when_block("env entries", out, |p| p.env_entry(), |e| &mut e.when)
                        } else {
                            p.env_entry().map(|e| out.push(e)).is_some()
                        }
                    },
                );
                ContainerEntryKind::Env(exact(entries))
            }
            "mount" => {
                self.bump();
                let source = self.expr();
                let target = if self
                    .expect(TokenKind::Arrow, "`->` and the container path")
                    .is_some()
                {
                    self.string_expected("the container path, a string")
                } else {
                    None
                };
                let read_only = self.eat_word("read_only").map(|t| t.span);
                ContainerEntryKind::Mount(Box::new(Mount {
                    source,
                    target,
                    read_only,
                }))
            }
            "secret" => {
                self.bump();
                let target = self.string_expected("the secret file's container path, a string")?;
                let (owner, mode) = self.owner_and_mode("secret file");
                self.expect(TokenKind::Eq, "`=` and the secret's value")?;
                ContainerEntryKind::Secret(Box::new(FileEntry {
                    target,
                    owner,
                    mode,
                    value: self.expr(),
                }))
            }
            "file" => {
                self.bump();
                let target = self.string_expected("the file's container path, a string")?;
                let (owner, mode) = self.owner_and_mode("file");
                self.expect(TokenKind::Eq, "`=` and the file's content")?;
                ContainerEntryKind::File(Box::new(FileEntry {
                    target,
                    owner,
                    mode,
                    value: self.expr(),
                }))
            }
            "publish" => {
                self.bump();
                ContainerEntryKind::Publish(self.ident_same_line("a port requirement to publish")?)
            }
            _ => {
                let found = self.found();
                self.error_here(SyntaxError::ContainerEntry { found });
                return None;
            }
        };
        Some(ContainerEntry {
            docs,
            kind,
            when: None,
            span: self.span_from(start),
        })
    }

    /// Whether the current word starts the next entry of a container written on the same
    /// line as `after NAME…` (`after pg  image "x"`): a word that starts a container entry
    /// and is followed on its line by more. A name at the end of the line is a name.
    fn at_next_container_entry(&self) -> bool {
        const ENTRIES: &[&str] = &[
            "image",
            "command",
            "user",
            "env",
            "mount",
            "secret",
            "file",
            "publish",
            "image_paths",
            "health",
            "after",
            "when",
        ];
        let word = self.slice(self.peek().span);
        let next = self.peek_at(1);
        ENTRIES.contains(&word)
            && !next.newline_before
            && !matches!(next.kind, TokenKind::RBrace | TokenKind::Eof)
    }

    /// `ARGV [every D] [start D] [retries N]` after `health`: the options in any order, as
    /// written (one written twice is the checker's E0314).
    fn health(&mut self) -> Health {
        let argv = if self.peek().newline_before || self.kind() == TokenKind::RBrace {
            // Nothing on its line: told, and the next line is the next entry.
            self.expected("the health test, a list such as `[\"pg_isready\", \"--quiet\"]`");
            Expr::Error(Span {
                start: self.prev_end(),
                end: self.prev_end(),
            })
        } else {
            self.expr()
        };
        let mut options = SmallVec::<[HealthOption; 3]>::new();
        loop {
            let kind = if self.at_word_same_line("every") {
                HealthOptionKind::Every
            } else if self.at_word_same_line("start") {
                HealthOptionKind::Start
            } else if self.at_word_same_line("retries") {
                HealthOptionKind::Retries
            } else {
                break;
            };
            let keyword = self.bump().span;
            if self.peek().newline_before || self.kind() == TokenKind::RBrace {
                self.expected(match kind {
                    HealthOptionKind::Retries => "the number of retries, as in `retries 3`",
                    _ => "a duration, a string such as `\"30s\"`",
                });
                break;
            }
            let value = self.expr();
            options.push(HealthOption {
                kind,
                keyword,
                value,
            });
        }
        Health {
            argv,
            options: exact(options),
        }
    }

    /// `[owner UID[:GID]] [mode MODE]`, in either order, after a file's or secret file's
    /// path (LANGUAGE.md §12.1). A half-written one is reported and what parsed is kept.
    fn owner_and_mode(&mut self, what: &str) -> (Option<Owner>, Option<IntLit>) {
        let mut owner: Option<Owner> = None;
        let mut mode: Option<IntLit> = None;
        loop {
            if self.at_word_same_line("owner") {
                let start = self.bump().span;
                if self.kind() != TokenKind::Int {
                    let found = self.found();
                    self.error_here(SyntaxError::Owner { what, found });
                    continue;
                }
                let uid = self.int_lit();
                let gid =
                    if self.kind() == TokenKind::Colon && self.peek().span.start == uid.span.end {
                        self.bump();
                        if self.kind() == TokenKind::Int && !self.peek().newline_before {
                            Some(self.int_lit())
                        } else {
                            let found = self.found();
                            let uid = self.slice(uid.span).to_string();
                            self.error_here(SyntaxError::GroupId {
                                keyword: "owner",
                                uid: &uid,
                                found,
                            });
                            None
                        }
                    } else {
                        None
                    };
                let o = Owner {
                    span: self.span_from(start),
                    uid,
                    gid,
                };
                if owner.is_some() {
                    let d = SyntaxError::OwnerTwice { what }.at(&self.path, o.span);
                    self.diags.push(d);
                } else {
                    owner = Some(o);
                }
            } else if self.at_word_same_line("mode") {
                let start = self.bump().span;
                if self.kind() != TokenKind::Int {
                    self.expected("a file mode such as `0o640`");
                    continue;
                }
                let m = self.int_lit();
                if mode.is_some() {
                    let d = SyntaxError::ModeTwice { what }.at(&self.path, start.to(m.span));
                    self.diags.push(d);
                } else {
                    mode = Some(m);
                }
            } else {
                return (owner, mode);
            }
        }
    }

    fn env_entry(&mut self) -> Option<EnvEntry> {
        let docs = self.docs();
        let start = self.peek().span;
        let key = self.ident("an environment variable name")?;
        self.expect(TokenKind::Eq, "`=` and the variable's value")?;
        let value = self.expr();
        let exposed = if self.at_word_same_line("exposed") {
            let kw = self.bump().span;
            let reason = match self.kind() {
                TokenKind::Str(_) | TokenKind::TripleStr(_) if !self.peek().newline_before => {
                    Some(self.string_lit())
                }
                _ => None,
            };
            Some(Box::new(Exposed {
                span: self.span_from(kw),
                reason,
            }))
        } else {
            None
        };
        Some(EnvEntry {
            docs,
            key,
            value,
            exposed,
            when: None,
            span: self.span_from(start),
        })
    }

    /// `when NAME { ENTRY… }` at the current `when`: its entries added to `out`, each
    /// carrying the block in the slot `when` gives. A `when` inside a `when` is refused,
    /// and skipped; `false` when nothing parsed.
    fn when_block<T>(
        &mut self,
        what: &str,
        out: &mut Gather<T>,
        mut entry: impl FnMut(&mut Self) -> Option<T>,
        when: impl Fn(&mut T) -> &mut Option<Box<When>>,
    ) -> bool {
        if self.in_when {
            self.error_here(SyntaxError::NestedWhen);
            return false;
        }
        let start = self.bump().span;
        let Some(requirement) = self.ident_same_line("the optional requirement `when` tests")
        else {
            return false;
        };
        if self.kind() != TokenKind::LBrace {
            self.expected(&format!(
                "`{{` and the {what} kept when `{}` is present",
                requirement.name
            ));
            return false;
        }
        self.in_when = true;
        let first = out.len();
        self.block_into("the `when` block", Within::ModuleEntry, out, |p, out| {
            entry(p).map(|t| out.push(t)).is_some()
        });
        self.in_when = false;
        let block = When {
            requirement,
            span: self.span_from(start),
        };
        for t in &mut out[first..] {
            *when(t) = Some(Box::new(block.clone()));
        }
        true
    }

    fn provides(&mut self, docs: Docs) -> Option<Provides> {
        let start = self.bump().span;
        let contract = self.ident_same_line("the contract this module provides")?;
        let mut answers = Box::default();
        if self.kind() == TokenKind::LBrace {
            answers = self
                .block("the provides block", Within::ModuleEntry, |p| {
                    let docs = p.docs();
                    let start = p.peek().span;
                    let field = p.ident("a field of the contract")?;
                    p.expect(TokenKind::Eq, "`=` and the field's answer")?;
                    let value = p.expr();
                    Some(Answer {
                        docs,
                        field,
                        value,
                        span: p.span_from(start),
                    })
                })
                .0;
        } else {
            self.expected("`{` and the contract's answers");
        }
        Some(Provides {
            docs,
            contract,
            answers,
            span: self.span_from(start),
        })
    }

    // ---- meshes ----

    fn mesh(&mut self, docs: Docs) -> Option<Mesh> {
        let (name, entries, span) = self.named_block(
            "the mesh's name",
            "the mesh",
            "`{` and the mesh's nodes and assignments",
            |p| p.mesh_entry(),
        )?;
        Some(Mesh {
            docs,
            name,
            entries,
            span,
        })
    }

    fn mesh_entry(&mut self) -> Option<MeshEntry> {
        let docs = self.docs();
        if self.at_word("node") {
            let start = self.bump().span;
            let name = self.ident("the node's name")?;
            let mut props = Box::default();
            if self.kind() == TokenKind::LBrace {
                props = self
                    .block("the node", Within::MeshEntry, |p| {
                        let start = p.peek().span;
                        let key =
                            p.ident("a node property (`private_name`, `private_address`, `root`, `ports`, `short`)")?;
                        p.expect(TokenKind::Eq, "`=` and the property's value")?;
                        let value = p.expr();
                        Some(Prop {
                            key,
                            value,
                            span: p.span_from(start),
                        })
                    })
                    .0;
            } else {
                self.expected("`{` and the node's `private_name`");
            }
            Some(MeshEntry::Node(Node {
                docs,
                name,
                props,
                span: self.span_from(start),
            }))
        } else if self.at_word("seat") {
            let start = self.bump().span;
            let seat = self.ident("the seat's name")?;
            self.expect(
                TokenKind::Eq,
                "`=`, the instance holding the seat, `on` and its node",
            )?;
            let instance = self.ident_same_line("the instance that holds the seat");
            let node = if instance.is_some() {
                if self.eat_word("on").is_some() {
                    self.ident_same_line("the node of that instance")
                } else {
                    self.expected("`on` and the node of that instance");
                    None
                }
            } else {
                None
            };
            Some(MeshEntry::Seat(SeatAssign {
                docs,
                seat,
                instance,
                node,
                span: self.span_from(start),
            }))
        } else if self.at_word("assign") {
            self.assign(docs).map(MeshEntry::Assign)
        } else {
            self.expected("`node`, `seat` or `assign`");
            None
        }
    }

    fn assign(&mut self, docs: Docs) -> Option<Assign> {
        let start = self.bump().span;
        let module = self.ident("the module to assign")?;
        let node = if self.eat_word("to").is_some() {
            self.ident_same_line("the node to assign it to")
        } else {
            self.expected("`to` and a node");
            None
        };
        let instance = if self.at_word_same_line("as") {
            self.bump();
            self.ident_same_line("the instance's name")
        } else {
            None
        };
        let (entries, block) = if self.kind() == TokenKind::LBrace {
            let (e, s) = self.block("the assignment", Within::MeshEntry, |p| p.assign_entry());
            (e, Some(s))
        } else {
            (Box::default(), None)
        };
        Some(Assign {
            docs,
            module,
            node,
            instance,
            entries,
            block,
            span: self.span_from(start),
        })
    }

    fn assign_entry(&mut self) -> Option<AssignEntry> {
        let start = self.peek().span;
        let name = self.ident("a requirement name, or `short`")?;
        // `keep_network "NAME"` and a bare `genesis` are contextual: a requirement may
        // still be named either (`genesis = 3`, `keep_network at "/srv"`).
        if name.name == "keep_network"
            && matches!(self.kind(), TokenKind::Str(_) | TokenKind::TripleStr(_))
        {
            let network = self.expr();
            return Some(AssignEntry {
                kind: AssignEntryKind::KeepNetwork {
                    keyword: name.span,
                    network,
                },
                span: self.span_from(start),
            });
        }
        if name.name == "keep_network"
            && !matches!(self.kind(), TokenKind::Dot | TokenKind::Eq)
            && !self.at_word_same_line("from")
            && !self.at_word_same_line("at")
            && !self.at_word_same_line("absent")
        {
            let found = self.found();
            self.error_here(SyntaxError::KeepNetworkName { found });
            return None;
        }
        if name.name == "genesis"
            && !matches!(self.kind(), TokenKind::Dot | TokenKind::Eq)
            && !self.at_word_same_line("from")
            && !self.at_word_same_line("at")
            && !self.at_word_same_line("absent")
        {
            return Some(AssignEntry {
                kind: AssignEntryKind::Genesis { keyword: name.span },
                span: self.span_from(start),
            });
        }
        let kind = if self.eat(TokenKind::Dot).is_some() {
            let field = self.ident("a field of the requirement's contract")?;
            self.expect(TokenKind::Eq, "`=` and the field's value")?;
            AssignEntryKind::Given {
                requirement: name,
                field,
                value: self.expr(),
            }
        } else if self.eat(TokenKind::Eq).is_some() {
            AssignEntryKind::Value {
                name,
                value: self.expr(),
            }
        } else if self.eat_word("from").is_some() {
            let instance = self.ident_same_line("the providing instance")?;
            let node = if self.eat_word("on").is_some() {
                self.ident_same_line("the provider's node")
            } else {
                self.expected("`on` and the provider's node");
                None
            };
            AssignEntryKind::Pin {
                requirement: name,
                instance,
                node,
            }
        } else if self.at_word_same_line("absent") {
            self.bump();
            AssignEntryKind::Absent { requirement: name }
        } else if self.eat_word("at").is_some() {
            let at = self.expr();
            let node = if self.at_word_same_line("on") {
                self.bump();
                self.ident_same_line("a node")
            } else {
                None
            };
            AssignEntryKind::Place {
                requirement: name,
                at,
                node,
            }
        } else {
            self.expected(
                "`=`, `.FIELD =`, `from INSTANCE on NODE`, `at \"/host/path\"` or `absent`",
            );
            return None;
        };
        Some(AssignEntry {
            kind,
            span: self.span_from(start),
        })
    }

    // ---- expressions ----

    fn string_lit(&mut self) -> StringLit {
        let t = self.bump();
        let (triple, terminated) = match t.kind {
            TokenKind::Str(done) => (false, done),
            TokenKind::TripleStr(done) => (true, done),
            _ => (false, true),
        };
        string::decode(
            self.text,
            t.span,
            triple,
            terminated,
            &self.path,
            self.depth,
            &mut self.diags,
            &mut self.references,
        )
    }

    fn string_expected(&mut self, what: &str) -> Option<StringLit> {
        match self.kind() {
            TokenKind::Str(_) | TokenKind::TripleStr(_) => Some(self.string_lit()),
            _ => {
                self.expected(what);
                None
            }
        }
    }

    fn int_lit(&mut self) -> IntLit {
        let t = self.bump();
        let raw = self.slice(t.span);
        let (neg, body) = match raw.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        let (radix, digits, base) = if let Some(d) = body.strip_prefix("0o") {
            (Radix::Octal, d, 8)
        } else if let Some(d) = body.strip_prefix("0x") {
            (Radix::Hex, d, 16)
        } else {
            (Radix::Decimal, body, 10)
        };
        let value = i64::from_str_radix(digits, base)
            .ok()
            .filter(|_| !digits.starts_with(['+', '-']));
        let value = match value {
            Some(v) => {
                if neg {
                    -v
                } else {
                    v
                }
            }
            None => {
                let why = match radix {
                    Radix::Octal => "an octal number has only the digits 0 to 7",
                    Radix::Hex => "a hexadecimal number has only the digits 0-9 and a-f",
                    Radix::Decimal if digits.chars().all(|c| c.is_ascii_digit()) => {
                        "a number must fit in 64 bits"
                    }
                    Radix::Decimal => "a decimal number has only the digits 0 to 9",
                };
                let d = InvalidNumber { why }.at(&self.path, t.span);
                self.diags.push(d);
                0
            }
        };
        IntLit {
            value,
            radix,
            span: t.span,
        }
    }

    fn expr(&mut self) -> Expr {
        let t = self.peek();
        match t.kind {
            TokenKind::Str(_) | TokenKind::TripleStr(_) => Expr::Str(self.string_lit()),
            TokenKind::Int => {
                if self.peek_at(1).kind == TokenKind::DotDot {
                    match self.range_lit() {
                        Some(r) => Expr::Range(Box::new(r)),
                        None => Expr::Error(t.span),
                    }
                } else {
                    Expr::Int(self.int_lit())
                }
            }
            TokenKind::DotDot => match self.range_lit() {
                Some(r) => Expr::Range(Box::new(r)),
                None => Expr::Error(t.span),
            },
            TokenKind::Ident => {
                let word = self.slice(t.span);
                if word == "true" || word == "false" {
                    self.bump();
                    return Expr::Bool(word == "true", t.span);
                }
                if self.peek_at(1).kind == TokenKind::LParen
                    && self.peek_at(1).span.start == t.span.end
                {
                    return self.call();
                }
                if word == "for" && self.peek_at(1).kind != TokenKind::Dot {
                    return self.for_expr();
                }
                let mut segments = SmallVec::<[Ident; 4]>::new();
                segments.push(self.ident("a name").expect("checked Ident"));
                while self.kind() == TokenKind::Dot && self.peek_at(1).kind == TokenKind::Ident {
                    self.bump();
                    segments.push(self.ident("a field").expect("checked Ident"));
                }
                if self.kind() == TokenKind::Dot {
                    self.bump();
                    self.expected("a field name after `.`");
                }
                Expr::Ref(Reference {
                    segments: exact(segments),
                    id: self.next_reference(),
                })
            }
            TokenKind::LBracket => self.list(),
            _ => {
                self.expected(
                    "a value (a string, a number, `true`, `false`, a list or `req.field`)",
                );
                Expr::Error(Span::new(t.span.start as usize, t.span.start as usize))
            }
        }
    }

    /// `NAME(ARG, …)`, the `(` right after the name. A missing `)` is reported where the
    /// arguments stop; what parsed is kept.
    fn call(&mut self) -> Expr {
        let name = self.ident("a function name").expect("checked Ident");
        let open = self.bump().span;
        if self.depth >= MAX_NESTING {
            self.error_here(SyntaxError::TooDeep {
                nesting: Nesting::Calls,
                max: MAX_NESTING,
            });
            self.pos -= 1;
            self.skip_balanced();
            return Expr::Error(self.span_from(name.span));
        }
        self.depth += 1;
        let mut args = SmallVec::<[Expr; 4]>::new();
        loop {
            match self.kind() {
                TokenKind::RParen => {
                    self.bump();
                    break;
                }
                TokenKind::Comma if !args.is_empty() => {
                    self.bump();
                }
                TokenKind::Eof | TokenKind::RBrace | TokenKind::RBracket => {
                    let at = self.peek().span;
                    let d = Unclosed::Call {
                        function: &name.name,
                        stop: Some(at),
                    }
                    .at(&self.path, open);
                    self.diags.push(d);
                    break;
                }
                TokenKind::Ident
                    if self.peek().newline_before && self.peek_at(1).kind == TokenKind::Eq =>
                {
                    // The next entry begins (`KEY = …`): the `)` is what is missing.
                    let d = Unclosed::Call {
                        function: &name.name,
                        stop: None,
                    }
                    .at(&self.path, open);
                    self.diags.push(d);
                    break;
                }
                _ => {
                    if !args.is_empty() && self.tokens[self.pos - 1].kind != TokenKind::Comma {
                        self.expected("`,` or `)` between the arguments");
                    }
                    let before = self.pos;
                    let e = self.expr();
                    let bad = matches!(e, Expr::Error(_));
                    args.push(e);
                    if bad && self.pos == before {
                        self.bump();
                    }
                }
            }
        }
        self.depth -= 1;
        Expr::Call(Box::new(Call {
            parens: self.span_from(open),
            span: self.span_from(name.span),
            name,
            args: exact(args),
        }))
    }

    /// `for NAME in ITERABLE TEMPLATE` at the current `for` (LANGUAGE.md §12.3). What
    /// parsed is kept; a missing part is reported once and left `None`.
    fn for_expr(&mut self) -> Expr {
        let start = self.bump().span;
        let Some(var) = self.ident_same_line(
            "the loop variable's name after `for`, as in `for c in consumers CONTRACT \"…\"`",
        ) else {
            return Expr::Error(self.span_from(start));
        };
        let mut f = ForExpr {
            var,
            iterable: None,
            sep: None,
            template: None,
            span: start,
        };
        if self.eat_word("in").is_none() {
            self.expected(&format!(
                "`in` and what `{}` runs over (`consumers CONTRACT` or a list)",
                f.var.name
            ));
            f.span = self.span_from(start);
            return Expr::For(Box::new(f));
        }
        let t = self.peek();
        if t.kind != TokenKind::Ident || t.newline_before {
            let found = self.found();
            self.error_here(SyntaxError::ForOver {
                var: &f.var.name,
                found,
            });
            f.span = self.span_from(start);
            return Expr::For(Box::new(f));
        }
        let word = self.slice(t.span);
        if word == "consumers" && self.peek_at(1).kind != TokenKind::Dot {
            let keyword = self.bump().span;
            let contract = self.ident_same_line(
                "the contract whose consumers the loop runs over, as in `consumers route`",
            );
            let found = contract.is_some();
            f.iterable = Some(Iterable::Consumers { keyword, contract });
            if !found {
                f.span = self.span_from(start);
                return Expr::For(Box::new(f));
            }
        } else {
            match self.expr() {
                Expr::Ref(r) => f.iterable = Some(Iterable::List(r)),
                Expr::Error(_) => {
                    f.span = self.span_from(start);
                    return Expr::For(Box::new(f));
                }
                other => {
                    let d = SyntaxError::ForOverValue.at(&self.path, other.span());
                    self.diags.push(d);
                }
            }
        }
        if self.at_word_same_line("sep") {
            self.bump();
            match self.kind() {
                TokenKind::Str(_) | TokenKind::TripleStr(_) if !self.peek().newline_before => {
                    f.sep = Some(self.string_lit())
                }
                _ => {
                    self.expected("the separator, a string such as `\",\"`, after `sep`");
                    f.span = self.span_from(start);
                    return Expr::For(Box::new(f));
                }
            }
        }
        match self.kind() {
            TokenKind::Str(_) | TokenKind::TripleStr(_) => f.template = Some(self.string_lit()),
            _ => self.expected(&format!(
                "the template, a string rendered once for every `{}`",
                f.var.name
            )),
        }
        f.span = self.span_from(start);
        Expr::For(Box::new(f))
    }

    fn list(&mut self) -> Expr {
        let open = self.peek().span;
        if self.depth >= MAX_NESTING {
            self.error_here(SyntaxError::TooDeep {
                nesting: Nesting::Lists,
                max: MAX_NESTING,
            });
            self.skip_balanced();
            return Expr::Error(self.span_from(open));
        }
        self.bump();
        self.depth += 1;
        let mut items = SmallVec::<[Expr; 8]>::new();
        loop {
            match self.kind() {
                TokenKind::RBracket => {
                    self.bump();
                    break;
                }
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::Eof => {
                    self.unclosed(open, "`[`");
                    break;
                }
                TokenKind::RBrace => {
                    // The block closes around an open list: the `[` is what is unclosed.
                    let end = self.peek().span;
                    let d = Unclosed::ListInBlock { end }.at(&self.path, open);
                    self.diags.push(d);
                    break;
                }
                _ => {
                    let before = self.pos;
                    let e = self.expr();
                    let bad = matches!(e, Expr::Error(_));
                    items.push(e);
                    if bad || self.pos == before {
                        // Skip what cannot be a list element.
                        if self.pos == before {
                            self.bump();
                        }
                    }
                }
            }
        }
        self.depth -= 1;
        Expr::List(exact(items), self.span_from(open))
    }

    /// Skips a bracketed group whole, iteratively. A `}` that closes no `{` of the group
    /// is the enclosing block's: the skip ends before it (see [`Brackets::close`]).
    fn skip_balanced(&mut self) {
        let mut open = Brackets::default();
        loop {
            let kind = self.kind();
            match kind {
                TokenKind::Eof => return,
                TokenKind::LBracket | TokenKind::LBrace => open.push(kind),
                TokenKind::RBracket | TokenKind::RBrace => {
                    if !open.close(kind) && kind == TokenKind::RBrace {
                        return;
                    }
                    if open.is_empty() {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }
}

/// Where a block lies, which says what else ends it when its `}` is forgotten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Within {
    /// Directly in an item (a module's, contract's or mesh's own block): only the next
    /// item ends it.
    Item,
    /// Inside one of a module's entries (a container, its env and `when` blocks, a
    /// narrowing, a provides block): the module's next entry ends it too.
    ModuleEntry,
    /// Inside one of a mesh's entries (a node, an assignment): the mesh's next entry
    /// ends it too.
    MeshEntry,
}

/// The brackets a recovery has skipped into and not yet seen closed, innermost last.
#[derive(Default)]
struct Brackets(Vec<TokenKind>);

impl Brackets {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn push(&mut self, open: TokenKind) {
        self.0.push(open);
    }

    /// Closes what `close` closes, and says whether it closed anything. A `}` closes the
    /// innermost open `{` and every `[` left open inside it (blocks hold lists, so a `}`
    /// ends its block whatever lists inside were never closed); one that matches no open
    /// `{` belongs to a block outside the skip. A `]` closes the innermost bracket only
    /// when that is a `[`; any other is a stray one, passed over.
    fn close(&mut self, close: TokenKind) -> bool {
        if close == TokenKind::RBracket {
            let closes = self.0.last() == Some(&TokenKind::LBracket);
            if closes {
                self.0.pop();
            }
            return closes;
        }
        match self.0.iter().rposition(|&k| k == TokenKind::LBrace) {
            Some(at) => {
                self.0.truncate(at);
                true
            }
            None => false,
        }
    }
}

/// The text of one `///` line as docs hold it.
fn doc_line(comment: &str) -> &str {
    let text = comment.strip_prefix("///").unwrap_or(comment);
    text.strip_prefix(' ').unwrap_or(text).trim_end()
}

/// Gives each doc comment that is not directly above a node (one written inside an entry,
/// `given /// note` before the field's name on the next line, or before a closing brace)
/// to the innermost node with docs that holds it, after the docs it already has. So a doc
/// comment always documents the node it is written in, and the formatter, which moves a
/// comment from inside a one-line entry to just above it, keeps its meaning.
fn attach_inner_docs(file: &mut SourceFile, text: &str, comments: &[Comment], claimed: &[u32]) {
    let mut claimed = claimed.to_vec();
    claimed.sort_unstable();
    for c in comments.iter().filter(|c| c.doc) {
        if claimed.binary_search(&c.span.start).is_ok() {
            continue;
        }
        if let Some(docs) = innermost_docs(file, c.span.start) {
            let line = doc_line(&text[c.span.range()]);
            docs.push_line(line);
        }
    }
}

/// The docs of the innermost node that has docs and holds `pos`.
fn innermost_docs(file: &mut SourceFile, pos: u32) -> Option<&mut Docs> {
    Some(match holding(&mut file.items, pos, Item::span)? {
        Item::Contract(c) => match holding(&mut c.fields, pos, |f| f.span) {
            Some(f) => &mut f.docs,
            None => &mut c.docs,
        },
        Item::Module(m) => match holding(&mut m.entries, pos, module_entry_span) {
            Some(ModuleEntry::Requires(r)) => &mut r.docs,
            Some(ModuleEntry::Container(c)) => match holding(&mut c.entries, pos, |e| e.span) {
                Some(e) => match &mut e.kind {
                    ContainerEntryKind::Env(env) => match holding(env, pos, |v| v.span) {
                        Some(v) => &mut v.docs,
                        None => &mut e.docs,
                    },
                    _ => &mut e.docs,
                },
                None => &mut c.docs,
            },
            Some(ModuleEntry::Provides(p)) => match holding(&mut p.answers, pos, |a| a.span) {
                Some(a) => &mut a.docs,
                None => &mut p.docs,
            },
            Some(ModuleEntry::Slug(..)) | None => &mut m.docs,
        },
        Item::Mesh(m) => match holding(&mut m.entries, pos, mesh_entry_span) {
            Some(MeshEntry::Node(n)) => &mut n.docs,
            Some(MeshEntry::Seat(s)) => &mut s.docs,
            Some(MeshEntry::Assign(a)) => &mut a.docs,
            None => &mut m.docs,
        },
        Item::Seat(s) => &mut s.docs,
    })
}

/// The node of `nodes` (in source order, apart) whose span holds `pos`, found by halving.
fn holding<T>(nodes: &mut [T], pos: u32, span: impl Fn(&T) -> Span) -> Option<&mut T> {
    let i = nodes.partition_point(|n| span(n).end <= pos);
    nodes
        .get_mut(i)
        .filter(|n| span(n).start <= pos && pos < span(n).end)
}

fn module_entry_span(e: &ModuleEntry) -> Span {
    match e {
        ModuleEntry::Slug(_, span) => *span,
        ModuleEntry::Requires(r) => r.span,
        ModuleEntry::Container(c) => c.span,
        ModuleEntry::Provides(p) => p.span,
    }
}

fn mesh_entry_span(e: &MeshEntry) -> Span {
    match e {
        MeshEntry::Node(n) => n.span,
        MeshEntry::Seat(s) => s.span,
        MeshEntry::Assign(a) => a.span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` parsed as the file `t.mesh`.
    fn parse_t(text: &str) -> Parsed {
        parse(&FilePath::from("t.mesh"), text)
    }

    fn container_of(text: &str) -> (Container, Vec<String>) {
        let parsed = parse_t(text);
        let messages = parsed
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        let Some(Item::Module(m)) = parsed.file.items.into_iter().next() else {
            panic!("a module");
        };
        let c = m.containers().next().expect("a container").clone();
        (c, messages)
    }

    #[test]
    fn after_names_end_where_the_next_entry_starts_on_their_line() {
        let (c, errors) = container_of(
            "module m { job a { image \"x\"  after pg b  publish http  after mount } }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(c.job);
        let afters: Vec<Vec<&str>> = c
            .entries
            .iter()
            .filter_map(|e| match &e.kind {
                ContainerEntryKind::After(names) => {
                    Some(names.iter().map(|n| n.name.as_str()).collect())
                }
                _ => None,
            })
            .collect();
        // `mount` at the end of its entry is a name, not the next entry.
        assert_eq!(afters, vec![vec!["pg", "b"], vec!["mount"]]);
    }

    #[test]
    fn half_written_day_two_entries_are_told_and_the_next_line_is_read() {
        let (c, errors) = container_of(
            "module m {\n  container a {\n    after\n    health [\"x\"] every\n    user 1:\n    image \"x\"\n  }\n}",
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(
            errors[0].contains("the name of a container or job"),
            "{errors:?}"
        );
        assert!(errors[1].contains("a duration"), "{errors:?}");
        assert!(errors[2].contains("group id"), "{errors:?}");
        // Recovery reads the entries after them.
        assert!(
            c.entries
                .iter()
                .any(|e| matches!(e.kind, ContainerEntryKind::Image(_)))
        );
        let health = c.entries.iter().find_map(|e| match &e.kind {
            ContainerEntryKind::Health(h) => Some(h),
            _ => None,
        });
        assert!(health.is_some_and(|h| h.options.is_empty()));
    }

    /// A broken entry that opens a `[` it never closes: its block's `}` still closes
    /// the block, so the only error is the entry's, and what follows the block is read.
    /// Between items, a `[` left open hides no item after it.
    #[test]
    fn a_list_left_open_in_a_broken_entry_does_not_swallow_its_blocks_brace() {
        for text in [
            "module a {\n  bad [2J\n}\nmodule b {}\n",
            "module a {\n  bad [x, {y}\n}\nmodule b {}\n",
            "module a {\n  container c {\n    bad [ {x]\n  }\n  }\n}\nmodule b {}\n",
            "garbage [ x\nmodule a {}\nmodule b {}\n",
            "garbage ] {\n[\n}\nmodule a {}\nmodule b {}\n",
        ] {
            let parsed = parse_t(text);
            let codes: Vec<String> = parsed
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect();
            assert_eq!(codes.len(), 1, "{text:?}: {codes:?}");
            assert!(codes[0].starts_with("E0001"), "{text:?}: {codes:?}");
            assert_eq!(module_names(&parsed), ["a", "b"], "{text:?}");
        }
    }

    fn module_names(parsed: &Parsed) -> Vec<&str> {
        parsed
            .file
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Module(m) => Some(m.name.name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// A forgotten `}`: the next item's keyword in the first column ends the open
    /// blocks, the item after them is read, and the block whose `}` lines up with an
    /// outer block is named as the likeliest place.
    #[test]
    fn a_forgotten_brace_ends_at_the_next_item_and_names_the_misaligned_block() {
        let text = "module a {\n  container c {\n    env { N = \"x\"\n  }\n}\n\nmodule b {}\n";
        let parsed = parse_t(text);
        assert_eq!(module_names(&parsed), ["a", "b"]);
        let [d] = parsed.diagnostics.as_slice() else {
            panic!("{:?}", parsed.diagnostics);
        };
        assert_eq!(d.code, crate::diagnostics::Code::E0005);
        assert_eq!(&text[d.span.range()], "{");
        assert_eq!(d.span.start, 9, "the module's `{{`");
        let labels: Vec<(&str, &str)> = d
            .labels
            .iter()
            .map(|l| (&text[l.span.range()], l.message.as_str()))
            .collect();
        let env_open = text.find("env {").unwrap() + 4;
        assert_eq!(d.labels[0].span.start as usize, env_open, "{labels:?}");
        assert_eq!(labels[1].0, "}", "{labels:?}");
        assert_eq!(
            d.labels[1].span.start as usize,
            text.find("  }\n}").unwrap() + 2
        );
        assert_eq!(labels[2].0, "module", "{labels:?}");
        assert!(labels[2].1.contains("next item"), "{labels:?}");

        // A misaligned `}` of an earlier item, closed, is not named.
        let text = "module z {\n  container c { image \"x\"\n    }\n}\nmodule a {\n  requires p: host port {\n}\n";
        let parsed = parse_t(text);
        let [d] = parsed.diagnostics.as_slice() else {
            panic!("{:?}", parsed.diagnostics);
        };
        assert_eq!(d.code, crate::diagnostics::Code::E0005);
        let suspect = d.labels.iter().find(|l| l.message.contains("perhaps"));
        let at = suspect.map(|l| l.span.start as usize);
        assert_eq!(at, Some(text.find("port {").unwrap() + 5));

        // Recovery inside a broken entry stops at the next item too.
        let parsed = parse_t("module a {\n  bad {\nmodule b {}\n");
        assert_eq!(module_names(&parsed), ["a", "b"]);
        let codes: Vec<_> = parsed.diagnostics.iter().map(|d| d.code).collect();
        use crate::diagnostics::Code::{E0001, E0005};
        assert_eq!(codes, [E0001, E0005]);
    }

    /// A block inside a module's entry left open: the module's next entry ends it, so
    /// the one error is that block's, and the module reads its entries after it.
    #[test]
    fn a_forgotten_brace_inside_an_entry_ends_at_the_modules_next_entry() {
        for (text, open, entries) in [
            (
                "module a {\n  container web {\n  container main {\n    image \"x\"\n  }\n  provides p { a = 1 }\n}\n",
                "web {",
                3,
            ),
            (
                "module a {\n  requires db: module postgres {\n  requires k: host node\n  job j {\n    image \"x\"\n  }\n}\n",
                "postgres {",
                3,
            ),
            (
                "module a {\n  provides p {\n    host = \"x\"\n  requires k: host node\n}\n",
                "p {",
                2,
            ),
        ] {
            let parsed = parse_t(text);
            let [d] = parsed.diagnostics.as_slice() else {
                panic!("{text:?}: {:?}", parsed.diagnostics);
            };
            assert_eq!(d.code, crate::diagnostics::Code::E0005, "{text:?}");
            let brace = text.find(open).unwrap() + open.len() - 1;
            assert_eq!(d.span.start as usize, brace, "{text:?}");
            assert!(
                d.labels.iter().any(|l| l.message.contains("next entry")),
                "{text:?}: {:?}",
                d.labels
            );
            let Some(Item::Module(m)) = parsed.file.items.first() else {
                panic!("a module");
            };
            assert_eq!(m.entries.len(), entries, "{text:?}: {:?}", m.entries);
        }
    }

    /// A node's or an assignment's block left open: the mesh's next entry ends it, and
    /// the mesh reads that entry; an assignment may still place a requirement named
    /// `node` or set one named `seat`.
    #[test]
    fn a_forgotten_brace_inside_a_mesh_entry_ends_at_the_meshs_next_entry() {
        let text = "mesh lab {\n  node a {\n    private_name = \"a\"\n  assign web to a {\n    x = 1\n  seat s = web on a\n  node b { private_name = \"b\" }\n}\n";
        let parsed = parse_t(text);
        let codes: Vec<_> = parsed.diagnostics.iter().map(|d| d.code).collect();
        use crate::diagnostics::Code::E0005;
        assert_eq!(codes, [E0005, E0005], "{:?}", parsed.diagnostics);
        let Some(Item::Mesh(m)) = parsed.file.items.first() else {
            panic!("a mesh");
        };
        assert_eq!(m.entries.len(), 4, "{:?}", m.entries);
        let text = "mesh lab {\n  assign web to a {\n    node at \"/srv\"\n    seat = 3\n    assign = 2\n  }\n}\n";
        let parsed = parse_t(text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    /// Only an item's or a module entry's beginning beyond doubt ends a block: a key,
    /// field or env name `module`, `container` or `requires`, or an item's keyword
    /// indented, is read as before.
    #[test]
    fn words_of_items_that_begin_no_item_end_no_block() {
        for text in [
            "module a {\n  container c {\n    image \"x\"\n    env {\nmodule = \"x\"\n    }\n  }\n}\n",
            "contract a for module {\nmesh: string\n}\n",
            "module a {\n  container c {\n    image \"x\"\n  }\n  module b {}\n}\n",
            "module a {\n  requires p: host port {\n    container = 80\n  }\n}\n",
            "module a {\n  container c {\n    image \"x\"\n    env {\n      requires = \"x\"\n      container = \"y\"\n    }\n  }\n}\n",
            "module a {\n  requires p: host port {\n    container in 1..9\n  }\n}\n",
        ] {
            let parsed = parse_t(text);
            let codes: Vec<_> = parsed.diagnostics.iter().map(|d| d.code).collect();
            assert!(
                !codes.contains(&crate::diagnostics::Code::E0005),
                "{text:?}: {:?}",
                parsed.diagnostics
            );
        }
    }

    #[test]
    fn a_loop_reads_its_separator_before_its_template() {
        let parsed =
            parse_t("module m { container a { file \"/x\" = for n in l sep \",\" \"${n}\" } }");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let text = format!("{:?}", parsed.file);
        assert!(text.contains("sep: Some"), "{text}");
        let broken = parse_t("module m { container a { file \"/x\" = for n in l sep \"${n}\" } }");
        // `sep` then one string: the separator, and the template is missing.
        assert_eq!(broken.diagnostics.len(), 1, "{:?}", broken.diagnostics);
    }

    /// The `///` lines right above a node are its docs, in order and joined by a line
    /// break, one line as much as several; a `//` line between ends them, and a doc line
    /// above it goes to the node it is written in (here the module, after its own).
    #[test]
    fn a_nodes_docs_are_its_doc_lines_one_or_many() {
        let parsed = parse_t(
            "/// First line.\n///   Second line.  \n///\n/// Fourth.\nmodule m {\n  /// One line.\n  requires a: operator int\n  // plain\n  requires b: operator int\n  /// Above c.\n  // plain\n  requires c: operator int\n}\n",
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let Some(Item::Module(m)) = parsed.file.items.first() else {
            panic!("a module");
        };
        assert_eq!(
            m.docs.text(),
            Some("First line.\n  Second line.\n\nFourth.\nAbove c.")
        );
        let docs: Vec<Option<&str>> = m.requirements().map(|r| r.docs.text()).collect();
        assert_eq!(docs, [Some("One line."), None, None]);
    }
}
