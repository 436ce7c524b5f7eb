//! Typed ids for what a mesh holds: an instance is an [`InstanceId`], a node a
//! [`NodeId`]. Each is a `u32` index into its own table ([`IdVec`] for instances,
//! [`Nodes`] for nodes), so an instance's id cannot index the nodes, and no raw index
//! travels through the resolver.

use super::NodeInfo;
use indexmap::IndexMap;
use std::marker::PhantomData;

/// An id: a `u32` index into one table.
pub(crate) trait Id: Copy {
    fn from_index(index: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(u32);

        impl Id for $name {
            fn from_index(index: usize) -> Self {
                // A mesh is a text in memory: it cannot hold 2^32 assignments or nodes.
                $name(u32::try_from(index).unwrap_or(u32::MAX))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// An instance of the mesh: an assignment with a known node and a name of its own on
    /// it, in source order.
    InstanceId
);
id!(
    /// A node of the mesh, in source order (a node declared twice counts once).
    NodeId
);

/// A table indexed by an id, in the order its entries were pushed.
pub(crate) struct IdVec<I, T> {
    items: Vec<T>,
    id: PhantomData<fn(I) -> I>,
}

impl<I, T> Default for IdVec<I, T> {
    fn default() -> Self {
        IdVec {
            items: Vec::new(),
            id: PhantomData,
        }
    }
}

impl<I: Id, T> IdVec<I, T> {
    /// A table of `len` entries, each `value`.
    pub fn filled(len: usize, value: T) -> Self
    where
        T: Clone,
    {
        IdVec {
            items: vec![value; len],
            id: PhantomData,
        }
    }

    /// Adds `item` and returns its id.
    pub fn push(&mut self, item: T) -> I {
        let id = I::from_index(self.items.len());
        self.items.push(item);
        id
    }

    /// Makes room for `additional` more entries at once (a large mesh would otherwise
    /// grow the table by doubling, holding up to twice what it needs).
    pub fn reserve_exact(&mut self, additional: usize) {
        self.items.reserve_exact(additional);
    }

    /// The id the next [`IdVec::push`] returns.
    pub fn next_id(&self) -> I {
        I::from_index(self.items.len())
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The entry of `id`, if the table holds one.
    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = I> + use<I, T> {
        (0..self.items.len()).map(I::from_index)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Every entry with its id, in order.
    pub fn iter_enumerated(&self) -> impl Iterator<Item = (I, &T)> {
        self.items
            .iter()
            .enumerate()
            .map(|(k, t)| (I::from_index(k), t))
    }
}

impl<I: Id, T> std::ops::Index<I> for IdVec<I, T> {
    type Output = T;
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: Id, T> std::ops::IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}

impl<I: Id, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(items: It) -> Self {
        IdVec {
            items: items.into_iter().collect(),
            id: PhantomData,
        }
    }
}

impl<'a, I: Id, T> IntoIterator for &'a IdVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The nodes of a mesh by name, in source order; [`NodeId`] is a node's place in it.
#[derive(Default)]
pub(crate) struct Nodes<'m> {
    by_name: IndexMap<String, NodeInfo<'m>>,
}

impl<'m> Nodes<'m> {
    pub fn get(&self, name: &str) -> Option<&NodeInfo<'m>> {
        self.by_name.get(name)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut NodeInfo<'m>> {
        self.by_name.get_mut(name)
    }

    /// The id of node `name`, if the mesh declares it.
    pub fn id_of(&self, name: &str) -> Option<NodeId> {
        self.by_name.get_index_of(name).map(NodeId::from_index)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Adds a node; a node of that name must not be there yet.
    pub fn insert(&mut self, info: NodeInfo<'m>) -> NodeId {
        let (k, _) = self.by_name.insert_full(info.name.clone(), info);
        NodeId::from_index(k)
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.by_name.keys()
    }

    pub fn values(&self) -> impl Iterator<Item = &NodeInfo<'m>> {
        self.by_name.values()
    }
}

impl<'m> std::ops::Index<NodeId> for Nodes<'m> {
    type Output = NodeInfo<'m>;
    fn index(&self, id: NodeId) -> &NodeInfo<'m> {
        &self.by_name[id.index()]
    }
}

impl<'m> std::ops::IndexMut<NodeId> for Nodes<'m> {
    fn index_mut(&mut self, id: NodeId) -> &mut NodeInfo<'m> {
        &mut self.by_name[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_their_own_table_in_push_order() {
        let mut v: IdVec<InstanceId, &str> = IdVec::default();
        assert_eq!(v.next_id(), InstanceId::from_index(0));
        let a = v.push("a");
        let b = v.push("b");
        assert_ne!(a, b);
        assert_eq!((v[a], v[b]), ("a", "b"));
        assert_eq!(v.ids().collect::<Vec<_>>(), [a, b]);
        assert_eq!(
            v.iter_enumerated()
                .map(|(i, s)| (i, *s))
                .collect::<Vec<_>>(),
            [(a, "a"), (b, "b")]
        );
        v[b] = "c";
        assert_eq!(v.iter().copied().collect::<Vec<_>>(), ["a", "c"]);
        let f: IdVec<NodeId, u8> = IdVec::filled(3, 7);
        assert_eq!(f.len(), 3);
        assert_eq!(f[NodeId::from_index(2)], 7);
    }
}
