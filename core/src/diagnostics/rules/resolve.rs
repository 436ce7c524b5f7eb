//! The resolver's diagnostics: one type per code a mesh is refused with (E0101 and
//! E0106–E0109 for its names, E05xx for its assignments, answers and ports), whose
//! variants are the places the resolver refuses. The data are names, places and the
//! resolver's own phrases for an instance (`` `forge` on `alpha` ``); what a help suggests
//! (a close name, the names there are) is found by the resolver and worded here.
//!
//! A code the checker raises too keeps one type, with the resolver's places as variants:
//! E0304 and E0314 ([`ValueRefused`] picks one of them by why a value is refused), E0307
//! ([`super::ProviderField`]), E0310 ([`super::Unanswered`]), E0313
//! ([`super::RequirementCycle`]) and E0326 ([`super::NotOptional`]).

use super::Rule;
use crate::diagnostics::{Code, Label};
use crate::span::{FilePath, Span};
use std::fmt::Display;

/// A label in `file` at `span`.
fn label(file: &FilePath, span: Span, message: impl Into<String>) -> Label {
    Label {
        file: file.clone(),
        span,
        message: message.into(),
    }
}

/// "did you mean `x`?".
fn did_you_mean(name: &str) -> String {
    format!("did you mean `{name}`?")
}

/// E0101: a node of a mesh, or its private name, written twice.
pub enum MeshTwice<'a> {
    /// A second node of one name; `first` is the first one's name.
    Node {
        node: &'a str,
        mesh: &'a str,
        first: Span,
    },
    /// Two nodes with one private name; `first` is where the first node writes it.
    PrivateName {
        first_node: &'a str,
        node: &'a str,
        mesh: &'a str,
        first: Span,
    },
}

impl Rule for MeshTwice<'_> {
    fn code(&self) -> Code {
        Code::E0101
    }

    fn message(&self) -> String {
        match self {
            MeshTwice::Node { node, mesh, .. } => {
                format!("node `{node}` is defined twice in mesh `{mesh}`")
            }
            MeshTwice::PrivateName {
                first_node,
                node,
                mesh,
                ..
            } => {
                format!("nodes `{first_node}` and `{node}` of mesh `{mesh}` have one private name")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            MeshTwice::Node { .. } => "rename one of them; node names are unique in a mesh".into(),
            MeshTwice::PrivateName { .. } => {
                "a private name reaches one machine: give each node its own".into()
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            MeshTwice::Node { first, .. } => vec![label(file, *first, "first defined here")],
            MeshTwice::PrivateName { first, .. } => {
                vec![label(file, *first, "first written here")]
            }
        }
    }
}

/// E0508: an instance name already taken on its node; `first` is the first assignment's
/// head. With `container`, the name is taken by a container: (the container name this
/// assignment would give, the instance already holding it), as instance `x` of a module
/// with containers `a` and `b` holds `x-a` beside an instance `x-a`.
pub struct InstanceTaken<'a> {
    pub instance: &'a str,
    pub node: &'a str,
    pub module: &'a str,
    pub first: Span,
    pub container: Option<(&'a str, &'a str)>,
}

impl Rule for InstanceTaken<'_> {
    fn code(&self) -> Code {
        Code::E0508
    }

    fn message(&self) -> String {
        match self.container {
            None => format!(
                "instance `{}` is already on node `{}`",
                self.instance, self.node
            ),
            Some((name, other)) => format!(
                "container name `{name}` of instance `{}` is already on node `{}`, given by instance `{other}`",
                self.instance, self.node
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "give this assignment a name of its own: `assign {} to {} as {}-two`",
            self.module, self.node, self.instance
        ))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        let why = match self.container {
            None => "first assigned here",
            Some(_) => "the container name is first given here",
        };
        vec![label(file, self.first, why)]
    }
}

/// E0106: an assignment of a module the workspace does not define; `closest` is a
/// module named nearly so.
pub struct UnknownModule<'a> {
    pub module: &'a str,
    pub closest: Option<&'a str>,
}

impl Rule for UnknownModule<'_> {
    fn code(&self) -> Code {
        Code::E0106
    }

    fn message(&self) -> String {
        format!("unknown module `{}` in `assign`", self.module)
    }

    fn help(&self) -> Option<String> {
        Some(match self.closest {
            Some(c) => did_you_mean(c),
            None => format!(
                "no module named `{}` is defined in the workspace",
                self.module
            ),
        })
    }
}

/// E0107: a node name the mesh does not declare, written as `what` (the assignment's
/// node, a placement's, a pinned provider's). `closest` is a node named nearly so;
/// `nodes` lists the mesh's nodes (empty when it has none).
pub struct UnknownNode<'a> {
    pub node: &'a str,
    pub what: &'a str,
    pub mesh: &'a str,
    pub closest: Option<&'a str>,
    pub nodes: String,
}

impl Rule for UnknownNode<'_> {
    fn code(&self) -> Code {
        Code::E0107
    }

    fn message(&self) -> String {
        format!(
            "unknown node `{}` ({}) in mesh `{}`",
            self.node, self.what, self.mesh
        )
    }

    fn help(&self) -> Option<String> {
        Some(match self.closest {
            Some(c) => did_you_mean(c),
            None if self.nodes.is_empty() => format!("mesh `{}` declares no node", self.mesh),
            None => format!("the nodes of this mesh are {}", self.nodes),
        })
    }
}

/// E0109: no instance of the name on the node named, written as `what`. `elsewhere`
/// lists the nodes that do have one (empty when none), `closest` is an instance of the
/// node named nearly so, `on_node` lists the node's instances (empty when none).
pub struct NoInstance<'a> {
    pub instance: &'a str,
    pub node: &'a str,
    pub what: &'a str,
    pub elsewhere: String,
    pub closest: Option<&'a str>,
    pub on_node: String,
}

impl Rule for NoInstance<'_> {
    fn code(&self) -> Code {
        Code::E0109
    }

    fn message(&self) -> String {
        format!(
            "no instance `{}` on node `{}` ({})",
            self.instance, self.node, self.what
        )
    }

    fn help(&self) -> Option<String> {
        Some(if !self.elsewhere.is_empty() {
            format!(
                "`{}` is assigned to {}; name its node",
                self.instance, self.elsewhere
            )
        } else if let Some(c) = self.closest {
            did_you_mean(c)
        } else if self.on_node.is_empty() {
            format!("nothing is assigned to node `{}`", self.node)
        } else {
            format!("the instances on `{}` are {}", self.node, self.on_node)
        })
    }
}

/// E0108: a seat line naming no seat of the standard library; `closest` is a seat
/// named nearly so, `seats` lists them all.
pub struct UnknownSeat<'a> {
    pub seat: &'a str,
    pub closest: Option<&'a str>,
    pub seats: String,
}

impl Rule for UnknownSeat<'_> {
    fn code(&self) -> Code {
        Code::E0108
    }

    fn message(&self) -> String {
        format!("unknown seat `{}`", self.seat)
    }

    fn help(&self) -> Option<String> {
        Some(match self.closest {
            Some(c) => did_you_mean(c),
            None => format!("the seats are a closed set: {}", self.seats),
        })
    }
}

/// What could hold a seat that delivers `contract`: instances of the mesh providing it,
/// else modules of the workspace that do.
pub enum CouldHold<'a> {
    /// `names` lists the instances (each `` `forge` on `alpha` ``); the first is
    /// `first` on `first_node`.
    Instances {
        names: String,
        first: &'a str,
        first_node: &'a str,
    },
    /// `names` lists the modules; the first is `first`.
    Modules { names: String, first: &'a str },
    /// Nothing in the workspace provides the contract.
    Nothing,
}

impl CouldHold<'_> {
    /// The help line naming what could hold `seat`.
    pub fn help(&self, seat: &str, contract: &str) -> String {
        match self {
            CouldHold::Instances {
                names,
                first,
                first_node,
            } => format!(
                "instances that could hold it: {names}; hold it with `seat {seat} = {first} on {first_node}`"
            ),
            CouldHold::Nothing => format!(
                "no module of the workspace provides `{contract}`; write one with `provides {contract} {{ … }}`, assign it and hold the seat with `seat {seat} = INSTANCE on NODE`"
            ),
            CouldHold::Modules { names, first } => format!(
                "modules that could hold it: {names}; assign one and hold the seat with `seat {seat} = {first} on NODE`"
            ),
        }
    }
}

/// E0515: a seat held by an instance whose module does not provide what the seat
/// delivers; `holder` is the holder's assignment.
pub struct SeatHolderNotProvider<'a> {
    pub seat: &'a str,
    pub instance: &'a str,
    pub node: &'a str,
    pub module: &'a str,
    pub contract: &'a str,
    pub holder: Span,
    pub could_hold: CouldHold<'a>,
}

impl Rule for SeatHolderNotProvider<'_> {
    fn code(&self) -> Code {
        Code::E0515
    }

    fn message(&self) -> String {
        format!(
            "seat `{}` is held by `{}` on `{}`, whose module `{}` does not provide `{}`",
            self.seat, self.instance, self.node, self.module, self.contract
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.could_hold.help(self.seat, self.contract))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.holder, "assigned here")]
    }
}

/// E0517: an assignment entry naming a requirement its module does not have.
/// `closest` is a requirement named nearly so; `listed` lists them (empty when none).
pub struct NoSuchRequirement<'a> {
    pub module: &'a str,
    pub name: &'a str,
    pub instance: &'a str,
    pub node: &'a str,
    pub closest: Option<&'a str>,
    pub listed: String,
}

impl Rule for NoSuchRequirement<'_> {
    fn code(&self) -> Code {
        Code::E0517
    }

    fn message(&self) -> String {
        format!(
            "module `{}` has no requirement `{}` (instance `{}` on node `{}`)",
            self.module, self.name, self.instance, self.node
        )
    }

    fn help(&self) -> Option<String> {
        Some(match self.closest {
            Some(c) => did_you_mean(c),
            None if self.listed.is_empty() => {
                format!("module `{}` has no requirement", self.module)
            }
            None => format!("the requirements of `{}` are {}", self.module, self.listed),
        })
    }
}

/// What an assignment may write for a requirement, by its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryFor {
    /// An operator value: `NAME = …`.
    Operator,
    /// A module requirement: a pin.
    Module,
    /// A host directory or access: a placement at a path.
    HostPath,
    /// A host port: a placement at a port.
    HostPort,
    /// Anything else: the mesh answers it.
    Nothing,
}

impl EntryFor {
    /// The help line saying what to write for requirement `name`.
    fn help(self, name: &str) -> String {
        match self {
            EntryFor::Operator => format!("set it with `{name} = …`"),
            EntryFor::Module => format!("pin its provider with `{name} from INSTANCE on NODE`"),
            EntryFor::HostPath => format!("place it with `{name} at \"/host/path\"`"),
            EntryFor::HostPort => format!("place it with `{name} at 8080`"),
            EntryFor::Nothing => {
                format!("`{name}` is answered by the mesh; the assignment writes nothing for it")
            }
        }
    }
}

/// E0516: an assignment entry of the wrong kind for its requirement. `decl` is where
/// the module requires it; `entry` what the assignment may write instead.
pub enum WrongEntry<'a> {
    /// `NAME = …` for a requirement that is no operator value (`kind` is its kind).
    NotOperator {
        key: &'a str,
        instance: &'a str,
        node: &'a str,
        kind: &'a str,
        decl: (&'a FilePath, Span),
        entry: EntryFor,
    },
    /// `NAME.FIELD = …` for an operator value.
    FieldOfOperator {
        requirement: &'a str,
        instance: &'a str,
        node: &'a str,
    },
    /// A pin for a requirement that is no module requirement.
    Pin {
        requirement: &'a str,
        instance: &'a str,
        node: &'a str,
        kind: &'a str,
        decl: (&'a FilePath, Span),
        entry: EntryFor,
    },
    /// A placement for a requirement that is no host directory, access or port; `kind`
    /// and `contract` are the requirement's, where known.
    Place {
        key: &'a str,
        instance: &'a str,
        node: &'a str,
        kind: Option<&'a str>,
        contract: Option<&'a str>,
        decl: (&'a FilePath, Span),
        entry: EntryFor,
    },
}

impl Rule for WrongEntry<'_> {
    fn code(&self) -> Code {
        Code::E0516
    }

    fn message(&self) -> String {
        use WrongEntry::*;
        match self {
            NotOperator {
                key,
                instance,
                node,
                kind,
                ..
            } => format!(
                "`{key}` of instance `{instance}` on node `{node}` is a {kind} requirement; `{key} = …` sets an operator value"
            ),
            FieldOfOperator {
                requirement,
                instance,
                node,
            } => format!(
                "`{requirement}` of instance `{instance}` on node `{node}` is an operator value; it has no fields"
            ),
            Pin {
                requirement,
                instance,
                node,
                kind,
                ..
            } => format!(
                "`{requirement}` of instance `{instance}` on node `{node}` is a {kind} requirement; only a module requirement is pinned to a provider"
            ),
            Place {
                key,
                instance,
                node,
                kind,
                contract,
                ..
            } => {
                let what = match (kind, contract) {
                    (Some(k), Some(c)) => format!("a {k} requirement of `{c}`"),
                    (Some(k), None) => format!("an {k} requirement"),
                    _ => "a requirement".to_string(),
                };
                format!(
                    "`{key}` of instance `{instance}` on node `{node}` is {what}; only a host directory, access or port is placed"
                )
            }
        }
    }

    fn help(&self) -> Option<String> {
        use WrongEntry::*;
        Some(match self {
            NotOperator { key, entry, .. } | Place { key, entry, .. } => entry.help(key),
            Pin {
                requirement, entry, ..
            } => entry.help(requirement),
            FieldOfOperator { requirement, .. } => format!("set it with `{requirement} = …`"),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        use WrongEntry::*;
        match self {
            NotOperator {
                decl: (file, span), ..
            }
            | Pin {
                decl: (file, span), ..
            }
            | Place {
                decl: (file, span), ..
            } => vec![label(file, *span, "required here")],
            FieldOfOperator { .. } => Vec::new(),
        }
    }
}

/// E0512: a secret operator value written in a mesh. `value` is the value written,
/// masked in excerpts (it may be the secret itself); `decl` where the module declares
/// it secret.
pub struct SecretInMesh<'a> {
    pub key: &'a str,
    pub instance: &'a str,
    pub node: &'a str,
    pub decl: (&'a FilePath, Span),
    pub value: Span,
}

impl Rule for SecretInMesh<'_> {
    fn code(&self) -> Code {
        Code::E0512
    }

    fn message(&self) -> String {
        format!(
            "`{}` of instance `{}` on node `{}` is a secret operator value; it is never written in a mesh",
            self.key, self.instance, self.node
        )
    }

    fn help(&self) -> Option<String> {
        Some("remove it from the mesh and deliver it to the vault: the holder of the `vault` seat keeps it under the instance's login".into())
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        vec![label(self.decl.0, self.decl.1, "declared secret here")]
    }

    fn masks_other(&self) -> Option<Span> {
        Some(self.value)
    }
}

/// A bool written as text (`debug = "no"`): the bool it reads as, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotedBool {
    /// `"yes"`, `"off"`, …: `true` or `false`.
    Meant(&'static str),
    /// Text that reads as neither.
    Other,
}

/// Where the declaration a value must fit is, for E0513's label.
pub enum FitLabel<'a> {
    /// An operator value of type `ty`, required at the place.
    Operator { ty: &'a dyn Display },
    /// A given field `field`, declared at the place.
    Field { field: &'a str },
    /// A given field the definition already sets, at the place.
    SetByDefinition,
}

/// E0513: an entry of an assignment, or what it makes, that does not fit.
pub enum DoesNotFit<'a> {
    /// The value of `key` (an operator value, a given field, a placement): `why` says
    /// why; `default` whether leaving it out takes a default; `label` is where its
    /// declaration is; `quoted_bool` is set for a bool written as text.
    Value {
        key: &'a str,
        instance: &'a str,
        node: &'a str,
        why: &'a str,
        default: bool,
        label: Option<(&'a FilePath, Span, FitLabel<'a>)>,
        quoted_bool: Option<QuotedBool>,
    },
    /// `keep_network` with no network's name.
    KeepNetwork { instance: &'a str, node: &'a str },
    /// `short = …` that is no short form.
    Short { instance: &'a str, node: &'a str },
    /// A login longer than `max` or of other characters.
    Login {
        login: &'a str,
        instance: &'a str,
        node: &'a str,
        max: usize,
    },
}

impl Rule for DoesNotFit<'_> {
    fn code(&self) -> Code {
        Code::E0513
    }

    fn message(&self) -> String {
        use DoesNotFit::*;
        match self {
            Value {
                key,
                instance,
                node,
                why,
                ..
            } => format!(
                "the value of `{key}` for instance `{instance}` on node `{node}` does not fit: {why}"
            ),
            KeepNetwork { instance, node } => format!(
                "`keep_network` on instance `{instance}` on node `{node}` names a network: letters, digits, `_`, `.` and `-`, in quotes, with no `${{…}}`"
            ),
            Short { instance, node } => format!(
                "the short form of instance `{instance}` on node `{node}` does not fit: it is 1 to 4 of `a-z` and `0-9`, starting with a letter, in quotes"
            ),
            Login {
                login,
                instance,
                node,
                max,
            } => format!(
                "the login `{login}` of instance `{instance}` on node `{node}` does not fit: a login is at most {max} characters of `a-z`, `0-9` and `_`, starting with a letter"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        use DoesNotFit::*;
        Some(match self {
            Value {
                key,
                quoted_bool: Some(QuotedBool::Meant(meant)),
                ..
            } => format!("a bool is `true` or `false`, without quotes: write `{key} = {meant}`"),
            Value {
                key,
                quoted_bool: Some(QuotedBool::Other),
                ..
            } => format!("a bool is `true` or `false`, without quotes: `{key} = true`"),
            Value {
                key, default: true, ..
            } => format!(
                "write a literal that fits `{key}` as the module declares it (see the label), or leave it out to take the default"
            ),
            Value { key, .. } => format!(
                "write a literal that fits `{key}` as the module declares it (see the label); it has no default, so the assignment must give one"
            ),
            KeepNetwork { .. } => "e.g. `keep_network \"legacy\"`".into(),
            Short { .. } => "e.g. `short = \"stg\"`; it ends the instance's login".into(),
            Login { .. } => {
                "shorten the node's `short`, the module's `slug` or the instance's `short = \"…\"`"
                    .into()
            }
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        let DoesNotFit::Value {
            key,
            label: Some((file, span, what)),
            ..
        } = self
        else {
            return Vec::new();
        };
        let message = match what {
            FitLabel::Operator { ty } => format!("`{key}` is an operator {ty}"),
            FitLabel::Field { field } => format!("`{field}` is declared here"),
            FitLabel::SetByDefinition => "set by the definition here".into(),
        };
        vec![label(file, *span, message)]
    }
}

/// E0325: `keep_network` on an instance whose node is not adopted; `node_span` is the
/// node's name.
pub struct NotAdopted<'a> {
    pub network: &'a str,
    pub instance: &'a str,
    pub node: &'a str,
    pub node_span: Span,
}

impl Rule for NotAdopted<'_> {
    fn code(&self) -> Code {
        Code::E0325
    }

    fn message(&self) -> String {
        format!(
            "`keep_network \"{}\"` on instance `{}`, but node `{}` is not marked `adopted`",
            self.network, self.instance, self.node
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "a found network exists only on a machine that ran services before the mesh: write `adopted = true` in node `{}`, or remove the line",
            self.node
        ))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.node_span, "this node is not adopted")]
    }
}

/// E0506: a host requirement placed on another node than its instance's (`own`).
pub struct PlacedElsewhere<'a> {
    pub key: &'a str,
    pub instance: &'a str,
    pub own: &'a str,
    pub node: &'a str,
}

impl Rule for PlacedElsewhere<'_> {
    fn code(&self) -> Code {
        Code::E0506
    }

    fn message(&self) -> String {
        format!(
            "`{}` of instance `{}` on node `{}` is placed on node `{}`; a host requirement is always answered on its own node",
            self.key, self.instance, self.own, self.node
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "a host path means nothing on another node: drop `on {}`, or assign the module to `{}`",
            self.node, self.node
        ))
    }
}

/// The help naming the given fields of `contract`; `given` lists them (empty when it
/// has none).
pub fn given_fields_help(contract: &str, given: &str) -> String {
    if given.is_empty() {
        format!("contract `{contract}` has no given field to set")
    } else {
        format!("the given fields of `{contract}` are {given}")
    }
}

/// E0501: what must be written and is not, with no default.
pub enum Missing<'a> {
    /// A node without `private_name`.
    NodePrivateName { node: &'a str },
    /// A requirement of the node's facts, on a node whose `private_name` is in error.
    NodeFacts {
        requirement: &'a str,
        who: &'a str,
        node: &'a str,
        node_span: Span,
    },
    /// An operator value neither given nor defaulted. `instance_as` is the instance's
    /// name when the assignment writes one (`as NAME`).
    OperatorValue {
        requirement: &'a str,
        ty: &'a dyn Display,
        instance: &'a str,
        node: &'a str,
        module: &'a str,
        instance_as: Option<&'a str>,
        decl: (&'a FilePath, Span),
    },
    /// A given field neither set nor defaulted; `kind` is the requirement's kind.
    GivenField {
        requirement: &'a str,
        field: &'a str,
        instance: &'a str,
        node: &'a str,
        contract: &'a str,
        kind: &'a str,
        decl: (&'a FilePath, Span),
        field_decl: (&'a FilePath, Span),
    },
}

impl Rule for Missing<'_> {
    fn code(&self) -> Code {
        Code::E0501
    }

    fn message(&self) -> String {
        use Missing::*;
        match self {
            NodePrivateName { node } => {
                format!("node `{node}` has no `private_name`, and it has no default")
            }
            NodeFacts {
                requirement,
                who,
                node,
                ..
            } => format!(
                "`{requirement}` of {who} reads the facts of node `{node}`, which has no valid `private_name`"
            ),
            OperatorValue {
                requirement,
                ty,
                instance,
                node,
                ..
            } => format!(
                "operator value `{requirement}` ({ty}) of instance `{instance}` on node `{node}` is missing, and the requirement has no default"
            ),
            GivenField {
                requirement,
                field,
                instance,
                node,
                contract,
                ..
            } => format!(
                "`{requirement}.{field}` of instance `{instance}` on node `{node}` is not set, and contract `{contract}` gives it no default"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        use Missing::*;
        Some(match self {
            NodePrivateName { node } => format!(
                "write the node's name on the private network: `node {node} {{ private_name = \"{node}.lab.internal\" }}`"
            ),
            NodeFacts { .. } => "write the node's `private_name`".into(),
            OperatorValue {
                requirement,
                node,
                module,
                instance_as,
                ..
            } => format!(
                "give it on the assignment: `assign {module} to {node}{} {{ {requirement} = … }}`, or give the requirement a default",
                match instance_as {
                    Some(n) => format!(" as {n}"),
                    None => String::new(),
                }
            ),
            GivenField {
                requirement,
                field,
                contract,
                kind,
                ..
            } => format!(
                "set it on the assignment: `{requirement}.{field} = …`, or in the definition: `requires {requirement}: {kind} {contract} {{ {field} = … }}`"
            ),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        use Missing::*;
        match self {
            NodePrivateName { .. } => Vec::new(),
            NodeFacts { node_span, .. } => vec![label(file, *node_span, "the node")],
            OperatorValue {
                decl: (file, span), ..
            } => vec![label(file, *span, "required here")],
            GivenField {
                decl, field_decl, ..
            } => vec![
                label(decl.0, decl.1, "required here"),
                label(
                    field_decl.0,
                    field_decl.1,
                    "a given field: the consumer sets it",
                ),
            ],
        }
    }
}

/// E0518: an access requirement the assignment does not place.
pub struct AccessUnplaced<'a> {
    pub requirement: &'a str,
    pub who: &'a str,
    pub decl: (&'a FilePath, Span),
}

impl Rule for AccessUnplaced<'_> {
    fn code(&self) -> Code {
        Code::E0518
    }

    fn message(&self) -> String {
        format!(
            "access `{}` of {} has no location: an access is never created, so the assignment says where the data is",
            self.requirement, self.who
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "place it in the assignment's braces: `{} at \"/srv/shared/{}\"`",
            self.requirement, self.requirement
        ))
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        vec![label(self.decl.0, self.decl.1, "required here")]
    }
}

/// E0511: two directories of one node at the same or nested host paths; `how` says
/// which (`the same path`, `a path it lies under`, `a path under it`), `other_head` is
/// the earlier directory's assignment.
pub struct DirectoriesMeet<'a> {
    pub requirement: &'a str,
    pub who: &'a str,
    pub path: &'a str,
    pub other_requirement: &'a str,
    pub other_who: &'a str,
    pub other_path: &'a str,
    pub how: &'a str,
    pub other_head: Span,
}

impl Rule for DirectoriesMeet<'_> {
    fn code(&self) -> Code {
        Code::E0511
    }

    fn message(&self) -> String {
        format!(
            "directory `{}` of {} is at `{}`, and directory `{}` of {} is at `{}`: {}",
            self.requirement,
            self.who,
            self.path,
            self.other_requirement,
            self.other_who,
            self.other_path,
            self.how
        )
    }

    fn help(&self) -> Option<String> {
        let req = self.requirement;
        Some(format!(
            "two directories of one node never share or nest their host paths; place `{req}` elsewhere: `{req} at \"/srv/other/{req}\"`"
        ))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.other_head, "that directory's assignment")]
    }
}

/// E0519: one host port (and protocol) of a node placed twice; `first` is the first
/// placement's assignment.
pub struct PortPlacedTwice<'a> {
    pub port: i64,
    pub protocol: &'a str,
    pub node: &'a str,
    pub requirement: &'a str,
    pub who: &'a str,
    pub other_requirement: &'a str,
    pub other_who: &'a str,
    pub first: Span,
}

impl Rule for PortPlacedTwice<'_> {
    fn code(&self) -> Code {
        Code::E0519
    }

    fn message(&self) -> String {
        format!(
            "host port {}/{} of node `{}` is placed twice: for `{}` of {} and for `{}` of {}",
            self.port,
            self.protocol,
            self.node,
            self.requirement,
            self.who,
            self.other_requirement,
            self.other_who
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "place `{}` on another port, or leave it unplaced and the build chooses a free one",
            self.requirement
        ))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.first, "placed first here")]
    }
}

/// E0510: the ports of a node, or of the lock, that cannot be kept.
pub enum PortsRefused<'a> {
    /// No free port left in the node's range `lo..hi` for a port requirement.
    Exhausted {
        requirement: &'a str,
        who: &'a str,
        node: &'a str,
        lo: i64,
        hi: i64,
        node_span: Span,
    },
    /// `meshc build --locked` with a lock that would change; `changes` names each.
    Locked { mesh: &'a str, changes: String },
}

impl Rule for PortsRefused<'_> {
    fn code(&self) -> Code {
        Code::E0510
    }

    fn message(&self) -> String {
        match self {
            PortsRefused::Exhausted {
                requirement,
                who,
                node,
                lo,
                hi,
                ..
            } => format!(
                "no free port left for `{requirement}` of {who}: every port of `{node}`'s range {lo}..{hi} is taken"
            ),
            PortsRefused::Locked { mesh, changes } => {
                format!("`--locked` forbids changing the lock of mesh `{mesh}`: {changes}")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            PortsRefused::Exhausted {
                requirement,
                lo,
                hi,
                ..
            } => format!(
                "widen the node's range (`ports = {lo}..{}`), or place the port: `{requirement} at 8080`",
                hi.saturating_add(1000).min(65535)
            ),
            PortsRefused::Locked { .. } => "run `meshc build` without `--locked` to choose the ports and update the lock, then commit it".into(),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            PortsRefused::Exhausted { node_span, .. } => vec![label(file, *node_span, "the node")],
            PortsRefused::Locked { .. } => Vec::new(),
        }
    }
}

/// One change of a lock's ports that `meshc build --locked` refuses (E0510), `key`
/// being `node/instance/requirement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockChange<'a> {
    /// A port the lock does not hold yet.
    Given { key: &'a str, port: u16 },
    /// A port the lock holds at another number.
    Moved { key: &'a str, from: u16, to: u16 },
    /// A port of the lock no requirement has any more.
    Dropped { key: &'a str },
}

impl Display for LockChange<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockChange::Given { key, port } => write!(f, "`{key}` would be given host port {port}"),
            LockChange::Moved { key, from, to } => {
                write!(f, "`{key}` would move from host port {from} to {to}")
            }
            LockChange::Dropped { key } => {
                write!(f, "`{key}` would be dropped (no such port requirement)")
            }
        }
    }
}

/// E0509: instances whose logins are alike. `others` names the other members shown
/// (`a`, `a and b`, …); `heads` are their assignments, each labelled.
pub struct LoginsAlike<'a> {
    pub login: &'a str,
    pub who: &'a str,
    pub others: &'a str,
    pub heads: Vec<Span>,
}

impl Rule for LoginsAlike<'_> {
    fn code(&self) -> Code {
        Code::E0509
    }

    fn message(&self) -> String {
        format!(
            "the login `{}` of {} is alike the login of {}",
            self.login, self.who, self.others
        )
    }

    fn help(&self) -> Option<String> {
        Some("a login is keyed by every provider: give one instance a `short = \"…\"` of its own, or its node a `short`".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        self.heads
            .iter()
            .map(|&span| label(file, span, format!("also `{}`", self.login)))
            .collect()
    }
}

/// Why an instance was left out by itself.
#[derive(Debug, Clone, Copy)]
pub enum LeftOutWhy<'a> {
    /// Refused by the mesh; the first refusal's code.
    Refused(Code),
    /// Its module is unknown.
    UnknownModule(&'a str),
    /// Its module has errors; the first one's code.
    ModuleErrors(&'a str, Code),
    /// Its node has errors; the first one's code.
    NodeErrors(&'a str, Code),
}

impl Display for LeftOutWhy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LeftOutWhy::Refused(code) => write!(f, "it was refused ({})", code.as_str()),
            LeftOutWhy::UnknownModule(m) => write!(f, "its module `{m}` is unknown"),
            LeftOutWhy::ModuleErrors(m, code) => {
                write!(
                    f,
                    "its module `{m}` has errors (the first: {})",
                    code.as_str()
                )
            }
            LeftOutWhy::NodeErrors(n, code) => {
                write!(
                    f,
                    "its node `{n}` has errors (the first: {})",
                    code.as_str()
                )
            }
        }
    }
}

/// E0514: instances waiting for a provider that was left out.
pub enum Waiting<'a> {
    /// One consumer's own refusal: it waits for `provider`, whose assignment is
    /// `provider_head`.
    One {
        consumer: &'a str,
        provider: &'a str,
        provider_head: Span,
    },
    /// The one diagnostic shown per left-out provider: `waiters` are everyone who waits
    /// for it, each with the instance it waits through (none for a direct consumer);
    /// `place` is where the first reason it was left out is.
    Group {
        provider: &'a str,
        why: LeftOutWhy<'a>,
        waiters: Vec<(String, Option<String>)>,
        place: Option<(&'a FilePath, Span)>,
    },
}

impl Rule for Waiting<'_> {
    fn code(&self) -> Code {
        Code::E0514
    }

    fn message(&self) -> String {
        match self {
            Waiting::One {
                consumer, provider, ..
            } => format!("{consumer} waits for {provider}, which was left out"),
            Waiting::Group {
                provider,
                why,
                waiters,
                ..
            } => match waiters.as_slice() {
                [(consumer, _)] => {
                    format!("{consumer} waits for {provider}, which was left out: {why}")
                }
                _ => format!(
                    "{} instances wait for {provider}, which was left out: {why}",
                    waiters.len()
                ),
            },
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Waiting::One {
                consumer, provider, ..
            } => format!("{consumer} is built once {provider} resolves; see why it was left out"),
            Waiting::Group {
                provider, waiters, ..
            } => {
                let list: Vec<String> = waiters
                    .iter()
                    .map(|(c, through)| match through {
                        None => c.clone(),
                        Some(t) => format!("{c} (through {t})"),
                    })
                    .collect();
                let (waiting, they, built) = if waiters.len() == 1 {
                    (
                        "1 instance waits".to_string(),
                        "is left out with it",
                        "it is",
                    )
                } else {
                    (
                        format!("{} instances wait", waiters.len()),
                        "are left out with it",
                        "they are",
                    )
                };
                format!(
                    "{waiting} for {provider} and {they}: {}; fix what left {provider} out and {built} built",
                    list.join(", ")
                )
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            Waiting::One { provider_head, .. } => vec![label(file, *provider_head, "left out")],
            Waiting::Group {
                provider,
                place: Some((file, span)),
                ..
            } => vec![label(
                file,
                *span,
                format!("{provider} was left out for this"),
            )],
            Waiting::Group { place: None, .. } => Vec::new(),
        }
    }
}

/// E0505: a pin to an instance whose module does not provide the contract. `provided`
/// lists what the module provides (empty when nothing); `others` the instances of the
/// mesh that do provide it (empty when none); `pinned` is the pinned instance's
/// assignment.
pub struct PinnedNotProvider<'a> {
    pub requirement: &'a str,
    pub who: &'a str,
    pub pinned_who: &'a str,
    pub module: &'a str,
    pub contract: &'a str,
    pub provided: String,
    pub others: String,
    pub pinned: Span,
}

impl Rule for PinnedNotProvider<'_> {
    fn code(&self) -> Code {
        Code::E0505
    }

    fn message(&self) -> String {
        format!(
            "`{}` of {} is pinned to {}, whose module `{}` does not provide `{}`",
            self.requirement, self.who, self.pinned_who, self.module, self.contract
        )
    }

    fn help(&self) -> Option<String> {
        let others = if self.others.is_empty() {
            format!("no instance of this mesh provides `{}`", self.contract)
        } else {
            format!("`{}` is provided by {}", self.contract, self.others)
        };
        Some(if self.provided.is_empty() {
            format!("`{}` provides nothing; {others}", self.module)
        } else {
            format!("`{}` provides {}; {others}", self.module, self.provided)
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.pinned, "the pinned instance")]
    }
}

/// E0502: no instance of the mesh provides what a requirement needs. `modules` lists
/// the workspace's modules that do (empty when none), `first` the one suggested;
/// `node` is the consumer's node.
pub struct NoProvider<'a> {
    pub requirement: &'a str,
    pub contract: &'a str,
    pub who: &'a str,
    pub mesh: &'a str,
    pub decl: (&'a FilePath, Span),
    pub modules: String,
    pub first: Option<&'a str>,
    pub node: &'a str,
}

impl Rule for NoProvider<'_> {
    fn code(&self) -> Code {
        Code::E0502
    }

    fn message(&self) -> String {
        format!(
            "no provider for `{}` (contract `{}`) of {}: no instance of mesh `{}` provides `{}`",
            self.requirement, self.contract, self.who, self.mesh, self.contract
        )
    }

    fn help(&self) -> Option<String> {
        let contract = self.contract;
        Some(match self.first {
            None => format!(
                "no module of the workspace provides `{contract}`; write one with `provides {contract} {{ … }}` and assign it"
            ),
            Some(first) => format!(
                "assign a module that provides it ({}), e.g. `assign {first} to {}`",
                self.modules, self.node
            ),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        vec![label(self.decl.0, self.decl.1, "required here")]
    }
}

/// E0503: several instances could answer a requirement. `names` lists them, `heads`
/// are the assignments of those shown; the first is `first` on `first_node`.
/// `on_own_node`: they are on the consumer's node (else `mesh` has them elsewhere).
pub struct SeveralProviders<'a> {
    pub requirement: &'a str,
    pub contract: &'a str,
    pub who: &'a str,
    pub on_own_node: bool,
    pub mesh: &'a str,
    pub names: String,
    pub heads: Vec<Span>,
    pub first: &'a str,
    pub first_node: &'a str,
}

impl Rule for SeveralProviders<'_> {
    fn code(&self) -> Code {
        Code::E0503
    }

    fn message(&self) -> String {
        let where_ = if self.on_own_node {
            "on the consumer's own node".to_string()
        } else {
            format!("in mesh `{}`, none on the consumer's node", self.mesh)
        };
        format!(
            "several providers for `{}` (contract `{}`) of {}, {where_}: {}",
            self.requirement, self.contract, self.who, self.names
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "pin one in the assignment's braces: `{} from {} on {}`",
            self.requirement, self.first, self.first_node
        ))
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        self.heads
            .iter()
            .map(|&span| label(file, span, format!("provides `{}`", self.contract)))
            .collect()
    }
}

/// E0504: a requirement answered by a seat's holder, and no seat held.
pub enum SeatNotHeld<'a> {
    /// A secret operator value, and no seat of the workspace delivers `contract`.
    NoSeat {
        requirement: &'a str,
        who: &'a str,
        contract: &'a str,
    },
    /// The seat `seat` delivers it, and this mesh names no holder. `secret_value`: the
    /// requirement is a secret operator value (delivered to the vault).
    NotHeld {
        seat: &'a str,
        requirement: &'a str,
        who: &'a str,
        contract: &'a str,
        secret_value: bool,
        could_hold: CouldHold<'a>,
    },
}

impl Rule for SeatNotHeld<'_> {
    fn code(&self) -> Code {
        Code::E0504
    }

    fn message(&self) -> String {
        match self {
            SeatNotHeld::NoSeat {
                requirement,
                who,
                contract,
            } => format!(
                "`{requirement}` of {who} is a secret operator value, kept by the vault, and no seat delivers `{contract}` in this workspace"
            ),
            SeatNotHeld::NotHeld {
                seat,
                requirement,
                who,
                contract,
                secret_value,
                ..
            } => {
                let what = if *secret_value {
                    format!(
                        "`{requirement}` of {who} is a secret operator value, delivered to the holder of seat `{seat}`"
                    )
                } else {
                    format!(
                        "`{requirement}` (contract `{contract}`) of {who} is answered by the holder of seat `{seat}`"
                    )
                };
                format!("seat `{seat}` is not held: {what}")
            }
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            SeatNotHeld::NoSeat { .. } => None,
            SeatNotHeld::NotHeld {
                seat,
                contract,
                could_hold,
                ..
            } => Some(could_hold.help(seat, contract)),
        }
    }
}

/// A requirement answered by the holder of a seat whose line is wrong: refused with the
/// seat line's own code (`code`: E0107, E0109 or E0515), saying `why`; `seat_line` is
/// the line.
pub struct SeatBroken<'a> {
    pub code: Code,
    pub requirement: &'a str,
    pub who: &'a str,
    pub seat: &'a str,
    pub why: &'a str,
    pub seat_line: Span,
}

impl Rule for SeatBroken<'_> {
    fn code(&self) -> Code {
        self.code
    }

    fn message(&self) -> String {
        format!(
            "`{}` of {} is answered by the holder of seat `{}`, and that seat is not held as it must be: {}",
            self.requirement, self.who, self.seat, self.why
        )
    }

    fn help(&self) -> Option<String> {
        Some("fix the seat line: it names an instance on its node whose module provides what the seat delivers".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.seat_line, "the seat")]
    }
}

/// E0507: a public name held by two assignments; `held` is where the first holds it.
pub struct PublicNameTaken<'a> {
    pub name: &'a str,
    pub requirement: &'a str,
    pub field: &'a str,
    pub who: &'a str,
    pub holder_who: &'a str,
    pub holder_requirement: &'a str,
    pub held: Span,
}

impl Rule for PublicNameTaken<'_> {
    fn code(&self) -> Code {
        Code::E0507
    }

    fn message(&self) -> String {
        format!(
            "public name `{}` (`{}.{}` of {}) is already taken by {} (`{}.{}`)",
            self.name,
            self.requirement,
            self.field,
            self.who,
            self.holder_who,
            self.holder_requirement,
            self.field
        )
    }

    fn help(&self) -> Option<String> {
        Some("a public name is held by one assignment: choose another name for this one".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![label(file, self.held, "held here")]
    }
}

/// Why a value the resolver computed is refused: E0314 when it is no valid value of its
/// type, E0304 when it breaches a refinement.
pub enum Unfit<'a> {
    /// Not a valid `ty`, because `why`.
    Invalid { ty: &'a dyn Display, why: String },
    /// Outside a refinement, in words (`is not in 1..10`).
    Breach(String),
}

impl Display for Unfit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::Invalid { ty, why } => write!(f, "is not a valid {ty}: {why}"),
            Unfit::Breach(breach) => f.write_str(breach),
        }
    }
}

/// E0314 or E0304 (by `unfit`): a value the resolver computes that its field refuses.
pub enum ValueRefused<'a> {
    /// A given field the definition sets, at `set` in the module's file.
    Set {
        requirement: &'a str,
        field: &'a str,
        who: &'a str,
        value: &'a dyn Display,
        unfit: Unfit<'a>,
        set: (&'a FilePath, Span),
    },
    /// A provider's answer to a consumer: `provider_head` is the provider's assignment,
    /// `decl` where the consumer requires it.
    Answer {
        provider: &'a str,
        requirement: &'a str,
        field: &'a str,
        who: &'a str,
        value: &'a dyn Display,
        unfit: Unfit<'a>,
        provider_head: Span,
        decl: (&'a FilePath, Span),
    },
}

impl Rule for ValueRefused<'_> {
    fn code(&self) -> Code {
        let (ValueRefused::Set { unfit, .. } | ValueRefused::Answer { unfit, .. }) = self;
        match unfit {
            Unfit::Invalid { .. } => Code::E0314,
            Unfit::Breach(_) => Code::E0304,
        }
    }

    fn message(&self) -> String {
        match self {
            ValueRefused::Set {
                requirement,
                field,
                who,
                value,
                unfit,
                ..
            } => format!("`{requirement}.{field}` of {who} resolves to {value}, which {unfit}"),
            ValueRefused::Answer {
                provider,
                requirement,
                field,
                who,
                value,
                unfit,
                ..
            } => format!(
                "{provider} answers `{requirement}.{field}` of {who} with {value}, which {unfit}"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            ValueRefused::Set { .. } => None,
            ValueRefused::Answer { .. } => Some("the answer must satisfy the contract and the consumer's narrowing: change the provider's answer, or the narrowing".into()),
        }
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            ValueRefused::Set { set, .. } => vec![label(set.0, set.1, "set here")],
            ValueRefused::Answer {
                provider_head,
                decl,
                ..
            } => vec![
                label(file, *provider_head, "the provider"),
                label(decl.0, decl.1, "required here"),
            ],
        }
    }
}

/// E0521: a directory placed at `/`, at or under a system directory, or at or under the
/// node's own `ROOT/.mesh` (LANGUAGE.md §14.6, §14.7).
pub struct SystemPlace<'a> {
    pub key: &'a str,
    pub instance: &'a str,
    pub path: &'a str,
    /// What the path is, or is under: `/`, `/etc`, or the node's `ROOT/.mesh`.
    pub under: &'a str,
    /// `under` is the node's own `.mesh` folder.
    pub state: bool,
}

impl Rule for SystemPlace<'_> {
    fn code(&self) -> Code {
        Code::E0521
    }

    fn message(&self) -> String {
        let what = if self.state {
            format!(
                "the node's own `{}`, where meshc keeps its state",
                self.under
            )
        } else if self.under == "/" {
            "the root of the file system".to_string()
        } else {
            format!("the system directory `{}`", self.under)
        };
        let at = if self.path == self.under {
            "at"
        } else {
            "under"
        };
        format!(
            "directory `{}` of instance `{}` is placed {at} {what}: `{}`",
            self.key, self.instance, self.path
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "the node creates, owns and sets the mode of a directory: place it where data is kept (`{} at \"/srv/{}\"`), or drop the placement for the node's default",
            self.key, self.key
        ))
    }
}

/// What resolution met in a module the checker passed, which the checker refuses (the
/// first of the codes `what` names, in the table's order, else a syntax error's): the
/// checker's miss. Resolution
/// passes over what the checker refuses only on the proof it was told
/// (`resolve::passed_over`); debug builds, and so every test, assert that a module
/// without one never gets there, and a release build reports this rather than leave
/// something out in silence. The code is the checker's, so it is one of the table's.
pub struct CheckerMiss<'a> {
    pub what: &'static str,
    pub module: &'a str,
}

impl Rule for CheckerMiss<'_> {
    fn code(&self) -> Code {
        Code::ALL
            .iter()
            .copied()
            .find(|c| self.what.contains(c.as_str()))
            .unwrap_or(Code::E0001)
    }

    fn message(&self) -> String {
        format!(
            "resolution met {} in module `{}`, which the checker passed",
            self.what, self.module
        )
    }

    fn help(&self) -> Option<String> {
        Some(
            "this is the compiler's error, not the program's: please report it with the module"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_value_takes_its_code_from_why() {
        let file = FilePath::from("m.mesh");
        let module = FilePath::from("a.mesh");
        let value: &dyn Display = &"\"x\"";
        let ty: &dyn Display = &"port";
        let invalid = ValueRefused::Set {
            requirement: "db",
            field: "port",
            who: "`a` on `n`",
            value,
            unfit: Unfit::Invalid {
                ty,
                why: "not a number".into(),
            },
            set: (&module, Span::new(3, 4)),
        }
        .at(&file, Span::new(0, 1));
        assert_eq!(invalid.code, Code::E0314);
        assert_eq!(
            invalid.message,
            "`db.port` of `a` on `n` resolves to \"x\", which is not a valid port: not a number"
        );
        assert_eq!(invalid.labels[0].file, module);
        let breach = ValueRefused::Set {
            requirement: "db",
            field: "port",
            who: "`a` on `n`",
            value,
            unfit: Unfit::Breach("is not in 1..10".into()),
            set: (&module, Span::new(3, 4)),
        };
        assert_eq!(breach.code(), Code::E0304);
    }

    #[test]
    fn a_secret_written_in_a_mesh_is_masked() {
        let file = FilePath::from("m.mesh");
        let module = FilePath::from("a.mesh");
        let d = SecretInMesh {
            key: "token",
            instance: "a",
            node: "n",
            decl: (&module, Span::new(1, 2)),
            value: Span::new(10, 20),
        }
        .at(&file, Span::new(5, 20));
        assert_eq!(d.redacted().collect::<Vec<_>>(), vec![Span::new(10, 20)]);
        assert_eq!(d.labels[0].message, "declared secret here");
    }

    #[test]
    fn a_group_of_one_waiter_says_it_in_the_singular() {
        let file = FilePath::from("m.mesh");
        let one = Waiting::Group {
            provider: "`db` on `n`",
            why: LeftOutWhy::Refused(Code::E0513),
            waiters: vec![("`web` on `n`".into(), None)],
            place: None,
        }
        .at(&file, Span::new(0, 1));
        assert_eq!(
            one.message,
            "`web` on `n` waits for `db` on `n`, which was left out: it was refused (E0513)"
        );
        assert_eq!(
            one.help.as_deref(),
            Some(
                "1 instance waits for `db` on `n` and is left out with it: `web` on `n`; fix what left `db` on `n` out and it is built"
            )
        );
        let two = Waiting::Group {
            provider: "`db` on `n`",
            why: LeftOutWhy::UnknownModule("pg"),
            waiters: vec![
                ("`web` on `n`".into(), None),
                ("`api` on `n`".into(), Some("`web` on `n`".into())),
            ],
            place: None,
        };
        assert!(two.message().starts_with("2 instances wait for"));
        assert!(
            two.help()
                .unwrap()
                .contains("`api` on `n` (through `web` on `n`)")
        );
    }

    #[test]
    fn a_checker_miss_carries_the_code_it_names_first() {
        let code = |what| CheckerMiss { what, module: "m" }.code();
        assert_eq!(code("E0302 or E0303"), Code::E0302);
        assert_eq!(
            code("E0104 (a loop variable read outside its loop)"),
            Code::E0104
        );
        assert_eq!(code("a syntax error"), Code::E0001);
        let d = CheckerMiss {
            what: "E0303",
            module: "web",
        }
        .at(&FilePath::from("m.mesh"), Span::new(0, 1));
        assert!(d.is_error());
        assert!(d.message.contains("`web`"), "{}", d.message);
    }
}
