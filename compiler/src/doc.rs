//! A browsable reference of a catalogue (`meshc doc`): every contract, seat and module
//! with its doc comments, requirements, containers and what it provides, and for every
//! contract the modules that provide it and those that require it. Written as HTML pages
//! that link to each other, and as the same pages in Markdown. Pure: the caller reads
//! the files and writes the pages.

use crate::span::{FilePath, Span};
use crate::syntax::ast;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One file of the workspace, parsed.
pub struct Input<'a> {
    pub path: &'a FilePath,
    pub text: &'a str,
    pub file: &'a ast::SourceFile,
    /// The standard library's own file.
    pub std: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    pub contracts: Vec<ContractDoc>,
    pub seats: Vec<SeatDoc>,
    pub modules: Vec<ModuleDoc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractDoc {
    pub name: String,
    pub kind: String,
    pub docs: String,
    pub file: String,
    pub standard: bool,
    /// `(name, declaration as written, docs, given)`.
    pub fields: Vec<(String, String, String, bool)>,
    /// Modules with `provides NAME`.
    pub providers: Vec<String>,
    /// `(module, requirement)` pairs that require it.
    pub consumers: Vec<(String, String)>,
    /// Seats that deliver it.
    pub seats: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatDoc {
    pub name: String,
    pub contract: String,
    pub docs: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleDoc {
    pub name: String,
    pub docs: String,
    pub file: String,
    pub slug: Option<String>,
    pub requirements: Vec<RequirementDoc>,
    /// Name, image, docs, and whether it is a job (it runs to completion).
    pub containers: Vec<(String, String, String, bool)>,
    pub provides: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementDoc {
    pub name: String,
    pub kind: String,
    pub contract: Option<String>,
    /// The requirement as written, on one line.
    pub decl: String,
    pub docs: String,
}

/// The text of `span`, its whitespace runs made single spaces, every place of `secret`
/// (sorted by start) in it shown as a mask: a reference page, like an excerpt, never
/// shows a value written for a secret.
fn written(text: &str, span: Span, secret: &[Span]) -> String {
    let (a, b) = (span.start as usize, span.end as usize);
    let mut shown = String::new();
    let mut at = a;
    for s in secret {
        let (sa, sb) = ((s.start as usize).max(at), (s.end as usize).min(b));
        if sa >= sb {
            continue;
        }
        shown.push_str(text.get(at..sa).unwrap_or_default());
        shown.push_str(crate::diagnostics::render::MASK);
        at = sb;
    }
    shown.push_str(text.get(at..b.max(at)).unwrap_or_default());
    shown.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn docs(d: &ast::Docs) -> String {
    d.text().unwrap_or_default().to_string()
}

impl Catalogue {
    /// The reference of every item of the files.
    pub fn of(inputs: &[Input<'_>]) -> Catalogue {
        let mut contracts: BTreeMap<String, ContractDoc> = BTreeMap::new();
        let mut seats = Vec::new();
        let mut modules: BTreeMap<String, ModuleDoc> = BTreeMap::new();
        let secret = crate::check::secrets::secret_spans_of_texts(
            inputs.iter().filter(|i| !i.std).map(|i| (i.path, i.text)),
        );
        let none = Vec::new();
        for input in inputs {
            let secret = secret.get(input.path).unwrap_or(&none);
            for item in &input.file.items {
                match item {
                    ast::Item::Contract(c) => {
                        contracts
                            .entry(c.name.name.to_string())
                            .or_insert_with(|| ContractDoc {
                                name: c.name.name.to_string(),
                                kind: c
                                    .kind
                                    .as_ref()
                                    .map(|k| k.name.to_string())
                                    .unwrap_or_default(),
                                docs: docs(&c.docs),
                                file: input.path.to_string(),
                                standard: input.std,
                                fields: c
                                    .fields
                                    .iter()
                                    .map(|f| {
                                        (
                                            f.name.name.to_string(),
                                            written(input.text, f.span, secret),
                                            docs(&f.docs),
                                            f.given.is_some(),
                                        )
                                    })
                                    .collect(),
                                providers: Vec::new(),
                                consumers: Vec::new(),
                                seats: Vec::new(),
                            });
                    }
                    ast::Item::Seat(s) => seats.push(SeatDoc {
                        name: s.name.name.to_string(),
                        contract: s
                            .contract
                            .as_ref()
                            .map(|c| c.name.to_string())
                            .unwrap_or_default(),
                        docs: docs(&s.docs),
                    }),
                    ast::Item::Module(m) if !input.std => {
                        modules
                            .entry(m.name.name.to_string())
                            .or_insert_with(|| module_doc(m, input, secret));
                    }
                    _ => {}
                }
            }
        }
        for m in modules.values() {
            for p in &m.provides {
                if let Some(c) = contracts.get_mut(p) {
                    c.providers.push(m.name.clone());
                }
            }
            for r in &m.requirements {
                if let Some(c) = r.contract.as_ref().and_then(|c| contracts.get_mut(c)) {
                    c.consumers.push((m.name.clone(), r.name.clone()));
                }
            }
        }
        for s in &seats {
            if let Some(c) = contracts.get_mut(&s.contract) {
                c.seats.push(s.name.clone());
            }
        }
        // The workspace's own contracts first, then the standard ones.
        let mut contracts: Vec<ContractDoc> = contracts.into_values().collect();
        contracts.sort_by(|a, b| (a.standard, &a.name).cmp(&(b.standard, &b.name)));
        Catalogue {
            contracts,
            seats,
            modules: modules.into_values().collect(),
        }
    }

    /// Every page: `(file name, bytes)`, HTML and Markdown side by side.
    pub fn pages(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let pages = std::iter::once(Page::Index)
            .chain(self.modules.iter().map(Page::Module))
            .chain(self.contracts.iter().map(Page::Contract));
        for page in pages {
            let (title, blocks) = self.page(&page);
            out.push((
                format!("{}.html", page.stem()),
                html(&title, &blocks).into_bytes(),
            ));
            out.push((
                format!("{}.md", page.stem()),
                markdown(&title, &blocks).into_bytes(),
            ));
        }
        out
    }

    fn page(&self, page: &Page<'_>) -> (String, Vec<Block>) {
        match page {
            Page::Index => self.index(),
            Page::Module(m) => module_page(m, self),
            Page::Contract(c) => contract_page(c),
        }
    }

    fn index(&self) -> (String, Vec<Block>) {
        let mut b = vec![Block::Para(vec![Span_::Text(format!(
            "{} modules, {} contracts, {} seats.",
            self.modules.len(),
            self.contracts.len(),
            self.seats.len()
        ))])];
        b.push(Block::Heading("Modules".into()));
        b.push(Block::List(
            self.modules
                .iter()
                .map(|m| {
                    let mut line = vec![Span_::Link(m.name.clone(), Page::Module(m).stem())];
                    let summary = first_sentence(&m.docs);
                    if !summary.is_empty() {
                        line.push(Span_::Text(" — ".into()));
                        line.extend(with_code(&summary));
                    }
                    line
                })
                .collect(),
        ));
        for (title, standard) in [("Contracts", false), ("Standard contracts", true)] {
            let list: Vec<Vec<Span_>> = self
                .contracts
                .iter()
                .filter(|c| c.standard == standard)
                .map(|c| {
                    let mut line = vec![
                        Span_::Link(c.name.clone(), Page::Contract(c).stem()),
                        Span_::Text(format!(" (for {})", c.kind)),
                    ];
                    let summary = first_sentence(&c.docs);
                    if !summary.is_empty() {
                        line.push(Span_::Text(" — ".into()));
                        line.extend(with_code(&summary));
                    }
                    line
                })
                .collect();
            if !list.is_empty() {
                b.push(Block::Heading(title.into()));
                b.push(Block::List(list));
            }
        }
        if !self.seats.is_empty() {
            b.push(Block::Heading("Seats".into()));
            b.push(Block::List(
                self.seats
                    .iter()
                    .map(|s| {
                        let mut line = vec![
                            Span_::Code(s.name.clone()),
                            Span_::Text(" delivers ".into()),
                        ];
                        match self.contracts.iter().find(|c| c.name == s.contract) {
                            Some(c) => {
                                line.push(Span_::Link(c.name.clone(), Page::Contract(c).stem()))
                            }
                            None => line.push(Span_::Code(s.contract.clone())),
                        }
                        let summary = first_sentence(&s.docs);
                        if !summary.is_empty() {
                            line.push(Span_::Text(" — ".into()));
                            line.extend(with_code(&summary));
                        }
                        line
                    })
                    .collect(),
            ));
        }
        ("Catalogue".into(), b)
    }
}

fn module_doc(m: &ast::Module, input: &Input<'_>, secret: &[Span]) -> ModuleDoc {
    ModuleDoc {
        name: m.name.name.to_string(),
        docs: docs(&m.docs),
        file: input.path.to_string(),
        slug: m.slug().and_then(|s| s.as_plain()),
        requirements: m
            .requirements()
            .map(|r| {
                let (kind, contract) = match &r.body {
                    ast::RequirementBody::Operator { .. } => ("operator".to_string(), None),
                    ast::RequirementBody::Contract { contract, .. } => (
                        r.kind
                            .as_ref()
                            .map(|k| k.name.to_string())
                            .unwrap_or_default(),
                        contract.as_ref().map(|c| c.name.to_string()),
                    ),
                };
                RequirementDoc {
                    name: r.name.name.to_string(),
                    kind,
                    contract,
                    decl: written(input.text, r.span, secret),
                    docs: docs(&r.docs),
                }
            })
            .collect(),
        containers: m
            .containers()
            .map(|c| {
                let image = c
                    .entries
                    .iter()
                    .find_map(|e| match &e.kind {
                        ast::ContainerEntryKind::Image(s) => s.as_plain(),
                        _ => None,
                    })
                    .unwrap_or_default();
                (c.name.name.to_string(), image, docs(&c.docs), c.job)
            })
            .collect(),
        provides: m.provides().map(|p| p.contract.name.to_string()).collect(),
    }
}

fn first_sentence(docs: &str) -> String {
    let flat = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(i) => flat[..=i].to_string(),
        None => flat,
    }
}

enum Page<'a> {
    Index,
    Module(&'a ModuleDoc),
    Contract(&'a ContractDoc),
}

impl Page<'_> {
    /// The file name without its extension: `index`, `module.NAME`, `contract.NAME`.
    fn stem(&self) -> String {
        match self {
            Page::Index => "index".into(),
            Page::Module(m) => format!("module.{}", m.name),
            Page::Contract(c) => format!("contract.{}", c.name),
        }
    }
}

/// A piece of running text.
enum Span_ {
    Text(String),
    Code(String),
    /// Text and the stem of the page it links to.
    Link(String, String),
}

enum Block {
    Heading(String),
    Para(Vec<Span_>),
    /// Doc comment text, shown as written (paragraphs kept).
    Docs(String),
    Code(String),
    List(Vec<Vec<Span_>>),
}

fn contract_link(name: &str) -> Span_ {
    Span_::Link(name.to_string(), format!("contract.{name}"))
}

fn module_page(m: &ModuleDoc, cat: &Catalogue) -> (String, Vec<Block>) {
    let known = |c: &str| cat.contracts.iter().any(|x| x.name == c);
    let mut b = Vec::new();
    if !m.docs.is_empty() {
        b.push(Block::Docs(m.docs.clone()));
    }
    let mut facts = vec![
        Span_::Text("Defined in ".into()),
        Span_::Code(m.file.clone()),
    ];
    if let Some(slug) = &m.slug {
        facts.push(Span_::Text("; slug ".into()));
        facts.push(Span_::Code(slug.clone()));
    }
    facts.push(Span_::Text(". ".into()));
    facts.push(Span_::Link("All modules".into(), "index".into()));
    facts.push(Span_::Text(".".into()));
    b.push(Block::Para(facts));
    b.push(Block::Heading("Requirements".into()));
    if m.requirements.is_empty() {
        b.push(Block::Para(vec![Span_::Text("None.".into())]));
    }
    for r in &m.requirements {
        let mut line = vec![
            Span_::Code(r.name.clone()),
            Span_::Text(format!(": {}", r.kind)),
        ];
        if let Some(c) = &r.contract {
            line.push(Span_::Text(" ".into()));
            line.push(if known(c) {
                contract_link(c)
            } else {
                Span_::Code(c.clone())
            });
        }
        b.push(Block::Para(line));
        b.push(Block::Code(r.decl.clone()));
        if !r.docs.is_empty() {
            b.push(Block::Docs(r.docs.clone()));
        }
    }
    b.push(Block::Heading("Containers".into()));
    b.push(Block::List(
        m.containers
            .iter()
            .map(|(name, image, d, job)| {
                let mut line = vec![
                    Span_::Code(name.clone()),
                    Span_::Text(" runs ".into()),
                    Span_::Code(image.clone()),
                ];
                if *job {
                    line.push(Span_::Text(" to completion (a job)".into()));
                }
                if !d.is_empty() {
                    line.push(Span_::Text(format!(" — {}", first_sentence(d))));
                }
                line
            })
            .collect(),
    ));
    b.push(Block::Heading("Provides".into()));
    if m.provides.is_empty() {
        b.push(Block::Para(vec![Span_::Text("Nothing.".into())]));
    } else {
        b.push(Block::List(
            m.provides
                .iter()
                .map(|c| {
                    vec![if known(c) {
                        contract_link(c)
                    } else {
                        Span_::Code(c.clone())
                    }]
                })
                .collect(),
        ));
    }
    (format!("module {}", m.name), b)
}

fn contract_page(c: &ContractDoc) -> (String, Vec<Block>) {
    let mut b = Vec::new();
    if !c.docs.is_empty() {
        b.push(Block::Docs(c.docs.clone()));
    }
    let origin = if c.standard {
        "A standard contract, built into meshc".to_string()
    } else {
        format!("Defined in `{}`", c.file)
    };
    b.push(Block::Para(vec![
        Span_::Text(format!(
            "{origin}; answered by a provider of kind {}. ",
            c.kind
        )),
        Span_::Link("All contracts".into(), "index".into()),
        Span_::Text(".".into()),
    ]));
    b.push(Block::Heading("Fields".into()));
    for (name, decl, d, given) in &c.fields {
        let who = if *given {
            " — given: the consumer sets it"
        } else {
            " — answered by the provider"
        };
        b.push(Block::Para(vec![
            Span_::Code(name.clone()),
            Span_::Text(who.into()),
        ]));
        b.push(Block::Code(decl.clone()));
        if !d.is_empty() {
            b.push(Block::Docs(d.clone()));
        }
    }
    b.push(Block::Heading("Provided by".into()));
    let mut providers: Vec<Vec<Span_>> = c
        .seats
        .iter()
        .map(|s| {
            vec![
                Span_::Text("the holder of the seat ".into()),
                Span_::Code(s.clone()),
            ]
        })
        .collect();
    providers.extend(
        c.providers
            .iter()
            .map(|m| vec![Span_::Link(m.clone(), format!("module.{m}"))]),
    );
    if c.kind == "host" || c.kind == "mesh" {
        providers.push(vec![Span_::Text(format!(
            "the {}, through meshc",
            if c.kind == "host" { "node" } else { "mesh" }
        ))]);
    }
    if providers.is_empty() {
        b.push(Block::Para(vec![Span_::Text(
            "No module of this catalogue provides it.".into(),
        )]));
    } else {
        b.push(Block::List(providers));
    }
    b.push(Block::Heading("Required by".into()));
    if c.consumers.is_empty() {
        b.push(Block::Para(vec![Span_::Text(
            "No module of this catalogue requires it.".into(),
        )]));
    } else {
        b.push(Block::List(
            c.consumers
                .iter()
                .map(|(m, r)| {
                    vec![
                        Span_::Link(m.clone(), format!("module.{m}")),
                        Span_::Text(" (".into()),
                        Span_::Code(r.clone()),
                        Span_::Text(")".into()),
                    ]
                })
                .collect(),
        ));
    }
    (format!("contract {}", c.name), b)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html_spans(spans: &[Span_]) -> String {
    let mut s = String::new();
    for sp in spans {
        match sp {
            Span_::Text(t) => s.push_str(&esc(t)),
            Span_::Code(t) => {
                let _ = write!(s, "<code>{}</code>", esc(t));
            }
            Span_::Link(t, stem) => {
                let _ = write!(s, "<a href=\"{}.html\">{}</a>", esc(stem), esc(t));
            }
        }
    }
    s
}

fn html(title: &str, blocks: &[Block]) -> String {
    let mut s = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\nbody {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2937; }}\ncode, pre {{ font-family: ui-monospace, monospace; background: #f3f4f6; border-radius: 4px; }}\ncode {{ padding: 0 0.2em; }}\npre {{ padding: 0.6em 0.8em; overflow-x: auto; }}\n.docs {{ color: #374151; }}\na {{ color: #1d4ed8; }}\n</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    );
    for b in blocks {
        match b {
            Block::Heading(h) => {
                let _ = writeln!(s, "<h2>{}</h2>", esc(h));
            }
            Block::Para(p) => {
                let _ = writeln!(s, "<p>{}</p>", html_spans(p));
            }
            Block::Docs(d) => {
                let _ = writeln!(s, "<div class=\"docs\">{}</div>", docs_html(d));
            }
            Block::Code(c) => {
                let _ = writeln!(s, "<pre><code>{}</code></pre>", esc(c));
            }
            Block::List(items) => {
                s.push_str("<ul>\n");
                for i in items {
                    let _ = writeln!(s, "<li>{}</li>", html_spans(i));
                }
                s.push_str("</ul>\n");
            }
        }
    }
    s.push_str("</body>\n</html>\n");
    s
}

fn md_spans(spans: &[Span_]) -> String {
    let mut s = String::new();
    for sp in spans {
        match sp {
            Span_::Text(t) => s.push_str(t),
            Span_::Code(t) => {
                let _ = write!(s, "`{t}`");
            }
            Span_::Link(t, stem) => {
                let _ = write!(s, "[{t}]({stem}.md)");
            }
        }
    }
    s
}

fn markdown(title: &str, blocks: &[Block]) -> String {
    let mut s = format!("# {title}\n");
    for b in blocks {
        s.push('\n');
        match b {
            Block::Heading(h) => {
                let _ = writeln!(s, "## {h}");
            }
            Block::Para(p) => {
                let _ = writeln!(s, "{}", md_spans(p));
            }
            Block::Docs(d) => {
                let _ = writeln!(s, "{}", d.trim_end());
            }
            Block::Code(c) => {
                let _ = writeln!(s, "```mesh\n{c}\n```");
            }
            Block::List(items) => {
                for i in items {
                    let _ = writeln!(s, "- {}", md_spans(i));
                }
            }
        }
    }
    s
}

/// Text with its `code` spans apart, as a doc comment's summary is shown in a list.
fn with_code(text: &str) -> Vec<Span_> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        if open > 0 {
            out.push(Span_::Text(rest[..open].to_string()));
        }
        out.push(Span_::Code(rest[open + 1..open + 1 + len].to_string()));
        rest = &rest[open + 2 + len..];
    }
    if !rest.is_empty() {
        out.push(Span_::Text(rest.to_string()));
    }
    out
}

/// A doc comment as HTML, read as the Markdown it is written in: paragraphs (split at
/// blank lines), `- ` or `* ` lists, fenced code blocks, and inline `code`, `*emphasis*`
/// (not `_`, which names such as `secret_key` hold),
/// `**strong emphasis**` and `[links](https://…)` (http and https only). Doc comments use
/// little more, so a few dozen lines do instead of a Markdown library; every other
/// character is escaped, so nothing a comment says becomes markup of its own.
fn docs_html(d: &str) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let mut list: Vec<String> = Vec::new();
    let mut code: Option<Vec<&str>> = None;
    fn flush(out: &mut String, para: &mut Vec<&str>, list: &mut Vec<String>) {
        if !para.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline_html(&para.join(" ")));
            para.clear();
        }
        if !list.is_empty() {
            out.push_str("<ul>\n");
            for item in list.iter() {
                let _ = writeln!(out, "<li>{}</li>", inline_html(item));
            }
            out.push_str("</ul>\n");
            list.clear();
        }
    }
    for line in d.lines() {
        let trimmed = line.trim();
        if let Some(lines) = &mut code {
            if trimmed.starts_with("```") {
                let _ = writeln!(out, "<pre><code>{}</code></pre>", esc(&lines.join("\n")));
                code = None;
            } else {
                lines.push(line);
            }
            continue;
        }
        if trimmed.starts_with("```") {
            flush(&mut out, &mut para, &mut list);
            code = Some(Vec::new());
        } else if trimmed.is_empty() {
            flush(&mut out, &mut para, &mut list);
        } else if let Some(item) = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
        {
            if !para.is_empty() {
                let mut none = Vec::new();
                flush(&mut out, &mut para, &mut none);
            }
            list.push(item.to_string());
        } else if !list.is_empty() && line.starts_with(' ') {
            // A list item's continuation line.
            let last = list.last_mut().expect("a list item");
            last.push(' ');
            last.push_str(trimmed);
        } else {
            if !list.is_empty() {
                let mut none = Vec::new();
                flush(&mut out, &mut none, &mut list);
            }
            para.push(trimmed);
        }
    }
    if let Some(lines) = code {
        let _ = writeln!(out, "<pre><code>{}</code></pre>", esc(&lines.join("\n")));
    }
    flush(&mut out, &mut para, &mut list);
    out
}

/// One paragraph's inline Markdown as HTML (see [`docs_html`]).
fn inline_html(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let close = |rest: &str, open: &str| -> Option<usize> {
            let body = rest.strip_prefix(open)?;
            let end = body.find(open)?;
            (end > 0).then_some(end)
        };
        if c == '`'
            && let Some(end) = close(rest, "`")
        {
            let _ = write!(out, "<code>{}</code>", esc(&rest[1..1 + end]));
            rest = &rest[2 + end..];
        } else if rest.starts_with("**")
            && let Some(end) = close(rest, "**")
        {
            let _ = write!(out, "<strong>{}</strong>", inline_html(&rest[2..2 + end]));
            rest = &rest[4 + end..];
        } else if c == '*'
            && let Some(end) = close(rest, "*")
            && !rest[1..].starts_with(' ')
        {
            let _ = write!(out, "<em>{}</em>", inline_html(&rest[1..1 + end]));
            rest = &rest[2 + end..];
        } else if c == '['
            && let Some(mid) = rest.find("](")
            && let Some(end) = rest[mid..].find(')')
            && (rest[mid + 2..mid + end].starts_with("https://")
                || rest[mid + 2..mid + end].starts_with("http://"))
        {
            let _ = write!(
                out,
                "<a href=\"{}\">{}</a>",
                esc(&rest[mid + 2..mid + end]),
                inline_html(&rest[1..mid])
            );
            rest = &rest[mid + end + 1..];
        } else {
            let _ = write!(out, "{}", esc(&c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_render_their_markdown() {
        let html = docs_html(
            "The provider's `host`, **never** *public*; see\n[the docs](https://example.org/a?b=1).\n\n- one `x`\n- two\n  continued\n\nA <script> & rpc_secret_key.\n```\nkey = \"<v>\"\n```",
        );
        assert_eq!(
            html,
            "<p>The provider's <code>host</code>, <strong>never</strong> <em>public</em>; see \
             <a href=\"https://example.org/a?b=1\">the docs</a>.</p>\n\
             <ul>\n<li>one <code>x</code></li>\n<li>two continued</li>\n</ul>\n\
             <p>A &lt;script&gt; &amp; rpc_secret_key.</p>\n\
             <pre><code>key = &quot;&lt;v&gt;&quot;</code></pre>\n"
        );
        // A link to anything but the web stays text; a lone backtick stays a character.
        assert_eq!(
            inline_html("[x](javascript:alert(1)) a ` b"),
            "[x](javascript:alert(1)) a ` b"
        );
    }

    #[test]
    fn a_summary_keeps_its_code_apart() {
        let spans = with_code("A `postgres` database, `x");
        assert!(
            matches!(&spans[..], [Span_::Text(a), Span_::Code(b), Span_::Text(c)]
            if a == "A " && b == "postgres" && c == " database, `x")
        );
    }
}
