//! The manifest of one node (LANGUAGE.md §9). Field names are a public interface: a node
//! host and tests outside the project read them. `schema/manifest.schema.json` at the
//! repository root is the normative description of this shape; keep the two in step.
//!
//! Struct field order is the order fields are written. Maps are [`FxIndexMap`]s in source
//! order; the digest is taken over canonical JSON, so order never changes it, but the
//! bytes written stay identical for the same input all the same.

// Hashed with FxHash, as every table of the compiler (a large mesh's manifests hold
// hundreds of thousands of keys).
use crate::base::fx_hash::FxIndexMap;
use serde::Serialize;
use serde_json::Value as Json;

/// What one node runs: its instances, and the assignments left out of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Manifest {
    pub mesh: String,
    pub node: String,
    /// `sha256:<hex>` over the canonical JSON of the manifest without this field.
    pub digest: String,
    /// Every node this manifest refers to, its own included: node name → what a host
    /// needs to reach it (LANGUAGE.md §12.3), so no host needs another node's manifest.
    pub nodes: std::collections::BTreeMap<String, NodeAddress>,
    pub instances: Vec<Instance>,
    pub left_out: Vec<LeftOut>,
    /// What earlier builds wrote that this one no longer names, for the host to remove
    /// (LANGUAGE.md §13.4): never anything it found.
    pub retired: Vec<Retired>,
}

/// What a manifest says of a node it refers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeAddress {
    pub private_name: String,
}

/// A container, or a file of a container, that an earlier build of this node wrote and
/// this build no longer names. A file entry has a `path`; a container entry has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Retired {
    pub instance: String,
    pub container: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One assignment of a module to this node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instance {
    pub instance: String,
    pub module: String,
    pub login: String,
    /// Every requirement of the module, resolved, in the definition's order.
    pub requirements: FxIndexMap<String, Requirement>,
    pub containers: Vec<Container>,
    /// Every contract the module provides, with the consumers it answers.
    pub provides: Vec<Provided>,
    /// `genesis` on the assignment: part of the foundation `meshc genesis` raises.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub genesis: bool,
}

impl Instance {
    /// Adds to `out` every node this instance names, as its fields say: each module
    /// requirement's provider, the maker of each sealed reference (in requirements, env,
    /// files and secret files) and each consumer of what it provides. The manifest's
    /// `nodes` table lists them.
    pub fn nodes_named<'a>(&'a self, out: &mut Vec<&'a str>) {
        fn refs<'a>(refs: &'a FxIndexMap<String, TemplateRef>, out: &mut Vec<&'a str>) {
            for r in refs.values() {
                if let TemplateRef::Sealed { sealed } = r {
                    out.push(&sealed.by.node);
                }
            }
        }
        for r in self.requirements.values() {
            match r {
                Requirement::Module(m) => out.push(&m.provider.node),
                Requirement::Operator(OperatorRequirement {
                    sealed: Some(s), ..
                }) => out.push(&s.by.node),
                _ => {}
            }
        }
        for c in &self.containers {
            for v in c.env.values() {
                match v {
                    EnvValue::Text(_) => {}
                    EnvValue::Sealed(s) => out.push(&s.sealed.by.node),
                    EnvValue::Template(t) => refs(&t.references, out),
                }
            }
            for s in &c.secrets {
                if let Some(sealed) = &s.sealed {
                    out.push(&sealed.by.node);
                }
                if let Some(r) = &s.references {
                    refs(r, out);
                }
            }
            for f in &c.files {
                if let Some(r) = &f.references {
                    refs(r, out);
                }
            }
        }
        for p in &self.provides {
            for c in &p.consumers {
                out.push(&c.node);
            }
        }
    }
}

/// Where a module requirement's answer comes from (LANGUAGE.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// A pin on the assignment: `db from pg on beta`.
    Pin,
    /// The holder of the seat that delivers the contract.
    Seat,
    /// The provider on the consumer's own node.
    Node,
    /// The only provider in the mesh.
    Only,
}

impl By {
    /// `pin`, `seat`, `node` or `only`.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Pin => "pin",
            By::Seat => "seat",
            By::Node => "node",
            By::Only => "only",
        }
    }
}

/// An instance of the mesh: its node and instance name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct InstanceRef {
    pub node: String,
    pub instance: String,
}

/// A secret, named and never written: the instance that makes it and the key it is kept
/// under there (`<consumer login>/<field>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct SealedRef {
    pub by: InstanceRef,
    pub key: String,
}

/// One resolved requirement. Values keep their type; a mode is written as four octal
/// digits (`"0750"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Requirement {
    Module(ModuleRequirement),
    Absent(AbsentRequirement),
    Directory(DirectoryRequirement),
    Access(AccessRequirement),
    Port(PortRequirement),
    Node(NodeRequirement),
    Identity(IdentityRequirement),
    Operator(OperatorRequirement),
}

/// A module requirement: which instance answers it, and why that one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModuleRequirement {
    /// Always `module`.
    pub kind: &'static str,
    pub contract: String,
    pub provider: InstanceRef,
    pub by: By,
}

/// An optional module requirement with no provider, or declined on the assignment
/// (LANGUAGE.md §12.2): the entries under its `when` are left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AbsentRequirement {
    /// Always `module`.
    pub kind: &'static str,
    pub contract: String,
    /// Always true.
    pub absent: bool,
}

/// A host directory: where it is, its owner and mode, and whether the assignment placed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectoryRequirement {
    /// Always `host`.
    pub kind: &'static str,
    /// Always `directory`.
    pub contract: String,
    pub path: String,
    pub owner: i64,
    pub mode: String,
    pub placed: bool,
}

/// An operator's shared data: where the assignment says it is. Never created, chowned or
/// removed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessRequirement {
    /// Always `host`.
    pub kind: &'static str,
    /// Always `access`.
    pub contract: String,
    pub path: String,
    pub write: bool,
    /// Always true: an access has no default location.
    pub placed: bool,
}

/// A host port.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortRequirement {
    /// Always `host`.
    pub kind: &'static str,
    /// Always `port`.
    pub contract: String,
    pub container: i64,
    pub host_port: i64,
    pub reach: String,
    pub protocol: String,
}

/// The node's facts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeRequirement {
    /// Always `host`.
    pub kind: &'static str,
    /// Always `node`.
    pub contract: String,
    pub private_name: String,
    /// The same list in every instance of a manifest (every node's private name), so it
    /// is shared, not copied per instance.
    #[serde(serialize_with = "names")]
    pub mesh_names: std::sync::Arc<[String]>,
}

/// Writes shared names as the list they are.
fn names<S: serde::Serializer>(names: &std::sync::Arc<[String]>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(names.iter())
}

/// The instance's identity, derived by the mesh.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdentityRequirement {
    /// Always `mesh`.
    pub kind: &'static str,
    /// Always `identity`.
    pub contract: String,
    pub login: String,
    pub instance: String,
    pub module: String,
}

/// An operator value: written on the assignment, or the requirement's default. A secret
/// operator value is delivered to the vault and appears only as a sealed reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorRequirement {
    /// Always `operator`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedRef>,
    /// `assignment`, `default` or `vault`.
    pub from: String,
}

/// One container as the node host runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Container {
    /// `<instance>` for a module with one container, else `<instance>-<container>`.
    pub name: String,
    pub image: String,
    pub command: Vec<String>,
    pub user: Option<i64>,
    /// `user UID:GID`: the group the process runs with, and the group of its files that
    /// name no `owner` (LANGUAGE.md §14.2); absent where no group is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<i64>,
    /// Env values are always strings, or a sealed value marked `exposed`.
    pub env: FxIndexMap<String, EnvValue>,
    pub mounts: Vec<Mount>,
    pub secrets: Vec<SecretFile>,
    pub files: Vec<File>,
    pub ports: Vec<PortMapping>,
    /// The instance's own network, then every found network `keep_network` keeps.
    pub networks: Vec<Network>,
    /// `health`: how the engine tells whether the container serves (LANGUAGE.md §14.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<Health>,
    /// Written `job`: it runs to completion.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub job: bool,
    /// `after`: the containers and jobs of the module it starts after, by their names in
    /// the definition (not their manifest names), in the order written. The manifest name
    /// of each is `<instance>-<name>`: a module whose container waits holds two or more.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// A container's health test: the ARGV as written (exec form), and the durations kept as
/// written (digits and one unit of `s`, `m`, `h`, `d`; a target converts them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Health {
    pub test: Vec<String>,
    pub interval: String,
    pub start_period: String,
    pub retries: i64,
}

/// `health`'s defaults (LANGUAGE.md §14.1).
pub const HEALTH_INTERVAL: &str = "30s";
pub const HEALTH_START_PERIOD: &str = "0s";
pub const HEALTH_RETRIES: i64 = 3;

/// A network a container joins: its instance's own (named like the login), or a found
/// one kept by `keep_network` on an adopted node (`kept: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Network {
    pub name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub kept: bool,
}

/// An env value: plain text, or a secret the definition exposed with a reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EnvValue {
    Text(String),
    Sealed(SealedEnv),
    Template(TemplateEnv),
}

/// An env value that is one secret, exposed (ADR 0086's exception).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SealedEnv {
    pub sealed: SealedRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exposed: Option<String>,
}

/// An env value composed of text and secrets, exposed: its template and references.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateEnv {
    pub template: String,
    pub references: FxIndexMap<String, TemplateRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exposed: Option<String>,
}

/// What a `${req.field}` of a template stands for: a plain value, or a sealed secret.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TemplateRef {
    Value { value: String },
    Sealed { sealed: SealedRef },
}

/// A bind mount: a resolved host path at a container path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mount {
    pub host: String,
    pub container: String,
    pub read_only: bool,
}

/// A secret file: a sealed reference, or (for a composed value) a template.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecretFile {
    pub target: String,
    /// Who owns the file: `owner UID[:GID]`, else the container's `user`, else 0:0.
    pub owner: i64,
    pub group: i64,
    /// Four octal digits: `mode`, else `0440`.
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub references: Option<FxIndexMap<String, TemplateRef>>,
}

/// A file: rendered `content` when it reads no secret, else sealed — its `template` with
/// `${req.field}` references and what each reference stands for, never the rendered text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct File {
    pub target: String,
    /// Who owns the file: `owner UID[:GID]`, else the container's `user`, else 0:0.
    pub owner: i64,
    pub group: i64,
    /// Four octal digits: `mode`, else `0644` (`0640` for a sealed file).
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub references: Option<FxIndexMap<String, TemplateRef>>,
}

/// A published port.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortMapping {
    pub host: i64,
    pub container: i64,
    pub protocol: String,
    pub reach: String,
}

/// A contract this instance provides, and who it answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provided {
    pub contract: String,
    pub consumers: Vec<Consumer>,
}

/// One consumer of a provided contract: who asks and the given fields it set (the terms
/// the provider honours). A secret field is kept under `<login>/<field>`; when a consumer
/// takes several requirements from one provider and those keys would collide, the entry
/// also says which requirement it is and the key of each secret field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consumer {
    pub node: String,
    /// The private name of the consumer's node: where its requests come from.
    pub private_name: String,
    pub instance: String,
    pub login: String,
    pub given: FxIndexMap<String, Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// Secret field → key, when a key is not `<login>/<field>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<FxIndexMap<String, String>>,
}

/// An assignment left out of this node, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOut {
    pub instance: String,
    pub module: String,
    pub diagnostics: Vec<LeftOutDiagnostic>,
}

/// One reason an assignment was left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeftOutDiagnostic {
    pub code: String,
    pub message: String,
}

/// What a node writes about itself that a target other than the manifest needs: where
/// its files go and how other nodes reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFacts {
    pub name: String,
    /// `None` when missing or invalid (reported).
    pub private_name: Option<String>,
    /// The IP address private ports are bound to and private names map to, if written.
    pub private_address: Option<String>,
    pub root: String,
}

/// A node's root when it writes none.
pub const DEFAULT_ROOT: &str = "/srv/mesh";

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifest's `nodes` table reads the nodes an instance names from its typed
    /// fields: a provider, every sealed reference's maker, a consumer; never a given
    /// value that happens to be called `node`.
    #[test]
    fn an_instance_names_the_nodes_its_fields_name() {
        let sealed = |node: &str| SealedRef {
            by: InstanceRef {
                node: node.into(),
                instance: "vault".into(),
            },
            key: "k".into(),
        };
        let mut requirements = FxIndexMap::default();
        requirements.insert(
            "db".to_string(),
            Requirement::Module(ModuleRequirement {
                kind: "module",
                contract: "pg".into(),
                provider: InstanceRef {
                    node: "p".into(),
                    instance: "pg".into(),
                },
                by: By::Only,
            }),
        );
        requirements.insert(
            "key".to_string(),
            Requirement::Operator(OperatorRequirement {
                kind: "operator",
                value: None,
                sealed: Some(sealed("o")),
                from: "vault".into(),
            }),
        );
        let mut env = FxIndexMap::default();
        env.insert(
            "A".to_string(),
            EnvValue::Sealed(SealedEnv {
                sealed: sealed("e"),
                exposed: Some("why".into()),
            }),
        );
        let mut refs = FxIndexMap::default();
        refs.insert(
            "x".to_string(),
            TemplateRef::Sealed {
                sealed: sealed("t"),
            },
        );
        env.insert(
            "B".to_string(),
            EnvValue::Template(TemplateEnv {
                template: "${x}".into(),
                references: refs.clone(),
                exposed: None,
            }),
        );
        let mut given = FxIndexMap::default();
        given.insert("node".to_string(), Json::String("g".into()));
        let instance = Instance {
            instance: "app".into(),
            module: "app".into(),
            login: "a_app".into(),
            requirements,
            containers: vec![Container {
                name: "app".into(),
                image: "app:1".into(),
                command: vec![],
                user: None,
                group: None,
                env,
                mounts: vec![],
                secrets: vec![SecretFile {
                    target: "/s".into(),
                    owner: 0,
                    group: 0,
                    mode: "0440".into(),
                    sealed: Some(sealed("s")),
                    template: None,
                    references: None,
                }],
                files: vec![File {
                    target: "/f".into(),
                    owner: 0,
                    group: 0,
                    mode: "0640".into(),
                    content: None,
                    template: Some("${x}".into()),
                    references: Some(refs),
                }],
                ports: vec![],
                networks: vec![],
                health: None,
                job: false,
                after: Vec::new(),
            }],
            provides: vec![Provided {
                contract: "api".into(),
                consumers: vec![Consumer {
                    node: "c".into(),
                    private_name: "c.lab".into(),
                    instance: "web".into(),
                    login: "c_web".into(),
                    given,
                    requirement: None,
                    keys: None,
                }],
            }],
            genesis: false,
        };
        let mut found = Vec::new();
        instance.nodes_named(&mut found);
        found.sort_unstable();
        found.dedup();
        // The given field called `node` ("g") is a value, not a node.
        assert_eq!(found, ["c", "e", "o", "p", "s", "t"]);
    }

    /// `meshc graph` and the language server name the rule that chose a provider with
    /// `as_str`; it is the word the manifest writes.
    #[test]
    fn by_reads_as_the_manifest_writes_it() {
        for (by, word) in [
            (By::Pin, "pin"),
            (By::Seat, "seat"),
            (By::Node, "node"),
            (By::Only, "only"),
        ] {
            assert_eq!(by.as_str(), word);
            assert_eq!(serde_json::to_value(by).unwrap(), serde_json::json!(word));
        }
    }
}
