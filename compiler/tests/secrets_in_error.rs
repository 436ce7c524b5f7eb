//! An item in error lends nothing to a manifest. A contract field declared
//! `given tok: secret string` is refused (E0205); no value written for it — in the
//! consumer's definition, on the assignment, or as the contract's default — may reach a
//! manifest: not in a provider's `given`, an exposed env value, a file's content. Every
//! module requiring or providing a contract in error is left out, listing the contract's
//! errors; and the resolver treats a field declared secret as secret whether `given` or
//! not (the checker's notion of taint), so even without that rule it has no plain value.

mod support;

use support::*;

const MARKER: &str = "MARK3R";

/// A workspace where `app` reads `up.tok`, a given secret field, into an exposed env
/// value, a plain file, a sealed file and a secret file. `default`, `set` and `assign`
/// are where a value for it is written (the contract's default, the definition, the
/// assignment).
fn workspace_text(default: bool, set: bool, assign: bool) -> String {
    let default = if default {
        format!(" = \"{MARKER}-default\"")
    } else {
        String::new()
    };
    let set = if set {
        format!(" {{ tok = \"{MARKER}-set\" }}")
    } else {
        String::new()
    };
    let assign = if assign {
        format!(" {{ up.tok = \"{MARKER}-assigned\" }}")
    } else {
        String::new()
    };
    format!(
        r#"contract tokc for module {{
  url: string
  given tok: secret string{default}
}}

module app {{
  requires up: module tokc{set}
  container app {{
    image "nginx:1.27"
    user 1000
    env {{ T = up.tok exposed "the image reads it from env" }}
    file "/etc/t" = "x${{up.tok}}"
    secret "/run/secrets/t" = up.tok
  }}
}}

module prov {{
  container prov {{ image "nginx:1.27" }}
  provides tokc {{ url = "plain" }}
}}

mesh lab {{
  node alpha {{ private_name = "alpha" }}
  assign prov to alpha
  assign app to alpha{assign}
}}
"#
    )
}

fn assert_no_marker_built(text: &str) {
    let files = one_file("case.mesh", text);
    let b = build(&files, "case.mesh");
    assert!(
        b.diagnostics().iter().any(|d| d.code.as_str() == "E0205"),
        "E0205 expected for:\n{text}"
    );
    assert_eq!(b.exit, 1, "a workspace in error builds with exit 1");
    for (node, bytes) in b.bytes() {
        let json = String::from_utf8_lossy(&bytes);
        assert!(
            !json.contains(MARKER),
            "the manifest of {node} holds the value of a given secret field:\n{json}"
        );
    }
    // Both the consumer and the provider of the contract in error are left out, and
    // say why: the contract's own errors.
    let outcome = &b.outcomes[0];
    for instance in ["app", "prov"] {
        let left = outcome
            .left_out
            .iter()
            .find(|l| l.instance == instance)
            .unwrap_or_else(|| panic!("`{instance}` is not left out:\n{text}"));
        assert!(
            left.diagnostics.iter().any(|d| d.code.as_str() == "E0205"),
            "`{instance}` is left out without naming E0205: {:?}",
            left.diagnostics
        );
    }
    let manifest = b
        .json("alpha")
        .expect("the node's manifest is still written");
    assert_eq!(
        manifest["instances"].as_array().map(Vec::len),
        Some(0),
        "no instance of a module using a contract in error is built: {manifest}"
    );
}

#[test]
fn a_given_secret_set_in_the_definition_reaches_no_manifest() {
    assert_no_marker_built(&workspace_text(false, true, false));
}

#[test]
fn a_given_secret_set_on_the_assignment_reaches_no_manifest() {
    assert_no_marker_built(&workspace_text(false, false, true));
}

#[test]
fn a_given_secret_default_reaches_no_manifest() {
    assert_no_marker_built(&workspace_text(true, false, false));
}

#[test]
fn all_three_at_once_reach_no_manifest() {
    assert_no_marker_built(&workspace_text(true, true, true));
}

/// The resolver on its own, told of no error at all: a field declared secret still has
/// no plain value, so nothing of it reaches the manifest even when a caller forgets to
/// leave the item in error out.
#[test]
fn the_resolver_treats_a_given_secret_field_as_secret_even_unaware_of_errors() {
    let text = workspace_text(true, true, false);
    let files = one_file("case.mesh", &text);
    let outcome = resolve_told_of_no_error(&files, "case.mesh", "lab", true);
    for (node, m) in &outcome.manifests {
        let json = String::from_utf8_lossy(&meshc::emit::manifest_bytes(m)).into_owned();
        assert!(
            !json.contains(MARKER),
            "the resolver wrote a given secret field's value into {node}:\n{json}"
        );
    }
    // Told of no error, the resolver builds `app`: the test means something only then.
    let built: Vec<&str> = outcome
        .manifests
        .values()
        .flat_map(|m| m.instances.iter().map(|i| i.instance.as_str()))
        .collect();
    assert!(built.contains(&"app"), "`app` was not built: {built:?}");
}

/// A node in error lends nothing either: a `root` that is no host path (E0314) is not
/// replaced by the default, and the node's assignments are left out, listing the error.
#[test]
fn a_node_in_error_builds_nothing_with_a_default() {
    let text = r#"module web {
  requires data: host directory { owner = 1000  mode = 0o750 }
  container web { image "nginx:1.27"  user 1000  mount data.path -> "/data" }
}
mesh lab {
  node alpha { private_name = "alpha"  root = "relative/dir" }
  node beta { private_name = "beta" }
  assign web to alpha
  assign web to beta
}
"#;
    let b = build(&one_file("case.mesh", text), "case.mesh");
    assert!(
        b.diagnostics().iter().any(|d| d.code.as_str() == "E0314"),
        "E0314 expected"
    );
    assert_eq!(b.exit, 1);
    let outcome = &b.outcomes[0];
    let left = outcome
        .left_out
        .iter()
        .find(|l| l.node == "alpha")
        .expect("the assignment on the node in error is left out");
    assert!(left.diagnostics.iter().any(|d| d.code.as_str() == "E0314"));
    let alpha = b.json("alpha").expect("alpha's manifest");
    assert_eq!(
        alpha["instances"].as_array().map(Vec::len),
        Some(0),
        "{alpha}"
    );
    assert!(!alpha.to_string().contains("/srv/mesh"), "{alpha}");
    // The other node builds.
    let beta = b.json("beta").expect("beta's manifest");
    assert_eq!(
        beta["instances"].as_array().map(Vec::len),
        Some(1),
        "{beta}"
    );
}
