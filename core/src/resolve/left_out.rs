//! What is left out (LANGUAGE.md §7, ADR 0163 rule 6): an assignment with any refusal,
//! or whose module has errors, is left out of its node's manifest; a consumer whose
//! provider (or seat holder) was left out is left out too, saying it waits for that
//! provider (E0514), transitively. Each waiting instance keeps its own E0514 (its manifest
//! entry says why it was left out), while the diagnostics show one E0514 per left-out
//! provider, at its assignment, listing everyone who waits for it.

use super::fx_hash::FxHashSet;
use super::{IdVec, InstanceId, Ledger, LeftOutSet, Phase, Refusals, Resolver};
use crate::diagnostics::rules::{LeftOutWhy, Waiting};
use crate::diagnostics::{Code, Diagnostic};
use crate::span::{FilePath, Span};
use std::collections::VecDeque;

impl<'m> Resolver<'m> {
    /// Whether instance `i` is refused by itself: a refusal, an unknown module, a
    /// module with errors, or a node with errors.
    fn refused_by_itself(&self, refused: &Phase<'_, 'm>, i: InstanceId) -> bool {
        refused.is_refused(i)
            || self
                .module_of(i)
                .is_none_or(|m| !self.errors_of(m).is_empty())
            || !self.nodes[self.instances[i].node].errors.is_empty()
    }

    /// What is left out: every refused instance, then every instance waiting for one
    /// (E0514, once per provider it waits for).
    pub(super) fn leave_out_refused(
        &self,
        earlier: &Ledger<'_>,
        waits_for: &IdVec<InstanceId, Vec<InstanceId>>,
    ) -> (LeftOutSet, Refusals) {
        let mut phase = Phase::new(self, earlier);
        let n = self.instances.len();
        let dependents = dependents(n, waits_for);
        let mut queue: VecDeque<InstanceId> = VecDeque::new();
        let mut flags = IdVec::filled(n, false);
        for i in self.instances.ids() {
            self.interrupt();
            if self.refused_by_itself(&phase, i) {
                flags[i] = true;
                queue.push_back(i);
            }
        }
        // (consumer, provider) pairs already told E0514.
        let mut told: FxHashSet<(InstanceId, InstanceId)> = FxHashSet::default();
        while let Some(p) = queue.pop_front() {
            for &c in &dependents[p] {
                if !told.insert((c, p)) {
                    continue;
                }
                let (consumer, provider) = (self.who(c), self.who(p));
                let rule = Waiting::One {
                    consumer: &consumer,
                    provider: &provider,
                    provider_head: self.head(p),
                };
                let d = self.at(self.head(c), rule);
                let _refused = phase.refuse(c, d);
                if !flags[c] {
                    flags[c] = true;
                    queue.push_back(c);
                }
            }
        }
        (LeftOutSet { flags }, phase.end())
    }

    /// Why instance `i` was left out by itself (not for waiting), with the place of the
    /// first reason (file and span); `None` when it was not.
    fn own_reason(
        &self,
        refused: &Ledger<'_>,
        i: InstanceId,
    ) -> Option<(LeftOutWhy<'_>, Option<(FilePath, Span)>)> {
        let inst = &self.instances[i];
        if let Some(d) = refused
            .refusals_of(i)
            .into_iter()
            .find(|d| d.code != Code::E0514)
        {
            return Some((LeftOutWhy::Refused(d.code), Some((d.file.clone(), d.span))));
        }
        match self.module_of(i) {
            None => return Some((LeftOutWhy::UnknownModule(&inst.module_name), None)),
            Some(m) => {
                if let Some(d) = self.errors_of(m).first() {
                    return Some((
                        LeftOutWhy::ModuleErrors(&inst.module_name, d.code),
                        Some((d.file.clone(), d.span)),
                    ));
                }
            }
        }
        let node = &self.nodes[inst.node];
        node.errors.first().map(|d| {
            (
                LeftOutWhy::NodeErrors(&node.name, d.code),
                Some((d.file.clone(), d.span)),
            )
        })
    }

    /// One E0514 per instance left out by itself that others wait for, at its assignment:
    /// why it was left out (with the first reason as a label), how many wait for it and
    /// which, consumers of consumers included. Each waiting instance keeps its own E0514
    /// among its refusals (the manifests' `left_out` says it), but the diagnostics show
    /// one per left-out provider, so one mistake is one error and not one per consumer.
    pub(super) fn waiting_groups(
        &self,
        refused: &Ledger<'_>,
        waits_for: &IdVec<InstanceId, Vec<InstanceId>>,
        left_out: &LeftOutSet,
    ) -> Vec<Diagnostic> {
        let dependents = dependents(self.instances.len(), waits_for);
        let mut out = Vec::new();
        for p in self.instances.ids() {
            if !left_out.flags[p] || dependents[p].is_empty() {
                continue;
            }
            let Some((why, place)) = self.own_reason(refused, p) else {
                continue; // waiting itself: its waiters are counted under the root
            };
            // Breadth first: direct consumers, then theirs, each once, with what it
            // waits through.
            let mut reached: Vec<(InstanceId, Option<InstanceId>)> = Vec::new();
            let mut seen = FxHashSet::default();
            seen.insert(p);
            let mut queue: VecDeque<InstanceId> = VecDeque::from([p]);
            while let Some(q) = queue.pop_front() {
                for &c in &dependents[q] {
                    if left_out.flags[c] && seen.insert(c) {
                        reached.push((c, (q != p).then_some(q)));
                        queue.push_back(c);
                    }
                }
            }
            if reached.is_empty() {
                continue;
            }
            let provider = self.who(p);
            let rule = Waiting::Group {
                provider: &provider,
                why,
                waiters: reached
                    .iter()
                    .map(|&(c, through)| (self.who(c), through.map(|t| self.who(t))))
                    .collect(),
                place: place.as_ref().map(|(file, span)| (file, *span)),
            };
            out.push(self.at(self.head(p), rule));
        }
        out
    }
}

/// Provider → its direct consumers (each once, itself never), in instance order.
fn dependents(
    n: usize,
    waits_for: &IdVec<InstanceId, Vec<InstanceId>>,
) -> IdVec<InstanceId, Vec<InstanceId>> {
    let mut dependents: IdVec<InstanceId, Vec<InstanceId>> = IdVec::filled(n, Vec::new());
    for (c, waits_for) in waits_for.iter_enumerated() {
        let mut seen = FxHashSet::default();
        for &p in waits_for {
            if p != c && seen.insert(p) {
                dependents[p].push(c);
            }
        }
    }
    dependents
}
