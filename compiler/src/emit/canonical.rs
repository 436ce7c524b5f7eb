//! Canonical JSON and the manifest digest.
//!
//! Canonical JSON here is: object keys sorted by their UTF-8 bytes, no whitespace,
//! strings escaped as `serde_json` escapes them, integers in decimal. The digest is
//! `sha256:<lowercase hex>` of the canonical JSON of a manifest with `digest` left out.

use super::manifest::Manifest;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `value` as canonical JSON text.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The digest of `manifest`: SHA-256 over the canonical JSON of the manifest without its
/// `digest` field, written `sha256:<hex>`. The `digest` the manifest holds is ignored.
pub fn digest_of(manifest: &Manifest) -> String {
    let mut value = serde_json::to_value(manifest).expect("a manifest always serialises");
    if let Value::Object(map) = &mut value {
        map.shift_remove("digest");
    }
    let hash = Sha256::digest(canonical_json(&value).as_bytes());
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for byte in hash.iter() {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).expect("a nibble"));
        hex.push(char::from_digit(u32::from(byte & 0xf), 16).expect("a nibble"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_and_drops_whitespace() {
        let v = json!({"b": 1, "a": {"d": [1, "x\n"], "c": null}, "A": true});
        assert_eq!(
            canonical_json(&v),
            r#"{"A":true,"a":{"c":null,"d":[1,"x\n"]},"b":1}"#
        );
    }

    #[test]
    fn digest_ignores_the_digest_field() {
        let mut m = Manifest {
            mesh: "lab".into(),
            node: "alpha".into(),
            digest: String::new(),
            instances: vec![],
            left_out: vec![],
        };
        let d = digest_of(&m);
        assert!(d.starts_with("sha256:") && d.len() == 7 + 64, "{d}");
        m.digest = "sha256:whatever".into();
        assert_eq!(digest_of(&m), d);
    }
}
