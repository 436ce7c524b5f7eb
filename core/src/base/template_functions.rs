//! The template functions of LANGUAGE.md §12.4, and the rendering of a manifest's
//! templates. One implementation serves the compiler (a function applied to plain values
//! at build time) and the node (`meshc render` applying a sealed template's calls to the
//! secret values), so both give the same bytes.
//!
//! - `url(x)`: every byte of `x`'s UTF-8 but the RFC 3986 unreserved characters
//!   (`A-Z a-z 0-9 - . _ ~`) percent-encoded, hex digits upper case.
//! - `json(x)`: a JSON string literal, quotes included (`"` `\` and control characters
//!   escaped; `\n`, `\t`, `\r`, `\b`, `\f`, others `\u00XX`).
//! - `yaml(x)`: a YAML double-quoted scalar, quotes included (`"` `\` and every
//!   character that is not printable escaped: `\n`, `\t`, `\r`, `\0`, `\xXX` for other
//!   C0 and C1 controls and DEL, `\N` `\L` `\P` for U+0085, U+2028, U+2029, `\uFEFF`).
//! - `lower(x)`, `upper(x)`: Unicode case mapping (Rust's `str::to_lowercase` and
//!   `str::to_uppercase`).
//! - `replace(x, from, to)`: every non-overlapping `from`, left to right, replaced by
//!   `to`; an empty `from` leaves `x` as it is.

use std::fmt::Write as _;

/// Every function and how many arguments it takes.
pub const FUNCTIONS: &[(&str, usize)] = &[
    ("url", 1),
    ("json", 1),
    ("yaml", 1),
    ("lower", 1),
    ("upper", 1),
    ("replace", 3),
];

/// How many arguments `name` takes, or `None` for a name that is no function.
pub fn arity(name: &str) -> Option<usize> {
    FUNCTIONS.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

/// Applies function `name` to `args`. Errors name the function and what is wrong, never
/// an argument's value (it may be a secret).
pub fn apply(name: &str, args: &[&str]) -> Result<String, String> {
    let Some(want) = arity(name) else {
        return Err(format!("`{name}` is not a template function"));
    };
    if args.len() != want {
        return Err(format!(
            "`{name}` takes {want} argument{}, not {}",
            if want == 1 { "" } else { "s" },
            args.len()
        ));
    }
    Ok(match name {
        "url" => url(args[0]),
        "json" => json(args[0]),
        "yaml" => yaml(args[0]),
        "lower" => args[0].to_lowercase(),
        "upper" => args[0].to_uppercase(),
        "replace" => replace(args[0], args[1], args[2]),
        _ => unreachable!("every function of FUNCTIONS is applied"),
    })
}

/// `url(x)`.
pub fn url(x: &str) -> String {
    let mut out = String::with_capacity(x.len());
    for b in x.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `json(x)`.
pub fn json(x: &str) -> String {
    serde_json::to_string(x).expect("a string always serialises")
}

/// `yaml(x)`.
pub fn yaml(x: &str) -> String {
    let mut out = String::with_capacity(x.len() + 2);
    out.push('"');
    for c in x.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            '\u{feff}' => out.push_str("\\uFEFF"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            // YAML readers refuse U+FFFE and U+FFFF raw (PyYAML in Compose v1.29, Go's
            // yaml in v2), anywhere in the file; every non-character is escaped alike.
            c if is_noncharacter(c) && (c as u32) <= 0xffff => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if is_noncharacter(c) => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `c` is a Unicode non-character: U+FDD0–U+FDEF, and the last two code points
/// of every plane (U+FFFE, U+FFFF, U+1FFFE…).
pub fn is_noncharacter(c: char) -> bool {
    let n = c as u32;
    (0xfdd0..=0xfdef).contains(&n) || n & 0xfffe == 0xfffe
}

/// `replace(x, from, to)`.
pub fn replace(x: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        x.to_string()
    } else {
        x.replace(from, to)
    }
}

/// Renders a manifest template: `$$` is a literal `$`; `${REF}` is the value of reference
/// `REF` (as `lookup` gives it); `${f(ARG, …)}` applies a function, each argument a
/// reference, another call, or a JSON string literal holding a template of its own
/// (`"${db.user}:x"`, a literal `$` written `$$`), as the compiler writes a call whose
/// argument is composed text. Errors never hold a value.
pub fn render(
    template: &str,
    lookup: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(r) = after.strip_prefix('$') {
            out.push('$');
            rest = r;
        } else if let Some(r) = after.strip_prefix('{') {
            let mut p = Parser { text: r, pos: 0 };
            let value = p.expr(lookup)?;
            p.skip_space();
            if !p.eat('}') {
                return Err("a template reference is not closed by `}`".into());
            }
            out.push_str(&value);
            rest = &r[p.pos..];
        } else {
            return Err("a template holds a `$` that is neither `$$` nor `${`".into());
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The references a template reads (each `REF` of `${REF}` and of every call's
/// arguments), in order, once each. A template that does not parse gives what was read
/// before the fault.
pub fn references(template: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let _ = render(template, &mut |r| {
        if !seen.iter().any(|s: &String| s == r) {
            seen.push(r.to_string());
        }
        Ok(String::new())
    });
    seen
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start_matches([' ', '\t']).len();
    }

    fn eat(&mut self, c: char) -> bool {
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expr(
        &mut self,
        lookup: &mut dyn FnMut(&str) -> Result<String, String>,
    ) -> Result<String, String> {
        self.skip_space();
        if self.rest().starts_with('"') {
            // A string argument holds a template of its own (`"${db.user}:x"`, `$$`).
            let inner = self.string()?;
            return render(&inner, lookup);
        }
        let text = self.text;
        let r = &text[self.pos..];
        let len = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(r.len());
        if len == 0 {
            return Err("a template reference is empty or malformed".into());
        }
        let name = &r[..len];
        self.pos += len;
        self.skip_space();
        if !self.eat('(') {
            return lookup(name);
        }
        let name = name.to_string();
        let mut args = Vec::new();
        self.skip_space();
        if !self.eat(')') {
            loop {
                args.push(self.expr(lookup)?);
                self.skip_space();
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(format!(
                        "the call of `{name}` in a template is not closed by `)`"
                    ));
                }
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        apply(&name, &args)
    }

    /// A string literal in double quotes, with JSON's escapes.
    fn string(&mut self) -> Result<String, String> {
        let text = self.text;
        let r = &text[self.pos..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in r.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or("a string in a template is not closed by `\"`")?;
        let s: String = serde_json::from_str(&r[..=end])
            .map_err(|_| "a string in a template has an invalid escape".to_string())?;
        self.pos += end + 1;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(r: &str) -> Result<String, String> {
        match r {
            "db.password" => Ok("p\"a:s s\n/é".into()),
            "db.user" => Ok("Alpha_Forge".into()),
            other => Err(format!("no value for `{other}`")),
        }
    }

    #[test]
    fn functions_behave_as_specified() {
        assert_eq!(url("a b/é~-._"), "a%20b%2F%C3%A9~-._");
        assert_eq!(json("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(
            yaml("a\"b\\c\nd\u{1}\u{2028}é"),
            "\"a\\\"b\\\\c\\nd\\x01\\Lé\""
        );
        assert_eq!(apply("lower", &["ÀB"]).unwrap(), "àb");
        assert_eq!(apply("upper", &["àb"]).unwrap(), "ÀB");
        assert_eq!(yaml("\u{7}\u{80}\u{feff}"), "\"\\x07\\x80\\uFEFF\"");
        assert_eq!(replace("a-b-c", "-", "--"), "a--b--c");
        assert_eq!(replace("abc", "", "x"), "abc");
        assert!(apply("lowr", &["x"]).unwrap_err().contains("`lowr`"));
        assert!(
            apply("replace", &["x"])
                .unwrap_err()
                .contains("3 arguments")
        );
    }

    #[test]
    fn templates_render_references_calls_and_dollars() {
        let t = "u=${db.user} p=${json(db.password)} q=${url(db.password)} $$HOME ${ replace( lower(db.user) , \"_\", \"\\\"\" ) } ${replace(\"${db.user}:$$x\", \"_\", \"$$\")}";
        let got = render(t, &mut look).unwrap();
        assert_eq!(
            got,
            "u=Alpha_Forge p=\"p\\\"a:s s\\n/é\" q=p%22a%3As%20s%0A%2F%C3%A9 $HOME alpha\"forge Alpha$Forge:$x"
        );
        assert_eq!(
            references(t),
            vec!["db.user".to_string(), "db.password".to_string()]
        );
    }

    #[test]
    fn json_and_yaml_results_parse_back_to_the_value() {
        let value = "line one\nline \"two\"\t\\ end: #x\u{85}\u{2028}\u{7f}";
        let back: String = serde_json::from_str(&json(value)).unwrap();
        assert_eq!(back, value);
        let docs = yaml_rust2::YamlLoader::load_from_str(&format!("v: {}", yaml(value)))
            .expect("a YAML scalar");
        assert_eq!(docs[0]["v"].as_str(), Some(value));
        let y = yaml(value);
        assert!(!y[1..y.len() - 1].contains(['\n', '\t', '\u{85}', '\u{2028}', '\u{7f}']));
    }

    #[test]
    fn malformed_templates_are_refused_without_values() {
        for bad in ["${db.user", "$x", "${}", "${json(db.user}", "${\"open}"] {
            let e = render(bad, &mut look).unwrap_err();
            assert!(!e.contains("Alpha"), "{e}");
        }
        let e = render("${nope}", &mut look).unwrap_err();
        assert!(e.contains("`nope`"));
    }
}
