//! `meshc secrets MANIFEST… --secrets DIR [--format json]` (issue 35), run by the
//! operator before the first `meshc render`: every secret value the manifests' renders
//! will read, laid out as render reads it (`DIR/<node>/<instance>/<key>`).
//!
//! - A value a `secret` requirement asks the vault for is minted as the vault would: the
//!   `length` and `alphabet` its provider's manifest lists among the consumer's given
//!   fields, from the operating system's cryptographic source.
//! - A secret field of another contract (a database password the provider and its
//!   consumer share) is minted as the `secret` contract's default: 32 characters of
//!   `alnum`.
//! - An operator secret (`requires key: operator secret …`) is the operator's to give:
//!   listed, all of them, with the file each goes in. So is a `secret` requirement whose
//!   provider's manifest was not given (its length and alphabet are written there).
//!
//! An existing value is never overwritten, whatever it is. Folders are made 0700, values
//! written 0400, each created exclusively and never through a link. No value is printed.

use super::output::{self, Format};
use super::render::{self, Fail, Manifest, Sealed, sealed_of_value};
use meshc::base::visible::visible;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What becomes of one value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Plan {
    /// Minted: so many characters of this alphabet.
    Mint { length: usize, alphabet: String },
    /// The operator's to give: for requirement `requirement` of the instance `login`.
    Operator { login: String, requirement: String },
    /// A vault secret whose length and alphabet are in a manifest that was not given.
    Unknown { node: String },
}

/// The characters of an alphabet of the standard `secret` contract.
fn alphabet(name: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match name {
        "alnum" => {
            out.extend(b'A'..=b'Z');
            out.extend(b'a'..=b'z');
            out.extend(b'0'..=b'9');
        }
        "hex" => {
            out.extend(b'0'..=b'9');
            out.extend(b'a'..=b'f');
        }
        "base64url" => {
            out.extend(b'A'..=b'Z');
            out.extend(b'a'..=b'z');
            out.extend(b'0'..=b'9');
            out.extend([b'-', b'_']);
        }
        "ascii" => out.extend(0x21u8..=0x7e),
        _ => return None,
    }
    Some(out)
}

/// `length` characters drawn uniformly from `chars`, from the system's cryptographic
/// source: a random byte is used only below the largest multiple of the alphabet's size
/// (rejection, so no character is likelier than another).
fn mint(length: usize, chars: &[u8]) -> Result<String, String> {
    let n = chars.len();
    let below = 256 - 256 % n;
    let mut out = String::with_capacity(length);
    let mut pool = [0u8; 256];
    while out.len() < length {
        getrandom::fill(&mut pool)
            .map_err(|e| format!("the system's random source failed: {e}"))?;
        for &b in &pool {
            if (b as usize) < below && out.len() < length {
                out.push(chars[b as usize % n] as char);
            }
        }
    }
    Ok(out)
}

/// Every sealed reference the containers of `m` read, in order, once each.
fn references(m: &Manifest) -> Vec<Sealed> {
    let mut out = Vec::new();
    for i in &m.instances {
        for c in &i.containers {
            for f in c.files.iter().chain(&c.secrets) {
                if let Some(s) = &f.sealed {
                    out.push(s.clone());
                }
                for r in f.references.iter().flat_map(|r| r.values()) {
                    sealed_of_value(r, &mut out);
                }
            }
            for v in c.env.values() {
                sealed_of_value(v, &mut out);
            }
        }
    }
    out
}

/// Decides what becomes of `s`, from every manifest given.
fn plan_of(s: &Sealed, manifests: &[Manifest]) -> Plan {
    let (login, field) = s.key.split_once('/').unwrap_or((s.key.as_str(), ""));
    // An operator secret: a requirement of kind `operator` sealed under this reference.
    for m in manifests {
        for i in &m.instances {
            for (name, r) in &i.requirements {
                if r.get("kind").and_then(Value::as_str) == Some("operator")
                    && r.get("sealed")
                        .and_then(|v| serde_json::from_value::<Sealed>(v.clone()).ok())
                        .is_some_and(|x| &x == s)
                {
                    return Plan::Operator {
                        login: i.login.clone(),
                        requirement: name.clone(),
                    };
                }
            }
        }
    }
    // The provider's manifest: its `provides` entry for this consumer.
    let provider = manifests
        .iter()
        .filter(|m| m.node == s.by.node)
        .flat_map(|m| &m.instances)
        .find(|i| i.instance == s.by.instance);
    if let Some(p) = provider {
        for provided in &p.provides {
            let consumer = provided
                .get("consumers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|c| c.get("login").and_then(Value::as_str) == Some(login));
            let Some(consumer) = consumer else { continue };
            if provided.get("contract").and_then(Value::as_str) == Some("secret") {
                let given = &consumer["given"];
                return Plan::Mint {
                    length: given
                        .get("length")
                        .and_then(Value::as_u64)
                        .map_or(32, |n| n as usize),
                    alphabet: given
                        .get("alphabet")
                        .and_then(Value::as_str)
                        .unwrap_or("alnum")
                        .to_string(),
                };
            }
        }
        return Plan::Mint {
            length: 32,
            alphabet: "alnum".into(),
        };
    }
    // The provider is on a node whose manifest was not given: the consumer's own
    // requirement says which contract it answers.
    let contract = manifests
        .iter()
        .flat_map(|m| &m.instances)
        .filter(|i| i.login == login)
        .flat_map(|i| i.requirements.values())
        .find(|r| {
            r.get("kind").and_then(Value::as_str) == Some("module")
                && r.get("provider").is_some_and(|p| {
                    p["node"] == s.by.node.as_str() && p["instance"] == s.by.instance.as_str()
                })
        })
        .and_then(|r| r.get("contract").and_then(Value::as_str));
    if contract == Some("secret") || field == "value" && contract.is_none() {
        Plan::Unknown {
            node: s.by.node.clone(),
        }
    } else {
        Plan::Mint {
            length: 32,
            alphabet: "alnum".into(),
        }
    }
}

/// Makes every folder from `dir` down to `path`'s parent, 0700, refusing any that is a
/// link or not a folder.
fn make_folders(dir: &Path, path: &Path) -> Result<(), String> {
    let rel = path.parent().and_then(|p| p.strip_prefix(dir).ok());
    let mut at = dir.to_path_buf();
    for part in rel.into_iter().flat_map(|r| r.components()) {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() && !m.file_type().is_symlink() => {}
            Ok(_) => {
                return Err(format!(
                    "`{}` is not a folder (a link or a file); it is left alone",
                    visible(&at.display().to_string())
                ));
            }
            Err(_) => fs::DirBuilder::new().mode(0o700).create(&at).map_err(|e| {
                format!(
                    "cannot create `{}`: {}",
                    visible(&at.display().to_string()),
                    super::workspace::plain(&e)
                )
            })?,
        }
    }
    Ok(())
}

/// Writes a minted value at `path`: created exclusively (an existing name, a link
/// included, is never written through), 0400 from its creation.
fn write_value(path: &Path, value: &str) -> Result<(), String> {
    let failed = |e: std::io::Error| {
        format!(
            "cannot write `{}`: {}",
            visible(&path.display().to_string()),
            super::workspace::plain(&e)
        )
    };
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o400)
        .open(path)
        .map_err(failed)?;
    f.write_all(value.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|e| {
            let _ = fs::remove_file(path);
            failed(e)
        })
}

pub fn run(manifests: Vec<PathBuf>, dir: PathBuf, format: Format) -> u8 {
    let mut read = Vec::new();
    for p in &manifests {
        match render::read_manifest(p) {
            Ok((m, _)) => read.push(m),
            Err(f) => {
                return match f {
                    Fail::Refused(m) => {
                        output::say(&m);
                        output::say("no value was written");
                        1
                    }
                    Fail::Io(m) | Fail::Left(m) => {
                        output::say(&m);
                        2
                    }
                };
            }
        }
    }
    // The folder: made 0700 if missing; one open to others is refused, as render does.
    if !dir.exists()
        && let Err(e) = fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
    {
        output::say(&format!(
            "cannot create `{}`: {}",
            visible(&dir.display().to_string()),
            super::workspace::plain(&e)
        ));
        return 2;
    }
    if let Err(f) = render::check_secrets_dir(&dir) {
        let (Fail::Refused(m) | Fail::Io(m) | Fail::Left(m)) = f;
        output::say(&m);
        return 1;
    }
    let mut planned: BTreeMap<String, (Sealed, Plan)> = BTreeMap::new();
    let mut refused: Vec<String> = Vec::new();
    for m in &read {
        for s in references(m) {
            if let Err(why) = s.path_in(&dir) {
                refused.push(why);
                continue;
            }
            planned
                .entry(s.name())
                .or_insert_with(|| (s.clone(), plan_of(&s, &read)));
        }
    }
    if !refused.is_empty() {
        refused.sort();
        refused.dedup();
        for r in &refused {
            output::say(r);
        }
        output::say("no value was written");
        return 1;
    }
    let mut minted = Vec::new();
    let mut kept = Vec::new();
    let mut operator = Vec::new();
    let mut unknown = Vec::new();
    let mut failed = Vec::new();
    for (name, (s, plan)) in &planned {
        let path = s.path_in(&dir).expect("checked above");
        let exists = fs::symlink_metadata(&path).is_ok();
        let file = path.display().to_string();
        if exists {
            let regular = fs::metadata(&path).is_ok_and(|m| m.is_file());
            let open = fs::metadata(&path).is_ok_and(|m| m.mode() & 0o004 != 0);
            kept.push(
                json!({"name": name, "file": file, "regular": regular, "open_to_others": open}),
            );
            continue;
        }
        match plan {
            Plan::Mint {
                length,
                alphabet: a,
            } => {
                let Some(chars) = alphabet(a) else {
                    failed.push(format!(
                        "`{}`: the alphabet `{}` is not one the vault mints from",
                        visible(name),
                        visible(a)
                    ));
                    continue;
                };
                if !(1..=4096).contains(length) {
                    failed.push(format!(
                        "`{}`: a length of {length} is not one the vault mints",
                        visible(name)
                    ));
                    continue;
                }
                let result = mint(*length, &chars)
                    .and_then(|v| make_folders(&dir, &path).map(|_| v))
                    .and_then(|v| write_value(&path, &v));
                match result {
                    Ok(()) => minted
                        .push(json!({"name": name, "file": file, "length": length, "alphabet": a})),
                    Err(e) => failed.push(e),
                }
            }
            Plan::Operator { login, requirement } => operator.push(json!({
                "name": name, "file": file, "login": login, "requirement": requirement,
            })),
            Plan::Unknown { node } => unknown.push(json!({
                "name": name, "file": file, "manifest_of": node,
            })),
        }
    }
    let code = if !failed.is_empty() {
        2
    } else if !operator.is_empty() || !unknown.is_empty() {
        1
    } else {
        0
    };
    match format {
        Format::Json => {
            output::stdout_line(
                &json!({
                    "secrets": dir.display().to_string(),
                    "minted": minted,
                    "kept": kept,
                    "operator": operator,
                    "unknown": unknown,
                    "failed": failed,
                })
                .to_string(),
            );
        }
        _ => said(&dir, &minted, &kept, &operator, &unknown),
    }
    for f in &failed {
        output::say(f);
    }
    code
}

/// The human summary: counts, then every value still to give, one per line.
fn said(dir: &Path, minted: &[Value], kept: &[Value], operator: &[Value], unknown: &[Value]) {
    let s = |v: &Value, k: &str| visible(v[k].as_str().unwrap_or_default()).into_owned();
    output::say(&format!(
        "{} value{} minted, {} already in `{}` kept as they are",
        minted.len(),
        if minted.len() == 1 { "" } else { "s" },
        kept.len(),
        visible(&dir.display().to_string())
    ));
    for k in kept {
        if k["regular"] == false {
            output::say(&format!(
                "`{}` is not a regular file: render refuses it",
                s(k, "file")
            ));
        } else if k["open_to_others"] == true {
            output::say(&format!(
                "`{}` is readable by other users: render refuses it (`chmod o-rwx`)",
                s(k, "file")
            ));
        }
    }
    if !operator.is_empty() {
        output::say(&format!(
            "{} value{} only the operator can give (operator secrets); write each into its file (0400):",
            operator.len(),
            if operator.len() == 1 { "" } else { "s" }
        ));
        for o in operator {
            output::say(&format!(
                "  `{}` ← `{}` of `{}`",
                s(o, "file"),
                s(o, "requirement"),
                s(o, "login")
            ));
        }
    }
    if !unknown.is_empty() {
        let nodes: BTreeSet<String> = unknown.iter().map(|u| s(u, "manifest_of")).collect();
        output::say(&format!(
            "{} value{} the vault mints with a length and alphabet its node's manifest says; give the manifest of {} too:",
            unknown.len(),
            if unknown.len() == 1 { "" } else { "s" },
            nodes
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for u in unknown {
            output::say(&format!("  `{}`", s(u, "file")));
        }
    }
    if operator.is_empty() && unknown.is_empty() {
        output::say("every value render needs is in place");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_values_have_their_length_and_alphabet_and_differ() {
        for (name, len) in [
            ("alnum", 32),
            ("hex", 64),
            ("base64url", 40),
            ("ascii", 200),
        ] {
            let chars = alphabet(name).unwrap();
            let a = mint(len, &chars).unwrap();
            let b = mint(len, &chars).unwrap();
            assert_eq!(a.len(), len);
            assert!(a.bytes().all(|c| chars.contains(&c)), "{name}: {a}");
            assert_ne!(a, b, "two mints are never alike");
        }
        assert!(alphabet("emoji").is_none());
        // Every character of a small alphabet turns up: no byte value is left out.
        let hex = mint(4096, &alphabet("hex").unwrap()).unwrap();
        assert!(
            alphabet("hex")
                .unwrap()
                .iter()
                .all(|c| hex.as_bytes().contains(c))
        );
    }
}
