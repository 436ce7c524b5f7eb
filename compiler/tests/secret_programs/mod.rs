//! Random workspaces that declare secrets with marker values (`Q9SECRETq` and a number),
//! written everywhere a secret can be written — rightly or wrongly — and then damaged
//! (duplicated, misspelt, unknown names, a stray token, a deleted line). Shared by the
//! property tests of the compiler and the language server: whatever comes out, no
//! output may hold a marker.

#![allow(dead_code)]

pub mod compose;

/// What every marker starts with.
pub const MARKER: &str = "Q9SECRETq";

/// A tiny deterministic generator (xorshift), seeded by the property test.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

struct Gen {
    rng: Rng,
    markers: usize,
}

impl Gen {
    /// A fresh marker literal, quoted.
    fn secret(&mut self) -> String {
        self.markers += 1;
        match self.rng.below(9) {
            0 => format!("\"\"\"\n      {MARKER}{}\n      \"\"\"", self.markers),
            1 => format!("[\"{MARKER}{}\"]", self.markers),
            2 => format!("\"{MARKER}{}${{here.private_name}}\"", self.markers),
            // Written as bare words, not in quotes: one word, several, a dotted one, one
            // that starts like a number, in a list.
            3 => format!("{MARKER}{}", self.markers),
            4 => format!("{MARKER}{n} {MARKER}{n}b", n = self.markers),
            5 => match self.rng.below(3) {
                0 => format!("{MARKER}{n}.{MARKER}{n}b", n = self.markers),
                1 => format!("9{MARKER}{}", self.markers),
                _ => format!("[{MARKER}{}]", self.markers),
            },
            _ => format!("\"{MARKER}{}\"", self.markers),
        }
    }

    /// A refinement holding a marker, or one that holds none.
    fn refinement(&mut self) -> String {
        self.markers += 1;
        let n = self.markers;
        match self.rng.below(4) {
            0 => format!(" in {{\"{MARKER}{n}\", \"{MARKER}{n}b\"}}"),
            1 => format!(" matches \"{MARKER}{n}[0-9]*\""),
            2 => " len 8..".to_string(),
            _ => String::new(),
        }
    }

    fn name(&mut self, base: &str) -> String {
        if self.rng.one_in(8) {
            format!("{base}x") // misspelt
        } else {
            base.to_string()
        }
    }

    fn contract(&mut self, out: &mut String) {
        out.push_str("contract sealed for module {\n  url: string\n");
        let given = if self.rng.one_in(3) { "given " } else { "" };
        let refinement = self.refinement();
        out.push_str(&format!("  {given}tok: secret string{refinement}"));
        if self.rng.one_in(2) {
            let s = self.secret();
            out.push_str(&format!(" = {s}"));
        }
        out.push('\n');
        let refinement = self.refinement();
        out.push_str(&format!("  pin: secret string{refinement}\n"));
        out.push_str("}\n\n");
    }

    fn module(&mut self, out: &mut String) {
        out.push_str("module app {\n  requires here: host node\n");
        let refinement = self.refinement();
        out.push_str(&format!(
            "  requires op: operator secret string{refinement}"
        ));
        if self.rng.one_in(2) {
            let s = self.secret();
            out.push_str(&format!(" = {s}"));
        }
        out.push('\n');
        out.push_str("  requires up: module sealed");
        match self.rng.below(4) {
            0 => {
                let f = self.name("tok");
                let s = self.secret();
                out.push_str(&format!(" {{ {f} = {s} }}"));
            }
            1 => {
                let f = self.name("pin");
                let r = self.refinement();
                out.push_str(&format!(" {{ {f}{r} }}"));
            }
            _ => {}
        }
        out.push('\n');
        out.push_str("  container app {\n    image \"nginx:1.27\"\n    user 1000\n");
        let s = self.secret();
        out.push_str(&format!("    secret \"/run/secrets/a\" = {s}\n"));
        out.push_str("    secret \"/run/secrets/op\" = op\n");
        out.push_str("    secret \"/run/secrets/tok\" = up.tok\n");
        let s = self.secret();
        out.push_str(&format!(
            "    env {{\n      PLAIN = \"shown\"\n      E = {s} exposed \"the image reads it\"\n      T = up.tok exposed \"the image reads it\"\n    }}\n"
        ));
        out.push_str("    file \"/etc/app.ini\" = \"token=${up.tok}\"\n  }\n}\n\n");
        out.push_str("module prov {\n  requires vault_key: operator secret string\n");
        out.push_str("  container prov {\n    image \"nginx:1.27\"\n    user 1000\n    secret \"/run/secrets/k\" = vault_key\n  }\n");
        out.push_str("  provides sealed {\n    url = \"plain\"\n");
        let f = self.name("tok");
        let s = self.secret();
        out.push_str(&format!("    {f} = {s}\n"));
        out.push_str("    pin = vault_key\n  }\n}\n\n");
    }

    fn mesh(&mut self, out: &mut String) {
        out.push_str("mesh lab {\n  node alpha { private_name = \"alpha\" }\n");
        out.push_str("  assign prov to alpha\n");
        let assigns = 1 + self.rng.below(3);
        for i in 0..assigns {
            let node = if self.rng.one_in(6) {
                "nowhere"
            } else {
                "alpha"
            };
            let module = if self.rng.one_in(8) { "nosuch" } else { "app" };
            let name = if i == 0 || self.rng.one_in(4) {
                String::new()
            } else {
                format!(" as app{i}")
            };
            out.push_str(&format!("  assign {module} to {node}{name} {{\n"));
            for _ in 0..1 + self.rng.below(3) {
                let s = self.secret();
                let line = match self.rng.below(7) {
                    0 => format!("op.x = {s}"),
                    1 => format!("op at {s}"),
                    2 => format!("up.tok = {s}"),
                    3 => format!("up.pin = {s}"),
                    4 => format!("{} = {s}", self.name("op")),
                    5 => format!("vault_key = {s}"),
                    _ => format!("op = {s}"),
                };
                out.push_str(&format!("    {line}\n"));
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
    }
}

/// One random workspace: (file name, text) pairs, and the number of markers written.
pub fn secret_workspace(seed: u64) -> (Vec<(String, String)>, usize) {
    let mut g = Gen {
        rng: Rng::new(seed),
        markers: 0,
    };
    let mut defs = String::new();
    g.contract(&mut defs);
    g.module(&mut defs);
    let mut lab = String::new();
    g.mesh(&mut lab);
    let mut files = vec![defs, lab];
    // Damage: a stray token at the end of a line, a line deleted or written twice.
    for text in &mut files {
        for _ in 0..g.rng.below(3) {
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            let at = g.rng.below(lines.len());
            // A line opening or closing a triple-quoted string stays whole: without it the
            // string's text is read as bare words, no literal any more (docs/robustness.md).
            if lines[at].contains("\"\"\"") {
                continue;
            }
            match g.rng.below(4) {
                0 => lines[at].push_str(g.rng.pick(&[" )", " ,", " @", " junk", " {", " }"])),
                1 => {
                    lines.remove(at);
                }
                2 => {
                    let l = lines[at].clone();
                    lines.insert(at, l);
                }
                _ => {}
            }
            *text = lines.join("\n") + "\n";
        }
    }
    let markers = g.markers;
    (
        vec![
            ("defs.mesh".to_string(), files.remove(0)),
            ("lab.mesh".to_string(), files.remove(0)),
        ],
        markers,
    )
}
