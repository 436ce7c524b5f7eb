//! Output targets: what `meshc build --target NAME` writes besides the manifests.
//!
//! Resolution makes one manifest per node and the facts of every node ([`NodeFacts`]), and
//! names no file. A build hands each node's manifest, as soon as it is made, to a
//! [`Build`], which writes `NODE.json` and asks the chosen [`Target`] for the node's own
//! files; once every node is built, the target may add files of the whole mesh. The
//! binary chooses the target by name from [`TARGETS`] and writes what the build gives
//! through a [`FileSink`] (its atomic, all-or-nothing staging).
//!
//! A new target (Kubernetes, Podman…) is one file here implementing [`Target`] and one
//! entry in [`TARGETS`]; nothing below this layer knows targets exist.

pub mod compose;
pub mod swarm;

use crate::emit::{self, Manifest, NodeFacts};
use crate::resolve::ManifestSink;

/// A file a target writes: its path relative to the output folder, and its bytes.
pub type OutputFile = (String, Vec<u8>);

/// What a target makes of a mesh's manifests.
///
/// A node's files are named `NODE/<name>` (one folder per node, files directly in it):
/// `meshc build` records them as that node's in its ownership index and removes them when
/// the node leaves the mesh. A file of the whole mesh ([`Target::mesh_files`]) is named by
/// the target in a folder of its own.
pub trait Target: Sync {
    /// The files of `manifest`'s node. Called once per node, on the thread that built it,
    /// in any order; `manifest.digest` is filled in; `nodes` are the facts of every node
    /// of the mesh, in its order.
    fn node_files(&self, manifest: &Manifest, nodes: &[NodeFacts]) -> Vec<OutputFile>;

    /// Whether [`Target::node_files`] reads the manifest's `instances`. A target that
    /// does not is given each manifest without them: the build then writes every
    /// instance as it is built and never holds a node's instances together.
    fn reads_instances(&self) -> bool {
        true
    }

    /// The files of the whole mesh, once every node's manifest went through
    /// [`Target::node_files`] (a target that needs them keeps what it needs of each,
    /// behind a lock: one value of the target serves one build).
    fn mesh_files(&self, _nodes: &[NodeFacts]) -> Vec<OutputFile> {
        Vec::new()
    }
}

/// A target as `--target` names it.
pub struct Registered {
    /// The value of `--target`.
    pub name: &'static str,
    /// One line for `meshc build --help`.
    pub about: &'static str,
    /// A target for one build.
    pub make: fn() -> Box<dyn Target>,
}

/// Every target, the default first. Add a target here.
pub const TARGETS: &[Registered] = &[
    Registered {
        name: "manifest",
        about: "`<node>.json` per node.",
        make: || Box::new(Manifests),
    },
    Registered {
        name: "compose",
        about: "`<node>.json` and `<node>/compose.yaml` per node.",
        make: || Box::new(compose::Compose),
    },
    Registered {
        name: "swarm",
        about: "`<node>.json` per node and `swarm/stack.yaml`: one Docker Swarm stack for the whole mesh (see `meshc render --swarm`).",
        make: || Box::<swarm::Swarm>::default(),
    },
];

/// The target `--target NAME` names.
pub fn find(name: &str) -> Option<&'static Registered> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The manifests alone.
struct Manifests;

impl Target for Manifests {
    fn node_files(&self, _: &Manifest, _: &[NodeFacts]) -> Vec<OutputFile> {
        Vec::new()
    }

    fn reads_instances(&self) -> bool {
        false
    }
}

/// Where a build's files go, one at a time, as each node's are made: called from the
/// thread that made them, in any order, each name once. The binary writes them.
pub trait FileSink: Sync {
    /// Takes the bytes of file `name` (a buffer the thread may reuse for the next file).
    fn put(&self, name: &str, bytes: &[u8]);

    /// File `name`, written middle first (see [`emit::PartsFile`]): a manifest written
    /// instance by instance, whose head holds the digest of every instance. A sink that
    /// can should set the middle aside as it comes rather than hold it; this one holds it
    /// and puts the whole file at the end.
    fn put_parts(&self, name: &str) -> Box<dyn emit::PartsFile + '_> {
        Box::new(HeldParts {
            sink: self,
            name: name.to_string(),
            middle: Vec::new(),
        })
    }
}

/// A file written middle first, its middle held until its end, then put whole.
struct HeldParts<'s, S: ?Sized> {
    sink: &'s S,
    name: String,
    middle: Vec<u8>,
}

impl<S: FileSink + ?Sized> emit::PartsFile for HeldParts<'_, S> {
    fn middle(&mut self, bytes: &[u8]) {
        self.middle.extend_from_slice(bytes);
    }

    fn end(self: Box<Self>, head: &[u8], tail: &[u8]) {
        self.sink
            .put(&self.name, &[head, &self.middle, tail].concat());
    }
}

/// A build's writer: each node's manifest as `NODE.json` and its target's files, to
/// `files`. Resolution gives it the manifests ([`ManifestSink`]); the caller calls
/// [`Build::finish`] once resolution is done.
pub struct Build<'a> {
    target: &'a dyn Target,
    files: &'a dyn FileSink,
}

impl<'a> Build<'a> {
    pub fn new(target: &'a dyn Target, files: &'a dyn FileSink) -> Self {
        Build { target, files }
    }

    /// Writes the files of the whole mesh (see [`Target::mesh_files`]).
    pub fn finish(&self, nodes: &[NodeFacts]) {
        for (name, bytes) in self.target.mesh_files(nodes) {
            self.files.put(&name, &bytes);
        }
    }
}

impl Build<'_> {
    /// Writes the target's files of node `node`, after its manifest.
    fn node_files(&self, manifest: &Manifest, nodes: &[NodeFacts]) {
        for (file, bytes) in self.target.node_files(manifest, nodes) {
            debug_assert!(
                file.strip_prefix(&manifest.node)
                    .and_then(|f| f.strip_prefix('/'))
                    .is_some_and(|f| !f.is_empty() && !f.contains('/')),
                "a node's file is NODE/<name>: {file}"
            );
            self.files.put(&file, &bytes);
        }
    }
}

impl ManifestSink for Build<'_> {
    fn node(&self, mut manifest: Manifest, nodes: &[NodeFacts]) {
        // Serialised into one buffer per thread, the digest worked out in the same walk,
        // and written while the other threads build: only the bytes of the nodes in hand
        // are ever held.
        thread_local! {
            static JSON: std::cell::RefCell<Vec<u8>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        JSON.with_borrow_mut(|json| {
            json.clear();
            manifest.digest = emit::write_pretty_with_digest(&manifest, json);
            self.files.put(&format!("{}.json", manifest.node), json);
        });
        // The target reads the manifest after it is written: its tree is dropped after.
        self.node_files(&manifest, nodes);
    }

    fn writer(&self, node: &str) -> Option<emit::ManifestWriter<'_>> {
        // A target that reads the instances is given the manifest whole.
        (!self.target.reads_instances())
            .then(|| emit::ManifestWriter::to(self.files.put_parts(&format!("{node}.json"))))
    }

    fn node_written(
        &self,
        mut manifest: Manifest,
        instances: emit::ManifestWriter<'_>,
        nodes: &[NodeFacts],
    ) {
        manifest.digest = instances.end(&manifest);
        self.node_files(&manifest, nodes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a sink was given: every file's name and bytes.
    #[derive(Default)]
    struct Collected(std::sync::Mutex<Vec<(String, Vec<u8>)>>);

    impl FileSink for Collected {
        fn put(&self, name: &str, bytes: &[u8]) {
            self.0
                .lock()
                .unwrap()
                .push((name.to_string(), bytes.to_vec()));
        }
    }

    /// The default target has each manifest written middle first, instance by instance;
    /// a sink that sets no middle aside (`FileSink::put_parts`'s default) holds it and
    /// puts the whole file once ended: the manifest's bytes, digest filled in.
    #[test]
    fn a_manifest_written_middle_first_to_a_sink_that_holds_it_is_its_bytes() {
        let mut manifest = emit::fixture::manifest(Default::default(), emit::fixture::container());
        let one = manifest.instances[0].clone();
        // Enough instances for the writer to pass its bytes on in several parts.
        manifest.instances = (0..600)
            .map(|k| emit::Instance {
                instance: format!("web{k}"),
                ..one.clone()
            })
            .collect();
        // No digest yet: the build works it out.
        manifest.digest = String::new();
        let sink = Collected::default();
        let target = (find("manifest").expect("the default target").make)();
        let build = Build::new(&*target, &sink);
        let mut writer = build
            .writer("alpha")
            .expect("the manifests alone are written middle first");
        for instance in &manifest.instances {
            writer.instance(instance);
        }
        let without = Manifest {
            instances: Vec::new(),
            ..manifest.clone()
        };
        build.node_written(without, writer, &[]);
        let files = std::mem::take(&mut *sink.0.lock().unwrap());
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].0, "alpha.json");
        assert!(
            files[0].1 == emit::manifest_bytes(&manifest),
            "the bytes differ from the manifest's"
        );
        // A target that reads the instances is given each manifest whole.
        let compose = (find("compose").expect("the compose target").make)();
        assert!(Build::new(&*compose, &sink).writer("alpha").is_none());
    }
}
