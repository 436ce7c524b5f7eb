//! The checker's diagnostics built at several places, or on the way to it: one type per
//! code, whose variants are the places it is refused.

use super::Rule;
use crate::diagnostics::{Code, Label};
use crate::span::{FilePath, Span};
use std::fmt::Display;

/// A label in `file` at `span`.
fn label(file: &FilePath, span: Span, message: impl Into<String>) -> Vec<Label> {
    vec![Label {
        file: file.clone(),
        span,
        message: message.into(),
    }]
}

/// E0304: a value outside its refinements.
pub enum Breach<'a> {
    /// A reference whose range is wider than the one its place accepts: `held` says what
    /// the reference may hold, `want` the range; `decl` is where the range is declared.
    ReferenceRange {
        name: &'a str,
        held: String,
        what: &'a dyn Display,
        want: &'a dyn Display,
        help: String,
        decl: Option<(&'a FilePath, Span)>,
    },
    /// A literal its place's refinement refuses; `decl` is where the refinement is.
    Literal {
        what: &'a dyn Display,
        breach: &'a dyn Display,
        help: String,
        decl: Option<(&'a FilePath, Span)>,
    },
    /// A value of a narrowing's set that the contract's other refinements refuse.
    SetValue {
        what: &'a dyn Display,
        breach: &'a dyn Display,
        field: (&'a FilePath, Span),
    },
    /// An `owner` or group number outside the uids.
    Uid {
        what: &'a str,
        which: &'a str,
        max: i64,
        value: i64,
    },
}

impl Rule for Breach<'_> {
    fn code(&self) -> Code {
        Code::E0304
    }

    fn message(&self) -> String {
        use Breach::*;
        match self {
            ReferenceRange {
                name,
                held,
                what,
                want,
                ..
            } => format!("`{name}` {held}, but {what} must be in {want}"),
            Literal { what, breach, .. } | SetValue { what, breach, .. } => {
                format!("{what} {breach}")
            }
            Uid {
                what,
                which,
                max,
                value,
            } => format!("the {what}'s {which} must be a uid in 0..{max}, found {value}"),
        }
    }

    fn help(&self) -> Option<String> {
        use Breach::*;
        Some(match self {
            ReferenceRange { help, .. } | Literal { help, .. } => help.clone(),
            SetValue { .. } => "drop the value from the set: it can never be chosen".into(),
            Uid { .. } => {
                "write the number the image's process runs as, like `owner 1000` or `owner 991:991`"
                    .into()
            }
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        use Breach::*;
        match self {
            ReferenceRange {
                decl: Some((file, span)),
                ..
            } => label(file, *span, "the range is declared here"),
            Literal {
                decl: Some((file, span)),
                ..
            } => label(file, *span, "the refinement is declared here"),
            SetValue {
                field: (file, span),
                ..
            } => label(file, *span, "the contract's refinements"),
            _ => Vec::new(),
        }
    }
}

/// E0104: a requirement the module does not declare.
pub enum UnknownRequirement<'a> {
    /// A name that may be quoted (in `when`, `publish`, or a loop's variable read outside
    /// its template, `loop_var` then being where the loop declares it).
    Named {
        module: &'a str,
        name: &'a str,
        help: String,
        loop_var: Option<Span>,
    },
    /// A word that names nothing, perhaps a value written without its quotes (a secret
    /// even): never quoted.
    Unquoted { module: &'a str, help: String },
}

impl Rule for UnknownRequirement<'_> {
    fn code(&self) -> Code {
        Code::E0104
    }

    fn message(&self) -> String {
        match self {
            UnknownRequirement::Named { module, name, .. } => {
                format!("module `{module}` has no requirement `{name}`")
            }
            UnknownRequirement::Unquoted { module, .. } => format!(
                "module `{module}` has no requirement of the name written here (a value is written in quotes)"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            UnknownRequirement::Named { help, .. } | UnknownRequirement::Unquoted { help, .. } => {
                Some(help.clone())
            }
        }
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            UnknownRequirement::Named {
                loop_var: Some(at), ..
            } => label(file, *at, "a loop variable, known only in its template"),
            _ => Vec::new(),
        }
    }
}

/// E0103: a contract no file declares. `help` suggests a close name or says how to
/// declare it.
pub struct UnknownContract<'a> {
    pub name: &'a str,
    pub help: String,
}

impl Rule for UnknownContract<'_> {
    fn code(&self) -> Code {
        Code::E0103
    }

    fn message(&self) -> String {
        format!("unknown contract `{}`", self.name)
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

/// E0201: a provider kind outside the closed set, or none where one is needed.
pub enum ProviderKindError<'a> {
    /// A word that is no provider kind.
    Unknown { kind: &'a str, help: String },
    /// `requires NAME: CONTRACT`: the kind forgotten.
    Missing {
        requirement: &'a str,
        contract: &'a str,
        help: String,
    },
    /// `contract NAME for operator`.
    OperatorContract,
}

impl Rule for ProviderKindError<'_> {
    fn code(&self) -> Code {
        Code::E0201
    }

    fn message(&self) -> String {
        use ProviderKindError::*;
        const KINDS: &str = "the provider kinds are `module`, `host`, `mesh` and `operator`";
        match self {
            Unknown { kind, .. } => format!("unknown provider kind `{kind}`: {KINDS}"),
            Missing {
                requirement,
                contract,
                ..
            } => format!(
                "`{requirement}` names no provider kind before its contract `{contract}`: {KINDS}"
            ),
            OperatorContract => "a contract is answered by a `module`, the `host` or the `mesh`, never by the `operator`".into(),
        }
    }

    fn help(&self) -> Option<String> {
        use ProviderKindError::*;
        Some(match self {
            Unknown { help, .. } | Missing { help, .. } => help.clone(),
            OperatorContract => "an operator value needs no contract: write `requires NAME: operator TYPE` in the module".into(),
        })
    }
}

/// E0202: a contract answered by another provider kind than the one written.
pub enum OtherProvider<'a> {
    /// `requires NAME: KIND CONTRACT` with the wrong kind. `answered_by` and `written`
    /// are answerers (`the host`), `kind` the right kind as written (`host`), `decl` where
    /// the contract is declared.
    Requirement {
        requirement: &'a str,
        contract: &'a str,
        answered_by: &'a str,
        written: &'a str,
        kind: &'a str,
        decl: (&'a FilePath, Span),
    },
    /// `provides CONTRACT` of a contract a module does not answer.
    Provides {
        contract: &'a str,
        answered_by: &'a str,
        kind: &'a str,
        decl: (&'a FilePath, Span),
    },
    /// A `host_path` in a contract the host does not answer, or an operator value.
    HostPath { answerer: &'a str },
}

impl Rule for OtherProvider<'_> {
    fn code(&self) -> Code {
        Code::E0202
    }

    fn message(&self) -> String {
        use OtherProvider::*;
        match self {
            Requirement {
                contract,
                answered_by,
                written,
                ..
            } => format!("`{contract}` is answered by {answered_by}, not by {written}"),
            Provides {
                contract,
                answered_by,
                ..
            } => format!("`{contract}` is answered by {answered_by}, not by a module"),
            HostPath { answerer } => {
                format!("a `host_path` is answered by the host, not by {answerer}")
            }
        }
    }

    fn help(&self) -> Option<String> {
        use OtherProvider::*;
        Some(match self {
            Requirement {
                requirement,
                contract,
                kind,
                ..
            } => format!("write `requires {requirement}: {kind} {contract}`"),
            Provides { .. } => "a module provides only `for module` contracts".into(),
            HostPath { .. } => "a place on a machine is a `host directory` or `host access` requirement of the module, placed by the assignment".into(),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        use OtherProvider::*;
        match self {
            Requirement {
                kind,
                decl: (file, span),
                ..
            }
            | Provides {
                kind,
                decl: (file, span),
                ..
            } => label(file, *span, format!("declared `for {kind}` here")),
            HostPath { .. } => Vec::new(),
        }
    }
}

/// E0324: a call the language does not have, or not with these arguments.
pub enum BadCall<'a> {
    /// A name that is no function; `near` is the closest function's signature.
    Unknown {
        name: &'a str,
        near: Option<&'a str>,
    },
    /// A function called with the wrong number of arguments.
    Arity {
        function: &'a str,
        arity: usize,
        found: usize,
        signature: &'a str,
    },
    /// A string around a secret as an argument.
    SecretInString { function: &'a str },
}

impl Rule for BadCall<'_> {
    fn code(&self) -> Code {
        Code::E0324
    }

    fn message(&self) -> String {
        use BadCall::*;
        match self {
            Unknown { name, .. } => format!("`{name}` is not a function of the language"),
            Arity {
                function,
                arity,
                found,
                ..
            } => format!(
                "`{function}` takes {arity} argument{}, found {found}",
                if *arity == 1 { "" } else { "s" }
            ),
            SecretInString { function } => format!(
                "an argument of `{function}(…)` that reads a secret is a reference or a call, not a string around it"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        use BadCall::*;
        Some(match self {
            Unknown { near, .. } => {
                let near = near
                    .map(|n| format!("did you mean `{n}`? "))
                    .unwrap_or_default();
                format!(
                    "{near}the functions are url(x), json(x), yaml(x), lower(x), upper(x) and replace(x, \"from\", \"to\")"
                )
            }
            Arity { signature, .. } => format!("write `{signature}`"),
            SecretInString { function } => format!(
                "call `{function}` on the secret alone, and write the text around the call: `\"…${{{function}(db.password)}}…\"`"
            ),
        })
    }
}
