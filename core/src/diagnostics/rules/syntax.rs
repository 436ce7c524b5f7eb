//! The syntax's diagnostics (E0001–E0005), one type per code whose variants are the
//! places the lexer, the string decoder and the parser refuse. `found` is the parser's
//! description of the token it met (`` `foo` ``, `the number `3``, `end of file`).

use super::Rule;
use crate::diagnostics::{Code, Label};
use crate::span::{FilePath, Span};

/// What nests too deep for the parser.
#[derive(Debug, Clone, Copy)]
pub enum Nesting {
    Interpolations,
    Types,
    Calls,
    Lists,
}

/// E0001: a token the grammar does not allow where it stands.
pub enum SyntaxError<'a> {
    /// `expected WHAT, found FOUND`, the parser's general refusal.
    Expected { what: &'a str, found: String },
    /// Interpolations, types, calls or lists nested deeper than `max` levels.
    TooDeep { nesting: Nesting, max: usize },
    /// `${a.b c}`: more than one value in an interpolation.
    InterpolationNotClosed { found: String },
    /// `${…}` holding no reference.
    InterpolationNotReference,
    /// A word that is no container entry.
    ContainerEntry { found: String },
    /// `owner` followed by no uid; `what` is the entry (a file, a secret).
    Owner { what: &'a str, found: String },
    /// `owner UID:` or `user UID:` followed by no gid; `keyword` is which.
    GroupId {
        keyword: &'a str,
        uid: &'a str,
        found: String,
    },
    /// `owner` written twice on one entry.
    OwnerTwice { what: &'a str },
    /// `mode` written twice on one entry.
    ModeTwice { what: &'a str },
    /// A `when` block inside another.
    NestedWhen,
    /// `keep_network` followed by no quoted name.
    KeepNetworkName { found: String },
    /// `for VAR in` followed by nothing a `for` runs over.
    ForOver { var: &'a str, found: String },
    /// `for VAR in` followed by a value written out.
    ForOverValue,
    /// `${kind:ref}` with a kind that is none of the legacy placeholder kinds; `reference`
    /// is the reference as written.
    PlaceholderKind { kind: &'a str, reference: &'a str },
    /// A file that is not UTF-8 (`shown` is its name), with its first bad byte's offset.
    NotUtf8 {
        shown: &'a dyn std::fmt::Display,
        at: usize,
    },
}

impl Rule for SyntaxError<'_> {
    fn code(&self) -> Code {
        Code::E0001
    }

    fn message(&self) -> String {
        use SyntaxError::*;
        match self {
            Expected { what, found } => format!("expected {what}, found {found}"),
            TooDeep { nesting, max } => {
                let what = match nesting {
                    Nesting::Interpolations => "interpolations",
                    Nesting::Types => "types",
                    Nesting::Calls => "calls",
                    Nesting::Lists => "lists",
                };
                format!("{what} nest deeper than {max} levels")
            }
            InterpolationNotClosed { found } => {
                format!("expected `}}` after the value in `${{…}}`, found {found}")
            }
            InterpolationNotReference => {
                "expected a reference like `req.field` inside `${…}`".into()
            }
            ContainerEntry { found } => format!("expected a container entry, found {found}"),
            Owner { what, found } => format!(
                "expected the {what}'s owner, a uid such as `1000` or `991:991`, found {found}"
            ),
            GroupId { uid, found, .. } => {
                format!("expected a group id after `{uid}:`, found {found}")
            }
            OwnerTwice { what } => format!("this {what} names its owner twice"),
            ModeTwice { what } => format!("this {what} names its mode twice"),
            NestedWhen => "a `when` block cannot stand inside another `when` block".into(),
            KeepNetworkName { found } => format!(
                "expected the name of a found network in quotes after `keep_network`, found {found}"
            ),
            ForOver { var, found } => {
                format!("expected what `for {var} in` runs over, found {found}")
            }
            ForOverValue => "a `for` runs over `consumers CONTRACT` or a list reference, not a value written here".into(),
            PlaceholderKind { kind, .. } => format!("`{kind}` is not a placeholder kind"),
            NotUtf8 { shown, at } => format!(
                "`{shown}` is not valid UTF-8 (the first bad byte is at offset {at}); the file is not checked"
            ),
        }
    }

    fn help(&self) -> Option<String> {
        use SyntaxError::*;
        Some(match self {
            Expected { .. } => return None,
            TooDeep {
                nesting: Nesting::Types,
                ..
            } => "write a flatter type".into(),
            TooDeep { .. } => "write a flatter value".into(),
            InterpolationNotClosed { .. } => "an interpolation holds one value: a reference like `req.field` or a call like `url(req.field)`".into(),
            InterpolationNotReference => "an interpolation reads one requirement's field; write `\\$` for a dollar sign".into(),
            ContainerEntry { .. } => "a container holds image, command, user, env, mount, secret, file, publish, image_paths, health and after".into(),
            Owner { .. } => "write `owner UID` or `owner UID:GID`, numbers in 0..4294967295".into(),
            GroupId { keyword, uid, .. } => {
                format!("write `{keyword} {uid}:{uid}`, or `{keyword} {uid}` for the group of the same number")
            }
            OwnerTwice { .. } => "keep one `owner`".into(),
            ModeTwice { .. } => "keep one `mode`".into(),
            NestedWhen => {
                "write each optional requirement's entries in a `when` block of its own".into()
            }
            KeepNetworkName { .. } => "e.g. `keep_network \"legacy\"`".into(),
            ForOver { .. } => "write `consumers CONTRACT` (the instances this module answers) or a list reference such as `c.given.extensions`".into(),
            ForOverValue => "name the list: a requirement's field such as `c.given.extensions`, or an operator requirement".into(),
            NotUtf8 { .. } => "save the file as UTF-8".into(),
            PlaceholderKind { reference, .. } => format!(
                "write the reference in its one form, `${{{reference}}}`; the legacy kinds were binding, setting, port, machine and secret"
            ),
        })
    }
}

/// E0002: a string the line or the file ends inside.
pub struct UnclosedString {
    pub triple: bool,
}

impl Rule for UnclosedString {
    fn code(&self) -> Code {
        Code::E0002
    }

    fn message(&self) -> String {
        if self.triple {
            "this `\"\"\"` string is never closed".into()
        } else {
            "this string is never closed before the end of its line".into()
        }
    }

    fn help(&self) -> Option<String> {
        Some(if self.triple {
            "close it with `\"\"\"`".into()
        } else {
            "close it with `\"`; a string that spans lines is written with `\"\"\"`".into()
        })
    }
}

/// E0003: a backslash that starts no escape of the language.
pub enum BadEscape {
    /// `\x`: `x` is no escape.
    Unknown { escaped: char },
    /// A `\` that is the string's last character.
    Lone,
}

impl Rule for BadEscape {
    fn code(&self) -> Code {
        Code::E0003
    }

    fn message(&self) -> String {
        match self {
            BadEscape::Unknown { escaped } => format!(
                "`\\{}` is not an escape of the language",
                escaped.escape_debug()
            ),
            BadEscape::Lone => "a lone `\\` ends the string".into(),
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            BadEscape::Unknown { .. } => Some("the escapes are \\\" \\\\ \\n \\t \\$".into()),
            BadEscape::Lone => None,
        }
    }
}

/// E0004: a number with a digit of another radix, or too large for 64 bits. The message
/// never quotes the text: a value written without quotes may be a secret.
pub struct InvalidNumber {
    /// Why, in words (`an octal number has only the digits 0 to 7`).
    pub why: &'static str,
}

impl Rule for InvalidNumber {
    fn code(&self) -> Code {
        Code::E0004
    }

    fn message(&self) -> String {
        "this is not a valid number".into()
    }

    fn help(&self) -> Option<String> {
        Some(self.why.into())
    }
}

/// What ended a block left open ([`Unclosed::Block`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockEnd {
    /// The end of the file.
    FileEnd,
    /// The next item's keyword, in the first column.
    Item,
    /// The module's next entry, inside one of its entries' blocks.
    ModuleEntry,
    /// The mesh's next entry, inside a node's or an assignment's block.
    MeshEntry,
}

/// E0005: an opening delimiter never closed. The primary place is the opening one.
pub enum Unclosed<'a> {
    /// A block's `{`: `what` is the block (`module `web``); `end` where `ends` says it
    /// ended; `suspect` the `{` and `}` of a block inside it whose `}` is indented as an
    /// outer block's, where a `}` was most likely forgotten.
    Block {
        what: &'a str,
        end: Span,
        ends: BlockEnd,
        suspect: Option<(Span, Span)>,
    },
    /// Another delimiter (`what` is, e.g., `` `[` ``) the file ends inside.
    AtEnd { what: &'a str, end: Span },
    /// A call's `(`; `stop` is where the arguments stop when a delimiter ends them, none
    /// when the next entry begins.
    Call {
        function: &'a str,
        stop: Option<Span>,
    },
    /// A list's `[` inside a block that closes at `end`.
    ListInBlock { end: Span },
    /// A string's `${`.
    Interpolation,
}

impl Rule for Unclosed<'_> {
    fn code(&self) -> Code {
        Code::E0005
    }

    fn message(&self) -> String {
        use Unclosed::*;
        match self {
            Block { what, .. } => format!("this `{{` of {what} is never closed"),
            AtEnd { what, .. } => format!("this {what} is never closed"),
            Call { function, .. } => format!("this `(` of `{function}(…)` is never closed"),
            ListInBlock { .. } => "this `[` is never closed".into(),
            Interpolation => "this `${` is never closed".into(),
        }
    }

    fn help(&self) -> Option<String> {
        use Unclosed::*;
        Some(match self {
            Block { .. } => "add the missing `}`".into(),
            AtEnd { .. } => return None,
            Call { .. } => "add the missing `)`".into(),
            ListInBlock { .. } => "add the missing `]`".into(),
            Interpolation => {
                "close the interpolation with `}`, or write `\\$` for a dollar sign".into()
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        use Unclosed::*;
        let (span, message) = match self {
            Block {
                end, ends, suspect, ..
            } => {
                let message = match ends {
                    BlockEnd::Item => "the next item begins here, inside it",
                    BlockEnd::ModuleEntry => "the module's next entry begins here, inside it",
                    BlockEnd::MeshEntry => "the mesh's next entry begins here, inside it",
                    BlockEnd::FileEnd => "the file ends here",
                };
                let mut labels = Vec::new();
                if let Some((open, close)) = suspect {
                    labels.push(Label {
                        file: file.clone(),
                        span: *open,
                        message: "perhaps this `{` is the one left open".into(),
                    });
                    labels.push(Label {
                        file: file.clone(),
                        span: *close,
                        message: "this `}`, indented as an outer block, closes it".into(),
                    });
                }
                labels.push(Label {
                    file: file.clone(),
                    span: *end,
                    message: message.into(),
                });
                return labels;
            }
            AtEnd { end, .. } => (*end, "the file ends here"),
            Call {
                stop: Some(stop), ..
            } => (*stop, "the arguments stop here"),
            ListInBlock { end } => (*end, "the enclosing block closes here"),
            Call { stop: None, .. } | Interpolation => return Vec::new(),
        };
        vec![Label {
            file: file.clone(),
            span,
            message: message.into(),
        }]
    }
}
