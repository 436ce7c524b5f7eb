//! Which instance answers a module requirement (LANGUAGE.md §7), in order:
//!
//! 1. a pin on the assignment (E0505 when the pinned instance does not provide it);
//! 2. the holder of the seat that delivers the contract, wherever it is (E0504 when the
//!    seat is not held, E0515 when its holder does not provide it);
//! 3. the provider on the consumer's own node, for a contract no seat delivers;
//! 4. the only provider in the mesh;
//! 5. otherwise refused: none (E0502) or several (E0503).
//!
//! A secret operator value is delivered to the vault: its requirement waits for the
//! holder of the seat that delivers `secret` (E0504 when nobody holds it).

use super::fx_hash::FxHashSet;
use super::{Answer, IdVec, InstanceId, KnownInstance, Resolver, SeatState, SecretKeys};
use crate::check::registry::ProviderKind;
use crate::check::scope::ReqInfo;
use crate::diagnostics::Code;
use crate::emit::By;

/// The contract a secret operator value is kept under: the vault's.
const VAULT_CONTRACT: &str = "secret";

impl<'m> Resolver<'m> {
    /// Answers every module requirement of every instance with a provider, or refuses it.
    pub(super) fn choose_providers(&mut self) -> IdVec<InstanceId, Vec<InstanceId>> {
        let mut waits_for = IdVec::filled(self.instances.len(), Vec::new());
        for i in self.instances.ids() {
            let Some(k) = self.known(i) else { continue };
            for (&req, info) in &k.module.scope.requirements {
                match info.kind {
                    Some(ProviderKind::Module) => {
                        let Some(contract) = info.contract.as_deref() else {
                            continue; // unknown contract: the checker's (E0103)
                        };
                        if contract.kind != Some(ProviderKind::Module) {
                            continue; // answered by another kind: the checker's (E0202)
                        }
                        let answer = if info.is_optional()
                            && self.entries.settings[i].absent.contains(req)
                        {
                            Answer::Absent
                        } else {
                            self.choose_provider(k, req, info, &contract.name)
                        };
                        if let Answer::Module { provider, .. } = answer {
                            waits_for[i].push(provider);
                        }
                        self.answers[i].insert(req, answer);
                    }
                    Some(ProviderKind::Operator)
                        if info.operator.as_ref().is_some_and(|o| o.secret) =>
                    {
                        let answer = match self.seat_holder_for(i, req, VAULT_CONTRACT) {
                            Some(vault) => {
                                waits_for[i].push(vault);
                                Answer::SecretOperator { vault }
                            }
                            None => Answer::Unresolved,
                        };
                        self.answers[i].insert(req, answer);
                    }
                    _ => {}
                }
            }
        }
        waits_for
    }

    /// The provider of requirement `req` (contract `contract`) of instance `i`.
    fn choose_provider(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m str,
        info: &'m ReqInfo<'m>,
        contract: &str,
    ) -> Answer {
        let i = k.id;
        // 1. A pin.
        if let Some(pin) = self.entries.settings[i].pins.get(req).copied() {
            let Some((p, span)) = pin else {
                return Answer::Unresolved; // the pin itself was refused
            };
            return match self.module_of(p) {
                Some(pm) if !pm.provides.contains_key(contract) => {
                    let provided: Vec<String> =
                        pm.provides.keys().map(|c| format!("`{c}`")).collect();
                    let others = self.mesh_providers_help(contract, i);
                    let d = self
                        .diag(
                            Code::E0505,
                            span,
                            format!(
                                "`{req}` of {} is pinned to {}, whose module `{}` does not provide `{contract}`",
                                self.who(i),
                                self.who(p),
                                pm.name
                            ),
                        )
                        .with_label(self.head(p), "the pinned instance")
                        .with_help(if provided.is_empty() {
                            format!("`{}` provides nothing; {others}", pm.name)
                        } else {
                            format!(
                                "`{}` provides {}; {others}",
                                pm.name,
                                crate::diagnostics::capped_list(&provided)
                            )
                        });
                    self.refuse(i, d);
                    Answer::Unresolved
                }
                // A known provider, or an unknown module (refused on its own assignment;
                // this consumer waits for it).
                _ => Answer::Module {
                    provider: p,
                    by: By::Pin,
                },
            };
        }
        // 2. A seat.
        if self.registry.seat_delivering(contract).is_some() {
            return match self.seat_holder_for(i, req, contract) {
                Some(h) => Answer::Module {
                    provider: h,
                    by: By::Seat,
                },
                None => Answer::Unresolved,
            };
        }
        // 3. The consumer's own node; 4. the only provider. Both read indices, so a mesh
        // of many providers and consumers costs no scan per consumer.
        let node = self.instances[i].node;
        let here: Vec<InstanceId> = self
            .providers_on_node
            .get(&(contract, node))
            .map(|v| v.iter().copied().filter(|&p| p != i).collect())
            .unwrap_or_default();
        if here.len() == 1 {
            return Answer::Module {
                provider: here[0],
                by: By::Node,
            };
        }
        if here.len() > 1 {
            self.several_providers(i, req, contract, &here, true);
            return Answer::Unresolved;
        }
        let all: &[InstanceId] = self.providers.get(contract).map_or(&[], |v| v.as_slice());
        // The providers other than the consumer itself (a module may provide what it
        // requires): exactly one answers.
        let mut others = all.iter().copied().filter(|&p| p != i);
        match (others.next(), others.next()) {
            (Some(provider), None) => Answer::Module {
                provider,
                by: By::Only,
            },
            // An optional requirement with no provider is absent (§12.2).
            (None, _) if info.is_optional() => Answer::Absent,
            (None, _) => {
                let help = self.no_provider_help(i, contract);
                let d = self
                    .diag(
                        Code::E0502,
                        self.head(i),
                        format!(
                            "no provider for `{req}` (contract `{contract}`) of {}: no instance of mesh `{}` provides `{contract}`",
                            self.who(i),
                            self.mesh.name.name
                        ),
                    )
                    .with_label_in(&k.module.path, info.ast.span, "required here")
                    .with_help(help);
                self.refuse(i, d);
                Answer::Unresolved
            }
            (Some(_), Some(_)) => {
                let several: Vec<InstanceId> = all.iter().copied().filter(|&p| p != i).collect();
                self.several_providers(i, req, contract, &several, false);
                Answer::Unresolved
            }
        }
    }

    /// E0503, naming every candidate and showing the pin that would choose one.
    fn several_providers(
        &mut self,
        i: InstanceId,
        req: &str,
        contract: &str,
        candidates: &[InstanceId],
        on_own_node: bool,
    ) {
        const SHOWN: usize = crate::diagnostics::LIST_SHOWN;
        let names = crate::diagnostics::capped_list(candidates.iter().map(|&p| self.who(p)));
        let first = candidates[0];
        let where_ = if on_own_node {
            "on the consumer's own node".to_string()
        } else {
            format!(
                "in mesh `{}`, none on the consumer's node",
                self.mesh.name.name
            )
        };
        let mut d = self.diag(
            Code::E0503,
            self.head(i),
            format!(
                "several providers for `{req}` (contract `{contract}`) of {}, {where_}: {}",
                self.who(i),
                names
            ),
        );
        for &p in candidates.iter().take(SHOWN) {
            d = d.with_label(self.head(p), format!("provides `{contract}`"));
        }
        d = d.with_help(format!(
            "pin one in the assignment's braces: `{req} from {} on {}`",
            self.instances[first].name,
            self.node_name(first)
        ));
        self.refuse(i, d);
    }

    /// What would answer a contract nobody in the mesh provides.
    fn no_provider_help(&self, i: InstanceId, contract: &str) -> String {
        let mut modules = self.workspace_modules_providing(contract);
        // The module named like the contract (the standard provider: `postgres` for
        // `postgres`) first; the others in name order.
        modules.sort_by(|a, b| (a != contract, a).cmp(&(b != contract, b)));
        if modules.is_empty() {
            format!(
                "no module of the workspace provides `{contract}`; write one with `provides {contract} {{ … }}` and assign it"
            )
        } else {
            format!(
                "assign a module that provides it ({}), e.g. `assign {} to {}`",
                crate::diagnostics::capped_list(modules.iter().map(|m| format!("`{m}`"))),
                modules[0],
                self.node_name(i)
            )
        }
    }

    /// Which instances of the mesh do provide `contract`, for E0505's help.
    fn mesh_providers_help(&self, contract: &str, except: InstanceId) -> String {
        let names: Vec<String> = self
            .providers
            .get(contract)
            .map(|v| {
                v.iter()
                    .filter(|&&p| p != except)
                    .map(|&p| self.who(p))
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            format!("no instance of this mesh provides `{contract}`")
        } else {
            format!(
                "`{contract}` is provided by {}",
                crate::diagnostics::capped_list(&names)
            )
        }
    }

    /// The holder of the seat that delivers `contract`, for requirement `req` of `i`; or
    /// a refusal of `i` saying the seat is not held (E0504) or held wrongly (E0515, E0109).
    fn seat_holder_for(&mut self, i: InstanceId, req: &str, contract: &str) -> Option<InstanceId> {
        let Some(seat) = self.registry.seat_delivering(contract) else {
            let d = self.diag(
                Code::E0504,
                self.head(i),
                format!(
                    "`{req}` of {} is a secret operator value, kept by the vault, and no seat delivers `{contract}` in this workspace",
                    self.who(i)
                ),
            );
            self.refuse(i, d);
            return None;
        };
        let seat_name = seat.name.clone();
        match self.seats.get(&seat_name).cloned() {
            Some(SeatState::Held(h)) => Some(h),
            Some(SeatState::Broken { code, span, why }) => {
                let d = self
                    .diag(
                        code,
                        self.head(i),
                        format!(
                            "`{req}` of {} is answered by the holder of seat `{seat_name}`, and that seat is not held as it must be: {why}",
                            self.who(i)
                        ),
                    )
                    .with_label(span, "the seat")
                    .with_help("fix the seat line: it names an instance on its node whose module provides what the seat delivers");
                self.refuse(i, d);
                None
            }
            None => {
                let what = if contract == VAULT_CONTRACT
                    && self
                        .requirement(i, req)
                        .is_some_and(|r| r.operator.is_some())
                {
                    format!(
                        "`{req}` of {} is a secret operator value, delivered to the holder of seat `{seat_name}`",
                        self.who(i)
                    )
                } else {
                    format!(
                        "`{req}` (contract `{contract}`) of {} is answered by the holder of seat `{seat_name}`",
                        self.who(i)
                    )
                };
                let help = self.could_hold_help(&seat_name, contract);
                let d = self
                    .diag(
                        Code::E0504,
                        self.head(i),
                        format!("seat `{seat_name}` is not held: {what}"),
                    )
                    .with_help(help);
                self.refuse(i, d);
                None
            }
        }
    }

    /// Gives every secret a consumer receives the key its provider keeps it under:
    /// `<login>/<field>`, or `<login>/<requirement>/<field>` when that key is already
    /// taken at the same provider by an earlier requirement of the same consumer. A secret
    /// operator value is kept by the vault under `<login>/<requirement>`. Only the keys
    /// not in those usual forms are recorded (see [`super::InstanceState::secret_key`]).
    pub(super) fn allocate_secret_keys(&self) -> IdVec<InstanceId, SecretKeys<'m>> {
        let mut keys = IdVec::filled(self.instances.len(), SecretKeys::default());
        for i in self.instances.ids() {
            let Some(m) = self.module_of(i) else { continue };
            let login = self.identities.logins[i].clone();
            let mut taken: FxHashSet<(InstanceId, String)> = FxHashSet::default();
            let mut unusual: Vec<((&'m str, &'m str), String)> = Vec::new();
            for (&req, info) in &m.scope.requirements {
                match self.answers[i].get(req) {
                    Some(Answer::Module { provider, .. }) => {
                        let provider = *provider;
                        let Some(contract) = info.contract.as_deref() else {
                            continue;
                        };
                        for field in contract.fields.values().filter(|f| f.secret) {
                            let key = format!("{login}/{}", field.name);
                            if !taken.insert((provider, key)) {
                                let key = format!("{login}/{req}/{}", field.name);
                                taken.insert((provider, key.clone()));
                                unusual.push(((req, field.name.as_str()), key));
                            }
                        }
                    }
                    Some(Answer::SecretOperator { vault }) => {
                        let vault = *vault;
                        let key = format!("{login}/{req}");
                        if !taken.insert((vault, key)) {
                            let key = format!("{login}/{req}/value");
                            taken.insert((vault, key.clone()));
                            unusual.push(((req, ""), key));
                        }
                    }
                    _ => continue,
                }
            }
            keys[i].extend(unusual);
        }
        keys
    }
}
