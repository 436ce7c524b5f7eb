//! The `meshc` command: check, build, fmt and explain. All I/O happens here; the library
//! below is pure.

mod cli;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use cli::output::{self, Deny, Format};
use meshc::base::process::mark;
use meshc::diagnostics::{Code, Diagnostic};
use meshc::span::FilePath;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The compiler of the mesh language: check definitions and meshes, build node manifests.
#[derive(Parser)]
#[command(name = "meshc", version, about, long_about = None)]
struct Cli {
    /// Colour human diagnostics: auto (when stderr is a terminal and NO_COLOR is unset),
    /// always or never.
    #[arg(long, value_enum, global = true, default_value = "auto")]
    color: output::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

/// Flags every checking command takes.
#[derive(clap::Args, Clone)]
struct CheckFlags {
    /// How diagnostics are printed: human (stderr, with source excerpts), json or sarif (stdout).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Turn warnings into errors: `warnings` (all of them) or `old-forms` (W0401, W0402).
    #[arg(long, value_enum)]
    deny: Vec<Deny>,
    /// List only the definitions still using an old form (host path literals, legacy placeholders).
    #[arg(long)]
    old_forms: bool,
}

/// What `meshc build --target` accepts: every target of [`meshc::target::TARGETS`].
fn targets() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        meshc::target::TARGETS
            .iter()
            .map(|t| clap::builder::PossibleValue::new(t.name).help(t.about)),
    )
}

#[derive(Subcommand)]
enum Command {
    /// Parse, type-check and resolve every mesh; nothing is written.
    ///
    /// Exit status: 0 clean or warnings only, 1 errors, 2 usage or I/O problems.
    Check {
        /// Files or directories (searched recursively for .mesh files). Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        #[command(flatten)]
        flags: CheckFlags,
    },
    /// Check, then write the manifest of every node of the mesh in MESH_FILE.
    ///
    /// Writes DIR/<node>.json per node, atomically, and keeps chosen host ports in
    /// MESH_FILE.lock. Exit status: 0 built whole, 1 anything refused or left out, 2 usage or I/O.
    Build {
        /// The file holding the mesh to build.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// Where manifests are written.
        #[arg(long, default_value = "manifests")]
        out: PathBuf,
        /// Refuse to change MESH_FILE.lock (for CI).
        #[arg(long)]
        locked: bool,
        /// `compose` also writes DIR/<node>/compose.yaml beside each manifest: the node's
        /// Docker Compose project (files bound from `<root>/.mesh/files`, see `meshc render`).
        #[arg(long, value_parser = targets(), default_value = "manifest")]
        target: String,
        #[command(flatten)]
        flags: CheckFlags,
    },
    /// Rewrite files in the canonical layout, comments kept, meaning unchanged.
    ///
    /// A file with syntax errors is left untouched and its errors reported. `-` formats
    /// standard input to standard output. Exit status: 0 done (or, with --check, nothing
    /// would change), 1 a file would change or has syntax errors, 2 usage or I/O problems.
    Fmt {
        /// Files or directories, or `-` for standard input. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// Change nothing; list the files that would change.
        #[arg(long)]
        check: bool,
        /// How syntax errors are printed.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Compare an instance with the service it takes over on an adopted node, and confirm.
    ///
    /// Reads the host report `meshc survey` wrote on the node and prints every
    /// difference (image, files as unified diffs, secrets, ports, networks, mounts),
    /// then the preview's digest, last. Changes nothing without `--yes`; `--yes DIGEST`
    /// writes the cutover plan OUT/<node>.<instance>.take.json, atomically, only for the
    /// same digest (E0607 otherwise). Exit status: 0 nothing refuses (or the plan was
    /// written), 1 refused, 2 usage or I/O.
    Take {
        /// The instance to take (its name on the node).
        instance: String,
        /// The node it is assigned to; the report must describe the same node.
        #[arg(long)]
        node: String,
        /// The file holding the mesh.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// The host report (JSON, schema/host-report.schema.json) of the node.
        #[arg(long)]
        report: PathBuf,
        /// Refuse a report taken longer ago than this: `90s`, `15m`, `2h`, `7d` (E0602).
        #[arg(long, default_value = "15m", value_parser = cli::take::parse_max_age)]
        max_age: i64,
        /// Take a declared image older than the running one (waives E0603, never E0604).
        #[arg(long)]
        downgrade: bool,
        /// Replace this declared file although it differs from the kept original (E0605).
        #[arg(long, value_name = "PATH")]
        replace: Vec<String>,
        /// Mint this required secret although the service's data was found (E0606).
        #[arg(long, value_name = "REQUIREMENT")]
        mint: Vec<String>,
        /// Compare declared container DECLARED with the found container FOUND.
        #[arg(long = "match", value_name = "DECLARED=FOUND", value_parser = cli::take::parse_match)]
        matches: Vec<(String, String)>,
        /// Confirm the preview whose digest this is: write the cutover plan.
        #[arg(long, value_name = "DIGEST")]
        yes: Option<String>,
        /// Where the cutover plan is written.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// human: the comparison on stdout (digest last), diagnostics on stderr; json: one
        /// object with `diagnostics`, `digest` and `rows`.
        #[arg(long, value_enum, default_value = "human")]
        format: cli::take::TakeFormat,
    },
    /// Write the report of this machine, read from its Docker Engine, for `meshc take`.
    ///
    /// Containers with their images and the images' creation dates, networks and their
    /// members, mounts and published ports; the declared images' dates; the found file at
    /// every path the node's manifest declares; whether each declared mount target holds
    /// data; and strays (containers no assignment of the node names, listeners nothing
    /// publishes). Prints JSON on stdout. Exit status: 0, 2 when no engine answers or on
    /// usage and I/O problems.
    Survey {
        /// The node this machine is.
        #[arg(long)]
        node: String,
        /// The file holding the mesh.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// The engine's API socket. Default: DOCKER_HOST when it is unix://…, else
        /// unix:///var/run/docker.sock.
        #[arg(long, value_name = "unix:///PATH")]
        docker_host: Option<String>,
    },
    /// Write the bootstrap plan of a node's `genesis` instances.
    ///
    /// OUT/<node>.genesis.json holds exactly the container names, networks, data
    /// directories, images, mounts, ports and plain files their modules declare, so each
    /// module later takes over what genesis raised with no difference. A module
    /// requirement no genesis instance answers is refused (E0520). Exit status: 0
    /// written, 1 refused, 2 usage or I/O.
    Genesis {
        /// The file holding the mesh.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// The node whose genesis instances are planned.
        #[arg(long)]
        node: String,
        /// Where the plan is written.
        #[arg(long, default_value = "genesis")]
        out: PathBuf,
        /// How diagnostics are printed.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// On the node: write the files of its manifest under ROOT/.mesh/files, for compose.
    ///
    /// Every file, sealed file (its template rendered from the secret values), secret file
    /// and exposed-secret env file, with its owner, group and mode; and the folders of
    /// directory requirements. A sealed reference `{"by": {"node": N, "instance": I},
    /// "key": K}` reads the file DIR/N/I/K. All or nothing: written into a new folder,
    /// then switched in one rename. Exit status: 0 written, 1 refused (a missing value,
    /// a changed manifest, a secrets folder open to others, a root that is a link), 2 I/O.
    Render {
        /// The node's manifest, as `meshc build` wrote it.
        #[arg(required_unless_present = "swarm", conflicts_with = "swarm")]
        manifest: Option<PathBuf>,
        /// The folder of secret values (not readable by other users).
        #[arg(long)]
        secrets: PathBuf,
        /// The node's root (its `root` in the mesh).
        #[arg(long, default_value = "/srv/mesh")]
        root: PathBuf,
        /// On a swarm's manager: the folder `meshc build --target swarm` wrote; the files
        /// its stack's configs, secrets and env files read are written into --out, with
        /// `stack.env` naming each by the digest of its content.
        #[arg(long, requires = "out", conflicts_with = "root")]
        swarm: Option<PathBuf>,
        /// With --swarm: the folder to write them into (made 0700).
        #[arg(long, requires = "swarm")]
        out: Option<PathBuf>,
    },
    /// On the node: render, then bring its Docker Compose project to what the manifest says.
    ///
    /// Renders (as `meshc render`), then runs Docker Compose (the `docker compose` plugin
    /// where present, else `docker-compose`): `up -d --remove-orphans`, then `up -d
    /// --no-deps --force-recreate` for exactly the services whose rendered files changed
    /// since the last apply (render keeps each service's digest, never a value, under
    /// ROOT/.mesh), then `docker network rm` for every network of the project the
    /// manifest no longer names. A job that completed for its current digest is not
    /// started again. Each command is printed before it runs; --dry-run renders nothing
    /// and only prints. Exit status: 0 the project is up, 1 render refused or a command
    /// failed (its output shown), 2 no engine or no Compose reachable (or I/O).
    Apply {
        /// The node's manifest, as `meshc build` wrote it.
        manifest: PathBuf,
        /// The folder of secret values (see `meshc secrets`).
        #[arg(long)]
        secrets: PathBuf,
        /// The node's root (its `root` in the mesh).
        #[arg(long, default_value = "/srv/mesh")]
        root: PathBuf,
        /// The node's compose file (default: NODE/compose.yaml beside the manifest).
        #[arg(long)]
        compose: Option<PathBuf>,
        /// Print the commands, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Before the first render: mint every secret value the manifests need, and list the rest.
    ///
    /// Lays out, under DIR, every value `meshc render` of these manifests will read, as it
    /// reads them (DIR/<node>/<instance>/<key>). A value a `secret` requirement asks the
    /// vault for is minted as the vault would (the `length` and `alphabet` its provider's
    /// manifest gives, from the system's cryptographic source); a secret field of another
    /// contract is minted as 32 `alnum` characters. Files are 0400 in 0700 folders; an
    /// existing value is never overwritten. Every value only the operator can give
    /// (operator secrets) is listed with the file it goes in. Give every node's manifest
    /// at once to fill one folder for the whole mesh. No value is ever printed. Exit
    /// status: 0 every value in place, 1 values left for the operator (listed) or a
    /// refused manifest, 2 I/O.
    Secrets {
        /// The manifests, as `meshc build` wrote them.
        #[arg(required = true)]
        manifests: Vec<PathBuf>,
        /// The folder of secret values (made 0700 if missing).
        #[arg(long)]
        secrets: PathBuf,
        /// `human` (a summary and the values to give, on stderr) or `json` (on stdout).
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Rewrite old forms as the forms they stand for.
    ///
    /// A legacy placeholder becomes the reference it is read as; a literal host path as
    /// a mount source becomes a `directory` requirement (an `access` one where the module
    /// is assigned twice on one node) and, on every assignment of the module, the
    /// placement `NAME at "/that/path"`, so the data stays where it is. Without --write,
    /// prints the unified diff. Exit status: 0 done, 1 an old form left as it is or syntax
    /// errors, 2 usage or I/O.
    Migrate {
        /// Files or directories. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// Replace each changed file (atomically, formatted) instead of printing the diff.
        #[arg(long)]
        write: bool,
    },
    /// Turn what people run today into modules and a mesh.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Draw the mesh in MESH_FILE: nodes, their instances, and who answers whom.
    ///
    /// Nodes are boxes with their instances inside; an arrow goes from each consumer to
    /// the provider of its module requirements, labelled with the requirements, their
    /// contract and the rule that chose the provider (pin, seat, node, only). A seat
    /// holder's deliveries are one arrow per node of consumers (`--each-seat` draws one
    /// per consumer); seat holders are marked, and instances left out are drawn with
    /// why. Resolves as
    /// `meshc build` does, reading MESH_FILE.lock and writing nothing else. Exit status:
    /// 0 drawn, 2 usage or I/O.
    Graph {
        /// The file holding the mesh.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// svg (drawn by meshc), dot (Graphviz) or mermaid.
        #[arg(long, value_enum, default_value = "svg")]
        format: cli::graph::GraphFormat,
        /// Write the drawing to this file (atomically) instead of standard output.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Draw an arrow from every consumer to the seat holder that serves it, instead
        /// of one per holder and node of consumers.
        #[arg(long)]
        each_seat: bool,
    },
    /// Write the browsable reference of a catalogue: every module, contract and seat.
    ///
    /// One page per module (its doc comments, requirements, containers and what it
    /// provides) and per contract (its fields, the modules that provide it and those that
    /// require it), and an index: HTML pages that link to each other, and the same pages
    /// in Markdown. Written atomically into DIR. Exit status: 0 written, 1 a file does
    /// not parse (nothing written), 2 usage or I/O.
    Doc {
        /// Files or directories. Default: the workspace (the sources of the nearest mesh.toml, else the current directory).
        paths: Vec<PathBuf>,
        /// Where the pages are written.
        #[arg(long, value_name = "DIR", default_value = "doc")]
        out: PathBuf,
    },
    /// Print the long explanation of a diagnostic code, with an example.
    Explain {
        /// A code such as E0302.
        #[arg(required_unless_present = "list")]
        code: Option<String>,
        /// List every code with its one-line meaning instead.
        #[arg(long, conflicts_with = "code")]
        list: bool,
    },
    /// Print the completion script of a shell, generated from meshc's own definitions.
    ///
    /// bash: `meshc completions bash > ~/.local/share/bash-completion/completions/meshc`;
    /// zsh: into a directory of your `fpath` as `_meshc`; fish:
    /// `meshc completions fish > ~/.config/fish/completions/meshc.fish`.
    Completions {
        /// The shell.
        shell: cli::manual::Shell,
    },
    /// Print the man page meshc(1), or write it and one page per command into DIR.
    Man {
        /// Write meshc.1 and meshc-COMMAND.1 into this directory instead of printing meshc.1.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// What `meshc import` reads.
#[derive(Subcommand)]
enum ImportCommand {
    /// A Compose file: one module per service and a one-node mesh, with a report.
    ///
    /// Reads FILE, the `.env` beside it and the files it names; writes into DIR (new or
    /// empty) one `.mesh` file per service, the mesh, the vault when anything is secret,
    /// and `import-report.json` (every key dropped or guessed, by service, and the
    /// secrets to deliver to the vault; no secret value is written anywhere). Writes all
    /// of it or nothing. Exit status: 0 written, 1 refused (each problem said), 2 usage
    /// or I/O.
    Compose {
        /// The Compose file (compose.yaml, docker-compose.yml…).
        file: PathBuf,
        /// Where the definitions are written.
        #[arg(long, default_value = "imported")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    // `meshc` ends with its command: what it built is left to the operating system.
    meshc::base::process::ends_with_command();
    if std::env::var_os("MESHC_STATS").is_some() {
        meshc::base::process::mark_steps();
    }
    mark("start");
    let cli = Cli::parse();
    output::set_color(cli.color);
    let code = match cli.command {
        Command::Check { paths, flags } => check(paths, &flags),
        Command::Build {
            mesh_file,
            paths,
            out,
            locked,
            target,
            flags,
        } => build(mesh_file, paths, out, locked, target, &flags),
        Command::Fmt {
            paths,
            check,
            format,
        } => fmt(paths, check, format),
        Command::Explain {
            code: _,
            list: true,
        } => cli::manual::explain_list(),
        Command::Explain { code, list: false } => explain(code.as_deref().unwrap_or_default()),
        Command::Completions { shell } => cli::manual::completions::<Cli>(shell),
        Command::Man { out } => cli::manual::man::<Cli>(out),
        Command::Doc { paths, out } => cli::doc::run(paths, out),
        Command::Graph {
            mesh_file,
            paths,
            format,
            out,
            each_seat,
        } => cli::graph::run(&mesh_file, paths, format, out, each_seat),
        Command::Render {
            manifest,
            secrets,
            root,
            swarm,
            out,
        } => match (manifest, swarm, out) {
            (_, Some(dir), Some(stage)) => cli::swarm::render(dir, secrets, stage),
            (Some(manifest), _, _) => cli::render::run(manifest, secrets, root),
            // clap requires one or the other.
            _ => 2,
        },
        Command::Apply {
            manifest,
            secrets,
            root,
            compose,
            dry_run,
        } => cli::apply::run(manifest, secrets, root, compose, dry_run),
        Command::Secrets {
            manifests,
            secrets,
            format,
        } => cli::secrets::run(manifests, secrets, format),
        Command::Migrate { paths, write } => cli::migrate::run(paths, write),
        Command::Import(ImportCommand::Compose { file, out }) => cli::import::compose(file, out),
        Command::Take {
            instance,
            node,
            mesh_file,
            paths,
            report,
            max_age,
            downgrade,
            replace,
            mint,
            matches,
            yes,
            out,
            format,
        } => cli::take::run(cli::take::TakeArgs {
            instance,
            node,
            mesh_file,
            paths,
            report,
            max_age,
            options: meshc::take::Options {
                downgrade,
                replace,
                mint,
                matches,
            },
            yes,
            out,
            format,
        }),
        Command::Survey {
            node,
            mesh_file,
            paths,
            docker_host,
        } => cli::survey::run(node, mesh_file, paths, docker_host),
        Command::Genesis {
            mesh_file,
            paths,
            node,
            out,
            format,
        } => cli::take::genesis(mesh_file, paths, node, out, format),
    };
    if std::env::var_os("MESHC_STATS").is_some() {
        mark("end");
        report_stats();
    }
    ExitCode::from(code)
}

/// With `MESHC_STATS` set, prints the peak resident memory, the CPU time (user and
/// system, every thread) and when each step ended on stderr (for the benchmark).
fn report_stats() {
    let marks = meshc::base::process::marks();
    if let Some(start) = marks.first() {
        let steps: Vec<String> = marks[1..]
            .iter()
            .map(|m| format!("{}:{:.1}", m.what, (m.at - start.at).as_secs_f64() * 1000.0))
            .collect();
        eprintln!("meshc-stats: steps_ms={}", steps.join(","));
        // The resident memory when each step ended, and the peak so far, in MiB: where a
        // command's peak is reached.
        let memory: Vec<String> = marks[1..]
            .iter()
            .map(|m| format!("{}:{}/{}", m.what, m.rss_kib / 1024, m.peak_kib / 1024))
            .collect();
        eprintln!("meshc-stats: steps_rss_peak_mib={}", memory.join(","));
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(kib) = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    {
        eprintln!("meshc-stats: peak_rss_kib={kib}");
    }
    // Fields 14 and 15 of /proc/self/stat, after the command name in parentheses, in
    // clock ticks of 1/100 s (USER_HZ, fixed at 100 on Linux's user interface).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let ticks: Option<u64> = stat.rsplit_once(')').and_then(|(_, rest)| {
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    });
    if let Some(ticks) = ticks {
        eprintln!("meshc-stats: cpu_ms={}", ticks * 10);
    }
}

fn explain(code: &str) -> u8 {
    match Code::parse(code) {
        Some(c) => {
            output::stdout_line(c.explanation().trim_end());
            0
        }
        None => {
            let hint = meshc::diagnostics::did_you_mean(code, Code::ALL.iter().map(|c| c.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            output::say(&format!(
                "`{code}` is not a diagnostic code of the language{hint}"
            ));
            2
        }
    }
}

/// The workspace read from disk, and the texts diagnostics point into.
struct Session {
    db: meshc::db::Database,
    ws: meshc::db::Workspace,
    sources: Sources,
    /// Diagnostics about files that could not be parsed at all (invalid UTF-8).
    load_diagnostics: Vec<Diagnostic>,
    files_read: usize,
}

/// The texts diagnostics point into: every file of the workspace and those that could not
/// be parsed. Gathered by path only when a diagnostic is shown: a clean check shows none.
struct Sources {
    db: meshc::db::Database,
    ws: meshc::db::Workspace,
    unreadable: Vec<(FilePath, Arc<str>)>,
    by_path: std::sync::OnceLock<HashMap<FilePath, Arc<str>>>,
}

impl Sources {
    fn by_path(&self) -> &HashMap<FilePath, Arc<str>> {
        self.by_path.get_or_init(|| {
            let files = self.ws.files(&self.db);
            let mut map = HashMap::with_capacity(files.len() + self.unreadable.len());
            for f in files {
                map.insert(f.path(&self.db).clone(), f.text(&self.db).clone());
            }
            for (p, t) in &self.unreadable {
                map.insert(p.clone(), t.clone());
            }
            map
        })
    }
}

impl meshc::diagnostics::render::SourceMap for Sources {
    fn text(&self, path: &FilePath) -> Option<&str> {
        self.by_path().get(path).map(|t| &**t)
    }

    /// The database's secret places of each file shown (its registry is built already);
    /// a file that could not be parsed is read alone, so a value whose declaration it
    /// cannot see is masked.
    fn secrets(&self, shown: &[FilePath]) -> HashMap<FilePath, Vec<meshc::span::Span>> {
        let mut out = HashMap::with_capacity(shown.len());
        for f in self.ws.files(&self.db) {
            let path = f.path(&self.db);
            if shown.contains(path) {
                let spans = meshc::db::secret_spans(&self.db, self.ws, *f);
                out.insert(path.clone(), spans.to_vec());
            }
        }
        for (path, text) in &self.unreadable {
            if shown.contains(path) {
                out.extend(meshc::check::secrets::secret_spans_of_texts([(
                    path, &**text,
                )]));
            }
        }
        out
    }
}

/// Reads the `.mesh` files under `paths`; with none given, the workspace's (the sources
/// of the nearest `mesh.toml` at or above the current directory, else the current
/// directory). Any path that cannot be read is said and ends the command with exit status 2.
fn load(paths: Vec<PathBuf>) -> Result<cli::workspace::Loaded, u8> {
    load_with(Vec::new(), paths)
}

/// As [`load`], with `first` always read (the mesh file of `build`, `take`, …).
fn load_with(first: Vec<PathBuf>, paths: Vec<PathBuf>) -> Result<cli::workspace::Loaded, u8> {
    let found = discover(first, paths)?;
    let reads =
        meshc::parallel::map_batches_with(&found.files, 16, || (), |(), f| cli::workspace::read(f));
    let loaded = cli::workspace::Loaded::from_reads(found.io_errors, found.skipped, reads);
    said(&loaded.skipped, &loaded.io_errors)?;
    Ok(loaded)
}

/// The files under `first` and `paths`, or the workspace's when no path is given.
fn discover(first: Vec<PathBuf>, paths: Vec<PathBuf>) -> Result<cli::workspace::Discovered, u8> {
    let (paths, exclude) = if paths.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        match cli::root::default_paths(&cwd) {
            Ok(d) => (d.sources, d.exclude),
            Err(e) => {
                output::say(&e);
                return Err(2);
            }
        }
    } else {
        (paths, Vec::new())
    };
    let mut all = first;
    all.extend(paths);
    Ok(cli::workspace::discover(&all, &exclude))
}

/// Says what was skipped as warnings and every path that could not be read; any of the
/// latter ends the command with exit status 2.
fn said(skipped: &[String], io_errors: &[String]) -> Result<(), u8> {
    for s in skipped {
        output::say(&format!("warning: {s}"));
    }
    if !io_errors.is_empty() {
        for e in io_errors {
            output::say(e);
        }
        return Err(2);
    }
    Ok(())
}

/// The workspace of a command on one mesh: `mesh_file`, and `paths` or the workspace's.
fn open_for_mesh(mesh_file: &std::path::Path, paths: Vec<PathBuf>) -> Result<Session, u8> {
    open_with(vec![mesh_file.to_path_buf()], paths, false)
}

/// Reads the workspace into a database, each file parsed on the core that read it;
/// `checks_only` when the command builds nothing (`meshc::db::Workspace::checks_only`).
fn open_with(first: Vec<PathBuf>, paths: Vec<PathBuf>, checks_only: bool) -> Result<Session, u8> {
    use cli::workspace::Read;
    let found = discover(first, paths)?;
    mark("discovered");
    let (db, ws, refused) =
        meshc::db::Database::read_files(
            &found.files,
            checks_only,
            |f| match cli::workspace::read(f) {
                Read::Text(path, text) => Ok((path, text)),
                other => Err(other),
            },
        );
    let loaded = cli::workspace::Loaded::from_reads(found.io_errors, found.skipped, refused);
    said(&loaded.skipped, &loaded.io_errors)?;
    let mut load_diagnostics = Vec::new();
    let mut unreadable = Vec::new();
    for (d, p, t) in loaded.unreadable {
        unreadable.push((p, t));
        load_diagnostics.push(d);
    }
    let files_read = ws.files(&db).len() - 1 + load_diagnostics.len();
    let sources = Sources {
        db: db.clone(),
        ws,
        unreadable,
        by_path: std::sync::OnceLock::new(),
    };
    Ok(Session {
        db,
        ws,
        sources,
        load_diagnostics,
        files_read,
    })
}

fn check(paths: Vec<PathBuf>, flags: &CheckFlags) -> u8 {
    // Only checked: the modules' checks keep no container specs.
    let session = match open_with(Vec::new(), paths, true) {
        Ok(s) => s,
        Err(code) => return code,
    };
    mark("read");
    meshc::db::registry(&session.db, session.ws);
    mark("registry");
    let mut diags = session.load_diagnostics.clone();
    diags.extend(meshc::db::workspace_diagnostics_once(
        &session.db,
        session.ws,
    ));
    mark("checked");
    let code = report(diags, &session, flags);
    mark("reported");
    // The process ends here: freeing every tree one by one would only cost time.
    std::mem::forget(session);
    code
}

/// Prints diagnostics as the flags ask and returns the exit status they call for.
fn report(diags: Vec<Diagnostic>, session: &Session, flags: &CheckFlags) -> u8 {
    let mut diags = output::finish(diags, &flags.deny);
    let failed = diags.iter().any(Diagnostic::is_error);
    if flags.old_forms {
        diags.retain(|d| d.code.is_old_form());
    }
    output::print(&diags, &session.sources, flags.format, session.files_read);
    u8::from(failed)
}

/// The lock at `path` (none yet: an empty one), or what to say of it.
fn previous_lock(path: &std::path::Path) -> Result<meshc::resolve::Lock, String> {
    match cli::workspace::read_lock(path)? {
        Some(text) => meshc::resolve::Lock::parse(&text).map_err(|e| {
            format!(
                "`{}` is not a lock file meshc can read: {e}",
                path.display()
            )
        }),
        None => Ok(meshc::resolve::Lock::default()),
    }
}

fn build(
    mesh_file: PathBuf,
    paths: Vec<PathBuf>,
    out: PathBuf,
    locked: bool,
    target: String,
    flags: &CheckFlags,
) -> u8 {
    // Only the names of the table pass the argument parser.
    let Some(target) = meshc::target::find(&target) else {
        output::say(&format!("`{target}` is not a target meshc knows"));
        return 2;
    };
    let swarm = target.name == "swarm";
    let target = (target.make)();
    // The lock (a megabyte for a large mesh) is read on a thread of its own while the
    // workspace is.
    let lock_path = PathBuf::from(format!("{}.lock", mesh_file.display()));
    let lock_reading = {
        let path = lock_path.clone();
        std::thread::spawn(move || previous_lock(&path))
    };
    let session = match open_for_mesh(&mesh_file, paths) {
        Ok(s) => s,
        Err(code) => return code,
    };
    mark("read");
    let shown = cli::workspace::display_path(&mesh_file);
    meshc::db::parse_all(&session.db, session.ws.files(&session.db));
    let registry = meshc::db::registry(&session.db, session.ws);
    mark("registry");
    let meshes = meshc::resolve::meshes_in(&registry, &shown);
    let mesh = match meshes.as_slice() {
        [one] => one.clone(),
        [] => {
            output::say(&format!("`{shown}` declares no mesh to build"));
            return 2;
        }
        several => {
            output::say(&format!(
                "`{shown}` declares {} meshes ({}); put each in a file of its own to build it",
                several.len(),
                several.join(", ")
            ));
            return 2;
        }
    };
    let previous = match lock_reading.join() {
        Ok(Ok(lock)) => lock,
        Ok(Err(said)) => {
            output::say(&said);
            return 2;
        }
        Err(panic) => std::panic::resume_unwind(panic),
    };
    mark("lock");
    // Every file's checks (a module with errors is left out of the build, saying why),
    // then this mesh resolved against the lock.
    // The mesh resolves on a thread of its own while the files are checked on the others.
    // Each node's files are written aside in `out` as soon as they are made, on the
    // thread that made them, and renamed into place together once the build is known
    // to be written (or removed if it is not).
    let mut diags = session.load_diagnostics.clone();
    let files = session.ws.files(&session.db).clone();
    let ws = session.ws;
    let staging = cli::atomic::Staging::new(&out);
    let writer = meshc::target::Build::new(&*target, &staging);
    let (outcome, per_file) = meshc::db::beside(
        &session.db,
        |db| {
            let outcome = meshc::db::build_mesh(db, ws, &mesh, &previous, &writer);
            writer.finish(&outcome.nodes);
            outcome
        },
        || meshc::db::check_files_beside(&session.db, ws, &files, true),
    );
    mark("resolved");
    // The process ends with the build: freeing a large mesh's outcome would only cost time.
    let outcome = std::mem::ManuallyDrop::new(outcome);
    for file_diags in per_file {
        diags.extend(file_diags.iter().cloned());
    }
    diags.extend(outcome.diagnostics.iter().cloned());
    let lock_refusals = if locked {
        outcome.locked_refusals(&previous)
    } else {
        Vec::new()
    };
    let refused_by_lock = !lock_refusals.is_empty();
    diags.extend(lock_refusals);
    let failed_checks = diags.iter().any(Diagnostic::is_error);
    // A workspace that does not parse builds nothing: what a file with syntax errors
    // meant to declare is unknown, so no manifest and no lock can be trusted.
    let mut unparsed: Vec<String> = diags
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                Code::E0001 | Code::E0002 | Code::E0003 | Code::E0004 | Code::E0005
            )
        })
        .map(|d| d.file.to_string())
        .collect();
    unparsed.sort();
    unparsed.dedup();
    let code = report(diags, &session, flags);
    mark("reported");
    std::mem::forget(session);
    if refused_by_lock {
        output::say("nothing was written: the lock would change under --locked");
        return 1;
    }
    if !unparsed.is_empty() {
        let more = match unparsed.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        output::say(&format!(
            "nothing was written: `{}`{more} does not parse",
            unparsed[0]
        ));
        return 1;
    }
    let built: Vec<String> = outcome.nodes.iter().map(|n| n.name.clone()).collect();
    let owned = cli::atomic::Build {
        mesh: &mesh,
        nodes: &built,
    };
    match cli::atomic::write_build(staging, &owned) {
        Ok(said) => {
            for line in said {
                output::say(&line);
            }
        }
        Err(e) => {
            output::say(&e);
            output::say("nothing was written");
            return 2;
        }
    }
    mark("written");
    if swarm {
        for note in cli::swarm::notes(&out) {
            output::say(&note);
        }
    }
    let lock_text = outcome.lock_text();
    let lock_on_disk = cli::workspace::read_lock(&lock_path).ok().flatten();
    if lock_on_disk.as_deref() != Some(lock_text.as_str())
        && let Err(e) = cli::atomic::replace_file(&lock_path, lock_text.as_bytes())
    {
        output::say(&e);
        return 2;
    }
    mark("locked");
    // Every port the lock moved, and why (LANGUAGE.md §12.6), whatever the format:
    // notes go to stderr.
    for moved in &outcome.port_moves {
        output::say(&format!("note: {moved}"));
    }
    if flags.format == Format::Human {
        let nodes: Vec<String> = built.iter().map(|n| format!("{n}.json")).collect();
        let note = match outcome.left_out.len() {
            0 => String::new(),
            1 => "; 1 assignment left out".to_string(),
            n => format!("; {n} assignments left out"),
        };
        output::say(&format!(
            "built mesh `{mesh}` into {}: {}{note}",
            out.display(),
            nodes.join(", ")
        ));
    }
    if outcome.refused() || failed_checks {
        1
    } else {
        code
    }
}

fn fmt(paths: Vec<PathBuf>, check_only: bool, format: Format) -> u8 {
    if paths.iter().any(|p| p.as_os_str() == "-") {
        if paths.len() > 1 {
            output::say("`-` (standard input) cannot be mixed with paths");
            return 2;
        }
        return fmt_stdin(format);
    }
    let loaded = match load(paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut sources: HashMap<FilePath, Arc<str>> = HashMap::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    for (d, p, t) in loaded.unreadable {
        sources.insert(p, t);
        diags.push(d);
    }
    let results: Vec<Result<Option<String>, Vec<Diagnostic>>> =
        meshc::parallel::map_chunks(&loaded.files, 16, |part| {
            part.iter()
                .map(|(path, text)| {
                    meshc::fmt::format(path, text).map(|out| (out != **text).then_some(out))
                })
                .collect()
        });
    let mut changed = 0usize;
    let mut io_failed = false;
    for ((path, text), result) in loaded.files.iter().zip(results) {
        match result {
            Ok(None) => {}
            Ok(Some(formatted)) => {
                changed += 1;
                if check_only {
                    output::stdout_line(path);
                } else if let Err(e) =
                    cli::atomic::replace_file(std::path::Path::new(&**path), formatted.as_bytes())
                {
                    output::say(&e);
                    io_failed = true;
                }
            }
            Err(errors) => {
                sources.insert(path.clone(), text.clone());
                diags.extend(errors);
            }
        }
    }
    let diags = output::finish(diags, &[]);
    if !diags.is_empty() {
        output::print(&diags, &sources, format, loaded.files.len());
    }
    if io_failed {
        return 2;
    }
    if check_only && changed > 0 {
        output::say(&format!(
            "{changed} file{} would be reformatted; run `meshc fmt`",
            if changed == 1 { "" } else { "s" }
        ));
    }
    u8::from(!diags.is_empty() || (check_only && changed > 0))
}

fn fmt_stdin(format: Format) -> u8 {
    use std::io::{Read, Write};
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        output::say(&format!(
            "cannot read standard input: {}",
            cli::workspace::plain(&e)
        ));
        return 2;
    }
    let path: FilePath = "<stdin>".into();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => {
            output::say("standard input is not valid UTF-8");
            return 2;
        }
    };
    match meshc::fmt::format(&path, &text) {
        Ok(out) => {
            let _ = std::io::stdout().write_all(out.as_bytes());
            0
        }
        Err(errors) => {
            let mut sources: HashMap<FilePath, Arc<str>> = HashMap::new();
            sources.insert(path, Arc::from(text));
            let diags = output::finish(errors, &[]);
            output::print(&diags, &sources, format, 1);
            1
        }
    }
}
