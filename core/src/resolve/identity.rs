//! Identity (LANGUAGE.md §8): a module's slug, the short forms of nodes and instances,
//! and the login `node-short _ slug [_ instance-short]` every provider keys its answers
//! by. Logins are unique in a mesh (E0509) and fit the tightest backend: at most 20
//! characters matching `^[a-z][a-z0-9_]*$` (E0513 otherwise).

use super::fx_hash::FxHashMap;
use super::{Entries, IdVec, Identities, InstanceId, Refusals, Resolver};
use crate::diagnostics::rules::{DoesNotFit, LoginsAlike};
use crate::syntax::ast;

/// The longest login a backend accepts.
pub(crate) const LOGIN_MAX: usize = 20;

/// `name` lowercased, everything but `[a-z0-9]` removed, cut to `max` characters.
pub(crate) fn short_form(name: &str, max: usize) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .take(max)
        .collect()
}

/// A module's slug: its `slug`, else its name by the short-form rule cut to 8.
pub(crate) fn module_slug(module: &ast::Module) -> String {
    module
        .slug()
        .and_then(|s| s.as_plain())
        .unwrap_or_else(|| short_form(&module.name.name, 8))
}

/// Whether `login` is at most 20 characters matching `^[a-z][a-z0-9_]*$`.
pub(crate) fn is_valid_login(login: &str) -> bool {
    login.len() <= LOGIN_MAX
        && login.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && login
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl<'m> Resolver<'m> {
    /// Gives every instance of a known module its login, refusing one that does not fit
    /// (E0513) and every group alike (E0509, once per group, naming its members).
    pub(super) fn assign_logins(&self, entries: &Entries<'m>) -> (Identities, Refusals) {
        let n = self.instances.len();
        let mut out = Identities {
            logins: IdVec::filled(n, String::new()),
            refused_with: IdVec::filled(n, None),
        };
        let mut refusals = Refusals::default();
        // Each valid login is made once, into `out.logins`; the groups are found after,
        // with the logins borrowed from there: a copy of every login as a key and a
        // list per login (100,000 of each, nearly all of one member) were made at
        // every resolution of a large mesh.
        let mut valid: Vec<InstanceId> = Vec::with_capacity(n);
        for i in self.instances.ids() {
            self.interrupt();
            let Some(m) = self.module_of(i) else { continue };
            let inst = &self.instances[i];
            let instance_short = match &entries.settings[i].short {
                Some(s) => s.clone(),
                None if inst.name == inst.module_name => String::new(),
                None => short_form(&inst.name, 4),
            };
            let node_short = &self.nodes[inst.node].short;
            let mut login =
                String::with_capacity(node_short.len() + m.slug.len() + instance_short.len() + 2);
            login.push_str(node_short);
            login.push('_');
            login.push_str(&m.slug);
            if !instance_short.is_empty() {
                login.push('_');
                login.push_str(&instance_short);
            }
            if !is_valid_login(&login) {
                let rule = DoesNotFit::Login {
                    login: &login,
                    instance: &self.instances[i].name,
                    node: self.node_name(i),
                    max: LOGIN_MAX,
                };
                let d = self.at(self.head(i), rule);
                refusals.push(i, d);
            } else {
                valid.push(i);
            }
            out.logins[i] = login;
        }
        // Each login's first holder, and every later holder beside the first's: a group
        // is its first holder and the later ones, in instance order.
        let mut first_of: FxHashMap<&str, InstanceId> =
            FxHashMap::with_capacity_and_hasher(valid.len(), Default::default());
        let mut later: Vec<(InstanceId, InstanceId)> = Vec::new();
        for &i in &valid {
            let first = *first_of.entry(out.logins[i].as_str()).or_insert(i);
            if first != i {
                later.push((first, i));
            }
        }
        drop(first_of);
        // Stable: each group's later holders stay in instance order, and the groups come
        // in the order of their first holders, the order their logins were first made.
        later.sort_by_key(|&(first, _)| first);
        let mut shared: Vec<(InstanceId, InstanceId)> = Vec::new();
        // One diagnostic per group, at its first member, naming the others up to
        // [`GROUP_NAMED`] and counting the rest: a thousand instances alike are one
        // diagnostic of bounded size, not a thousand naming a thousand each. Every other
        // member is refused by that same diagnostic (it is listed where they are left
        // out).
        for run in later.chunk_by(|a, b| a.0 == b.0) {
            let first = run[0].0;
            let others: Vec<InstanceId> = run.iter().map(|&(_, j)| j).collect();
            let login = &out.logins[first];
            let mut named: Vec<String> = others
                .iter()
                .take(GROUP_NAMED)
                .map(|&j| self.who(j))
                .collect();
            if others.len() > GROUP_NAMED {
                named.push(format!("{} more", others.len() - GROUP_NAMED));
            }
            let (who, and_others) = (self.who(first), and_list(&named));
            let rule = LoginsAlike {
                login,
                who: &who,
                others: &and_others,
                heads: others
                    .iter()
                    .take(GROUP_NAMED)
                    .map(|&j| self.head(j))
                    .collect(),
            };
            let d = self.at(self.head(first), rule);
            refusals.push(first, d);
            shared.extend(others.iter().map(|&j| (j, first)));
        }
        for (j, first) in shared {
            out.refused_with[j] = Some(first);
        }
        (out, refusals)
    }
}

/// How many other members of a group of alike logins E0509 names; the rest are counted.
const GROUP_NAMED: usize = 8;

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms() {
        assert_eq!(short_form("forge-staging", 4), "forg");
        assert_eq!(short_form("Alpha_1", 6), "alpha1");
        assert_eq!(short_form("PostgreSQL-16", 8), "postgres");
        assert!(is_valid_login("alpha_forge_stg"));
        assert!(!is_valid_login("1alpha"));
        assert!(!is_valid_login("alpha_forge_staging_x"));
    }

    #[test]
    fn a_login_of_exactly_20_is_valid_and_21_is_not() {
        let twenty = "abcdef_abcdefgh_abcd";
        assert_eq!(twenty.len(), LOGIN_MAX);
        assert!(is_valid_login(twenty));
        let twenty_one = format!("{twenty}e");
        assert_eq!(twenty_one.len(), LOGIN_MAX + 1);
        assert!(!is_valid_login(&twenty_one));
        // The longest parts each form allows make a login of exactly 20: the limit
        // is reachable, and a 21st character can only come from a part over its own.
        assert_eq!(6 + 1 + 8 + 1 + 4, LOGIN_MAX);
    }
}
