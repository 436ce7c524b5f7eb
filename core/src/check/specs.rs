//! The containers of a module lowered to typed specs: what the checker decided of each
//! entry, kept for resolution (LANGUAGE.md §5.4, §12, §14.1, §14.2).
//!
//! The checker walks a module's containers once ([`super::containers`]); each decision
//! it takes there (an owner and its group, a mode, a health option's duration, the
//! requirement a `publish` names, the `host access` a mount reads, whether a mount
//! source is an old-form literal path) becomes a field of the entry's spec, and an entry
//! it refuses is kept as [`EntryKind::Refused`], with the proof that its error was
//! reported. The model holds the specs ([`super::semantics::ModuleSemantics::specs`]);
//! resolution builds each instance's containers from them and decides none of it again.
//!
//! What a spec leaves in the tree is what the tree already says and what differs per
//! instance: names and texts as written (a container's name, an env key, a container
//! path the checker accepted) and the expressions, whose values resolution evaluates per
//! instance. A spec names those by place ([`ExprRef`], [`ArgRef`]: an entry and an item,
//! not a position, so the same spec reads a module's tree and its position-free view
//! alike), and [`Written`] hands them back, as rust-analyzer's body lowering names
//! expressions by their id in the body. The model holds a spec for every module of the
//! workspace, so a spec copies no text: an entry is at most 32 bytes.

use crate::diagnostics::Reported;
use crate::syntax::ast::{self, ContainerEntryKind, Expr, Name, StringLit};

/// Where an expression of a container is written: its entry and, in an `env` block, its
/// item (0 for an entry of one value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExprRef {
    entry: u32,
    item: u32,
}

/// One argument of a command or health test: the element of a list written out, or
/// the whole expression (whose value is the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArgRef {
    entry: u32,
    element: u32,
}

/// [`ArgRef::element`] of an argument that is the whole expression.
const WHOLE: u32 = u32::MAX;

/// An entry the checker refused: its error was reported (the proof), and resolution,
/// which never builds a module in error, passes over it.
pub type Refused = Reported;

/// The specs of one module's containers, in source order, and what each of its
/// references reads: what resolution builds and evaluates the module's instances from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleSpecs {
    pub containers: Box<[ContainerSpec]>,
    /// What each reference of the module reads, as the checker decided it
    /// (`check::readings`).
    pub readings: super::readings::Readings,
}

/// One `container` or `job` (its name and keyword: [`Written::name`], [`Written::job`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerSpec {
    /// Its entries: the `k`-th is the container's `k`-th entry as written (its `when`:
    /// [`Written::when`]).
    pub entries: Box<[EntryKind]>,
}

/// What an entry says, as the checker decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// `image "ref"` (a string: [`Written::string`]).
    Image(ExprRef),
    /// `command ARGV`: each argument.
    Command(Box<[ArgRef]>),
    /// `user UID[:GID]`: the uid's expression, and the group written.
    User {
        uid: ExprRef,
        gid: Option<u32>,
    },
    Health(Box<HealthSpec>),
    /// `after NAME…`, as written.
    After(Box<[Name]>),
    /// `env { … }`: its items ([`Written::env`]), and those the checker refused (a key
    /// written twice, a value it refused), by their place in the block, in order; empty,
    /// and allocating nothing, in a module without errors.
    Env(Box<[(u32, Refused)]>),
    Mount(MountSpec),
    Secret(FileSpec),
    File(FileSpec),
    /// `publish REQ`: the requirement, by its index in the module's scope, a `host port`.
    Publish(u32),
    /// `image_paths […]`: read by the checker only.
    ImagePaths,
    /// An entry the checker refused (written twice, or with a value it refuses), or a
    /// mount whose source reads nothing for a cause told before its entry (an unknown
    /// contract at the requirement it reads, a syntax error), on that proof.
    Refused(Refused),
}

/// The refusal of item `item` of an `env` block whose refused items are `refused`.
pub fn env_refused(refused: &[(u32, Refused)], item: u32) -> Option<Refused> {
    refused
        .iter()
        .find(|&&(k, _)| k == item)
        .map(|&(_, proof)| proof)
}

/// `health ARGV [every D] [start D] [retries N]`: the options as written, valid (`None`
/// when not written: the default applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthSpec {
    pub test: Box<[ArgRef]>,
    pub interval: Option<Box<str>>,
    pub start_period: Option<Box<str>>,
    pub retries: Option<i64>,
}

/// `mount SOURCE -> "TARGET" [read_only]` (the target, absolute and normalised:
/// [`Written::target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MountSpec {
    /// The source as written: a reference to a host path, or an old-form literal path.
    pub value: ExprRef,
    pub source: MountSource,
    pub read_only: bool,
}

/// Where a mount's host path comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MountSource {
    /// A reference to a host path (a `host directory`'s or `host access`'s `path`);
    /// `access` is the requirement (by its index in the scope) when it is a `host
    /// access`, whose `write` decides whether the mount is read-only.
    Path { access: Option<u32> },
    /// An old-form literal host path (W0401), absolute and normalised, used as written
    /// ([`Written::literal`]).
    Literal,
}

/// `file "TARGET" [owner UID[:GID]] [mode M] = VALUE`, or `secret "TARGET" …` (the
/// target, absolute and normalised: [`Written::target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSpec {
    pub value: ExprRef,
    /// The owner and group written (the group is the owner's number when not written);
    /// `None`: the container's user owns it.
    pub owner: Option<(u32, u32)>,
    pub mode: Option<u16>,
}

/// One entry of an `env` block, as written.
#[derive(Debug, Clone, Copy)]
pub struct EnvItem<'a> {
    /// Its place in the block (the refused items name it).
    pub item: u32,
    pub key: &'a str,
    pub value: ExprRef,
    /// The `when` block inside `env { }` it stands in.
    pub when: Option<&'a Name>,
    /// `exposed`, and its reason if written.
    pub exposed: Option<Option<&'a StringLit>>,
}

/// What one container writes, found by place: the texts its spec leaves in the tree and
/// the expressions resolution evaluates per instance.
#[derive(Debug, Clone, Copy)]
pub struct Written<'a> {
    container: &'a ast::Container,
}

impl<'a> Written<'a> {
    /// Each container of `module`, in the order of [`ModuleSpecs::containers`].
    pub fn containers(module: &'a ast::Module) -> impl Iterator<Item = Written<'a>> {
        module.containers().map(|container| Written { container })
    }

    /// The container's name.
    pub fn name(self) -> &'a str {
        &self.container.name.name
    }

    /// Whether it is written `job`.
    pub fn job(self) -> bool {
        self.container.job
    }

    /// The optional requirement whose `when` block entry `entry` stands in.
    pub fn when(self, entry: usize) -> Option<&'a Name> {
        let e = self.container.entries.get(entry)?;
        e.when.as_ref().map(|w| &w.requirement.name)
    }

    fn kind(self, entry: u32) -> Option<&'a ContainerEntryKind> {
        self.container.entries.get(entry as usize).map(|e| &e.kind)
    }

    /// The expression at `at`.
    pub fn expr(self, at: ExprRef) -> Option<&'a Expr> {
        Some(match self.kind(at.entry)? {
            ContainerEntryKind::User(u) => &u.uid,
            ContainerEntryKind::Env(entries) => &entries.get(at.item as usize)?.value,
            ContainerEntryKind::Mount(m) => &m.source,
            ContainerEntryKind::Secret(f) | ContainerEntryKind::File(f) => &f.value,
            _ => return None,
        })
    }

    /// The argument at `at`.
    pub fn arg(self, at: ArgRef) -> Option<&'a Expr> {
        let argv = match self.kind(at.entry)? {
            ContainerEntryKind::Command(e) => e,
            ContainerEntryKind::Health(h) => &h.argv,
            _ => return None,
        };
        match (at.element, argv) {
            (WHOLE, e) => Some(e),
            (k, Expr::List(items, _)) => items.get(k as usize),
            _ => None,
        }
    }

    /// The string at `at` (an image).
    pub fn string(self, at: ExprRef) -> Option<&'a StringLit> {
        match self.kind(at.entry)? {
            ContainerEntryKind::Image(s) => Some(s),
            _ => None,
        }
    }

    /// The container path of the mount, file or secret file at `entry`, as written.
    pub fn target(self, entry: ExprRef) -> Option<String> {
        match self.kind(entry.entry)? {
            ContainerEntryKind::Mount(m) => m.target.as_ref()?.as_plain(),
            ContainerEntryKind::Secret(f) | ContainerEntryKind::File(f) => f.target.as_plain(),
            _ => None,
        }
    }

    /// The old-form literal host path of the mount whose source is `at`.
    pub fn literal(self, at: ExprRef) -> Option<String> {
        match self.expr(at)? {
            Expr::Str(s) => s.as_plain(),
            _ => None,
        }
    }

    /// The reference `at` is, as written (`db.password`), if it is one.
    pub fn reference(self, at: ExprRef) -> Option<String> {
        match self.expr(at)? {
            Expr::Ref(r) => Some(r.dotted()),
            _ => None,
        }
    }

    /// The items of the `env` block at `entry`.
    pub fn env(self, entry: usize) -> impl Iterator<Item = EnvItem<'a>> {
        let items: &'a [ast::EnvEntry] = match self.kind(entry as u32) {
            Some(ContainerEntryKind::Env(items)) => items,
            _ => &[],
        };
        items.iter().enumerate().map(move |(k, e)| EnvItem {
            item: k as u32,
            key: &e.key.name,
            value: ExprRef {
                entry: entry as u32,
                item: k as u32,
            },
            when: e.when.as_ref().map(|w| &w.requirement.name),
            exposed: e.exposed.as_ref().map(|x| x.reason.as_ref()),
        })
    }
}

/// The arguments of a command or health test written at `entry`: each element of a
/// list written out, else the one expression (its value the list).
pub(crate) fn arguments(entry: usize, argv: &Expr) -> Box<[ArgRef]> {
    let entry = entry as u32;
    match argv {
        Expr::List(items, _) => (0..items.len())
            .map(|k| ArgRef {
                entry,
                element: k as u32,
            })
            .collect(),
        _ => Box::new([ArgRef {
            entry,
            element: WHOLE,
        }]),
    }
}

/// The place of the value of entry `entry`.
pub(crate) fn at(entry: usize) -> ExprRef {
    ExprRef {
        entry: entry as u32,
        item: 0,
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
        let kinds: Vec<&EntryKind> = c.entries.iter().collect();
        let module = match &db::parse_file(&database, file).file.items[0] {
            ast::Item::Module(m) => m.clone(),
            _ => unreachable!(),
        };
        let written = Written::containers(&module).next().unwrap();
        assert_eq!(written.name(), "app");
        assert!(!written.job());
        // An entry is small: the model holds one per entry of every module.
        assert!(std::mem::size_of::<EntryKind>() <= 32);
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
            .map(|a| match written.arg(*a) {
                Some(Expr::Str(s)) => s.as_plain().unwrap(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(args, ["nginx", "-g", "daemon off;"]);
        assert!(matches!(kinds[2], EntryKind::User { gid: Some(102), .. }));
        let EntryKind::Health(h) = kinds[3] else {
            panic!("{:?}", kinds[3])
        };
        assert_eq!(h.interval.as_deref(), Some("5s"));
        assert_eq!(h.start_period, None);
        assert_eq!(h.retries, Some(4));
        assert_eq!(h.test.len(), 1);
        // A key written twice: the second is refused, the first kept.
        let EntryKind::Env(refused) = kinds[4] else {
            panic!("{:?}", kinds[4])
        };
        let items: Vec<EnvItem> = written.env(4).collect();
        assert_eq!(items.len(), 2);
        assert!(items.iter().all(|e| e.key == "HOST"));
        assert!(env_refused(refused, items[0].item).is_none());
        assert!(env_refused(refused, items[1].item).is_some());
        let EntryKind::Mount(mount) = kinds[5] else {
            panic!("{:?}", kinds[5])
        };
        assert_eq!(written.target(mount.value).as_deref(), Some("/var/lib/app"));
        assert!(mount.read_only);
        assert_eq!(mount.source, MountSource::Path { access: Some(0) });
        // A target that climbs out (E0315): refused, not dropped.
        assert!(matches!(kinds[6], EntryKind::Refused(_)));
        // A plain value in a secret file (E0309): refused.
        assert!(matches!(kinds[7], EntryKind::Refused(_)));
        let EntryKind::File(f) = kinds[8] else {
            panic!("{:?}", kinds[8])
        };
        assert_eq!(written.target(f.value).as_deref(), Some("/etc/app/conf"));
        assert_eq!((f.owner, f.mode), (Some((8, 9)), Some(0o640)));
        assert_eq!(kinds[9], &EntryKind::Publish(1));
        assert!(matches!(kinds[10], EntryKind::Refused(_)));
        assert_eq!(written.when(11).map(|w| w.as_str()), Some("cache"));
        assert_eq!(written.when(10), None);
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

    /// A mount whose source reads nothing, through a requirement of a contract the
    /// workspace lacks or of a kind the language lacks, is refused on the proof of the
    /// error told at that requirement (E0103, E0201), with no diagnostic of its own: the
    /// manifest builder no longer meets a mount that reads nothing (it passed over one
    /// through a gate no input reached, the placements' gate for the same error firing
    /// first).
    #[test]
    fn a_mount_reading_nothing_is_refused_on_the_requirements_error() {
        let text = r#"
module app {
  requires data: host nosuch
  requires more: operatr int
  container app {
    image "nginx:1.27"
    mount data.path -> "/data"
    mount more.path -> "/more"
  }
}
"#;
        let (database, ws) = Database::with_files([(FilePath::from("a.mesh"), Arc::from(text))]);
        let file = ws.files(&database)[1];
        let model = db::module_semantics(&database, ws, file, 0);
        let [c] = &*model.specs.containers else {
            panic!("one container: {:?}", model.specs)
        };
        let kinds: Vec<&EntryKind> = c.entries.iter().collect();
        assert!(matches!(kinds[1], EntryKind::Refused(_)), "{:?}", kinds[1]);
        assert!(matches!(kinds[2], EntryKind::Refused(_)), "{:?}", kinds[2]);
        let codes: Vec<&str> = model.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert!(codes.contains(&"E0103"), "{codes:?}");
        assert!(codes.contains(&"E0201"), "{codes:?}");
        // The refusal rests on the requirements' errors: the mounts tell nothing more.
        assert!(!codes.contains(&"E0317"), "{codes:?}");
    }

    /// A module of the workspace, one that reads another's answer, and a mesh that
    /// assigns both and a module the workspace lacks (E0106).
    const CHECKED: [(&str, &str); 2] = [
        (
            "app.mesh",
            "contract store for module {\n  url: string\n}\n\nmodule storage {\n  container storage {\n    image \"minio:1.0\"\n  }\n  provides store {\n    url = \"http://storage:9000\"\n  }\n}\n\nmodule web {\n  requires store: module store\n  container web {\n    image \"web:1.0\"\n    env { URL = \"${store.url}/web\" }\n  }\n}\n",
        ),
        (
            "lab.mesh",
            "mesh lab {\n  node alpha { private_name = \"alpha.internal\"  ports = 20000..20999 }\n  assign storage to alpha\n  assign web to alpha\n  assign nope to alpha\n}\n",
        ),
    ];

    /// `meshc check` builds nothing: its modules' checks keep no container specs, but
    /// the readings a mesh's check evaluates by, and every diagnostic, are those of a
    /// workspace that builds.
    #[test]
    fn a_workspace_only_checked_keeps_the_readings_but_no_container_specs() {
        let open = |checks_only| {
            let (database, ws, refused) = Database::read_files(&CHECKED, checks_only, |f| {
                Ok::<_, ()>((FilePath::from(f.0), Arc::from(f.1)))
            });
            assert!(refused.is_empty());
            assert_eq!(ws.checks_only(&database), checks_only);
            (database, ws)
        };
        let specs = |(database, ws): &(Database, db::Workspace)| -> Vec<Arc<ModuleSpecs>> {
            let file = ws.files(database)[1];
            // Items 1 and 2 of the file: `storage` and `web`.
            (1..3)
                .map(|item| db::module_specs(database, *ws, file, item))
                .collect()
        };
        let (built, checked) = (open(false), open(true));
        let (built_specs, checked_specs) = (specs(&built), specs(&checked));
        for (b, c) in built_specs.iter().zip(&checked_specs) {
            assert_eq!(b.containers.len(), 1, "{b:?}");
            assert!(c.containers.is_empty(), "{c:?}");
            assert_eq!(b.readings, c.readings);
        }
        assert!(
            !checked_specs[1].readings.entries().is_empty(),
            "`web` reads `store.url`"
        );
        let diagnostics = db::workspace_diagnostics_once(&checked.0, checked.1);
        assert!(
            diagnostics.iter().any(|d| d.code.to_string() == "E0106"),
            "{diagnostics:?}"
        );
        assert_eq!(
            diagnostics,
            db::workspace_diagnostics_once(&built.0, built.1)
        );
    }
}
