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

/// E0323: a `host port` requirement no container of its module publishes. `help` says
/// where to publish it, by how many containers there are.
pub struct PortNotPublished<'a> {
    pub port: &'a str,
    pub module: &'a str,
    pub help: String,
}

impl Rule for PortNotPublished<'_> {
    fn code(&self) -> Code {
        Code::E0323
    }

    fn message(&self) -> String {
        format!(
            "host port `{}` is published by no container of module `{}`: nothing would listen on it",
            self.port, self.module
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

/// E0326: a requirement declared without `?` (at `declared`) treated as optional.
/// `module_kind` says whether the requirement is a module's, which could be made
/// optional.
pub enum NotOptional<'a> {
    /// `when REQ` in a definition.
    When {
        requirement: &'a str,
        module_kind: bool,
        declared: Span,
    },
    /// `REQ absent` on an assignment; `declared` is in the module's file.
    Declined {
        requirement: &'a str,
        instance: &'a str,
        node: &'a str,
        module_kind: bool,
        kind: &'a str,
        declared: (&'a FilePath, Span),
    },
}

impl Rule for NotOptional<'_> {
    fn code(&self) -> Code {
        Code::E0326
    }

    fn message(&self) -> String {
        match self {
            NotOptional::When { requirement, .. } => {
                format!("`when {requirement}` tests a requirement that is not optional")
            }
            NotOptional::Declined {
                requirement,
                instance,
                node,
                ..
            } => format!(
                "`{requirement}` of instance `{instance}` on node `{node}` is not optional; it cannot be declined with `absent`"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            NotOptional::When {
                requirement: name,
                module_kind: true,
                ..
            } => format!(
                "make it optional with `requires {name}?: …`, or write the entries without `when`: `{name}` is always there"
            ),
            NotOptional::When {
                requirement: name, ..
            } => format!(
                "only an optional module requirement may be absent; write the entries without `when`: `{name}` is always there"
            ),
            NotOptional::Declined {
                requirement: key,
                module_kind: true,
                ..
            } => format!(
                "a requirement is made optional in its definition: `requires {key}?: module …`; or remove `{key} absent`"
            ),
            NotOptional::Declined {
                requirement: key,
                kind,
                ..
            } => format!(
                "only a module requirement can be optional, and `{key}` is a {kind} requirement: remove `{key} absent`"
            ),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            NotOptional::When { declared, .. } => {
                label(file, *declared, "declared without `?` here")
            }
            NotOptional::Declined {
                declared: (file, span),
                ..
            } => label(file, *span, "required here, without `?`"),
        }
    }
}

/// W0002: an image not pinned to a tag or digest (`latest` counts as none). `name` is
/// the reference without its tag.
pub struct Unpinned<'a> {
    pub image: &'a str,
    pub name: &'a str,
    pub latest: bool,
}

impl Rule for Unpinned<'_> {
    fn code(&self) -> Code {
        Code::W0002
    }

    fn message(&self) -> String {
        let image = self.image;
        if self.latest {
            format!("image `{image}` is not pinned: `latest` moves")
        } else {
            format!("image `{image}` is not pinned to a tag or digest")
        }
    }

    fn help(&self) -> Option<String> {
        let name = self.name;
        Some(format!(
            "pin the version the module was written for, like `{name}:1.2.3`, or a digest `{name}@sha256:…`"
        ))
    }
}

/// W0004: a file or secret file only root can read, in a container that says nothing of
/// who runs it.
pub struct RootOnly<'a> {
    pub what: &'a str,
    pub path: &'a str,
    pub container: &'a str,
}

impl Rule for RootOnly<'_> {
    fn code(&self) -> Code {
        Code::W0004
    }

    fn message(&self) -> String {
        format!(
            "the {} `{}` is owned by root (0:0) with no one else able to read it: container `{}` declares no `user` and the entry no `owner`",
            self.what, self.path, self.container
        )
    }

    fn help(&self) -> Option<String> {
        Some("say who reads it: `owner UID[:GID]` on the entry (the uid the image's process runs as), or `user UID` on the container; `owner 0` if root reads it".into())
    }
}

/// `exposed` on an env entry: W0003 when the value carries no secret (the value's place
/// is masked, as if it were one), E0308 when the secret's exposure gives no reason.
pub enum ExposedEnv<'a> {
    NoSecret { key: &'a str, value: Span },
    NoReason { key: &'a str },
}

impl Rule for ExposedEnv<'_> {
    fn code(&self) -> Code {
        match self {
            ExposedEnv::NoSecret { .. } => Code::W0003,
            ExposedEnv::NoReason { .. } => Code::E0308,
        }
    }

    fn message(&self) -> String {
        match self {
            ExposedEnv::NoSecret { key, .. } => {
                format!("`exposed` on env `{key}`, which carries no secret")
            }
            ExposedEnv::NoReason { key } => format!("`exposed` on env `{key}` needs a reason"),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            ExposedEnv::NoSecret { .. } => "remove `exposed …`: only a secret needs the exception".into(),
            ExposedEnv::NoReason { .. } => "say next to it why the secret must be in the environment: `exposed \"the image reads its password only from this variable\"`".into(),
        })
    }

    fn masks_other(&self) -> Option<Span> {
        match self {
            ExposedEnv::NoSecret { value, .. } => Some(*value),
            ExposedEnv::NoReason { .. } => None,
        }
    }
}

/// E0401: an env value naming a path no mount, secret, file or image path holds.
/// `shown` is the path as the message shows it (`` `/data/x` ``, `a path under …`).
pub struct EnvPathNotHeld<'a> {
    pub key: &'a str,
    pub shown: String,
    pub container: &'a str,
    pub help: String,
}

impl Rule for EnvPathNotHeld<'_> {
    fn code(&self) -> Code {
        Code::E0401
    }

    fn message(&self) -> String {
        format!(
            "env `{}` names {}, which no mount, secret, file or image path of container `{}` holds",
            self.key, self.shown, self.container
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

/// E0315: a container path (a mount's, secret's or file's target) that is not written
/// out, or not absolute and normalised.
pub enum ContainerPath<'a> {
    Interpolates,
    NotNormal { text: &'a str, why: String },
}

impl Rule for ContainerPath<'_> {
    fn code(&self) -> Code {
        Code::E0315
    }

    fn message(&self) -> String {
        match self {
            ContainerPath::Interpolates => {
                "a container path is written out; it cannot interpolate".into()
            }
            ContainerPath::NotNormal { text, .. } => {
                format!("`{text}` is not an absolute, normalised container path")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            ContainerPath::Interpolates => {
                "write the absolute path, like `\"/etc/app/app.ini\"`".into()
            }
            ContainerPath::NotNormal { why, .. } => why.clone(),
        })
    }
}

/// E0403: two entries of a container writing one path; `first` is the first.
pub struct PathWrittenTwice<'a> {
    pub container: &'a str,
    pub path: &'a str,
    pub first: Span,
}

impl Rule for PathWrittenTwice<'_> {
    fn code(&self) -> Code {
        Code::E0403
    }

    fn message(&self) -> String {
        format!(
            "two entries of container `{}` write `{}`",
            self.container, self.path
        )
    }

    fn help(&self) -> Option<String> {
        Some("give every mount, secret and file a path of its own".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        label(file, self.first, "first written here")
    }
}

/// E0317: a mount source that is not a `directory`'s or an `access`'s `path`.
pub enum MountSource<'a> {
    /// A reference to something else; `help` says what it is and what to mount.
    Reference { name: &'a str, help: String },
    /// A path written out (`the host's root `/``, `a host path written out`).
    Written { what: &'a str },
}

impl Rule for MountSource<'_> {
    fn code(&self) -> Code {
        Code::E0317
    }

    fn message(&self) -> String {
        let what = match self {
            MountSource::Reference { name, .. } => format!("`{name}`"),
            MountSource::Written { what } => (*what).to_string(),
        };
        format!("{what} cannot be a mount source: only a `directory`'s or an `access`'s `path` can")
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            MountSource::Reference { help, .. } => help.clone(),
            MountSource::Written { .. } => "require `requires data: host directory` (or `host access`) and write `mount data.path -> …`".into(),
        })
    }
}

/// E0316: `publish` naming a requirement that is not a `host port`; `what` says what it
/// is (`` `x` is an operator value ``).
pub struct PublishNotPort {
    pub what: String,
    pub help: String,
}

impl Rule for PublishNotPort {
    fn code(&self) -> Code {
        Code::E0316
    }

    fn message(&self) -> String {
        format!("{}; `publish` names a `host port` requirement", self.what)
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

/// E0309: a secret file given a value that is not secret. The value's place is masked.
pub enum SecretFilePlain<'a> {
    /// A reference (named) that is not secret.
    Reference { name: &'a str },
    /// A string whose interpolations read no secret.
    Interpolated,
    /// A literal.
    Literal,
    /// Anything else.
    Other,
}

impl Rule for SecretFilePlain<'_> {
    fn code(&self) -> Code {
        Code::E0309
    }

    fn message(&self) -> String {
        match self {
            SecretFilePlain::Reference { name } => {
                format!("`{name}` is not secret; a secret file holds only a secret")
            }
            SecretFilePlain::Interpolated => {
                "this string has no secret part; a secret file holds only a secret".into()
            }
            SecretFilePlain::Literal => {
                "a literal is no secret: every reader of the definition knows it".into()
            }
            SecretFilePlain::Other => "a secret file holds only a secret".into(),
        }
    }

    fn help(&self) -> Option<String> {
        Some("read a secret (a contract's secret field like `db.password`, a `module secret` requirement's `value`, an `operator secret` value); a plain value belongs in env or a `file`".into())
    }

    fn masks_primary(&self) -> bool {
        true
    }
}

/// E0321: `?` on a requirement that is not a module's. `kind` is where its kind is
/// written, `a_kind` the kind with its article (`a host`), `help` what to write.
pub struct OptionalNotModule<'a> {
    pub requirement: &'a str,
    pub a_kind: &'a str,
    pub kind: Span,
    pub help: String,
}

impl Rule for OptionalNotModule<'_> {
    fn code(&self) -> Code {
        Code::E0321
    }

    fn message(&self) -> String {
        format!(
            "`{}` is {} requirement; only a module requirement can be optional",
            self.requirement, self.a_kind
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        label(file, self.kind, format!("{} requirement", self.a_kind))
    }
}

/// E0307: a field the provider answers set by the consumer, or a given field answered
/// by the provider. `decl` is where the contract declares the field.
pub enum ProviderField<'a> {
    /// A requirement's narrowing that sets a field the provider answers; `value` is the
    /// value written when the field is secret, masked. `help` names the given fields.
    Set {
        field: &'a str,
        contract: &'a str,
        requirement: &'a str,
        decl: (&'a FilePath, Span),
        secret_value: Option<Span>,
        help: String,
    },
    /// A `provides` block answering a given field.
    AnswersGiven {
        field: &'a str,
        decl: (&'a FilePath, Span),
    },
    /// An assignment setting `key`, a field of `contract` the provider answers;
    /// `given` lists the contract's given fields (empty when none).
    InAssignment {
        key: &'a str,
        contract: &'a str,
        decl: (&'a FilePath, Span),
        given: String,
    },
}

impl Rule for ProviderField<'_> {
    fn code(&self) -> Code {
        Code::E0307
    }

    fn message(&self) -> String {
        match self {
            ProviderField::Set {
                field,
                contract,
                requirement,
                ..
            } => format!(
                "`{field}` of `{contract}` is answered by its provider; `{requirement}` cannot set it"
            ),
            ProviderField::AnswersGiven { field, .. } => {
                format!("`{field}` is given: the consumer sets it and the provider honours it")
            }
            ProviderField::InAssignment { key, contract, .. } => format!(
                "`{key}` is answered by the provider of `{contract}`; an assignment sets only given fields"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            ProviderField::Set { help, .. } => help.clone(),
            ProviderField::AnswersGiven { field, .. } => {
                format!("remove this answer; read what the consumer set as `given.{field}`")
            }
            ProviderField::InAssignment {
                contract, given, ..
            } => super::given_fields_help(contract, given),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        match self {
            ProviderField::Set {
                decl: (file, span), ..
            } => label(file, *span, "answered by the provider, not given"),
            ProviderField::AnswersGiven {
                decl: (file, span), ..
            } => label(file, *span, "declared given here"),
            ProviderField::InAssignment {
                decl: (file, span), ..
            } => label(file, *span, "declared here"),
        }
    }

    fn masks_other(&self) -> Option<Span> {
        match self {
            ProviderField::Set { secret_value, .. } => *secret_value,
            ProviderField::AnswersGiven { .. } | ProviderField::InAssignment { .. } => None,
        }
    }
}

/// E0306: refinements that together allow no value.
pub enum NoPossibleValue<'a> {
    /// A requirement's narrowing of `field`, declared at `decl`.
    Narrowing {
        requirement: &'a str,
        field: &'a str,
        decl: (&'a FilePath, Span),
    },
    /// The refinements of a declared field or operator value; `type_range` is the
    /// type's own range in words (`a port`, `1..65535`) when it has one.
    Declared {
        name: &'a str,
        type_range: Option<(String, String)>,
    },
}

impl Rule for NoPossibleValue<'_> {
    fn code(&self) -> Code {
        Code::E0306
    }

    fn message(&self) -> String {
        match self {
            NoPossibleValue::Narrowing {
                requirement, field, ..
            } => format!("the narrowing of `{requirement}.{field}` leaves no possible value"),
            NoPossibleValue::Declared { name, .. } => {
                format!("the refinements of `{name}` leave no possible value")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            NoPossibleValue::Narrowing { .. } => {
                "together with the contract's refinements these allow nothing; loosen one of them"
                    .into()
            }
            NoPossibleValue::Declared {
                type_range: Some((a_type, range)),
                ..
            } => format!(
                "together with the range of {a_type}, {range}, they allow nothing; loosen one of them"
            ),
            NoPossibleValue::Declared {
                type_range: None, ..
            } => "together they allow nothing; loosen one of them".into(),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        match self {
            NoPossibleValue::Narrowing {
                field,
                decl: (file, span),
                ..
            } => label(file, *span, format!("the contract declares `{field}` here")),
            NoPossibleValue::Declared { .. } => Vec::new(),
        }
    }
}

/// E0305: a requirement's refinement that allows what its contract refuses. `decl` is
/// where the contract declares the field.
pub enum Widens<'a> {
    /// A value of a set outside the contract's set. For a secret field neither is quoted:
    /// `shown` and `allows` say so in words, and the value's place is masked.
    SetValue {
        shown: String,
        field: &'a str,
        contract: &'a str,
        allows: String,
        secret: bool,
        decl: (&'a FilePath, Span),
    },
    /// A bound (`in`, `len`) wider than the contract's `keyword base`; `whose` names the
    /// bound widened.
    Bound {
        keyword: &'a str,
        written: &'a dyn Display,
        base: &'a dyn Display,
        whose: String,
        field: &'a str,
        decl: (&'a FilePath, Span),
    },
}

impl Rule for Widens<'_> {
    fn code(&self) -> Code {
        Code::E0305
    }

    fn message(&self) -> String {
        match self {
            Widens::SetValue {
                shown,
                field,
                contract,
                allows,
                ..
            } => format!(
                "{shown} widens the contract: `{field}` of `{contract}` allows only {allows}"
            ),
            Widens::Bound {
                keyword,
                written,
                whose,
                field,
                ..
            } => format!("`{keyword} {written}` widens {whose} for `{field}`"),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Widens::SetValue { .. } => {
                "a narrowing may drop values of the contract's set, never add one".into()
            }
            Widens::Bound { base, .. } => format!(
                "a requirement may narrow a contract, never widen it: write a range inside `{base}`, or leave the refinement out"
            ),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        match self {
            Widens::SetValue {
                decl: (file, span), ..
            } => label(file, *span, "the contract's set"),
            Widens::Bound {
                keyword,
                base,
                decl: (file, span),
                ..
            } => label(
                file,
                *span,
                format!("the contract's bound: `{keyword} {base}`"),
            ),
        }
    }

    fn masks_primary(&self) -> bool {
        matches!(self, Widens::SetValue { secret: true, .. })
    }
}

/// E0313: what reads itself.
pub enum RequirementCycle<'a> {
    /// Requirements whose narrowings read each other. `message` names the cycle (its
    /// first requirements only); `reads` are the further edges, each a place and its
    /// words.
    Narrowings {
        message: String,
        reads: Vec<(Span, String)>,
    },
    /// A value of an instance (`what`, of `who`) that the resolver finds reading itself
    /// through other requirements or answers.
    Value { what: &'a str, who: &'a str },
}

impl Rule for RequirementCycle<'_> {
    fn code(&self) -> Code {
        Code::E0313
    }

    fn message(&self) -> String {
        match self {
            RequirementCycle::Narrowings { message, .. } => message.clone(),
            RequirementCycle::Value { what, who } => format!(
                "`{what}` of {who} reads itself: the requirements and answers it goes through form a cycle"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            RequirementCycle::Narrowings { .. } => "a requirement can be answered only after what its narrowing reads: set one of these fields from an operator value or a literal instead".into(),
            RequirementCycle::Value { .. } => {
                "break the cycle: set one of the values it goes through directly".into()
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            RequirementCycle::Narrowings { reads, .. } => reads
                .iter()
                .map(|(span, message)| Label {
                    file: file.clone(),
                    span: *span,
                    message: message.clone(),
                })
                .collect(),
            RequirementCycle::Value { .. } => Vec::new(),
        }
    }
}

/// E0205: a given field declared secret; `given` is where `given` is written.
pub struct GivenSecret<'a> {
    pub field: &'a str,
    pub given: Span,
}

impl Rule for GivenSecret<'_> {
    fn code(&self) -> Code {
        Code::E0205
    }

    fn message(&self) -> String {
        format!("given field `{}` cannot be secret", self.field)
    }

    fn help(&self) -> Option<String> {
        Some("the consumer sets a given field in plain sight; make the provider answer it instead (drop `given`), or drop `secret`".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        label(file, self.given, "given here")
    }
}

/// E0311: a secret given a literal, or an answer with no secret part. The value's place
/// is masked.
pub enum SecretLiteral<'a> {
    /// A declared secret with a literal default.
    Default { name: &'a str },
    /// A `provides` answer to the secret field declared at `decl`; `literal` when the
    /// answer is a plain string.
    Answer {
        field: &'a str,
        literal: bool,
        decl: (&'a FilePath, Span),
    },
}

impl Rule for SecretLiteral<'_> {
    fn code(&self) -> Code {
        Code::E0311
    }

    fn message(&self) -> String {
        match self {
            SecretLiteral::Default { name } => format!("secret `{name}` has a literal default"),
            SecretLiteral::Answer {
                field,
                literal: true,
                ..
            } => format!("secret `{field}` is written as a literal"),
            SecretLiteral::Answer { field, .. } => {
                format!("secret `{field}` is answered with no secret part")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            SecretLiteral::Default { .. } => "a literal written in a definition is known to every reader, so it is no secret: remove the default".into(),
            SecretLiteral::Answer { field, .. } => format!(
                "a secret answer is made for each consumer: leave `{field}` out and the provider makes it, or pass through a secret of this module (a `module secret` requirement's `value`, an `operator secret` value)"
            ),
        })
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        match self {
            SecretLiteral::Answer {
                decl: (file, span), ..
            } => label(file, *span, "declared secret here"),
            SecretLiteral::Default { .. } => Vec::new(),
        }
    }

    fn masks_primary(&self) -> bool {
        true
    }
}

/// E0310: fields a provider owes and does not answer.
pub enum Unanswered<'a> {
    /// A `provides` block that leaves fields unanswered. `listed` names them; `fields`
    /// are their names and where `file` declares them, each labelled.
    Fields {
        contract: &'a str,
        listed: String,
        file: &'a FilePath,
        fields: Vec<(&'a str, Span)>,
    },
    /// A provider (`provider`, its assignment at `provider_head`, of module `module`)
    /// whose answer to a consumer (`who`, its requirement `requirement`) lacks `field`.
    ToConsumer {
        provider: &'a str,
        contract: &'a str,
        requirement: &'a str,
        who: &'a str,
        field: &'a str,
        module: &'a str,
        provider_head: Span,
    },
}

impl Rule for Unanswered<'_> {
    fn code(&self) -> Code {
        Code::E0310
    }

    fn message(&self) -> String {
        match self {
            Unanswered::Fields {
                contract, listed, ..
            } => format!("`provides {contract}` leaves {listed} unanswered"),
            Unanswered::ToConsumer {
                provider,
                contract,
                requirement,
                who,
                field,
                ..
            } => format!(
                "{provider} answers `{contract}` for `{requirement}` of {who} without field `{field}`, which has no default"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Unanswered::Fields { fields, .. } => {
                let first = fields.first().map_or("", |(name, _)| name);
                format!(
                    "answer every field the provider owes, like `{first} = …`; given fields are the consumer's, and secret fields and fields with a default may be left out"
                )
            }
            Unanswered::ToConsumer {
                contract,
                field,
                module,
                ..
            } => {
                format!("answer it in `provides {contract} {{ {field} = … }}` of module `{module}`")
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            Unanswered::Fields {
                file: declared,
                fields,
                ..
            } => fields
                .iter()
                .map(|(name, span)| Label {
                    file: (*declared).clone(),
                    span: *span,
                    message: format!("`{name}` is declared here"),
                })
                .collect(),
            Unanswered::ToConsumer { provider_head, .. } => {
                label(file, *provider_head, "the provider")
            }
        }
    }
}

/// E0320: an optional requirement read outside its `when` block. `declared` is where it
/// is declared optional; `under` the `when` the read stands under, if any.
pub struct OptionalRead<'a> {
    pub requirement: &'a str,
    pub declared: Span,
    pub under: Option<&'a str>,
}

impl Rule for OptionalRead<'_> {
    fn code(&self) -> Code {
        Code::E0320
    }

    fn message(&self) -> String {
        let name = self.requirement;
        format!(
            "`{name}` is optional and may be absent; it is read only inside `when {name} {{ … }}`"
        )
    }

    fn help(&self) -> Option<String> {
        let name = self.requirement;
        Some(match self.under {
            Some(other) => format!(
                "this entry stands under `when {other}`; move it to a `when {name} {{ … }}` block of its own"
            ),
            None => format!(
                "put the entries that read it in `when {name} {{ … }}` among the container's entries or inside `env {{ }}`; they are left out when `{name}` is absent"
            ),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        label(file, self.declared, "declared optional here")
    }
}

/// E0318: `consumer` or `given` read outside `provides`.
pub struct OutsideProvides<'a> {
    pub word: &'a str,
}

impl Rule for OutsideProvides<'_> {
    fn code(&self) -> Code {
        Code::E0318
    }

    fn message(&self) -> String {
        format!("`{}` exists only inside `provides`", self.word)
    }

    fn help(&self) -> Option<String> {
        Some(if self.word == "consumer" {
            "a module reads its own login through a `mesh identity` requirement: `requires me: mesh identity`, then `me.login`".into()
        } else {
            "a requirement's given field is read as `req.field`; `given.FIELD` is what a consumer set, read while answering it".into()
        })
    }
}

/// E0303: a host path read anywhere but as a mount source. `place` is the place in words
/// (`env `X``), none when the path is interpolated; `requirement` names what to mount.
pub struct HostPathRead<'a> {
    pub name: &'a str,
    pub place: Option<&'a str>,
    pub requirement: &'a str,
}

impl Rule for HostPathRead<'_> {
    fn code(&self) -> Code {
        Code::E0303
    }

    fn message(&self) -> String {
        let name = self.name;
        match self.place {
            None => format!("`{name}` is a host path; it cannot be interpolated"),
            Some(place) => format!("`{name}` is a host path; {place} cannot read it"),
        }
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "a host path is only ever a mount source: mount it (`mount {}.path -> \"/data\"`) and let the process read the container path",
            self.requirement
        ))
    }
}

/// E0302: a secret going into a plain value. `place` is where, in words; `decl` where
/// the secret is declared; `help` says how to deliver it there.
pub struct SecretToPlain<'a> {
    pub place: &'a str,
    pub name: &'a str,
    pub decl: (&'a FilePath, Span),
    pub help: String,
}

impl Rule for SecretToPlain<'_> {
    fn code(&self) -> Code {
        Code::E0302
    }

    fn message(&self) -> String {
        format!(
            "{} would carry the secret `{}` as a plain value",
            self.place, self.name
        )
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        label(self.decl.0, self.decl.1, "declared secret here")
    }
}

/// E0101: a contract, module or mesh (`what`) defined twice in the workspace; `first` is
/// the first definition.
pub struct DefinedTwice<'a> {
    pub what: &'a str,
    pub name: &'a str,
    pub first: (&'a FilePath, Span),
}

impl Rule for DefinedTwice<'_> {
    fn code(&self) -> Code {
        Code::E0101
    }

    fn message(&self) -> String {
        format!("{} `{}` is defined twice", self.what, self.name)
    }

    fn help(&self) -> Option<String> {
        Some(format!(
            "rename one of them; {} names are global to the workspace",
            self.what
        ))
    }

    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        label(self.first.0, self.first.1, "first defined here")
    }
}

/// An item only the standard library may declare: E0110 for a standard contract
/// redefined, E0204 for a seat declared elsewhere.
pub enum StandardOnly<'a> {
    Contract { name: &'a str },
    Seat { name: &'a str },
}

impl Rule for StandardOnly<'_> {
    fn code(&self) -> Code {
        match self {
            StandardOnly::Contract { .. } => Code::E0110,
            StandardOnly::Seat { .. } => Code::E0204,
        }
    }

    fn message(&self) -> String {
        match self {
            StandardOnly::Contract { name } => {
                format!("`{name}` is a standard contract and cannot be redefined")
            }
            StandardOnly::Seat { name } => {
                format!("seat `{name}` is declared outside the standard library")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            StandardOnly::Contract { .. } => "choose another name for your contract".into(),
            StandardOnly::Seat { .. } => "the seats are a closed set: vault, proxy, dns and broker; a mesh holds one with `seat NAME = INSTANCE on NODE`".into(),
        })
    }
}

/// An old form (W0401, W0402) read as its one form, with a warning saying what to write.
pub enum OldForm<'a> {
    /// `${kind:ref}` read as `${new}`.
    Placeholder { old: &'a str, new: &'a str },
    /// `${machine:fact}`, which reads a fact of the node: `field` is the `host node`
    /// field to read instead.
    NodeFact { old: &'a str, field: &'a str },
    /// A host path written as a mount source; `name` is a requirement name to suggest.
    HostPathMount { name: &'a str, host_path: &'a str },
}

impl Rule for OldForm<'_> {
    fn code(&self) -> Code {
        match self {
            OldForm::Placeholder { .. } | OldForm::NodeFact { .. } => Code::W0402,
            OldForm::HostPathMount { .. } => Code::W0401,
        }
    }

    fn message(&self) -> String {
        match self {
            OldForm::Placeholder { old, new } => {
                format!("old form: the placeholder `{old}` is read as `${{{new}}}`")
            }
            OldForm::NodeFact { old, .. } => {
                format!("old form: the placeholder `{old}` reads a fact of the node")
            }
            OldForm::HostPathMount { .. } => {
                "old form: a host path written as a mount source".into()
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            OldForm::Placeholder { new, .. } => format!("write `${{{new}}}`"),
            OldForm::NodeFact { field, .. } => format!(
                "require the node's facts (`requires here: host node`) and write `${{here.{field}}}`"
            ),
            OldForm::HostPathMount { name, host_path } => format!(
                "a definition names no host path: require `requires {name}: host directory` (or `host access` for data the module does not own), mount `{name}.path`, and place it in the assignment: `{name} at \"{host_path}\"`"
            ),
        })
    }
}

/// W0001: a requirement never read; `help` says how to read one of its kind.
pub struct Unused<'a> {
    pub requirement: &'a str,
    pub help: String,
}

impl Rule for Unused<'_> {
    fn code(&self) -> Code {
        Code::W0001
    }

    fn message(&self) -> String {
        format!("requirement `{}` is never used", self.requirement)
    }

    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

/// A name of the running world written in a definition: E0402 for a domain name or an
/// IP address, E0404 for a node's name. `quoted` is the text when it may be quoted (the
/// message never quotes a literal that may be a secret).
pub enum NamedInDefinition<'a> {
    /// `what` is `a domain name` or `an IP address`.
    Domain {
        quoted: Option<&'a str>,
        what: &'a str,
    },
    /// `what` says whose name it is (`names node `a` of mesh `m``).
    Node {
        quoted: Option<&'a str>,
        what: &'a str,
        mesh: &'a str,
    },
}

impl Rule for NamedInDefinition<'_> {
    fn code(&self) -> Code {
        match self {
            NamedInDefinition::Domain { .. } => Code::E0402,
            NamedInDefinition::Node { .. } => Code::E0404,
        }
    }

    fn message(&self) -> String {
        match self {
            NamedInDefinition::Domain {
                quoted: Some(text),
                what,
            } => format!("`{text}` is {what}; a definition never names one"),
            NamedInDefinition::Domain { quoted: None, what } => {
                format!("{what} is written here; a definition never names one")
            }
            NamedInDefinition::Node {
                quoted: Some(text),
                what,
                ..
            } => format!("`{text}` {what}; a definition never names a node"),
            NamedInDefinition::Node {
                quoted: None, mesh, ..
            } => format!(
                "this literal names a node of mesh `{mesh}`; a definition never names a node"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            NamedInDefinition::Domain { .. } => "read names from requirements instead (`db.host`, `route.url`, `here.private_name`); a public name is set on the assignment, in the mesh".into(),
            NamedInDefinition::Node { .. } => "a module reads its own node's facts through `requires here: host node` (`here.private_name`); which node runs it is the assignment's, in the mesh".into(),
        })
    }
}

/// E0302: a `for` over a secret list, whose elements are never known at build.
pub struct SecretLoop<'a> {
    pub name: &'a str,
}

impl Rule for SecretLoop<'_> {
    fn code(&self) -> Code {
        Code::E0302
    }

    fn message(&self) -> String {
        format!("`{}` is secret; a `for` cannot run over it", self.name)
    }

    fn help(&self) -> Option<String> {
        Some("a secret list is never known at build, so its elements cannot be counted into a template; deliver it whole as a `secret` file".into())
    }
}

/// E0322: `consumers CONTRACT` of a contract the module does not provide. `provided`
/// lists, in words, the contracts it does provide (`None`: it provides none);
/// `suggestion` is the closest of them.
pub struct NotProvided<'a> {
    pub module: &'a str,
    pub contract: &'a str,
    pub provided: Option<String>,
    pub suggestion: Option<&'a str>,
}

impl Rule for NotProvided<'_> {
    fn code(&self) -> Code {
        Code::E0322
    }

    fn message(&self) -> String {
        format!(
            "module `{}` does not provide `{}`, so it has no consumers of it",
            self.module, self.contract
        )
    }

    fn help(&self) -> Option<String> {
        let (module, name) = (self.module, self.contract);
        Some(match (self.suggestion, &self.provided) {
            (Some(s), provided) => format!(
                "did you mean `{s}`? module `{module}` provides {}",
                provided.as_deref().unwrap_or_default()
            ),
            (None, None) => format!(
                "only a provider has consumers: add `provides {name} {{ … }}` to module `{module}`, or loop over a list"
            ),
            (None, Some(provided)) => format!(
                "module `{module}` provides only {provided}: loop over the consumers of one of those, or add `provides {name} {{ … }}`"
            ),
        })
    }
}

/// E0203: a host or mesh contract declared outside the standard library.
pub struct HostOrMeshContract<'a> {
    pub contract: &'a str,
    pub kind: &'a str,
}

impl Rule for HostOrMeshContract<'_> {
    fn code(&self) -> Code {
        Code::E0203
    }

    fn message(&self) -> String {
        format!(
            "contract `{}` is declared `for {}`, which only the standard library may do",
            self.contract, self.kind
        )
    }

    fn help(&self) -> Option<String> {
        Some("only the compiler answers host and mesh contracts (`directory`, `access`, `port`, `node`, `identity`); declare yours `for module` and provide it from a module".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_mask_the_places_that_may_hold_a_secret() {
        let file = FilePath::from("a.mesh");
        let d = ExposedEnv::NoSecret {
            key: "K",
            value: Span::new(10, 14),
        }
        .at(&file, Span::new(2, 9));
        assert_eq!(d.code, Code::W0003);
        assert_eq!(d.redacted().collect::<Vec<_>>(), vec![Span::new(10, 14)]);
        let d = ExposedEnv::NoReason { key: "K" }.at(&file, Span::new(2, 9));
        assert_eq!(d.code, Code::E0308);
        assert_eq!(d.redacted().count(), 0);
        let d = SecretLiteral::Default { name: "p" }.at(&file, Span::new(3, 8));
        assert_eq!(d.redacted().collect::<Vec<_>>(), vec![Span::new(3, 8)]);
        let decl = FilePath::from("c.mesh");
        let set = |secret_value| ProviderField::Set {
            field: "host",
            contract: "pg",
            requirement: "db",
            decl: (&decl, Span::new(1, 5)),
            secret_value,
            help: "h".into(),
        };
        let d = set(Some(Span::new(20, 30))).at(&file, Span::new(15, 19));
        assert_eq!(d.redacted().collect::<Vec<_>>(), vec![Span::new(20, 30)]);
        assert_eq!(d.labels[0].file, decl);
        assert_eq!(set(None).at(&file, Span::new(15, 19)).redacted().count(), 0);
        let secret_set = Widens::SetValue {
            shown: "this value".into(),
            field: "f",
            contract: "c",
            allows: "the values of its own set".into(),
            secret: true,
            decl: (&decl, Span::new(1, 2)),
        };
        assert!(secret_set.masks_primary());
    }

    #[test]
    fn one_type_writes_each_variant_and_its_code() {
        let file = FilePath::from("a.mesh");
        let d = NamedInDefinition::Domain {
            quoted: None,
            what: "a domain name",
        }
        .at(&file, Span::new(0, 3));
        assert_eq!(d.code, Code::E0402);
        assert_eq!(
            d.message,
            "a domain name is written here; a definition never names one"
        );
        let d = NamedInDefinition::Node {
            quoted: None,
            what: "names node `a` of mesh `m`",
            mesh: "m",
        }
        .at(&file, Span::new(0, 3));
        assert_eq!(d.code, Code::E0404);
        assert!(!d.message.contains("node `a`"), "{}", d.message);
        assert_eq!(
            BadCall::Arity {
                function: "url",
                arity: 1,
                found: 2,
                signature: "url(x)",
            }
            .message(),
            "`url` takes 1 argument, found 2"
        );
        let cycle = RequirementCycle::Narrowings {
            message: "m".into(),
            reads: vec![(Span::new(1, 2), "a".into()), (Span::new(3, 4), "b".into())],
        }
        .at(&file, Span::new(0, 1));
        assert_eq!(cycle.labels.len(), 2);
        assert_eq!(cycle.labels[1].span, Span::new(3, 4));
    }
}
