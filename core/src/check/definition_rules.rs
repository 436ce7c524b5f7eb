//! What a definition never names (LANGUAGE.md §5.6, ADR 0112): a domain name (E0402) or
//! a node (E0404). Both look at every string literal of a contract or module, except an
//! image reference (exempt from the domain rule by the specification) and the reason of
//! `exposed` (prose for the reader, like a comment).
//!
//! A domain name is a token of the text shaped like a host name, `label(.label)+`, whose
//! last label is a known top-level domain. Tokens that are file names or paths are left
//! alone: a token right after a single `/` is a path segment (`/etc/app.local`), and a
//! token that starts with a dot is a hidden file (`.env.local`), unless it continues an
//! interpolation (`"${db.host}.example.com"`).

use super::Cx;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::NamedInDefinition;
use crate::span::Span;
use crate::syntax::ast::{
    ContainerEntryKind, Contract, Expr, Module, ModuleEntry, NarrowingKind, Refinement,
    RequirementBody, StrPart, StringLit,
};

/// The top-level domains the rule knows: those of the specification, and common
/// country and generic ones that are not also common file extensions (no `sh`, `py`,
/// `rs`, `md`, `pl`, `pt`, `ai`, `zip`, `mov`, `in`, `so`, `cc`).
const TLDS: &[&str] = &[
    // LANGUAGE.md §5.6
    "com",
    "net",
    "org",
    "io",
    "dev",
    "app",
    "cloud",
    "de",
    "eu",
    "uk",
    "fr",
    "nl",
    "ch",
    "at",
    "lan",
    "local",
    "localdomain",
    "internal",
    "home",
    "corp",
    "example",
    "test",
    "invalid",
    "arpa", // generic
    "co",
    "me",
    "info",
    "biz",
    "edu",
    "gov",
    "mil",
    "int",
    "xyz",
    "online",
    "site",
    "tech",
    "space",
    "website",
    "store",
    "shop",
    "blog",
    "news",
    "email",
    "social",
    "host",
    "network",
    "systems",
    "digital",
    "works",
    "codes",
    "software",
    "tv",
    "fm",
    "gg",
    "ly",
    // country codes
    "us",
    "ca",
    "au",
    "nz",
    "jp",
    "cn",
    "kr",
    "tw",
    "hk",
    "sg",
    "ru",
    "ua",
    "by",
    "kz",
    "it",
    "es",
    "be",
    "lu",
    "dk",
    "se",
    "no",
    "fi",
    "is",
    "ie",
    "cz",
    "sk",
    "hu",
    "ro",
    "bg",
    "gr",
    "hr",
    "si",
    "ee",
    "lv",
    "lt",
    "tr",
    "il",
    "za",
    "br",
    "ar",
    "mx",
    "cl",
];

/// Checks the string literals of a contract: field defaults and refinement sets.
pub(crate) fn check_contract_literals(cx: &mut Cx<'_>, contract: &Contract) {
    let secret = super::secrets::contract_spans(contract);
    let mut rules = Rules {
        cx,
        quote: true,
        secret,
    };
    for field in &contract.fields {
        rules.refinements(&field.refinements);
        if let Some(d) = &field.default {
            let secret = field.ty.as_ref().is_some_and(|t| t.secret.is_some());
            rules.secret_place(secret, |r| r.expr(d));
        }
    }
}

/// Checks the string literals of a module.
pub(crate) fn check_module_literals(cx: &mut Cx<'_>, module: &Module) {
    let registry = cx.registry;
    let secret = super::secrets::module_definition_spans(module, registry);
    let mut rules = Rules {
        cx,
        quote: true,
        secret,
    };
    for entry in &module.entries {
        match entry {
            ModuleEntry::Slug(s, _) => rules.string(s),
            ModuleEntry::Requires(r) => match &r.body {
                RequirementBody::Operator(op) => {
                    let crate::syntax::ast::OperatorBody {
                        ty,
                        refinements,
                        default,
                    } = &**op;
                    rules.refinements(refinements);
                    if let Some(d) = default {
                        let secret = ty.as_ref().is_some_and(|t| t.secret.is_some());
                        rules.secret_place(secret, |r| r.expr(d));
                    }
                }
                RequirementBody::Contract { narrowing, .. } => {
                    for n in narrowing {
                        match &n.kind {
                            NarrowingKind::Set(e) => rules.expr(e),
                            NarrowingKind::Refine(rs) => rules.refinements(rs),
                        }
                    }
                }
            },
            ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        // Image references are exempt.
                        ContainerEntryKind::Image(_) => {}
                        ContainerEntryKind::Command(x) | ContainerEntryKind::ImagePaths(x) => {
                            rules.expr(x)
                        }
                        ContainerEntryKind::User(u) => rules.expr(&u.uid),
                        ContainerEntryKind::Health(h) => {
                            rules.expr(&h.argv);
                            for o in &h.options {
                                rules.expr(&o.value);
                            }
                        }
                        ContainerEntryKind::Env(entries) => {
                            for env in entries {
                                rules.expr(&env.value);
                            }
                        }
                        ContainerEntryKind::Mount(mount) => {
                            let crate::syntax::ast::Mount { source, target, .. } = &**mount;
                            rules.expr(source);
                            if let Some(t) = target {
                                rules.string(t);
                            }
                        }
                        ContainerEntryKind::Secret(file) => {
                            let crate::syntax::ast::FileEntry { target, value, .. } = &**file;
                            rules.string(target);
                            rules.secret_place(true, |r| r.expr(value));
                        }
                        ContainerEntryKind::File(file) => {
                            let crate::syntax::ast::FileEntry { target, value, .. } = &**file;
                            rules.string(target);
                            rules.expr(value);
                        }
                        ContainerEntryKind::Publish(_) | ContainerEntryKind::After(_) => {}
                    }
                }
            }
            ModuleEntry::Provides(p) => {
                let contract = registry.contracts.get(p.contract.name.as_str());
                for a in &p.answers {
                    let secret = contract
                        .and_then(|c| c.fields.get(a.field.name.as_str()))
                        .is_some_and(|f| f.secret);
                    rules.secret_place(secret, |r| r.expr(&a.value));
                }
            }
        }
    }
}

struct Rules<'c, 'a> {
    cx: &'c mut Cx<'a>,
    /// Whether messages may quote the literal: not where a secret is expected.
    quote: bool,
    /// The places of the item that may hold a secret (`check::secrets`, the notion every
    /// excerpt masks by): a literal inside one is never quoted either.
    secret: Vec<Span>,
}

impl Rules<'_, '_> {
    /// Runs `f` with quoting turned off when the place expects a secret.
    fn secret_place(&mut self, secret: bool, f: impl FnOnce(&mut Self)) {
        let quote = self.quote;
        self.quote = quote && !secret;
        f(self);
        self.quote = quote;
    }

    fn refinements(&mut self, rs: &[Refinement]) {
        for r in rs {
            match r {
                Refinement::InSet(set) => {
                    for v in &set.values {
                        self.expr(v);
                    }
                }
                Refinement::Matches(s) => self.string(s),
                Refinement::InRange(_) | Refinement::Len(_) => {}
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Str(s) => self.string(s),
            Expr::List(items, _) => {
                for item in items {
                    self.expr(item);
                }
            }
            Expr::For(f) => {
                if let Some(t) = &f.template {
                    self.string(t);
                }
            }
            Expr::Call(c) => {
                for arg in &c.args {
                    self.expr(arg);
                }
            }
            Expr::Int(_) | Expr::Bool(..) | Expr::Ref(_) | Expr::Range(_) | Expr::Error(_) => {}
        }
    }

    fn string(&mut self, s: &StringLit) {
        let quote = self.quote;
        self.quote = quote && !super::secrets::is_inside(&self.secret, s.span);
        self.string_checked(s);
        self.quote = quote;
    }

    fn string_checked(&mut self, s: &StringLit) {
        self.node_name(s);
        let quote = if s.triple { 3 } else { 1 };
        let mut raw_start = s.span.start as usize + quote;
        let mut follows_interp = false;
        for (i, part) in s.parts.iter().enumerate() {
            match part {
                // A plain `${req.field}` holds no literal: only where it ends counts.
                StrPart::Ref(r) => {
                    raw_start = r.span().end as usize;
                    follows_interp = true;
                }
                StrPart::Interp(_) => {
                    let Some(interp) = part.interp() else {
                        continue;
                    };
                    // Strings inside `${replace(x, "…", "…")}` are a definition's too.
                    self.expr(interp.expr);
                    raw_start = interp.span.end as usize;
                    follows_interp = true;
                }
                // Most pieces (`:`, `/`, a path) can name no domain: nothing to place.
                StrPart::Text(text) if !may_hold_a_domain(text) => follows_interp = false,
                StrPart::Text(text) => {
                    let raw_end = match s.parts.get(i + 1).and_then(StrPart::interp) {
                        Some(next) => next.span.start as usize,
                        // An unclosed string has no closing quote to leave out.
                        _ if !s.closed => s.span.end as usize,
                        _ => (s.span.end as usize).saturating_sub(quote),
                    };
                    // Offsets map one to one when the raw text decoded to itself (no
                    // escape, no indentation removed); else the whole piece is shown.
                    let exact =
                        !s.triple && raw_end >= raw_start && raw_end - raw_start == text.len();
                    let whole = if raw_start <= raw_end && raw_end <= s.span.end as usize {
                        Span::new(raw_start, raw_end)
                    } else {
                        s.span
                    };
                    for (at, domain) in domains(text, follows_interp) {
                        let span = if exact {
                            Span::new(raw_start + at, raw_start + at + domain.len())
                        } else {
                            whole
                        };
                        let what = if domain.starts_with('[')
                            || domain.parse::<std::net::Ipv4Addr>().is_ok()
                        {
                            "an IP address"
                        } else {
                            "a domain name"
                        };
                        let rule = NamedInDefinition::Domain {
                            quoted: self.quote.then_some(domain),
                            what,
                        };
                        self.cx.report(rule.at(self.cx.path, span));
                    }
                    follows_interp = false;
                }
            }
        }
    }

    /// E0404: a literal equal to a node's name or private name, in any mesh.
    fn node_name(&mut self, s: &StringLit) {
        if self.cx.registry.node_names.is_empty() {
            return;
        }
        let [StrPart::Text(text)] = &*s.parts else {
            return;
        };
        // A node's name or private name is a host name: short, one word. Looked up
        // before the scan for blanks: most texts name no node, and with a mesh in the
        // workspace every plain string of every module is asked.
        if text.is_empty() || text.len() > 253 {
            return;
        }
        let Some(node) = self.cx.registry.node_names.get(&**text) else {
            return;
        };
        if text.contains(char::is_whitespace) {
            return;
        }
        let what = if node.node == **text {
            format!("names node `{}` of mesh `{}`", node.node, node.mesh)
        } else {
            format!(
                "is the private name of node `{}` of mesh `{}`",
                node.node, node.mesh
            )
        };
        let rule = NamedInDefinition::Node {
            quoted: self.quote.then_some(&**text),
            what: &what,
            mesh: &node.mesh,
        };
        self.cx.report(rule.at(self.cx.path, s.span));
    }
}

/// Whether `text` names a domain (a name under a known top-level domain), which a
/// definition may not write (E0402).
pub fn names_a_domain(text: &str) -> bool {
    !domains(text, false).is_empty()
}

/// The dots a domain name may be written with: the full stop, and the fullwidth and
/// ideographic ones that resolvers read as full stops (IDNA maps them to `.`).
fn is_dot(c: char) -> bool {
    matches!(c, '.' | '\u{FF0E}' | '\u{3002}' | '\u{FF61}')
}

/// Whether `text` may hold a domain name or an IP literal. Both a domain name and an
/// IPv4 literal hold a dot (every dot but `.` is beyond ASCII), and an IPv6 literal a
/// `[`: a text with none of these holds neither, and most texts (paths, words, numbers)
/// are such.
fn may_hold_a_domain(text: &str) -> bool {
    text.bytes()
        .any(|b| b == b'.' || b == b'[' || !b.is_ascii())
}

/// The domain names and IP literals in `text`, with their byte offsets.
fn domains(text: &str, follows_interp: bool) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    if !may_hold_a_domain(text) {
        return found;
    }
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if !is_token_char(c) {
            chars.next();
            continue;
        }
        let mut end = start;
        let mut dotted = false;
        while let Some(&(i, c)) = chars.peek() {
            if !is_token_char(c) {
                break;
            }
            dotted |= is_dot(c);
            end = i + c.len_utf8();
            chars.next();
        }
        // A token without a dot is neither a domain name nor an IPv4 literal.
        if !dotted {
            continue;
        }
        if let Some(found_here) = domain_in_token(text, start, end, follows_interp)
            .or_else(|| ipv4_in_token(text, start, end))
        {
            found.push(found_here);
        }
    }
    found.extend(ipv6_literals(text));
    found.sort_by_key(|(at, _)| *at);
    found
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_') || is_dot(c)
}

/// An IPv4 literal naming a host (`10.20.0.11`, `192.168.1.10:5432`): a fixed address is
/// a node's, as a domain name is. The unspecified address and loopback (`0.0.0.0`,
/// `127.0.0.1`, what a process binds to), a netmask (`255.255.255.0`) and a network
/// written with its prefix (`10.0.0.0/8`) name no host and are left alone.
fn ipv4_in_token(text: &str, start: usize, end: usize) -> Option<(usize, &str)> {
    let token = &text[start..end];
    let ip: std::net::Ipv4Addr = token.parse().ok()?;
    let octets = ip.octets();
    let mask = u32::from(ip);
    let is_mask = mask != 0 && mask.leading_ones() + mask.trailing_zeros() == 32;
    let cidr =
        text[end..].starts_with('/') && text[end + 1..].starts_with(|c: char| c.is_ascii_digit());
    // A version number is no address: `v1.2.3.4`, `24.3.3.102-alpine` are other tokens.
    if ip.is_unspecified() || octets[0] == 127 || is_mask || cidr {
        return None;
    }
    Some((start, token))
}

/// IPv6 literals in brackets (`[2001:db8::1]`, `http://[fd00::5]:8080/`); the
/// unspecified address and loopback (`[::]`, `[::1]`) are left alone.
fn ipv6_literals(text: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('[').map(|i| from + i) {
        let Some(close) = text[open..].find(']').map(|i| open + i) else {
            break;
        };
        let inner = &text[open + 1..close];
        let addr = inner.split('%').next().unwrap_or(inner);
        if let Ok(ip) = addr.parse::<std::net::Ipv6Addr>()
            && !ip.is_unspecified()
            && !ip.is_loopback()
        {
            found.push((open, &text[open..=close]));
        }
        from = open + 1;
    }
    found
}

fn domain_in_token(
    text: &str,
    start: usize,
    end: usize,
    follows_interp: bool,
) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut token = &text[start..end];
    if !token.contains(is_dot) {
        return None;
    }
    let mut offset = start;
    if token.starts_with(is_dot) {
        if !(follows_interp && start == 0) {
            return None;
        }
        let trimmed = token.trim_start_matches(is_dot);
        offset += token.len() - trimmed.len();
        token = trimmed;
    }
    // A path segment (`/etc/app.local`), not a URL's authority (`//api.example.com`).
    if start > 0 && bytes[start - 1] == b'/' && !(start > 1 && bytes[start - 2] == b'/') {
        return None;
    }
    let token = token.trim_end_matches(|c: char| is_dot(c) || c == '-');
    let mut labels = token.split(is_dot);
    let last = labels.next_back()?;
    let mut count = 1;
    for label in labels {
        count += 1;
        if label.is_empty()
            || label.starts_with('-')
            || label.ends_with('-')
            || !label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return None;
        }
    }
    if count < 2 || !is_tld(last) {
        return None;
    }
    Some((offset, token))
}

fn is_tld(label: &str) -> bool {
    if label.is_empty() || label.len() > 11 || !label.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    let lower = label.bytes().all(|b| b.is_ascii_lowercase());
    let upper = label.bytes().all(|b| b.is_ascii_uppercase());
    (lower || upper) && TLDS.iter().any(|t| t.eq_ignore_ascii_case(label))
}

#[cfg(test)]
mod tests {
    use super::domains;

    fn names(text: &str) -> Vec<&str> {
        domains(text, false).into_iter().map(|(_, d)| d).collect()
    }

    #[test]
    fn finds_host_names_under_known_tlds() {
        assert_eq!(names("api.example.com"), ["api.example.com"]);
        assert_eq!(names("https://status.acme.dev/health"), ["status.acme.dev"]);
        assert_eq!(names("smtp.mailbox.org:587"), ["smtp.mailbox.org"]);
        assert_eq!(
            names("1.0.168.192.in-addr.arpa"),
            ["1.0.168.192.in-addr.arpa"]
        );
        assert_eq!(names("--proxy=http://proxy.corp:3128"), ["proxy.corp"]);
        assert_eq!(names("server backend.home:8080;"), ["backend.home"]);
        assert_eq!(names("mail to postmaster@example.org."), ["example.org"]);
        assert_eq!(names("EXAMPLE.COM"), ["EXAMPLE.COM"]);
        assert_eq!(domains(".example.com", true)[0].1, "example.com");
    }

    #[test]
    fn leaves_file_names_versions_and_paths_alone() {
        for text in [
            "app.ini",
            "include = extra.ini",
            "v1.2.3",
            "0.0.0.0:3000",
            "nginx.conf",
            "config.yml",
            "/etc/app.local/x",
            ".env.local",
            "logging.StreamHandler",
            "en_US.UTF-8",
            "localhost:2019",
            "System.Io",
            "main.rs",
            "install.sh",
            "127.0.0.1:8080",
            "listen [::]:80",
            "http://[::1]:9000/",
            "255.255.255.0",
            "allow 10.0.0.0/8;",
            "1.2.3",
            "v1.2.3.4",
            "24.3.3.102-alpine",
            "300.1.1.1",
            "a[1]",
            "\u{3002}",
        ] {
            assert!(names(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn finds_fullwidth_dots_and_ip_literals() {
        assert_eq!(
            names("api\u{FF0E}example\u{FF0E}com"),
            ["api\u{FF0E}example\u{FF0E}com"]
        );
        assert_eq!(names("db\u{3002}corp"), ["db\u{3002}corp"]);
        assert_eq!(names("x\u{FF61}example.org:443"), ["x\u{FF61}example.org"]);
        assert_eq!(names("10.20.0.11"), ["10.20.0.11"]);
        assert_eq!(names("postgres://192.168.1.10:5432/app"), ["192.168.1.10"]);
        assert_eq!(names("http://[2001:db8::1]:8080/"), ["[2001:db8::1]"]);
        assert_eq!(names("[fd00::5%eth0]"), ["[fd00::5%eth0]"]);
    }
}
