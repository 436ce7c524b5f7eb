//! The lexer: source text to tokens, with comments kept aside for doc attachment and the
//! formatter. Lexing never fails: unknown characters become [`TokenKind::Error`] tokens.

use crate::span::Span;

/// The kind of a token. Keywords are contextual, so every word is an [`TokenKind::Ident`];
/// the parser compares its text.
///
/// What each kind matches (the lexer below is written by hand, one pass over the bytes):
/// - `Ident`: `[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*`, a hyphen only between name
///   characters;
/// - `Int`: `-?[0-9][0-9A-Za-z_]*`, a number as written;
/// - comments: `///…` and `//…` to the end of the line;
/// - between tokens, `[ \t\r\n\x0C]+` is skipped; any other character is one
///   [`TokenKind::Error`] token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    /// A number as written; its value (and E0004) is the parser's business.
    Int,
    /// A `"…"` string; `false` when it ran into the end of its line unterminated.
    Str(bool),
    /// A `"""…"""` string; `false` when it ran into the end of the file unterminated.
    TripleStr(bool),
    /// `/// …`
    DocComment,
    /// `// …`
    LineComment,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Lt,
    Gt,
    Colon,
    Comma,
    Dot,
    DotDot,
    Eq,
    Arrow,
    /// `?` after an optional requirement's name.
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

/// The rest of a `"…"` string after its opening quote: how many bytes it takes (its
/// closing quote included), and whether it was closed before the end of its line.
fn scan_string(rest: &[u8]) -> (usize, bool) {
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
            b'"' => return (i + 1, true),
            b'\n' => return (i, false),
            _ => i += 1,
        }
    }
    (rest.len(), false)
}

/// The rest of a `"""…"""` string after its opening quotes: how many bytes it takes (its
/// closing quotes included), and whether it was closed before the end of the text.
fn scan_triple_string(rest: &[u8]) -> (usize, bool) {
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
            b'"' if rest[i..].starts_with(b"\"\"\"") => return (i + 3, true),
            _ => i += 1,
        }
    }
    (rest.len(), false)
}

/// Where the interpolation whose body starts at `start` (just after `${`) ends: the
/// index just after its closing `}`. Braces balance and strings inside it are skipped
/// whole (`${replace(x, "}", "")}`), their own interpolations included. `None` when the
/// text, or with `one_line` the line, ends first, or when strings and interpolations nest
/// deeper than [`crate::syntax::parser::MAX_NESTING`] (the parser refuses those anyway):
/// the caller then reads `${` as text. Iterative and bounded, so hostile nesting can
/// neither overflow the stack nor make lexing quadratic.
pub fn interp_end(text: &[u8], start: usize, one_line: bool) -> Option<usize> {
    enum Mode {
        Interp(u32),
        Str,
    }
    // Most bodies are a reference (`db.host`): bytes that change no state here, then the
    // closing brace. They are skipped at once; anything else goes on below from there.
    let mut i = start;
    while i < text.len() && plain_in_interp(text[i]) {
        i += 1;
    }
    if text.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    // Almost every interpolation nests no string: no allocation for those.
    let mut stack: smallvec::SmallVec<[Mode; 8]> = smallvec::smallvec![Mode::Interp(0)];
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

/// Whether byte `b` inside `${…}` changes nothing [`interp_end`] tracks: a letter, a
/// digit, `_`, `-`, `.` or a space (one load a byte, from [`PLAIN_IN_INTERP`]).
#[inline(always)]
fn plain_in_interp(b: u8) -> bool {
    PLAIN_IN_INTERP[b as usize]
}

static PLAIN_IN_INTERP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b' ');
        b += 1;
    }
    t
};

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

/// Which bytes may follow the first character of a name or a number: `[A-Za-z0-9_]`,
/// looked up in one table rather than by three comparisons per byte.
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// A character that may follow the first of a name or a number.
#[inline(always)]
fn is_word_byte(b: u8) -> bool {
    WORD[b as usize]
}

/// The end of the run of name characters that starts at `i`.
#[inline(always)]
fn word_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(&b) = bytes.get(i) {
        if !is_word_byte(b) {
            break;
        }
        i += 1;
    }
    i
}

/// Cuts `text` into tokens. Never fails.
pub fn lex(text: &str) -> Lexed {
    let bytes = text.as_bytes();
    let mut tokens = Vec::with_capacity(text.len() / 5);
    let mut comments = Vec::new();
    let mut i = 0usize;
    // Whether a line break lies between the last token or comment and the next.
    let mut newline = true;
    while i < bytes.len() {
        let start = i;
        let b = bytes[i];
        let kind = match b {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0C' => {
                newline |= b == b'\n';
                // Indentation is most of a file's whitespace: a run of spaces at once.
                i += 1;
                while bytes.get(i) == Some(&b' ') {
                    i += 1;
                }
                continue;
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                i += 1;
                loop {
                    i = word_end(bytes, i);
                    // A hyphen belongs to the name only when a name character follows.
                    if i + 1 < bytes.len() && bytes[i] == b'-' && is_word_byte(bytes[i + 1]) {
                        i += 2;
                    } else {
                        break;
                    }
                }
                TokenKind::Ident
            }
            b'0'..=b'9' => {
                i = word_end(bytes, i + 1);
                TokenKind::Int
            }
            b'-' => match bytes.get(i + 1) {
                Some(b'0'..=b'9') => {
                    i = word_end(bytes, i + 2);
                    TokenKind::Int
                }
                Some(b'>') => {
                    i += 2;
                    TokenKind::Arrow
                }
                _ => {
                    i += 1;
                    TokenKind::Error
                }
            },
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                let (len, closed) = scan_triple_string(&bytes[i + 3..]);
                i += 3 + len;
                TokenKind::TripleStr(closed)
            }
            b'"' => {
                let (len, closed) = scan_string(&bytes[i + 1..]);
                i += 1 + len;
                TokenKind::Str(closed)
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let doc = bytes.get(i + 2) == Some(&b'/');
                i = memchr_newline(bytes, i + 2);
                comments.push(Comment {
                    span: Span::new(start, i),
                    doc,
                });
                newline = false;
                continue;
            }
            b'.' if bytes.get(i + 1) == Some(&b'.') => {
                i += 2;
                TokenKind::DotDot
            }
            _ => {
                i += 1;
                match b {
                    b'{' => TokenKind::LBrace,
                    b'}' => TokenKind::RBrace,
                    b'[' => TokenKind::LBracket,
                    b']' => TokenKind::RBracket,
                    b'(' => TokenKind::LParen,
                    b')' => TokenKind::RParen,
                    b'<' => TokenKind::Lt,
                    b'>' => TokenKind::Gt,
                    b':' => TokenKind::Colon,
                    b',' => TokenKind::Comma,
                    b'.' => TokenKind::Dot,
                    b'=' => TokenKind::Eq,
                    b'?' => TokenKind::Question,
                    _ => {
                        // One character, whole: never a part of one.
                        while i < bytes.len() && !text.is_char_boundary(i) {
                            i += 1;
                        }
                        TokenKind::Error
                    }
                }
            }
        };
        tokens.push(Token {
            kind,
            span: Span::new(start, i),
            newline_before: newline,
        });
        newline = false;
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(text.len(), text.len()),
        newline_before: true,
    });
    Lexed { tokens, comments }
}

/// The index of the first `\n` at or after `from`, else the length of `bytes`.
fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |k| from + k)
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

    /// Each token with its text.
    fn pieces(text: &str) -> Vec<(TokenKind, &str)> {
        lex(text)
            .tokens
            .iter()
            .map(|t| (t.kind, &text[t.span.range()]))
            .collect()
    }

    /// A hyphen joins two runs of name characters and nothing else: at a name's end, twice
    /// in a row, or before a character that cannot continue a name it is a token of its
    /// own (an error), and the name ends before it.
    #[test]
    fn hyphens_inside_names_only() {
        use TokenKind::*;
        assert_eq!(
            pieces("_-_ a-1b"),
            vec![(Ident, "_-_"), (Ident, "a-1b"), (Eof, "")]
        );
        assert_eq!(
            pieces("a-- b- c-é"),
            vec![
                (Ident, "a"),
                (Error, "-"),
                (Error, "-"),
                (Ident, "b"),
                (Error, "-"),
                (Ident, "c"),
                (Error, "-"),
                (Error, "é"),
                (Eof, "")
            ]
        );
        // A number takes letters but no hyphen; `-` before a digit starts one.
        assert_eq!(
            pieces("0x- 1-a -7 -->"),
            vec![
                (Int, "0x"),
                (Error, "-"),
                (Int, "1"),
                (Error, "-"),
                (Ident, "a"),
                (Int, "-7"),
                (Error, "-"),
                (Arrow, "->"),
                (Eof, "")
            ]
        );
    }

    /// The longest token wins: `..` over `.`, `"""` over `"`, `///` over `//`.
    #[test]
    fn the_longest_token_wins() {
        use TokenKind::*;
        assert_eq!(
            pieces("... \"\" \"\"\"\"\"\""),
            vec![
                (DotDot, ".."),
                (Dot, "."),
                (Str(true), "\"\""),
                (TripleStr(true), "\"\"\"\"\"\""),
                (Eof, "")
            ]
        );
        let l = lex("//// four\n// two\n/// three");
        let docs: Vec<bool> = l.comments.iter().map(|c| c.doc).collect();
        assert_eq!(docs, vec![true, false, true]);
        assert_eq!(l.tokens.len(), 1);
    }

    /// An unknown character is one error token, never part of a character, and
    /// whitespace is space, tab, carriage return, line feed and form feed only.
    #[test]
    fn unknown_characters_are_whole_error_tokens() {
        use TokenKind::*;
        assert_eq!(
            pieces("€;\u{b}x\x0C\ry"),
            vec![
                (Error, "€"),
                (Error, ";"),
                (Error, "\u{b}"),
                (Ident, "x"),
                (Ident, "y"),
                (Eof, "")
            ]
        );
    }

    #[test]
    fn unknown_characters_are_error_tokens() {
        assert!(kinds("a ; b").contains(&TokenKind::Error));
    }
}
