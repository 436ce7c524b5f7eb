//! What is left out (LANGUAGE.md §7, ADR 0163 rule 6): an assignment with any refusal,
//! or whose module has errors, is left out of its node's manifest; a consumer whose
//! provider (or seat holder) was left out is left out too, saying it waits for that
//! provider (E0514), transitively.

use super::Resolver;
use super::fx_hash::FxHashSet;
use crate::diagnostics::Code;
use std::collections::VecDeque;

impl<'m> Resolver<'m> {
    /// Whether instance `i` is refused by itself: a refusal, an unknown module, a
    /// module with errors, or a node with errors.
    fn refused_by_itself(&self, i: usize) -> bool {
        self.is_refused(i)
            || self.module_of(i).is_none_or(|m| !m.errors().is_empty())
            || !self.nodes[self.instances[i].node].errors.is_empty()
    }

    /// Marks every refused instance left out, then every instance waiting for one
    /// (E0514, once per provider it waits for).
    pub(super) fn leave_out_refused(&mut self) {
        let n = self.instances.len();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, inst) in self.instances.iter().enumerate() {
            let mut seen = FxHashSet::default();
            for &p in &inst.waits_for {
                if p != c && seen.insert(p) {
                    dependents[p].push(c);
                }
            }
        }
        let mut queue: VecDeque<usize> = VecDeque::new();
        for i in 0..n {
            if self.refused_by_itself(i) {
                self.instances[i].left_out = true;
                queue.push_back(i);
            }
        }
        while let Some(p) = queue.pop_front() {
            for &c in &dependents[p].clone() {
                if !self.told_waiting.insert((c, p)) {
                    continue;
                }
                let d = self
                    .diag(
                        Code::E0514,
                        self.head(c),
                        format!(
                            "{} waits for {}, which was left out",
                            self.who(c),
                            self.who(p)
                        ),
                    )
                    .with_label(self.head(p), "left out")
                    .with_help(format!(
                        "{} is built once {} resolves; see why it was left out",
                        self.who(c),
                        self.who(p)
                    ));
                self.refuse(c, d);
                if !self.instances[c].left_out {
                    self.instances[c].left_out = true;
                    queue.push_back(c);
                }
            }
        }
    }
}
