//! Which imported values are secrets, and how an image can read one from a file.
//!
//! A value is a secret by its variable's name (PASSWORD, SECRET, TOKEN, KEY…, see
//! [`super::interpolate::secret_name`]), by having been read from such a variable of the
//! `.env` file, by being a URL with a password, or by looking like a long random string.
//! A secret becomes a secret requirement; it reaches the container as a file where the
//! image reads `KEY_FILE` (or linuxserver.io's `FILE__KEY`), and otherwise as an env value
//! marked `exposed`, with a reason for the user to confirm.

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
