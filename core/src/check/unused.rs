//! W0001: a requirement that is never used — not read, mounted, published or referenced
//! anywhere in its module (LANGUAGE.md §5.4). Every reference the other checks resolve
//! marks its requirement used, in env, files, secrets, commands, narrowing of other
//! requirements and `provides` answers, legacy placeholders included.
//!
//! A module requirement whose narrowing sets a given field is used (LANGUAGE.md §12.5):
//! asking a proxy to route is its use. A host port nothing publishes is E0323's.
//!
//! A requirement whose narrowing reads another requirement of the module is used too:
//! its provider acts on the module's behalf with what it reads (a route forwards the
//! public name to `target = http.host_port`), so it is wanted even when nothing reads
//! it back.

use super::module::ModuleChecker;
use super::registry::ProviderKind;
use crate::diagnostics::Rule;
use crate::diagnostics::rules::Unused;

impl ModuleChecker<'_, '_> {
    /// Reports every requirement nothing used. A requirement whose kind or contract is
    /// unknown is already refused, and is not reported again.
    pub(crate) fn check_unused(&mut self) {
        // A use may sit in an entry that failed to parse.
        if self.cx.is_broken(self.module.span) {
            return;
        }
        let registry = self.cx.registry;
        for e in &self.edges {
            if e.from != e.to {
                self.used[e.from] = true;
            }
        }
        for (idx, (name, req)) in self.scope.requirements.iter().enumerate() {
            if self.used[idx] {
                continue;
            }
            // Asking a provider for something (a route for a public name) is its use
            // (LANGUAGE.md §12.5).
            if req.kind == Some(ProviderKind::Module) && !req.sets.is_empty() {
                continue;
            }
            // A port nothing publishes is refused (E0323), not warned about.
            if req.kind == Some(ProviderKind::Host) && req.contract_name() == Some("port") {
                continue;
            }
            let known = match req.kind {
                None => false,
                Some(ProviderKind::Operator) => true,
                Some(_) => req
                    .contract_name()
                    .is_some_and(|c| registry.contracts.contains_key(c)),
            };
            if !known {
                continue;
            }
            let help = match (req.kind, req.contract_name()) {
                (Some(ProviderKind::Host), Some("directory" | "access")) => {
                    format!("mount it (`mount {name}.path -> \"/data\"`), or remove it")
                }
                (Some(ProviderKind::Operator), _) => {
                    format!(
                        "read it (`ENV = {name}` in env, `${{{name}}}` in a string), or remove it"
                    )
                }
                _ => format!("read one of its fields (`{name}.FIELD`), or remove it"),
            };
            let rule = Unused {
                requirement: name,
                help,
            };
            self.cx.report(rule.at(self.cx.path, req.ast.name.span));
        }
    }
}
