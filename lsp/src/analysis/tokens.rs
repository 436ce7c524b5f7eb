//! Semantic tokens: every word coloured by what it means, not by how it looks. Contextual
//! keywords make this worth doing: `mode` is a keyword in `file "/x" mode 0o640` and an env
//! key in `env { mode = "fast" }`.

use super::index::{NameClass, Role, Symbol};
use super::{Cursor, is_std_symbol};
use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::span::Span;
use meshc::syntax::keywords;
use meshc::syntax::lexer::{TokenKind, lex};
use std::collections::HashMap;
use tower_lsp_server::ls_types::{
    Position, SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens,
    SemanticTokensLegend, Uri,
};

/// The token types, in legend order.
pub const TOKEN_TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,
    SemanticTokenType::TYPE,
    SemanticTokenType::INTERFACE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::STRING,
    SemanticTokenType::NUMBER,
    SemanticTokenType::COMMENT,
    SemanticTokenType::NAMESPACE,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::CLASS,
    SemanticTokenType::MACRO,
    SemanticTokenType::FUNCTION,
];

/// The token modifiers, in legend order (bit `i` is modifier `i`).
pub const TOKEN_MODIFIERS: &[SemanticTokenModifier] = &[
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::DOCUMENTATION,
    SemanticTokenModifier::DEFAULT_LIBRARY,
    SemanticTokenModifier::DEPRECATED,
];

/// The legend announced at initialisation.
pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TOKEN_TYPES.to_vec(),
        token_modifiers: TOKEN_MODIFIERS.to_vec(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Ty {
    Keyword = 0,
    Type,
    Contract,
    Requirement,
    Property,
    Str,
    Number,
    Comment,
    Namespace,
    Variable,
    Seat,
    Container,
    Legacy,
    Function,
}

const DECLARATION: u32 = 1;
const DOCUMENTATION: u32 = 2;
const DEFAULT_LIBRARY: u32 = 4;
const DEPRECATED: u32 = 8;

fn symbol_type(symbol: &Symbol) -> Ty {
    match symbol {
        Symbol::Contract(_) => Ty::Contract,
        Symbol::Field { .. } => Ty::Property,
        Symbol::Module(_) | Symbol::Mesh(_) => Ty::Namespace,
        Symbol::Requirement { .. } => Ty::Requirement,
        Symbol::Node { .. } | Symbol::Instance { .. } | Symbol::LoopVar { .. } => Ty::Variable,
        Symbol::Seat(_) => Ty::Seat,
        Symbol::Container { .. } => Ty::Container,
    }
}

fn name_type(class: NameClass) -> (Ty, u32) {
    match class {
        NameClass::Keyword => (Ty::Keyword, 0),
        NameClass::Type => (Ty::Type, 0),
        NameClass::Property => (Ty::Property, 0),
        NameClass::Container => (Ty::Container, DECLARATION),
        NameClass::Legacy => (Ty::Legacy, DEPRECATED),
        NameClass::Function => (Ty::Function, DEFAULT_LIBRARY),
    }
}

/// The semantic tokens of the whole file `uri` names.
pub fn full(snap: &Snapshot, uri: &Uri) -> Option<SemanticTokens> {
    let cursor = Cursor::new(snap, uri, Position::new(0, 0))?;
    let text = cursor.text();
    let lexed = lex(text);
    // What the tree says about the words at each start offset.
    let mut meaning: HashMap<u32, (Span, Ty, u32)> = HashMap::new();
    let in_std = cursor.file == snap.std_file;
    let mut std_cache: HashMap<Symbol, bool> = HashMap::new();
    for o in &cursor.index.occurrences {
        if o.implicit {
            continue;
        }
        let mut mods = if o.role == Role::Def { DECLARATION } else { 0 };
        let std = in_std
            || *std_cache
                .entry(o.symbol.clone())
                .or_insert_with(|| is_std_symbol(snap, &o.symbol));
        if std {
            mods |= DEFAULT_LIBRARY;
        }
        meaning.insert(o.span.start, (o.span, symbol_type(&o.symbol), mods));
    }
    for (span, class) in &cursor.index.names {
        let (ty, mods) = name_type(*class);
        meaning.entry(span.start).or_insert((*span, ty, mods));
    }
    let mut sorted: Vec<(Span, Ty, u32)> = meaning.values().copied().collect();
    sorted.sort_by_key(|(s, _, _)| s.start);
    let mut out: Vec<(Span, Ty, u32)> = Vec::new();
    for c in &lexed.comments {
        out.push((c.span, Ty::Comment, if c.doc { DOCUMENTATION } else { 0 }));
    }
    for (i, t) in lexed.tokens.iter().enumerate() {
        match t.kind {
            TokenKind::Int => out.push((t.span, Ty::Number, 0)),
            TokenKind::Str(_) | TokenKind::TripleStr(_) => {
                // The string's text, around the references it interpolates.
                let first = sorted.partition_point(|(s, _, _)| s.start <= t.span.start);
                let inner = sorted[first..]
                    .iter()
                    .take_while(|(s, _, _)| s.start < t.span.end)
                    .filter(|(s, _, _)| s.end <= t.span.end);
                let mut at = t.span.start;
                for m in inner {
                    if m.0.start > at {
                        out.push((
                            Span {
                                start: at,
                                end: m.0.start,
                            },
                            Ty::Str,
                            0,
                        ));
                    }
                    out.push(*m);
                    at = m.0.end;
                }
                if at < t.span.end {
                    out.push((
                        Span {
                            start: at,
                            end: t.span.end,
                        },
                        Ty::Str,
                        0,
                    ));
                }
            }
            TokenKind::Ident => {
                if let Some(m) = meaning.get(&t.span.start).filter(|m| m.0 == t.span) {
                    out.push(*m);
                    continue;
                }
                let word = &text[t.span.range()];
                let next = lexed.tokens.get(i + 1).map(|n| n.kind);
                if word == "list" && next == Some(TokenKind::Lt) {
                    out.push((t.span, Ty::Type, 0));
                } else if keywords::colours_as_keyword(word) {
                    out.push((t.span, Ty::Keyword, 0));
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|(s, _, _)| (s.start, s.end));
    Some(SemanticTokens {
        result_id: None,
        data: encode(&cursor.lines, &out),
    })
}

/// The protocol's relative encoding; a token spanning lines is cut at each line break, and
/// overlapping tokens keep the first.
fn encode(lines: &Lines<'_>, tokens: &[(Span, Ty, u32)]) -> Vec<SemanticToken> {
    let text = lines.text;
    let mut data = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    let mut covered = 0u32;
    for &(span, ty, mods) in tokens {
        if span.start < covered || span.end <= span.start {
            continue;
        }
        covered = span.end;
        let mut start = span.start as usize;
        let end = (span.end as usize).min(text.len());
        while start < end {
            let piece_end = text[start..end].find('\n').map_or(end, |i| start + i);
            // A `\r` before the line break is no part of the token.
            let visible_end = if text[start..piece_end].ends_with('\r') {
                piece_end - 1
            } else {
                piece_end
            };
            if visible_end > start {
                let a = lines.position(start as u32);
                let b = lines.position(visible_end as u32);
                let delta_line = a.line - prev_line;
                let delta_start = if delta_line == 0 {
                    a.character - prev_start
                } else {
                    a.character
                };
                data.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length: b.character - a.character,
                    token_type: ty as u32,
                    token_modifiers_bitset: mods,
                });
                prev_line = a.line;
                prev_start = a.character;
            }
            start = piece_end + 1;
        }
    }
    data
}
