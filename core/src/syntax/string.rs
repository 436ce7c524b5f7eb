//! Decoding string literals: escapes, `${…}` interpolation, and the indentation of
//! triple-quoted strings. Runs in linear time on any input (no recursion).

use super::ast::{Expr, Ident, Interp, Name, RefPart, Reference, StrPart, StringLit};
use super::lexer::interp_end;
use super::parser::parse_embedded;
use crate::diagnostics::rules::{BadEscape, InvalidLiteral, SyntaxError, Unclosed, UnclosedString};
use crate::diagnostics::{Code, Diagnostic, Rule};
use crate::span::{FilePath, Span};
use smallvec::SmallVec;

/// A literal's parts while it is decoded.
type Parts = Vec<StrPart>;

/// The most bytes each scratch buffer ([`SCRATCH`]) keeps from one literal to the next.
const KEPT_SCRATCH: usize = 64 * 1024;

thread_local! {
    /// The parts and the decoded text of the literal this thread decodes, kept from one
    /// literal to the next: a literal of many interpolations (a dense workspace's env
    /// values hold up to ten) grew a fresh list twice, then copied it into the tree, and
    /// every literal took a fresh text buffer. Taken out while a literal is decoded, so a
    /// literal inside an interpolation (`${replace(x, "a", "b")}`) decodes into buffers
    /// of its own.
    static SCRATCH: std::cell::Cell<(Parts, String)> =
        const { std::cell::Cell::new((Vec::new(), String::new())) };
}

/// The legacy placeholder kinds of `${kind:…}` (old forms, W0402).
pub const LEGACY_KINDS: &[&str] = &["binding", "setting", "port", "machine", "secret"];

/// Decodes the literal at `span` of `text` (quotes included); `references` counts the
/// references of the item so far, each made here taking the next id.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decode(
    text: &str,
    span: Span,
    triple: bool,
    terminated: bool,
    file: &FilePath,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
    references: &mut u32,
) -> StringLit {
    let quote = if triple { 3 } else { 1 };
    let start = span.start as usize + quote;
    let end = if terminated {
        span.end as usize - quote
    } else {
        span.end as usize
    };
    let end = end.max(start);
    // Most literals are plain text on one line: their one part is the text as written,
    // with no buffer to decode into.
    if terminated && !triple && text.as_bytes()[start..end].iter().all(|&b| plain_byte(b)) {
        return StringLit {
            parts: Box::new([StrPart::Text(text[start..end].into())]),
            triple,
            closed: terminated,
            span,
        };
    }
    let (mut parts, mut buf) = SCRATCH.take();
    parts.clear();
    buf.clear();
    // The decoded text is never longer than the literal: never grown while decoding.
    buf.reserve(end - start);
    if !terminated {
        diags.push(UnclosedString { triple }.at(file, Span::new(span.start as usize, start)));
    }
    let before = diags.len();
    if triple && terminated {
        decode_triple(
            text, start, end, file, depth, diags, &mut parts, &mut buf, references,
        );
    } else {
        decode_segment(
            text, start, end, file, depth, diags, &mut parts, &mut buf, references,
        );
    }
    // One literal is refused once for what it holds (E0314), at its first such character.
    let mut held = false;
    let mut k = 0;
    diags.retain(|d| {
        let keep = k < before || d.code != Code::E0314 || !std::mem::replace(&mut held, true);
        k += 1;
        keep
    });
    if !buf.is_empty() || parts.is_empty() {
        parts.push(StrPart::Text(buf.as_str().into()));
    }
    // One allocation of the exact size; the buffers go back for the next literal.
    let mut exact = Vec::with_capacity(parts.len());
    exact.append(&mut parts);
    let exact = exact.into_boxed_slice();
    // A huge literal's buffers are not kept for the next.
    if buf.capacity() <= KEPT_SCRATCH
        && parts.capacity() * std::mem::size_of::<StrPart>() <= KEPT_SCRATCH
    {
        SCRATCH.set((parts, buf));
    }
    StringLit {
        parts: exact,
        triple,
        closed: terminated,
        span,
    }
}

/// Removes the first newline and the closing line's indentation from every line.
#[allow(clippy::too_many_arguments)]
fn decode_triple(
    text: &str,
    mut start: usize,
    end: usize,
    file: &FilePath,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
    parts: &mut Parts,
    buf: &mut String,
    references: &mut u32,
) {
    let body = &text[start..end];
    if body.starts_with("\r\n") {
        start += 2;
    } else if body.starts_with('\n') {
        start += 1;
    }
    let body = &text[start..end];
    // The closing line: whitespace after the last newline, when nothing else is there.
    let (indent, content_end) = match body.rfind('\n') {
        Some(nl) if body[nl + 1..].chars().all(|c| c == ' ' || c == '\t') => {
            (&body[nl + 1..], start + nl + 1)
        }
        _ => ("", end),
    };
    let mut line_start = start;
    while line_start < content_end {
        let line_end = text[line_start..content_end]
            .find('\n')
            .map(|i| line_start + i + 1)
            .unwrap_or(content_end);
        let line = &text[line_start..line_end];
        let strip = if line.starts_with(indent) {
            indent.len()
        } else {
            line.len() - line.trim_start_matches([' ', '\t']).len()
        };
        decode_segment(
            text,
            line_start + strip,
            line_end,
            file,
            depth,
            diags,
            parts,
            buf,
            references,
        );
        line_start = line_end;
    }
}

#[allow(clippy::too_many_arguments)]
fn decode_segment(
    text: &str,
    start: usize,
    end: usize,
    file: &FilePath,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
    parts: &mut Parts,
    buf: &mut String,
    references: &mut u32,
) {
    let seg = &text[start..end];
    let bytes = seg.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A run of printable ASCII other than `\` and `$` (most of a literal) is copied
        // whole; every other character is looked at one by one.
        let run = bytes[i..]
            .iter()
            .position(|&b| !plain_byte(b))
            .map_or(bytes.len(), |k| i + k);
        if run > i {
            buf.push_str(&seg[i..run]);
            i = run;
            if i == bytes.len() {
                break;
            }
        }
        let Some(c) = seg[i..].chars().next() else {
            break;
        };
        match c {
            '\\' => {
                let after = i + 1;
                match seg[after..].chars().next() {
                    Some(escaped @ ('"' | '\\' | 'n' | 't' | '$')) => {
                        buf.push(match escaped {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        i = after + 1;
                    }
                    Some(other) => {
                        let sp = Span::new(start + i, start + after + other.len_utf8());
                        diags.push(BadEscape::Unknown { escaped: other }.at(file, sp));
                        buf.push(other);
                        i = after + other.len_utf8();
                    }
                    None => {
                        let sp = Span::new(start + i, start + i + 1);
                        diags.push(BadEscape::Lone.at(file, sp));
                        i = after;
                    }
                }
            }
            '$' if bytes.get(i + 1) == Some(&b'{') => {
                let open = start + i;
                let inner_start = open + 2;
                // The common case, `${req.field}`, read without the general parse (the
                // same tree and the same refusals as that parse gives it).
                if let Some((reference, close)) =
                    plain_reference(text, inner_start, end, references)
                {
                    if !buf.is_empty() {
                        parts.push(StrPart::Text(buf.as_str().into()));
                        buf.clear();
                    }
                    parts.push(StrPart::Ref(RefPart::new(reference)));
                    i = close + 1 - start;
                    continue;
                }
                match interp_end(&text.as_bytes()[..end], inner_start, true)
                    .map(|e| e - 1 - inner_start)
                {
                    None => {
                        diags.push(Unclosed::Interpolation.at(file, Span::new(open, inner_start)));
                        buf.push_str(&text[open..end]);
                        return;
                    }
                    Some(rel) => {
                        let inner_end = inner_start + rel;
                        let whole = Span::new(open, inner_end + 1);
                        match parse_interp(
                            text,
                            inner_start,
                            inner_end,
                            whole,
                            file,
                            depth,
                            diags,
                            references,
                        ) {
                            Ok(interp) => {
                                if !buf.is_empty() {
                                    parts.push(StrPart::Text(buf.as_str().into()));
                                    buf.clear();
                                }
                                parts.push(StrPart::Interp(Box::new(interp)));
                            }
                            Err(Reported::Yes) => {}
                            Err(Reported::No) => {
                                diags.push(SyntaxError::InterpolationNotReference.at(file, whole))
                            }
                        }
                        // On after the interpolation's closing brace.
                        i = inner_end + 1 - start;
                    }
                }
            }
            _ => {
                if let Some(what) = invisible_char(c) {
                    let sp = Span::new(start + i, start + i + c.len_utf8());
                    let rule = InvalidLiteral::InvisibleChar {
                        code_point: c as u32,
                        what,
                    };
                    diags.push(rule.at(file, sp));
                }
                buf.push(c);
                i += c.len_utf8();
            }
        }
    }
}

/// Whether byte `b` stands for itself in a literal and is always allowed there: printable
/// ASCII, tab, line feed or carriage return, other than `\` and `$`.
#[inline(always)]
fn plain_byte(b: u8) -> bool {
    PLAIN[b as usize]
}

/// What `c` is when a literal may not hold it: a control character other than tab, line
/// feed and carriage return (U+0000–U+001F, U+007F, U+0080–U+009F), or a bidirectional
/// formatting character (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which
/// reorders the text a reader sees ("Trojan Source").
pub fn invisible_char(c: char) -> Option<&'static str> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' => Some("a control character"),
        '\u{202A}'..='\u{202E}' => Some("a bidirectional embedding or override"),
        '\u{2066}'..='\u{2069}' => Some("a bidirectional isolate"),
        '\u{200E}' | '\u{200F}' | '\u{061C}' => Some("a bidirectional mark"),
        _ => None,
    }
}

/// Whether a broken interpolation was already reported.
enum Reported {
    Yes,
    No,
}

/// The body of `${…}`: a legacy `kind:req.field`, or any expression (LANGUAGE.md §12.3:
/// a reference, a call, …), parsed by the parser itself.
#[allow(clippy::too_many_arguments)]
fn parse_interp(
    text: &str,
    start: usize,
    end: usize,
    whole: Span,
    file: &FilePath,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
    references: &mut u32,
) -> Result<Interp, Reported> {
    let raw = &text[start..end];
    let lead = raw.len() - raw.trim_start().len();
    let mut pos = start + lead;
    // `${ }` holds only blanks: the body is empty, not negative.
    let body_end = (start + raw.trim_end().len()).max(pos);
    let body = &text[pos..body_end];
    let legacy_colon = body
        .find(':')
        .filter(|&colon| is_ident(&body[..colon]) && !body[colon + 1..].starts_with(':'));
    let Some(colon) = legacy_colon else {
        // A loop (`${for n in names "…"}`) goes to the parser even half-written, so
        // `${for n in names}` is told what is missing rather than "expected a reference".
        let is_loop = body.split([' ', '\t']).next() == Some("for");
        if body.is_empty() || (!is_loop && !body.contains(['(', '"', '['])) {
            // The common case, and the message it has always had when broken.
            let Some(reference) = dotted_reference(text, pos, body_end, references) else {
                return Err(Reported::No);
            };
            return Ok(Interp {
                legacy: None,
                expr: Expr::Ref(reference),
                span: whole,
            });
        }
        return match parse_embedded(text, pos, body_end, file, depth + 1, diags, references) {
            Some(expr) => Ok(Interp {
                legacy: None,
                expr,
                span: whole,
            }),
            None => Err(Reported::Yes),
        };
    };
    let kind = &body[..colon];
    let legacy = Some(Ident {
        name: Name::from(kind),
        span: Span::new(pos, pos + colon),
    });
    pos += colon + 1;
    let reference = dotted_reference(text, pos, body_end, references).ok_or(Reported::No)?;
    Ok(Interp {
        legacy,
        expr: Expr::Ref(reference),
        span: whole,
    })
}

/// `${req.field}` whose body starts at `start`: identifiers joined by dots and the
/// closing brace at once, before `end`. With the reference, where its brace is. Any
/// other body (spaces, a call, a legacy `kind:`, the word `for`, a name that is no
/// identifier) is `None`, for [`parse_interp`] to read and judge.
fn plain_reference(
    text: &str,
    start: usize,
    end: usize,
    references: &mut u32,
) -> Option<(Reference, usize)> {
    let bytes = &text.as_bytes()[..end];
    // One scan finds the closing brace and the dots and holds each segment to an
    // identifier's rule ([`is_ident`]: a letter or `_` first, no `--`, no `-` last), so
    // the reference's segments are one allocation of the exact size and no byte of the
    // reference is read twice.
    let mut close = start;
    // Where each dot is, found by the same scan (most references have one or two).
    let mut dots = SmallVec::<[usize; 4]>::new();
    let class = |at: usize| bytes.get(at).map_or(OTHER, |&b| REFERENCE_BYTE[b as usize]);
    'segments: loop {
        // A segment's first byte: a letter or `_`.
        if class(close) != LEAD {
            return None;
        }
        close += 1;
        // The rest of it, a byte at a time with nothing to remember: letters, digits and
        // `_`, and a `-` only when one of those follows it.
        loop {
            match class(close) {
                LEAD | DIGIT => close += 1,
                HYPHEN if matches!(class(close + 1), LEAD | DIGIT) => close += 2,
                DOT => {
                    dots.push(close);
                    close += 1;
                    continue 'segments;
                }
                OTHER => break 'segments,
                // A `-` last, or before `-` or `.`: the general parse reads and judges it.
                _ => return None,
            }
        }
    }
    if bytes.get(close) != Some(&b'}') || &bytes[start..close] == b"for" {
        return None;
    }
    let mut segments = Vec::with_capacity(dots.len() + 1);
    let mut from = start;
    for to in dots.into_iter().chain(std::iter::once(close)) {
        segments.push(Ident {
            name: Name::from(&text[from..to]),
            span: Span::new(from, to),
        });
        from = to + 1;
    }
    let id = *references;
    *references = references.saturating_add(1);
    let reference = Reference {
        segments: segments.into_boxed_slice(),
        id,
    };
    Some((reference, close))
}

/// What a byte is in a plain `${req.field}` ([`plain_reference`]): a letter or `_` (which
/// may start a segment), a digit, `-`, `.`, or anything else (which ends the scan).
const LEAD: u8 = 0;
const DIGIT: u8 = 1;
const HYPHEN: u8 = 2;
const DOT: u8 = 3;
const OTHER: u8 = 4;

static REFERENCE_BYTE: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphabetic() || c == b'_' {
            LEAD
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c == b'-' {
            HYPHEN
        } else if c == b'.' {
            DOT
        } else {
            OTHER
        };
        b += 1;
    }
    t
};

/// Which bytes stand for themselves in a literal: [`plain_byte`] as a table, one load a
/// byte where the literal's text is scanned.
static PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = matches!(c, b' '..=b'~' | b'\t' | b'\n' | b'\r') && c != b'\\' && c != b'$';
        b += 1;
    }
    t
};

/// `req.field` written at `text[pos..body_end]`, taking the next id of `references`
/// when it is one.
fn dotted_reference(
    text: &str,
    pos: usize,
    body_end: usize,
    references: &mut u32,
) -> Option<Reference> {
    let mut segments = SmallVec::<[Ident; 4]>::new();
    // The dots found by a scan of the bytes, with no `str::split` set up for each
    // reference (320,000 of them in `meshc-bench --shape dense`).
    let bytes = &text.as_bytes()[..body_end];
    let mut start = pos;
    loop {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'.')
            .map_or(body_end, |k| start + k);
        let piece = &text[start..end];
        if !is_ident(piece) {
            return None;
        }
        segments.push(Ident {
            name: Name::from(piece),
            span: Span::new(start, end),
        });
        if end == body_end {
            break;
        }
        start = end + 1;
    }
    let id = *references;
    *references = references.saturating_add(1);
    Some(Reference {
        segments: super::parser::exact(segments),
        id,
    })
}

/// Whether `s` is an identifier of the language.
pub fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return false;
    }
    let mut prev_hyphen = false;
    for &c in &b[1..] {
        if c == b'-' {
            if prev_hyphen {
                return false;
            }
            prev_hyphen = true;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            prev_hyphen = false;
        } else {
            return false;
        }
    }
    !prev_hyphen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`plain_reference`] as it was written before its one scan: the bytes a reference
    /// is written with up to the brace, then each segment held to [`is_ident`].
    fn by_rule(text: &str, start: usize, end: usize) -> Option<(Vec<(String, Span)>, usize)> {
        let bytes = &text.as_bytes()[..end];
        let in_reference = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.';
        let mut close = start;
        while bytes.get(close).is_some_and(|&b| in_reference(b)) {
            close += 1;
        }
        if bytes.get(close) != Some(&b'}') || &bytes[start..close] == b"for" {
            return None;
        }
        let mut segments = Vec::new();
        let mut from = start;
        for piece in text[start..close].split('.') {
            if !is_ident(piece) {
                return None;
            }
            segments.push((piece.to_string(), Span::new(from, from + piece.len())));
            from += piece.len() + 1;
        }
        Some((segments, close))
    }

    /// Every body of up to five characters (and the brace or not) is read by the one
    /// scan as the rule reads it: the same segments, spans and brace, or none.
    #[test]
    fn a_plain_reference_is_read_as_its_rule_reads_it() {
        let alphabet = ['a', 'Z', '_', '7', '-', '.', '}', ' ', 'é'];
        let mut bodies = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..5 {
            let next: Vec<String> = last
                .iter()
                .flat_map(|b| alphabet.iter().map(move |c| format!("{b}{c}")))
                .collect();
            bodies.extend(next.iter().cloned());
            last = next;
        }
        bodies.extend(["for".to_string(), "form.x".to_string(), "a.for".to_string()]);
        let mut read = 0;
        for body in &bodies {
            for tail in ["", "}", "}x"] {
                let text = format!("\"${{{body}{tail}\"");
                let (start, end) = (3, text.len() - 1);
                let mut references = 7;
                let got = plain_reference(&text, start, end, &mut references).map(|(r, close)| {
                    let segments: Vec<(String, Span)> = r
                        .segments
                        .iter()
                        .map(|s| (s.name.to_string(), s.span))
                        .collect();
                    assert_eq!(r.id, 7);
                    (segments, close)
                });
                let want = by_rule(&text, start, end);
                assert_eq!(got, want, "{text:?}");
                assert_eq!(references, 7 + u32::from(want.is_some()), "{text:?}");
                read += usize::from(want.is_some());
            }
        }
        assert!(read > 1000, "{read} read");
    }

    /// A literal's parts as text: each text piece as written, each interpolation as
    /// `{…}` around what it reads (a call's arguments in turn, a literal among them by its
    /// own parts).
    fn shape(s: &StringLit) -> String {
        fn expr(e: &Expr) -> String {
            match e {
                Expr::Ref(r) => r.dotted(),
                Expr::Str(s) => format!("[{}]", shape(s)),
                Expr::Call(c) => {
                    let args: Vec<String> = c.args.iter().map(expr).collect();
                    format!("{}({})", c.name.name, args.join(","))
                }
                other => format!("{other:?}"),
            }
        }
        s.parts
            .iter()
            .map(|p| match p {
                StrPart::Text(t) => format!("'{t}'"),
                StrPart::Ref(r) => format!("{{{}}}", expr(r.expr())),
                StrPart::Interp(i) => format!("{{{}}}", expr(&i.expr)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Decodes the literal that is all of `text`.
    fn decoded(text: &str) -> (String, Vec<Diagnostic>) {
        let (mut diags, mut references) = (Vec::new(), 0);
        let file = FilePath::from("t.mesh");
        let lit = decode(
            text,
            Span::new(0, text.len()),
            false,
            true,
            &file,
            0,
            &mut diags,
            &mut references,
        );
        (shape(&lit), diags)
    }

    /// The buffers a literal is decoded into are kept from one literal to the next, and a
    /// literal inside an interpolation decodes into buffers of its own: one literal of many
    /// parts holding literals of their own, decoded twice and between others, is the same
    /// tree each time, and nothing of one literal is left in the next.
    #[test]
    fn a_literal_within_an_interpolation_decodes_apart_from_the_one_around_it() {
        let outer = r#""a${replace(x.y, "p${q.r}s\n", "t")}b${c.d}e${f.g}h${i.j}k\$""#;
        let want = "'a' {replace(x.y,['p' {q.r} 's\n'],['t'])} 'b' {c.d} 'e' {f.g} 'h' {i.j} 'k$'";
        assert_eq!(decoded(outer), (want.to_string(), Vec::new()));
        assert_eq!(decoded(r#""plain""#).0, "'plain'");
        assert_eq!(decoded(r#""""#).0, "''");
        assert_eq!(decoded(r#""${m.n}""#).0, "{m.n}");
        assert_eq!(decoded(outer), (want.to_string(), Vec::new()));
        assert_eq!(decoded(r#""tab\t${m.n}""#).0, "'tab\t' {m.n}");
    }
}
