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
use super::{
    Answer, Answers, Choices, Entries, IdVec, Identities, InstanceId, KnownInstance, Ledger, Phase,
    Refusals, Resolver, SeatState, SecretKeys,
};
use crate::check::registry::ProviderKind;
use crate::check::scope::ReqInfo;
use crate::diagnostics::Reported;
use crate::diagnostics::rules::{
    NoProvider, PinnedNotProvider, SeatBroken, SeatNotHeld, SeveralProviders,
};
use crate::emit::By;

/// The contract a secret operator value is kept under: the vault's.
const VAULT_CONTRACT: &str = "secret";

impl<'m> Resolver<'m> {
    /// The provider choice: answers every module requirement of every instance with a
    /// provider, or refuses it, and every secret operator value with the vault; gives
    /// each secret its key. Takes the placements' answers and returns every answer.
    pub(super) fn choose_providers(
        &self,
        earlier: &Ledger<'_>,
        entries: &Entries<'m>,
        identities: &Identities,
        answers: Answers<'m>,
    ) -> (Choices<'m>, Refusals) {
        let mut choosing = Choosing {
            phase: Phase::new(self, earlier),
            entries,
            answers,
        };
        let waits_for = choosing.choose();
        let Choosing { phase, answers, .. } = choosing;
        let secret_keys = allocate_secret_keys(self, &identities.logins, &answers);
        let choices = Choices {
            answers,
            secret_keys,
            waits_for,
        };
        (choices, phase.end())
    }
}

/// The provider choice under way: the answers so far (the placements' and those it
/// gives).
struct Choosing<'a, 'm> {
    phase: Phase<'a, 'm>,
    entries: &'a Entries<'m>,
    answers: Answers<'m>,
}

super::runs_as_phase!(Choosing);

impl<'m> Choosing<'_, 'm> {
    /// Answers every module requirement and secret operator value, and returns whom each
    /// instance waits for.
    fn choose(&mut self) -> IdVec<InstanceId, Vec<InstanceId>> {
        let mut waits_for = IdVec::filled(self.instances.len(), Vec::new());
        for i in self.instances.ids() {
            self.interrupt();
            let Some(k) = self.known(i) else { continue };
            for (at, (&req, info)) in k.module.scope.requirements.iter().enumerate() {
                match info.kind {
                    Some(ProviderKind::Module) => {
                        let Some(contract) = info.contract.as_deref() else {
                            // An unknown contract (E0103).
                            let _proof = self.phase.passed_over(i, k.module, "E0103");
                            continue;
                        };
                        if contract.kind != Some(ProviderKind::Module) {
                            // A contract another kind answers (E0202).
                            let _proof = self.phase.passed_over(i, k.module, "E0202");
                            continue;
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
                        super::set_answer(&mut self.answers, i, at, req, answer);
                    }
                    Some(ProviderKind::Operator)
                        if info.operator.as_ref().is_some_and(|o| o.secret) =>
                    {
                        let answer = match self.seat_holder_for(i, req, VAULT_CONTRACT) {
                            Ok(vault) => {
                                waits_for[i].push(vault);
                                Answer::SecretOperator { vault }
                            }
                            Err(_refused) => Answer::Unresolved,
                        };
                        super::set_answer(&mut self.answers, i, at, req, answer);
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
            let Ok((p, span)) = pin else {
                return Answer::Unresolved; // the pin itself was refused
            };
            return match self.module_of(p) {
                Some(pm) if !pm.provides.contains_key(contract) => {
                    let (who, pinned_who) = (self.who(i), self.who(p));
                    let rule = PinnedNotProvider {
                        requirement: req,
                        who: &who,
                        pinned_who: &pinned_who,
                        module: &pm.name,
                        contract,
                        provided: crate::diagnostics::capped_list(
                            pm.provides.keys().map(|c| format!("`{c}`")),
                        ),
                        others: self.mesh_providers(contract, i),
                        pinned: self.head(p),
                    };
                    let d = self.at(span, rule);
                    let _refused = self.refuse(i, d);
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
                Ok(h) => Answer::Module {
                    provider: h,
                    by: By::Seat,
                },
                Err(_refused) => Answer::Unresolved,
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
            let _refused = self.several_providers(i, req, contract, &here, true);
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
                let mut modules = self.workspace_modules_providing(contract);
                // The module named like the contract (the standard provider: `postgres`
                // for `postgres`) first; the others in name order.
                modules.sort_by(|a, b| (a != contract, a).cmp(&(b != contract, b)));
                let who = self.who(i);
                let rule = NoProvider {
                    requirement: req,
                    contract,
                    who: &who,
                    mesh: &self.mesh.name.name,
                    decl: (&k.module.path, info.ast.span),
                    modules: crate::diagnostics::capped_list(
                        modules.iter().map(|m| format!("`{m}`")),
                    ),
                    first: modules.first().map(String::as_str),
                    node: self.node_name(i),
                };
                let d = self.at(self.head(i), rule);
                let _refused = self.refuse(i, d);
                Answer::Unresolved
            }
            (Some(_), Some(_)) => {
                let several: Vec<InstanceId> = all.iter().copied().filter(|&p| p != i).collect();
                let _refused = self.several_providers(i, req, contract, &several, false);
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
    ) -> Reported {
        const SHOWN: usize = crate::diagnostics::LIST_SHOWN;
        let first = candidates[0];
        let who = self.who(i);
        let rule = SeveralProviders {
            requirement: req,
            contract,
            who: &who,
            on_own_node,
            mesh: &self.mesh.name.name,
            names: crate::diagnostics::capped_list(candidates.iter().map(|&p| self.who(p))),
            heads: candidates
                .iter()
                .take(SHOWN)
                .map(|&p| self.head(p))
                .collect(),
            first: &self.instances[first].name,
            first_node: self.node_name(first),
        };
        let d = self.at(self.head(i), rule);
        self.refuse(i, d)
    }

    /// The instances of the mesh that do provide `contract` but `except`, listed (empty
    /// when none), for E0505's help.
    fn mesh_providers(&self, contract: &str, except: InstanceId) -> String {
        crate::diagnostics::capped_list(
            self.providers
                .get(contract)
                .into_iter()
                .flatten()
                .filter(|&&p| p != except)
                .map(|&p| self.who(p)),
        )
    }

    /// The holder of the seat that delivers `contract`, for requirement `req` of `i`; or
    /// a refusal of `i` saying the seat is not held (E0504) or held wrongly (E0515, E0109).
    fn seat_holder_for(
        &mut self,
        i: InstanceId,
        req: &str,
        contract: &str,
    ) -> Result<InstanceId, Reported> {
        let Some(seat) = self.registry.seat_delivering(contract) else {
            let who = self.who(i);
            let rule = SeatNotHeld::NoSeat {
                requirement: req,
                who: &who,
                contract,
            };
            let d = self.at(self.head(i), rule);
            return Err(self.refuse(i, d));
        };
        let seat_name = seat.name.clone();
        match self.seats.get(&seat_name).cloned() {
            Some(SeatState::Held(h)) => Ok(h),
            Some(SeatState::Broken { code, span, why }) => {
                let who = self.who(i);
                let rule = SeatBroken {
                    code,
                    requirement: req,
                    who: &who,
                    seat: &seat_name,
                    why: &why,
                    seat_line: span,
                };
                let d = self.at(self.head(i), rule);
                Err(self.refuse(i, d))
            }
            None => {
                let secret_value = contract == VAULT_CONTRACT
                    && self
                        .requirement(i, req)
                        .is_some_and(|r| r.operator.is_some());
                let holders = self.could_hold(contract);
                let who = self.who(i);
                let rule = SeatNotHeld::NotHeld {
                    seat: &seat_name,
                    requirement: req,
                    who: &who,
                    contract,
                    secret_value,
                    could_hold: holders.as_could_hold(),
                };
                let d = self.at(self.head(i), rule);
                Err(self.refuse(i, d))
            }
        }
    }
}

/// Gives every secret a consumer receives the key its provider keeps it under:
/// `<login>/<field>`, or `<login>/<requirement>/<field>` when that key is already
/// taken at the same provider by an earlier requirement of the same consumer. A secret
/// operator value is kept by the vault under `<login>/<requirement>`. Only the keys
/// not in those usual forms are recorded (see [`super::World::secret_key`]).
fn allocate_secret_keys<'m>(
    r: &Resolver<'m>,
    logins: &IdVec<InstanceId, String>,
    answers: &Answers<'m>,
) -> IdVec<InstanceId, SecretKeys<'m>> {
    let mut keys = IdVec::filled(r.instances.len(), SecretKeys::default());
    for i in r.instances.ids() {
        let Some(m) = r.module_of(i) else { continue };
        let login = &logins[i];
        // A key is `<login>/` and one or two names: the login is this instance's
        // own and a name holds no `/`, so two keys are equal exactly when their
        // names are, and the names stand for the key until one must be written.
        let mut taken: FxHashSet<(InstanceId, &str, Option<&str>)> = FxHashSet::default();
        let mut unusual: Vec<((&'m str, &'m str), String)> = Vec::new();
        for (&req, info) in &m.scope.requirements {
            match answers[i].get(req) {
                Some(Answer::Module { provider, .. }) => {
                    let provider = *provider;
                    let Some(contract) = info.contract.as_deref() else {
                        continue;
                    };
                    for field in contract.fields.values().filter(|f| f.secret) {
                        if !taken.insert((provider, &field.name, None)) {
                            taken.insert((provider, req, Some(&field.name)));
                            let key = format!("{login}/{req}/{}", field.name);
                            unusual.push(((req, field.name.as_str()), key));
                        }
                    }
                }
                Some(Answer::SecretOperator { vault }) => {
                    let vault = *vault;
                    if !taken.insert((vault, req, None)) {
                        taken.insert((vault, req, Some("value")));
                        unusual.push(((req, ""), format!("{login}/{req}/value")));
                    }
                }
                _ => continue,
            }
        }
        keys[i].extend(unusual);
    }
    keys
}
