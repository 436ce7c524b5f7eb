//! The workspace's global names: contracts (with their fields resolved to types and
//! constraints), modules, meshes and seats. Built once per workspace revision and shared
//! by the checker, the resolver and the language server.

use super::types::{Constraint, Ty, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::resolve::fx_hash::FxIndexMap;
use crate::span::{FilePath, Span};
use crate::syntax::ast::{self, Item};
use indexmap::IndexMap;
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
            fields.insert(
                f.name.name.to_string(),
                FieldInfo {
                    name: f.name.name.to_string(),
                    secret: f.ty.as_ref().is_some_and(|t| t.secret.is_some()),
                    given: f.given.is_some(),
                    default: f.default.as_ref().and_then(Value::from_literal),
                    ty,
                    constraint,
                    docs: f.docs.text.clone(),
                    span: f.span,
                    name_span: f.name.span,
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
            docs: c.docs.text.clone(),
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

/// Every global name of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Registry {
    pub contracts: IndexMap<String, Arc<ContractInfo>>,
    pub modules: IndexMap<String, ItemRef>,
    pub meshes: IndexMap<String, ItemRef>,
    pub seats: IndexMap<String, SeatInfo>,
    /// Node names and node private names of every mesh (what a definition must not name).
    pub node_names: IndexMap<String, NodeName>,
    /// File paths by index, as `ItemRef::file` counts them.
    pub files: Vec<FilePath>,
    /// Duplicates and misplaced declarations (E0101, E0110, E0204), each in its own file.
    pub diagnostics: Vec<Diagnostic>,
}

/// One parsed file of the workspace, as the registry reads it.
pub struct RegistryInput<'a> {
    pub path: &'a FilePath,
    pub file: &'a ast::SourceFile,
    /// The standard library's own file.
    pub std: bool,
}

impl Registry {
    /// Builds the registry from every parsed file, the standard library first.
    pub fn build<'a>(inputs: impl IntoIterator<Item = RegistryInput<'a>>) -> Registry {
        let mut reg = Registry::default();
        // Where each module and mesh is named, for the label of a duplicate; kept out of
        // the registry, which holds no position of them.
        let mut module_spans: std::collections::HashMap<String, Span> = Default::default();
        let mut mesh_spans: std::collections::HashMap<String, Span> = Default::default();
        for (file_index, input) in inputs.into_iter().enumerate() {
            reg.files.push(input.path.clone());
            for (item_index, item) in input.file.items.iter().enumerate() {
                let name = item.name();
                let here = ItemRef {
                    file: file_index,
                    item: item_index,
                };
                match item {
                    Item::Contract(c) => {
                        if let Some(prev) = reg.contracts.get(name.name.as_str()) {
                            let d = if prev.std {
                                Diagnostic::new(
                                    Code::E0110,
                                    input.path,
                                    name.span,
                                    format!(
                                        "`{}` is a standard contract and cannot be redefined",
                                        name.name
                                    ),
                                )
                                .with_help("choose another name for your contract")
                            } else {
                                duplicate(input.path, name, "contract", &prev.file, prev.name_span)
                            };
                            reg.diagnostics.push(d);
                            continue;
                        }
                        reg.contracts.insert(
                            name.name.to_string(),
                            Arc::new(ContractInfo::from_ast(c, input.path, input.std)),
                        );
                    }
                    Item::Module(_) => {
                        if let Some(prev) = reg.modules.get(name.name.as_str()) {
                            let d = duplicate(
                                input.path,
                                name,
                                "module",
                                &reg.files[prev.file],
                                module_spans
                                    .get(name.name.as_str())
                                    .copied()
                                    .unwrap_or_default(),
                            );
                            reg.diagnostics.push(d);
                            continue;
                        }
                        reg.modules.insert(name.name.to_string(), here);
                        module_spans.insert(name.name.to_string(), name.span);
                    }
                    Item::Mesh(m) => {
                        if let Some(prev) = reg.meshes.get(name.name.as_str()) {
                            let d = duplicate(
                                input.path,
                                name,
                                "mesh",
                                &reg.files[prev.file],
                                mesh_spans
                                    .get(name.name.as_str())
                                    .copied()
                                    .unwrap_or_default(),
                            );
                            reg.diagnostics.push(d);
                            continue;
                        }
                        reg.meshes.insert(name.name.to_string(), here);
                        mesh_spans.insert(name.name.to_string(), name.span);
                        for node in m.nodes() {
                            let entry = NodeName {
                                mesh: m.name.name.to_string(),
                                node: node.name.name.to_string(),
                            };
                            reg.node_names
                                .entry(node.name.name.to_string())
                                .or_insert(entry.clone());
                            if let Some(ast::Expr::Str(s)) =
                                node.prop("private_name").map(|p| &p.value)
                                && let Some(pn) = s.as_plain()
                            {
                                reg.node_names.entry(pn).or_insert(entry);
                            }
                        }
                    }
                    Item::Seat(s) => {
                        if !input.std {
                            reg.diagnostics.push(
                                Diagnostic::new(
                                    Code::E0204,
                                    input.path,
                                    s.span,
                                    format!("seat `{}` is declared outside the standard library", name.name),
                                )
                                .with_help(
                                    "the seats are a closed set: vault, proxy, dns and broker; a mesh holds one with `seat NAME = INSTANCE on NODE`",
                                ),
                            );
                            continue;
                        }
                        if let Some(contract) = &s.contract {
                            reg.seats.insert(
                                name.name.to_string(),
                                SeatInfo {
                                    name: name.name.to_string(),
                                    contract: contract.name.to_string(),
                                    file: input.path.clone(),
                                    span: s.span,
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

    /// The diagnostics of the registry that belong to `file`.
    pub fn diagnostics_in<'a>(
        &'a self,
        file: &'a FilePath,
    ) -> impl Iterator<Item = &'a Diagnostic> {
        self.diagnostics.iter().filter(move |d| d.file == *file)
    }
}

fn duplicate(
    file: &FilePath,
    name: &ast::Ident,
    what: &str,
    prev_file: &FilePath,
    prev: Span,
) -> Diagnostic {
    Diagnostic::new(
        Code::E0101,
        file,
        name.span,
        format!("{what} `{}` is defined twice", name.name),
    )
    .with_label_in(prev_file, prev, "first defined here")
    .with_help(format!(
        "rename one of them; {what} names are global to the workspace"
    ))
}
