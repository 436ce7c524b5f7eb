//! The closed set of diagnostic codes (LANGUAGE.md §10). Codes are a public interface:
//! never renumber or rename one.

macro_rules! codes {
    ($($code:ident => $title:literal,)*) => {
        /// A diagnostic code. Every code of the specification is one variant.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($code,)* }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &'static [Code] = &[$(Code::$code,)*];

            /// The code as written: `E0302`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$code => stringify!($code),)* }
            }

            /// The one-line title of the code's table row.
            pub fn title(self) -> &'static str {
                match self { $(Code::$code => $title,)* }
            }

            /// The long text `meshc explain` prints, with an example.
            pub fn explanation(self) -> &'static str {
                match self {
                    $(Code::$code => include_str!(concat!("explain/", stringify!($code), ".md")),)*
                }
            }
        }
    };
}

codes! {
    E0001 => "unexpected token",
    E0002 => "unterminated string",
    E0003 => "invalid escape",
    E0004 => "invalid number",
    E0005 => "unclosed delimiter",
    E0101 => "duplicate item of one kind and name",
    E0102 => "duplicate name in one scope",
    E0103 => "unknown contract",
    E0104 => "unknown requirement in a reference",
    E0105 => "unknown field of a contract",
    E0106 => "unknown module",
    E0107 => "unknown node",
    E0108 => "unknown seat",
    E0109 => "unknown instance",
    E0110 => "a standard contract redefined",
    E0201 => "unknown provider kind",
    E0202 => "contract answered by another provider kind",
    E0203 => "host or mesh contract declared outside the standard library",
    E0204 => "seat declared outside the standard library",
    E0205 => "a given field cannot be secret",
    E0301 => "type mismatch",
    E0302 => "secret read into a plain value",
    E0303 => "host path read into a value",
    E0304 => "value breaks a refinement",
    E0305 => "narrowing widens the contract",
    E0306 => "narrowing leaves no possible value",
    E0307 => "a field the provider answers set by the consumer",
    E0308 => "`exposed` without a reason",
    E0309 => "secret file given a plain value",
    E0310 => "`provides` leaves a field unanswered",
    E0311 => "`provides` writes a secret literal",
    E0313 => "cycle among requirements",
    E0314 => "literal not valid for its type",
    E0315 => "container path not absolute or not normalised",
    E0316 => "`publish` names something other than a port requirement",
    E0317 => "mount source is not a directory's or access's path",
    E0318 => "`consumer` or `given` outside `provides`",
    E0320 => "optional requirement read outside `when`",
    E0321 => "`?` on a requirement that is not a module requirement",
    E0322 => "`consumers CONTRACT` in a module that does not provide it",
    E0323 => "a host port no container publishes",
    E0324 => "unknown function, or wrong number of arguments",
    E0325 => "`keep_network` on a node not marked `adopted`",
    E0326 => "`absent` on a requirement that is not optional",
    E0327 => "`publish` or `health` in a job",
    E0328 => "`after` names its own container or closes a cycle",
    E0401 => "absolute path in env not under any mount, secret, file or image path",
    E0402 => "domain name in a definition",
    E0403 => "two entries of one container write the same path",
    E0404 => "a definition names a node",
    E0501 => "operator value missing and no default",
    E0502 => "no provider for a contract",
    E0503 => "several providers and no pin",
    E0504 => "seat not held",
    E0505 => "pinned instance does not provide the contract",
    E0506 => "host requirement placed on another node",
    E0507 => "public name already taken",
    E0508 => "instance name already used on this node",
    E0509 => "two logins alike",
    E0510 => "no free port in the node's range",
    E0511 => "two directories at the same or nested host path",
    E0512 => "secret operator value written in a mesh",
    E0513 => "assignment value does not fit its requirement",
    E0514 => "waiting for a provider that was left out",
    E0515 => "seat held by an instance that does not provide what it delivers",
    E0516 => "pin or placement on a requirement of the wrong kind",
    E0517 => "assignment names a requirement the module does not have",
    E0518 => "access requirement with no location",
    E0519 => "one host port placed twice on a node",
    E0520 => "a genesis instance's module requirement that no genesis instance answers",
    E0521 => "a directory placed at `/`, a system directory, or the node's `.mesh` folder",
    E0601 => "host report malformed, or for another node",
    E0602 => "host report older than `--max-age`",
    E0603 => "declared image older than the running one",
    E0604 => "an image's creation date is unknown",
    E0605 => "a declared file differs from the kept original",
    E0606 => "a secret would be minted for a service whose data was found",
    E0607 => "`--yes` digest does not match the preview",
    W0001 => "requirement never read",
    W0002 => "image not pinned to a tag or digest",
    W0003 => "`exposed` on a value that is not secret",
    W0004 => "sealed file or secret file with no owner in a container with no user",
    W0401 => "old form: host path literal as mount source",
    W0402 => "old form: legacy placeholder",
    W0601 => "a port's reach narrows",
    W0602 => "a found network's other members may reach the container by name",
    W0603 => "a found network kept by `keep_network`",
    W0604 => "a taken file's owner or group changes",
}

/// How serious a diagnostic is, before `--deny` raises warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `error` or `warning`, as JSON output spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl Code {
    /// The severity the code carries: `W` codes warn, `E` codes are errors.
    pub fn severity(self) -> Severity {
        if self.as_str().starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    /// Whether the code marks an old form (W0401, W0402), which `--deny old-forms` raises.
    pub fn is_old_form(self) -> bool {
        matches!(self, Code::W0401 | Code::W0402)
    }

    /// Parses `E0302` (case-insensitive).
    pub fn parse(text: &str) -> Option<Code> {
        let text = text.trim();
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(text))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
