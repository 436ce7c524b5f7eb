//! The checker's rules of a mesh's second day (LANGUAGE.md §14.1, §14.2, §14.7):
//! `health`, jobs, `after` and `sep`. One type per code, as everywhere; a code shared
//! with older rules (E0102, E0104, E0301, E0314) gets a type of its own here, as E0302
//! has two.

use super::Rule;
use crate::diagnostics::{Code, Label};
use crate::span::{FilePath, Span};

/// E0327: an entry a job cannot hold (`publish` or `health`).
pub struct InJob<'a> {
    /// The entry's keyword.
    pub entry: &'a str,
    pub job: &'a str,
}

impl Rule for InJob<'_> {
    fn code(&self) -> Code {
        Code::E0327
    }

    fn message(&self) -> String {
        format!(
            "job `{}` holds `{}`: a job runs to completion and holds neither `publish` nor `health`",
            self.job, self.entry
        )
    }

    fn help(&self) -> Option<String> {
        Some(match self.entry {
            "publish" => format!(
                "a job serves nothing: publish the port from a container of the module, or write `container {}` if it serves",
                self.job
            ),
            _ => format!(
                "a job is ready once it has completed successfully, so it needs no health test: remove `health`, or write `container {}` if it keeps running",
                self.job
            ),
        })
    }
}

/// E0328: `after` naming the container it stands in, or closing a cycle.
pub enum AfterCycle<'a> {
    /// `after NAME` in NAME itself.
    Itself { keyword: &'a str, name: &'a str },
    /// `after` names that lead back to where they start: `path` is the cycle's names in
    /// order, the first repeated at the end; `others` the other `after` names of the
    /// cycle, each labelled.
    Cycle {
        path: Vec<&'a str>,
        others: Vec<(Span, &'a str, &'a str)>,
    },
}

impl Rule for AfterCycle<'_> {
    fn code(&self) -> Code {
        Code::E0328
    }

    fn message(&self) -> String {
        match self {
            AfterCycle::Itself { keyword, name } => {
                format!("{keyword} `{name}` is named in its own `after`: it would wait for itself")
            }
            AfterCycle::Cycle { path, .. } => format!(
                "`after` closes a cycle: {}",
                path.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" waits for ")
            ),
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            AfterCycle::Itself { name, .. } => format!("remove `{name}` from its `after`"),
            AfterCycle::Cycle { .. } => {
                "nothing in a cycle could ever start: remove one `after` name of it".into()
            }
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            AfterCycle::Itself { .. } => Vec::new(),
            AfterCycle::Cycle { others, .. } => others
                .iter()
                .map(|(span, who, waits_for)| Label {
                    file: file.clone(),
                    span: *span,
                    message: format!("`{who}` waits for `{waits_for}` here"),
                })
                .collect(),
        }
    }
}

/// E0104: `after` naming no container or job of the module.
pub struct UnknownAfter<'a> {
    pub module: &'a str,
    pub name: &'a str,
    /// A container or job of a close name.
    pub closest: Option<&'a str>,
    /// `name` is one of the module's requirements.
    pub requirement: bool,
    /// The module's containers and jobs, capped, for the help when nothing is close.
    pub known: Vec<&'a str>,
}

impl Rule for UnknownAfter<'_> {
    fn code(&self) -> Code {
        Code::E0104
    }

    fn message(&self) -> String {
        if self.requirement {
            format!(
                "`{}` is a requirement of module `{}`; `after` names a container or job of the module",
                self.name, self.module
            )
        } else {
            format!(
                "module `{}` has no container or job `{}` for `after` to name",
                self.module, self.name
            )
        }
    }

    fn help(&self) -> Option<String> {
        if let Some(c) = self.closest {
            return Some(format!("did you mean `{c}`?"));
        }
        if self.requirement {
            return Some(
                "an instance already starts after the providers on its own node that answer its requirements; remove the name".into(),
            );
        }
        Some(match self.known.as_slice() {
            [] => "the module has no other container or job to wait for".into(),
            names => format!(
                "the module's containers and jobs: {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }
}

/// E0102: a name written twice in the `after` names of one container or job.
pub struct AfterTwice<'a> {
    pub name: &'a str,
    pub first: Span,
}

impl Rule for AfterTwice<'_> {
    fn code(&self) -> Code {
        Code::E0102
    }

    fn message(&self) -> String {
        format!("`{}` is named twice in `after`", self.name)
    }

    fn help(&self) -> Option<String> {
        Some("name it once".into())
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        vec![Label {
            file: file.clone(),
            span: self.first,
            message: "first named here".into(),
        }]
    }
}

/// E0314: a `health` entry whose test or options are not valid.
pub enum BadHealth<'a> {
    /// `health []`.
    EmptyTest,
    /// `every` or `start` not written as a duration: `reason` says why.
    Duration { option: &'a str, reason: String },
    /// `retries` that is not a whole number of at least 1; `value` when a number.
    Retries { value: Option<i64> },
    /// An option written twice.
    OptionTwice { option: &'a str, first: Span },
}

impl Rule for BadHealth<'_> {
    fn code(&self) -> Code {
        Code::E0314
    }

    fn message(&self) -> String {
        match self {
            BadHealth::EmptyTest => {
                "the health test is empty: the engine would have nothing to run".into()
            }
            BadHealth::Duration { option, reason } => {
                format!("`{option}` of `health` is not a duration: {reason}")
            }
            BadHealth::Retries { value: Some(n) } => {
                format!("`retries` of `health` is at least 1, found {n}")
            }
            BadHealth::Retries { value: None } => {
                "`retries` of `health` is a whole number written out, at least 1".into()
            }
            BadHealth::OptionTwice { option, .. } => {
                format!("`{option}` is written twice in this `health`")
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            BadHealth::EmptyTest => {
                "write the command and its arguments: `health [\"pg_isready\", \"--quiet\"]`".into()
            }
            BadHealth::Duration { option, .. } => format!(
                "write digits and one unit, `s`, `m`, `h` or `d`, in quotes: `{option} \"30s\"`"
            ),
            BadHealth::Retries { .. } => "e.g. `retries 3` (the default)".into(),
            BadHealth::OptionTwice { .. } => "keep one".into(),
        })
    }

    fn labels(&self, file: &FilePath) -> Vec<Label> {
        match self {
            BadHealth::OptionTwice { first, .. } => vec![Label {
                file: file.clone(),
                span: *first,
                message: "first written here".into(),
            }],
            _ => Vec::new(),
        }
    }
}

/// E0301: a loop's `sep` that interpolates: it is a plain literal.
pub struct SepInterpolates<'a> {
    pub var: &'a str,
}

impl Rule for SepInterpolates<'_> {
    fn code(&self) -> Code {
        Code::E0301
    }

    fn message(&self) -> String {
        format!(
            "the `sep` of `for {}` interpolates; a separator is a plain string",
            self.var
        )
    }

    fn help(&self) -> Option<String> {
        Some(
            "write the separator out (`sep \",\"`); what changes from one rendering to the next belongs in the template".into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_writes_its_code_and_its_places() {
        let file = FilePath::from("a.mesh");
        let cycle = AfterCycle::Cycle {
            path: vec!["web", "worker", "web"],
            others: vec![(Span::new(10, 13), "worker", "web")],
        }
        .at(&file, Span::new(0, 3));
        assert_eq!(cycle.code, Code::E0328);
        assert_eq!(
            cycle.message,
            "`after` closes a cycle: `web` waits for `worker` waits for `web`"
        );
        assert_eq!(cycle.labels[0].span, Span::new(10, 13));
        let unknown = UnknownAfter {
            module: "db",
            name: "provison",
            closest: Some("provision"),
            requirement: false,
            known: vec!["pg", "provision"],
        }
        .at(&file, Span::new(0, 3));
        assert_eq!(unknown.code, Code::E0104);
        assert_eq!(unknown.help.as_deref(), Some("did you mean `provision`?"));
        let twice = BadHealth::OptionTwice {
            option: "every",
            first: Span::new(4, 9),
        }
        .at(&file, Span::new(20, 25));
        assert_eq!(
            (twice.code, twice.labels.len()),
            (Code::E0314, 1),
            "{twice:?}"
        );
        assert_eq!(
            InJob {
                entry: "health",
                job: "seed"
            }
            .at(&file, Span::new(0, 1))
            .code,
            Code::E0327
        );
    }
}
