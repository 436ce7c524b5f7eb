//! The workspace's global names: contracts (with their fields resolved to types and
//! constraints), modules, meshes and seats. Built once per workspace revision and shared
//! by the checker, the resolver and the language server.

use super::types::{Constraint, Ty, Value};
use crate::base::fx_hash::FxIndexMap;
use crate::diagnostics::rules::{DefinedTwice, StandardOnly};
use crate::diagnostics::{Diagnostic, Rule};
use crate::span::{FilePath, Span};
use crate::syntax::Parsed;
use crate::syntax::ast::{self, Item};
use std::sync::Arc;

/// The closed set of provider kinds (LANGUAGE.md §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProviderKind {
    Module,
    Host,
    Mesh,
    Operator,
}

/// The kinds as written, for messages and completion.
pub const PROVIDER_KINDS: &[&str] = &["module", "host", "mesh", "operator"];

impl ProviderKind {
    /// The kind written `name`.
    pub fn from_name(name: &str) -> Option<ProviderKind> {
        Some(match name {
            "module" => ProviderKind::Module,
            "host" => ProviderKind::Host,
            "mesh" => ProviderKind::Mesh,
            "operator" => ProviderKind::Operator,
            _ => return None,
        })
    }

    /// The kind as written.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Module => "module",
            ProviderKind::Host => "host",
            ProviderKind::Mesh => "mesh",
            ProviderKind::Operator => "operator",
        }
    }

    /// "a module", "the host", "the mesh", "the operator": who answers, in prose.
    pub fn answerer(self) -> &'static str {
        match self {
            ProviderKind::Module => "a module",
            ProviderKind::Host => "the host",
            ProviderKind::Mesh => "the mesh",
            ProviderKind::Operator => "the operator",
        }
    }
}

/// The contracts the host answers (the standard library's `for host` contracts,
/// LANGUAGE.md §5.1): what each is, asked wherever a host requirement's meaning matters
/// (placements, mounts, published ports, answers, completion) instead of its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostContract {
    /// `directory`: a directory the host creates, owned and moded as the module asks.
    Directory,
    /// `access`: an operator's shared data, reached where the assignment says.
    Access,
    /// `port`: a host port, published from a container.
    Port,
    /// `node`: facts about the module's own node.
    Node,
}

impl HostContract {
    /// Every host contract, in the standard library's order.
    pub const ALL: [HostContract; 4] = [
        HostContract::Directory,
        HostContract::Access,
        HostContract::Port,
        HostContract::Node,
    ];

    /// The host contract named `name`.
    pub fn from_name(name: &str) -> Option<HostContract> {
        HostContract::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The contract's name, as the standard library declares it.
    pub fn as_str(self) -> &'static str {
        match self {
            HostContract::Directory => "directory",
            HostContract::Access => "access",
            HostContract::Port => "port",
            HostContract::Node => "node",
        }
    }

    /// Whether the host answers with a path on the host (`path: host_path`), which only
    /// a mount reads and an assignment places at a host path: `directory` and `access`.
    pub fn is_path(self) -> bool {
        matches!(self, HostContract::Directory | HostContract::Access)
    }

    /// Whether an assignment may place it (`NAME at …`): the paths and `port`.
    pub fn is_placed(self) -> bool {
        self.is_path() || self == HostContract::Port
    }
}

/// The contracts the mesh answers (the standard library's `for mesh` contracts,
/// LANGUAGE.md §5.1): decided once with a requirement's other facts, so the placements
/// ask which it is, not its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MeshContract {
    /// `identity`: who the module is, derived by the mesh.
    Identity,
}

impl MeshContract {
    /// Every mesh contract, in the standard library's order.
    pub const ALL: [MeshContract; 1] = [MeshContract::Identity];

    /// The mesh contract named `name`.
    pub fn from_name(name: &str) -> Option<MeshContract> {
        MeshContract::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The contract's name, as the standard library declares it.
    pub fn as_str(self) -> &'static str {
        match self {
            MeshContract::Identity => "identity",
        }
    }
}

/// A field of a contract, its type and refinements resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldInfo {
    pub name: String,
    pub ty: Ty,
    pub secret: bool,
    pub given: bool,
    /// The conjunction of the type's range and the field's refinements.
    pub constraint: Constraint,
    /// The default, when written as a literal.
    pub default: Option<Value>,
    pub docs: Option<String>,
    pub span: Span,
    pub name_span: Span,
    /// Its place among its contract's fields (`ContractInfo::fields`): what the table
    /// of readings names it by (`check::readings`).
    pub index: u32,
}

impl FieldInfo {
    /// `secret string len 16..`-like text for hover and messages.
    pub fn describe_type(&self) -> String {
        let mut s = String::new();
        if self.given {
            s.push_str("given ");
        }
        if self.secret {
            s.push_str("secret ");
        }
        s.push_str(&self.ty.to_string());
        s
    }
}

/// A contract and its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractInfo {
    pub name: String,
    /// Who answers it; `None` when the kind was missing or unknown (reported).
    pub kind: Option<ProviderKind>,
    pub fields: FxIndexMap<String, FieldInfo>,
    /// Declared in the standard library.
    pub std: bool,
    pub file: FilePath,
    pub span: Span,
    pub name_span: Span,
    pub docs: Option<String>,
}

impl ContractInfo {
    /// The field named `name`. A contract has a handful of fields: they are compared in
    /// order, each by its length first, rather than the name hashed (every reference
    /// to a requirement's field is looked up here, 330,000 checking the dense workload).
    pub fn field(&self, name: &str) -> Option<&FieldInfo> {
        if self.fields.len() > 16 {
            return self.fields.get(name);
        }
        self.fields
            .iter()
            .find(|(k, _)| k.len() == name.len() && k.as_str() == name)
            .map(|(_, f)| f)
    }

    /// Resolves the fields of a parsed contract. Unknown types become [`Ty::Error`]; the
    /// checker reports them.
    pub fn from_ast(c: &ast::Contract, file: &FilePath, std: bool) -> ContractInfo {
        let mut fields = FxIndexMap::default();
        for f in &c.fields {
            if fields.contains_key(f.name.name.as_str()) {
                continue;
            }
            let ty =
                f.ty.as_ref()
                    .map(|t| Ty::from_ast(t).unwrap_or(Ty::Error))
                    .unwrap_or(Ty::Error);
            let mut constraint = Constraint::of_type(&ty);
            constraint.refine(&f.refinements);
            constraint.secret = f.ty.as_ref().is_some_and(|t| t.secret.is_some());
            let index = fields.len() as u32;
            fields.insert(
                f.name.name.to_string(),
                FieldInfo {
                    name: f.name.name.to_string(),
                    secret: f.ty.as_ref().is_some_and(|t| t.secret.is_some()),
                    given: f.given.is_some(),
                    default: f.default.as_ref().and_then(Value::from_literal),
                    ty,
                    constraint,
                    docs: f.docs.text().map(str::to_string),
                    span: f.span,
                    name_span: f.name.span,
                    index,
                },
            );
        }
        ContractInfo {
            name: c.name.name.to_string(),
            kind: c
                .kind
                .as_ref()
                .and_then(|k| ProviderKind::from_name(&k.name))
                .filter(|k| *k != ProviderKind::Operator),
            fields,
            std,
            file: file.clone(),
            span: c.span,
            name_span: c.name.span,
            docs: c.docs.text().map(str::to_string),
        }
    }
}

/// A seat of the standard library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatInfo {
    pub name: String,
    pub contract: String,
    pub file: FilePath,
    pub span: Span,
}

/// Where an item lives: its file's index in the workspace and its index in the file.
/// No position: an edit that moves an item inside its file (a space, a comment above it)
/// leaves the registry equal, so no other file is checked again. The item's place is
/// read from its file's tree when something is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemRef {
    pub file: usize,
    pub item: usize,
}

/// A node of some mesh, for E0404 and completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeName {
    pub mesh: String,
    pub node: String,
}

/// Every global name of the workspace. The tables hash with the Fx hasher: they are
/// looked up on every reference checked and resolved, and the module table holds one
/// entry per module of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Registry {
    pub contracts: FxIndexMap<String, Arc<ContractInfo>>,
    /// Where each contract of [`Registry::contracts`] is declared.
    pub contract_items: FxIndexMap<String, ItemRef>,
    pub modules: FxIndexMap<String, ItemRef>,
    /// The contracts each module of [`Registry::modules`] provides, in its order.
    pub module_provides: FxIndexMap<String, Vec<String>>,
    pub meshes: FxIndexMap<String, ItemRef>,
    pub seats: FxIndexMap<String, SeatInfo>,
    /// Node names and node private names of every mesh (what a definition must not name).
    pub node_names: FxIndexMap<String, NodeName>,
    /// File paths by index, as `ItemRef::file` counts them.
    pub files: Vec<FilePath>,
    /// Duplicates and misplaced declarations (E0101, E0110, E0204), by item and without
    /// position: [`Registry::diagnostics_in`] places them when a file is checked.
    pub problems: Vec<NameProblem>,
}

/// A global name declared where it may not be, found without reading any position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// `at` declares a contract, module or mesh (`what`) that `first` declared before
    /// (E0101).
    Duplicate {
        what: &'static str,
        at: ItemRef,
        first: ItemRef,
    },
    /// `at` declares a contract the standard library declares (E0110).
    StandardContract { at: ItemRef },
    /// `at` declares a seat outside the standard library (E0204).
    MisplacedSeat { at: ItemRef },
}

impl NameProblem {
    /// The item the problem is reported at.
    pub fn at(&self) -> ItemRef {
        match self {
            NameProblem::Duplicate { at, .. }
            | NameProblem::StandardContract { at }
            | NameProblem::MisplacedSeat { at } => *at,
        }
    }
}

/// What the registry needs of one top-level item, with no position of modules, meshes and
/// seats: an edit that leaves every name in place (a space, a comment, a value) leaves the
/// summary equal, so salsa keeps the registry and everything that reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemSummary {
    /// A contract, its fields resolved. Contracts keep the spans of their fields, which
    /// checks label; an edit that moves a contract's fields changes its summary.
    Contract(Arc<ContractInfo>),
    Module {
        name: String,
        /// The contracts its `provides` blocks name, in order: what E0103 offers when a
        /// requirement names the module instead of a contract.
        provides: Vec<String>,
        /// The given fields it reads as a consumer's ([`given_fields_read`]): usually
        /// none. Not the registry's: [`GivenRead`] gathers them apart, so an edit that
        /// changes them keeps the registry, and every file's check, equal.
        given_read: Vec<String>,
    },
    Mesh {
        name: String,
        /// Each node's name and its private name, when written as a plain string.
        nodes: Vec<(String, Option<String>)>,
    },
    Seat {
        name: String,
        /// The contract the seat delivers; the seat's place is kept only for the standard
        /// library's (whose text never changes).
        contract: Option<(String, Span)>,
    },
}

/// The summaries of one file's items, in source order (an item's index is its index in
/// the file's tree).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileSummary {
    pub items: Vec<ItemSummary>,
}

impl FileSummary {
    /// The summary of a parsed file.
    pub fn of(file: &ast::SourceFile, path: &FilePath, std: bool) -> FileSummary {
        let items = file
            .items
            .iter()
            .map(|item| match item {
                Item::Contract(c) => {
                    ItemSummary::Contract(Arc::new(ContractInfo::from_ast(c, path, std)))
                }
                Item::Module(m) => ItemSummary::Module {
                    name: m.name.name.to_string(),
                    provides: m.provides().map(|p| p.contract.name.to_string()).collect(),
                    given_read: given_fields_read(m),
                },
                Item::Mesh(m) => ItemSummary::Mesh {
                    name: m.name.name.to_string(),
                    nodes: m
                        .nodes()
                        .map(|node| {
                            let private = match node.prop("private_name").map(|p| &p.value) {
                                Some(ast::Expr::Str(s)) => s.as_plain(),
                                _ => None,
                            };
                            (node.name.name.to_string(), private)
                        })
                        .collect(),
                },
                Item::Seat(s) => ItemSummary::Seat {
                    name: s.name.name.to_string(),
                    contract: s
                        .contract
                        .as_ref()
                        .filter(|_| std)
                        .map(|c| (c.name.to_string(), s.span)),
                },
            })
            .collect();
        FileSummary { items }
    }
}

/// Every given field name some module reads as a consumer's (`given.FIELD` while
/// answering, `c.given.FIELD` in a loop over its consumers) outside its containers'
/// entries, whatever the contract, sorted, each once: what a check of a mesh can read of
/// one module's given fields from another module (`db::module_check_view` keeps the
/// value of any field named here). A module defined twice counts too: the set only ever
/// keeps more values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GivenRead(Vec<String>);

impl GivenRead {
    /// The fields the modules of `summaries` read.
    pub fn of<'a>(summaries: impl IntoIterator<Item = &'a FileSummary>) -> GivenRead {
        let mut read: Vec<String> = Vec::new();
        for summary in summaries {
            for item in &summary.items {
                if let ItemSummary::Module { given_read, .. } = item {
                    read.extend(given_read.iter().cloned());
                }
            }
        }
        read.sort_unstable();
        read.dedup();
        GivenRead(read)
    }

    /// Whether some module reads given field `field` as a consumer's.
    pub fn reads(&self, field: &str) -> bool {
        self.0.binary_search_by(|f| f.as_str().cmp(field)).is_ok()
    }

    /// The fields, sorted.
    pub fn fields(&self) -> &[String] {
        &self.0
    }
}

/// The given fields module `m` reads as a consumer's outside its containers' entries:
/// the field after `given` in a reference that begins `given.FIELD` (a `provides`
/// answer's) or `c.given.FIELD` (a loop variable's), sorted, each once. Read by the
/// words of the references alone, whatever they resolve to: a name kept that nothing
/// reads only keeps a value in a check view ([`GivenRead`]).
fn given_fields_read(m: &ast::Module) -> Vec<String> {
    let mut read: Vec<String> = Vec::new();
    let mut note = |r: &ast::Reference| {
        let words = &r.segments;
        for at in [0, 1] {
            if let (Some(given), Some(field)) = (words.get(at), words.get(at + 1))
                && given.name == "given"
                && !read.iter().any(|f| f.as_str() == field.name.as_str())
            {
                read.push(field.name.to_string());
            }
        }
    };
    for entry in &m.entries {
        match entry {
            ast::ModuleEntry::Slug(s, _) => s.each_reference(&mut note),
            ast::ModuleEntry::Requires(r) => match &r.body {
                ast::RequirementBody::Operator(op) => {
                    if let Some(d) = &op.default {
                        d.each_reference(&mut note);
                    }
                }
                ast::RequirementBody::Contract { narrowing, .. } => {
                    for n in narrowing {
                        if let ast::NarrowingKind::Set(e) = &n.kind {
                            e.each_reference(&mut note);
                        }
                    }
                }
            },
            // Only the manifests read a container's entries.
            ast::ModuleEntry::Container(_) => {}
            ast::ModuleEntry::Provides(p) => {
                for a in &p.answers {
                    a.value.each_reference(&mut note);
                }
            }
        }
    }
    read.sort_unstable();
    read
}

/// One parsed file of the workspace, as the registry reads it.
pub struct RegistryInput<'a> {
    pub path: &'a FilePath,
    pub file: &'a ast::SourceFile,
    /// The standard library's own file.
    pub std: bool,
}

/// One file's summary, as the registry reads it.
pub struct SummaryInput<'a> {
    pub path: &'a FilePath,
    pub summary: &'a FileSummary,
    /// The standard library's own file.
    pub std: bool,
}

impl Registry {
    /// Builds the registry from every parsed file, the standard library first.
    pub fn build<'a>(inputs: impl IntoIterator<Item = RegistryInput<'a>>) -> Registry {
        let inputs: Vec<(&FilePath, FileSummary, bool)> = inputs
            .into_iter()
            .map(|i| (i.path, FileSummary::of(i.file, i.path, i.std), i.std))
            .collect();
        Registry::from_summaries(inputs.iter().map(|(path, summary, std)| SummaryInput {
            path,
            summary,
            std: *std,
        }))
    }

    /// Builds the registry from every file's summary, the standard library first. Reads no
    /// tree and no position.
    pub fn from_summaries<'a>(inputs: impl IntoIterator<Item = SummaryInput<'a>>) -> Registry {
        let mut reg = Registry::default();
        for (file_index, input) in inputs.into_iter().enumerate() {
            reg.files.push(input.path.clone());
            for (item_index, item) in input.summary.items.iter().enumerate() {
                let here = ItemRef {
                    file: file_index,
                    item: item_index,
                };
                match item {
                    ItemSummary::Contract(info) => {
                        if let Some(prev) = reg.contracts.get(info.name.as_str()) {
                            let problem = if prev.std {
                                NameProblem::StandardContract { at: here }
                            } else {
                                NameProblem::Duplicate {
                                    what: "contract",
                                    at: here,
                                    first: reg
                                        .contract_items
                                        .get(info.name.as_str())
                                        .copied()
                                        .unwrap_or(here),
                                }
                            };
                            reg.problems.push(problem);
                            continue;
                        }
                        reg.contracts.insert(info.name.clone(), info.clone());
                        reg.contract_items.insert(info.name.clone(), here);
                    }
                    ItemSummary::Module { name, provides, .. } => {
                        if let Some(prev) = reg.modules.get(name.as_str()) {
                            reg.problems.push(NameProblem::Duplicate {
                                what: "module",
                                at: here,
                                first: *prev,
                            });
                            continue;
                        }
                        reg.modules.insert(name.clone(), here);
                        reg.module_provides.insert(name.clone(), provides.clone());
                    }
                    ItemSummary::Mesh { name, nodes } => {
                        if let Some(prev) = reg.meshes.get(name.as_str()) {
                            reg.problems.push(NameProblem::Duplicate {
                                what: "mesh",
                                at: here,
                                first: *prev,
                            });
                            continue;
                        }
                        reg.meshes.insert(name.clone(), here);
                        for (node, private) in nodes {
                            let entry = NodeName {
                                mesh: name.clone(),
                                node: node.clone(),
                            };
                            reg.node_names.entry(node.clone()).or_insert(entry.clone());
                            if let Some(pn) = private {
                                reg.node_names.entry(pn.clone()).or_insert(entry);
                            }
                        }
                    }
                    ItemSummary::Seat { name, contract } => {
                        if !input.std {
                            reg.problems.push(NameProblem::MisplacedSeat { at: here });
                            continue;
                        }
                        if let Some((contract, span)) = contract {
                            reg.seats.insert(
                                name.clone(),
                                SeatInfo {
                                    name: name.clone(),
                                    contract: contract.clone(),
                                    file: input.path.clone(),
                                    span: *span,
                                },
                            );
                        }
                    }
                }
            }
        }
        reg
    }

    /// The seat that delivers `contract`, if any.
    pub fn seat_delivering(&self, contract: &str) -> Option<&SeatInfo> {
        self.seats.values().find(|s| s.contract == contract)
    }

    /// The diagnostics of the registry that belong to `file`, placed by reading the trees
    /// of the files involved (`tree_of` gives a file's tree by its index).
    pub fn diagnostics_in(
        &self,
        file: &FilePath,
        tree_of: &dyn Fn(usize) -> Option<Arc<Parsed>>,
    ) -> Vec<Diagnostic> {
        let item_of = |at: ItemRef| -> Option<(Arc<Parsed>, usize)> {
            let tree = tree_of(at.file)?;
            (at.item < tree.file.items.len()).then_some((tree, at.item))
        };
        let mut out = Vec::new();
        for problem in &self.problems {
            let at = problem.at();
            if self.files.get(at.file) != Some(file) {
                continue;
            }
            let Some((tree, index)) = item_of(at) else {
                continue;
            };
            let item = &tree.file.items[index];
            let name = item.name();
            out.push(match problem {
                NameProblem::StandardContract { .. } => {
                    StandardOnly::Contract { name: &name.name }.at(file, name.span)
                }
                NameProblem::Duplicate { what, first, .. } => {
                    let prev = item_of(*first)
                        .map(|(t, i)| t.file.items[i].name().span)
                        .unwrap_or_default();
                    let prev_file = self.files.get(first.file).cloned().unwrap_or_default();
                    duplicate(file, name, what, &prev_file, prev)
                }
                NameProblem::MisplacedSeat { .. } => {
                    StandardOnly::Seat { name: &name.name }.at(file, item.span())
                }
            });
        }
        out
    }
}

fn duplicate(
    file: &FilePath,
    name: &ast::Ident,
    what: &str,
    prev_file: &FilePath,
    prev: Span,
) -> Diagnostic {
    DefinedTwice {
        what,
        name: &name.name,
        first: (prev_file, prev),
    }
    .at(file, name.span)
}

/// A module's definition, wherever in the workspace it is: its file's tree and its index
/// there (what [`Registry::modules`] points at, with the tree read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSource {
    pub path: FilePath,
    pub parsed: Arc<Parsed>,
    pub item: usize,
}

impl ModuleSource {
    /// The module's tree.
    pub fn module(&self) -> &ast::Module {
        match &self.parsed.file.items[self.item] {
            ast::Item::Module(m) => m,
            _ => unreachable!("registry points at a module"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};
    use crate::diagnostics::Code;

    /// A field found by [`ContractInfo::field`] is the one the table finds by its name,
    /// in every contract of the standard library and in one with more fields than it
    /// compares in order; a name no field has (a prefix, a longer name) finds none.
    #[test]
    fn a_contracts_field_is_found_as_its_table_finds_it() {
        let many: String = (0..20).map(|k| format!("  f{k}: string\n")).collect();
        let text = format!("contract many {{\n{many}}}\n");
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(text))]);
        let reg = db::registry(&database, ws);
        let many = &reg.contracts["many"];
        assert!(many.fields.len() > 16, "{}", many.fields.len());
        let mut seen = 0;
        for c in reg.contracts.values() {
            let mut names: Vec<String> = c.fields.keys().cloned().collect();
            names.extend(c.fields.keys().map(|k| format!("{k}x")));
            names.extend(c.fields.keys().map(|k| k[..k.len() - 1].to_string()));
            names.push(String::new());
            for name in &names {
                let want = c.fields.get(name.as_str()).map(|f| f.index);
                assert_eq!(c.field(name).map(|f| f.index), want, "{}.{name}", c.name);
                seen += usize::from(want.is_some());
            }
        }
        assert!(seen > 20, "{seen}");
    }

    /// The typed description and the standard library say the same: every `for host`
    /// contract is one [`HostContract`], in order, and the paths are those whose `path`
    /// field is a host path.
    #[test]
    fn the_host_contracts_are_the_standard_librarys_for_host_contracts() {
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(""))]);
        let reg = db::registry(&database, ws);
        // The standard library's contracts that `kind` answers, in its order.
        let declared = |kind: ProviderKind| -> Vec<&str> {
            reg.contracts
                .values()
                .filter(|c| c.std && c.kind == Some(kind))
                .map(|c| c.name.as_str())
                .collect()
        };
        let described: Vec<&str> = HostContract::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(declared(ProviderKind::Host), described);
        for c in HostContract::ALL {
            assert_eq!(HostContract::from_name(c.as_str()), Some(c));
            let path = reg.contracts[c.as_str()].fields.get("path");
            assert_eq!(
                c.is_path(),
                path.is_some_and(|f| f.ty == Ty::HostPath),
                "{c:?}"
            );
            assert_eq!(c.is_placed(), c != HostContract::Node, "{c:?}");
        }
        assert_eq!(HostContract::from_name("identity"), None);
        let described: Vec<&str> = MeshContract::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(declared(ProviderKind::Mesh), described);
        for c in MeshContract::ALL {
            assert_eq!(MeshContract::from_name(c.as_str()), Some(c));
        }
        assert_eq!(MeshContract::from_name("port"), None);
    }

    /// The node's facts as the resolver reads them ([`NodeFact`]) are the standard
    /// `node` contract's fields, in order; the legacy `${machine:…}` words name them.
    #[test]
    fn the_node_facts_are_the_node_contracts_fields() {
        use super::super::readings::NodeFact;
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(""))]);
        let reg = db::registry(&database, ws);
        let declared: Vec<&str> = reg.contracts[HostContract::Node.as_str()]
            .fields
            .keys()
            .map(String::as_str)
            .collect();
        let described: Vec<&str> = NodeFact::ALL.iter().map(|f| f.field()).collect();
        assert_eq!(declared, described);
        for fact in NodeFact::ALL {
            assert_eq!(NodeFact::of_field(fact.field()), Some(fact));
            assert_eq!(NodeFact::legacy_field(fact.field()), fact.field());
        }
        for old in NodeFact::OLD_NAMES {
            assert_eq!(NodeFact::legacy_field(old), "private_name");
        }
        assert_eq!(NodeFact::of_field("hostname"), None);
        assert_eq!(NodeFact::legacy_field("hostnme"), "hostnme");
    }

    #[test]
    fn the_four_kinds_read_and_write_their_names() {
        for (name, kind, who) in [
            ("module", ProviderKind::Module, "a module"),
            ("host", ProviderKind::Host, "the host"),
            ("mesh", ProviderKind::Mesh, "the mesh"),
            ("operator", ProviderKind::Operator, "the operator"),
        ] {
            assert_eq!(ProviderKind::from_name(name), Some(kind));
            assert_eq!(kind.as_str(), name);
            assert_eq!(kind.answerer(), who);
        }
        assert_eq!(ProviderKind::from_name("service"), None);
        assert_eq!(PROVIDER_KINDS, ["module", "host", "mesh", "operator"]);
    }

    const A: &str = "contract feed for module {\n  given tag: string\n  token: secret string\n  url: url\n}\n\nmodule app {\n  container app {\n    image \"nginx:1.27\"\n  }\n}\n\nmesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n}\n";
    const B: &str = "contract feed for module {\n  url: url\n}\n\ncontract knob for operator {\n  x: int\n}\n\nseat keeper delivers feed\n";

    /// Two files: the first declaration of a name is kept, and each problem is told in
    /// the file of the item at fault only.
    #[test]
    fn a_workspace_of_two_files_keeps_first_names_and_tells_each_file_its_problems() {
        let (database, ws) = Database::with_files([
            (FilePath::from("a.mesh"), Arc::from(A)),
            (FilePath::from("b.mesh"), Arc::from(B)),
        ]);
        let reg = db::registry(&database, ws);
        let feed = &reg.contracts["feed"];
        assert_eq!(&*feed.file, "a.mesh");
        assert_eq!(feed.kind, Some(ProviderKind::Module));
        assert_eq!(feed.fields.len(), 3);
        assert_eq!(feed.fields["tag"].describe_type(), "given string");
        assert_eq!(feed.fields["token"].describe_type(), "secret string");
        assert_eq!(feed.fields["url"].describe_type(), "url");
        // `for operator` is no contract kind: the contract has none (E0201 is the checker's).
        assert_eq!(reg.contracts["knob"].kind, None);
        // Seats are the standard library's: its own are kept, one elsewhere is not.
        assert_eq!(
            reg.seat_delivering("secret").map(|s| s.name.as_str()),
            Some("vault")
        );
        assert_eq!(
            reg.seat_delivering("route").map(|s| s.name.as_str()),
            Some("proxy")
        );
        assert!(reg.seat_delivering("feed").is_none());
        assert!(reg.seat_delivering("postgres").is_none());
        // A node's name and its private name are both names a definition must not use.
        assert_eq!(reg.node_names["alpha"].node, "alpha");
        assert_eq!(reg.node_names["alpha.lab.internal"].mesh, "lab");
        let files = ws.files(&database);
        let tree = |i: usize| files.get(i).map(|f| db::parse_file(&database, *f));
        let in_a = reg.diagnostics_in(&FilePath::from("a.mesh"), &tree);
        assert!(in_a.is_empty(), "{in_a:?}");
        let mut in_b: Vec<(Code, String)> = reg
            .diagnostics_in(&FilePath::from("b.mesh"), &tree)
            .into_iter()
            .map(|d| (d.code, d.message))
            .collect();
        in_b.sort();
        assert_eq!(in_b.len(), 2, "{in_b:?}");
        assert_eq!(in_b[0].0, Code::E0101);
        assert!(
            in_b[0].1.contains("`feed` is defined twice"),
            "{}",
            in_b[0].1
        );
        assert_eq!(in_b[1].0, Code::E0204);
        let app = db::module_source(&database, ws, "app").expect("module app");
        assert_eq!(app.module().name.name, "app");
        // A problem whose item is not in the tree given (a tree older than the
        // registry) is left out, not read past the tree's end.
        let empty = Arc::new(crate::syntax::parse(&FilePath::from("b.mesh"), ""));
        let stale = |i: usize| if i == 2 { Some(empty.clone()) } else { tree(i) };
        assert!(
            reg.diagnostics_in(&FilePath::from("b.mesh"), &stale)
                .is_empty()
        );
        // Built from the trees (`meshc migrate`, the secrets sweep) or from the files'
        // summaries (the database), the registry is the same.
        let parsed = db::parsed_files(&database, ws);
        let built = Registry::build(parsed.iter().map(|(path, p, std)| RegistryInput {
            path,
            file: &p.file,
            std: *std,
        }));
        assert_eq!(built, *reg);
    }
}
