//! Completion. While the user types, the text rarely parses, so the context is read from
//! the tokens before the cursor: the stack of blocks they open (module, container, env,
//! narrowing, provides, mesh, node, assignment) and the words of the entry being written.
//! What the names mean is asked of the semantic model: what is in scope at the cursor and
//! what a reference's first word reads there (`db::module_names`, [`ScopeAt::head`], the
//! checker's order), a module's requirements (`db::module_requirements`), the registry's
//! contracts and their fields. The tokens tell only where the cursor is (which block,
//! which words of the entry), because the text being typed rarely parses.

use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::check::registry::{ContractInfo, HostContract, ProviderKind, Registry};
use meshc::check::scope::CONSUMER_FIELDS;
use meshc::check::semantics::{
    HeadReads, LoopName, LoopOver, MeshReads, MeshSemantics, ModuleNames, ModuleRequirements,
    RequirementName, ScopeAt,
};
use meshc::check::types::TYPE_NAMES;
use meshc::db::{parse_file, registry};
use meshc::span::Span;
use meshc::syntax::ast::{self, Item};
use meshc::syntax::keywords::{self, Place};
use meshc::syntax::lexer::{Token, TokenKind, lex};
use std::collections::BTreeSet;
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, TextEdit, Uri,
};

/// A block the cursor is inside, as its opening line says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Block {
    Contract,
    Module(String),
    Container,
    Env,
    Narrowing {
        contract: Option<String>,
    },
    Provides(String),
    Mesh(String),
    Node,
    Assign(String),
    /// A set, a list, or a block the tokens do not tell.
    Other,
}

/// A word of the entry being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word<'a> {
    Ident(&'a str),
    Punct(TokenKind),
    Literal,
}

/// The completion items at `pos` of `uri`.
pub fn complete(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<Vec<CompletionItem>> {
    let (_, file) = snap.file(uri)?;
    let lines = Lines::of(&snap.db, file, snap.unit);
    let text = lines.text;
    let offset = lines.offset(pos) as usize;
    // The word being typed, replaced by the chosen item.
    let word_start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .last()
        .map_or(offset, |(i, _)| i);
    let replace = lines.range(Span::new(word_start, offset));
    let before = &text[..word_start];
    let lexed = lex(before);
    // Inside a comment: nothing to offer.
    if lexed.comments.last().is_some_and(|c| {
        c.span.end as usize == word_start && !before[c.span.range()].contains('\n')
    }) {
        return Some(Vec::new());
    }
    let tokens: Vec<Token> = lexed
        .tokens
        .into_iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .collect();
    let parsed = parse_file(&snap.db, file);
    let reg = registry(&snap.db, snap.ws);
    let ctx = Context {
        snap,
        reg: &reg,
        file: &parsed.file,
        source: file,
        replace,
        offset,
    };
    // Inside a string: only an open `${` interpolation completes.
    if let Some(last) = tokens.last()
        && matches!(
            last.kind,
            TokenKind::Str(false) | TokenKind::TripleStr(false)
        )
        && last.span.end as usize == word_start
    {
        let (stack, _) = blocks(before, &tokens[..tokens.len() - 1]);
        let inside = &before[last.span.start as usize..];
        let Some(open) = inside.rfind("${") else {
            return Some(Vec::new());
        };
        let body = &inside[open + 2..];
        if body.contains('}') {
            return Some(Vec::new());
        }
        let body = body.rsplit(':').next().unwrap_or(body);
        return Some(ctx.in_reference(&stack, body));
    }
    let (stack, entry) = blocks(before, &tokens);
    let words: Vec<Word<'_>> = entry
        .iter()
        .map(|t| match t.kind {
            TokenKind::Ident => Word::Ident(&before[t.span.range()]),
            TokenKind::Int | TokenKind::Str(_) | TokenKind::TripleStr(_) => Word::Literal,
            k => Word::Punct(k),
        })
        .collect();
    // `req.` or `req.fi`: the fields of what `req` reads.
    if let [.., Word::Ident(_), Word::Punct(TokenKind::Dot)] = words.as_slice() {
        let mut dotted = String::new();
        for w in words.iter().rev().skip(1) {
            match w {
                Word::Ident(s) => dotted = format!("{s}.{dotted}"),
                Word::Punct(TokenKind::Dot) => {}
                _ => break,
            }
        }
        // `db.` lists fields; a field has no fields of its own (`db.host.`).
        let segs: Vec<&str> = dotted.trim_end_matches('.').split('.').collect();
        return Some(match segs.as_slice() {
            [first] => ctx.in_reference(&stack, &format!("{first}.")),
            _ => Vec::new(),
        });
    }
    Some(ctx.in_entry(&stack, &words))
}

/// The blocks the tokens leave open, innermost last, and the tokens of the entry being
/// written (those since the last line break or brace of the innermost block).
fn blocks<'t>(text: &str, tokens: &'t [Token]) -> (Vec<Block>, &'t [Token]) {
    let mut stack: Vec<Block> = Vec::new();
    let mut entry_start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.newline_before && i > entry_start {
            entry_start = i;
        }
        match t.kind {
            TokenKind::LBrace => {
                let block = classify(text, stack.last(), &tokens[entry_start..i]);
                stack.push(block);
                entry_start = i + 1;
            }
            TokenKind::RBrace => {
                stack.pop();
                entry_start = i + 1;
            }
            _ => {}
        }
    }
    // A line break after the last token starts a new entry.
    let entry = match tokens.last() {
        Some(last) if text[last.span.end as usize..].contains('\n') => &tokens[tokens.len()..],
        _ => &tokens[entry_start.min(tokens.len())..],
    };
    (stack, entry)
}

fn classify(text: &str, outer: Option<&Block>, entry: &[Token]) -> Block {
    let words: Vec<&str> = entry
        .iter()
        .map(|t| match t.kind {
            TokenKind::Ident => &text[t.span.range()],
            TokenKind::Colon => ":",
            _ => "",
        })
        .collect();
    let name = |i: usize| words.get(i).copied().unwrap_or_default().to_string();
    if words.last() == Some(&"in") {
        return Block::Other;
    }
    match (outer, words.first().copied()) {
        (None, Some("contract")) => Block::Contract,
        (None, Some("module")) => Block::Module(name(1)),
        (None, Some("mesh")) => Block::Mesh(name(1)),
        (Some(Block::Module(_)), Some("requires")) => Block::Narrowing {
            contract: words
                .get(4)
                .filter(|w| !w.is_empty())
                .map(|w| w.to_string()),
        },
        (Some(Block::Module(_)), Some("container" | "job")) => Block::Container,
        (Some(Block::Module(_)), Some("provides")) => Block::Provides(name(1)),
        (Some(Block::Container), Some("env")) => Block::Env,
        (Some(Block::Container), Some("when")) => Block::Container,
        (Some(Block::Env), Some("when")) => Block::Env,
        (Some(Block::Mesh(_)), Some("node")) => Block::Node,
        (Some(Block::Mesh(_)), Some("assign")) => Block::Assign(name(1)),
        _ => Block::Other,
    }
}

struct Context<'a> {
    snap: &'a Snapshot,
    reg: &'a Registry,
    file: &'a ast::SourceFile,
    /// The file being completed, whose modules' models are asked.
    source: meshc::db::SourceFile,
    replace: tower_lsp_server::ls_types::Range,
    /// The cursor's byte offset.
    offset: usize,
}

impl Context<'_> {
    fn item(
        &self,
        label: &str,
        kind: CompletionItemKind,
        detail: Option<String>,
        docs: Option<&str>,
    ) -> CompletionItem {
        CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail,
            documentation: docs.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d.trim().to_string(),
                })
            }),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                self.replace,
                label.to_string(),
            ))),
            ..CompletionItem::default()
        }
    }

    /// The keywords the language's table offers at `place`, with their detail and doc.
    fn keywords(&self, place: Place) -> Vec<CompletionItem> {
        keywords::offered(place)
            .map(|k| {
                let kind = match k.kind {
                    keywords::Kind::Property => CompletionItemKind::PROPERTY,
                    _ => CompletionItemKind::KEYWORD,
                };
                let detail = (!k.detail.is_empty()).then(|| k.detail.to_string());
                self.item(k.word, kind, detail, Some(k.doc))
            })
            .collect()
    }

    /// The names of the module the stack is inside, as its model holds them.
    fn module(&self, stack: &[Block]) -> Option<Arc<ModuleNames>> {
        let name = stack.iter().find_map(|b| match b {
            Block::Module(n) => Some(n),
            _ => None,
        })?;
        (0..self.file.items.len())
            .filter_map(|i| meshc::db::module_names(&self.snap.db, self.source, i))
            .find(|n| n.module == *name)
    }

    /// The tree of the module the stack is inside, as this file last parsed it.
    fn module_tree(&self, stack: &[Block]) -> Option<&ast::Module> {
        let name = stack.iter().find_map(|b| match b {
            Block::Module(n) => Some(n),
            _ => None,
        })?;
        self.file.items.iter().find_map(|i| match i {
            Item::Module(m) if m.name.name == *name => Some(m),
            _ => None,
        })
    }

    /// The mesh the stack is inside, as this file last parsed it.
    fn mesh(&self, stack: &[Block]) -> Option<&ast::Mesh> {
        let name = stack.iter().find_map(|b| match b {
            Block::Mesh(n) => Some(n.clone()),
            _ => None,
        })?;
        self.file.items.iter().find_map(|i| match i {
            Item::Mesh(m) if m.name.name == name => Some(m),
            _ => None,
        })
    }

    fn contract(&self, name: Option<&str>) -> Option<&ContractInfo> {
        self.reg.contracts.get(name?).map(|c| &**c)
    }

    fn fields(&self, contract: &ContractInfo, keep: impl Fn(bool) -> bool) -> Vec<CompletionItem> {
        contract
            .fields
            .values()
            .filter(|f| keep(f.given))
            .map(|f| {
                self.item(
                    &f.name,
                    CompletionItemKind::FIELD,
                    Some(f.describe_type()),
                    f.docs.as_deref(),
                )
            })
            .collect()
    }

    fn requirement_names(
        &self,
        requirements: &ModuleRequirements,
        keep: impl Fn(&RequirementName) -> bool,
    ) -> Vec<CompletionItem> {
        requirements
            .requirements
            .iter()
            .filter(|r| keep(r))
            .map(|r| {
                self.item(
                    &r.name,
                    CompletionItemKind::VARIABLE,
                    Some(r.describe()),
                    None,
                )
            })
            .collect()
    }

    /// Inside a reference: `db.` lists `db`'s fields; a bare word lists requirements.
    fn in_reference(&self, stack: &[Block], body: &str) -> Vec<CompletionItem> {
        let provides = stack.iter().rev().find_map(|b| match b {
            Block::Provides(c) => Some(c.as_str()),
            _ => None,
        });
        if let Some(Block::Assign(module)) = stack.last() {
            // `route.public_name = …` on an assignment: the given fields left open.
            let Some((req, _)) = body.split_once('.') else {
                return Vec::new();
            };
            let Some(reqs) = meshc::db::module_requirements(&self.snap.db, self.snap.ws, module)
            else {
                return Vec::new();
            };
            let Some((_, r)) = reqs.get(req) else {
                return Vec::new();
            };
            // Never a field the definition fixed (`route { target = … }`, E0513), nor
            // one this assignment already sets.
            let set: Vec<String> = self
                .assign_at(stack)
                .map(|a| {
                    a.entries
                        .iter()
                        .filter_map(|e| match &e.kind {
                            ast::AssignEntryKind::Given {
                                requirement, field, ..
                            } if requirement.name == req => Some(field.name.to_string()),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            let mut items = match self.contract(r.contract.as_deref()) {
                Some(c) => self.fields(c, |given| given),
                None => Vec::new(),
            };
            items.retain(|i| !r.fixed.contains(&i.label) && !set.contains(&i.label));
            return items;
        }
        let Some(names) = self.module(stack) else {
            return Vec::new();
        };
        // What is in scope here, as the model tells; the `provides` block being typed, as
        // the tokens tell, when the tree does not hold it yet.
        let mut scope: ScopeAt<'_> = names.scope_at(self.offset as u32);
        scope.provides = scope.provides.or(provides);
        let Some((first, rest)) = body.split_once('.') else {
            let mut items = self.requirement_names(&names.requirements, |_| true);
            for l in scope.loop_names() {
                if items.iter().all(|i| i.label != l.var) {
                    items.push(self.item(
                        &l.var,
                        CompletionItemKind::VARIABLE,
                        Some("loop variable".into()),
                        None,
                    ));
                }
            }
            if scope.provides.is_some() {
                items.extend(self.keywords(Place::Provides));
            }
            items.extend(self.functions());
            return items;
        };
        match scope.head(first) {
            HeadReads::Loop(l) => self.through_loop(l, rest),
            HeadReads::Requirement(_, r) => {
                let Some(c) = self.contract(r.contract.as_deref()) else {
                    return Vec::new();
                };
                let mut items = self.fields(c, |_| true);
                if stack.contains(&Block::Env) {
                    mark_secrets_in_env(&mut items, c, first);
                }
                items
            }
            HeadReads::Consumer => CONSUMER_FIELDS
                .iter()
                .map(|w| {
                    self.item(
                        w,
                        CompletionItemKind::FIELD,
                        Some("string".into()),
                        Some("Who is asking: the consuming instance's identity."),
                    )
                })
                .collect(),
            HeadReads::Given(c) => match self.contract(Some(c)) {
                Some(c) => self.fields(c, |given| given),
                None => Vec::new(),
            },
            HeadReads::Nothing => Vec::new(),
        }
    }

    /// After `c.` (or `c.given.`) where `c` is a loop variable: what it reads.
    fn through_loop(&self, f: &LoopName, rest: &str) -> Vec<CompletionItem> {
        let LoopOver::Consumers(Some(contract)) = &f.over else {
            return Vec::new(); // a list's element has no fields
        };
        let Some(c) = self.contract(Some(contract)) else {
            return Vec::new();
        };
        if rest.starts_with("given.") {
            return self.fields(c, |given| given);
        }
        if rest.contains('.') {
            return Vec::new();
        }
        let mut items: Vec<CompletionItem> = [
            ("login", "string", "The consumer's login."),
            ("instance", "string", "The consumer's instance name."),
            ("module", "string", "The consumer's module."),
            (
                "node",
                "hostname",
                "The private name of the consumer's node.",
            ),
        ]
        .iter()
        .map(|(w, ty, doc)| self.item(w, CompletionItemKind::FIELD, Some((*ty).into()), Some(doc)))
        .collect();
        items.push(self.item(
            "given",
            CompletionItemKind::KEYWORD,
            None,
            Some("What the consumer set: `given.FIELD`."),
        ));
        items.extend(self.fields(c, |given| !given));
        items
    }

    /// At a word of an entry: what may stand there.
    fn in_entry(&self, stack: &[Block], words: &[Word<'_>]) -> Vec<CompletionItem> {
        use Word::{Ident as I, Punct as P};
        // After `=`, an expression: the module's requirements.
        if let Some(eq) = words.iter().position(|w| *w == P(TokenKind::Eq))
            && words.len() == eq + 1
        {
            return match stack.last() {
                Some(Block::Assign(_) | Block::Node | Block::Contract) | None => Vec::new(),
                _ => self.in_reference(stack, ""),
            };
        }
        match stack.last() {
            None => match words {
                [] => self.keywords(Place::Top),
                [I("contract"), I(_)] => self.keywords(Place::ContractHead),
                [I("contract"), I(_), I("for")] => self.keywords(Place::ContractKind),
                _ => Vec::new(),
            },
            Some(Block::Contract) => match words {
                [] => self.keywords(Place::Contract),
                [.., P(TokenKind::Colon)] | [.., P(TokenKind::Colon), I("secret")] => {
                    self.types(true)
                }
                [.., P(TokenKind::Lt)] => self.types(false),
                _ => Vec::new(),
            },
            Some(Block::Module(_)) => match words {
                [] => self.keywords(Place::Module),
                [I("requires"), I(_), P(TokenKind::Colon)] => self.keywords(Place::RequirementKind),
                [I("requires"), I(_), P(TokenKind::Colon), I("operator")]
                | [
                    I("requires"),
                    I(_),
                    P(TokenKind::Colon),
                    I("operator"),
                    I("secret"),
                ] => self.types(words.len() == 4),
                [I("requires"), I(_), P(TokenKind::Colon), I(kind)] => {
                    let kind = ProviderKind::from_name(kind);
                    self.contracts(|c| kind.is_none() || c.kind == kind)
                }
                [I("provides")] => self.contracts(|c| c.kind == Some(ProviderKind::Module)),
                _ => Vec::new(),
            },
            Some(Block::Container) => match words {
                [] => {
                    // An entry a container holds once is not offered a second time.
                    let written = self.container_at().map(once_entries).unwrap_or_default();
                    let mut items = self.keywords(Place::Container);
                    items.retain(|i| !written.contains(&i.label.as_str()));
                    // A job holds no `publish` and no `health` (E0327).
                    if self.container_at().is_some_and(|c| c.job) {
                        items.retain(|i| !matches!(i.label.as_str(), "publish" | "health"));
                    }
                    items
                }
                [I("after"), rest @ ..] if rest.iter().all(|w| matches!(w, I(_))) => {
                    self.after_names(stack, rest)
                }
                [I("when")] => self.optional_requirements(stack),
                [I("publish")] => self
                    .module_requirements(stack, |r| r.host_contract() == Some(HostContract::Port)),
                [I("mount")] => {
                    let Some(names) = self.module(stack) else {
                        return Vec::new();
                    };
                    names
                        .requirements
                        .requirements
                        .iter()
                        .filter(|r| r.host_contract().is_some_and(HostContract::is_path))
                        .map(|r| {
                            self.item(
                                &format!("{}.path", r.name),
                                CompletionItemKind::VARIABLE,
                                r.contract.as_ref().map(|c| format!("host {c}")),
                                None,
                            )
                        })
                        .collect()
                }
                [I("mount"), ..] if words.contains(&P(TokenKind::Arrow)) => Vec::new(),
                // `file "/x" owner 1000:1000 mode 0o640 = …`: owner, then mode.
                [I("file" | "secret"), Word::Literal] => self.keywords(Place::FileOwner),
                [
                    I("file" | "secret"),
                    Word::Literal,
                    I("owner"),
                    Word::Literal,
                ]
                | [
                    I("file" | "secret"),
                    Word::Literal,
                    I("owner"),
                    Word::Literal,
                    P(TokenKind::Colon),
                    Word::Literal,
                ] => self.keywords(Place::FileMode),
                _ => Vec::new(),
            },
            Some(Block::Env) => match words {
                [I("when")] => self.optional_requirements(stack),
                [_, P(TokenKind::Eq), _, ..] => self.keywords(Place::EnvValue),
                _ => Vec::new(),
            },
            Some(Block::Narrowing { contract }) => match words {
                [] => match self.contract(contract.as_deref()) {
                    Some(c) => self.fields(c, |_| true),
                    None => Vec::new(),
                },
                [I(_)] => self.keywords(Place::Narrowing),
                _ => Vec::new(),
            },
            Some(Block::Provides(contract)) => match words {
                [] => match self.contract(Some(contract)) {
                    Some(c) => self.fields(c, |given| !given),
                    None => Vec::new(),
                },
                _ => Vec::new(),
            },
            Some(Block::Mesh(_)) => self.in_mesh(stack, words),
            Some(Block::Node) => match words {
                [] => self.keywords(Place::Node),
                _ => Vec::new(),
            },
            Some(Block::Assign(module)) => self.in_assign(stack, module, words),
            Some(Block::Other) => Vec::new(),
        }
    }

    /// The language's functions, where an expression may start.
    fn functions(&self) -> Vec<CompletionItem> {
        meshc::functions::Func::ALL
            .iter()
            .map(|f| {
                let mut item = self.item(
                    f.name(),
                    CompletionItemKind::FUNCTION,
                    Some(f.signature().to_string()),
                    Some(&format!("{}.", f.summary())),
                );
                // Functions after the requirements and loop variables.
                item.sort_text = Some(format!("2{}", f.name()));
                item
            })
            .collect()
    }

    /// The container whose block holds the cursor, as this file last parsed.
    fn container_at(&self) -> Option<&ast::Container> {
        let at =
            |span: Span| (span.start as usize) < self.offset && self.offset < span.end as usize;
        self.file.items.iter().find_map(|i| match i {
            Item::Module(m) if at(m.span) => m.entries.iter().find_map(|e| match e {
                ast::ModuleEntry::Container(c) if at(c.span) => Some(c),
                _ => None,
            }),
            _ => None,
        })
    }

    /// What `after` may name: the module's other containers and jobs, less those
    /// `written` already on the line.
    fn after_names(&self, stack: &[Block], written: &[Word<'_>]) -> Vec<CompletionItem> {
        let Some(names) = self.module(stack) else {
            return Vec::new();
        };
        let own = names
            .container_at(self.offset as u32)
            .map(|(n, _, _)| n.as_str());
        let docs = self.module_tree(stack);
        names
            .containers
            .iter()
            .filter(|(n, _, _)| Some(n.as_str()) != own)
            .filter(|(n, _, _)| !written.contains(&Word::Ident(n.as_str())))
            .map(|(n, job, _)| {
                let detail = if *job { "job" } else { "container" };
                // The doc comment as written, shown.
                let doc = docs
                    .and_then(|m| m.containers().find(|c| c.name.name == n.as_str()))
                    .and_then(|c| c.docs.text());
                self.item(n, CompletionItemKind::CLASS, Some(detail.to_string()), doc)
            })
            .collect()
    }

    /// The assignment whose block holds the cursor, as this file last parsed.
    fn assign_at(&self, stack: &[Block]) -> Option<&ast::Assign> {
        self.mesh(stack)?
            .assigns()
            .find(|a| (a.span.start as usize) < self.offset && self.offset < a.span.end as usize)
    }

    /// The module's optional requirements, what `when` tests.
    fn optional_requirements(&self, stack: &[Block]) -> Vec<CompletionItem> {
        let Some(names) = self.module(stack) else {
            return Vec::new();
        };
        names
            .requirements
            .requirements
            .iter()
            .zip(&names.requirement_docs)
            .filter(|(r, _)| r.optional)
            .map(|(r, docs)| {
                self.item(
                    &r.name,
                    CompletionItemKind::VARIABLE,
                    Some(format!(
                        "optional module {}",
                        r.contract.as_deref().unwrap_or_default()
                    )),
                    docs.as_deref(),
                )
            })
            .collect()
    }

    fn module_requirements(
        &self,
        stack: &[Block],
        keep: impl Fn(&RequirementName) -> bool,
    ) -> Vec<CompletionItem> {
        match self.module(stack) {
            Some(names) => self.requirement_names(&names.requirements, keep),
            None => Vec::new(),
        }
    }

    fn types(&self, with_secret: bool) -> Vec<CompletionItem> {
        let mut items: Vec<CompletionItem> = TYPE_NAMES
            .iter()
            .chain(["list"].iter())
            .map(|t| self.item(t, CompletionItemKind::TYPE_PARAMETER, None, None))
            .collect();
        if with_secret {
            items.push(self.item("secret", CompletionItemKind::KEYWORD, None, None));
        }
        items
    }

    fn contracts(&self, keep: impl Fn(&ContractInfo) -> bool) -> Vec<CompletionItem> {
        self.reg
            .contracts
            .values()
            .filter(|c| keep(c))
            .map(|c| {
                self.item(
                    &c.name,
                    CompletionItemKind::INTERFACE,
                    c.kind.map(|k| format!("for {}", k.as_str())),
                    c.docs.as_deref(),
                )
            })
            .collect()
    }

    /// The model of the mesh the stack is inside (`db::mesh_semantics`), with its tree
    /// for the doc comments shown.
    fn mesh_model(&self, stack: &[Block]) -> Option<(Arc<MeshSemantics>, &ast::Mesh)> {
        let mesh = self.mesh(stack)?;
        let item = self
            .file
            .items
            .iter()
            .position(|i| matches!(i, Item::Mesh(m) if std::ptr::eq(m, mesh)))?;
        let model = meshc::db::mesh_semantics(&self.snap.db, self.snap.ws, self.source, item);
        Some((model, mesh))
    }

    /// The nodes the mesh declares, as its model holds them.
    fn nodes(&self, stack: &[Block]) -> Vec<CompletionItem> {
        let Some((model, mesh)) = self.mesh_model(stack) else {
            return Vec::new();
        };
        model
            .references
            .iter()
            .filter(|r| r.declares && r.reads == MeshReads::Node)
            .map(|r| {
                let docs = mesh
                    .nodes()
                    .find(|n| n.name.span == r.span)
                    .and_then(|n| n.docs.text());
                self.item(
                    &r.name,
                    CompletionItemKind::ENUM_MEMBER,
                    Some("node".into()),
                    docs,
                )
            })
            .collect()
    }

    /// The instances the mesh declares, each once, as its model holds them.
    fn instances(&self, stack: &[Block]) -> Vec<CompletionItem> {
        let Some((model, _)) = self.mesh_model(stack) else {
            return Vec::new();
        };
        let mut seen = BTreeSet::new();
        model
            .instances
            .iter()
            .filter(|a| seen.insert(a.name.as_str()))
            .map(|a| {
                let detail = format!("{} on {}", a.module, a.node.as_deref().unwrap_or("?"));
                self.item(&a.name, CompletionItemKind::CLASS, Some(detail), None)
            })
            .collect()
    }

    fn in_mesh(&self, stack: &[Block], words: &[Word<'_>]) -> Vec<CompletionItem> {
        use Word::{Ident as I, Punct as P};
        match words {
            [] => self.keywords(Place::Mesh),
            [I("assign")] => self
                .reg
                .modules
                .keys()
                .map(|m| self.item(m, CompletionItemKind::MODULE, None, None))
                .collect(),
            [I("assign"), I(_)] => self.keywords(Place::AssignModule),
            [I("assign"), I(_), I("to")] => self.nodes(stack),
            [I("assign"), I(_), I("to"), I(_)] => self.keywords(Place::AssignNode),
            [I("seat")] => self
                .reg
                .seats
                .values()
                .map(|s| {
                    self.item(
                        &s.name,
                        CompletionItemKind::ENUM_MEMBER,
                        Some(format!("delivers {}", s.contract)),
                        None,
                    )
                })
                .collect(),
            [I("seat"), I(_), P(TokenKind::Eq)] => self.instances(stack),
            [I("seat"), I(_), P(TokenKind::Eq), I(_)] => self.keywords(Place::SeatInstance),
            [I("seat"), I(_), P(TokenKind::Eq), I(_), I("on")] => self.nodes(stack),
            _ => Vec::new(),
        }
    }

    fn in_assign(&self, stack: &[Block], module: &str, words: &[Word<'_>]) -> Vec<CompletionItem> {
        use Word::{Ident as I, Literal as L};
        let requirements = meshc::db::module_requirements(&self.snap.db, self.snap.ws, module);
        match words {
            [] => {
                // What this assignment already says is not offered again: a requirement
                // given a value, a pin, a placement or `absent` (a given field leaves
                // its requirement open for the next field), `short`, `keep_network`,
                // `genesis`.
                let set = self
                    .assign_at(stack)
                    .map(assign_entries)
                    .unwrap_or_default();
                let mut items = match &requirements {
                    Some(reqs) => self.requirement_names(reqs, |_| true),
                    None => Vec::new(),
                };
                items.extend(self.keywords(Place::Assign));
                items.retain(|i| !set.contains(&i.label));
                items
            }
            [I(_)] => self.keywords(Place::Placement),
            [I(_), I("from")] => self.instances(stack),
            [I(_), I("from"), I(_)] => self.keywords(Place::PlacementNode),
            [I(_), I("from"), I(_), I("on")] | [I(_), I("at"), L, I("on")] => self.nodes(stack),
            [I(_), I("at"), L] => self.keywords(Place::PlacementNode),
            _ => Vec::new(),
        }
    }
}

/// The entries a container holds at most once that `c` already has.
fn once_entries(c: &ast::Container) -> Vec<&'static str> {
    c.entries
        .iter()
        .filter_map(|e| match e.kind {
            ast::ContainerEntryKind::Image(_) => Some("image"),
            ast::ContainerEntryKind::Command(_) => Some("command"),
            ast::ContainerEntryKind::User(_) => Some("user"),
            ast::ContainerEntryKind::ImagePaths(_) => Some("image_paths"),
            ast::ContainerEntryKind::Health(_) => Some("health"),
            _ => None,
        })
        .collect()
}

/// What assignment `a` already says, by the name an entry starts with: the requirements
/// given a value, pinned, placed or declined, and `short`, `keep_network`, `genesis`.
fn assign_entries(a: &ast::Assign) -> Vec<String> {
    use ast::AssignEntryKind as K;
    a.entries
        .iter()
        .filter_map(|e| match &e.kind {
            K::Value { name, .. } => Some(name.name.to_string()),
            K::Pin { requirement, .. }
            | K::Absent { requirement }
            | K::Place { requirement, .. } => Some(requirement.name.to_string()),
            K::KeepNetwork { .. } => Some("keep_network".into()),
            K::Genesis { .. } => Some("genesis".into()),
            K::Given { .. } => None,
        })
        .collect()
}

/// In an env block, a secret field may not be read as a plain value (E0302): its item
/// says so and how to deliver it, and it comes after every other field.
fn mark_secrets_in_env(items: &mut [CompletionItem], contract: &ContractInfo, req: &str) {
    for item in items.iter_mut() {
        let secret = contract
            .fields
            .get(item.label.as_str())
            .is_some_and(|f| f.secret);
        if secret {
            item.detail = Some(format!(
                "{} — not a plain env value (E0302); deliver it as a file: `secret \"/run/secrets/{}\" = {req}.{}`",
                item.detail.as_deref().unwrap_or("secret"),
                item.label,
                item.label
            ));
        }
        item.sort_text = Some(format!("{}{}", if secret { "1" } else { "0" }, item.label));
    }
}
