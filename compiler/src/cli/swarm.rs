//! `--target swarm` at the command line (LANGUAGE.md §14.4, docs/swarm.md): what the
//! build says of the stack, and `meshc render --swarm`, which writes on the manager the
//! files the stack's configs, secrets and env files read.

use super::output;
use super::render::Fail;
use meshc::base::visible::visible;
use meshc::emit::swarm::{self, Kind};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most of a stack, a manifest's rendered file or env file read back: a file render
/// wrote is within it, and a pipe or a device is never read.
const MAX_READ: u64 = 64 * 1024 * 1024;

/// What Swarm will not do of a stack just built into `out`, one sentence each, from the
/// notes its header holds (see [`swarm::NOTE_LINE`]).
pub fn notes(out: &Path) -> Vec<String> {
    use std::io::BufRead;
    let Ok(stack) = fs::File::open(out.join(swarm::STACK)) else {
        return Vec::new();
    };
    // The notes are in the header: the stack's services (megabytes for a large mesh) are
    // never read.
    std::io::BufReader::new(stack)
        .lines()
        .map_while(Result::ok)
        .take_while(|l| l.starts_with('#'))
        .filter_map(|l| {
            l.strip_prefix(swarm::NOTE_LINE)
                .map(|n| format!("note: --target swarm: {n}"))
        })
        .collect()
}

/// `meshc render --swarm DIR --secrets SECRETS --out STAGE`.
pub fn render(dir: PathBuf, secrets: PathBuf, stage: PathBuf) -> u8 {
    match render_stage(&dir, &secrets, &stage) {
        Ok(n) => {
            output::say(&format!(
                "rendered {n} file{} into {}; deploy with: set -a; . {}/stack.env; set +a; docker stack deploy -c {} --prune MESH",
                if n == 1 { "" } else { "s" },
                stage.display(),
                stage.display(),
                dir.join(swarm::STACK).display()
            ));
            0
        }
        Err(m) => {
            output::say(&m);
            1
        }
    }
}

fn render_stage(dir: &Path, secrets: &Path, stage: &Path) -> Result<usize, String> {
    let stack_path = dir.join(swarm::STACK);
    // Read as every file meshc reads: bounded, and a pipe or a device refused unopened.
    let stack = super::render::read_bounded(&stack_path, MAX_READ, "the stack")
        .map_err(|f| {
            format!(
                "{} (built by `meshc build --target swarm`)",
                f.into_sentence()
            )
        })
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| {
                format!(
                    "`{}` is not UTF-8: it is no stack meshc built",
                    visible(&stack_path.display().to_string())
                )
            })
        })?;
    let nodes: Vec<&str> = stack
        .lines()
        .filter_map(|l| l.strip_prefix(swarm::NODE_LINE))
        .filter_map(|l| l.split(' ').next())
        .collect();
    if nodes.is_empty() {
        return Err(format!(
            "`{}` names no manifest: build it again with this meshc",
            stack_path.display()
        ));
    }
    for n in &nodes {
        if n.is_empty()
            || n.contains(['/', '\\'])
            || n.starts_with('.')
            || n.chars().any(char::is_control)
        {
            return Err(format!(
                "`{}` names the node `{}`, which is not a plain name",
                stack_path.display(),
                meshc::base::visible::visible(n)
            ));
        }
    }
    let stage = std::path::absolute(stage)
        .map_err(|e| format!("cannot resolve `{}`: {e}", stage.display()))?;
    let stage_text = stage.display().to_string();
    if stage_text.contains(['\'', '\n', '\r']) {
        return Err(format!(
            "the stage `{}` holds a quote or a line break, which stack.env cannot carry",
            meshc::base::visible::visible(&stage_text)
        ));
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&stage)
        .map_err(|e| {
            format!(
                "cannot create `{}`: {}",
                stage.display(),
                super::workspace::plain(&e)
            )
        })?;
    // Until every file is written, no stack.env: a deploy in between is refused by the
    // engine instead of pairing earlier digests with new contents.
    let env_path = stage.join("stack.env");
    if let Err(e) = fs::remove_file(&env_path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(format!(
            "cannot remove `{}`: {}",
            env_path.display(),
            super::workspace::plain(&e)
        ));
    }
    // Each node's files are rendered as `meshc render` renders them on the node, into a
    // root of the stage's own, then read back as the stack's files.
    let work = stage.join(".render");
    if work.exists() {
        fs::remove_dir_all(&work).map_err(|e| {
            format!(
                "cannot remove `{}`: {}",
                work.display(),
                super::workspace::plain(&e)
            )
        })?;
    }
    let mut env = format!("{}='{stage_text}'\n", swarm::STAGE_VAR);
    let mut count = 0;
    let result = (|| -> Result<(), String> {
        for node in &nodes {
            let manifest_path = dir.join(format!("{node}.json"));
            let root = work.join(node);
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&root)
                .map_err(|e| {
                    format!(
                        "cannot create `{}`: {}",
                        root.display(),
                        super::workspace::plain(&e)
                    )
                })?;
            // The manifest as render read it, once: bounded, its digest and every name it
            // joins to a path checked.
            let manifest = super::render::render_files(&manifest_path, secrets, &root)?;
            let files = root.join(".mesh/files");
            for i in &manifest.instances {
                let login = i.login.as_str();
                for c in &i.containers {
                    let name = c.name.as_str();
                    // Named as the stack names them (`emit::swarm::delivered`).
                    let delivered = c
                        .files
                        .iter()
                        .map(|f| (false, f))
                        .chain(c.secrets.iter().map(|f| (true, f)));
                    for (secret, f) in delivered {
                        let kind = swarm::file_kind(secret, f.content.is_some());
                        let key = swarm::key_of(kind, node, login, name, &f.target);
                        let from = files
                            .join(login)
                            .join(name)
                            .join(f.target.trim_start_matches('/'));
                        let bytes = super::render::read_bounded(&from, MAX_READ, "a rendered file")
                            .map_err(Fail::into_sentence)?;
                        write_private(&stage.join(&key), &bytes)?;
                        env.push_str(&format!(
                            "{}={}\n",
                            swarm::digest_var(&key),
                            swarm::short_digest(&bytes)
                        ));
                        count += 1;
                    }
                    // Env values only render writes: anything but text (as
                    // `emit::compose::has_sealed_env`).
                    if c.env.values().any(|v| !v.is_string()) {
                        // Render's env file quotes each value for Compose; the engine's
                        // reader takes a line as it is.
                        let from = files.join(login).join(format!("{name}.env"));
                        let text =
                            super::render::read_bounded(&from, MAX_READ, "a rendered env file")
                                .map_err(Fail::into_sentence)
                                .map(|b| String::from_utf8_lossy(&b).into_owned())?;
                        let mut plain = String::new();
                        for line in text.lines() {
                            let (k, v) = line.split_once('=').unwrap_or((line, ""));
                            let v = v
                                .strip_prefix('\'')
                                .and_then(|v| v.strip_suffix('\''))
                                .unwrap_or(v);
                            plain.push_str(&format!("{k}={v}\n"));
                        }
                        let key = swarm::key_of(Kind::Env, node, login, name, "");
                        write_private(&stage.join(format!("{key}.env")), plain.as_bytes())?;
                        count += 1;
                    }
                }
            }
        }
        Ok(())
    })();
    let _ = fs::remove_dir_all(&work);
    result?;
    write_private(&stage.join("stack.env"), env.as_bytes())?;
    Ok(count)
}

/// Writes `bytes` to `path`, readable by its owner only (the manager's `docker` reads it
/// at deploy), replacing what was there.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let aside = path.with_extension("new");
    let _ = fs::remove_file(&aside);
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o400)
        .open(&aside)
        .map_err(|e| {
            format!(
                "cannot write `{}`: {}",
                aside.display(),
                super::workspace::plain(&e)
            )
        })?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| {
            format!(
                "cannot write `{}`: {}",
                aside.display(),
                super::workspace::plain(&e)
            )
        })?;
    fs::rename(&aside, path).map_err(|e| {
        format!(
            "cannot write `{}`: {}",
            path.display(),
            super::workspace::plain(&e)
        )
    })
}
