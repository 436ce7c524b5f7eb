//! The checks of one module, in the order a reader meets its parts: the slug, the
//! requirements (kinds, contracts, narrowing, cycles), the containers, the `provides`
//! blocks, and last the requirements nothing used.

use super::Cx;
use super::registry::ContractInfo;
use super::scope::{ModuleScope, ScopeTable};
use crate::diagnostics::Rule;
use crate::diagnostics::rules::{Duplicate, InvalidLiteral};
use crate::span::Span;
use crate::syntax::ast::{self, ModuleEntry};
use std::collections::HashMap;

/// A reference from one requirement's narrowing to another requirement: an edge of the
/// graph E0313 looks for cycles in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    /// The reference as written.
    pub at: Span,
}

/// The state of checking one module.
pub(crate) struct ModuleChecker<'a, 'c> {
    pub cx: &'c mut Cx<'a>,
    pub module: &'a ast::Module,
    /// The module's requirements; indices into it name requirements below.
    pub scope: ModuleScope<'a>,
    /// The contract of each requirement (by its index in `scope`), looked up once.
    pub contracts: Vec<Option<&'a ContractInfo>>,
    /// Whether each requirement (by its index in `scope`) was read, mounted or published.
    pub used: Vec<bool>,
    /// References between requirements, found while checking narrowing.
    pub edges: Vec<Edge>,
    /// The requirement whose narrowing is being checked, so references record edges.
    pub edge_from: Option<usize>,
    /// The optional requirement of the `when` block being checked, if any: the only one
    /// an entry may read (E0320).
    pub when: Option<&'a str>,
    /// Optional requirements already told E0320, at a span, so one read is told once.
    pub told_optional: Vec<Span>,
    /// `provides` blocks of an unknown contract already told E0103, at the contract's
    /// name, with the proof.
    pub told_provides: Vec<(Span, crate::diagnostics::Reported)>,
    /// Every loop variable met so far (LANGUAGE.md §12.3); targets name them by index.
    pub loops: Vec<super::loops::LoopVar<'a>>,
    /// The loops whose template is being checked, outermost first.
    pub active_loops: Vec<usize>,
    /// Every reference read so far, what it reads and its type: the model's table; `None`
    /// when no reader keeps it (`meshc check` reads only the diagnostics).
    pub references: Option<Vec<super::semantics::Resolved>>,
    /// Each container's spec, as its checks decide it (`check::specs`).
    pub specs: Vec<super::specs::ContainerSpec>,
    /// What each reference of the module reads, by its id (`check::readings`).
    pub readings: super::readings::ReadingsBuilder,
}

/// Checks one module in the scope `table` decided; returns every reference it read,
/// resolved, in the order it read them (none unless `keep_references`), and its
/// containers lowered to specs.
pub(crate) fn check_module<'a>(
    cx: &mut Cx<'a>,
    module: &'a ast::Module,
    table: &ScopeTable,
    keep_references: bool,
) -> (Vec<super::semantics::Resolved>, super::specs::ModuleSpecs) {
    let scope = ModuleScope::of(module, table);
    let used = vec![false; scope.requirements.len()];
    let registry = cx.registry;
    let contracts = scope
        .requirements
        .values()
        .map(|r| {
            r.contract_name()
                .and_then(|c| registry.contracts.get(c))
                .map(|c| &**c)
        })
        .collect();
    let mut m = ModuleChecker {
        cx,
        module,
        scope,
        contracts,
        used,
        edges: Vec::new(),
        edge_from: None,
        when: None,
        told_optional: Vec::new(),
        told_provides: Vec::new(),
        loops: Vec::new(),
        active_loops: Vec::new(),
        references: keep_references.then(Vec::new),
        specs: Vec::new(),
        // Read only by a mesh's resolution (`check::readings`).
        readings: super::readings::ReadingsBuilder::new(module, !registry.meshes.is_empty()),
    };
    m.check_slug();
    m.check_requirements();
    m.check_cycles();
    m.check_containers();
    m.check_provides();
    m.check_unused();
    let specs = super::specs::ModuleSpecs {
        containers: m.specs.into_boxed_slice(),
        readings: m.readings.finish(),
    };
    (m.references.unwrap_or_default(), specs)
}

impl<'a> ModuleChecker<'a, '_> {
    /// `slug "forge"`: at most 8 of `[a-z0-9]` (LANGUAGE.md §8), written once.
    fn check_slug(&mut self) {
        let mut first: Option<Span> = None;
        for entry in &self.module.entries {
            let ModuleEntry::Slug(s, whole) = entry else {
                continue;
            };
            if let Some(prev) = first {
                let rule = Duplicate::Slug {
                    module: &self.module.name.name,
                    first: prev,
                };
                self.cx.report(rule.at(self.cx.path, *whole));
                continue;
            }
            first = Some(*whole);
            let ok = s.as_plain().is_some_and(|t| {
                !t.is_empty()
                    && t.len() <= 8
                    && t.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
            if !ok {
                self.cx
                    .report(InvalidLiteral::Slug.at(self.cx.path, s.span));
            }
        }
    }
}

/// Finds names written twice in one scope. The first place of each name is kept, so the
/// second can point back at it. Most scopes are small (a module's requirements, a
/// container's env), where a scan beats hashing; a large one switches to a map.
pub(crate) struct Seen<'a> {
    /// Held in place up to [`SEEN_IN_PLACE`] names: most scopes (a module's
    /// requirements, a container's entries and files) hold fewer, and a list grown from
    /// nothing took two allocations for each of them.
    small: smallvec::SmallVec<[(&'a str, Span); SEEN_IN_PLACE]>,
    large: Option<HashMap<&'a str, Span>>,
}

/// How many names `Seen` scans before it builds a map.
const SEEN_SCAN_LIMIT: usize = 16;

/// How many names `Seen` holds without an allocation.
const SEEN_IN_PLACE: usize = 8;

impl<'a> Seen<'a> {
    pub fn new() -> Seen<'a> {
        Seen {
            small: smallvec::SmallVec::new(),
            large: None,
        }
    }

    /// Room for `names` names, scanned or (past the scan's limit) hashed as they come.
    pub fn with_capacity(names: usize) -> Seen<'a> {
        Seen {
            small: smallvec::SmallVec::with_capacity(names.min(SEEN_SCAN_LIMIT + 1)),
            large: None,
        }
    }

    /// Whether `name` was seen.
    pub fn contains(&self, name: &str) -> bool {
        match &self.large {
            Some(map) => map.contains_key(name),
            None => self.small.iter().any(|(n, _)| *n == name),
        }
    }

    /// Records `name` at `span`; returns where it was first seen if it was.
    pub fn insert(&mut self, name: &'a str, span: Span) -> Option<Span> {
        if let Some(map) = &mut self.large {
            return match map.entry(name) {
                std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(span);
                    None
                }
            };
        }
        if let Some((_, first)) = self.small.iter().find(|(n, _)| *n == name) {
            return Some(*first);
        }
        self.small.push((name, span));
        if self.small.len() > SEEN_SCAN_LIMIT {
            self.large = Some(self.small.drain(..).collect());
        }
        None
    }
}

/// An E0102 diagnostic at `span`, the second place of a name.
pub(crate) fn duplicate(cx: &mut Cx<'_>, span: Span, rule: Duplicate<'_>) {
    cx.report(rule.at(cx.path, span));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Seen` scans up to [`SEEN_SCAN_LIMIT`] names and builds a map past that; either
    /// way it keeps the first place of each name.
    #[test]
    fn seen_switches_to_a_map_past_the_scan_limit_and_keeps_first_places() {
        let names: Vec<String> = (0..=SEEN_SCAN_LIMIT).map(|i| format!("n{i}")).collect();
        let mut seen = Seen::new();
        for (i, n) in names.iter().enumerate() {
            assert!(!seen.contains(n));
            assert_eq!(seen.insert(n, Span::new(i, i + 1)), None);
            assert!(seen.contains(n));
            // Scanned while it holds at most the limit; a map once it holds more.
            assert_eq!(
                seen.large.is_some(),
                i + 1 > SEEN_SCAN_LIMIT,
                "after {} names",
                i + 1
            );
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                seen.insert(n, Span::new(99, 100)),
                Some(Span::new(i, i + 1))
            );
        }
        assert!(!seen.contains("n99"));
        assert_eq!(seen.insert("n99", Span::new(7, 8)), None);
        assert_eq!(seen.insert("n99", Span::new(9, 10)), Some(Span::new(7, 8)));
    }
}
