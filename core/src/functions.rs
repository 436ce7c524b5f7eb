//! The language's functions (LANGUAGE.md §12.4): `url`, `json`, `yaml`, `lower`,
//! `upper` and `replace`. Each turns text into text in one exact way, written here and
//! in the manifest schema, because a node host applies them too: a sealed template keeps
//! its calls, and the host renders them once it has the secret values.

/// One of the language's functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    Url,
    Json,
    Yaml,
    Lower,
    Upper,
    Replace,
}

impl Func {
    /// Every function, in the order the documentation lists them.
    pub const ALL: &'static [Func] = &[
        Func::Url,
        Func::Json,
        Func::Yaml,
        Func::Lower,
        Func::Upper,
        Func::Replace,
    ];

    /// The function called `name`, if the language has one.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The name a call writes.
    pub fn name(self) -> &'static str {
        match self {
            Func::Url => "url",
            Func::Json => "json",
            Func::Yaml => "yaml",
            Func::Lower => "lower",
            Func::Upper => "upper",
            Func::Replace => "replace",
        }
    }

    /// How many arguments a call takes.
    pub fn arity(self) -> usize {
        match self {
            Func::Replace => 3,
            _ => 1,
        }
    }

    /// The call as documentation writes it: `replace(x, "from", "to")`.
    pub fn signature(self) -> &'static str {
        match self {
            Func::Url => "url(x)",
            Func::Json => "json(x)",
            Func::Yaml => "yaml(x)",
            Func::Lower => "lower(x)",
            Func::Upper => "upper(x)",
            Func::Replace => "replace(x, \"from\", \"to\")",
        }
    }

    /// What the function does, in one sentence (hover, completion, the schema).
    pub fn summary(self) -> &'static str {
        match self {
            Func::Url => {
                "percent-encodes every byte of the UTF-8 text except the RFC 3986 unreserved characters A-Z a-z 0-9 - . _ ~, as %XX with upper-case hex digits"
            }
            Func::Json => {
                "a JSON string literal, quotes included: \" and \\ escaped with a backslash, U+0008 U+000C U+000A U+000D U+0009 as \\b \\f \\n \\r \\t, every other character below U+0020 as \\u00XX (lower-case hex); everything else as is"
            }
            Func::Yaml => {
                "a YAML double-quoted scalar, quotes included: \" and \\ escaped with a backslash, U+000A U+0009 U+000D U+0000 as \\n \\t \\r \\0, U+0085 U+2028 U+2029 as \\N \\L \\P, U+FEFF as \\uFEFF, every other character below U+0020 or in U+007F..U+009F as \\xXX (upper-case hex); everything else as is"
            }
            Func::Lower => {
                "Unicode lower case (the full case mapping, as Rust's str::to_lowercase)"
            }
            Func::Upper => {
                "Unicode upper case (the full case mapping, as Rust's str::to_uppercase)"
            }
            Func::Replace => {
                "every occurrence of `from` replaced by `to`, scanning left to right without overlap; an empty `from` leaves the text as is"
            }
        }
    }

    /// Applies the function to its arguments' text, with the one implementation the
    /// node's renderer uses too ([`crate::base::template_functions`]), so a template rendered on
    /// the node gives the bytes a build would. `args` holds [`Func::arity`] values (a
    /// missing one reads as empty text).
    pub fn apply(self, args: &[String]) -> String {
        let mut texts: Vec<&str> = args.iter().map(String::as_str).collect();
        texts.resize(self.arity(), "");
        crate::base::template_functions::apply(self.name(), &texts[..self.arity()])
            .expect("every function of the language is the renderer's, with its arity")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: Func, args: &[&str]) -> String {
        f.apply(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn url_keeps_only_unreserved_characters() {
        assert_eq!(call(Func::Url, &["aZ09-._~"]), "aZ09-._~");
        assert_eq!(
            call(Func::Url, &["p@ss w/rd:é"]),
            "p%40ss%20w%2Frd%3A%C3%A9"
        );
        assert_eq!(call(Func::Url, &["+%"]), "%2B%25");
    }

    #[test]
    fn json_is_a_string_literal_serde_reads_back() {
        for s in [
            "plain",
            "quote \" back \\ nl \n tab \t",
            "\u{1}\u{1f}\u{7f}é",
            "",
        ] {
            let lit = call(Func::Json, &[s]);
            let back: String = serde_json::from_str(&lit).unwrap();
            assert_eq!(back, s);
        }
        assert_eq!(call(Func::Json, &["a\"b\u{1}"]), "\"a\\\"b\\u0001\"");
    }

    #[test]
    fn yaml_escapes_what_a_double_quoted_scalar_needs() {
        assert_eq!(call(Func::Yaml, &["a: b # c"]), "\"a: b # c\"");
        assert_eq!(
            call(Func::Yaml, &["\"\\\n\t\u{1}\u{7f}\u{2028}"]),
            "\"\\\"\\\\\\n\\t\\x01\\x7F\\L\""
        );
    }

    #[test]
    fn case_and_replace() {
        assert_eq!(call(Func::Lower, &["AbC-É"]), "abc-é");
        assert_eq!(call(Func::Upper, &["abc-é"]), "ABC-É");
        assert_eq!(call(Func::Replace, &["a-b-c", "-", "_"]), "a_b_c");
        assert_eq!(call(Func::Replace, &["aaa", "aa", "b"]), "ba");
        assert_eq!(call(Func::Replace, &["abc", "", "x"]), "abc");
    }

    #[test]
    fn names_and_arity_are_the_renderers() {
        let renderer: Vec<(&str, usize)> = crate::base::template_functions::FUNCTIONS.to_vec();
        let ours: Vec<(&str, usize)> = Func::ALL.iter().map(|f| (f.name(), f.arity())).collect();
        assert_eq!(ours, renderer);
        for f in Func::ALL {
            assert_eq!(Func::from_name(f.name()), Some(*f));
            assert!(f.signature().starts_with(f.name()));
        }
        assert_eq!(Func::from_name("urlencode"), None);
    }
}
