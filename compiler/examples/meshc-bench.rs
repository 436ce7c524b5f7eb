//! The benchmark: generates catalogues of 100, 1,000 and 10,000 modules (about 1 KB each)
//! with a mesh assigning every module (`meshc::workload`'s flavour `Bench`), then times
//! `meshc check`, `meshc build` and `meshc fmt --check` on them, with peak memory, and
//! prints a Markdown table.
//!
//! Beside them it times a floor: python's `json.load` + `json.dump` of a generated 9 MB
//! JSON document, run the same number of times, and prints each command's median as a
//! ratio of the floor's, since wall times on a shared machine swing more than ratios.
//!
//! Run: `cargo build --release -p meshc --examples`, then
//! `target/release/examples/meshc-bench` (options: `--sizes 100,1000,10000`,
//! `--runs 5`, `--meshc target/release/meshc`, `--keep DIR`, `--python python3`,
//! `--shape bench|dense`; the floor is left out when python does not run).
//!
//! `--shape dense` times the second shape instead (flavour `Dense`): fewer, larger nodes
//! (10 instead of 20, so twice the services per node) and more interpolation (twelve env
//! entries, most with several `${…}` references to three module requirements, and a
//! secret file with an owner in every module). The floor is the same for both shapes.
//!
//! `--adversarial` runs the hostile generators instead, each at every size: colliding
//! logins (`assign app to alpha as xxxx0` … one login for all), a chain of narrowings
//! (`requires p0: host port { container = p1.container }` … in one module) and a chain
//! of providers (module `mK` answers by reading what `m(K+1)` answers). Time and memory
//! must stay linear in the size.

use meshc::workload::{Flavour, Workload};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Writes `workload` into `dir`; returns its size in bytes.
fn generate(dir: &Path, workload: Workload) -> std::io::Result<u64> {
    std::fs::create_dir_all(dir.join("modules"))?;
    let mut bytes = 0u64;
    for (file, text) in workload.files() {
        bytes += text.len() as u64;
        std::fs::write(dir.join(file), text)?;
    }
    Ok(bytes)
}

/// The hostile workloads: (name, files) for a size `n`.
fn adversarial(n: usize) -> Vec<(&'static str, Vec<(String, String)>)> {
    let node = "  node alpha { private_name = \"alpha.internal\"  ports = 10000..65000 }\n";
    // Colliding logins: every instance's short form is `xxxx`.
    let mut logins = String::from("mesh m {\n");
    logins.push_str(node);
    for i in 0..n {
        let _ = writeln!(logins, "  assign app to alpha as xxxx{i}");
    }
    logins.push_str("}\n");
    let app = "module app {\n  requires http: host port { container = 80 }\n  container app {\n    image \"busybox:1.36\"\n    publish http\n  }\n}\n";
    // A chain of narrowings, each reading the next.
    let mut chain = String::from("module chain {\n");
    for i in 0..n.saturating_sub(1) {
        let _ = writeln!(
            chain,
            "  requires p{i}: host port {{ container = p{}.container }}",
            i + 1
        );
    }
    let _ = writeln!(
        chain,
        "  requires p{}: host port {{ container = 8080 }}",
        n.saturating_sub(1)
    );
    // Every host port is published: a port nothing listens on is refused (E0323).
    chain.push_str("  container chain {\n    image \"busybox:1.36\"\n");
    for i in 0..n {
        let _ = writeln!(chain, "    publish p{i}");
    }
    chain.push_str("  }\n}\n");
    let chain_mesh = format!("mesh m {{\n{node}  assign chain to alpha\n}}\n");
    // A chain of providers.
    let mut providers = String::new();
    let mut providers_mesh = format!("mesh m {{\n{node}");
    for k in 0..n {
        let _ = writeln!(providers, "contract c{k} for module {{\n  v: string\n}}");
        match k + 1 < n {
            true => {
                let _ = writeln!(
                    providers,
                    "module m{k} {{\n  requires up: module c{}\n  provides c{k} {{ v = up.v }}\n}}",
                    k + 1
                );
            }
            false => {
                let _ = writeln!(
                    providers,
                    "module m{k} {{\n  provides c{k} {{ v = \"end\" }}\n}}"
                );
            }
        }
        let _ = writeln!(providers_mesh, "  assign m{k} to alpha");
    }
    providers_mesh.push_str("}\n");
    vec![
        (
            "colliding logins",
            vec![("app.mesh".into(), app.into()), ("m.mesh".into(), logins)],
        ),
        (
            "narrowing chain",
            vec![("chain.mesh".into(), chain), ("m.mesh".into(), chain_mesh)],
        ),
        (
            "provider chain",
            vec![
                ("providers.mesh".into(), providers),
                ("m.mesh".into(), providers_mesh),
            ],
        ),
    ]
}

/// Runs the hostile workloads: `check` and `build` of each, at each size.
fn run_adversarial(meshc: &Path, root: &Path, sizes: &[usize], runs: usize) {
    println!("| workload | size | command | median wall | peak memory | exit | diagnostics |");
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
    for &n in sizes {
        for (name, files) in adversarial(n) {
            let dir = root.join(format!("{}-{n}", name.replace(' ', "-")));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("workload directory");
            for (file, text) in &files {
                std::fs::write(dir.join(file), text).expect("workload written");
            }
            let out_dir = dir.join("out");
            let out_arg = out_dir.to_string_lossy().into_owned();
            let commands: Vec<(&str, Vec<&str>)> = vec![
                (
                    "check --format json",
                    vec!["check", "--format", "json", "."],
                ),
                ("build", vec!["build", "m.mesh", ".", "--out", &out_arg]),
            ];
            for (command, argv) in commands {
                let mut times = Vec::new();
                let mut peak = 0;
                let mut status = 0;
                for _ in 0..runs {
                    let s = run(meshc, &dir, &argv);
                    times.push(s.seconds);
                    peak = peak.max(s.peak_kib);
                    status = s.status;
                }
                let count = if command.starts_with("check") {
                    let out = Command::new(meshc)
                        .args(&argv)
                        .current_dir(&dir)
                        .output()
                        .expect("meshc runs");
                    serde_json::from_slice::<serde_json::Value>(&out.stdout)
                        .ok()
                        .and_then(|v| v["diagnostics"].as_array().map(Vec::len))
                        .map_or("?".to_string(), |n| n.to_string())
                } else {
                    "".to_string()
                };
                println!(
                    "| {name} | {n} | `meshc {command}` | {:.3} s | {:.0} MB | {status} | {count} |",
                    median(times),
                    peak as f64 / 1024.0
                );
            }
        }
    }
}

struct Sample {
    seconds: f64,
    /// User and system CPU time of every thread, as meshc reports it (`None` from a meshc
    /// that does not).
    cpu: Option<f64>,
    peak_kib: u64,
    status: i32,
    /// The last line meshc printed that begins with `meshc: ` (`… files checked, no
    /// problems`), to tell a clean workload from one that warns.
    summary: String,
}

/// Runs meshc with `MESHC_STATS=1`, which makes it report its peak memory on exit.
fn run(meshc: &Path, dir: &Path, args: &[&str]) -> Sample {
    let start = Instant::now();
    let out = Command::new(meshc)
        .args(args)
        .current_dir(dir)
        .env("MESHC_STATS", "1")
        .output()
        .expect("meshc runs");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stat = |key: &str| -> Option<u64> {
        stderr
            .lines()
            .filter_map(|l| l.strip_prefix("meshc-stats: "))
            .flat_map(str::split_whitespace)
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
    };
    let summary = stderr
        .lines()
        .rfind(|l| l.starts_with("meshc: "))
        .unwrap_or_default()
        .to_string();
    Sample {
        seconds,
        cpu: stat("cpu_ms").map(|ms| ms as f64 / 1000.0),
        peak_kib: stat("peak_rss_kib").unwrap_or(0),
        status: out.status.code().unwrap_or(-1),
        summary,
    }
}

/// A JSON document of about `bytes` bytes: records shaped like the workload's modules.
fn floor_document(bytes: usize) -> String {
    let mut s = String::from("[");
    let mut i = 0;
    while s.len() < bytes {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            r#"{{"module":"svc{i}","image":"ghcr.io/acme/svc{i}:1.4.2","requires":{{"db":{{"kind":"module","contract":"postgres"}},"data":{{"kind":"host","contract":"directory","owner":1000,"mode":"0750"}},"http":{{"kind":"host","contract":"port","container":8080}},"key":{{"kind":"module","contract":"secret","length":48}},"workers":{{"kind":"operator","type":"int","min":1,"max":64,"default":4}},"title":{{"kind":"operator","type":"string","default":"Service {i}"}}}},"env":{{"DB_HOST":"${{db.host}}:${{db.port}}","DB_NAME":"${{db.database}}","DB_USER":"${{db.user}}","DB_PASSWORD_FILE":"/run/secrets/db_password","DATA_DIR":"/data","CACHE_DIR":"/data/cache","KEY_FILE":"/run/secrets/key","WORKERS":"${{workers}}","TITLE":"${{title}} with ${{workers}} workers","LOG_LEVEL":"info","SSL_MODE":"${{db.sslmode}}","LISTEN":"8080"}},"secrets":["/run/secrets/db_password","/run/secrets/key"],"mounts":[["${{data.path}}","/data"]],"publish":[8080],"ready":true,"weight":{}.5}}"#,
            i % 97
        );
        i += 1;
    }
    s.push(']');
    s
}

/// Times `python -c 'json.load + json.dump'` of `doc` once: wall time and the CPU time
/// python reports for itself (user + system, start-up included); `None` when python does
/// not run.
fn run_floor(python: &str, doc: &Path) -> Option<(f64, f64)> {
    let script = "import json,os,sys\nwith open(sys.argv[1]) as f: d = json.load(f)\nwith open(sys.argv[2], 'w') as f: json.dump(d, f)\nt = os.times()\nprint(t.user + t.system)\n";
    let out = doc.with_extension("out.json");
    let start = Instant::now();
    let output = Command::new(python)
        .args(["-c", script])
        .arg(doc)
        .arg(&out)
        .output()
        .ok()?;
    let seconds = start.elapsed().as_secs_f64();
    let cpu = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .ok()?;
    output.status.success().then_some((seconds, cpu))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut sizes = vec![100usize, 1_000, 10_000];
    let mut runs = 5usize;
    let mut meshc = PathBuf::from("target/release/meshc");
    let mut keep: Option<PathBuf> = None;
    let mut hostile = false;
    let mut python = String::from("python3");
    let mut flavour = Flavour::Bench;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .collect()
            }
            "--runs" => runs = args.next().and_then(|s| s.parse().ok()).unwrap_or(5).max(1),
            "--meshc" => meshc = PathBuf::from(args.next().unwrap_or_default()),
            "--keep" => keep = args.next().map(PathBuf::from),
            "--adversarial" => hostile = true,
            "--python" => python = args.next().unwrap_or_default(),
            "--shape" => {
                flavour = match args.next().as_deref() {
                    Some("bench") => Flavour::Bench,
                    Some("dense") => Flavour::Dense,
                    other => {
                        eprintln!(
                            "meshc-bench: `--shape` takes `bench` or `dense`, not `{}`",
                            other.unwrap_or_default()
                        );
                        std::process::exit(2);
                    }
                }
            }
            "-h" | "--help" => {
                println!(
                    "meshc-bench [--sizes 100,1000,10000] [--runs 5] [--meshc PATH] [--keep DIR] [--python python3] [--shape bench|dense] [--adversarial]\n\n\
                     --shape bench  (default) 20 nodes, six requirements and twelve env entries per module\n\
                     --shape dense  10 nodes, three module requirements per module, twelve env entries\n\
                     \x20              most interpolating several `${{…}}` references, a secret file with an owner"
                );
                return;
            }
            other => {
                eprintln!("meshc-bench: unknown argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let meshc = std::fs::canonicalize(&meshc).unwrap_or_else(|_| {
        eprintln!(
            "meshc-bench: no meshc at `{}`; build it with `cargo build --release -p meshc`",
            meshc.display()
        );
        std::process::exit(2);
    });
    let keep_dir = keep.is_some();
    let root = keep.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("meshc-bench-{}", std::process::id()))
    });
    if hostile {
        run_adversarial(&meshc, &root, &sizes, runs);
        if !keep_dir {
            let _ = std::fs::remove_dir_all(&root);
        }
        return;
    }
    let _ = std::fs::create_dir_all(&root);
    let doc = root.join("floor.json");
    let floors = std::fs::write(&doc, floor_document(9_000_000))
        .ok()
        .and_then(|()| {
            let samples: Option<Vec<(f64, f64)>> =
                (0..runs).map(|_| run_floor(&python, &doc)).collect();
            samples.map(|s| {
                (
                    median(s.iter().map(|x| x.0).collect()),
                    median(s.iter().map(|x| x.1).collect()),
                )
            })
        });
    let floor = floors.map(|f| f.0);
    let floor_cpu = floors.map(|f| f.1);
    match floors {
        Some((f, c)) => println!(
            "floor: `{python}` json.load + json.dump of a 9.0 MB document, median {f:.3} s wall, {c:.3} s CPU\n"
        ),
        None => println!("floor: `{python}` did not run; no ratios\n"),
    }
    let ratio = |seconds: f64| floor.map_or("-".to_string(), |f| format!("{:.2}x", seconds / f));
    let cpu_ratio = |cpu: Option<f64>| match (cpu, floor_cpu) {
        (Some(c), Some(f)) => format!("{c:.3} s ({:.2}x)", c / f),
        (Some(c), None) => format!("{c:.3} s"),
        _ => "-".to_string(),
    };
    // Wall time on a shared machine swings with the load; CPU time (user + system, every
    // thread) much less, so both are given, each against the floor's.
    println!(
        "| modules | size | command | median wall | vs floor | median CPU (vs floor) | peak memory | exit |"
    );
    println!("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    let mut unclean: Vec<String> = Vec::new();
    for &n in &sizes {
        let dir = root.join(format!("w{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        let workload = Workload::new(flavour, n);
        let bytes = generate(&dir, workload).expect("workload written");
        // Lay the workload out canonically, so `fmt --check` measures the usual case: a
        // catalogue that is already formatted.
        let _ = run(&meshc, &dir, &["fmt", "."]);
        let out_dir = dir.join("out");
        let out_arg = out_dir.to_string_lossy().into_owned();
        let commands: Vec<(&str, Vec<&str>)> = vec![
            (
                "check (modules only)",
                vec!["check", "modules", workload.providers_file()],
            ),
            ("check", vec!["check", "."]),
            (
                "build",
                vec!["build", workload.mesh_file(), ".", "--out", &out_arg],
            ),
            ("fmt --check", vec!["fmt", "--check", "."]),
        ];
        for (name, argv) in commands {
            let mut times = Vec::new();
            let mut cpus = Vec::new();
            let mut summary = String::new();
            let mut peak = 0;
            let mut status = 0;
            for _ in 0..runs {
                let s = run(&meshc, &dir, &argv);
                times.push(s.seconds);
                cpus.extend(s.cpu);
                peak = peak.max(s.peak_kib);
                status = s.status;
                summary = s.summary;
            }
            let m = median(times);
            let cpu = (!cpus.is_empty()).then(|| median(cpus));
            println!(
                "| {n} | {:.1} MB | `meshc {name}` | {m:.3} s | {} | {} | {:.0} MB | {status} |",
                bytes as f64 / 1e6,
                ratio(m),
                cpu_ratio(cpu),
                peak as f64 / 1024.0
            );
            if name.starts_with("check") && !summary.contains("no problems") {
                unclean.push(format!("{n} modules, `meshc {name}`: {summary}"));
            }
        }
    }
    // The workload is meant to check clean: warnings would time their rendering instead.
    for line in &unclean {
        println!("\nnote: the workload does not check clean: {line}");
    }
    if !keep_dir {
        let _ = std::fs::remove_dir_all(&root);
    }
}
