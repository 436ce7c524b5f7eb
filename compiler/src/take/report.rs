//! The host report (LANGUAGE.md §13.1): one node as found. Read and validated against
//! the shipped JSON Schema (`schema/host-report.schema.json`), so a malformed or foreign
//! document is refused with the JSON path of its first problem, before anything compares.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// The JSON Schema of the host report, as shipped in `schema/`.
pub const SCHEMA_TEXT: &str = include_str!("../../../schema/host-report.schema.json");

/// One node as found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostReport {
    pub node: String,
    pub taken_at: String,
    pub containers: Vec<FoundContainer>,
    pub images: Vec<FoundImage>,
    pub files: Vec<FoundFile>,
    pub data: Vec<FoundData>,
    pub accepted: Vec<Accepted>,
    pub strays: Vec<Stray>,
}

/// A container the engine holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundContainer {
    pub name: String,
    pub id: String,
    pub running: bool,
    pub image: String,
    #[serde(default)]
    pub image_id: Option<String>,
    #[serde(default)]
    pub image_created: Option<String>,
    pub networks: Vec<FoundNetwork>,
    pub mounts: Vec<FoundMount>,
    pub ports: Vec<FoundPort>,
    /// The user the container runs as, as configured (`1100`, `1100:1100`, `root`; empty:
    /// the image's). Absent in a report of an older survey: then not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The names of the container's environment variables that its image does not set.
    /// Names only: a survey never reads a value into the report. Absent: not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_names: Option<Vec<String>>,
}

/// A network a found container is on, with every container on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundNetwork {
    pub name: String,
    pub members: Vec<String>,
}

/// A found mount: a host path (or a volume's name) at a container path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundMount {
    pub source: String,
    pub target: String,
    pub read_only: bool,
}

/// A found published port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundPort {
    pub host_ip: String,
    pub host_port: u16,
    pub container_port: u16,
    pub protocol: String,
}

impl FoundPort {
    /// Bound to every address (`0.0.0.0`, `::`, or no address): reachable from anywhere.
    pub fn is_public(&self) -> bool {
        matches!(self.host_ip.as_str(), "" | "0.0.0.0" | "::" | "[::]")
    }
}

/// An image the node holds, with its creation date when the host can tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundImage {
    #[serde(rename = "ref")]
    pub reference: String,
    #[serde(default)]
    pub id: Option<String>,
    pub created: Option<String>,
}

/// A kept original: a found container's file at a declared path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundFile {
    pub container: String,
    pub path: String,
    pub mode: String,
    pub owner: u32,
    pub group: u32,
    pub digest: String,
    #[serde(default)]
    pub content: Option<String>,
}

/// Whether a found container's mount target held data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundData {
    pub container: String,
    pub path: String,
    pub empty: bool,
    /// The owner, group and mode (four octal digits) of the mount's host directory, when
    /// the survey could read them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// A required secret whose found value was accepted instead of minted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    pub instance: String,
    pub requirement: String,
}

/// Something running that the mesh neither wrote nor holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Stray {
    Container { name: String },
    Listener { port: u16, protocol: String },
}

/// Why a report was refused: the JSON path of the first problem, and what is wrong there.
/// The message names keys and expectations, never a value of the report (a file's content
/// may hold a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportError {
    pub path: String,
    pub message: String,
}

/// Reads a report's text: JSON, valid against the schema, dates that are dates. Returns
/// the report and the JSON value it was read from (the preview's digest covers it).
pub fn read(text: &str) -> Result<(HostReport, Json), ReportError> {
    let value: Json = serde_json::from_str(text).map_err(|e| ReportError {
        path: "$".into(),
        message: format!(
            "the report is not JSON (line {}, column {})",
            e.line(),
            e.column()
        ),
    })?;
    validate(&value)?;
    let report: HostReport = serde_json::from_value(value.clone()).map_err(|_| ReportError {
        path: "$".into(),
        message: "the report does not have the shape of a host report".into(),
    })?;
    if crate::take::time::parse_rfc3339(&report.taken_at).is_none() {
        return Err(ReportError {
            path: "$.taken_at".into(),
            message: "`taken_at` is not a valid date-time".into(),
        });
    }
    for (i, c) in report.containers.iter().enumerate() {
        if let Some(t) = &c.image_created
            && crate::take::time::parse_rfc3339(t).is_none()
        {
            return Err(ReportError {
                path: format!("$.containers[{i}].image_created"),
                message: "`image_created` is not a valid date-time".into(),
            });
        }
    }
    for (i, im) in report.images.iter().enumerate() {
        if let Some(t) = &im.created
            && crate::take::time::parse_rfc3339(t).is_none()
        {
            return Err(ReportError {
                path: format!("$.images[{i}].created"),
                message: "`created` is not a valid date-time".into(),
            });
        }
    }
    Ok((report, value))
}

/// Validates `value` against the shipped schema; the first problem, by JSON path.
pub fn validate(value: &Json) -> Result<(), ReportError> {
    let schema: Json = serde_json::from_str(SCHEMA_TEXT).expect("the shipped schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the shipped schema compiles");
    let mut first: Option<ReportError> = None;
    for error in validator.iter_errors(value) {
        let found = ReportError {
            path: json_path(&error.instance_path),
            message: describe(&error),
        };
        // The deepest path is the most precise account of a problem (a `oneOf` at a
        // stray reports at the stray; its property at the property).
        match &first {
            Some(f) if f.path.len() >= found.path.len() => {}
            _ => first = Some(found),
        }
    }
    match first {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `$.containers[0].ports[1]` for the instance location `/containers/0/ports/1`.
fn json_path(location: &jsonschema::paths::Location) -> String {
    let mut out = String::from("$");
    for segment in location {
        match segment {
            jsonschema::paths::LocationSegment::Property(p) => {
                out.push('.');
                out.push_str(&p);
            }
            jsonschema::paths::LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// What is wrong, in words that quote keys and the schema's expectation, never a value.
fn describe(error: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::ValidationErrorKind as K;
    match &error.kind {
        K::Required { property } => format!("the required field {property} is missing"),
        K::AdditionalProperties { unexpected } => format!(
            "{} not a field of a host report here",
            crate::diagnostics::capped_list(unexpected.iter().map(|u| format!("`{u}`")))
                + if unexpected.len() == 1 { " is" } else { " are" }
        ),
        K::Type { kind } => format!("the value is not of the expected type ({kind:?})")
            .replace("Single(", "")
            .replace("Multiple(", "")
            .replace(')', ""),
        _ => {
            let keyword = error
                .schema_path
                .as_str()
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string();
            format!("the value breaks the schema's `{keyword}` rule")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"node": "alpha", "taken_at": "2026-12-01T10:00:00Z",
        "containers": [{"name": "forge", "id": "3f", "running": true, "image": "forgejo:9",
            "image_id": "sha256:aa", "image_created": "2024-04-18T09:00:00Z",
            "networks": [{"name": "legacy", "members": ["forge", "runner"]}],
            "mounts": [{"source": "/srv/forge", "target": "/data", "read_only": false}],
            "ports": [{"host_ip": "0.0.0.0", "host_port": 3000, "container_port": 3000, "protocol": "tcp"}]}],
        "images": [{"ref": "forgejo:9", "id": "sha256:aa", "created": null}],
        "files": [], "data": [{"container": "forge", "path": "/data", "empty": false}],
        "accepted": [], "strays": [{"kind": "container", "name": "old"}, {"kind": "listener", "port": 8080, "protocol": "tcp"}]}"#;

    #[test]
    fn reads_a_report() {
        let (r, _) = read(GOOD).unwrap();
        assert_eq!(r.node, "alpha");
        assert!(r.containers[0].ports[0].is_public());
        assert_eq!(r.strays.len(), 2);
    }

    #[test]
    fn refuses_with_the_json_path() {
        let bad = GOOD.replace("\"host_port\": 3000", "\"host_port\": \"3000\"");
        let e = read(&bad).unwrap_err();
        assert_eq!(e.path, "$.containers[0].ports[0].host_port", "{e:?}");
        let bad = GOOD.replace("\"running\": true,", "");
        let e = read(&bad).unwrap_err();
        assert_eq!(e.path, "$.containers[0]", "{e:?}");
        assert!(e.message.contains("running"), "{e:?}");
        let bad = GOOD.replace("\"node\": \"alpha\",", "\"node\": \"alpha\", \"color\": 1,");
        let e = read(&bad).unwrap_err();
        assert!(e.message.contains("`color`"), "{e:?}");
        let e = read("{").unwrap_err();
        assert_eq!(e.path, "$");
        let bad = GOOD.replace("2026-12-01T10:00:00Z", "2026-02-30T10:00:00Z");
        assert_eq!(read(&bad).unwrap_err().path, "$.taken_at");
    }

    #[test]
    fn a_message_never_quotes_a_value() {
        let bad = GOOD.replace("\"files\": []", "\"files\": [{\"container\": \"forge\", \"path\": \"/x\", \"mode\": \"0644\", \"owner\": 0, \"group\": 0, \"digest\": \"sha256:00\", \"content\": 7}]");
        let e = read(&bad).unwrap_err();
        assert!(!e.message.contains("sha256:00"), "{e:?}");
    }
}
