//! The diagnostics of `meshc take` and `meshc genesis` (LANGUAGE.md §13.3, §13.5): the
//! host report refused (E0601, E0602), a confirmation that does not match (E0607), what
//! the comparison refuses or says (E0603–E0606, W0601–W0604), and a genesis plan that
//! needs an instance outside the genesis (E0520). A take's diagnostics are about the
//! report as a whole: they are placed at its start.

use super::Rule;
use crate::diagnostics::Code;

/// E0601: a host report that cannot be taken with.
pub enum ReportRefused<'a> {
    /// Not a report of the schema: the first fault, at JSON path `path`.
    Malformed { path: &'a str, why: &'a str },
    /// A report of another node than the one taken.
    OtherNode { found: &'a str, wanted: &'a str },
}

impl Rule for ReportRefused<'_> {
    fn code(&self) -> Code {
        Code::E0601
    }

    fn message(&self) -> String {
        match self {
            ReportRefused::Malformed { path, why } => {
                format!("the host report is malformed at `{path}`: {why}")
            }
            ReportRefused::OtherNode { found, wanted } => {
                format!("the host report describes node `{found}`, not `{wanted}`")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            ReportRefused::Malformed { .. } => "survey the node again with `meshc survey`; the report's shape is schema/host-report.schema.json".into(),
            ReportRefused::OtherNode { wanted, .. } => {
                format!("survey node `{wanted}` and take with its report")
            }
        })
    }
}

/// E0602: a host report older than `--max-age` allows; the times are already said in
/// words.
pub struct ReportStale<'a> {
    pub taken_at: &'a str,
    pub age: &'a str,
    pub max_age: &'a str,
}

impl Rule for ReportStale<'_> {
    fn code(&self) -> Code {
        Code::E0602
    }

    fn message(&self) -> String {
        format!(
            "the host report was taken at {}, {} ago; --max-age is {}",
            self.taken_at, self.age, self.max_age
        )
    }

    fn help(&self) -> Option<String> {
        Some("survey the node again, or give a longer `--max-age`".into())
    }
}

/// E0607: `--yes DIGEST` that is not the preview's digest.
pub struct DigestMismatch<'a> {
    pub wanted: &'a str,
    pub digest: &'a str,
}

impl Rule for DigestMismatch<'_> {
    fn code(&self) -> Code {
        Code::E0607
    }

    fn message(&self) -> String {
        format!(
            "`--yes {}` does not match this preview's digest {}: the comparison, the report or the manifest changed; nothing was written",
            self.wanted, self.digest
        )
    }

    fn help(&self) -> Option<String> {
        Some("read the preview again and confirm the digest it prints last".into())
    }
}

/// What a take's comparison refuses or says about instance `instance`: `code` is one of
/// E0603–E0606 and W0601–W0604, `note` the comparison row's sentence (the preview's
/// `note`, which the diagnostic repeats).
pub struct TakeFinding<'a> {
    pub code: Code,
    pub note: &'a str,
    pub instance: &'a str,
}

impl Rule for TakeFinding<'_> {
    fn code(&self) -> Code {
        self.code
    }

    fn message(&self) -> String {
        self.note.to_string()
    }

    fn help(&self) -> Option<String> {
        let instance = self.instance;
        Some(match self.code {
            Code::E0603 => "pin the module to the running image or a newer one, or take with `--downgrade` if the downgrade is meant".into(),
            Code::E0604 => "pull the declared image on the node so the host can date it, then survey again".into(),
            Code::E0605 => "declare what the installation needs, or take with `--replace PATH` to replace the file".into(),
            Code::E0606 => format!("accept the value the service uses (it is then listed in the report's `accepted` for `{instance}`), or take with `--mint REQUIREMENT`"),
            Code::W0601 => "write `reach = \"public\"` in the port requirement if it must stay public".into(),
            Code::W0602 => format!("`keep_network \"NAME\"` on the assignment of `{instance}` keeps it on that network while its neighbours are taken"),
            Code::W0603 => "remove `keep_network` once the network's other members are taken over".into(),
            Code::W0604 => "render writes the declared owner; if the service needs the found one, declare it with `owner UID:GID` on the file".into(),
            _ => return None,
        })
    }
}

/// E0520: a genesis instance (`instance` on `node`) whose module requirement
/// `requirement` (contract `contract`) is answered by an instance outside the genesis.
pub struct OutsideGenesis<'a> {
    pub instance: &'a str,
    pub node: &'a str,
    pub requirement: &'a str,
    pub contract: &'a str,
    pub provider: &'a str,
    pub provider_node: &'a str,
}

impl Rule for OutsideGenesis<'_> {
    fn code(&self) -> Code {
        Code::E0520
    }

    fn message(&self) -> String {
        format!(
            "genesis instance `{}` on `{}` requires `{}` ({}), answered by `{}` on `{}`, which is not part of the genesis",
            self.instance,
            self.node,
            self.requirement,
            self.contract,
            self.provider,
            self.provider_node
        )
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "write `genesis` on the assignment of `{}` to `{}` too, or take `{}` out of the genesis",
            self.provider, self.provider_node, self.instance
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::{FilePath, Span};

    #[test]
    fn a_finding_keeps_its_code_and_says_its_note() {
        let file = FilePath::from("node.json");
        let d = TakeFinding {
            code: Code::E0606,
            note: "the service uses another password",
            instance: "forge",
        }
        .at(&file, Span::default());
        assert_eq!(d.code, Code::E0606);
        assert_eq!(d.message, "the service uses another password");
        assert!(d.help.as_deref().is_some_and(|h| h.contains("`forge`")));
        let said = TakeFinding {
            code: Code::W0601,
            note: "n",
            instance: "forge",
        }
        .at(&file, Span::default());
        assert!(!said.is_error());
    }
}
