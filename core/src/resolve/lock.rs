//! The lock file, `<mesh file>.lock`: the host ports `meshc build` chose, so they stay
//! where they are when assignments come and go (LANGUAGE.md §7).
//!
//! ```json
//! {
//!   "ports": {
//!     "alpha/forge/http": 20000
//!   }
//! }
//! ```
//!
//! Keys are `<node>/<instance>/<requirement>`, sorted; only ports the build chose are
//! kept (a placed port is the assignment's, not the lock's).

use crate::diagnostics::rules::LockChange;
use std::collections::BTreeMap;

/// What one instance wrote: container → the paths of its files and secret files, in the
/// containers' order. Written and read as the map it is; kept as a sorted list, because
/// an instance writes one container or two and a map's node holds room for eleven (a
/// 10,000-instance mesh's record, read from the lock and made again by the build, was
/// about 5 MB of empty room each).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct WrittenBy(Vec<(String, Vec<String>)>);

impl WrittenBy {
    /// The paths container `container` wrote.
    pub fn get(&self, container: &str) -> Option<&Vec<String>> {
        self.0
            .binary_search_by(|(c, _)| c.as_str().cmp(container))
            .ok()
            .map(|at| &self.0[at].1)
    }

    /// Every container and its paths, in the containers' order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Vec<String>)> {
        self.0.iter().map(|(c, paths)| (c, paths))
    }
}

/// As a map is made: in key order, the last of two values of one container kept.
impl FromIterator<(String, Vec<String>)> for WrittenBy {
    fn from_iter<I: IntoIterator<Item = (String, Vec<String>)>>(items: I) -> Self {
        let mut all: Vec<(String, Vec<String>)> = items.into_iter().collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        // Of a run of one container, `dedup_by` keeps the first: the run is reversed
        // first so that the last given is the one kept.
        all.reverse();
        all.dedup_by(|a, b| a.0 == b.0);
        all.reverse();
        all.shrink_to_fit();
        WrittenBy(all)
    }
}

impl std::ops::Index<&str> for WrittenBy {
    type Output = Vec<String>;
    fn index(&self, container: &str) -> &Vec<String> {
        self.get(container).expect("a container the record holds")
    }
}

impl serde::Serialize for WrittenBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for WrittenBy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Reads the map's entries into the list, with no map in between.
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = WrittenBy;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of containers to lists of paths")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<WrittenBy, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(16));
                while let Some(entry) = map.next_entry::<String, Vec<String>>()? {
                    entries.push(entry);
                }
                Ok(entries.into_iter().collect())
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The ports a previous build chose, and what each instance's last build wrote. Sorted,
/// so its text is deterministic.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Lock {
    /// `<node>/<instance>/<requirement>` → host port.
    pub ports: BTreeMap<String, u16>,
    /// `<node>/<instance>` → container name → the file and secret-file paths (inside the
    /// container) its last build wrote. A later build that no longer names one lists it
    /// in the manifest's `retired` (LANGUAGE.md §13.4).
    pub written: BTreeMap<String, WrittenBy>,
}

impl Lock {
    /// An empty lock: no port chosen yet.
    pub fn new() -> Lock {
        Lock::default()
    }

    /// The key of a port requirement.
    pub fn key(node: &str, instance: &str, requirement: &str) -> String {
        super::slash_joined(&[node, instance, requirement])
    }

    /// Reads a lock file's text. An empty text is an empty lock.
    pub fn parse(text: &str) -> Result<Lock, String> {
        if text.trim().is_empty() {
            return Ok(Lock::default());
        }
        // A lock meshc wrote reads straight into its maps (a large mesh's lock is a
        // megabyte); anything else is read again as a JSON value, to say what is wrong.
        if let Some(lock) = Lock::parse_typed(text) {
            return Ok(lock);
        }
        Lock::parse_value(text)
    }

    /// The lock `text` holds, if it is well formed; read without a JSON value in between.
    fn parse_typed(text: &str) -> Option<Lock> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Text {
            #[serde(default)]
            ports: BTreeMap<String, u16>,
            #[serde(default)]
            written: BTreeMap<String, WrittenBy>,
        }
        // A struct reads from an array too; a lock is an object.
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let Text { ports, written } = serde_json::from_str(text).ok()?;
        let well_formed = ports.iter().all(|(k, &p)| p >= 1 && has_parts(k, 3))
            && written.keys().all(|k| has_parts(k, 2));
        well_formed.then_some(Lock { ports, written })
    }

    /// [`Lock::parse`] through a JSON value: slower, and says what is wrong.
    fn parse_value(text: &str) -> Result<Lock, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("the lock file is not JSON: {e}"))?;
        let serde_json::Value::Object(top) = value else {
            return Err("the lock file is not a JSON object".into());
        };
        let mut lock = Lock::default();
        for (key, v) in top {
            if key == "written" {
                lock.written = parse_written(v)?;
                continue;
            }
            if key != "ports" {
                return Err(format!(
                    "the lock file has an unknown entry `{key}`; it holds only `ports` and `written`"
                ));
            }
            let serde_json::Value::Object(ports) = v else {
                return Err("`ports` in the lock file is not an object".into());
            };
            for (k, p) in ports {
                if !has_parts(&k, 3) {
                    return Err(format!(
                        "the lock file's key `{k}` is not `<node>/<instance>/<requirement>`"
                    ));
                }
                let port = p
                    .as_u64()
                    .filter(|p| (1..=65535).contains(p))
                    .ok_or_else(|| format!("the lock file's port for `{k}` is not in 1..65535"))?;
                lock.ports.insert(k, port as u16);
            }
        }
        Ok(lock)
    }

    /// The lock file's text: pretty JSON, keys sorted, with a trailing newline.
    pub fn to_text(&self) -> String {
        Lock::text(&self.ports, &self.written)
    }

    /// The text of a lock holding `ports` and `written`, written from them as they are
    /// (a large mesh's lock is a megabyte: no copy of it is made first).
    pub fn text(ports: &BTreeMap<String, u16>, written: &BTreeMap<String, WrittenBy>) -> String {
        #[derive(serde::Serialize)]
        struct Text<'a> {
            ports: &'a BTreeMap<String, u16>,
            #[serde(skip_serializing_if = "none_written")]
            written: &'a BTreeMap<String, WrittenBy>,
        }
        fn none_written(written: &&BTreeMap<String, WrittenBy>) -> bool {
            written.is_empty()
        }
        let mut text = serde_json::to_string_pretty(&Text { ports, written })
            .expect("a lock always serialises");
        text.push('\n');
        text
    }

    /// What differs between `self` (the lock read) and `next` (the lock a build would
    /// write), one change per key, in key order (E0510 says each). Empty when they agree.
    pub fn changes<'a>(&'a self, next: &'a Lock) -> Vec<LockChange<'a>> {
        let mut out = Vec::new();
        for (key, &port) in &next.ports {
            match self.ports.get(key) {
                None => out.push(LockChange::Given { key, port }),
                Some(&from) if from != port => out.push(LockChange::Moved {
                    key,
                    from,
                    to: port,
                }),
                Some(_) => {}
            }
        }
        for key in self.ports.keys() {
            if !next.ports.contains_key(key) {
                out.push(LockChange::Dropped { key });
            }
        }
        out
    }
}

/// Whether lock key `key` is `n` non-empty parts joined by `/`.
fn has_parts(key: &str, n: usize) -> bool {
    key.split('/').count() == n && !key.split('/').any(str::is_empty)
}

/// Reads `written`: `{"<node>/<instance>": {"<container>": ["/path", …]}}`.
fn parse_written(v: serde_json::Value) -> Result<BTreeMap<String, WrittenBy>, String> {
    let bad = |what: &str| format!("`written` in the lock file {what}");
    let serde_json::Value::Object(instances) = v else {
        return Err(bad("is not an object"));
    };
    let mut out = BTreeMap::new();
    for (k, containers) in instances {
        if !has_parts(&k, 2) {
            return Err(bad(&format!(
                "has a key `{k}` that is not `<node>/<instance>`"
            )));
        }
        let serde_json::Value::Object(containers) = containers else {
            return Err(bad(&format!("holds no object of containers under `{k}`")));
        };
        let mut by_container = BTreeMap::new();
        for (c, paths) in containers {
            let serde_json::Value::Array(paths) = paths else {
                return Err(bad(&format!("holds no list of paths for `{k}` `{c}`")));
            };
            let paths = paths
                .into_iter()
                .map(|p| match p {
                    serde_json::Value::String(s) => Ok(s),
                    _ => Err(bad(&format!(
                        "holds a path of `{k}` `{c}` that is not text"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            by_container.insert(c, paths);
        }
        out.insert(k, by_container.into_iter().collect());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_sorted() {
        let mut lock = Lock::new();
        lock.ports.insert("beta/pg/p".into(), 20001);
        lock.ports.insert("alpha/forge/http".into(), 20000);
        let text = lock.to_text();
        assert_eq!(
            text,
            "{\n  \"ports\": {\n    \"alpha/forge/http\": 20000,\n    \"beta/pg/p\": 20001\n  }\n}\n"
        );
        assert_eq!(Lock::parse(&text).unwrap(), lock);
        assert_eq!(Lock::parse("").unwrap(), Lock::new());
        assert_eq!(Lock::parse("{}").unwrap(), Lock::new());
    }

    #[test]
    fn refuses_what_is_not_a_lock() {
        assert!(Lock::parse("[]").is_err());
        assert!(Lock::parse("{\"ports\": {\"a/b\": 1}}").is_err());
        assert!(Lock::parse("{\"ports\": {\"a/b/c\": 70000}}").is_err());
        assert!(Lock::parse("{\"other\": {}}").is_err());
        assert!(Lock::parse("{\"written\": {\"a\": {}}}").is_err());
        assert!(Lock::parse("{\"written\": {\"a/b\": {\"c\": [1]}}}").is_err());
        assert!(Lock::parse("{").is_err());
        assert!(Lock::parse("{\"ports\": {\"a/b/c\": 0}}").is_err());
        assert!(Lock::parse("{\"ports\": {\"a//c\": 1}}").is_err());
        assert!(Lock::parse("{\"written\": {\"a/\": {}}}").is_err());
    }

    #[test]
    fn both_readings_agree() {
        // The typed reading and the JSON-value reading give the same lock, and a lock
        // the typed reading refuses gets the value reading's message.
        let text = "{\"ports\": {\"n/i/r\": 20000, \"m/j/s\": 1}, \"written\": {\"n/i\": {\"c\": [\"/a\", \"/b\"]}}}";
        let typed = Lock::parse_typed(text).expect("a well-formed lock");
        assert_eq!(Lock::parse_value(text).unwrap(), typed);
        assert_eq!(typed.ports.len(), 2);
        assert_eq!(typed.written["n/i"]["c"], ["/a", "/b"]);
        let bad = "{\"ports\": {\"a/b\": 1}}";
        assert!(Lock::parse_typed(bad).is_none());
        assert!(Lock::parse_typed("[{}, {}]").is_none());
        assert_eq!(
            Lock::parse(bad).unwrap_err(),
            "the lock file's key `a/b` is not `<node>/<instance>/<requirement>`"
        );
    }

    /// What an instance wrote is kept as a sorted list and written and read as the map it
    /// was: the same text as a map's, and, as a map is made, the last of two values of one
    /// container kept.
    #[test]
    fn what_an_instance_wrote_reads_and_writes_as_a_map() {
        let pairs = [("web", "/b"), ("api", "/a"), ("web", "/c")];
        let pairs = || {
            pairs
                .iter()
                .map(|&(c, p)| (c.to_string(), vec![p.to_string()]))
        };
        let written: WrittenBy = pairs().collect();
        let map: BTreeMap<String, Vec<String>> = pairs().collect();
        let text = serde_json::to_string_pretty(&written).unwrap();
        assert_eq!(text, serde_json::to_string_pretty(&map).unwrap());
        assert_eq!(written["web"], ["/c"]);
        assert_eq!(written.get("db"), None);
        assert_eq!(serde_json::from_str::<WrittenBy>(&text).unwrap(), written);
    }

    #[test]
    fn remembers_what_was_written() {
        let mut lock = Lock::new();
        lock.written.insert(
            "alpha/forge".into(),
            WrittenBy::from_iter([("forge".to_string(), vec!["/etc/app.ini".to_string()])]),
        );
        let text = lock.to_text();
        assert!(text.contains("\"written\""), "{text}");
        assert_eq!(Lock::parse(&text).unwrap(), lock);
    }

    #[test]
    fn says_what_changes() {
        let mut a = Lock::new();
        a.ports.insert("n/i/old".into(), 1);
        a.ports.insert("n/i/same".into(), 2);
        let mut b = Lock::new();
        b.ports.insert("n/i/same".into(), 2);
        b.ports.insert("n/i/new".into(), 3);
        let changes: Vec<String> = a.changes(&b).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "`n/i/new` would be given host port 3",
                "`n/i/old` would be dropped (no such port requirement)"
            ]
        );
        assert!(a.changes(&a).is_empty());
    }
}
