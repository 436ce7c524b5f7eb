//! The lexer: source text to tokens, with comments kept aside for doc attachment and the
//! formatter. Lexing never fails: unknown characters become [`TokenKind::Error`] tokens.

use crate::span::Span;
use logos::Logos;

/// The kind of a token. Keywords are contextual, so every word is an [`TokenKind::Ident`];
/// the parser compares its text.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\x0C]+")]
pub enum TokenKind {
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*")]
    Ident,
    /// A number as written; its value (and E0004) is the parser's business.
    #[regex(r"-?[0-9][0-9A-Za-z_]*")]
    Int,
    /// A `"…"` string; `false` when it ran into the end of its line unterminated.
    #[token("\"", lex_string)]
    Str(bool),
    /// A `"""…"""` string; `false` when it ran into the end of the file unterminated.
    #[token("\"\"\"", lex_triple_string)]
    TripleStr(bool),
    /// `/// …`
    #[regex(r"///[^\n]*", allow_greedy = true)]
    DocComment,
    /// `// …`
    #[regex(r"//[^\n]*", allow_greedy = true, priority = 2)]
    LineComment,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("=")]
    Eq,
    #[token("->")]
    Arrow,
    /// `?` after an optional requirement's name.
    #[token("?")]
    Question,
    /// Anything the language has no token for.
    Error,
    /// The end of the input.
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected …, found …" messages.
    pub fn describe(self) -> &'static str {
        match self {
            TokenKind::Ident => "a name",
            TokenKind::Int => "a number",
            TokenKind::Str(_) | TokenKind::TripleStr(_) => "a string",
            TokenKind::DocComment | TokenKind::LineComment => "a comment",
            TokenKind::LBrace => "`{`",
            TokenKind::RBrace => "`}`",
            TokenKind::LBracket => "`[`",
            TokenKind::RBracket => "`]`",
            TokenKind::LParen => "`(`",
            TokenKind::RParen => "`)`",
            TokenKind::Lt => "`<`",
            TokenKind::Gt => "`>`",
            TokenKind::Colon => "`:`",
            TokenKind::Comma => "`,`",
            TokenKind::Dot => "`.`",
            TokenKind::DotDot => "`..`",
            TokenKind::Eq => "`=`",
            TokenKind::Arrow => "`->`",
            TokenKind::Question => "`?`",
            TokenKind::Error => "an unexpected character",
            TokenKind::Eof => "the end of the file",
        }
    }
}

fn lex_string(lex: &mut logos::Lexer<TokenKind>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    let mut balanced = true;
    while i < rest.len() {
        match rest[i] {
            b'\\' if i + 1 < rest.len() && rest[i + 1] != b'\n' => i += 2,
            b'$' if balanced && rest.get(i + 1) == Some(&b'{') => {
                match interp_end(rest, i + 2, true) {
                    Some(end) => i = end,
                    None => {
                        // Broken (E0005): the rest of the string is read as before, so
                        // a line of unclosed `${` costs linear time.
                        balanced = false;
                        i += 2;
                    }
                }
            }
            b'"' => {
                lex.bump(i + 1);
                return true;
            }
            b'\n' => {
                lex.bump(i);
                return false;
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    false
}

fn lex_triple_string(lex: &mut logos::Lexer<TokenKind>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    let mut balanced = true;
    while i < rest.len() {
        match rest[i] {
            b'\\' if i + 1 < rest.len() => i += 2,
            b'$' if balanced && rest.get(i + 1) == Some(&b'{') => {
                match interp_end(rest, i + 2, true) {
                    Some(end) => i = end,
                    None => {
                        // Broken (E0005): the rest of the string is read as before, so
                        // a line of unclosed `${` costs linear time.
                        balanced = false;
                        i += 2;
                    }
                }
            }
            b'"' if rest[i..].starts_with(b"\"\"\"") => {
                lex.bump(i + 3);
                return true;
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    false
}

/// Where the interpolation whose body starts at `start` (just after `${`) ends: the
/// index just after its closing `}`. Braces balance and strings inside it are skipped
/// whole (`${replace(x, "}", "")}`), their own interpolations included. `None` when the
/// text, or with `one_line` the line, ends first, or when strings and interpolations nest
/// deeper than [`crate::syntax::parser::MAX_NESTING`] (the parser refuses those anyway):
/// the caller then reads `${` as text. Iterative and bounded, so hostile nesting can
/// neither overflow the stack nor make lexing quadratic.
pub(crate) fn interp_end(text: &[u8], start: usize, one_line: bool) -> Option<usize> {
    enum Mode {
        Interp(u32),
        Str,
    }
    let mut stack = vec![Mode::Interp(0)];
    let mut i = start;
    while i < text.len() {
        let c = text[i];
        if c == b'\n' && one_line {
            return None;
        }
        match stack.last_mut()? {
            Mode::Interp(depth) => match c {
                b'{' => *depth += 1,
                b'}' if *depth > 0 => *depth -= 1,
                b'}' => {
                    stack.pop();
                    if stack.is_empty() {
                        return Some(i + 1);
                    }
                }
                b'"' if stack.len() >= 2 * super::parser::MAX_NESTING => return None,
                b'"' => stack.push(Mode::Str),
                _ => {}
            },
            Mode::Str => match c {
                b'\\' if i + 1 < text.len() && text[i + 1] != b'\n' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'\n' => return None,
                b'$' if text.get(i + 1) == Some(&b'{') => {
                    stack.push(Mode::Interp(0));
                    i += 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// One token: its kind, where it is, and whether a line break precedes it (entries are
/// separated by whitespace, and error recovery resumes at the next line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    pub newline_before: bool,
}

/// A comment kept aside from the token stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment {
    pub span: Span,
    /// `///` rather than `//`.
    pub doc: bool,
}

/// The tokens of a text (ending with [`TokenKind::Eof`]) and its comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub comments: Vec<Comment>,
}

/// Cuts `text` into tokens. Never fails.
pub fn lex(text: &str) -> Lexed {
    let mut tokens = Vec::with_capacity(text.len() / 5);
    let mut comments = Vec::new();
    let mut lexer = TokenKind::lexer(text);
    let mut last_end = 0usize;
    let bytes = text.as_bytes();
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        let newline_before = bytes[last_end..range.start].contains(&b'\n') || last_end == 0;
        last_end = range.end;
        match result {
            Ok(TokenKind::DocComment) => comments.push(Comment { span, doc: true }),
            Ok(TokenKind::LineComment) => comments.push(Comment { span, doc: false }),
            Ok(kind) => tokens.push(Token {
                kind,
                span,
                newline_before,
            }),
            Err(()) => tokens.push(Token {
                kind: TokenKind::Error,
                span,
                newline_before,
            }),
        }
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(text.len(), text.len()),
        newline_before: true,
    });
    Lexed { tokens, comments }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex(text).tokens.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn words_numbers_and_ranges() {
        use TokenKind::*;
        assert_eq!(
            kinds("forge-staging 0o750 20000..20999 ..20 -1"),
            vec![Ident, Int, Int, DotDot, Int, DotDot, Int, Int, Eof]
        );
        assert_eq!(
            kinds("a.b -> c"),
            vec![Ident, Dot, Ident, Arrow, Ident, Eof]
        );
    }

    #[test]
    fn strings_and_comments() {
        use TokenKind::*;
        let l = lex("/// doc\nx = \"a\\\"b\" // note\ny = \"\"\"\n  t\n  \"\"\" z = \"open\n");
        let k: Vec<_> = l.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            k,
            vec![
                Ident,
                Eq,
                Str(true),
                Ident,
                Eq,
                TripleStr(true),
                Ident,
                Eq,
                Str(false),
                Eof
            ]
        );
        assert_eq!(l.comments.len(), 2);
        assert!(l.comments[0].doc && !l.comments[1].doc);
    }

    #[test]
    fn strings_inside_an_interpolation_do_not_end_the_string() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#"x = "a ${replace(b.c, "}", "\"")} d" y"#),
            vec![Ident, Eq, Str(true), Ident, Eof]
        );
        assert_eq!(
            kinds(r#"x = "${f("${g("q")}")}" y"#),
            vec![Ident, Eq, Str(true), Ident, Eof]
        );
        // An interpolation never closed is text: the string ends at its quote.
        assert_eq!(
            kinds(r#"x = "${" y"#),
            vec![Ident, Eq, Str(true), Ident, Eof]
        );
        // Hostile nesting lexes in bounded time per string.
        let deep = format!("\"{}\"", "${f(\"".repeat(100_000));
        let started = std::time::Instant::now();
        assert!(!kinds(&deep).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    /// A token follows a line break when one lies between it and whatever the lexer read
    /// before it (a token or a comment), not inside that: a triple-quoted string's own
    /// lines say nothing of the token after it.
    #[test]
    fn a_token_knows_whether_a_line_break_precedes_it() {
        let text = "a \"\"\"\nx\n\"\"\" b\nc // n\nd\n\n  e f\n\"s\" g";
        let flags: Vec<(String, bool)> = lex(text)
            .tokens
            .iter()
            .map(|t| (text[t.span.range()].to_string(), t.newline_before))
            .collect();
        let expected = [
            ("a", true),
            ("\"\"\"\nx\n\"\"\"", false),
            ("b", false),
            ("c", true),
            ("d", true),
            ("e", true),
            ("f", false),
            ("\"s\"", true),
            ("g", false),
            ("", true),
        ];
        let expected: Vec<(String, bool)> =
            expected.iter().map(|(t, n)| (t.to_string(), *n)).collect();
        assert_eq!(flags, expected);
    }

    #[test]
    fn unknown_characters_are_error_tokens() {
        assert!(kinds("a ; b").contains(&TokenKind::Error));
    }
}
