//! Compose interpolation: `${VAR}`, `$VAR`, `${VAR:-default}`, `${VAR-default}`,
//! `${VAR:?message}`, `${VAR?message}`, `${VAR:+other}`, `${VAR+other}` and `$$`, read
//! from the `.env` file beside the Compose file (and only from it, so the result does not
//! depend on the shell that ran the import). A variable with no value and no default is
//! refused, naming it; so is a `${VAR:?message}` whose variable is unset.

use super::yaml::{Node, Yaml};
use std::collections::BTreeMap;

/// The variables of an `.env` file.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: BTreeMap<String, String>,
}

/// A problem of an env file: its line (1-based) and a sentence.
pub type LineProblem = (usize, String);

/// Reads an `.env` (or `env_file`) text: `KEY=VALUE` lines, `#` comments, an optional
/// `export ` prefix, values in single quotes (literal), double quotes (`\n`, `\"`, `\\`)
/// or bare (a ` #` starts a comment). Returns the pairs in order, or one message per bad
/// line (1-based).
pub fn parse_env_file(text: &str) -> Result<Vec<(String, String)>, Vec<LineProblem>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let Some((key, value)) = line.split_once('=') else {
            problems.push((i + 1, "the line is not `KEY=VALUE` (it has no `=`)".into()));
            continue;
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
        {
            problems.push((
                i + 1,
                "the text before `=` is not a variable name (letters, digits, `_`, `.` and `-`)"
                    .into(),
            ));
            continue;
        }
        let value = value.trim();
        let value = if let Some(rest) = value.strip_prefix('\'') {
            match rest.find('\'') {
                Some(end) => rest[..end].to_string(),
                None => {
                    problems.push((i + 1, format!("the value of `{key}` has no closing quote")));
                    continue;
                }
            }
        } else if let Some(rest) = value.strip_prefix('"') {
            let mut s = String::new();
            let mut chars = rest.chars();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some(o) => s.push(o),
                        None => {}
                    },
                    o => s.push(o),
                }
            }
            if !closed {
                problems.push((i + 1, format!("the value of `{key}` has no closing quote")));
                continue;
            }
            s
        } else {
            match value.find(" #") {
                Some(at) => value[..at].trim_end().to_string(),
                None => value.to_string(),
            }
        };
        out.push((key.to_string(), value));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

impl Vars {
    /// The variables of an `.env` text, later lines winning.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Vars {
        Vars {
            values: pairs.into_iter().collect(),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

pub use super::secrets::secret_name;

/// Interpolates one text. Returns the text and whether a variable with a secret name
/// was read, or the problem.
pub fn interpolate(text: &str, vars: &Vars) -> Result<(String, bool), String> {
    let mut out = String::new();
    let mut secret = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let c = bytes[i];
        if c != b'$' {
            let ch = text[i..].chars().next().unwrap_or_default();
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'$') => {
                out.push('$');
                i += 2;
            }
            Some(b'{') => {
                let start = i + 2;
                let mut depth = 1;
                let mut j = start;
                while j < text.len() {
                    match bytes[j] {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= text.len() {
                    // The text may be a secret: where, not what.
                    return Err(format!(
                        "the `${{` at character {} of the value has no closing brace",
                        text[..i].chars().count() + 1
                    ));
                }
                let inner = &text[start..j];
                let (value, s) = braced(inner, vars)?;
                secret |= s;
                out.push_str(&value);
                i = j + 1;
            }
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
                let start = i + 1;
                let mut j = start;
                while j < text.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                    j += 1;
                }
                let name = &text[start..j];
                match vars.get(name) {
                    Some(v) => {
                        secret |= secret_name(name);
                        out.push_str(v);
                    }
                    None => return Err(no_value(name)),
                }
                i = j;
            }
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
    Ok((out, secret))
}

fn no_value(name: &str) -> String {
    format!(
        "the variable `{name}` has no value: set it in the `.env` file beside the Compose file, or give a default (`${{{name}:-…}}`)"
    )
}

/// `${…}`'s inside: a name and an optional operator.
fn braced(inner: &str, vars: &Vars) -> Result<(String, bool), String> {
    let name_end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let name = &inner[..name_end];
    if name.is_empty() {
        return Err("a `${…}` names no variable (a name starts it)".into());
    }
    let rest = &inner[name_end..];
    let value = vars.get(name);
    let named_secret = secret_name(name);
    let (op, arg) = if let Some(a) = rest.strip_prefix(":-") {
        (":-", a)
    } else if let Some(a) = rest.strip_prefix(":?") {
        (":?", a)
    } else if let Some(a) = rest.strip_prefix(":+") {
        (":+", a)
    } else if let Some(a) = rest.strip_prefix('-') {
        ("-", a)
    } else if let Some(a) = rest.strip_prefix('?') {
        ("?", a)
    } else if let Some(a) = rest.strip_prefix('+') {
        ("+", a)
    } else if rest.is_empty() {
        ("", "")
    } else {
        return Err(format!(
            "`${{{name}…}}` is not an interpolation Compose knows: after the name comes `}}`, `:-`, `-`, `:?`, `?`, `:+` or `+`"
        ));
    };
    let set_nonempty = value.is_some_and(|v| !v.is_empty());
    match op {
        "" => match value {
            Some(v) => Ok((v.to_string(), named_secret)),
            None => Err(no_value(name)),
        },
        ":-" if set_nonempty => Ok((value.unwrap_or_default().to_string(), named_secret)),
        "-" if value.is_some() => Ok((value.unwrap_or_default().to_string(), named_secret)),
        ":-" | "-" => interpolate(arg, vars),
        ":?" if set_nonempty => Ok((value.unwrap_or_default().to_string(), named_secret)),
        "?" if value.is_some() => Ok((value.unwrap_or_default().to_string(), named_secret)),
        ":?" | "?" => Err(format!(
            "the variable `{name}` has no value: {}",
            if arg.is_empty() {
                "it is required"
            } else {
                arg
            }
        )),
        ":+" if set_nonempty => interpolate(arg, vars),
        "+" if value.is_some() => interpolate(arg, vars),
        _ => Ok((String::new(), false)),
    }
}

/// Interpolates every scalar of `node` (keys are left as written), marking the scalars
/// that read a secret-named variable. Every problem is returned with its line.
pub fn interpolate_tree(node: &mut Node, vars: &Vars, problems: &mut Vec<(usize, String)>) {
    let line = node.line;
    match &mut node.value {
        Yaml::Scalar(s) => match interpolate(s, vars) {
            Ok((text, secret)) => {
                *s = text;
                node.secret_hint = secret;
            }
            Err(e) => problems.push((line, e)),
        },
        Yaml::Seq(items) => {
            for item in items {
                interpolate_tree(item, vars, problems);
            }
        }
        Yaml::Map(entries) => {
            for (_, v) in entries {
                interpolate_tree(v, vars, problems);
            }
        }
        Yaml::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars::from_pairs(
            parse_env_file(
                "# comment\nDB_PASSWORD=\"s3cr3t pass\"\nexport TAG=16.4\nEMPTY=\nNAME='app' \nPLAIN=x #note\n",
            )
            .unwrap(),
        )
    }

    #[test]
    fn reads_env_files() {
        let v = vars();
        assert_eq!(v.get("DB_PASSWORD"), Some("s3cr3t pass"));
        assert_eq!(v.get("TAG"), Some("16.4"));
        assert_eq!(v.get("EMPTY"), Some(""));
        assert_eq!(v.get("NAME"), Some("app"));
        assert_eq!(v.get("PLAIN"), Some("x"));
        let e = parse_env_file("GOOD=1\nno equals sign\n").unwrap_err();
        assert_eq!(e[0].0, 2);
    }

    #[test]
    fn interpolates_every_form() {
        let v = vars();
        let i = |t: &str| interpolate(t, &v);
        assert_eq!(i("postgres:${TAG}").unwrap().0, "postgres:16.4");
        assert_eq!(i("$TAG-x").unwrap().0, "16.4-x");
        assert_eq!(i("${MISSING:-5432}").unwrap().0, "5432");
        assert_eq!(i("${EMPTY:-d}").unwrap().0, "d");
        assert_eq!(i("${EMPTY-d}").unwrap().0, "");
        assert_eq!(i("${TAG:+yes}${MISSING:+no}").unwrap().0, "yes");
        assert_eq!(i("$$HOME").unwrap().0, "$HOME");
        assert_eq!(i("${MISSING:-${TAG}}").unwrap().0, "16.4");
        assert!(
            i("${DB_PASSWORD}").unwrap().1,
            "a secret name marks the value"
        );
        assert!(!i("${TAG}").unwrap().1);
        let e = i("${NOPE}").unwrap_err();
        assert!(e.contains("`NOPE` has no value"), "{e}");
        let e = i("${NOPE:?set the region}").unwrap_err();
        assert!(e.contains("set the region"), "{e}");
    }
}
