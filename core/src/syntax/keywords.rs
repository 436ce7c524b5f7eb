//! The one table of the language's words: every keyword the parser accepts, where it is
//! written, what kind of word it is, and what an editor says about it. The parser asks
//! [`is_keyword`] for every word it compares (checked in debug builds), the language
//! server's completion offers [`offered`] in each place, and its semantic tokens colour
//! [`colours_as_keyword`] words the tree says nothing about.
//!
//! Keywords are contextual (LANGUAGE.md §2): the lexer has one identifier token and a
//! word is a keyword only where the parser looks for it, so an env key may be `mode`.

/// What kind of word a keyword is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Starts an item at the top of a file.
    Item,
    /// Starts an entry of a block.
    Entry,
    /// Inside an entry or an item's head: `for`, `to`, `on`, `owner`, `in`…
    Clause,
    /// Who answers a contract or a requirement: `module`, `host`, `mesh`, `operator`.
    ProviderKind,
    /// A property written `NAME = VALUE` with a fixed name: a node's, an assignment's
    /// `short`.
    Property,
    /// A word of a type: `list<…>`, `secret`.
    Type,
    /// Starts or continues an expression: `for`, `consumers`, `consumer`, `given`.
    Expression,
    /// A literal value: `true`, `false`.
    Literal,
}

/// A place where the language server's completion offers keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The top of a file.
    Top,
    /// After `contract NAME`.
    ContractHead,
    /// After `contract NAME for`.
    ContractKind,
    /// At the start of a line inside a contract.
    Contract,
    /// At the start of a line inside a module.
    Module,
    /// After `requires NAME:`.
    RequirementKind,
    /// At the start of a line inside a container.
    Container,
    /// After `file "/path"` or `secret "/path"`, before `owner`.
    FileOwner,
    /// After `file "/path" owner UID[:GID]`.
    FileMode,
    /// After `NAME = VALUE` inside `env`.
    EnvValue,
    /// After a field's name inside a narrowing block.
    Narrowing,
    /// Where a reference starts inside `provides`.
    Provides,
    /// At the start of a line inside a mesh.
    Mesh,
    /// After `assign MODULE`.
    AssignModule,
    /// After `assign MODULE to NODE`.
    AssignNode,
    /// After `seat NAME = INSTANCE`.
    SeatInstance,
    /// At the start of a line inside a node.
    Node,
    /// At the start of a line inside an assignment.
    Assign,
    /// After a requirement's name inside an assignment.
    Placement,
    /// After `REQ from INSTANCE` or `REQ at PORT` inside an assignment.
    PlacementNode,
}

impl Place {
    /// Every place, for tests that visit each.
    pub const ALL: &'static [Place] = &[
        Place::Top,
        Place::ContractHead,
        Place::ContractKind,
        Place::Contract,
        Place::Module,
        Place::RequirementKind,
        Place::Container,
        Place::FileOwner,
        Place::FileMode,
        Place::EnvValue,
        Place::Narrowing,
        Place::Provides,
        Place::Mesh,
        Place::AssignModule,
        Place::AssignNode,
        Place::SeatInstance,
        Place::Node,
        Place::Assign,
        Place::Placement,
        Place::PlacementNode,
    ];
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Keyword {
    /// The word as written.
    pub word: &'static str,
    pub kind: Kind,
    /// Where completion offers it; empty for a word the parser accepts that completion
    /// does not suggest.
    pub places: &'static [Place],
    /// The one-line detail completion shows beside it; empty for none.
    pub detail: &'static str,
    /// What it means, in Markdown, for completion's documentation.
    pub doc: &'static str,
}

use Kind as K;
use Place as P;

const fn kw(
    word: &'static str,
    kind: Kind,
    places: &'static [Place],
    detail: &'static str,
    doc: &'static str,
) -> Keyword {
    Keyword {
        word,
        kind,
        places,
        detail,
        doc,
    }
}

/// Every keyword, one row per word and kind (a word of two kinds has two rows).
pub const KEYWORDS: &[Keyword] = &[
    // Items.
    kw(
        "contract",
        K::Item,
        &[P::Top],
        "",
        "Declares a contract: the fields a provider answers and a consumer reads.",
    ),
    kw(
        "module",
        K::Item,
        &[P::Top],
        "",
        "Declares a module: its requirements, containers and what it provides.",
    ),
    kw(
        "mesh",
        K::Item,
        &[P::Top],
        "",
        "Declares a mesh: its nodes, seats and assignments.",
    ),
    kw(
        "seat",
        K::Item,
        &[],
        "",
        "Declares a seat (the standard library only): a place in a mesh that delivers a contract.",
    ),
    // A contract's head and body.
    kw(
        "for",
        K::Clause,
        &[P::ContractHead],
        "",
        "`contract NAME for KIND`: who answers the contract.",
    ),
    kw(
        "module",
        K::ProviderKind,
        &[P::ContractKind, P::RequirementKind],
        "answered by a module",
        "Answered by a module that `provides` it.",
    ),
    kw(
        "host",
        K::ProviderKind,
        &[P::ContractKind, P::RequirementKind],
        "answered by the host",
        "Answered by the host: a directory, an access, a port, the node.",
    ),
    kw(
        "mesh",
        K::ProviderKind,
        &[P::ContractKind, P::RequirementKind],
        "answered by the mesh",
        "Answered by the mesh: identities and the like.",
    ),
    kw(
        "operator",
        K::ProviderKind,
        &[P::RequirementKind],
        "answered by the operator",
        "A value the operator writes in the assignment: `requires NAME: operator TYPE`.",
    ),
    kw(
        "given",
        K::Entry,
        &[P::Contract],
        "",
        "A field the consumer gives and the provider reads.",
    ),
    kw(
        "delivers",
        K::Clause,
        &[],
        "",
        "`seat NAME delivers CONTRACT`: the contract a seat delivers.",
    ),
    // Types.
    kw(
        "list",
        K::Type,
        &[],
        "",
        "`list<T>`: a list of values of one type.",
    ),
    kw(
        "secret",
        K::Type,
        &[],
        "",
        "Marks a value as secret: it is delivered sealed, never written in a manifest.",
    ),
    // A module's entries.
    kw(
        "requires",
        K::Entry,
        &[P::Module],
        "",
        "`requires NAME: KIND CONTRACT`: something the module needs.",
    ),
    kw(
        "container",
        K::Entry,
        &[P::Module],
        "",
        "`container NAME { … }`: a container the module runs.",
    ),
    kw(
        "job",
        K::Entry,
        &[P::Module],
        "",
        "`job NAME { … }`: a container that runs to completion, run again when its manifest entry changes and restarted only when it fails. It holds a container's entries but `publish` and `health`.",
    ),
    kw(
        "provides",
        K::Entry,
        &[P::Module],
        "",
        "`provides CONTRACT { … }`: the module answers a contract for its consumers.",
    ),
    kw(
        "slug",
        K::Entry,
        &[P::Module],
        "",
        "`slug \"name\"`: 1 to 8 lowercase letters and digits that begin every login of the module.",
    ),
    // A container's entries.
    kw(
        "image",
        K::Entry,
        &[P::Container],
        "",
        "The container's image, pinned to a tag or a digest.",
    ),
    kw(
        "command",
        K::Entry,
        &[P::Container],
        "",
        "The command the container runs: a list of strings.",
    ),
    kw(
        "user",
        K::Entry,
        &[P::Container],
        "",
        "The user the container's process runs as: `user 1000` or `user 1000:1000`.",
    ),
    kw(
        "env",
        K::Entry,
        &[P::Container],
        "",
        "`env { NAME = VALUE }`: the container's environment.",
    ),
    kw(
        "mount",
        K::Entry,
        &[P::Container],
        "",
        "`mount REQ.path -> /path`: a host directory or access in the container.",
    ),
    kw(
        "secret",
        K::Entry,
        &[P::Container],
        "",
        "`secret \"/path\" = VALUE`: a file holding a secret, delivered sealed.",
    ),
    kw(
        "file",
        K::Entry,
        &[P::Container],
        "",
        "`file \"/path\" = VALUE`: a file the container reads.",
    ),
    kw(
        "publish",
        K::Entry,
        &[P::Container],
        "",
        "`publish REQ`: publishes a `host port` requirement on the node.",
    ),
    kw(
        "image_paths",
        K::Entry,
        &[P::Container],
        "",
        "The container paths the image itself fills.",
    ),
    kw(
        "health",
        K::Entry,
        &[P::Container],
        "health [\"cmd\", …] every \"30s\" start \"0s\" retries 3",
        "`health ARGV [every D] [start D] [retries N]`: the command the engine runs to tell whether the container serves. Defaults `every \"30s\"`, `start \"0s\"`, `retries 3`.",
    ),
    kw(
        "after",
        K::Entry,
        &[P::Container],
        "after NAME…",
        "`after NAME…`: starts once each named container or job of the module is ready: a job completed, a container with `health` healthy, any other started.",
    ),
    kw(
        "every",
        K::Clause,
        &[],
        "every \"30s\"",
        "`health … every D`: how often the engine runs the test (default `\"30s\"`).",
    ),
    kw(
        "start",
        K::Clause,
        &[],
        "start \"0s\"",
        "`health … start D`: how long a failing test is not counted after the container starts (default `\"0s\"`).",
    ),
    kw(
        "retries",
        K::Clause,
        &[],
        "retries 3",
        "`health … retries N`: how many failures in a row make the container unhealthy (default 3).",
    ),
    kw(
        "when",
        K::Entry,
        &[P::Container],
        "",
        "`when REQ { … }`: entries that apply only when an optional requirement is answered.",
    ),
    kw(
        "read_only",
        K::Clause,
        &[],
        "",
        "`mount … read_only`: the container cannot write the mount.",
    ),
    kw(
        "owner",
        K::Clause,
        &[P::FileOwner],
        "owner UID[:GID]",
        "Who owns the file on the host. Default: the container's `user`, else `0:0`; the group defaults to the owner's number.",
    ),
    kw(
        "mode",
        K::Clause,
        &[P::FileOwner, P::FileMode],
        "mode 0o640",
        "The file's permissions. Default: `0o644` for a plain file, `0o640` for a sealed one, `0o440` for a secret file.",
    ),
    kw(
        "exposed",
        K::Clause,
        &[P::EnvValue],
        "",
        "`NAME = VALUE exposed \"why\"`: a secret written into the environment, with the reason.",
    ),
    // Refinements.
    kw(
        "in",
        K::Clause,
        &[P::Narrowing],
        "",
        "`in A..B` bounds a number; `in {…}` lists the values allowed.",
    ),
    kw(
        "len",
        K::Clause,
        &[P::Narrowing],
        "",
        "`len A..B` bounds the length of a string or a list.",
    ),
    kw(
        "matches",
        K::Clause,
        &[P::Narrowing],
        "",
        "`matches \"REGEX\"`: the whole value matches the pattern.",
    ),
    // Expressions.
    kw("true", K::Literal, &[], "", "The boolean true."),
    kw("false", K::Literal, &[], "", "The boolean false."),
    kw(
        "for",
        K::Expression,
        &[],
        "",
        "`for X in LIST \"…\"`: a template repeated for each element.",
    ),
    kw(
        "in",
        K::Expression,
        &[],
        "",
        "`for X in LIST`: what a `for` runs over.",
    ),
    kw(
        "sep",
        K::Expression,
        &[],
        "",
        "`for X in LIST sep \",\" \"…\"`: a plain string placed between renderings, never after the last.",
    ),
    kw(
        "consumers",
        K::Expression,
        &[],
        "",
        "`consumers CONTRACT`: the consumers of a contract this module provides.",
    ),
    kw(
        "consumer",
        K::Expression,
        &[P::Provides],
        "",
        "Inside `provides`: the consumer being answered.",
    ),
    kw(
        "given",
        K::Expression,
        &[P::Provides],
        "",
        "Inside `provides`: a field the consumer gives.",
    ),
    // A mesh's entries.
    kw(
        "node",
        K::Entry,
        &[P::Mesh],
        "",
        "`node NAME { … }`: a machine of the mesh.",
    ),
    kw(
        "seat",
        K::Entry,
        &[P::Mesh],
        "",
        "`seat NAME = INSTANCE on NODE`: who fills a seat.",
    ),
    kw(
        "assign",
        K::Entry,
        &[P::Mesh],
        "",
        "`assign MODULE to NODE [as INSTANCE] { … }`: runs a module on a node.",
    ),
    kw(
        "to",
        K::Clause,
        &[P::AssignModule],
        "",
        "`assign MODULE to NODE`: the node it runs on.",
    ),
    kw(
        "as",
        K::Clause,
        &[P::AssignNode],
        "",
        "`as INSTANCE`: the instance's name, when a module runs more than once.",
    ),
    kw(
        "on",
        K::Clause,
        &[P::SeatInstance, P::PlacementNode],
        "",
        "`on NODE`: the node of an instance or a placement.",
    ),
    // A node's properties.
    kw(
        "private_name",
        K::Property,
        &[P::Node],
        "",
        "The node's name on the private network.",
    ),
    kw(
        "private_address",
        K::Property,
        &[P::Node],
        "",
        "The node's address on the private network.",
    ),
    kw(
        "root",
        K::Property,
        &[P::Node],
        "",
        "The host directory under which the node's directories are placed.",
    ),
    kw(
        "ports",
        K::Property,
        &[P::Node],
        "",
        "The range of host ports the node hands out: `FIRST..LAST`.",
    ),
    kw(
        "short",
        K::Property,
        &[P::Node, P::Assign],
        "",
        "A short form that begins every login: 1 to 6 of `a-z` and `0-9`.",
    ),
    kw(
        "adopted",
        K::Property,
        &[P::Node],
        "",
        "`adopted = true`: a machine that ran services before the mesh.",
    ),
    // An assignment's entries.
    kw(
        "keep_network",
        K::Entry,
        &[P::Assign],
        "",
        "Keeps the network an adopted machine's services already use.",
    ),
    kw(
        "genesis",
        K::Entry,
        &[P::Assign],
        "",
        "How the instance's data begins on its first run.",
    ),
    kw(
        "from",
        K::Clause,
        &[P::Placement],
        "",
        "`REQ from INSTANCE`: the instance that answers the requirement.",
    ),
    kw(
        "at",
        K::Clause,
        &[P::Placement],
        "",
        "`REQ at PORT`: the host port of a port requirement.",
    ),
    kw(
        "absent",
        K::Clause,
        &[],
        "",
        "`REQ absent`: an optional requirement left unanswered.",
    ),
];

/// Whether `word` is a keyword anywhere.
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.word == word)
}

/// The keywords completion offers at `place`, in table order.
pub fn offered(place: Place) -> impl Iterator<Item = &'static Keyword> {
    KEYWORDS.iter().filter(move |k| k.places.contains(&place))
}

/// The words of `kind`, in table order.
pub fn words_of(kind: Kind) -> impl Iterator<Item = &'static str> {
    KEYWORDS
        .iter()
        .filter(move |k| k.kind == kind)
        .map(|k| k.word)
}

/// Whether a word the tree gives no meaning is coloured as a keyword: any keyword but a
/// property's name.
pub fn colours_as_keyword(word: &str) -> bool {
    KEYWORDS
        .iter()
        .any(|k| k.word == word && k.kind != Kind::Property)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string literals the parser compares words with: in `at_word`, `eat_word`,
    /// `at_word_same_line`, `== "…"`, a match arm `"…" =>` and a word list `&["…"]` or
    /// `["…", …].contains`.
    fn parser_words() -> Vec<String> {
        let src = include_str!("parser.rs");
        let src = &src[..src.find("#[cfg(test)]").unwrap_or(src.len())];
        let mut out = Vec::new();
        let quoted = |rest: &str| -> Option<String> {
            let rest = rest.strip_prefix('"')?;
            let end = rest.find('"')?;
            let w = &rest[..end];
            (!w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                .then(|| w.to_string())
        };
        for line in src.lines() {
            let t = line.trim_start();
            for call in ["at_word(", "eat_word(", "at_word_same_line(", "== "] {
                let mut from = 0;
                while let Some(i) = t[from..].find(call) {
                    let at = from + i + call.len();
                    if let Some(w) = quoted(&t[at..]) {
                        out.push(w);
                    }
                    from = at;
                }
            }
            if t.starts_with('"')
                && t.contains("=>")
                && let Some(w) = quoted(t)
            {
                out.push(w);
            }
            if let Some(i) = t.find("&[\"").or_else(|| t.find("[\"")) {
                let list = &t[i..t[i..].find(']').map_or(t.len(), |j| i + j)];
                for part in list.split(',') {
                    let p = part.trim().trim_start_matches("&[").trim_start_matches('[');
                    if let Some(w) = quoted(p) {
                        out.push(w);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn every_word_the_parser_compares_is_in_the_table() {
        let words = parser_words();
        // The scan finds the parser's words; a scan that found none would prove nothing.
        for w in [
            "contract",
            "image",
            "absent",
            "keep_network",
            "true",
            "read_only",
        ] {
            assert!(
                words.iter().any(|x| x == w),
                "the scan missed `{w}`: {words:?}"
            );
        }
        let missing: Vec<&String> = words.iter().filter(|w| !is_keyword(w)).collect();
        assert!(
            missing.is_empty(),
            "parser words not in the keyword table: {missing:?}"
        );
    }

    #[test]
    fn rows_are_unique_and_documented() {
        for (i, a) in KEYWORDS.iter().enumerate() {
            assert!(!a.doc.is_empty(), "`{}` has no doc", a.word);
            for b in &KEYWORDS[i + 1..] {
                assert!(
                    a.word != b.word || a.kind != b.kind,
                    "`{}` twice as {:?}",
                    a.word,
                    a.kind
                );
            }
        }
        assert_eq!(
            offered(Place::Top).map(|k| k.word).collect::<Vec<_>>(),
            ["contract", "module", "mesh"]
        );
        assert!(colours_as_keyword("mode") && !colours_as_keyword("private_name"));
        assert!(words_of(Kind::Item).any(|w| w == "seat"));
        for row in KEYWORDS {
            for place in row.places {
                assert!(
                    Place::ALL.contains(place),
                    "{place:?} missing from Place::ALL"
                );
            }
        }
    }
}
