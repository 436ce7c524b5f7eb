//! The compiler's diagnostics as the protocol carries them: the same codes, messages,
//! labels and help lines `meshc check` prints, in the negotiated position encoding.

use crate::analysis::resolution::mesh_diagnostics_of;
use crate::convert::Lines;
use crate::state::Snapshot;
use meshc::db::{SourceFile, check_file, workspace_diagnostics};
use meshc::diagnostics::{Code, Diagnostic, Severity};
use meshc::span::FilePath;
use std::collections::BTreeMap;
use tower_lsp_server::ls_types::{
    self as lsp, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location,
    NumberOrString,
};

/// How the client shows what a diagnostic says besides its message.
#[derive(Debug, Clone, Copy, Default)]
pub struct Presentation {
    /// The client shows `relatedInformation`; otherwise labels and help join the message.
    pub related_information: bool,
    /// The client knows the `unnecessary` and `deprecated` tags.
    pub tags: bool,
}

/// The diagnostics of one file that the fast path knows: its own checks (syntax, names,
/// types, flow) and the resolution of the meshes it declares. What an edit changes in
/// other files arrives with the workspace pass.
pub fn file_diagnostics(snap: &Snapshot, file: SourceFile) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = check_file(&snap.db, snap.ws, file)
        .iter()
        .cloned()
        .collect();
    out.extend(mesh_diagnostics_of(snap, file.path(&snap.db)));
    order(&mut out);
    out
}

/// Every diagnostic of the workspace, by file, in the order `meshc check` prints them.
pub fn all_diagnostics(snap: &Snapshot) -> BTreeMap<FilePath, Vec<Diagnostic>> {
    let mut by_file: BTreeMap<FilePath, Vec<Diagnostic>> = BTreeMap::new();
    for d in workspace_diagnostics(&snap.db, snap.ws) {
        by_file.entry(d.file.clone()).or_default().push(d);
    }
    for list in by_file.values_mut() {
        order(list);
    }
    by_file
}

/// Sorts by place, code and message and drops repeats, as the CLI does.
fn order(list: &mut Vec<Diagnostic>) {
    list.sort_by(|a, b| {
        (a.span.start, a.code, &a.message).cmp(&(b.span.start, b.code, &b.message))
    });
    list.dedup();
}

/// The longest help line also written at the end of the message itself.
const SHORT_HELP: usize = 80;

/// One compiler diagnostic as the protocol carries it: the diagnostic itself and, when it
/// has a help line and the client shows related information, a diagnostic of severity
/// Hint at the same range whose message is the help (as rust-analyzer sends hints). Many
/// clients (Neovim among them) never show related information; they show a Hint.
pub fn to_lsp_all(snap: &Snapshot, d: &Diagnostic, how: Presentation) -> Vec<lsp::Diagnostic> {
    let Some(main) = to_lsp(snap, d, how) else {
        return Vec::new();
    };
    let hint = match (&d.help, how.related_information) {
        (Some(help), true) => Some(lsp::Diagnostic {
            range: main.range,
            severity: Some(DiagnosticSeverity::HINT),
            code: main.code.clone(),
            code_description: None,
            source: main.source.clone(),
            message: format!("help: {help}"),
            related_information: snap.uri_of(&d.file).map(|uri| {
                vec![DiagnosticRelatedInformation {
                    location: Location::new(uri, main.range),
                    message: "original diagnostic".into(),
                }]
            }),
            tags: None,
            data: None,
        }),
        _ => None,
    };
    let mut out = vec![main];
    out.extend(hint);
    out
}

/// One compiler diagnostic as the protocol's (without the separate Hint of its help).
pub fn to_lsp(snap: &Snapshot, d: &Diagnostic, how: Presentation) -> Option<lsp::Diagnostic> {
    let file = snap.file_at(&d.file)?;
    let lines = Lines::of(&snap.db, file, snap.unit);
    let range = lines.range(d.span);
    let mut message = d.message.clone();
    let mut related = Vec::new();
    for l in &d.labels {
        let Some(lf) = snap.file_at(&l.file) else {
            continue;
        };
        let Some(uri) = snap.uri_of(&l.file) else {
            continue;
        };
        let ll = Lines::of(&snap.db, lf, snap.unit);
        if how.related_information {
            related.push(DiagnosticRelatedInformation {
                location: Location::new(uri, ll.range(l.span)),
                message: l.message.clone(),
            });
        } else {
            let at = ll.position(l.span.start);
            message.push_str(&format!(
                "\n{}:{}:{}: {}",
                l.file,
                at.line + 1,
                at.character + 1,
                l.message
            ));
        }
    }
    if let Some(help) = &d.help {
        if how.related_information {
            // A short help also ends the message: clients that show neither related
            // information nor hints still show the fix.
            if help.chars().count() <= SHORT_HELP && !help.contains('\n') {
                message.push_str(&format!(" (help: {help})"));
            }
            if let Some(uri) = snap.uri_of(&d.file) {
                related.push(DiagnosticRelatedInformation {
                    location: Location::new(uri, range),
                    message: format!("help: {help}"),
                });
            }
        } else {
            message.push_str(&format!("\nhelp: {help}"));
        }
    }
    let tags = match d.code {
        _ if !how.tags => None,
        Code::W0001 => Some(vec![DiagnosticTag::UNNECESSARY]),
        code if code.is_old_form() => Some(vec![DiagnosticTag::DEPRECATED]),
        _ => None,
    };
    Some(lsp::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        code_description: None,
        source: Some("meshc".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: d.help.as_ref().map(|h| serde_json::json!({ "help": h })),
    })
}
