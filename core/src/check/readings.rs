//! What each reference of a module reads, as the checker decided it: the table
//! resolution evaluates references by, so it works out no meaning of its own.
//!
//! The checker reads every reference of a module once, through [`super::meaning`] (the
//! one rule), and writes what the reference names here, by the reference's place
//! ([`ast::Reference::id`], its order among the module's references): the static part
//! of the meaning (a requirement and a field by their indices, `consumer`'s field, a
//! given field, what a loop variable is read for), or why it reads nothing. What differs
//! per instance stays resolution's: which element a loop variable is bound to, and every
//! value.
//!
//! The table holds no position and no text: an edit that only moves text leaves it
//! equal, and a module's position-free tree finds its entries by the same ids. An entry
//! is 12 bytes.

use super::meaning::ConsumerField;
use crate::diagnostics::Reported;
use crate::syntax::ast;

/// What one reference reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// The checker did not read it: a check refused the expression around it, or the
    /// parser left it where no check looks. Its module has an error (resolution passes
    /// over it on that proof).
    #[default]
    NotRead,
    /// It reads nothing, and the checker reported why (E0104, E0105, E0318): the proof.
    Refused(Reported),
    /// It reads nothing for a cause reported where the cause is: a contract the
    /// workspace lacks (told where it is named), a loop's iterable refused (told at the
    /// loop); or it was read where a check had refused its expression already.
    Unresolved,
    /// The value of operator requirement `req` (its index in the module's scope).
    OperatorValue { req: u32 },
    /// Field `field` (its index in the contract) of contract requirement `req`.
    ContractField { req: u32, field: u32 },
    /// `consumer.FIELD` inside `provides`.
    Consumer(ConsumerField),
    /// `given.FIELD` inside `provides`: `field` is its index in the block's contract.
    Given { field: u32 },
    /// Through a loop variable (the innermost of the first word's name in scope).
    Loop(LoopReading),
    /// A fact of the node the instance runs on, read by a legacy `${machine:fact}` in a
    /// module with no `host node` requirement (an old form, LANGUAGE.md §5.6).
    NodeFact(NodeFact),
}

/// A fact of a node: a field of the standard `node` contract, which the node's host
/// answers (the one typed description of them; a test holds it to the contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeFact {
    /// `private_name`.
    PrivateName,
    /// `mesh_names`.
    MeshNames,
}

impl NodeFact {
    /// Every fact, in the `node` contract's order.
    pub const ALL: [NodeFact; 2] = [NodeFact::PrivateName, NodeFact::MeshNames];

    /// The `node` contract's field for this fact.
    pub fn field(self) -> &'static str {
        match self {
            NodeFact::PrivateName => "private_name",
            NodeFact::MeshNames => "mesh_names",
        }
    }

    /// The fact field `field` of the `node` contract is.
    pub fn of_field(field: &str) -> Option<NodeFact> {
        NodeFact::ALL.into_iter().find(|f| f.field() == field)
    }

    /// The `node` contract's field a legacy `${machine:WORD}` names: `hostname` and
    /// `name` are old names for `private_name`; any other word names itself (and may be
    /// no fact at all).
    pub fn legacy_field(word: &str) -> &str {
        if NodeFact::OLD_NAMES.contains(&word) {
            NodeFact::PrivateName.field()
        } else {
            word
        }
    }

    /// The old names of `private_name` a `${machine:…}` placeholder may write.
    pub const OLD_NAMES: [&str; 2] = ["hostname", "name"];
}

/// What a reference reads through a loop variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopReading {
    /// A list's element.
    Item,
    /// `c.login`, `c.instance`, `c.module`, `c.node` of a consumer.
    Meta(ConsumerField),
    /// `c.given.FIELD`: `field` is its index in the loop's contract.
    Given { field: u32 },
    /// `c.FIELD`, this module's answer: `field` is its index in the loop's contract.
    Answer { field: u32 },
}

/// What every reference of one module reads, by [`ast::Reference::id`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Readings {
    table: Box<[Reading]>,
}

impl Readings {
    /// What the reference `reference` of this module reads; [`Reading::NotRead`] for one
    /// the checker never met.
    pub fn of(&self, reference: &ast::Reference) -> Reading {
        self.table
            .get(reference.id as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Every entry, by id.
    pub fn entries(&self) -> &[Reading] {
        &self.table
    }
}

/// The table of one module while its checks write it: the first reading of a
/// reference is kept (a check that reads a reference's names again after a refusal
/// changes nothing).
#[derive(Debug, Default)]
pub(crate) struct ReadingsBuilder {
    table: Vec<Reading>,
}

impl ReadingsBuilder {
    /// A table for `module`'s references, none read yet; with `keep` false, a table that
    /// keeps nothing: only a mesh's resolution reads the table, so a workspace without a
    /// mesh (`meshc check` of modules alone) does not pay for it.
    pub fn new(module: &ast::Module, keep: bool) -> ReadingsBuilder {
        let len = if keep { module.references as usize } else { 0 };
        ReadingsBuilder {
            table: vec![Reading::NotRead; len],
        }
    }

    /// Whether it keeps what it is told (a module without references keeps nothing
    /// either).
    pub fn keeps(&self) -> bool {
        !self.table.is_empty()
    }

    /// Writes what `reference` reads, unless it was read already.
    pub fn write(&mut self, reference: &ast::Reference, reading: Reading) {
        if let Some(slot) = self.table.get_mut(reference.id as usize)
            && *slot == Reading::NotRead
        {
            *slot = reading;
        }
    }

    pub fn finish(self) -> Readings {
        Readings {
            table: self.table.into_boxed_slice(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_twelve_bytes() {
        assert!(std::mem::size_of::<Reading>() <= 12);
    }
}
