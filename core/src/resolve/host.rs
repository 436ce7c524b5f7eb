//! What a node's host answers: its facts (`private_name`, `mesh_names`), directories
//! (placed, or `<root>/<instance>/<requirement>`), accesses (placed, E0518) and ports
//! (placed, else the lock's, else the lowest free in the node's range, E0510). Singular
//! things stay singular: one directory at one host path (E0511), one host port once on a
//! node (E0519).

use super::evaluate::{Eval, Evaluate as _, Evaluator};
use super::fx_hash::{FxHashMap, FxHashSet};
use super::{
    Answer, Answers, Entries, IdVec, Identities, InstanceId, Ledger, NodeId, NodeInfo, Phase,
    Placement, Placements, Ports, Refusals, Resolver, SecretKeys, identity,
};
use crate::check::registry::{HostContract, MeshContract, ProviderKind};
use crate::check::types::validate_hostname;
use crate::diagnostics::rules::{
    AccessUnplaced, DirectoriesMeet, Duplicate, InvalidLiteral, Missing, NodeText, NodeTextWritten,
    PortPlacedTwice, PortsRefused, TypeMismatch, UnknownField,
};
use crate::diagnostics::{Rule, closest};
use crate::emit::DEFAULT_ROOT;
use crate::span::Span;
use crate::syntax::ast::{self, Expr};
use std::collections::BTreeMap;

/// A port requirement of a node: instance, requirement, its place among the instance's
/// answers (its module's requirements' order), and its placement if any.
type PortRequest<'m> = (InstanceId, &'m str, usize, Option<(i64, Span)>);

/// A directory of a node: instance, requirement, its place among the instance's answers,
/// host path, and where the path is decided.
type DirectoryRequest<'m> = (InstanceId, &'m str, usize, String, Span);

/// The properties a node may write.
const NODE_PROPS: &[&str] = &[
    "private_name",
    "private_address",
    "root",
    "ports",
    "short",
    "adopted",
];

/// A node's port range when it writes none.
pub(crate) const DEFAULT_PORTS: (i64, i64) = (20000, 29999);

/// Checks a host path: absolute, normalised, with no `.` or `..` segment.
pub(crate) fn validate_host_path(s: &str) -> Result<(), String> {
    crate::check::types::invisible_in_path(s)?;
    if !s.starts_with('/') {
        return Err("a host path is absolute (starts with `/`)".into());
    }
    if s.split('/').any(|seg| seg == "..") {
        return Err("a host path has no `..` segment".into());
    }
    if s.contains("//") || s.split('/').any(|seg| seg == ".") || (s.len() > 1 && s.ends_with('/')) {
        return Err(format!(
            "the path is not normalised; write `{}`",
            crate::check::types::normalise_path(s)
        ));
    }
    Ok(())
}

impl<'m> Resolver<'m> {
    /// Reads a node's entries (E0102 duplicates, E0105 unknown ones, E0301/E0314 values
    /// of the wrong kind, E0501 a missing `private_name`).
    pub(super) fn read_node(&mut self, node: &'m ast::Node) -> NodeInfo<'m> {
        let mut info = NodeInfo {
            name: node.name.name.to_string(),
            ast: node,
            private_name: None,
            private_address: None,
            root: DEFAULT_ROOT.to_string(),
            ports: DEFAULT_PORTS,
            short: identity::short_form(&node.name.name, 6),
            adopted: false,
            instances: FxHashMap::default(),
            errors: Vec::new(),
        };
        let name = &node.name.name;
        let reported_before = self.mesh_diags.len();
        let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
        let mut short_written = false;
        let mut private_written = false;
        for prop in &node.props {
            let key = prop.key.name.as_str();
            if let Some(first) = seen.get(key) {
                let rule = Duplicate::NodeProperty {
                    node: name,
                    key,
                    first: *first,
                };
                let d = rule.at(self.path, prop.key.span);
                self.mesh_diags.push(d);
                continue;
            }
            seen.insert(key, prop.key.span);
            let plain = match &prop.value {
                Expr::Str(s) => s.as_plain(),
                _ => None,
            };
            match key {
                "private_name" => {
                    private_written = true;
                    match plain {
                        Some(p) => match validate_hostname(&p) {
                            Ok(()) => info.private_name = Some(p),
                            Err(why) => self.node_value_error(
                                prop,
                                InvalidLiteral::PrivateName { node: name, why },
                            ),
                        },
                        None => self.node_value_error(
                            prop,
                            unquoted(NodeText::PrivateName { node: name }, &prop.value),
                        ),
                    }
                }
                "private_address" => match plain {
                    Some(p) => match p.parse::<std::net::IpAddr>() {
                        Ok(ip) => info.private_address = Some(ip.to_string()),
                        Err(_) => self
                            .node_value_error(prop, InvalidLiteral::PrivateAddress { node: name }),
                    },
                    None => self.node_value_error(
                        prop,
                        unquoted(NodeText::PrivateAddress { node: name }, &prop.value),
                    ),
                },
                "root" => match plain {
                    Some(p) => match validate_host_path(&p) {
                        Ok(()) => info.root = p,
                        Err(why) => {
                            self.node_value_error(prop, InvalidLiteral::Root { node: name, why })
                        }
                    },
                    None => self.node_value_error(
                        prop,
                        unquoted(NodeText::Root { node: name }, &prop.value),
                    ),
                },
                "ports" => match &prop.value {
                    Expr::Range(r) => match (&r.lo, &r.hi) {
                        (Some(lo), Some(hi))
                            if (1..=65535).contains(&lo.value)
                                && (1..=65535).contains(&hi.value)
                                && lo.value <= hi.value =>
                        {
                            info.ports = (lo.value, hi.value);
                        }
                        _ => self.node_value_error(prop, InvalidLiteral::Ports { node: name }),
                    },
                    Expr::Error(_) => {}
                    _ => self.node_value_error(prop, TypeMismatch::NodePorts { node: name }),
                },
                "short" => {
                    short_written = true;
                    match plain {
                        Some(s) if is_short(&s, 6) => info.short = s,
                        Some(_) => {
                            self.node_value_error(prop, InvalidLiteral::Short { node: name })
                        }
                        None => self.node_value_error(
                            prop,
                            unquoted(NodeText::Short { node: name }, &prop.value),
                        ),
                    }
                }
                "adopted" => match &prop.value {
                    Expr::Bool(b, _) => info.adopted = *b,
                    Expr::Error(_) => {}
                    _ => self.node_value_error(prop, TypeMismatch::NodeAdopted { node: name }),
                },
                _ => {
                    let help = match closest(key, NODE_PROPS.iter().copied()) {
                        Some(c) => format!("did you mean `{c}`?"),
                        None => "a node writes `private_name`, `private_address`, `root`, `ports`, `short` and `adopted`".into(),
                    };
                    let rule = UnknownField::NodeProperty {
                        node: name,
                        key,
                        help,
                    };
                    let d = rule.at(self.path, prop.key.span);
                    self.mesh_diags.push(d);
                }
            }
        }
        if !private_written {
            let d = self.at(node.name.span, Missing::NodePrivateName { node: name });
            self.mesh_diags.push(d);
        }
        if !short_written && !is_short(&info.short, 6) {
            let rule = InvalidLiteral::NoShort {
                node: name,
                short: &info.short,
            };
            let d = rule.at(self.path, node.name.span);
            self.mesh_diags.push(d);
        }
        // A node in error lends nothing to a manifest: its assignments are left out,
        // listing these (a wrong `root` is not replaced by the default).
        info.errors = self.mesh_diags[reported_before..]
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect();
        info
    }

    fn node_value_error(&mut self, prop: &ast::Prop, rule: impl Rule) {
        if matches!(prop.value, Expr::Error(_)) {
            return; // a syntax error, reported by the parser
        }
        let d = rule.at(self.path, prop.value.span());
        self.mesh_diags.push(d);
    }

    /// The placements phase: answers the host, mesh and operator requirements of every
    /// instance (directories and accesses where they are placed, ports from placements,
    /// the lock and the node's range) and chooses the ports the lock will hold. Module
    /// requirements are the provider choice's ([`Resolver::choose_providers`]). The given
    /// values a placed port's protocol reads are computed into `eval`'s memo tables.
    pub(super) fn place_host_requirements(
        &self,
        earlier: &Ledger<'_>,
        entries: &Entries<'m>,
        identities: &Identities,
        eval: &mut Eval<'m>,
    ) -> (Placements<'m>, Refusals) {
        // Each instance's answers sized once: one per requirement of its module.
        let answers = self
            .instances
            .iter()
            .map(|inst| {
                let requirements = inst.module.map_or(0, |m| m.scope.requirements.len());
                crate::base::name_map::NameMap::with_capacity(requirements)
            })
            .collect();
        let mut placing = Placing {
            phase: Phase::new(self, earlier),
            entries,
            identities,
            answers,
            no_secret_keys: IdVec::default(),
            eval,
        };
        let ports = placing.place();
        let placements = Placements {
            answers: placing.answers,
            ports,
        };
        (placements, placing.phase.end())
    }
}

/// The placements phase under way: the answers it gives, and the evaluator's memo tables
/// for the given values a placed port's protocol reads.
struct Placing<'a, 'm> {
    phase: Phase<'a, 'm>,
    entries: &'a Entries<'m>,
    identities: &'a Identities,
    answers: Answers<'m>,
    /// No secret has a key yet (the provider choice gives them).
    no_secret_keys: IdVec<InstanceId, SecretKeys<'m>>,
    eval: &'a mut Eval<'m>,
}

super::runs_as_phase!(Placing);

impl<'a, 'm> Placing<'a, 'm> {
    /// An evaluator of what the answers so far give (no module requirement is answered
    /// yet, and nothing is left out).
    fn evaluator(&mut self) -> Evaluator<'_, 'a, 'm> {
        let r: &'a Resolver<'m> = self.phase.r;
        Evaluator {
            world: r.world_of(
                self.entries,
                self.identities,
                &self.answers,
                &self.no_secret_keys,
                None,
            ),
            phase: &mut self.phase,
            eval: &mut *self.eval,
        }
    }

    /// Answers every host, mesh and operator requirement, node by node, and returns the
    /// ports chosen.
    fn place(&mut self) -> Ports {
        let mut out = Ports::default();
        // Every port the lock will hold: (key, port).
        let mut locked: Vec<(String, u16)> = Vec::new();
        // Instances per node, in source order.
        let mut per_node: IdVec<NodeId, Vec<InstanceId>> =
            IdVec::filled(self.nodes.len(), Vec::new());
        for (i, inst) in self.instances.iter_enumerated() {
            per_node[inst.node].push(i);
        }
        for (node, members) in per_node.iter_enumerated() {
            let mut directories: Vec<DirectoryRequest<'m>> = Vec::new();
            let mut ports: Vec<PortRequest<'m>> = Vec::new();
            // The lock's ports of an instance left out before its requirements are known
            // (its module unknown): kept, and held from every other instance, until its
            // assignment leaves the mesh, so a failed build hands none of them away.
            let mut held: Vec<i64> = Vec::new();
            for &i in members {
                if self.module_of(i).is_none() {
                    let prefix =
                        super::Lock::key(&self.nodes[node].name, &self.instances[i].name, "");
                    for (key, &port) in self.input.lock.ports.range(prefix.clone()..) {
                        if !key.starts_with(&prefix) {
                            break;
                        }
                        if self.writes_lock() {
                            locked.push((key.clone(), port));
                        }
                        held.push(i64::from(port));
                    }
                }
            }
            for &i in members {
                self.interrupt();
                let Some(m) = self.module_of(i) else { continue };
                // The answers follow the requirements' order (`at`), each name once.
                for (at, (&req, info)) in m.scope.requirements.iter().enumerate() {
                    let answer = match (info.kind, info.host_contract()) {
                        (Some(ProviderKind::Operator), _) => Answer::Operator,
                        (_, Some(HostContract::Directory)) => {
                            match self.entries.settings[i].places.get(req).cloned() {
                                Some(Placement::Path(p, span)) => {
                                    directories.push((i, req, at, p.clone(), span));
                                    Answer::Directory {
                                        path: p,
                                        placed: true,
                                    }
                                }
                                Some(_) => Answer::Unresolved,
                                None => {
                                    let p = super::slash_joined(&[
                                        self.nodes[node].root.trim_end_matches('/'),
                                        &self.instances[i].name,
                                        req,
                                    ]);
                                    directories.push((i, req, at, p.clone(), self.head(i)));
                                    Answer::Directory {
                                        path: p,
                                        placed: false,
                                    }
                                }
                            }
                        }
                        (_, Some(HostContract::Access)) => {
                            match self.entries.settings[i].places.get(req).cloned() {
                                Some(Placement::Path(p, _)) => Answer::Access { path: p },
                                Some(_) => Answer::Unresolved,
                                None => {
                                    let who = self.who(i);
                                    let rule = AccessUnplaced {
                                        requirement: req,
                                        who: &who,
                                        decl: (&m.path, info.ast.span),
                                    };
                                    let d = self.at(self.head(i), rule);
                                    let _refused = self.refuse(i, d);
                                    Answer::Unresolved
                                }
                            }
                        }
                        (_, Some(HostContract::Port)) => {
                            match self.entries.settings[i].places.get(req).cloned() {
                                Some(Placement::Port(p, span)) => {
                                    ports.push((i, req, at, Some((p, span))));
                                    Answer::Unresolved // filled below
                                }
                                Some(_) => Answer::Unresolved,
                                None => {
                                    ports.push((i, req, at, None));
                                    Answer::Unresolved // filled below
                                }
                            }
                        }
                        (_, Some(HostContract::Node)) => {
                            if self.nodes[node].private_name.is_some() {
                                Answer::Node
                            } else {
                                let who = self.who(i);
                                let rule = Missing::NodeFacts {
                                    requirement: req,
                                    who: &who,
                                    node: &self.nodes[node].name,
                                    node_span: self.nodes[node].ast.name.span,
                                };
                                let d = self.at(self.head(i), rule);
                                let _refused = self.refuse(i, d);
                                Answer::Unresolved
                            }
                        }
                        (Some(ProviderKind::Mesh), _)
                            if info.mesh_contract() == Some(MeshContract::Identity) =>
                        {
                            Answer::Identity
                        }
                        // Chosen later.
                        (Some(ProviderKind::Module), _) => Answer::Unresolved,
                        // An unknown kind or contract, or one another kind answers.
                        _ => {
                            let _proof = self.phase.passed_over(i, m, "E0103, E0201 or E0202");
                            Answer::Unresolved
                        }
                    };
                    self.answers[i].push(req, answer);
                }
            }
            self.check_nested_directories(&directories);
            self.allocate_ports(node, &ports, &held, &mut out, &mut locked);
        }
        // Made sorted at once: a large mesh's keys inserted one by one into the tree
        // cost more than the rest of its placements.
        out.lock.ports = locked.into_iter().collect();
        out
    }

    /// E0511: two directories of one node at the same or nested host paths. The later one
    /// (in source order) is refused, naming the earlier.
    fn check_nested_directories(&mut self, directories: &[DirectoryRequest<'m>]) {
        // The paths kept so far, twice: hashed for the same path and its ancestors, sorted
        // for the paths under it.
        let mut earlier: BTreeMap<&str, (InstanceId, &'m str)> = BTreeMap::new();
        let mut exact: super::FxHashMap<&str, (InstanceId, &'m str)> = Default::default();
        for (i, req, at, path, span) in directories {
            let clash = if let Some(&hit) = exact.get(path.as_str()) {
                Some((hit, "the same path"))
            } else if let Some(hit) = ancestors(path).find_map(|a| exact.get(a).copied()) {
                Some((hit, "a path it lies under"))
            } else {
                let mut prefix = String::with_capacity(path.len() + 1);
                prefix.push_str(path);
                if path != "/" {
                    prefix.push('/');
                }
                earlier
                    .range::<str, _>((
                        std::ops::Bound::Included(prefix.as_str()),
                        std::ops::Bound::Unbounded,
                    ))
                    .next()
                    .filter(|(k, _)| k.starts_with(&prefix))
                    .map(|(_, v)| (*v, "a path under it"))
            };
            match clash {
                Some(((j, other_req), how)) => {
                    let other_path = match self.answers[j].get(other_req) {
                        Some(Answer::Directory { path, .. }) => path.clone(),
                        _ => String::new(),
                    };
                    let (who, other_who) = (self.who(*i), self.who(j));
                    let rule = DirectoriesMeet {
                        requirement: req,
                        who: &who,
                        path,
                        other_requirement: other_req,
                        other_who: &other_who,
                        other_path: &other_path,
                        how,
                        other_head: self.head(j),
                    };
                    let d = self.at(*span, rule);
                    let _refused = self.refuse(*i, d);
                    super::set_answer(&mut self.answers, *i, *at, req, Answer::Unresolved);
                }
                None => {
                    earlier.insert(path, (*i, req));
                    exact.insert(path, (*i, req));
                }
            }
        }
    }

    /// Chooses the host port of every port requirement of node `node`: placed ones first
    /// (E0519 for one placed twice), then the lock's (when still free and in range), then
    /// the lowest free port in the node's range (E0510 when none is left).
    fn allocate_ports(
        &mut self,
        node: NodeId,
        ports: &[PortRequest<'m>],
        held: &[i64],
        out: &mut Ports,
        locked: &mut Vec<(String, u16)>,
    ) {
        let (lo, hi) = self.nodes[node].ports;
        let node_name = self.nodes[node].name.clone();
        let mut used: FxHashSet<i64> = held.iter().copied().collect();
        // A host port is a number and a protocol: TCP 443 and UDP 443 are two sockets.
        let mut placed_by: FxHashMap<(i64, String), (InstanceId, &'m str)> = FxHashMap::default();
        let mut chosen: Vec<Option<i64>> = vec![None; ports.len()];
        // Lock entries that could not be kept: (port request, locked port, why).
        let mut moved: Vec<(usize, i64, String)> = Vec::new();
        for (k, (i, req, _, place)) in ports.iter().enumerate() {
            let Some((p, span)) = place else { continue };
            // No value, on the proof of why (the port's instance is refused for it): the
            // contract's default, so the placement goes on.
            let protocol = self
                .evaluator()
                .given_text(*i, req, "protocol")
                .unwrap_or_else(|_no_value| "tcp".to_string());
            if let Some(&(j, other)) = placed_by.get(&(*p, protocol.clone())) {
                let (who, other_who) = (self.who(*i), self.who(j));
                let rule = PortPlacedTwice {
                    port: *p,
                    protocol: &protocol,
                    node: &node_name,
                    requirement: req,
                    who: &who,
                    other_requirement: other,
                    other_who: &other_who,
                    first: self.head(j),
                };
                let d = self.at(*span, rule);
                let _refused = self.refuse(*i, d);
                continue;
            }
            placed_by.insert((*p, protocol), (*i, req));
            used.insert(*p);
            chosen[k] = Some(*p);
        }
        // The lock key of each port not placed: what the lock is read at and written at.
        // A check writes no lock: without a lock to read either, no key is made (a large
        // mesh's keys, made and sorted at every check the editor asks for, cost a tenth
        // of its placements).
        let keys: Vec<Option<String>> = if self.writes_lock() || !self.input.lock.ports.is_empty() {
            ports
                .iter()
                .map(|(i, req, _, place)| {
                    place
                        .is_none()
                        .then(|| super::Lock::key(&node_name, &self.instances[*i].name, req))
                })
                .collect()
        } else {
            vec![None; ports.len()]
        };
        for (k, key) in keys.iter().enumerate() {
            let Some(key) = key else { continue };
            if let Some(&p) = self.input.lock.ports.get(key) {
                let p = i64::from(p);
                if (lo..=hi).contains(&p) && used.insert(p) {
                    chosen[k] = Some(p);
                } else {
                    // Why the lock's number cannot be kept; where it went is known below.
                    let why = if !(lo..=hi).contains(&p) {
                        format!("it lies outside the node's range {lo}..{hi}")
                    } else if let Some((j, other)) = placed_by
                        .iter()
                        .find(|((n, _), _)| *n == p)
                        .map(|(_, &(j, other))| (j, other))
                    {
                        format!("the mesh now places `{other}` of {} there", self.who(j))
                    } else {
                        "another port of the lock holds it".to_string()
                    };
                    moved.push((k, p, why));
                }
            }
        }
        let mut cursor = lo;
        for (k, (i, req, _, place)) in ports.iter().enumerate() {
            if place.is_some() || chosen[k].is_some() {
                continue;
            }
            while cursor <= hi && used.contains(&cursor) {
                cursor += 1;
            }
            if cursor > hi {
                let who = self.who(*i);
                let rule = PortsRefused::Exhausted {
                    requirement: req,
                    who: &who,
                    node: &node_name,
                    lo,
                    hi,
                    node_span: self.nodes[node].ast.name.span,
                };
                let d = self.at(self.head(*i), rule);
                let _refused = self.refuse(*i, d);
                continue;
            }
            used.insert(cursor);
            chosen[k] = Some(cursor);
        }
        for (k, locked, why) in moved {
            let (i, req, _, _) = &ports[k];
            let to = match chosen[k] {
                Some(p) => format!("moved to {p}"),
                None => "left without a port".to_string(),
            };
            out.moves.push(format!(
                "port `{req}` of {} was {locked} in the lock; {to}: {why}",
                self.who(*i)
            ));
        }
        // A placement that moves a port the lock held is the operator's move: said too.
        for (i, req, _, place) in ports.iter() {
            let Some((p, _)) = place else { continue };
            if self.input.lock.ports.is_empty() {
                break;
            }
            let key = super::Lock::key(&node_name, &self.instances[*i].name, req);
            if let Some(&locked) = self.input.lock.ports.get(&key)
                && i64::from(locked) != *p
            {
                out.moves.push(format!(
                    "port `{req}` of {} was {locked} in the lock; moved to {p}: the mesh places it there",
                    self.who(*i)
                ));
            }
        }
        let writes_lock = self.writes_lock();
        for ((k, (i, req, at, place)), key) in ports.iter().enumerate().zip(keys) {
            let Some(p) = chosen[k] else { continue };
            if let (true, None, Some(key)) = (writes_lock, place, key) {
                locked.push((key, p as u16));
            }
            let placed = place.is_some();
            let answer = Answer::Port {
                host_port: p,
                placed,
            };
            super::set_answer(&mut self.answers, *i, *at, req, answer);
        }
    }
}

/// The proper ancestors of an absolute path: `/a/b/c` → `/a/b`, `/a`, `/`.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let mut cut = Some(path);
    std::iter::from_fn(move || {
        let p = cut?;
        if p == "/" {
            cut = None;
            return None;
        }
        let parent = match p.rfind('/') {
            Some(0) => "/",
            Some(k) => &p[..k],
            None => {
                cut = None;
                return None;
            }
        };
        cut = Some(parent);
        Some(parent)
    })
}

/// Whether `s` is a short form: 1 to `max` of `[a-z0-9]`, starting with a letter.
pub(crate) fn is_short(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && s.as_bytes()[0].is_ascii_lowercase()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// A node value written other than as the quoted text it is: a reference or a number
/// where text is wanted is a type mismatch (E0301), a string an invalid literal (E0314).
fn unquoted<'a>(rule: NodeText<'a>, e: &Expr) -> NodeTextWritten<'a> {
    NodeTextWritten {
        rule,
        is_string: matches!(e, Expr::Str(_)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_walk_up_to_root() {
        let a: Vec<&str> = ancestors("/a/b/c").collect();
        assert_eq!(a, ["/a/b", "/a", "/"]);
        assert_eq!(ancestors("/").count(), 0);
    }

    #[test]
    fn host_paths() {
        assert!(validate_host_path("/mnt/disk2/forge").is_ok());
        assert!(validate_host_path("mnt").is_err());
        assert!(validate_host_path("/a/../b").is_err());
        assert!(validate_host_path("/a/").is_err());
        assert!(validate_host_path("/").is_ok());
    }

    #[test]
    fn shorts() {
        assert!(is_short("stg", 4));
        assert!(!is_short("1ab", 4));
        assert!(!is_short("abcde", 4));
        assert!(!is_short("", 4));
    }
}
