//! Triple-quoted strings, moved to a new indentation without changing their value.
//!
//! A `"""` string loses the newline right after its opening quotes and, on every line, the
//! indentation of its closing `"""` line (a line that does not start with that indentation
//! loses all its leading spaces and tabs instead). So the text a line contributes to the
//! value is the line with that prefix cut. Writing each such line back behind the new
//! indentation `N`, and the closing quotes behind `N` too, gives the same value: the
//! decoder cuts `N` again. A line that contributes nothing but its line break is written
//! empty (no trailing spaces), which the decoder also reads as a bare line break.
//!
//! A string without a closing line of its own (`"""a"""`, or text right before the closing
//! quotes) has no indentation removed, so every character of it is part of the value: it
//! is printed exactly as written.

/// The literal `raw` (quotes included) as printed when its line is indented by `indent`
/// spaces: the body one step (two spaces) deeper than the line, the closing quotes too.
pub(crate) fn triple(raw: &str, indent: usize) -> String {
    let Some(body) = raw
        .strip_prefix("\"\"\"")
        .and_then(|r| r.strip_suffix("\"\"\""))
    else {
        return raw.to_string();
    };
    let body = body
        .strip_prefix("\r\n")
        .or_else(|| body.strip_prefix('\n'))
        .unwrap_or(body);
    let Some(nl) = body.rfind('\n') else {
        return raw.to_string();
    };
    let closing = &body[nl + 1..];
    if !closing.chars().all(|c| c == ' ' || c == '\t') {
        return raw.to_string();
    }
    let content = &body[..nl + 1];
    let pad = " ".repeat(indent + 2);
    let mut out = String::from("\"\"\"\n");
    for line in content.split_inclusive('\n') {
        let kept = match line.strip_prefix(closing) {
            Some(rest) => rest,
            None => line.trim_start_matches([' ', '\t']),
        };
        if kept != "\n" {
            out.push_str(&pad);
        }
        out.push_str(kept);
    }
    out.push_str(&pad);
    out.push_str("\"\"\"");
    out
}

#[cfg(test)]
mod tests {
    use super::triple;

    #[test]
    fn moves_the_body_and_the_closing_line() {
        let raw = "\"\"\"\n        [a]\n          b = 1\n\n        \"\"\"";
        assert_eq!(triple(raw, 2), "\"\"\"\n    [a]\n      b = 1\n\n    \"\"\"");
    }

    #[test]
    fn keeps_a_string_without_a_closing_line() {
        for raw in ["\"\"\"a\"\"\"", "\"\"\"\n  a\n  b\"\"\""] {
            assert_eq!(triple(raw, 4), raw);
        }
    }

    #[test]
    fn a_shallower_line_keeps_what_the_decoder_keeps() {
        // `  x` does not start with the closing indentation, so it loses all of its spaces.
        let raw = "\"\"\"\n  x\n      y\n    \"\"\"";
        assert_eq!(triple(raw, 0), "\"\"\"\n  x\n    y\n  \"\"\"");
    }
}
