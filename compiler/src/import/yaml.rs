//! A Compose file read into a small tree with line numbers, through yaml-rust2's event
//! parser. Anchors, aliases and merge keys (`<<`) are refused, each with its line: an
//! imported definition should say every value where it is used, and a merge key is not
//! part of YAML 1.2, so two readers could disagree on what it means. Duplicate keys are
//! refused too. Every problem found is reported, not only the first.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A value of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Yaml {
    /// `null`, `~` or nothing.
    Null,
    /// Any scalar, as its text (numbers and booleans too, as written).
    Scalar(String),
    Seq(Vec<Node>),
    /// A mapping, in source order, keys unique.
    Map(Vec<(String, Node)>),
}

/// A value and the line (1-based) it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub value: Yaml,
    pub line: usize,
    /// Whether interpolation read a variable whose name says it holds a secret.
    pub secret_hint: bool,
}

impl Node {
    /// The entries of a mapping; `None` for anything else.
    pub fn as_map(&self) -> Option<&[(String, Node)]> {
        match &self.value {
            Yaml::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The text of a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Yaml::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the value is `null` (or absent in the source).
    pub fn is_null(&self) -> bool {
        matches!(self.value, Yaml::Null)
    }
}

/// A problem of the YAML itself, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlProblem {
    pub line: usize,
    pub message: String,
}

enum Frame {
    Seq(Vec<Node>, usize),
    Map {
        entries: Vec<(String, Node)>,
        /// The keys of `entries`, so a key written twice is found in constant time: a
        /// scan of the entries made a mapping of N keys cost N² (80,000 keys: minutes).
        keys: std::collections::HashSet<String>,
        key: Option<(String, usize)>,
        line: usize,
    },
}

struct Builder<'t> {
    stack: Vec<Frame>,
    root: Option<Node>,
    documents: usize,
    problems: Vec<YamlProblem>,
    lines: Lines<'t>,
}

/// Lines as the user's editor counts them: a line ends at `\n` (and `\r\n`), never at a
/// lone `\r`, which the YAML scanner counts as a break of its own. A problem is told at
/// the line of its place in the text, read from the scanner's character index, so that it
/// never names a line the file does not have (a lone `\r` before the end made the
/// scanner's line one past the last).
struct Lines<'t> {
    text: &'t str,
    /// Characters and bytes read so far, and the line the next character is on.
    chars: usize,
    bytes: usize,
    line: usize,
    /// The file's last line: where a problem at the very end is told.
    last: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        Lines {
            text,
            chars: 0,
            bytes: 0,
            line: 1,
            last: text.lines().count().max(1),
        }
    }

    /// The line of character `index` (the scanner's `Marker::index`, which counts
    /// characters). Events come in order, so the text is read once; a place before the
    /// last one asked reads from the start again.
    fn at(&mut self, index: usize) -> usize {
        if index < self.chars {
            (self.chars, self.bytes, self.line) = (0, 0, 1);
        }
        let mut rest = self.text[self.bytes..].chars();
        while self.chars < index {
            let Some(c) = rest.next() else { break };
            self.chars += 1;
            self.bytes += c.len_utf8();
            self.line += usize::from(c == '\n');
        }
        self.line.min(self.last)
    }
}

impl Builder<'_> {
    fn problem(&mut self, line: usize, message: impl Into<String>) {
        self.problems.push(YamlProblem {
            line,
            message: message.into(),
        });
    }

    fn anchor(&mut self, id: usize, line: usize) {
        // A block value's anchor stands on its key's line.
        let line = match self.stack.last() {
            Some(Frame::Map {
                key: Some((_, key_line)),
                ..
            }) => *key_line,
            _ => line,
        };
        if id > 0 {
            self.problem(
                line,
                "an anchor (`&name`) is not read: write the value out where each service uses it",
            );
        }
    }

    fn finish(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq(items, _)) => items.push(node),
            Some(Frame::Map {
                entries, keys, key, ..
            }) => match key.take() {
                Some((k, line)) => {
                    if !keys.insert(k.clone()) {
                        self.problems.push(YamlProblem {
                            line,
                            message: format!("the key `{k}` is written twice"),
                        });
                    } else {
                        entries.push((k, node));
                    }
                }
                None => match node.value {
                    Yaml::Scalar(k) => {
                        if k == "<<" {
                            self.problems.push(YamlProblem {
                                line: node.line,
                                message: "a merge key (`<<`) is not read: write the merged keys out in each service".into(),
                            });
                        }
                        *key = Some((k, node.line));
                    }
                    Yaml::Null => *key = Some((String::new(), node.line)),
                    _ => {
                        self.problems.push(YamlProblem {
                            line: node.line,
                            message: "a mapping key must be a plain value".into(),
                        });
                        *key = Some((String::new(), node.line));
                    }
                },
            },
        }
    }
}

impl MarkedEventReceiver for Builder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = self.lines.at(mark.index());
        match ev {
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents == 2 {
                    self.problem(
                        line,
                        "a second YAML document: a Compose file is one document",
                    );
                }
            }
            Event::Alias(_) => {
                self.problem(
                    line,
                    "an alias (`*name`) is not read: write the value out where each service uses it",
                );
                self.finish(Node {
                    value: Yaml::Null,
                    line,
                    secret_hint: false,
                });
            }
            Event::Scalar(text, style, anchor, _tag) => {
                self.anchor(anchor, line);
                let value = if style == TScalarStyle::Plain
                    && matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL")
                {
                    Yaml::Null
                } else {
                    Yaml::Scalar(text)
                };
                self.finish(Node {
                    value,
                    line,
                    secret_hint: false,
                });
            }
            Event::SequenceStart(anchor, _) => {
                self.anchor(anchor, line);
                self.stack.push(Frame::Seq(Vec::new(), line));
            }
            Event::MappingStart(anchor, _) => {
                self.anchor(anchor, line);
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    keys: std::collections::HashSet::new(),
                    key: None,
                    line,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let node = match self.stack.pop() {
                    Some(Frame::Seq(items, line)) => Node {
                        value: Yaml::Seq(items),
                        line,
                        secret_hint: false,
                    },
                    Some(Frame::Map { entries, line, .. }) => Node {
                        value: Yaml::Map(entries),
                        line,
                        secret_hint: false,
                    },
                    None => return,
                };
                self.finish(node);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
    }
}

/// Reads `text` as one YAML document. Every problem found is returned, each with its line.
pub fn parse(text: &str) -> Result<Node, Vec<YamlProblem>> {
    let mut builder = Builder {
        stack: Vec::new(),
        root: None,
        documents: 0,
        problems: Vec::new(),
        lines: Lines::new(text),
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, true) {
        builder.problems.push(YamlProblem {
            line: builder.lines.at(e.marker().index()),
            message: format!("not YAML: {}", e.info()),
        });
        return Err(builder.problems);
    }
    if !builder.problems.is_empty() {
        return Err(builder.problems);
    }
    match builder.root {
        Some(root) if !root.is_null() => Ok(root),
        _ => Err(vec![YamlProblem {
            line: 1,
            message: "the file holds no YAML document".into(),
        }]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_maps_sequences_and_lines() {
        let root = parse("services:\n  web:\n    image: nginx:1.27\n    ports:\n      - 8080:80\n")
            .unwrap();
        let web = root.get("services").unwrap().get("web").unwrap();
        assert_eq!(web.get("image").unwrap().as_str(), Some("nginx:1.27"));
        assert_eq!(web.get("image").unwrap().line, 3);
        let Yaml::Seq(ports) = &web.get("ports").unwrap().value else {
            panic!("ports is a sequence")
        };
        assert_eq!(ports[0].as_str(), Some("8080:80"));
    }

    #[test]
    fn refuses_anchors_aliases_and_merge_keys_with_their_lines() {
        let text = "x-base: &base\n  restart: always\nservices:\n  web:\n    <<: *base\n    image: nginx:1.27\n";
        let problems = parse(text).unwrap_err();
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert!(
            problems.iter().any(|p| p.message.contains("anchor")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.message.contains("merge key")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.message.contains("alias")),
            "{problems:?}"
        );
        assert!(lines.contains(&1) && lines.contains(&5), "{lines:?}");
    }

    #[test]
    fn refuses_text_that_is_not_yaml_and_duplicate_keys() {
        let e = parse("services: [web\n").unwrap_err();
        assert!(e[0].message.starts_with("not YAML"), "{e:?}");
        let e = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(e[0].line, 2);
        assert!(e[0].message.contains("`a` is written twice"));
        assert!(parse("# nothing\n").is_err());
    }

    /// A lone carriage return is a line break to the YAML scanner but not to an editor:
    /// the scanner's own line for a problem after it named a line past the file's last
    /// (found by `import_properties`: line 6 of a file of 4).
    #[test]
    fn a_problem_after_a_lone_carriage_return_is_told_at_a_line_the_file_has() {
        let text = "services:\n  app:\n    image: nginx:1.27\n\r\u{e}";
        let e = parse(text).unwrap_err();
        assert!(e[0].message.starts_with("not YAML"), "{e:?}");
        assert_eq!(e[0].line, 4, "{e:?}");
        // Characters of several bytes before the place are counted as one each.
        let e = parse("é: 1\nñ: 2\né: 3\n").unwrap_err();
        assert_eq!(e[0].line, 3, "{e:?}");
        let e = parse("a: «x»\nb: [y\n").unwrap_err();
        assert!(e[0].line <= 2, "{e:?}");
    }
}
