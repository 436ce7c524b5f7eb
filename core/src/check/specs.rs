//! The containers of a module lowered to typed specs: what the checker decided of each
//! entry, kept for resolution (LANGUAGE.md §5.4, §12, §14.1, §14.2).
//!
//! The checker walks a module's containers once ([`super::containers`]); each decision
//! it takes there (a container path normalised, an owner in the uid range, a mode, a
//! health option's duration, the requirement a `publish` names, the `host access` a
//! mount reads) becomes a field of the entry's spec, and an entry it refuses is kept as
//! [`Refused`], with the proof that its error was reported. The model holds the specs
//! ([`super::semantics::ModuleSemantics::specs`]); resolution builds each instance's
//! containers from them and decides none of it again.
//!
//! What a spec leaves to resolution is what differs per instance: the values of
//! expressions. Those stay in the tree, named by an [`ExprRef`] (a place, not a
//! position: the same spec reads a module's tree and its position-free view alike), and
//! [`Written`] hands each one back for evaluation, as rust-analyzer's body lowering names
//! expressions by their id in the body.

use crate::diagnostics::Reported;
use crate::syntax::ast::{self, ContainerEntryKind, Expr, Name, StringLit};

/// Where an expression of a container is written: its entry, the item inside the entry
/// (an `env` entry's place in its block; 0 for an entry of one value) and, for one
/// argument of a command written as a list, its place in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExprRef {
    entry: u32,
    item: u32,
    element: u32,
}

/// [`ExprRef::element`] of an expression taken whole.
const WHOLE: u32 = u32::MAX;

impl ExprRef {
    fn new(entry: usize, item: usize) -> ExprRef {
        ExprRef {
            entry: entry as u32,
            item: item as u32,
            element: WHOLE,
        }
    }

    fn element(self, element: usize) -> ExprRef {
        ExprRef {
            element: element as u32,
            ..self
        }
    }
}

/// An entry the checker refused: its error was reported (the proof), and resolution,
/// which never builds a module in error, passes over it.
pub type Refused = Reported;

/// The specs of one module's containers, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleSpecs {
    pub containers: Box<[ContainerSpec]>,
}

/// One `container` or `job`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerSpec {
    pub name: Name,
    /// Written `job`.
    pub job: bool,
    /// Its entries, in source order.
    pub entries: Box<[EntrySpec]>,
}

/// One entry of a container, and the optional requirement whose `when` block it stands
/// in (LANGUAGE.md §12.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySpec {
    pub when: Option<Name>,
    pub kind: EntryKind,
}

/// What an entry says, as the checker decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// `image "ref"` (a string: [`Written::string`]).
    Image(ExprRef),
    /// `command ARGV`: each argument's expression (a list written element by element, or
    /// one expression whose value is the list).
    Command(Box<[ExprRef]>),
    /// `user UID[:GID]`: the uid's expression, and the group written.
    User(Box<(ExprRef, Option<i64>)>),
    Health(Box<HealthSpec>),
    /// `after NAME…`, as written.
    After(Box<[Name]>),
    Env(EnvSpec),
    Mount(Box<MountSpec>),
    Secret(Box<FileSpec>),
    File(Box<FileSpec>),
    /// `publish REQ`: the requirement, by its index in the module's scope, a `host port`.
    Publish(u32),
    /// `image_paths […]`: read by the checker only.
    ImagePaths,
    /// An entry the checker refused (written twice, or with a value it refuses).
    Refused(Refused),
    /// A mount whose source reads nothing though this module reported no error for it:
    /// its cause is told where it lies (a contract's file). No proof is at hand, so
    /// resolution leaves the mount out, as it always has (docs/architecture.md,
    /// invariant 4, lists it).
    ReadsNothing,
}

/// `health ARGV [every D] [start D] [retries N]`: the options as written, valid (`None`
/// when not written: the default applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthSpec {
    pub test: Box<[ExprRef]>,
    pub interval: Option<Box<str>>,
    pub start_period: Option<Box<str>>,
    pub retries: Option<i64>,
}

/// `env { KEY = VALUE … }`: the block's entries are read from the tree
/// ([`Written::env`]), each with its key, its `when` and its `exposed` reason as written;
/// what the checker decided of them is which it refused. A spec of its own per entry
/// would double what the model holds of most modules (twelve env entries each on the
/// benchmark's workload) for names the tree already holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSpec {
    /// The entry's place among the container's entries.
    entry: u32,
    /// The items the checker refused (a key written twice, a value it refused), by their
    /// place in the block, in order; empty, and holding nothing, in a module without
    /// errors.
    refused: Box<[(u32, Refused)]>,
}

impl EnvSpec {
    /// The refusal of item `item`, if the checker refused it.
    pub fn refused(&self, item: u32) -> Option<Refused> {
        self.refused
            .iter()
            .find(|&&(k, _)| k == item)
            .map(|&(_, refused)| refused)
    }
}

/// One entry of an `env` block, as written.
#[derive(Debug, Clone, Copy)]
pub struct EnvItem<'a> {
    /// Its place in the block ([`EnvSpec::refused`]).
    pub item: u32,
    pub key: &'a str,
    pub value: ExprRef,
    /// The `when` block inside `env { }` it stands in.
    pub when: Option<&'a Name>,
    /// `exposed`, and its reason if written.
    pub exposed: Option<Option<&'a StringLit>>,
}

/// `mount SOURCE -> "TARGET" [read_only]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountSpec {
    pub source: MountSource,
    /// The container path, absolute and normalised.
    pub target: Box<str>,
    pub read_only: bool,
}

/// Where a mount's host path comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountSource {
    /// A reference to a host path (a `host directory`'s or `host access`'s `path`);
    /// `access` is the requirement (by its index in the scope) when it is a `host
    /// access`, whose `write` decides whether the mount is read-only.
    Path { value: ExprRef, access: Option<u32> },
    /// An old-form literal host path (W0401), absolute and normalised.
    Literal(Box<str>),
}

/// `file "TARGET" [owner UID[:GID]] [mode M] = VALUE`, or `secret "TARGET" …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    /// The container path, absolute and normalised.
    pub target: Box<str>,
    /// The owner and group written (the group is the owner's number when not written);
    /// `None`: the container's user owns it.
    pub owner: Option<(i64, i64)>,
    pub mode: Option<i64>,
    pub value: ExprRef,
    /// The value's reference as written (`db.password`), when it is one: a sealed file
    /// names it in its template.
    pub reference: Option<Box<str>>,
}

/// The expressions one container writes, found by their [`ExprRef`]: what resolution
/// evaluates per instance.
#[derive(Debug, Clone, Copy)]
pub struct Written<'a> {
    entries: &'a [ast::ContainerEntry],
}

impl<'a> Written<'a> {
    /// The expressions of each container of `module`, in the order of
    /// [`ModuleSpecs::containers`].
    pub fn containers(module: &'a ast::Module) -> impl Iterator<Item = Written<'a>> {
        module.containers().map(|c| Written {
            entries: &c.entries,
        })
    }

    /// The expression at `at`.
    pub fn expr(self, at: ExprRef) -> Option<&'a Expr> {
        let whole = match &self.entries.get(at.entry as usize)?.kind {
            ContainerEntryKind::Command(e) | ContainerEntryKind::ImagePaths(e) => e,
            ContainerEntryKind::User(u) => &u.uid,
            ContainerEntryKind::Health(h) => &h.argv,
            ContainerEntryKind::Env(entries) => &entries.get(at.item as usize)?.value,
            ContainerEntryKind::Mount(m) => &m.source,
            ContainerEntryKind::Secret(f) | ContainerEntryKind::File(f) => &f.value,
            ContainerEntryKind::Image(_)
            | ContainerEntryKind::Publish(_)
            | ContainerEntryKind::After(_) => return None,
        };
        match (at.element, whole) {
            (WHOLE, e) => Some(e),
            (k, Expr::List(items, _)) => items.get(k as usize),
            _ => None,
        }
    }

    /// The entries of the `env` block `env`.
    pub fn env(self, env: &EnvSpec) -> impl Iterator<Item = EnvItem<'a>> {
        let items: &'a [ast::EnvEntry] = match self.entries.get(env.entry as usize).map(|e| &e.kind)
        {
            Some(ContainerEntryKind::Env(items)) => items,
            _ => &[],
        };
        let entry = env.entry as usize;
        items.iter().enumerate().map(move |(k, e)| EnvItem {
            item: k as u32,
            key: &e.key.name,
            value: ExprRef::new(entry, k),
            when: e.when.as_ref().map(|w| &w.requirement.name),
            exposed: e.exposed.as_ref().map(|x| x.reason.as_ref()),
        })
    }

    /// The string at `at` (an image).
    pub fn string(self, at: ExprRef) -> Option<&'a StringLit> {
        match &self.entries.get(at.entry as usize)?.kind {
            ContainerEntryKind::Image(s) => Some(s),
            _ => None,
        }
    }
}

/// The arguments of a command or health test written at `entry`: each element of a
/// list written out, else the one expression (its value the list).
pub(crate) fn arguments(entry: usize, argv: &Expr) -> Box<[ExprRef]> {
    let at = ExprRef::new(entry, 0);
    match argv {
        Expr::List(items, _) => (0..items.len()).map(|k| at.element(k)).collect(),
        _ => Box::new([at]),
    }
}

/// The place of the value of entry `entry`.
pub(crate) fn at(entry: usize) -> ExprRef {
    ExprRef::new(entry, 0)
}

/// The spec of the `env` block at `entry`, the items the checker refused given.
pub(crate) fn env(entry: usize, mut refused: Vec<(u32, Refused)>) -> EnvSpec {
    refused.sort_by_key(|&(k, _)| k);
    EnvSpec {
        entry: entry as u32,
        refused: refused.into_boxed_slice(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};
    use crate::span::FilePath;
    use std::sync::Arc;

    const TEXT: &str = r#"
module app {
  requires data: host access
  requires http: host port { container = 8080 }
  requires cache: optional module valkey
  container app {
    image "nginx:1.27"
    command ["nginx", "-g", "daemon off;"]
    user 101:102
    health ["true"] every "5s" retries 4
    env {
      HOST = "a"
      HOST = "b"
    }
    mount data.path -> "/var/lib/app" read_only
    mount data.path -> "/etc/app/../../shadow"
    secret "/run/app/key" owner 7 mode 0o400 = "plain"
    file "/etc/app/conf" owner 8:9 mode 0o640 = "x"
    publish http
    publish nope
    when cache {
      image_paths ["/opt"]
    }
  }
}
"#;

    /// The checker's decisions are the specs' fields: owners and modes, health options,
    /// a container path normalised, the `host access` a mount reads, the requirement a
    /// `publish` names; and each entry it refuses is kept refused, its diagnostic in the
    /// model, instead of dropped.
    #[test]
    fn container_entries_are_lowered_with_the_checkers_decisions_and_refusals_kept() {
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(TEXT))]);
        let file = ws.files(&database)[1];
        let model = db::module_semantics(&database, ws, file, 0);
        assert!(Arc::ptr_eq(
            &model.specs,
            &db::module_specs(&database, ws, file, 0)
        ));
        let [c] = &*model.specs.containers else {
            panic!("one container: {:?}", model.specs)
        };
        assert_eq!(c.name, "app");
        let kinds: Vec<&EntryKind> = c.entries.iter().map(|e| &e.kind).collect();
        let module = match &db::parse_file(&database, file).file.items[0] {
            ast::Item::Module(m) => m.clone(),
            _ => unreachable!(),
        };
        let written = Written::containers(&module).next().unwrap();
        // The image, and each argument of the command, found in the tree.
        let EntryKind::Image(image) = kinds[0] else {
            panic!("{:?}", kinds[0])
        };
        assert_eq!(
            written
                .string(*image)
                .and_then(StringLit::as_plain)
                .as_deref(),
            Some("nginx:1.27")
        );
        let EntryKind::Command(args) = kinds[1] else {
            panic!("{:?}", kinds[1])
        };
        let args: Vec<String> = args
            .iter()
            .map(|a| match written.expr(*a) {
                Some(Expr::Str(s)) => s.as_plain().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(args, ["nginx", "-g", "daemon off;"]);
        assert!(matches!(kinds[2], EntryKind::User(u) if u.1 == Some(102)));
        let EntryKind::Health(h) = kinds[3] else {
            panic!("{:?}", kinds[3])
        };
        assert_eq!(h.interval.as_deref(), Some("5s"));
        assert_eq!(h.start_period, None);
        assert_eq!(h.retries, Some(4));
        assert_eq!(h.test.len(), 1);
        // A key written twice: the second is refused, the first kept.
        let EntryKind::Env(env) = kinds[4] else {
            panic!("{:?}", kinds[4])
        };
        let items: Vec<EnvItem> = written.env(env).collect();
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|e| e.key == "HOST"));
        assert!(env.refused(items[0].item).is_none());
        assert!(env.refused(items[1].item).is_some());
        let EntryKind::Mount(mount) = kinds[5] else {
            panic!("{:?}", kinds[5])
        };
        assert_eq!(&*mount.target, "/var/lib/app");
        assert!(mount.read_only);
        assert!(matches!(
            mount.source,
            MountSource::Path {
                access: Some(0),
                ..
            }
        ));
        // A target that climbs out (E0315): refused, not dropped.
        assert!(matches!(kinds[6], EntryKind::Refused(_)));
        // A plain value in a secret file (E0309): refused.
        assert!(matches!(kinds[7], EntryKind::Refused(_)));
        let EntryKind::File(f) = kinds[8] else {
            panic!("{:?}", kinds[8])
        };
        assert_eq!(
            (&*f.target, f.owner, f.mode),
            ("/etc/app/conf", Some((8, 9)), Some(0o640))
        );
        assert_eq!(kinds[9], &EntryKind::Publish(1));
        assert!(matches!(kinds[10], EntryKind::Refused(_)));
        assert_eq!(c.entries[11].when.as_deref(), Some("cache"));
        // Every refusal is the model's diagnostic.
        let codes: Vec<String> = model
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code.to_string())
            .collect();
        for code in ["E0102", "E0315", "E0309", "E0104"] {
            assert!(codes.iter().any(|c| c == code), "{code} in {codes:?}");
        }
    }
}
