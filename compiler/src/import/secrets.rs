//! Which imported values are secrets, and how an image can read one from a file.
//!
//! A value is a secret by its variable's name ([`secret_name`]), by having been read from
//! such a variable of the `.env` file, or by its shape ([`secret_value`]: a URL with a
//! password or a token, an `Authorization` value, a key of a known shape, a long random
//! string). A secret becomes a secret requirement; it reaches the container as a file
//! where the image reads `KEY_FILE` (or linuxserver.io's `FILE__KEY`), and otherwise as an
//! env value marked `exposed`, with a reason for the user to confirm.
//!
//! These rules are the project's one answer to "does this `KEY=value` hold a secret":
//! `take` masks the lines of a plain file with them too (LANGUAGE.md §14.5), through
//! [`secret_assignment`].

/// The words of a variable's name that say it holds a secret.
const SECRET_WORDS: &[&str] = &[
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "PWD",
    "PW",
    "SECRET",
    "TOKEN",
    "KEY",
    "APIKEY",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "SALT",
    "DSN",
    "WEBHOOK",
    "AUTHORIZATION",
    "COOKIE",
];

/// Last words that say the value is about a secret, not the secret (`API_KEY_ID`).
const NOT_SECRET_LAST: &[&str] = &["PUBLIC", "PATH", "ID", "URL", "HOST", "NAME", "USER"];

/// Whether a variable's name says it holds a secret: a word `PASSWORD`, `PASSWD`,
/// `PASS`, `PASSPHRASE`, `PWD`, `PW`, `SECRET`, `TOKEN`, `KEY`, `APIKEY`,
/// `CREDENTIAL(S)`, `CREDS`, `SALT`, `DSN`, `WEBHOOK`, `AUTHORIZATION` or `COOKIE`
/// (words split at `_`, `-`, `.`), or a name containing `PASSWORD`, `PASSWD`,
/// `PASSPHRASE`, `SECRET` or `TOKEN`, or ending in `KEY`; but not a name of a file
/// holding one (`…_FILE`, `FILE__…`), one saying it is public (`PUBLIC…`), one ending in
/// `_ID`, `_URL`, `_HOST`, `_NAME`, `_USER`, `_PATH`, nor `PWD` alone (the working
/// directory). Case is ignored.
pub fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if upper.ends_with("_FILE") || upper.starts_with("FILE__") || upper == "PWD" {
        return false;
    }
    let words: Vec<&str> = upper.split(['_', '-', '.']).collect();
    let secret = words.iter().any(|w| SECRET_WORDS.contains(w))
        || ["PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN"]
            .iter()
            .any(|w| upper.contains(w))
        || upper.ends_with("KEY");
    // `API_KEY_ID`, `PUBLIC_KEY`, `SECRET_PATH`: the name says the value is not the secret.
    secret
        && !words
            .last()
            .is_some_and(|w| NOT_SECRET_LAST.contains(w) && !SECRET_WORDS.contains(w))
        && words.first().is_none_or(|w| *w != "PUBLIC")
}

/// Whether a value has the shape of a secret, whatever its name: a URL with a password,
/// with a long user name alone (a Sentry DSN's key) or with a token in its path or
/// query (a webhook URL); an `Authorization` value (`Bearer …`, `Basic …`, `token …`,
/// or a header line holding one); a key of a known shape (AWS `AKIA…`/`ASIA…`, GitHub
/// `ghp_…`, `github_pat_…`, GitLab `glpat-…`, Slack `xox?-…`, Stripe `sk_live_…`,
/// Google `AIza…`, npm `npm_…`, a PEM private key, a JWT); or a long random string.
pub fn secret_value(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty()
        && (url_with_password(v)
            || url_with_credentials(v)
            || authorization(v)
            || known_key(v)
            || v.split_whitespace()
                .any(|w| known_key(w) || looks_random(w)))
}

/// Whether one line of a plain file, `KEY=value`, `KEY: value`, `key = "value"` or
/// `export KEY=value`, sets a secret: its key by [`secret_name`] with a value, or its
/// value by [`secret_value`]. A line of any other form is judged by its shape alone.
pub fn secret_assignment(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix("export ").unwrap_or(t);
    let split = t
        .find(['=', ':'])
        .map(|i| (t[..i].trim(), t[i + 1..].trim()));
    match split {
        Some((key, value))
            if !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) =>
        {
            let value = value.trim_matches(['"', '\'']);
            (!value.is_empty() && secret_name(key)) || secret_value(value)
        }
        _ => secret_value(t),
    }
}

/// A URL whose user part alone is long (a DSN's key: `https://KEY@o1.ingest.sentry.io/1`),
/// or whose path or query holds a token (`https://hooks.slack.com/services/T…/B…/X…`,
/// `…?token=…`, `…/webhooks/ID/TOKEN`).
fn url_with_credentials(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    {
        return false;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && userinfo.len() >= 16
    {
        return true;
    }
    let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
    let query = query.split('#').next().unwrap_or("");
    let webhook = authority.starts_with("hooks.")
        || path.contains("/webhook")
        || path.contains("/hooks/")
        || path.contains("/services/");
    path.split('/').any(|seg| {
        looks_random(seg)
            || known_key(seg)
            || (webhook
                && seg.len() >= 16
                && seg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    }) || query.split('&').any(|pair| match pair.split_once('=') {
        Some((k, v)) => !v.is_empty() && (secret_name(k) || looks_random(v) || known_key(v)),
        None => false,
    })
}

/// An `Authorization` value: `Bearer X`, `Basic X`, `token X`, `Bot X`, alone or in a
/// header line (`Authorization: Bearer X`).
fn authorization(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let body = lower
        .strip_prefix("authorization:")
        .or_else(|| lower.strip_prefix("proxy-authorization:"))
        .map_or(lower.as_str(), str::trim_start);
    let mut words = body.split_whitespace();
    let header = body.len() != lower.len();
    let direct = match (words.next(), words.next()) {
        (Some(scheme), Some(cred)) => {
            (matches!(scheme, "bearer" | "basic" | "token" | "bot" | "digest") && cred.len() >= 8)
                || (header && cred.len() >= 8)
        }
        (Some(cred), None) => header && cred.len() >= 8,
        _ => false,
    };
    direct
        || lower
            .find("authorization:")
            .is_some_and(|i| i > 0 && authorization(&value[i..]))
}

/// A key of a known shape.
fn known_key(value: &str) -> bool {
    let alnum = |s: &str, n: usize| {
        s.len() >= n
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if value.contains("-----BEGIN") && value.contains("PRIVATE KEY") {
        return true;
    }
    for (prefix, rest) in [
        ("AKIA", 16),
        ("ASIA", 16),
        ("ghp_", 20),
        ("gho_", 20),
        ("ghu_", 20),
        ("ghs_", 20),
        ("ghr_", 20),
        ("github_pat_", 20),
        ("glpat-", 20),
        ("xoxb-", 10),
        ("xoxp-", 10),
        ("xoxa-", 10),
        ("xoxr-", 10),
        ("xoxs-", 10),
        ("xapp-", 10),
        ("sk_live_", 16),
        ("rk_live_", 16),
        ("sk-", 20),
        ("AIza", 30),
        ("npm_", 30),
    ] {
        if let Some(r) = value.strip_prefix(prefix)
            && alnum(r, rest)
        {
            return true;
        }
    }
    // A JSON Web Token: three base64url parts, the first a JSON object (`eyJ`).
    let parts: Vec<&str> = value.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts[1].len() >= 8
        && parts.iter().all(|p| {
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

/// How an image reads a secret from a file instead of its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileForm {
    /// `KEY_FILE=/run/secrets/…`.
    Suffix(&'static str),
    /// `FILE__KEY=/run/secrets/…` (linuxserver.io images).
    Prefix,
}

/// The image's name without registry, tag or digest (`docker.io/library/postgres:16` →
/// `postgres`, `ghcr.io/immich-app/immich-server:v1` → `immich-app/immich-server`).
pub fn image_name(image: &str) -> String {
    let no_digest = image.split('@').next().unwrap_or(image);
    let mut parts: Vec<&str> = no_digest.split('/').collect();
    if parts.len() > 1
        && (parts[0].contains('.') || parts[0].contains(':') || parts[0] == "localhost")
    {
        parts.remove(0);
    }
    if parts.len() > 1 && parts[0] == "library" {
        parts.remove(0);
    }
    let mut name = parts.join("/");
    if let Some(colon) = name.rfind(':') {
        name.truncate(colon);
    }
    name.to_ascii_lowercase()
}

/// Whether `image` reads `key` from a file, and how. `others` are the service's other env
/// keys: a service that already sets some `*_FILE` shows an image that reads them.
pub fn file_form(image: &str, key: &str, others: &[String]) -> Option<FileForm> {
    let name = image_name(image);
    let last = name.rsplit('/').next().unwrap_or(&name);
    let upper = key.to_ascii_uppercase();
    if name.starts_with("linuxserver/") || image.starts_with("lscr.io/linuxserver/") {
        return Some(FileForm::Prefix);
    }
    // The official database images read their documented variables from `*_FILE`.
    let official = match last {
        "postgres" | "postgis" | "pgvector" | "timescaledb" | "pgvecto-rs" => {
            upper.starts_with("POSTGRES_")
        }
        "mariadb" | "mysql" => upper.starts_with("MARIADB_") || upper.starts_with("MYSQL_"),
        "miniflux" | "immich-server" | "paperless-ngx" => true,
        "nextcloud" => [
            "MYSQL_",
            "POSTGRES_",
            "NEXTCLOUD_ADMIN_",
            "REDIS_HOST_PASSWORD",
            "SMTP_PASSWORD",
        ]
        .iter()
        .any(|p| upper.starts_with(p)),
        "gitea" | "forgejo" => upper.starts_with("GITEA__") || upper.starts_with("FORGEJO__"),
        "grafana" => upper.starts_with("GF_"),
        _ => false,
    };
    if official {
        return Some(FileForm::Suffix(
            if upper.starts_with("GITEA__")
                || upper.starts_with("FORGEJO__")
                || upper.starts_with("GF_")
            {
                "__FILE"
            } else {
                "_FILE"
            },
        ));
    }
    if name.starts_with("bitnami/") && upper.contains("PASSWORD") {
        return Some(FileForm::Suffix("_FILE"));
    }
    if others
        .iter()
        .any(|o| o.to_ascii_uppercase().ends_with("_FILE"))
    {
        return Some(FileForm::Suffix("_FILE"));
    }
    None
}

/// Whether a value is a URL with a password (`postgres://user:pw@host/db`).
pub fn url_with_password(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    match authority.rsplit_once('@') {
        Some((userinfo, _)) => userinfo
            .split_once(':')
            .is_some_and(|(_, pw)| !pw.is_empty()),
        None => false,
    }
}

/// Whether a value looks like a long random string: 20 characters or more, no spaces,
/// not a path or URL, and with the spread of characters a generated key has.
pub fn looks_random(value: &str) -> bool {
    if value.len() < 20
        || value.starts_with('/')
        || value.contains("://")
        || value.chars().any(char::is_whitespace)
    {
        return false;
    }
    if !value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+/=_-.!@#%^&*~".contains(c))
    {
        return false;
    }
    let hex = value.chars().all(|c| c.is_ascii_hexdigit());
    let classes = [
        value.chars().any(|c| c.is_ascii_lowercase()),
        value.chars().any(|c| c.is_ascii_uppercase()),
        value.chars().any(|c| c.is_ascii_digit()),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    let mut counts = std::collections::BTreeMap::new();
    for c in value.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = value.chars().count() as f64;
    let entropy: f64 = counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum();
    (hex && value.len() >= 32 && entropy >= 3.0)
        || (classes >= 2 && entropy >= 3.5 && value.chars().any(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_images_without_registry_or_tag() {
        assert_eq!(image_name("docker.io/library/postgres:16.4"), "postgres");
        assert_eq!(
            image_name("ghcr.io/immich-app/immich-server:v1.120.0"),
            "immich-app/immich-server"
        );
        assert_eq!(image_name("valkey/valkey:8@sha256:abc"), "valkey/valkey");
        assert_eq!(image_name("localhost:5000/app"), "app");
    }

    #[test]
    fn knows_which_images_read_files() {
        assert_eq!(
            file_form("postgres:16", "POSTGRES_PASSWORD", &[]),
            Some(FileForm::Suffix("_FILE"))
        );
        assert_eq!(
            file_form("lscr.io/linuxserver/nextcloud", "DB_PASS", &[]),
            Some(FileForm::Prefix)
        );
        assert_eq!(
            file_form(
                "codeberg.org/forgejo/forgejo:9",
                "FORGEJO__database__PASSWD",
                &[]
            ),
            Some(FileForm::Suffix("__FILE"))
        );
        assert_eq!(file_form("ghcr.io/example/app:1", "API_TOKEN", &[]), None);
        assert_eq!(
            file_form(
                "ghcr.io/example/app:1",
                "API_TOKEN",
                &["ADMIN_PASSWORD_FILE".into()]
            ),
            Some(FileForm::Suffix("_FILE"))
        );
    }

    #[test]
    fn tells_secret_names() {
        for s in [
            "POSTGRES_PASSWORD",
            "SECRET_KEY_BASE",
            "API_TOKEN",
            "APP_KEY",
            "DB_PASS",
            "BORG_PASSPHRASE",
            "MYSQL_PWD",
            "DB_PW",
            "HTPASSWD",
            "SENTRY_DSN",
            "SLACK_WEBHOOK",
            "db_password",
        ] {
            assert!(secret_name(s), "{s}");
        }
        for s in [
            "POSTGRES_PASSWORD_FILE",
            "POSTGRES_USER",
            "KEY_ID",
            "PUBLIC_KEY",
            "TZ",
            "PWD",
            "PASSWORD_PATH",
            "WEBHOOK_URL_PATH",
        ] {
            assert!(!secret_name(s), "{s}");
        }
    }

    #[test]
    fn tells_secret_values_by_shape() {
        for v in [
            "Bearer abcdefgh12345678",
            "Authorization: Bearer abcdefgh12345678",
            "-H Authorization: token zzzzzzzz99",
            "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42",
            "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx",
            "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopQRSTUV",
            "https://example.org/notify?token=abc",
            "postgres://app:pw@db:5432/app",
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789abcdefghijABCDEFGHIJ",
            "xoxb-123456789012-abcdefghijkl",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ] {
            assert!(secret_value(v), "{v}");
        }
        for v in [
            "https://example.org/docs/getting-started",
            "postgres://app@db:5432/app",
            "production",
            "America/New_York",
            "Basic",
            "info",
            "https://hooks.example.org/",
        ] {
            assert!(!secret_value(v), "{v}");
        }
    }

    #[test]
    fn tells_secret_lines_of_plain_files() {
        assert!(secret_assignment("DB_PW=hunter2"));
        assert!(secret_assignment("  export BORG_PASSPHRASE='x y z'"));
        assert!(secret_assignment("token: \"abc\""));
        assert!(secret_assignment(
            "url = https://0123456789abcdef0123@sentry.io/1"
        ));
        assert!(!secret_assignment("LOG_LEVEL=info"));
        assert!(!secret_assignment("PASSWORD="));
        assert!(!secret_assignment("# a comment"));
    }

    #[test]
    fn tells_secret_values() {
        assert!(url_with_password("postgres://app:pw@db:5432/app"));
        assert!(!url_with_password("postgres://app@db:5432/app"));
        assert!(!url_with_password("https://example.org/a:b@c"));
        assert!(looks_random("Xk9f2LqP7vZ3mN8wR4tY6uB1"));
        assert!(looks_random("3f9a8c7e6d5b4a39281706f5e4d3c2b1"));
        assert!(!looks_random("/var/lib/postgresql/data"));
        assert!(!looks_random("production"));
        assert!(!looks_random("America/Los_Angeles_Time"));
    }
}
