//! What a reference means: the one place where the words of a reference (`db.host`,
//! `workers`, `consumer.login`, `given.tag`, `c.given.public_name`, `x`) are read.
//!
//! [`meaning`] takes a reference and what is in scope where it is written ([`Names`]: the
//! loop variables, the module's requirements, the contract of the `provides` block being
//! read) and returns a [`Meaning`]: what each word names ([`Read`]) and, when the
//! reference reads nothing, why ([`RefError`], as data). The checker types the meaning
//! and reports the refusal; the resolver evaluates the meaning; the language server's
//! index turns it into symbols and token classes. None of them looks at the segments
//! again.
//!
//! The caller chooses how much it knows of contracts ([`Contract`]): the checker and the
//! resolver know each requirement's contract from the registry; the language server's
//! index knows only the contract's name (module shapes, no registry), so a field written
//! after a requirement is taken as named and only the refusals that need no contract
//! are made.

use super::registry::{ContractInfo, FieldInfo};
use super::scope::{CONSUMER_FIELDS, Head, RefError, head};
use crate::syntax::ast::{Ident, Reference};

/// How much is known of a contract where a reference reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Contract<'c> {
    /// The registry's contract: fields are looked up.
    Known(&'c ContractInfo),
    /// The contract is unknown or broken, which is reported where it is named: its
    /// fields read nothing, silently.
    Unresolved,
    /// Only the contract's name is known (the language server's index reads module
    /// shapes only): every field written is taken as named.
    Unchecked(&'c str),
}

impl<'c> Contract<'c> {
    fn name(self) -> &'c str {
        match self {
            Contract::Known(c) => &c.name,
            Contract::Unchecked(n) => n,
            Contract::Unresolved => "",
        }
    }
}

/// What a requirement of the module is, as [`meaning`] needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Form<'c> {
    /// An operator requirement: it reads as a value, without fields.
    Operator,
    /// A requirement of a contract: read as `req.FIELD`.
    Contract(Contract<'c>),
}

/// What a loop variable in scope runs over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoopForm<'c> {
    /// The consumers of a contract this module provides.
    Consumers(Contract<'c>),
    /// The elements of a list.
    Item,
    /// An iterable that was refused (reported at the loop): reads through the variable
    /// read nothing, silently.
    Refused,
}

/// What is in scope where a reference is written. Each reader of references implements
/// it over what it holds (the checker's loops and scope, the resolver's loop bindings and
/// the module's scope, the index's loop stack and module shape).
pub trait Names<'c> {
    /// The innermost loop variable named `word`: the caller's index for it, and what it
    /// runs over.
    fn loop_var(&self, word: &str) -> Option<(usize, LoopForm<'c>)>;
    /// The requirement named `word`: its index among the module's requirements, and its
    /// form.
    fn requirement(&self, word: &str) -> Option<(usize, Form<'c>)>;
    /// The contract of the `provides` block being read, when the reference is inside one.
    fn provides(&self) -> Option<Contract<'c>>;
    /// The requirement a misspelt `word` most likely meant, for E0104's help.
    fn closest_requirement(&self, word: &str) -> Option<String> {
        let _ = word;
        None
    }
}

/// The words a consumer's loop variable reads besides the contract's fields.
pub const CONSUMER_WORDS: &[&str] = &["login", "instance", "module", "node", "given"];

/// A field of the consumer being answered, or of a consumer's loop variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumerField {
    Login,
    Instance,
    Module,
    /// `c.node`: the private name of the consumer's node (a loop variable only).
    Node,
}

impl ConsumerField {
    /// The field a word names; `node` only for a consumer's loop variable.
    fn of(word: &str, with_node: bool) -> Option<ConsumerField> {
        match word {
            "login" => Some(ConsumerField::Login),
            "instance" => Some(ConsumerField::Instance),
            "module" => Some(ConsumerField::Module),
            "node" if with_node => Some(ConsumerField::Node),
            _ => None,
        }
    }

    /// The field's word.
    pub fn word(self) -> &'static str {
        match self {
            ConsumerField::Login => "login",
            ConsumerField::Instance => "instance",
            ConsumerField::Module => "module",
            ConsumerField::Node => "node",
        }
    }
}

/// What the words of a reference name, as far as they name something. A reference that
/// reads nothing still names what its first words name (the language server shows them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Read<'r, 'c> {
    /// The first word names nothing in scope.
    Nothing,
    /// Requirement `req` itself: an operator requirement read with fields, or a contract
    /// requirement read without one, or of a contract that is unknown.
    Requirement { req: usize },
    /// An operator requirement's value: `workers`.
    OperatorValue { req: usize },
    /// A field of a contract requirement: `db.host`. `info` is the contract's field when
    /// the contract is known and has it.
    ContractField {
        req: usize,
        field: &'r Ident,
        info: Option<&'c FieldInfo>,
    },
    /// `consumer` inside `provides`, and the word after it (`field` when it is one of
    /// the consumer's fields).
    Consumer {
        word: Option<&'r Ident>,
        field: Option<ConsumerField>,
    },
    /// `given` inside `provides`, and the field after it.
    Given {
        field: Option<&'r Ident>,
        info: Option<&'c FieldInfo>,
    },
    /// Loop variable `var` (the caller's index) and what is read through it.
    Loop { var: usize, read: LoopRead<'r, 'c> },
}

/// What a reference reads through a loop variable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoopRead<'r, 'c> {
    /// The variable alone: a list's element (a consumer read so is refused).
    Whole,
    /// `c.login`, `c.instance`, `c.module`, `c.node`.
    Meta {
        word: &'r Ident,
        field: ConsumerField,
    },
    /// `c.given.FIELD`: what the consumer set; `keyword` is the word `given`.
    Given {
        keyword: &'r Ident,
        field: Option<&'r Ident>,
        info: Option<&'c FieldInfo>,
    },
    /// `c.FIELD`: this module's answer to the consumer.
    Answer {
        field: &'r Ident,
        info: Option<&'c FieldInfo>,
    },
    /// The loop's iterable was refused: nothing is read.
    Nothing,
}

/// What a reference means: what it names, and why it reads nothing when it does not.
#[derive(Debug, Clone, PartialEq)]
pub struct Meaning<'r, 'c> {
    pub read: Read<'r, 'c>,
    /// Why the reference reads nothing; `None` when it reads [`Meaning::read`].
    pub refusal: Option<RefError>,
}

impl<'r, 'c> Meaning<'r, 'c> {
    fn ok(read: Read<'r, 'c>) -> Self {
        Meaning {
            read,
            refusal: None,
        }
    }

    fn refused(read: Read<'r, 'c>, why: RefError) -> Self {
        Meaning {
            read,
            refusal: Some(why),
        }
    }

    /// What the reference reads, when it reads something.
    pub fn reads(&self) -> Option<Read<'r, 'c>> {
        self.refusal.is_none().then_some(self.read)
    }
}

/// Why a consumer's loop variable reads nothing (E0105).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopRefusal {
    /// `c` alone.
    NoField,
    /// `c.given.FIELD` where FIELD is no given field; the closest given field.
    NotGiven {
        field: String,
        suggestion: Option<String>,
    },
    /// `c.FIELD` where FIELD is a given field: it is read `c.given.FIELD`.
    IsGiven { field: String },
    /// `c.WORD` naming nothing; the closest word or answered field.
    NoSuch {
        field: String,
        suggestion: Option<String>,
    },
    /// Read further than a field.
    TooDeep { dotted: String },
}

/// What `reference` means where `names` tells what is in scope. A loop variable comes
/// first (the innermost), then the module's requirement, then `consumer` and `given`
/// inside `provides` ([`head`]).
pub fn meaning<'r, 'c>(reference: &'r Reference, names: &impl Names<'c>) -> Meaning<'r, 'c> {
    let segs: &[Ident] = &reference.segments;
    let Some(first) = segs.first() else {
        return Meaning::refused(Read::Nothing, RefError::Unresolved);
    };
    if let Some((var, form)) = names.loop_var(&first.name) {
        return loop_meaning(reference, var, form);
    }
    let requirement = names.requirement(&first.name);
    let provides = names.provides();
    match head(&first.name, |_| requirement.is_some(), provides.is_some()) {
        Head::Requirement => {
            let Some((req, form)) = requirement else {
                unreachable!("head names a requirement only when there is one")
            };
            requirement_meaning(reference, req, form)
        }
        Head::Consumer => {
            let word = segs.get(1);
            let field = word.and_then(|w| ConsumerField::of(&w.name, false));
            let read = Read::Consumer { word, field };
            match (word, field) {
                (Some(_), Some(_)) if segs.len() == 2 => Meaning::ok(read),
                (Some(other), None) if segs.len() == 2 => Meaning::refused(
                    read,
                    RefError::UnknownField {
                        requirement: "consumer".into(),
                        contract: "consumer".into(),
                        field: other.name.to_string(),
                        span: other.span,
                        suggestion: crate::diagnostics::closest(
                            &other.name,
                            CONSUMER_FIELDS.iter().copied(),
                        )
                        .map(str::to_string),
                    },
                ),
                _ => Meaning::refused(
                    read,
                    RefError::TooDeep {
                        span: reference.span(),
                        what: "`consumer` has the fields login, instance and module".into(),
                    },
                ),
            }
        }
        Head::Given => given_meaning(reference, provides.unwrap_or(Contract::Unresolved)),
        Head::OutsideProvides => Meaning::refused(
            Read::Nothing,
            RefError::OutsideProvides {
                span: first.span,
                word: first.name.to_string(),
            },
        ),
        Head::Unknown => Meaning::refused(
            Read::Nothing,
            RefError::UnknownRequirement {
                name: first.name.to_string(),
                span: first.span,
                suggestion: names.closest_requirement(&first.name),
            },
        ),
    }
}

fn requirement_meaning<'r, 'c>(
    reference: &'r Reference,
    req: usize,
    form: Form<'c>,
) -> Meaning<'r, 'c> {
    let segs: &[Ident] = &reference.segments;
    let name = &segs[0].name;
    let contract = match form {
        Form::Operator if segs.len() == 1 => return Meaning::ok(Read::OperatorValue { req }),
        Form::Operator => {
            return Meaning::refused(
                Read::Requirement { req },
                RefError::TooDeep {
                    span: reference.span(),
                    what: format!("`{name}` is an operator value; it has no fields"),
                },
            );
        }
        // What the words name is still told (the editor names the field after the
        // contract as written); the refusal is the contract's, told where it is named.
        Form::Contract(Contract::Unresolved) => {
            let read = match segs.get(1) {
                Some(field) => Read::ContractField {
                    req,
                    field,
                    info: None,
                },
                None => Read::Requirement { req },
            };
            return Meaning::refused(read, RefError::Unresolved);
        }
        Form::Contract(c) => c,
    };
    let Some(field) = segs.get(1) else {
        return Meaning::refused(
            Read::Requirement { req },
            RefError::MissingField {
                requirement: name.to_string(),
                contract: contract.name().to_string(),
                span: reference.span(),
            },
        );
    };
    let info = match contract {
        Contract::Known(c) => match c.field(field.name.as_str()) {
            Some(f) => Some(f),
            None => {
                return Meaning::refused(
                    Read::ContractField {
                        req,
                        field,
                        info: None,
                    },
                    RefError::UnknownField {
                        requirement: name.to_string(),
                        contract: c.name.clone(),
                        field: field.name.to_string(),
                        span: field.span,
                        suggestion: crate::diagnostics::closest(
                            &field.name,
                            c.fields.keys().map(String::as_str),
                        )
                        .map(str::to_string),
                    },
                );
            }
        },
        _ => None,
    };
    let read = Read::ContractField { req, field, info };
    if segs.len() > 2 {
        let what = match info {
            Some(f) => format!("`{name}.{}` is a {}; it has no fields", f.name, f.ty),
            None => format!("`{name}.{}` has no fields", field.name),
        };
        return Meaning::refused(
            read,
            RefError::TooDeep {
                span: reference.span(),
                what,
            },
        );
    }
    Meaning::ok(read)
}

fn given_meaning<'r, 'c>(reference: &'r Reference, contract: Contract<'c>) -> Meaning<'r, 'c> {
    let segs: &[Ident] = &reference.segments;
    let Some(field) = segs.get(1) else {
        return Meaning::refused(
            Read::Given {
                field: None,
                info: None,
            },
            RefError::TooDeep {
                span: reference.span(),
                what: "write `given.FIELD`, naming a given field of the contract".into(),
            },
        );
    };
    let info = match contract {
        Contract::Known(c) => match c.field(field.name.as_str()).filter(|f| f.given) {
            Some(f) => Some(f),
            None => {
                return Meaning::refused(
                    Read::Given {
                        field: Some(field),
                        info: None,
                    },
                    RefError::UnknownField {
                        requirement: "given".into(),
                        contract: c.name.clone(),
                        field: field.name.to_string(),
                        span: field.span,
                        suggestion: crate::diagnostics::closest(
                            &field.name,
                            c.fields
                                .values()
                                .filter(|f| f.given)
                                .map(|f| f.name.as_str()),
                        )
                        .map(str::to_string),
                    },
                );
            }
        },
        Contract::Unresolved => {
            let read = Read::Given {
                field: Some(field),
                info: None,
            };
            return Meaning::refused(read, RefError::Unresolved);
        }
        Contract::Unchecked(_) => None,
    };
    let read = Read::Given {
        field: Some(field),
        info,
    };
    if segs.len() > 2 {
        return Meaning::refused(
            read,
            RefError::TooDeep {
                span: reference.span(),
                what: "a given field has no fields".into(),
            },
        );
    }
    Meaning::ok(read)
}

fn loop_meaning<'r, 'c>(
    reference: &'r Reference,
    var: usize,
    form: LoopForm<'c>,
) -> Meaning<'r, 'c> {
    let segs: &[Ident] = &reference.segments;
    let looped = |read| Read::Loop { var, read };
    let contract = match form {
        LoopForm::Refused => {
            return Meaning::refused(looped(LoopRead::Nothing), RefError::Unresolved);
        }
        LoopForm::Item if segs.len() == 1 => return Meaning::ok(looped(LoopRead::Whole)),
        LoopForm::Item => {
            return Meaning::refused(
                looped(LoopRead::Whole),
                RefError::ElementField {
                    var,
                    span: reference.span(),
                },
            );
        }
        LoopForm::Consumers(c) => c,
    };
    let known = match contract {
        Contract::Known(c) => Some(c),
        _ => None,
    };
    // What the words name.
    let read = match segs.get(1) {
        None => LoopRead::Whole,
        Some(keyword) if keyword.name == "given" => {
            let field = segs.get(2);
            LoopRead::Given {
                keyword,
                field,
                info: field
                    .zip(known)
                    .and_then(|(f, c)| c.fields.get(f.name.as_str()))
                    .filter(|f| f.given),
            }
        }
        Some(word) => match ConsumerField::of(&word.name, true) {
            Some(field) => LoopRead::Meta { word, field },
            None => LoopRead::Answer {
                field: word,
                info: known
                    .and_then(|c| c.fields.get(word.name.as_str()))
                    .filter(|f| !f.given),
            },
        },
    };
    let read_ok = match read {
        LoopRead::Whole | LoopRead::Nothing => false,
        LoopRead::Meta { .. } => segs.len() == 2,
        LoopRead::Given { field, info, .. } => {
            segs.len() == 3 && field.is_some() && (info.is_some() || known.is_none())
        }
        LoopRead::Answer { info, .. } => segs.len() == 2 && (info.is_some() || known.is_none()),
    };
    if read_ok {
        return Meaning::ok(looped(read));
    }
    let Some(c) = known else {
        // The index: what the words name is all it asks.
        return Meaning::refused(looped(read), RefError::Unresolved);
    };
    let words: Vec<&str> = segs[1..].iter().map(|s| s.name.as_str()).collect();
    let why = match words.as_slice() {
        [] => LoopRefusal::NoField,
        ["given", field] => LoopRefusal::NotGiven {
            field: field.to_string(),
            suggestion: crate::diagnostics::closest(
                field,
                c.fields
                    .values()
                    .filter(|f| f.given)
                    .map(|f| f.name.as_str()),
            )
            .map(str::to_string),
        },
        [field] if c.fields.get(*field).is_some_and(|f| f.given) => LoopRefusal::IsGiven {
            field: field.to_string(),
        },
        [field] => LoopRefusal::NoSuch {
            field: field.to_string(),
            suggestion: crate::diagnostics::closest(
                field,
                CONSUMER_WORDS[..4].iter().copied().chain(
                    c.fields
                        .values()
                        .filter(|f| !f.given)
                        .map(|f| f.name.as_str()),
                ),
            )
            .map(str::to_string),
        },
        _ => LoopRefusal::TooDeep {
            dotted: reference.dotted(),
        },
    };
    Meaning::refused(
        looped(read),
        RefError::ConsumerLoop {
            var,
            contract: c.name.clone(),
            span: reference.span(),
            why,
        },
    )
}
