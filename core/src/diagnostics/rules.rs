//! Diagnostics built in one place per rule. Each code that several checks build has one
//! type here whose variants are its rules, each holding the rule's data; the message,
//! the help and the labels of a rule are written once, in [`Rule::message`],
//! [`Rule::help`] and [`Rule::labels`], and a check writes only
//! `Rule::at(file, span)`. The texts are the ones the fixtures and the rendered
//! snapshots hold, byte for byte.
//!
//! The data are names, places and already-formatted reasons (`&dyn Display` where the
//! value is a type of a layer above, such as a checker type), so this layer stays below
//! every other.

mod check;
mod day_two;
#[cfg(test)]
mod one_place;
mod resolve;
mod syntax;
mod take;
pub use check::*;
pub use day_two::*;
pub use resolve::*;
pub use syntax::*;
pub use take::*;

use super::{Code, Diagnostic, Label};
use crate::span::{FilePath, Span};
use std::fmt::Display;

/// A rule of the language whose breach is reported with one code.
pub trait Rule: Sized {
    /// The rule's code.
    fn code(&self) -> Code;
    /// The one-line message.
    fn message(&self) -> String;
    /// The help line, if the rule has one.
    fn help(&self) -> Option<String> {
        None
    }
    /// Secondary places, in `file` unless a label says otherwise.
    fn labels(&self, _file: &FilePath) -> Vec<Label> {
        Vec::new()
    }
    /// Whether the text at the primary place may be secret, so excerpts mask it.
    fn masks_primary(&self) -> bool {
        false
    }
    /// Another place in `file` whose text may be secret (a value written beside the
    /// primary place), which excerpts mask.
    fn masks_other(&self) -> Option<Span> {
        None
    }
    /// The diagnostic of this breach at `span` of `file`.
    fn at(self, file: &FilePath, span: Span) -> Diagnostic {
        let mut d =
            Diagnostic::new(self.code(), file, span, self.message()).with_help_opt(self.help());
        d.labels = self.labels(file);
        if self.masks_primary() {
            d = d.with_redacted(span);
        }
        if let Some(other) = self.masks_other() {
            d = d.with_redacted(other);
        }
        d
    }
}

/// E0314: a literal not valid for its type. One variant per place a literal is checked.
pub enum InvalidLiteral<'a> {
    /// A string holding a control or bidirectional formatting character.
    InvisibleChar { code_point: u32, what: &'a str },
    /// A `matches` pattern with an interpolation.
    PatternInterpolates,
    /// A `matches` pattern that does not compile.
    PatternNotRegex { why: String },
    /// A module's `slug` that is not 1 to 8 lowercase letters and digits.
    Slug,
    /// A literal written for a typed place (`what`) that its type refuses. `text` is the
    /// literal's text when it may be quoted (a plain string, never a secret's place).
    Value {
        text: Option<&'a str>,
        ty: &'a dyn Display,
        what: &'a dyn Display,
        why: String,
    },
    /// A file mode not written in octal; `decimal_digits` are the digits when all of
    /// them are octal digits, so the help can suggest `0o…`.
    ModeNotOctal {
        what: &'a dyn Display,
        decimal_digits: Option<String>,
    },
    /// A file mode beyond `0o7777`.
    ModeTooLarge { what: &'a dyn Display },
    /// A container without `image`.
    NoImage { container: &'a str },
    /// An `image` that is not an image reference.
    Image { text: &'a str, why: String },
    /// A node name too long for its manifest's file name.
    NodeNameTooLong { max: usize, len: usize },
    /// A node's `private_name` that is not a host name.
    PrivateName { node: &'a str, why: String },
    /// A node's `private_address` that is not an IP address.
    PrivateAddress { node: &'a str },
    /// A node's `root` that is not a valid host path.
    Root { node: &'a str, why: String },
    /// A node's `ports` that are not a range of ports.
    Ports { node: &'a str },
    /// A node's `short` that is not a short form.
    Short { node: &'a str },
    /// A node without `short` whose name is no short form.
    NoShort { node: &'a str, short: &'a str },
}

impl Rule for InvalidLiteral<'_> {
    fn code(&self) -> Code {
        Code::E0314
    }

    fn message(&self) -> String {
        use InvalidLiteral::*;
        match self {
            InvisibleChar { code_point, what } => format!(
                "this string holds U+{code_point:04X} ({what}); no literal holds a control or bidirectional formatting character"
            ),
            PatternInterpolates => "a `matches` pattern cannot interpolate".into(),
            PatternNotRegex { .. } => {
                "this `matches` pattern is not a valid regular expression".into()
            }
            Slug => "a slug is 1 to 8 lowercase letters and digits".into(),
            Value {
                text: Some(text),
                ty,
                what,
                ..
            } => format!("`{text}` is not a valid {ty} for {what}"),
            Value {
                text: None,
                ty,
                what,
                ..
            } => format!("this is not a valid {ty} for {what}"),
            ModeNotOctal { what, .. } => format!("{what} is a file mode, written in octal"),
            ModeTooLarge { what } => {
                format!("{what} is not a file mode: a mode has at most four octal digits")
            }
            NoImage { container } => format!("container `{container}` has no image"),
            Image { text, .. } => format!("`{text}` is not a valid image reference"),
            NodeNameTooLong { max, len } => format!(
                "the name of a node is at most {max} bytes (its manifest is `<node>.json`); this one is {len}"
            ),
            PrivateName { node, why } => {
                format!("the private name of node `{node}` is not a valid host name: {why}")
            }
            PrivateAddress { node } => {
                format!("the private address of node `{node}` is not an IP address")
            }
            Root { node, why } => {
                format!("the root of node `{node}` is not a valid host path: {why}")
            }
            Ports { node } => format!(
                "the port range of node `{node}` is not a range of ports: both ends written, in 1..65535, the first no greater than the second"
            ),
            Short { node } => short_form_message(node),
            NoShort { node, short } => format!(
                "node `{node}` has no usable short form: `{short}` is not 1 to 6 of `a-z` and `0-9` starting with a letter"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        use InvalidLiteral::*;
        Some(match self {
            InvisibleChar { .. } => "remove it: it is invisible, or reorders what a reader sees; a tab and a new line are written `\\t` and `\\n`".into(),
            PatternInterpolates => "write the pattern out; `\\$` stands for a dollar sign".into(),
            PatternNotRegex { why } | Value { why, .. } => why.clone(),
            Slug => "write it like `slug \"forge\"`; it becomes part of every login of the module".into(),
            ModeNotOctal {
                decimal_digits: Some(digits),
                ..
            } => format!("did you mean `0o{digits}`?"),
            ModeNotOctal {
                decimal_digits: None,
                ..
            } => "write the mode in octal, like `0o750`".into(),
            ModeTooLarge { .. } => "a mode lies in 0o0..0o7777, like `0o750` or `0o2775`".into(),
            NoImage { .. } => "every container names its image, pinned to a tag or digest: `image \"nginx:1.27\"`".into(),
            Image { why, .. } => format!("{why}: `[registry/]name[:tag][@digest]`"),
            NodeNameTooLong { .. } => "give the node a shorter name".into(),
            PrivateName { .. } => PRIVATE_NAME_HELP.into(),
            PrivateAddress { .. } => PRIVATE_ADDRESS_HELP.into(),
            Root { .. } => ROOT_HELP.into(),
            Ports { .. } => PORTS_HELP.into(),
            Short { .. } => SHORT_HELP.into(),
            NoShort { .. } => "write one: `short = \"n1\"`".into(),
        })
    }
}

/// E0301: a value of the wrong type. One variant per place a type is expected.
pub enum TypeMismatch<'a> {
    /// `secret` inside `list<…>`.
    SecretElements { ty: &'a dyn Display },
    /// A default that is not a literal.
    DefaultNotLiteral { name: &'a str },
    /// A default, or another literal of a declaration, of the wrong type; the label
    /// points at the declared type.
    Declared {
        expected: String,
        what: &'a dyn Display,
        found: String,
        ty: &'a dyn Display,
        decl: Span,
    },
    /// A type name that is not a type.
    UnknownType { name: &'a str, help: String },
    /// A refinement that does not apply to the type.
    RefinementDoesNotApply {
        name: &'a str,
        a_type: String,
        what: String,
    },
    /// A set value that is not a literal.
    SetNotLiteral,
    /// A set value of the wrong type.
    SetElement { expected: String, found: String },
    /// A list whose elements differ in type.
    MixedList { this: String, first: String },
    /// A range where a value is expected.
    Range { place: String },
    /// A value of the wrong type for a typed place; `decl` is where the type is declared
    /// (in its file).
    Expected {
        expected: String,
        what: &'a dyn Display,
        found: String,
        help: Option<String>,
        decl: Option<(&'a FilePath, Span, &'a dyn Display)>,
    },
    /// A `for` over something that is not a list.
    ForOverNonList { name: &'a str, a_type: String },
    /// A command that is not a list of strings.
    /// `what` is "the command" or "the health test" (LANGUAGE.md §14.1).
    Command {
        what: &'static str,
        a_type: String,
        help: String,
    },
    /// An argument of a command (or a health test) that is not a string.
    CommandArgument {
        what: &'static str,
        a_type: String,
        help: String,
    },
    /// A file's content that is not text.
    FileContent {
        what: &'a dyn Display,
        a_type: String,
    },
    /// An `image_paths` element of the wrong type.
    ImagePaths { expected: String, found: String },
    /// A node's `ports` that are not a range.
    NodePorts { node: &'a str },
    /// A node's `adopted` that is not a boolean.
    NodeAdopted { node: &'a str },
}

impl Rule for TypeMismatch<'_> {
    fn code(&self) -> Code {
        Code::E0301
    }

    fn message(&self) -> String {
        use TypeMismatch::*;
        match self {
            SecretElements { .. } => {
                "`secret` marks a whole value, not the elements of a list".into()
            }
            DefaultNotLiteral { name } => {
                format!("the default of `{name}` must be a literal value")
            }
            Declared {
                expected,
                what,
                found,
                ..
            }
            | Expected {
                expected,
                what,
                found,
                ..
            } => format!("expected {expected} for {what}, found {found}"),
            UnknownType { name, .. } => format!("unknown type `{name}`"),
            RefinementDoesNotApply { name, a_type, .. } => {
                format!("this refinement does not apply to `{name}`, {a_type}")
            }
            SetNotLiteral => "a set holds literal values".into(),
            SetElement { expected, found } => {
                format!("expected {expected} in this set, found {found}")
            }
            MixedList { this, first } => {
                format!("a list holds values of one type: this is {this}, the first is {first}")
            }
            Range { place } => format!("a range is not a value {place} can hold"),
            ForOverNonList { name, a_type } => {
                format!("a `for` runs over a list; `{name}` is {a_type}")
            }
            Command { what, a_type, .. } => {
                format!("{what} is a list of strings; this is {a_type}")
            }
            CommandArgument { what, a_type, .. } => {
                format!("each argument of {what} is a string; this is {a_type}")
            }
            FileContent { what, a_type } => format!("{what} is text; this is {a_type}"),
            ImagePaths { expected, found } => {
                format!("expected {expected} in `image_paths`, found {found}")
            }
            NodePorts { node } => format!("the ports of node `{node}` are a range, `FIRST..LAST`"),
            NodeAdopted { node } => format!("`adopted` on node `{node}` is `true` or `false`"),
        }
    }

    fn help(&self) -> Option<String> {
        use TypeMismatch::*;
        match self {
            SecretElements { ty } => Some(format!("write `secret {ty}`")),
            DefaultNotLiteral { .. } => Some(
                "a default is written out: a string, a number, `true`, `false` or a list of them"
                    .into(),
            ),
            Declared { .. } | SetElement { .. } => None,
            UnknownType { help, .. } | Command { help, .. } | CommandArgument { help, .. } => {
                Some(help.clone())
            }
            RefinementDoesNotApply { what, .. } => Some(what.clone()),
            SetNotLiteral => {
                Some("write each value out: a string, a number, `true` or `false`".into())
            }
            MixedList { .. } => Some("write every element of the same type".into()),
            Range { .. } => Some("a range belongs after `in` or `len`, as a refinement".into()),
            Expected { help, .. } => help.clone(),
            ForOverNonList { .. } => {
                Some("run over `consumers CONTRACT`, or a field whose type is `list<…>`".into())
            }
            FileContent { .. } => Some(
                "write the content as a string; `\"\"\"…\"\"\"` spans lines and interpolates values"
                    .into(),
            ),
            ImagePaths { .. } => Some(
                "`image_paths` lists container paths: `image_paths [\"/usr/share/app\"]`".into(),
            ),
            NodePorts { .. } => Some(PORTS_HELP.into()),
            NodeAdopted { .. } => {
                Some("`adopted = true` marks a machine that ran services before the mesh".into())
            }
        }
    }

    fn masks_primary(&self) -> bool {
        // A file's content may be sealed like a secret: the excerpt does not show it.
        matches!(self, TypeMismatch::FileContent { .. })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            TypeMismatch::Declared { ty, decl, .. } => vec![Label {
                file: file.clone(),
                span: *decl,
                message: format!("declared `{ty}` here"),
            }],
            TypeMismatch::Expected {
                decl: Some((decl_file, span, ty)),
                ..
            } => vec![Label {
                file: (*decl_file).clone(),
                span: *span,
                message: format!("declared `{ty}` here"),
            }],
            _ => Vec::new(),
        }
    }
}

/// E0102: a name written twice in one scope. `first` is where it was written first; the
/// label says so.
pub enum Duplicate<'a> {
    Container {
        container: &'a str,
        module: &'a str,
        first: Span,
    },
    ContainerEntry {
        container: &'a str,
        keyword: &'a str,
        first: Span,
    },
    EnvKey {
        key: &'a str,
        container: &'a str,
        first: Span,
    },
    Published {
        requirement: &'a str,
        first: Span,
    },
    Field {
        field: &'a str,
        contract: &'a str,
        first: Span,
    },
    Provides {
        module: &'a str,
        contract: &'a str,
        first: Span,
    },
    Answer {
        field: &'a str,
        first: Span,
    },
    Requirement {
        requirement: &'a str,
        module: &'a str,
        first: Span,
    },
    Narrowed {
        requirement: &'a str,
        field: &'a str,
        first: Span,
    },
    Slug {
        module: &'a str,
        first: Span,
    },
    /// A loop variable named like `what` (a requirement, an enclosing loop's variable).
    LoopVariable {
        name: &'a str,
        what: &'a str,
        first: Span,
    },
    NodeProperty {
        node: &'a str,
        key: &'a str,
        first: Span,
    },
    SeatHeld {
        seat: &'a str,
        mesh: &'a str,
        first: Span,
    },
    /// An assignment's entry (a value, a pin, a placement, `absent`) written twice.
    AssignEntry {
        key: &'a str,
        instance: &'a str,
        node: &'a str,
        first: Span,
    },
    Genesis {
        instance: &'a str,
        node: &'a str,
    },
    KeepNetwork {
        name: &'a str,
        instance: &'a str,
    },
}

impl Rule for Duplicate<'_> {
    fn code(&self) -> Code {
        Code::E0102
    }

    fn message(&self) -> String {
        use Duplicate::*;
        match self {
            Container {
                container, module, ..
            } => {
                format!("container `{container}` is declared twice in module `{module}`")
            }
            ContainerEntry {
                container, keyword, ..
            } => {
                format!("container `{container}` has two `{keyword}` entries")
            }
            EnvKey { key, container, .. } => {
                format!("env `{key}` is set twice in container `{container}`")
            }
            Published { requirement, .. } => format!("`{requirement}` is published twice"),
            Field {
                field, contract, ..
            } => {
                format!("field `{field}` is declared twice in contract `{contract}`")
            }
            Provides {
                module, contract, ..
            } => {
                format!("module `{module}` provides `{contract}` twice")
            }
            Answer { field, .. } => format!("`{field}` is answered twice"),
            Requirement {
                requirement,
                module,
                ..
            } => {
                format!("requirement `{requirement}` is declared twice in module `{module}`")
            }
            Narrowed {
                requirement, field, ..
            } => {
                format!("`{requirement}.{field}` is narrowed twice")
            }
            Slug { module, .. } => format!("module `{module}` declares its slug twice"),
            LoopVariable { name, what, .. } => {
                format!("the loop variable `{name}` has the name of {what}")
            }
            NodeProperty { node, key, .. } => format!("node `{node}` writes `{key}` twice"),
            SeatHeld { seat, mesh, .. } => format!("seat `{seat}` is held twice in mesh `{mesh}`"),
            AssignEntry {
                key,
                instance,
                node,
                ..
            } => {
                format!("`{key}` is written twice for instance `{instance}` on node `{node}`")
            }
            Genesis { instance, node } => {
                format!("`genesis` is written twice for instance `{instance}` on node `{node}`")
            }
            KeepNetwork { name, instance } => {
                format!("`keep_network \"{name}\"` is written twice for instance `{instance}`")
            }
        }
    }

    fn help(&self) -> Option<String> {
        use Duplicate::*;
        Some(match self {
            Container { .. } => "rename one of them; a module's containers are named apart".into(),
            Published { .. } => "a host port is published by one container, once".into(),
            Field { .. } => "rename or remove one of them".into(),
            Provides { .. } => "answer the contract in one `provides` block".into(),
            Answer { .. } => "keep one answer".into(),
            Requirement { .. } => {
                "rename one of them; every reference names one requirement".into()
            }
            Narrowed { .. } => {
                "write every refinement of a field in one entry: `password len 32..64`".into()
            }
            Slug { .. } => "keep one `slug`".into(),
            LoopVariable { name, .. } => {
                format!("name the loop variable differently, so `{name}.…` reads one thing")
            }
            SeatHeld { .. } => "a seat is the mesh's one answer: keep one line for it".into(),
            ContainerEntry { .. }
            | EnvKey { .. }
            | NodeProperty { .. }
            | AssignEntry { .. }
            | Genesis { .. }
            | KeepNetwork { .. } => "keep one of them".into(),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        use Duplicate::*;
        let (first, message) = match self {
            Container { first, .. }
            | ContainerEntry { first, .. }
            | EnvKey { first, .. }
            | Published { first, .. }
            | Field { first, .. }
            | Provides { first, .. }
            | Answer { first, .. }
            | Requirement { first, .. }
            | Narrowed { first, .. }
            | Slug { first, .. }
            | LoopVariable { first, .. } => (*first, "first here"),
            NodeProperty { first, .. } | AssignEntry { first, .. } => {
                (*first, "first written here")
            }
            SeatHeld { first, .. } => (*first, "first held here"),
            Genesis { .. } | KeepNetwork { .. } => return Vec::new(),
        };
        vec![Label {
            file: file.clone(),
            span: first,
            message: message.into(),
        }]
    }
}

/// E0105: a field a contract (or a node, or `consumer`) does not have, or a reference
/// that reads a field where there is none. `suggestion` is the closest name, if one is
/// close enough; the help names it, else lists what there is.
pub enum UnknownField<'a> {
    /// A field answered in `provides` or narrowed in a requirement: `fields` lists the
    /// contract's fields, for the help when there is no suggestion.
    OfContract {
        contract: &'a str,
        field: &'a str,
        suggestion: Option<&'a str>,
        fields: String,
    },
    /// `req.field`, `consumer.field` or `given.field` in an expression; `otherwise` is
    /// the help when there is no suggestion.
    Reference {
        requirement: &'a str,
        contract: &'a str,
        field: &'a str,
        suggestion: Option<&'a str>,
        otherwise: String,
    },
    /// `req` alone where a field is needed; `fields` says which there are.
    MissingField {
        requirement: &'a str,
        contract: &'a str,
        fields: String,
    },
    /// A field read further (`db.host.x`), or a field of an operator value.
    TooDeep { what: String },
    /// A field of a loop variable that runs over plain values.
    OfListElement { var: &'a str, ty: &'a dyn Display },
    /// A given field written in an assignment that the contract does not have.
    InAssignment {
        contract: &'a str,
        field: &'a str,
        key: &'a str,
        instance: &'a str,
        node: &'a str,
        help: String,
    },
    /// A node property that does not exist.
    NodeProperty {
        node: &'a str,
        key: &'a str,
        help: String,
    },
    /// A consumer's loop variable `var` read as something it does not have;
    /// `suggestion` is the closest reading (`c.given.ext`).
    ConsumerLoop {
        var: &'a str,
        contract: &'a str,
        read: ConsumerRead<'a>,
        suggestion: Option<String>,
    },
}

/// What a consumer's loop variable was read as, for [`UnknownField::ConsumerLoop`].
pub enum ConsumerRead<'a> {
    /// The variable alone.
    Bare,
    /// `var.given.field`, a field that is not given.
    Given { field: &'a str },
    /// `var.field` of a given field.
    GivenAsOwn { field: &'a str },
    /// `var.field` of no field.
    Field { field: &'a str },
    /// Deeper than a field; `dotted` is the reference.
    TooDeep { dotted: String },
}

impl Rule for UnknownField<'_> {
    fn code(&self) -> Code {
        Code::E0105
    }

    fn message(&self) -> String {
        use UnknownField::*;
        match self {
            OfContract {
                contract, field, ..
            } => format!("`{contract}` has no field `{field}`"),
            Reference {
                requirement,
                contract,
                field,
                ..
            } => match *requirement {
                "consumer" => format!("`consumer` has no field `{field}`"),
                "given" => format!("`{field}` is not a given field of `{contract}`"),
                _ => {
                    format!("`{contract}` has no field `{field}` (reading `{requirement}.{field}`)")
                }
            },
            MissingField {
                requirement,
                contract,
                ..
            } => format!("`{requirement}` is a `{contract}` requirement; read one of its fields"),
            TooDeep { what } => what.clone(),
            OfListElement { var, ty } => {
                format!("`{var}` is one element of a list of {ty}; it has no fields")
            }
            InAssignment {
                contract,
                field,
                key,
                instance,
                node,
                ..
            } => format!(
                "contract `{contract}` has no field `{field}` (`{key}` of instance `{instance}` on node `{node}`)"
            ),
            NodeProperty { node, key, .. } => format!("node `{node}` has no property `{key}`"),
            ConsumerLoop {
                var,
                contract,
                read,
                ..
            } => match read {
                ConsumerRead::Bare => {
                    format!("`{var}` is a consumer of `{contract}`; read one of its fields")
                }
                ConsumerRead::Given { field } => {
                    format!("`{field}` is not a given field of `{contract}`")
                }
                ConsumerRead::GivenAsOwn { field } => {
                    format!("`{field}` is a given field: the consumer sets it")
                }
                ConsumerRead::Field { field } => {
                    format!("a consumer of `{contract}` has no `{field}`")
                }
                ConsumerRead::TooDeep { dotted } => format!("`{dotted}` reads too deep"),
            },
        }
    }

    fn help(&self) -> Option<String> {
        use UnknownField::*;
        Some(match self {
            OfContract {
                suggestion: Some(s),
                ..
            }
            | Reference {
                suggestion: Some(s),
                ..
            } => format!("did you mean `{s}`?"),
            ConsumerLoop {
                suggestion: Some(s),
                ..
            } => format!("did you mean `{s}`?"),
            ConsumerLoop { var, .. } => format!(
                "`{var}` reads `{var}.login`, `{var}.instance`, `{var}.module`, `{var}.node`, `{var}.given.FIELD` (what the consumer set) and `{var}.FIELD` (this module's answer to it)"
            ),
            OfContract {
                contract, fields, ..
            } => format!("the fields of `{contract}` are {fields}"),
            Reference { otherwise, .. } => otherwise.clone(),
            MissingField {
                requirement,
                fields,
                ..
            } => format!("write `{requirement}.FIELD`; {fields}"),
            TooDeep { .. } => {
                "a reference is `req.field`, or an operator requirement's name".into()
            }
            OfListElement { var, .. } => format!("read the element itself: `${{{var}}}`"),
            InAssignment { help, .. } | NodeProperty { help, .. } => help.clone(),
        })
    }
}

/// A node property written as something other than the text it is (a reference, a
/// number): E0314 when it is a string, E0301 otherwise. The message says what the
/// property is; the help gives an example.
pub enum NodeText<'a> {
    PrivateName { node: &'a str },
    PrivateAddress { node: &'a str },
    Root { node: &'a str },
    Short { node: &'a str },
}

/// [`NodeText`] with whether the value written is a string.
pub struct NodeTextWritten<'a> {
    pub rule: NodeText<'a>,
    pub is_string: bool,
}

impl Rule for NodeTextWritten<'_> {
    fn code(&self) -> Code {
        if self.is_string {
            Code::E0314
        } else {
            Code::E0301
        }
    }

    fn message(&self) -> String {
        match self.rule {
            NodeText::PrivateName { node } => {
                format!("the private name of node `{node}` is a host name, written in quotes")
            }
            NodeText::PrivateAddress { node } => {
                format!("the private address of node `{node}` is an IP address, written in quotes")
            }
            NodeText::Root { node } => {
                format!("the root of node `{node}` is a host path, written in quotes")
            }
            NodeText::Short { node } => short_form_message(node),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self.rule {
            NodeText::PrivateName { .. } => "e.g. `private_name = \"alpha.lab.internal\"`".into(),
            NodeText::PrivateAddress { .. } => "e.g. `private_address = \"10.0.0.11\"`".into(),
            NodeText::Root { .. } => ROOT_HELP.into(),
            NodeText::Short { .. } => SHORT_HELP.into(),
        })
    }
}

fn short_form_message(node: &str) -> String {
    format!(
        "the short form of node `{node}` is 1 to 6 of `a-z` and `0-9`, starting with a letter, in quotes"
    )
}

const PRIVATE_NAME_HELP: &str =
    "write the node's name on the private network, e.g. `private_name = \"alpha.lab.internal\"`";
const PRIVATE_ADDRESS_HELP: &str =
    "write the node's address on the private network, e.g. `private_address = \"10.0.0.11\"`";
const ROOT_HELP: &str = "e.g. `root = \"/srv/mesh\"`";
const PORTS_HELP: &str = "e.g. `ports = 20000..20999`";
const SHORT_HELP: &str = "e.g. `short = \"alpha\"`; it begins every login on the node";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_builds_its_code_message_help_and_labels() {
        let file = FilePath::from("a.mesh");
        let d = InvalidLiteral::NoImage { container: "web" }.at(&file, Span::new(1, 4));
        assert_eq!(d.code, Code::E0314);
        assert_eq!(d.message, "container `web` has no image");
        assert!(d.help.as_deref().unwrap().contains("image \"nginx:1.27\""));
        let ty = "port";
        let d = TypeMismatch::Declared {
            expected: "a port".into(),
            what: &"the default",
            found: "a string".into(),
            ty: &ty,
            decl: Span::new(7, 11),
        }
        .at(&file, Span::new(12, 15));
        assert_eq!(d.code, Code::E0301);
        assert_eq!(d.message, "expected a port for the default, found a string");
        assert_eq!(d.labels.len(), 1);
        assert_eq!(d.labels[0].message, "declared `port` here");
        assert_eq!(d.labels[0].span, Span::new(7, 11));
        assert_eq!(d.help, None);
        let quoted = NodeTextWritten {
            rule: NodeText::Short { node: "a" },
            is_string: true,
        };
        assert_eq!(quoted.code(), Code::E0314);
        let bare = NodeTextWritten {
            rule: NodeText::Short { node: "a" },
            is_string: false,
        };
        assert_eq!(bare.code(), Code::E0301);
        assert_eq!(
            bare.message(),
            InvalidLiteral::Short { node: "a" }.message()
        );
    }
}
