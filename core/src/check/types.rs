//! Types, values and refinements: the vocabulary the checker and the resolver share.

use crate::syntax::ast::{self, Expr, Refinement};
use std::fmt;

/// A type of the language (LANGUAGE.md §3), without the `secret` modifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    String,
    Int,
    Bool,
    Port,
    Uid,
    Mode,
    Hostname,
    Url,
    Email,
    Path,
    HostPath,
    Image,
    List(Box<Ty>),
    /// A type that did not resolve (already reported); accepts anything.
    Error,
}

/// The names of the scalar types, for messages and completion.
pub const TYPE_NAMES: &[&str] = &[
    "string",
    "int",
    "bool",
    "port",
    "uid",
    "mode",
    "hostname",
    "url",
    "email",
    "path",
    "host_path",
    "image",
];

impl Ty {
    /// The scalar type called `name`.
    pub fn from_name(name: &str) -> Option<Ty> {
        Some(match name {
            "string" => Ty::String,
            "int" => Ty::Int,
            "bool" => Ty::Bool,
            "port" => Ty::Port,
            "uid" => Ty::Uid,
            "mode" => Ty::Mode,
            "hostname" => Ty::Hostname,
            "url" => Ty::Url,
            "email" => Ty::Email,
            "path" => Ty::Path,
            "host_path" => Ty::HostPath,
            "image" => Ty::Image,
            _ => return None,
        })
    }

    /// Whether values of the type are integers (`port`, `uid` and `mode` are).
    pub fn is_int(&self) -> bool {
        matches!(self, Ty::Int | Ty::Port | Ty::Uid | Ty::Mode)
    }

    /// Whether values of the type are text a literal string may stand for.
    pub fn is_textual(&self) -> bool {
        matches!(
            self,
            Ty::String | Ty::Hostname | Ty::Url | Ty::Email | Ty::Path | Ty::Image
        )
    }

    /// The range every value of the type lies in, if the type has one.
    pub fn inherent_range(&self) -> Option<Bounds> {
        match self {
            Ty::Port => Some(Bounds::new(Some(1), Some(65535))),
            Ty::Uid => Some(Bounds::new(Some(0), Some(4_294_967_295))),
            Ty::Mode => Some(Bounds::new(Some(0), Some(0o7777))),
            _ => None,
        }
    }

    /// Whether a value of type `self` may stand where `expected` is wanted.
    pub fn fits(&self, expected: &Ty) -> bool {
        match (self, expected) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (a, b) if a == b => true,
            // port, uid and mode are ints with a range; an int fits where the range allows.
            (a, b) if a.is_int() && b.is_int() => true,
            // Text may stand for a textual type; it is checked once known (E0314).
            (Ty::String, b) if b.is_textual() => true,
            (a, Ty::String) if a.is_textual() => true,
            (Ty::List(a), Ty::List(b)) => a.fits(b),
            _ => false,
        }
    }

    /// Parses a written type; `None` for an unknown name (the caller reports it).
    pub fn from_ast(ty: &ast::TypeExpr) -> Result<Ty, &ast::Ident> {
        match &ty.base {
            ast::BaseType::Named(id) => Ty::from_name(&id.name).ok_or(id),
            ast::BaseType::List(inner) => Ok(Ty::List(Box::new(Ty::from_ast(inner)?))),
            ast::BaseType::Error => Ok(Ty::Error),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Ty::String => "string",
            Ty::Int => "int",
            Ty::Bool => "bool",
            Ty::Port => "port",
            Ty::Uid => "uid",
            Ty::Mode => "mode",
            Ty::Hostname => "hostname",
            Ty::Url => "url",
            Ty::Email => "email",
            Ty::Path => "path",
            Ty::HostPath => "host_path",
            Ty::Image => "image",
            Ty::List(inner) => return write!(f, "list<{inner}>"),
            Ty::Error => "?",
        };
        f.write_str(s)
    }
}

/// A value known at compile time.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    List(Vec<Value>),
}

impl Value {
    /// The type a literal value has by itself.
    pub fn ty(&self) -> Ty {
        match self {
            Value::Str(_) => Ty::String,
            Value::Int(_) => Ty::Int,
            Value::Bool(_) => Ty::Bool,
            Value::List(items) => {
                Ty::List(Box::new(items.first().map(Value::ty).unwrap_or(Ty::Error)))
            }
        }
    }

    /// The value as env text: ints in decimal, booleans as `true`/`false`.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::List(items) => items
                .iter()
                .map(Value::to_text)
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// The value of a literal expression (no references, no interpolation).
    pub fn from_literal(expr: &Expr) -> Option<Value> {
        Some(match expr {
            Expr::Str(s) => Value::Str(s.as_plain()?),
            Expr::Int(i) => Value::Int(i.value),
            Expr::Bool(b, _) => Value::Bool(*b),
            Expr::List(items, _) => Value::List(
                items
                    .iter()
                    .map(Value::from_literal)
                    .collect::<Option<_>>()?,
            ),
            Expr::Ref(_) | Expr::Range(_) | Expr::Call(_) | Expr::For(_) | Expr::Error(_) => {
                return None;
            }
        })
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// An inclusive range with optional ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bounds {
    pub lo: Option<i64>,
    pub hi: Option<i64>,
}

impl Bounds {
    /// A range from `lo` to `hi`.
    pub fn new(lo: Option<i64>, hi: Option<i64>) -> Bounds {
        Bounds { lo, hi }
    }

    /// The range written in a refinement.
    pub fn from_ast(r: &ast::RangeLit) -> Bounds {
        Bounds::new(
            r.lo.as_ref().map(|i| i.value),
            r.hi.as_ref().map(|i| i.value),
        )
    }

    /// Whether `v` lies in the range.
    pub fn contains(&self, v: i64) -> bool {
        self.lo.is_none_or(|lo| v >= lo) && self.hi.is_none_or(|hi| v <= hi)
    }

    /// Both ranges at once.
    pub fn intersect(&self, other: &Bounds) -> Bounds {
        Bounds {
            lo: max_opt(self.lo, other.lo),
            hi: min_opt(self.hi, other.hi),
        }
    }

    /// Whether no value lies in the range.
    pub fn is_empty(&self) -> bool {
        matches!((self.lo, self.hi), (Some(lo), Some(hi)) if lo > hi)
    }

    /// Whether `self` (a narrowing) allows a value that `base` refuses, comparing only the
    /// ends `self` writes: an end left out keeps the base's.
    pub fn widens(&self, base: &Bounds) -> bool {
        let lo_wider = matches!((self.lo, base.lo), (Some(a), Some(b)) if a < b);
        let hi_wider = matches!((self.hi, base.hi), (Some(a), Some(b)) if a > b);
        lo_wider || hi_wider
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(lo) = self.lo {
            write!(f, "{lo}")?;
        }
        f.write_str("..")?;
        if let Some(hi) = self.hi {
            write!(f, "{hi}")?;
        }
        Ok(())
    }
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The conjunction of every refinement that applies to a field (LANGUAGE.md §3.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Constraint {
    /// `in A..B`, intersected with the type's own range.
    pub range: Option<Bounds>,
    /// `len A..B` (characters of a string, items of a list).
    pub len: Option<Bounds>,
    /// `in {…}`: the value is one of these.
    pub one_of: Option<Vec<Value>>,
    /// `matches "…"`: the whole value matches every one of these.
    pub matches: Vec<String>,
    /// The constraint of something declared secret: its `in {…}` and `matches` say
    /// much of the value, so a [`Breach`] of it names neither.
    pub secret: bool,
}

/// Why a value breaks a constraint, for E0304/E0513 messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breach {
    Range(Bounds),
    Len(Bounds),
    OneOf(Vec<Value>),
    Matches(String),
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breach::Range(b) => write!(f, "must be in {b}"),
            Breach::Len(b) => write!(f, "must have a length in {b}"),
            // A secret's set and pattern are not shown (`Constraint::secret`).
            Breach::OneOf(vs) if vs.is_empty() => {
                f.write_str("must be one of the values its refinements allow")
            }
            Breach::Matches(re) if re.is_empty() => {
                f.write_str("must match the pattern its refinements give")
            }
            Breach::OneOf(vs) => {
                f.write_str("must be one of ")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                Ok(())
            }
            Breach::Matches(re) => write!(f, "must match `{re}`"),
        }
    }
}

impl Constraint {
    /// The constraint of type `ty` with no refinement: its inherent range.
    pub fn of_type(ty: &Ty) -> Constraint {
        Constraint {
            range: ty.inherent_range(),
            ..Constraint::default()
        }
    }

    /// Adds refinements (conjunction).
    pub fn refine(&mut self, refinements: &[Refinement]) {
        for r in refinements {
            match r {
                Refinement::InRange(b) => {
                    let b = Bounds::from_ast(b);
                    self.range = Some(self.range.map_or(b, |cur| cur.intersect(&b)));
                }
                Refinement::Len(b) => {
                    let b = Bounds::from_ast(b);
                    self.len = Some(self.len.map_or(b, |cur| cur.intersect(&b)));
                }
                Refinement::InSet(set) => {
                    let vals: Vec<Value> =
                        set.values.iter().filter_map(Value::from_literal).collect();
                    self.one_of = Some(match self.one_of.take() {
                        None => vals,
                        Some(cur) => cur.into_iter().filter(|v| vals.contains(v)).collect(),
                    });
                }
                Refinement::Matches(s) => {
                    if let Some(re) = s.as_plain() {
                        self.matches.push(re);
                    }
                }
            }
        }
    }

    /// The first refinement `value` breaks, if any.
    pub fn check(&self, value: &Value) -> Option<Breach> {
        if let (Some(b), Value::Int(i)) = (&self.range, value)
            && !b.contains(*i)
        {
            return Some(Breach::Range(*b));
        }
        if let Some(b) = &self.len {
            let len = match value {
                Value::Str(s) => Some(s.chars().count() as i64),
                Value::List(items) => Some(items.len() as i64),
                _ => None,
            };
            if let Some(len) = len
                && !b.contains(len)
            {
                return Some(Breach::Len(*b));
            }
        }
        if let Some(set) = &self.one_of
            && !set.contains(value)
        {
            return Some(Breach::OneOf(if self.secret {
                Vec::new()
            } else {
                set.clone()
            }));
        }
        if let Value::Str(s) = value {
            for re in &self.matches {
                if let Ok(r) = whole_match_regex(re)
                    && !r.is_match(s)
                {
                    return Some(Breach::Matches(if self.secret {
                        String::new()
                    } else {
                        re.clone()
                    }));
                }
            }
        }
        None
    }

    /// Whether no value can satisfy the constraint.
    pub fn is_empty(&self) -> bool {
        if self.range.is_some_and(|b| b.is_empty()) || self.len.is_some_and(|b| b.is_empty()) {
            return true;
        }
        if let Some(set) = &self.one_of {
            let probe = Constraint {
                one_of: None,
                ..self.clone()
            };
            return set.iter().all(|v| probe.check(v).is_some());
        }
        false
    }
}

/// The most memory one `matches` pattern may take once compiled. Real patterns take a
/// few kilobytes; `\w{250}N` (a Unicode class repeated) would take megabytes and tens
/// of milliseconds to build, on every check. Compiling stops as soon as a pattern
/// passes the limit.
pub const PATTERN_SIZE_LIMIT: usize = 256 * 1024;

/// The regex of a `matches "…"` refinement, anchored so it must match the whole value.
/// Each pattern is compiled once per process and kept, shared (a cloned `Regex` would
/// build its matching cache anew): a catalogue repeats its patterns across thousands of
/// modules, and the language server checks on every keystroke, on whichever worker
/// thread is free. A pattern over [`PATTERN_SIZE_LIMIT`] is refused with a sentence.
pub fn whole_match_regex(pattern: &str) -> Result<std::sync::Arc<regex::Regex>, String> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Compiled = Result<Arc<regex::Regex>, String>;
    static CACHE: OnceLock<Mutex<HashMap<String, Compiled>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return hit.clone();
    }
    // Compiled outside the lock: other threads keep reading the cache meanwhile.
    let compiled = regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map(Arc::new)
        .map_err(|e| match e {
            regex::Error::Syntax(text) => text
                .lines()
                .rev()
                .find(|l| l.starts_with("error:"))
                .map(|l| l.trim_start_matches("error:").trim().to_string())
                .unwrap_or(text),
            regex::Error::CompiledTooBig(limit) => format!(
                "the pattern is too large once compiled (over {} KiB); write it smaller (`\\w` is every letter of Unicode: `[A-Za-z0-9_]` is far smaller)",
                limit / 1024
            ),
            other => other.to_string(),
        });
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    // An editor session types many patterns on the way to one; keep the cache small.
    if cache.len() >= 4096 {
        cache.clear();
    }
    cache.insert(pattern.to_string(), compiled.clone());
    compiled
}

/// Checks that `value` is a valid literal of textual or mode type `ty` (E0314).
/// Returns why not, in words.
pub fn validate_literal(ty: &Ty, value: &Value) -> Result<(), String> {
    match (ty, value) {
        (Ty::Hostname, Value::Str(s)) => validate_hostname(s),
        (Ty::Url, Value::Str(s)) => validate_url(s),
        (Ty::Email, Value::Str(s)) => validate_email(s),
        (Ty::Path, Value::Str(s)) => validate_container_path(s),
        (Ty::Image, Value::Str(s)) => validate_image(s),
        (Ty::List(inner), Value::List(items)) => {
            items.iter().try_for_each(|v| validate_literal(inner, v))
        }
        _ => Ok(()),
    }
}

/// An RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens.
pub fn validate_hostname(s: &str) -> Result<(), String> {
    if s.is_empty() || s.len() > 253 {
        return Err("a host name has 1 to 253 characters".into());
    }
    for label in s.trim_end_matches('.').split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("each label of a host name has 1 to 63 characters".into());
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err("a host name has only letters, digits, hyphens and dots".into());
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err("a label of a host name neither starts nor ends with a hyphen".into());
        }
    }
    Ok(())
}

/// An absolute URL: `scheme://host[:port][/…]`.
pub fn validate_url(s: &str) -> Result<(), String> {
    let Some((scheme, rest)) = s.split_once("://") else {
        return Err("an absolute URL starts with a scheme and `://`".into());
    };
    if scheme.is_empty()
        || !scheme.as_bytes()[0].is_ascii_alphabetic()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return Err("the URL's scheme is not valid".into());
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = match host_port.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host_port,
    };
    if host.is_empty() {
        return Err("the URL names no host".into());
    }
    if s.chars().any(char::is_whitespace) {
        return Err("a URL holds no whitespace".into());
    }
    Ok(())
}

/// `local@domain`.
pub fn validate_email(s: &str) -> Result<(), String> {
    match s.rsplit_once('@') {
        Some((local, domain)) if !local.is_empty() && !local.contains(char::is_whitespace) => {
            validate_hostname(domain).map_err(|e| format!("the domain of the address: {e}"))
        }
        _ => Err("an email address is `local@domain`".into()),
    }
}

/// A duration of `health` (LANGUAGE.md §14.7): digits and one unit, `s`, `m`, `h` or
/// `d` (`"30s"`, `"7d"`), whose seconds fit a 64-bit number: a target converts it.
pub fn validate_duration(s: &str) -> Result<(), String> {
    let Some(unit) = s.bytes().last() else {
        return Err("a duration is digits and a unit, like `\"30s\"`; this is empty".into());
    };
    let per: i64 = match unit {
        b's' => 1,
        b'm' => 60,
        b'h' => 3600,
        b'd' => 86_400,
        _ => {
            return Err(
                "a duration ends with its unit, `s`, `m`, `h` or `d`, like `\"30s\"`".into(),
            );
        }
    };
    // The unit is one ASCII byte, so what comes before it ends on a character's boundary.
    let digits = &s[..s.len() - 1];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("a duration is a whole number of its unit, digits only, like `\"90s\"`".into());
    }
    match digits.parse::<i64>().ok().and_then(|n| n.checked_mul(per)) {
        Some(_) => Ok(()),
        None => Err("this duration is too long to be counted in seconds".into()),
    }
}

/// Whether `s` is a duration of `health` ([`validate_duration`]).
pub fn is_duration(s: &str) -> bool {
    validate_duration(s).is_ok()
}

/// An absolute, normalised container path with no `..` segment.
pub fn validate_container_path(s: &str) -> Result<(), String> {
    if plainly_normal(s) {
        return Ok(());
    }
    container_path_rule_by_rule(s)
}

/// [`validate_container_path`], each rule in turn.
fn container_path_rule_by_rule(s: &str) -> Result<(), String> {
    invisible_in_path(s)?;
    if !s.starts_with('/') {
        return Err("a container path is absolute (starts with `/`)".into());
    }
    if s.split('/').any(|seg| seg == "..") {
        return Err("a container path has no `..` segment".into());
    }
    if s == "/" {
        return Err(
            "the container's root `/` cannot be written over: name a directory or file under it"
                .into(),
        );
    }
    if s.contains("//") || s.split('/').any(|seg| seg == ".") || (s.len() > 1 && s.ends_with('/')) {
        return Err(format!(
            "the path is not normalised; write `{}`",
            normalise_path(s)
        ));
    }
    Ok(())
}

/// Whether `s` is a normalised absolute path of printable ASCII: `/`, then segments
/// that are neither empty, `.` nor `..`, separated by single slashes, with no `/` at the
/// end and no character [`validate_container_path`] or [`invisible_in_path`] refuses.
/// One pass over the bytes, for the paths nearly every definition writes; any other
/// path is looked at rule by rule, to say what is wrong with it.
pub fn plainly_normal(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'/' {
        return false;
    }
    let mut seg_start = 1;
    for i in 1..=b.len() {
        if i == b.len() || b[i] == b'/' {
            let seg = &b[seg_start..i];
            if seg.is_empty() || seg == b"." || seg == b".." {
                return false;
            }
            seg_start = i + 1;
        } else if !(b' '..=b'~').contains(&b[i]) {
            return false;
        }
    }
    true
}

/// A path holds no control character (tab and new line included) and no bidirectional
/// formatting character: what it names would not be what a reader sees.
pub fn invisible_in_path(s: &str) -> Result<(), String> {
    match s
        .chars()
        .find(|&c| c.is_control() || crate::syntax::string::invisible_char(c).is_some())
    {
        Some(c) => Err(format!(
            "a path holds no control or bidirectional formatting character; this one holds U+{:04X}",
            c as u32
        )),
        None => Ok(()),
    }
}

/// `/a//b/./c/` → `/a/b/c`.
pub fn normalise_path(s: &str) -> String {
    let segs: Vec<&str> = s
        .split('/')
        .filter(|seg| !seg.is_empty() && *seg != ".")
        .collect();
    format!("/{}", segs.join("/"))
}

/// Whether path `inner` is `outer` or lies under it.
pub fn path_is_under(inner: &str, outer: &str) -> bool {
    let outer = outer.trim_end_matches('/');
    inner == outer
        || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'))
        || outer.is_empty()
}

/// A container image reference `[registry/]name[:tag][@digest]`. The name is lowercase;
/// a tag is `[A-Za-z0-9_.-]`, up to 128 characters, not starting with `.` or `-`.
pub fn validate_image(s: &str) -> Result<(), String> {
    if s.is_empty() || s.chars().any(char::is_whitespace) {
        return Err("an image reference has no spaces".into());
    }
    let (name_tag, digest) = match s.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (s, None),
    };
    if let Some(d) = digest {
        match d.split_once(':') {
            Some((alg, hex)) if !alg.is_empty() && !hex.is_empty() => {}
            _ => return Err("a digest is written `algorithm:hex`".into()),
        }
    }
    let last = name_tag.rsplit('/').next().unwrap_or("");
    if name_tag.is_empty() || last.is_empty() || last.starts_with(':') {
        return Err("the image reference names no image".into());
    }
    let (name, tag) = match last.split_once(':') {
        Some((_, tag)) => (&name_tag[..name_tag.len() - tag.len() - 1], Some(tag)),
        None => (name_tag, None),
    };
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        return Err("the name of an image is lowercase".into());
    }
    if let Some(tag) = tag
        && (tag.is_empty()
            || tag.len() > 128
            || tag.starts_with(['.', '-'])
            || !tag
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)))
    {
        return Err(
            "a tag has up to 128 letters, digits, `_`, `.` and `-`, and starts with neither `.` nor `-`"
                .into(),
        );
    }
    Ok(())
}

/// The tag of an image reference, if it has one (the part after the last `:` of its name).
pub fn image_tag(s: &str) -> Option<&str> {
    let name = s.split('@').next().unwrap_or(s);
    let last = name.rsplit('/').next().unwrap_or(name);
    last.split_once(':').map(|(_, t)| t)
}

/// Whether an image reference carries a digest.
pub fn image_has_digest(s: &str) -> bool {
    s.contains('@')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass test of a normal path never lets through a path a rule refuses, and
    /// takes the usual ones.
    #[test]
    fn a_plainly_normal_path_passes_every_rule() {
        let samples = [
            "/data",
            "/run/secrets/db_password",
            "/a/b.c/d-e_f",
            "/x/.hidden",
            "/x/...",
            "/",
            "//",
            "/data/",
            "/a//b",
            "/a/./b",
            "/a/../b",
            "/..",
            "/.",
            "data",
            "",
            "/a b",
            "/caf\u{e9}",
            "/a\tb",
            "/a\u{202e}b",
            "/a\u{7f}",
            "/~x",
            "/a/b/",
        ];
        for s in samples {
            if plainly_normal(s) {
                assert_eq!(container_path_rule_by_rule(s), Ok(()), "{s:?}");
            }
            assert_eq!(
                validate_container_path(s),
                container_path_rule_by_rule(s),
                "{s:?}"
            );
        }
        for usual in [
            "/data",
            "/run/secrets/db_password",
            "/data/cache",
            "/x/.hidden",
        ] {
            assert!(plainly_normal(usual), "{usual}");
        }
        for odd in [
            "/",
            "/data/",
            "/a//b",
            "/a/./b",
            "/a/../b",
            "data",
            "/caf\u{e9}",
        ] {
            assert!(!plainly_normal(odd), "{odd}");
        }
    }

    #[test]
    fn literals() {
        assert!(validate_hostname("alpha.lab.internal").is_ok());
        assert!(validate_hostname("-bad").is_err());
        assert!(validate_url("https://git.example.org/x").is_ok());
        assert!(validate_url("git.example.org").is_err());
        assert!(validate_email("a@b.org").is_ok());
        assert!(validate_email("ab.org").is_err());
        assert!(validate_container_path("/data").is_ok());
        assert!(validate_container_path("data").is_err());
        assert!(validate_container_path("/a/../b").is_err());
        assert!(validate_container_path("/a//b").is_err());
        assert!(validate_container_path("/").is_err());
        assert!(validate_image("codeberg.org/forgejo/forgejo:9.0.3").is_ok());
        assert!(validate_image("minio/minio:RELEASE.2024-10-13T13-34-11Z").is_ok());
        assert!(validate_image("registry.lab.internal:5000/team/app").is_ok());
        assert!(validate_image("Nginx:1.27").is_err());
        assert!(validate_image("nginx 1.27").is_err());
        assert!(validate_image("nginx:").is_err());
        assert_eq!(image_tag("localhost:5000/x"), None);
        assert_eq!(image_tag("localhost:5000/x:1.2"), Some("1.2"));
    }

    #[test]
    fn bounds() {
        let base = Bounds::new(Some(16), None);
        assert!(Bounds::new(Some(8), None).widens(&base));
        assert!(!Bounds::new(Some(32), None).widens(&base));
        assert!(
            Bounds::new(Some(100), None)
                .intersect(&Bounds::new(Some(1), Some(64)))
                .is_empty()
        );
        assert!(path_is_under("/data/x", "/data"));
        assert!(!path_is_under("/database", "/data"));
    }
}
