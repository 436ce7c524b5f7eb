//! A real two-node Docker Swarm for the `--target swarm` tests, brought up by
//! `support/swarm.sh` (two engines, each in network, mount and UTS namespaces of its own,
//! joined by a bridge made for the test) and torn down when the guard drops, even when
//! the test fails. The machine's own engine is never touched.
//!
//! Included with `#[path = "support/swarm.rs"] mod swarm;` beside `support/engine.rs`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// One node of the swarm: its engine's socket, its private address, its host name (which
/// is its swarm node name) and its network namespace.
pub struct Node {
    pub sock: String,
    pub addr: String,
    pub name: String,
    pub netns: String,
}

impl Node {
    /// `docker ARGS…` against this node's engine.
    pub fn docker(&self, args: &[&str]) -> Output {
        Command::new("docker")
            .arg("-H")
            .arg(format!("unix://{}", self.sock))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("docker cannot be run: {e}"))
    }

    /// `docker ARGS…`, asserting success; its standard output, trimmed.
    pub fn docker_ok(&self, args: &[&str]) -> String {
        let out = self.docker(args);
        assert!(
            out.status.success(),
            "docker {args:?} on {} failed: {}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A command run in this node's network namespace (as the machine the node is).
    pub fn on_host(&self, program: &str, args: &[&str]) -> Output {
        Command::new("nsenter")
            .arg(format!("--net={}", self.netns))
            .arg(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("nsenter cannot be run: {e}"))
    }

    /// The id of the running container of `service`'s task on this node, waiting up to
    /// `within` for one.
    pub fn task_container(&self, service: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let id = self.docker_ok(&[
                "ps",
                "-q",
                "--filter",
                &format!("label=com.docker.swarm.service.name={service}"),
                "--filter",
                "status=running",
            ]);
            if let Some(first) = id.lines().next() {
                return first.to_string();
            }
            assert!(
                Instant::now() < deadline,
                "no running task of {service} on {} after {within:?}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

pub struct Swarm {
    state: tempfile::TempDir,
    /// The manager.
    pub a: Node,
    /// The worker.
    pub b: Node,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/swarm.sh")
}

impl Swarm {
    /// Brings the swarm up. Where it cannot start (no root, no `dockerd`, no namespaces),
    /// fails when an engine is required (`MESHC_REQUIRE_ENGINE` or `CI`), else says so and
    /// returns `None`.
    pub fn up(test: &str) -> Option<Swarm> {
        let required =
            std::env::var_os("MESHC_REQUIRE_ENGINE").is_some() || std::env::var_os("CI").is_some();
        // `MESHC_SKIP_ENGINE=1 cargo test` leaves engines alone, these two as the
        // machine's own (support/engine.rs).
        if std::env::var_os("MESHC_SKIP_ENGINE").is_some() {
            assert!(
                !required,
                "{test}: MESHC_SKIP_ENGINE is set, and so is MESHC_REQUIRE_ENGINE or CI"
            );
            say_skipped(test, "MESHC_SKIP_ENGINE is set; the swarm test did not run");
            return None;
        }
        let state = tempfile::Builder::new()
            .prefix("meshc-swarm-")
            .tempdir()
            .unwrap();
        let started = Instant::now();
        let out = Command::new("bash")
            .arg(script())
            .arg("up")
            .arg(state.path())
            .output()
            .unwrap_or_else(|e| panic!("bash cannot be run: {e}"));
        if !out.status.success() {
            let why = String::from_utf8_lossy(&out.stderr).to_string();
            assert!(
                !required,
                "{test}: the two-node swarm did not start, and MESHC_REQUIRE_ENGINE or CI is set:\n{why}"
            );
            say_skipped(
                test,
                &format!("the two-node swarm did not start; the test did not run:\n{why}"),
            );
            return None;
        }
        let env = std::fs::read_to_string(state.path().join("env")).unwrap();
        let get = |key: &str| -> String {
            env.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("swarm.sh wrote no {key}"))
                .to_string()
        };
        let node = |n: &str| Node {
            sock: get(&format!("NODE_{n}_SOCK")),
            addr: get(&format!("NODE_{n}_ADDR")),
            name: get(&format!("NODE_{n}_NAME")),
            netns: get(&format!("NODE_{n}_NETNS")),
        };
        let swarm = Swarm {
            a: node("A"),
            b: node("B"),
            state,
        };
        eprintln!(
            "{test}: two-node swarm up in {:.1}s",
            started.elapsed().as_secs_f64()
        );
        Some(swarm)
    }

    pub fn nodes(&self) -> [&Node; 2] {
        [&self.a, &self.b]
    }

    /// Imports a busybox root file system as `reference` into both engines (a task runs
    /// only where its image is; no registry is reachable), with `tools` linked to busybox
    /// in `/bin`, `PATH=/bin` and `CMD ["/bin/sleep", "3600"]`. Its root is 0755, so a task
    /// running as another user than root can reach `/bin`.
    pub fn import_busybox(&self, reference: &str, tools: &[&str]) {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(
            root.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let bin = root.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::copy("/bin/busybox", bin.join("busybox")).expect("busybox-static is installed");
        for tool in tools {
            std::os::unix::fs::symlink("busybox", bin.join(tool)).unwrap();
        }
        let tar = root.path().with_extension("tar");
        let status = Command::new("tar")
            .arg("-C")
            .arg(root.path())
            .arg("-cf")
            .arg(&tar)
            .arg(".")
            .status()
            .unwrap();
        assert!(status.success());
        for node in self.nodes() {
            node.docker_ok(&[
                "import",
                "--change",
                "ENV PATH=/bin",
                "--change",
                "CMD [\"/bin/sleep\", \"3600\"]",
                &tar.display().to_string(),
                reference,
            ]);
        }
        let _ = std::fs::remove_file(tar);
    }
}

impl Drop for Swarm {
    fn drop(&mut self) {
        let started = Instant::now();
        let out = Command::new("bash")
            .arg(script())
            .arg("down")
            .arg(self.state.path())
            .output();
        match out {
            Ok(o) if o.status.success() => eprintln!(
                "two-node swarm down in {:.1}s",
                started.elapsed().as_secs_f64()
            ),
            Ok(o) => eprintln!(
                "swarm.sh down failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => eprintln!("swarm.sh down cannot be run: {e}"),
        }
    }
}

/// Says why a test did not run where a plain `cargo test` shows it: straight to the
/// standard error stream, which libtest does not capture (`eprintln!` it does).
pub fn say_skipped(test: &str, why: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
