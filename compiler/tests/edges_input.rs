//! The input edges of issue 33 (LANGUAGE.md §14.6), one regression test per class:
//! files `import compose` reads (class 2, 9), secrets it finds by name and by value
//! (class 6), terminal escapes in human output (class 8: check, import, migrate), env
//! lines it cannot parse (class 11), linear human diagnostics and import mappings
//! (class 13) and excerpt lines that agree with JSON's (class 14).

use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "support/command.rs"]
mod command;
use command::{meshc, said};

/// Runs `meshc ARGS…` in `dir` with `env` set, waiting at most a minute: a run that
/// would wait on a pipe or read a device forever is killed and fails the test (the time
/// is a guard against hanging, not a measure).
fn meshc_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("meshc runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("meshc {args:?} did not finish: it waits on what it should have refused");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Every file under `dir`, as text.
fn all_text(dir: &Path) -> String {
    let mut s = String::new();
    if !dir.exists() {
        return s;
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            s.push_str(&all_text(&p));
        } else {
            s.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
        }
    }
    s
}

fn import(dir: &Path, env: &[(&str, &str)]) -> Output {
    meshc_with(
        dir,
        &["import", "compose", "compose.yaml", "--out", "out"],
        env,
    )
}

const WEB: &str = "services:\n  web:\n    image: nginx:1.27\n";

/// Class 2 (critical): `env_file: /proc/self/environ` copied the importing user's
/// environment into the module, the manifest and the compose file. Env files, `extends`
/// files and `.env` are read only as regular files beside or under the Compose file's
/// folder, links resolved; anything else is refused by name and nothing is written.
#[cfg(unix)]
#[test]
fn class_2_import_reads_no_file_outside_the_compose_folder() {
    let marker = "Q2ENVIRONMARKER";
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("outside.env"), format!("STOLEN={marker}\n")).unwrap();
    std::fs::write(
        tmp.path().join("outside.yaml"),
        format!(
            "services:\n  base:\n    image: nginx:1.27\n    environment:\n      STOLEN: {marker}\n"
        ),
    )
    .unwrap();
    let cases: Vec<(&str, String, Option<&str>)> = vec![
        (
            "/proc/self/environ",
            format!("{WEB}    env_file: /proc/self/environ\n"),
            None,
        ),
        (
            "../outside.env",
            format!("{WEB}    env_file: ../outside.env\n"),
            None,
        ),
        (
            "../outside.env",
            format!("{WEB}    env_file:\n      - path: ../outside.env\n        required: false\n"),
            None,
        ),
        (
            "link.env",
            format!("{WEB}    env_file: link.env\n"),
            Some("/proc/self/environ"),
        ),
        (
            "../outside.yaml",
            "services:\n  web:\n    image: nginx:1.27\n    extends:\n      file: ../outside.yaml\n      service: base\n".to_string(),
            None,
        ),
    ];
    for (i, (named, compose, link)) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("p{i}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("compose.yaml"), compose).unwrap();
        if let Some(target) = link {
            std::os::unix::fs::symlink(target, dir.join("link.env")).unwrap();
        }
        let run = import(&dir, &[("Q2_CLOUD_KEY", marker)]);
        let all = said(&run);
        assert_eq!(run.status.code(), Some(1), "{named}: {all}");
        assert!(all.contains(named), "the file is refused by name: {all}");
        assert!(all.contains("outside the Compose file's folder"), "{all}");
        assert!(!all.contains(marker), "{named}: {all}");
        assert!(!dir.join("out").exists(), "nothing is written: {all}");
    }
    // `.env` itself, a link to the environment: refused, not read.
    let dir = tmp.path().join("dotenv");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("compose.yaml"), WEB).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", dir.join(".env")).unwrap();
    let run = import(&dir, &[("Q2_CLOUD_KEY", marker)]);
    let all = said(&run);
    assert_eq!(run.status.code(), Some(2), "{all}");
    assert!(all.contains(".env") && all.contains("outside"), "{all}");
    assert!(!all.contains(marker) && !dir.join("out").exists(), "{all}");
    // Near miss: files beside and under the folder, through a link that stays inside.
    let dir = tmp.path().join("ok");
    std::fs::create_dir_all(dir.join("env")).unwrap();
    std::fs::write(dir.join("env/app.env"), "LOG_LEVEL=debug\n").unwrap();
    std::os::unix::fs::symlink("env/app.env", dir.join("linked.env")).unwrap();
    std::fs::write(
        dir.join("compose.yaml"),
        format!("{WEB}    env_file: [env/app.env, ./linked.env]\n"),
    )
    .unwrap();
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(all_text(&dir.join("out")).contains("LOG_LEVEL"));
}

/// Class 9 (import): a Compose file or an env file that is a named pipe waited for a
/// writer forever, and a device was read until memory ran out. Both are refused before
/// they are opened.
#[cfg(unix)]
#[test]
fn class_9_import_refuses_a_pipe_or_a_device_unopened() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = |p: &Path| {
        let made = Command::new("mkfifo").arg(p).status().unwrap();
        assert!(made.success(), "mkfifo makes the pipe");
    };
    // The Compose file a pipe, then a device.
    let dir = tmp.path().join("pipe");
    std::fs::create_dir(&dir).unwrap();
    fifo(&dir.join("compose.yaml"));
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(said(&run).contains("a named pipe"), "{}", said(&run));
    let run = meshc_with(
        tmp.path(),
        &["import", "compose", "/dev/zero", "--out", "out"],
        &[],
    );
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(said(&run).contains("a device"), "{}", said(&run));
    // An env file, and `.env`, that are pipes beside the Compose file.
    let dir = tmp.path().join("envpipe");
    std::fs::create_dir(&dir).unwrap();
    fifo(&dir.join("app.env"));
    std::fs::write(
        dir.join("compose.yaml"),
        format!("{WEB}    env_file: app.env\n"),
    )
    .unwrap();
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    assert!(
        said(&run).contains("`app.env`") && said(&run).contains("a named pipe"),
        "{}",
        said(&run)
    );
    fifo(&dir.join(".env"));
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", said(&run));
    assert!(said(&run).contains("a named pipe"), "{}", said(&run));
    assert!(!dir.join("out").exists());
}

/// Class 11: a malformed env line was quoted (its first characters) from `.env` and
/// every `env_file`, and an unclosed `${` quoted the value around it. A value import
/// cannot parse is never quoted: the line number and what is wrong are said.
#[test]
fn class_11_a_malformed_env_line_is_never_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join(".env"),
        "GOOD=1\nQ11MARKERone two three\nbad key Q11MARKER=x\nQUOTED=\"Q11MARKER\n",
    )
    .unwrap();
    std::fs::write(dir.join("compose.yaml"), WEB).unwrap();
    let run = import(dir, &[]);
    let all = said(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    assert!(
        !all.contains("Q11MARKER") && !all.contains("Q11MA"),
        "{all}"
    );
    for line in [2, 3, 4] {
        assert!(all.contains(&format!(".env line {line}:")), "{all}");
    }
    assert!(all.contains("not `KEY=VALUE`"), "{all}");
    std::fs::remove_file(dir.join(".env")).unwrap();
    std::fs::write(dir.join("app.env"), "A=1\n\nQ11MARKERnoequals\n").unwrap();
    std::fs::write(
        dir.join("compose.yaml"),
        format!("{WEB}    env_file: app.env\n"),
    )
    .unwrap();
    let run = import(dir, &[]);
    let all = said(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    assert!(!all.contains("Q11MA"), "{all}");
    assert!(all.contains("`app.env` line 3"), "{all}");
    std::fs::write(
        dir.join("compose.yaml"),
        format!("{WEB}    command: [\"run\", \"--key=Q11MARKERx${{OPEN\"]\n"),
    )
    .unwrap();
    let run = import(dir, &[]);
    let all = said(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    assert!(!all.contains("Q11MA"), "{all}");
    assert!(
        all.contains("compose.yaml:4") && all.contains("has no closing brace"),
        "{all}"
    );
    // Nor a port mapping, a volume or a volume mode it cannot read.
    std::fs::write(
        dir.join("compose.yaml"),
        format!("{WEB}    ports: [\"Q11MARKER:80\", \"8080:Q11MARKER\"]\n    volumes: [\"./d:/d:Q11MARKER\", \"a:b:c:Q11MARKER\"]\n"),
    )
    .unwrap();
    let run = import(dir, &[]);
    let all = said(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    assert!(!all.contains("Q11MA"), "{all}");
    assert!(all.contains("4 problems"), "{all}");
}

/// Class 6: import missed secrets by name (`BORG_PASSPHRASE`, `MYSQL_PWD`, `DB_PW`,
/// `HTPASSWD`) and by value (a bearer token, a Sentry DSN, a webhook URL, keys of known
/// shapes) and wrote them as plain values. Each is a secret now: its value is written
/// nowhere, and the report says so.
#[test]
fn class_6_secrets_are_found_by_name_and_by_value() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let entries = [
        ("BORG_PASSPHRASE", "correct horse q6mark battery"),
        ("MYSQL_PWD", "q6markmysql"),
        ("DB_PW", "q6markdb"),
        ("HTPASSWD", "admin:$$apr1$$q6mark$$xyz"),
        ("UPSTREAM_HEADER", "Authorization: Bearer q6markbearer0001"),
        (
            "SENTRY",
            "https://q6mark0123456789abcdef01@o123.ingest.sentry.io/42",
        ),
        (
            "NOTIFY",
            "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/q6markWebhookToken00",
        ),
        ("AWS", "AKIAQ6MARK0000000001"),
        ("GH", "ghp_q6mark0123456789abcdefghijklmn"),
        ("CHAT", "xoxb-q6mark-1234567890-abcdef"),
        (
            "SESSION",
            "eyJhbGciOiJIUzI1NiJ9.eyJxNm1hcmsiOjF9.q6markSignature_abcdefgh",
        ),
    ];
    let mut compose = format!("{WEB}    environment:\n");
    for (k, v) in entries {
        compose.push_str(&format!("      {k}: \"{v}\"\n"));
    }
    compose.push_str("      LOG_LEVEL: info\n");
    std::fs::write(dir.join("compose.yaml"), &compose).unwrap();
    let run = import(dir, &[]);
    let out = said(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    let everything = format!("{out}{}", all_text(&dir.join("out"))).to_ascii_lowercase();
    assert!(!everything.contains("q6mark"), "{everything}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/import-report.json")).unwrap())
            .unwrap();
    let notes = &report["services"][0]["notes"];
    for (k, _) in entries {
        let key = format!("environment.{k}");
        assert!(
            notes
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["key"] == key.as_str() && n["action"] == "secret"),
            "{key} is a secret: {notes}"
        );
    }
    // Near miss: a plain value stays plain.
    assert!(all_text(&dir.join("out")).contains("LOG_LEVEL = \"info\""));
}

/// Class 8: raw escape sequences reached the terminal from check's excerpts (E0314
/// reprinted the very character it refuses), file names, the import report and
/// migrate's diff. Human output writes them as visible escapes; JSON as JSON does.
#[cfg(unix)]
#[test]
fn class_8_human_output_writes_no_raw_escape() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let raw = |o: &Output| {
        o.stdout.contains(&0x1b)
            || o.stderr.contains(&0x1b)
            || String::from_utf8_lossy(&o.stdout).contains('\u{202e}')
            || String::from_utf8_lossy(&o.stderr).contains('\u{202e}')
    };
    // check: a refused literal, and a file whose name holds an escape.
    std::fs::write(
        dir.join("a.mesh"),
        "module a {\n  container c {\n    image \"x:1\"\n    env { A = \"x\u{1b}[2J\u{202e}y\" }\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("b\u{1b}[31m.mesh"), "module b { env }\n").unwrap();
    for args in [
        vec!["check", "a.mesh"],
        vec!["check", "b\u{1b}[31m.mesh"],
        vec!["check", "--format", "json", "a.mesh"],
    ] {
        let run = meshc(dir, &args);
        assert_eq!(run.status.code(), Some(1), "{}", said(&run));
        assert!(!raw(&run), "{args:?}: {:?}", said(&run));
    }
    let run = meshc(dir, &["check", "a.mesh"]);
    assert!(
        said(&run).contains("\\u{1b}[2J\\u{202e}y"),
        "{}",
        said(&run)
    );
    let run = meshc(dir, &["check", "b\u{1b}[31m.mesh"]);
    assert!(
        said(&run).contains("b\\u{1b}[31m.mesh:1:"),
        "{}",
        said(&run)
    );
    // import: a key the report names, written as the Compose file has it.
    let imp = dir.join("imp");
    std::fs::create_dir(&imp).unwrap();
    std::fs::write(
        imp.join("compose.yaml"),
        format!("{WEB}    \"x-\u{1b}]0;pwned\u{7}\": 1\n    \"odd\u{202e}key\": 2\n"),
    )
    .unwrap();
    let run = import(&imp, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(!raw(&run), "{:?}", said(&run));
    assert!(said(&run).contains("odd\\u{202e}key"), "{}", said(&run));
    // migrate: the diff shows the file's text, comments included.
    let mig = dir.join("mig");
    std::fs::create_dir(&mig).unwrap();
    std::fs::write(
        mig.join("m.mesh"),
        "module m {\n  container c {\n    image \"x:1\"\n    env { H = \"${machine:hostname}\" } // \u{1b}]0;pwned\u{7}\n  }\n}\n",
    )
    .unwrap();
    let run = meshc(&mig, &["migrate", "m.mesh"]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    assert!(!raw(&run), "{:?}", said(&run));
    assert!(
        said(&run).contains("// \\u{1b}]0;pwned\\u{7}"),
        "{}",
        said(&run)
    );
}

/// The line and excerpt title `meshc check` shows for each diagnostic, in order, and the
/// lines JSON gives.
fn human_and_json_lines(dir: &Path, file: &str) -> (Vec<u32>, Vec<u32>) {
    let human = meshc(dir, &["check", "--color", "never", file]);
    let text = String::from_utf8_lossy(&human.stderr).into_owned();
    let shown: Vec<u32> = text
        .lines()
        .filter_map(|l| {
            let at = l.find(&format!("[ {file}:"))? + file.len() + 3;
            l[at..].split(':').next()?.parse().ok()
        })
        .collect();
    let json = meshc(dir, &["check", "--format", "json", file]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let lines = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap() as u32)
        .collect();
    (shown, lines)
}

/// Class 14: a U+2028 or U+2029 in a comment (and the other characters ariadne takes
/// for a line end: a lone `\r`, `\x0B`, `\x0C`, U+0085) moved the excerpt's line number
/// away from JSON's. They agree, and the excerpt shows the line JSON names.
#[test]
fn class_14_an_excerpt_names_the_line_json_names() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("s.mesh"),
        "// one\u{2028}two\u{2029}three\rfour\u{b}five\u{c}six\u{85}seven\nmodule s {\n  container c {\n    image \"x\"\n  }\n}\n",
    )
    .unwrap();
    let (shown, json) = human_and_json_lines(tmp.path(), "s.mesh");
    assert_eq!(json, vec![4], "the unpinned image is on line 4");
    assert_eq!(shown, json);
    let human = meshc(tmp.path(), &["check", "--color", "never", "s.mesh"]);
    let text = String::from_utf8_lossy(&human.stderr);
    assert!(text.contains(" 4 │     image \"x\""), "{text}");
    assert!(!text.contains('\u{2028}'), "{text}");
}

/// Class 13: human diagnostics cost diagnostics × file size (each excerpt's place was
/// found by counting the lines before it), and a mapping of N entries in `import` cost
/// N² (each key was looked for among the keys before it). Output on large inputs stays
/// right; the figures are in docs/benchmarks.md, not here.
#[test]
fn class_13_large_inputs_give_every_diagnostic_and_every_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let n = 3000;
    let text: String = (0..n)
        .map(|i| format!("module m{i} {{ env {{ A = \"x\" }} }}\n"))
        .collect();
    std::fs::write(tmp.path().join("many.mesh"), text).unwrap();
    let (shown, json) = human_and_json_lines(tmp.path(), "many.mesh");
    assert_eq!(json.len(), n);
    assert_eq!(shown, json, "every excerpt is titled with JSON's line");
    assert_eq!(json, (1..=n as u32).collect::<Vec<_>>());
    // One mapping of 20,000 entries imports whole, in order, a key written twice refused.
    let entries = 20_000;
    let mut compose = format!("{WEB}    environment:\n");
    for i in 0..entries {
        compose.push_str(&format!("      V{i}: \"v{i}\"\n"));
    }
    let dir = tmp.path().join("big");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("compose.yaml"), &compose).unwrap();
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(0), "{}", said(&run));
    let module = std::fs::read_to_string(dir.join("out/web.mesh")).unwrap();
    let written: Vec<&str> = module
        .lines()
        .filter_map(|l| l.trim().strip_prefix('V')?.split(' ').next())
        .collect();
    assert_eq!(written.len(), entries);
    assert_eq!(written[0], "0");
    assert_eq!(written[entries - 1], (entries - 1).to_string());
    compose.push_str("      V7: \"again\"\n");
    std::fs::write(dir.join("compose.yaml"), &compose).unwrap();
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    let run = import(&dir, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", said(&run));
    assert!(said(&run).contains("the key `V7` is written twice"));
}
