//! Random Compose projects that hold secrets with marker values everywhere import can
//! meet one: a secret-named variable (in `environment`, in `.env` read through
//! `${…}`, in an `env_file`), a value of a secret's shape under a plain name (a URL with
//! a password or a token, a bearer token, keys of known shapes), a command flag, a
//! config's content; then damaged (a malformed env line holding a marker, an unclosed
//! `${` in a marked value, a key written twice, a line cut). Whatever import does, no
//! output holds a marker.

use super::{MARKER, Rng};

/// A Compose project: the Compose text, `.env`, the env files it may name.
pub struct Project {
    pub compose: String,
    pub dotenv: String,
    pub env_files: Vec<(String, String)>,
    pub markers: usize,
}

/// Names that say they hold a secret.
const SECRET_NAMES: &[&str] = &[
    "POSTGRES_PASSWORD",
    "API_TOKEN",
    "SECRET_KEY_BASE",
    "BORG_PASSPHRASE",
    "MYSQL_PWD",
    "DB_PW",
    "HTPASSWD",
    "SENTRY_DSN",
    "app_key",
];

/// Plain names: the value alone must tell.
const PLAIN_NAMES: &[&str] = &["UPSTREAM", "NOTIFY", "REMOTE", "HEADER", "LINK", "CFG"];

struct Gen {
    rng: Rng,
    markers: usize,
}

impl Gen {
    /// A fresh marker of at least 20 characters, letters and digits.
    fn marker(&mut self) -> String {
        self.markers += 1;
        format!("{MARKER}{:04}x7Rk2Lm9Pw", self.markers)
    }

    /// A value of a secret's shape holding a fresh marker.
    fn shaped(&mut self) -> String {
        let m = self.marker();
        match self.rng.below(8) {
            0 => format!("postgres://app:{m}@db:5432/app"),
            1 => format!("Bearer {m}"),
            2 => format!("Authorization: Bearer {m}"),
            3 => format!("https://{m}abcdef@o12.ingest.sentry.io/42"),
            4 => format!("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/{m}"),
            5 => format!("https://example.org/notify?token={m}"),
            6 => format!("ghp_{m}"),
            _ => format!("xoxb-{m}"),
        }
    }
}

/// The project of `seed`.
pub fn secret_compose(seed: u64) -> Project {
    let mut g = Gen {
        rng: Rng::new(seed),
        markers: 0,
    };
    let mut dotenv = String::from("TAG=1.27\n");
    let mut env_files = Vec::new();
    let mut compose = String::from("services:\n");
    let services = 1 + g.rng.below(3);
    for s in 0..services {
        compose.push_str(&format!(
            "  s{s}:\n    image: {}\n",
            g.rng.pick(&[
                "nginx:${TAG}",
                "postgres:16",
                "ghcr.io/example/app:1",
                "lscr.io/linuxserver/app:1"
            ])
        ));
        compose.push_str("    environment:\n");
        for i in 0..1 + g.rng.below(5) {
            // The first entry always holds a secret: every project has one.
            let kind = g.rng.below(if i == 0 { 3 } else { 4 });
            let line = match kind {
                0 => {
                    let m = g.marker();
                    format!("{}_{i}: \"{m}\"", g.rng.pick(SECRET_NAMES))
                }
                1 => {
                    let v = g.shaped();
                    format!("{}_{i}: \"{v}\"", g.rng.pick(PLAIN_NAMES))
                }
                2 => {
                    let var = format!("{}_{s}_{i}", g.rng.pick(SECRET_NAMES));
                    let m = g.marker();
                    dotenv.push_str(&format!("{var}={m}\n"));
                    format!("FROM_ENV_{i}: \"x-${{{var}}}\"")
                }
                _ => format!("LOG_LEVEL_{i}: info"),
            };
            compose.push_str(&format!("      {line}\n"));
        }
        if g.rng.one_in(2) {
            let name = format!("s{s}.env");
            let mut text = String::new();
            for i in 0..1 + g.rng.below(3) {
                let m = g.marker();
                text.push_str(&format!("{}_{i}={m}\n", g.rng.pick(SECRET_NAMES)));
            }
            if g.rng.one_in(3) {
                let m = g.marker();
                text.push_str(&format!("{m} is not a line\n"));
            }
            compose.push_str(&format!("    env_file: {name}\n"));
            env_files.push((name, text));
        }
        if g.rng.one_in(3) {
            let m = g.marker();
            compose.push_str(&format!(
                "    command: [\"serve\", \"{}\", \"{m}\"]\n",
                g.rng.pick(&["--password", "--api-token", "-secret"])
            ));
        }
        if g.rng.one_in(5) {
            let m = g.marker();
            compose.push_str(&format!("    entrypoint: [\"run\", \"--key=x${{{m}\"]\n"));
        }
    }
    if g.rng.one_in(5) {
        let m = g.marker();
        dotenv.push_str(&format!("{m} has no equals sign\n"));
    }
    if g.rng.one_in(6) {
        // A key written twice.
        compose.push_str("services:\n  again:\n    image: nginx:1\n");
    }
    if g.rng.one_in(6) {
        // A line cut in the middle.
        let lines: Vec<&str> = compose.lines().collect();
        let cut = g.rng.below(lines.len());
        let half = lines[cut].len() / 2;
        let mut at = half;
        while !lines[cut].is_char_boundary(at) {
            at -= 1;
        }
        let mut damaged: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        damaged[cut].truncate(at);
        compose = damaged.join("\n") + "\n";
    }
    Project {
        compose,
        dotenv,
        env_files,
        markers: g.markers,
    }
}
