//! The order between instances on one node (LANGUAGE.md §14.1, §14.7), for targets.
//!
//! Every container and job of a consumer instance starts after every container and job
//! of each provider instance on the **same node** that answers one of its requirements.
//! That order is not written in the manifest: a target (the Compose file's `depends_on`)
//! derives it from the manifest alone, with [`same_node_providers`], so the manifest's
//! shape and digest stay what they were and no target needs anything else.
//!
//! What answers a requirement is what the manifest's `requirements` say: a module
//! requirement's `provider`, whichever rule chose it (`pin`, `seat`, `node` or `only`).
//! An absent optional requirement answers nothing; a provider on another node, or left out
//! of this one, is not waited for (a consumer whose provider is elsewhere relies on its
//! restart policy). Instances that answer each other in a cycle on one node get no order
//! between them; an order between such a cycle and the instances outside it is kept.

use super::manifest::{Manifest, Requirement};
use crate::base::fx_hash::FxIndexMap;

/// Instance name → the instances of the same node it starts after, for every instance of
/// `manifest` that waits for any: consumers in the manifest's order, each one's providers
/// in the order of its requirements, each once.
pub fn same_node_providers(manifest: &Manifest) -> FxIndexMap<String, Vec<String>> {
    let index: FxIndexMap<&str, usize> = manifest
        .instances
        .iter()
        .enumerate()
        .map(|(k, i)| (i.instance.as_str(), k))
        .collect();
    // Edges consumer → provider, by index into the manifest's instances.
    let edges: Vec<Vec<usize>> = manifest
        .instances
        .iter()
        .enumerate()
        .map(|(me, i)| {
            let mut out: Vec<usize> = Vec::new();
            for r in i.requirements.values() {
                let Requirement::Module(m) = r else { continue };
                if m.provider.node != manifest.node {
                    continue;
                }
                if let Some(&p) = index.get(m.provider.instance.as_str())
                    && p != me
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
            out
        })
        .collect();
    let component = strongly_connected(&edges);
    let mut out = FxIndexMap::default();
    for (c, providers) in edges.iter().enumerate() {
        let kept: Vec<String> = providers
            .iter()
            .filter(|&&p| component[p] != component[c])
            .map(|&p| manifest.instances[p].instance.clone())
            .collect();
        if !kept.is_empty() {
            out.insert(manifest.instances[c].instance.clone(), kept);
        }
    }
    out
}

/// The strongly connected component of each vertex (Tarjan's algorithm, iterative: a
/// node may hold any number of instances in a chain).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![UNSEEN; n];
    let mut next = 0;
    let mut components = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (vertex, next edge to follow)
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if *e == 0 && index[v] == UNSEEN {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*e) {
                *e += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_is_one_component_and_what_hangs_off_it_is_not() {
        // 0 → 1 → 2 → 1, 3 → 0, 4 alone.
        let edges = vec![vec![1], vec![2], vec![1], vec![0], vec![]];
        let c = strongly_connected(&edges);
        assert_eq!(c[1], c[2]);
        for (a, b) in [(0, 1), (3, 0), (4, 0), (4, 1), (3, 1)] {
            assert_ne!(c[a], c[b], "{a} and {b}");
        }
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|k| if k + 1 < n { vec![k + 1] } else { vec![0] })
            .collect();
        let c = strongly_connected(&edges);
        assert!(c.iter().all(|&x| x == c[0]));
    }
}
