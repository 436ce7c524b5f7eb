//! A small table by name, in insertion order: what a module's scope holds of its
//! requirements, and what resolution answers for each requirement of an instance.
//!
//! A module has a handful of requirements, and a large mesh makes a table per module it
//! checks, another per module it resolves, and one per instance it places: a list
//! scanned by name is built and searched for less than a hash table is built (hashing
//! every name was a third of making a module's scope), and it holds no index (a hash
//! table for eight answers took 16 slots). Past [`FEW`] names they are hashed as well,
//! so a table of very many is no slower to search.

use super::fx_hash::FxHashMap;

/// Up to how many names a [`NameMap`] finds a name by a scan.
const FEW: usize = 16;

/// Values by name (`&'a str`), in the order they were first inserted.
#[derive(Debug, Clone)]
pub struct NameMap<'a, V> {
    list: Vec<(&'a str, V)>,
    /// Each name's place in `list`, once it holds more than [`FEW`].
    index: Option<FxHashMap<&'a str, usize>>,
}

impl<V> Default for NameMap<'_, V> {
    fn default() -> Self {
        NameMap {
            list: Vec::new(),
            index: None,
        }
    }
}

/// A name and its value, as `for (name, v) in &map` reads them.
pub type Entry<'s, 'a, V> = (&'s &'a str, &'s V);

impl<'a, V> NameMap<'a, V> {
    /// Room for `n` names.
    pub fn with_capacity(n: usize) -> NameMap<'a, V> {
        NameMap {
            list: Vec::with_capacity(n),
            index: None,
        }
    }

    /// Sets the value of `name`: a name already held keeps its place and takes the new
    /// value; a new one goes last.
    pub fn insert(&mut self, name: &'a str, value: V) {
        if let Some(at) = self.get_index_of(name) {
            self.list[at].1 = value;
            return;
        }
        self.push(name, value);
    }

    /// Adds `name`, which the map does not hold, last, without looking for it (a
    /// module's scope is made from names already told apart).
    pub fn push(&mut self, name: &'a str, value: V) {
        debug_assert!(self.get_index_of(name).is_none(), "`{name}` held twice");
        self.list.push((name, value));
        if let Some(index) = &mut self.index {
            index.insert(name, self.list.len() - 1);
        } else if self.list.len() > FEW {
            let index = self.list.iter().enumerate().map(|(i, (n, _))| (*n, i));
            self.index = Some(index.collect());
        }
    }

    /// The place of `name`.
    pub fn get_index_of(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.list.iter().position(|(n, _)| *n == name),
        }
    }

    /// The place of `name`, the name as inserted and its value.
    pub fn get_full(&self, name: &str) -> Option<(usize, &&'a str, &V)> {
        let at = self.get_index_of(name)?;
        let (n, v) = &self.list[at];
        Some((at, n, v))
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&V> {
        self.get_full(name).map(|(_, _, v)| v)
    }

    /// Whether `name` has a value.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get_index_of(name).is_some()
    }

    /// The name at place `at` and its value.
    pub fn get_index(&self, at: usize) -> Option<Entry<'_, 'a, V>> {
        self.list.get(at).map(|(n, v)| (n, v))
    }

    /// Every name, in order.
    pub fn keys(&self) -> impl Iterator<Item = &&'a str> {
        self.list.iter().map(|(n, _)| n)
    }

    /// Every value, in order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.list.iter().map(|(_, v)| v)
    }

    /// Every name and its value, in order.
    pub fn iter(&self) -> impl Iterator<Item = Entry<'_, 'a, V>> {
        self.list.iter().map(|(n, v)| (n, v))
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

impl<'s, 'a, V> IntoIterator for &'s NameMap<'a, V> {
    type Item = Entry<'s, 'a, V>;
    type IntoIter = std::iter::Map<
        std::slice::Iter<'s, (&'a str, V)>,
        fn(&'s (&'a str, V)) -> Entry<'s, 'a, V>,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter().map(|(n, v)| (n, v))
    }
}

impl<V> std::ops::Index<&str> for NameMap<'_, V> {
    type Output = V;

    /// The value of `name`, which the map must hold.
    fn index(&self, name: &str) -> &V {
        self.get(name).expect("a name the map holds")
    }
}

impl<V> std::ops::Index<usize> for NameMap<'_, V> {
    type Output = V;

    /// The value at place `at`.
    fn index(&self, at: usize) -> &V {
        &self.list[at].1
    }
}

impl<V> std::ops::IndexMut<usize> for NameMap<'_, V> {
    /// The value at place `at`, to change: a table whose places follow another's (an
    /// instance's answers follow its module's requirements) is written there without
    /// looking its names up.
    fn index_mut(&mut self, at: usize) -> &mut V {
        &mut self.list[at].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are found in order, by a scan and past [`FEW`] by their index alike, and a
    /// name inserted again keeps its place and takes the new value.
    #[test]
    fn names_keep_their_first_place_scanned_or_hashed() {
        let names: Vec<String> = (0..40).map(|i| format!("n{i}")).collect();
        let mut map = NameMap::default();
        for (i, n) in names.iter().enumerate() {
            map.insert(n.as_str(), i);
            map.insert(names[0].as_str(), 100 + i);
            for (j, m) in names[..=i].iter().enumerate() {
                assert_eq!(map.get_index_of(m), Some(j), "{m} among {}", i + 1);
            }
            assert_eq!(map.get("absent"), None);
            assert_eq!(map.len(), i + 1);
        }
        assert_eq!(map[names[0].as_str()], 139);
        assert_eq!(map[39], 39);
        map[39] = 7;
        assert_eq!(map["n39"], 7);
        assert_eq!(map.get_index(1), Some((&"n1", &1)));
        let keys: Vec<&str> = map.keys().copied().collect();
        assert_eq!(keys, names.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(map.iter().count(), 40);
    }
}
