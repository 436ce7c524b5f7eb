//! Build fixtures: every `tests/cases/build/<case>/` (and the shared conformance suite's
//! `build/*`) holds `.mesh` files and an `expect.json` asserting the manifests' contents.

mod support;
use support as common;

use common::*;

fn run_build_cases(dir: &std::path::Path) -> usize {
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.json").is_file())
        .collect();
    cases.sort();
    let mut failures = Vec::new();
    for c in &cases {
        if let Err(e) = run_build_case(c) {
            failures.push(format!("{}: {e}", c.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}

#[test]
fn fixture_cases() {
    let n = run_build_cases(&repo_root().join("tests/cases/build"));
    assert!(n >= 4, "only {n} build cases found");
}

#[test]
fn conformance_build_cases() {
    let Some(dir) = conformance_dir() else {
        support::ci::say_skipped(support::CONFORMANCE_ABSENT);
        return;
    };
    let n = run_build_cases(&dir.join("build"));
    assert!(n >= 2, "only {n} conformance build cases found");
}

use meshc::resolve::Lock;
use serde_json::Value;
use std::collections::BTreeMap;

/// The lab fixture's files.
fn lab() -> Vec<(String, String)> {
    read_mesh_files(&repo_root().join("tests/cases/build/lab"))
}

/// The JSON of requirement `req` of `instance` in `doc`.
fn requirement<'a>(doc: &'a Value, instance: &str, req: &str) -> &'a Value {
    lookup(
        doc,
        &format!("instances[instance={instance}].requirements.{req}"),
    )
    .unwrap_or_else(|| panic!("no requirement {instance}.{req}"))
}

/// What the modules file holds beside [`PG`]: the vault and an app using both.
const KEEPER_AND_APP: &str = r#"module keeper {
  requires api: host port { container = 8200 }
  container keeper { image "hashicorp/vault:1.17.6"  publish api }
  provides secret { }
}
module app {
  requires db: module postgres
  requires key: module secret
  container app {
    image "nginx:1.27"
    env { H = db.host }
    secret "/run/secrets/db" = db.password
    secret "/run/secrets/key" = key.value
  }
}
"#;

/// The modules file: [`PG`], the vault, and an app using both.
fn modules() -> String {
    format!("{PG}{KEEPER_AND_APP}")
}

fn mesh_files(mesh: &str) -> Vec<(String, String)> {
    vec![
        ("modules.mesh".to_string(), modules()),
        ("mesh.mesh".to_string(), mesh.to_string()),
    ]
}

#[test]
fn provider_order_pin_beats_seat_beats_node_beats_only() {
    // Step 1, a pin: it beats the seat's holder and the provider on the consumer's node.
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  seat vault = keeper on beta
  assign keeper to beta
  assign keeper to alpha as local-keeper
  assign pg to alpha
  assign pg to beta
  assign app to alpha { key from local-keeper on alpha  db from pg on beta }
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    assert_eq!(requirement(&alpha, "app", "key")["by"], "pin");
    assert_eq!(
        requirement(&alpha, "app", "key")["provider"],
        serde_json::json!({"node": "alpha", "instance": "local-keeper"})
    );
    assert_eq!(requirement(&alpha, "app", "db")["by"], "pin");
    assert_eq!(requirement(&alpha, "app", "db")["provider"]["node"], "beta");

    // Step 2 and 3: without pins, the seat answers `secret` (though a provider sits on
    // the consumer's node) and the provider on the consumer's node answers `postgres`.
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  seat vault = keeper on beta
  assign keeper to beta
  assign keeper to alpha as local-keeper
  assign pg to alpha
  assign pg to beta
  assign app to alpha
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    assert_eq!(requirement(&alpha, "app", "key")["by"], "seat");
    assert_eq!(
        requirement(&alpha, "app", "key")["provider"],
        serde_json::json!({"node": "beta", "instance": "keeper"})
    );
    assert_eq!(requirement(&alpha, "app", "db")["by"], "node");
    assert_eq!(
        requirement(&alpha, "app", "db")["provider"],
        serde_json::json!({"node": "alpha", "instance": "pg"})
    );

    // Step 4: the only provider in the mesh, on another node.
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  seat vault = keeper on beta
  assign keeper to beta
  assign pg to beta
  assign app to alpha
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    assert_eq!(requirement(&alpha, "app", "db")["by"], "only");
    assert_eq!(requirement(&alpha, "app", "db")["provider"]["node"], "beta");

    // Step 5: several and no pin, refused; the rest still built.
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  node gamma { private_name = "gamma.lab.internal" }
  seat vault = keeper on beta
  assign keeper to beta
  assign pg to alpha
  assign pg to beta
  assign app to gamma
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 1);
    let gamma = b.json("gamma").unwrap();
    assert_eq!(
        lookup(&gamma, "left_out[instance=app].diagnostics[0].code").unwrap(),
        "E0503"
    );
    assert_eq!(
        lookup(&gamma, "instances")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        b.json("beta").unwrap()["instances"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_seat_beats_a_provider_on_the_consumers_own_node() {
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  seat vault = keeper on beta
  assign keeper to beta
  assign keeper to alpha as near
  assign pg to alpha
  assign app to alpha
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    let key = requirement(&alpha, "app", "key");
    assert_eq!(key["by"], "seat");
    assert_eq!(
        key["provider"],
        serde_json::json!({"node": "beta", "instance": "keeper"})
    );
    // The secret file names the seat's holder, not the neighbour.
    assert_eq!(
        lookup(
            &alpha,
            "instances[instance=app].containers[0].secrets[target=/run/secrets/key].sealed.by"
        )
        .unwrap(),
        &serde_json::json!({"node": "beta", "instance": "keeper"})
    );
    // The neighbour answers nobody.
    assert_eq!(
        lookup(&alpha, "instances[instance=near].provides[0].consumers").unwrap(),
        &serde_json::json!([])
    );
}

#[test]
fn an_operator_default_resolves_with_no_module_assigned_anywhere() {
    let files = one_file(
        "all.mesh",
        r#"module greeter {
  requires greeting: operator string = "hello"
  container greeter { image "nginx:1.27"  env { GREETING = greeting } }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign greeter to alpha
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    assert_eq!(
        requirement(&alpha, "greeter", "greeting"),
        &serde_json::json!({"kind": "operator", "value": "hello", "from": "default"})
    );
    assert_eq!(
        lookup(
            &alpha,
            "instances[instance=greeter].containers[0].env.GREETING"
        )
        .unwrap(),
        "hello"
    );
}

#[test]
fn one_module_twice_on_one_node_collides_nowhere() {
    let files = one_file(
        "all.mesh",
        r#"module blog {
  requires data: host directory { owner = 33 }
  requires http: host port { container = 8080 }
  requires title: operator string = "Blog"
  requires me: mesh identity
  container blog {
    image "nginx:1.27"
    mount data.path -> "/usr/share/nginx/html"
    publish http
    env { TITLE = title  LOGIN = me.login }
  }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal"  root = "/srv/mesh" }
  assign blog to alpha
  assign blog to alpha as blog-two { short = "two"  title = "Second" }
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    assert!(b.diagnostics().is_empty(), "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    let one = lookup(&alpha, "instances[instance=blog]").unwrap();
    let two = lookup(&alpha, "instances[instance=blog-two]").unwrap();
    // Two directories.
    assert_eq!(one["requirements"]["data"]["path"], "/srv/mesh/blog/data");
    assert_eq!(
        two["requirements"]["data"]["path"],
        "/srv/mesh/blog-two/data"
    );
    // Two logins.
    assert_eq!(one["login"], "alpha_blog");
    assert_eq!(two["login"], "alpha_blog_two");
    // Two containers.
    assert_eq!(one["containers"][0]["name"], "blog");
    assert_eq!(two["containers"][0]["name"], "blog-two");
    // Separate settings.
    assert_eq!(one["containers"][0]["env"]["TITLE"], "Blog");
    assert_eq!(two["containers"][0]["env"]["TITLE"], "Second");
    assert_eq!(two["containers"][0]["env"]["LOGIN"], "alpha_blog_two");
    // Two host ports.
    assert_ne!(
        one["requirements"]["http"]["host_port"],
        two["requirements"]["http"]["host_port"]
    );
}

#[test]
fn a_refused_provider_leaves_its_consumers_out_and_the_rest_is_built() {
    let b = build(
        &mesh_files(
            r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  assign keeper to beta
  assign pg to beta { data at "relative/path" }
  assign app to alpha
}"#,
        ),
        "mesh.mesh",
    );
    assert_eq!(b.exit, 1);
    let beta = b.json("beta").unwrap();
    let alpha = b.json("alpha").unwrap();
    // pg is refused for its placement; keeper is built.
    assert_eq!(
        lookup(&beta, "left_out[instance=pg].diagnostics[0].code").unwrap(),
        "E0513"
    );
    assert!(lookup(&beta, "instances[instance=keeper]").is_some());
    // app waits for pg (E0514) and for the vault seat nobody holds (E0504): both said.
    let codes: Vec<&str> = lookup(&alpha, "left_out[instance=app].diagnostics")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"E0504") && codes.contains(&"E0514"),
        "{codes:?}"
    );
    let message = lookup(
        &alpha,
        "left_out[instance=app].diagnostics[code=E0514].message",
    )
    .unwrap();
    assert!(
        message.as_str().unwrap().contains("`pg` on `beta`"),
        "{message}"
    );
    assert_eq!(b.outcomes[0].left_out.len(), 2);
}

#[test]
fn an_assignment_of_a_module_with_errors_is_left_out_listing_them() {
    let files = one_file(
        "all.mesh",
        r#"module broken {
  container broken { image "nginx:1.27"  env { X = } }
}
module fine {
  container fine { image "nginx:1.27" }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign broken to alpha
  assign fine to alpha
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 1);
    let alpha = b.json("alpha").unwrap();
    assert!(lookup(&alpha, "instances[instance=fine]").is_some());
    assert!(lookup(&alpha, "instances[instance=broken]").is_none());
    let d = lookup(&alpha, "left_out[instance=broken].diagnostics[0].code").unwrap();
    assert!(d.as_str().unwrap().starts_with("E0"), "{d}");
}

#[test]
fn legacy_placeholders_read_as_their_new_form() {
    let files = vec![
        ("modules.mesh".to_string(), modules()),
        (
            "legacy.mesh".to_string(),
            r#"module old {
  requires db: module postgres
  requires http: host port { container = 80 }
  requires here: host node
  requires workers: operator int = 3
  container old {
    image "nginx:1.27"
    publish http
    env {
      DB = "${binding:db.host}:${binding:db.port}"
      PORT = "${port:http}"
      HOST = "${machine:hostname}"
      WORKERS = "${setting:workers}"
    }
    file "/etc/old.conf" = """
      password=${binding:db.password}
      """
  }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign pg to alpha
  assign old to alpha { http at 8081 }
}"#
            .to_string(),
        ),
    ];
    let b = build(&files, "legacy.mesh");
    let alpha = b.json("alpha").unwrap();
    let env = lookup(&alpha, "instances[instance=old].containers[0].env").unwrap();
    let pg_port = requirement(&alpha, "pg", "p")["host_port"]
        .as_i64()
        .unwrap();
    assert_eq!(env["DB"], format!("alpha.lab.internal:{pg_port}"));
    assert_eq!(env["PORT"], "8081");
    assert_eq!(env["HOST"], "alpha.lab.internal");
    assert_eq!(env["WORKERS"], "3");
    let file = lookup(&alpha, "instances[instance=old].containers[0].files[0]").unwrap();
    assert_eq!(file["template"], "password=${db.password}\n");
    assert_eq!(
        file["references"]["db.password"]["sealed"]["key"],
        "alpha_old/password"
    );
    // A sealed file is 0640 unless it says otherwise (LANGUAGE.md §12.1).
    assert_eq!(file["mode"], "0640");
}

/// A secret value written anywhere a careless build could copy it from.
const SECRET_LITERALS: &[&str] = &[
    "LEAK-mesh-operator-value-0001",
    "LEAK-operator-default-0002",
    "LEAK-contract-default-0003",
    "LEAK-provides-literal-0004",
    "LEAK-secret-file-literal-0005",
];

#[test]
fn secret_values_never_reach_a_manifest() {
    // `app` is a clean definition and is built, its secrets sealed. `leaky` writes secret
    // literals where the checker refuses them (E0309, E0311) or where they are never read
    // (a secret default); built or left out, none of it reaches a byte written.
    let text = format!(
        r#"contract apikey for module {{
  name: string
  key: secret string
}}
contract leakykey for module {{
  key: secret string = "{c}"
}}
module keeper {{
  requires api: host port {{ container = 8200 }}
  container keeper {{ image "hashicorp/vault:1.17.6"  publish api }}
  provides secret {{ }}
  provides apikey {{ name = consumer.login }}
}}
module leaker {{
  container leaker {{ image "nginx:1.27" }}
  provides leakykey {{ key = "{p}" }}
}}
module app {{
  requires token: operator secret string
  requires other: operator secret string
  requires api: module apikey
  requires k: module secret
  container app {{
    image "nginx:1.27"
    env {{
      NAME = api.name
      TOKEN = token exposed "the image reads it only from env"
      BEARER = "Bearer ${{api.key}}" exposed "the image wants a header"
    }}
    secret "/run/secrets/token" = token
    secret "/run/secrets/api" = api.key
    secret "/run/secrets/both" = "${{k.value}}:${{other}}"
    file "/etc/app.conf" = """
      token=${{token}}
      key=${{api.key}}
      """
  }}
}}
module leaky {{
  requires token: operator secret string = "{d}"
  requires lk: module leakykey
  container leaky {{
    image "nginx:1.27"
    secret "/run/secrets/literal" = "{f}"
    secret "/run/secrets/token" = token
    secret "/run/secrets/lk" = lk.key
  }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal" }}
  seat vault = keeper on alpha
  assign keeper to alpha
  assign app to alpha
  assign app to alpha as app-two {{ short = "two"  other = "{m}" }}
  assign leaker to alpha
  assign leaky to alpha
}}"#,
        c = SECRET_LITERALS[2],
        p = SECRET_LITERALS[3],
        d = SECRET_LITERALS[1],
        f = SECRET_LITERALS[4],
        m = SECRET_LITERALS[0],
    );
    let files = one_file("all.mesh", &text);
    let b = build(&files, "all.mesh");
    // app is built (its secrets sealed); app-two is refused for writing a secret (E0512).
    let alpha = b.json("alpha").unwrap();
    assert!(lookup(&alpha, "instances[instance=app]").is_some());
    assert_eq!(
        lookup(&alpha, "left_out[instance=app-two].diagnostics[0].code").unwrap(),
        "E0512"
    );
    let env = lookup(&alpha, "instances[instance=app].containers[0].env").unwrap();
    assert_eq!(env["TOKEN"]["sealed"]["key"], "alpha_app/token");
    assert_eq!(env["BEARER"]["template"], "Bearer ${api.key}");
    assert_eq!(
        env["BEARER"]["references"]["api.key"]["sealed"]["key"],
        "alpha_app/key"
    );
    let v = validator();
    for (node, bytes) in b.bytes() {
        assert_valid(&v, &serde_json::from_slice(&bytes).unwrap(), &node);
        let text = String::from_utf8(bytes).unwrap();
        for s in SECRET_LITERALS {
            assert!(!text.contains(s), "{s} reached the manifest of {node}");
        }
    }
    for d in b.diagnostics() {
        for s in SECRET_LITERALS {
            assert!(
                !d.message.contains(s),
                "{s} reached a diagnostic: {}",
                d.message
            );
            assert!(!d.help.clone().unwrap_or_default().contains(s));
        }
    }
}

#[test]
fn two_builds_of_the_same_input_are_byte_identical() {
    let a = build(&lab(), "lab.mesh").bytes();
    let b = build(&lab(), "lab.mesh").bytes();
    assert_eq!(a, b);
    assert_eq!(a.len(), 2);
    for (_, bytes) in &a {
        assert!(bytes.ends_with(b"}\n"));
    }
}

/// Canonical JSON as the specification words it, written independently of the compiler.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let b: BTreeMap<String, Value> =
                m.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
            let mut out = serde_json::Map::new();
            for (k, v) in b {
                out.insert(k, v);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_digest_is_sha256_over_canonical_json_without_the_digest() {
    use sha2::{Digest, Sha256};
    for (_, bytes) in build(&lab(), "lab.mesh").bytes() {
        let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
        let written = doc["digest"].as_str().unwrap().to_string();
        doc.as_object_mut().unwrap().shift_remove("digest");
        let canonical = serde_json::to_string(&sorted(&doc)).unwrap();
        let hash = Sha256::digest(canonical.as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(written, format!("sha256:{hex}"));
    }
}

fn ports_of(b: &Build) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for o in &b.outcomes {
        for (node, m) in &o.manifests {
            let doc: Value = serde_json::to_value(m).unwrap();
            for inst in doc["instances"].as_array().unwrap() {
                for (req, r) in inst["requirements"].as_object().unwrap() {
                    if r["contract"] == "port" {
                        out.insert(
                            format!("{node}/{}/{req}", inst["instance"].as_str().unwrap()),
                            r["host_port"].as_i64().unwrap(),
                        );
                    }
                }
            }
        }
    }
    out
}

fn web_mesh(assigns: &str) -> Vec<(String, String)> {
    one_file(
        "all.mesh",
        &format!(
            r#"module web {{
  requires http: host port {{ container = 80 }}
  requires admin: host port {{ container = 81 }}
  container web {{ image "nginx:1.27"  publish http  publish admin }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal"  ports = 20000..20099 }}
  node beta {{ private_name = "beta.lab.internal"  ports = 20000..20099 }}
{assigns}
}}"#
        ),
    )
}

#[test]
fn ports_stay_put_when_assignments_come_and_go() {
    let first = build(
        &web_mesh(
            "  assign web to alpha as a\n  assign web to alpha as b\n  assign web to beta as c",
        ),
        "all.mesh",
    );
    assert_eq!(first.exit, 0);
    let lock = first.outcomes[0].lock.clone();
    let before = ports_of(&first);
    assert_eq!(lock.ports.len(), 6);
    assert_eq!(Lock::parse(&lock.to_text()).unwrap(), lock);

    // A new assignment written first takes no port the lock gives another.
    let added = build_with_lock(
        &web_mesh(
            "  assign web to alpha as new\n  assign web to alpha as a\n  assign web to alpha as b\n  assign web to beta as c",
        ),
        "all.mesh",
        &lock,
    );
    let after = ports_of(&added);
    for (k, p) in &before {
        assert_eq!(after.get(k), Some(p), "{k} moved");
    }
    let taken: Vec<i64> = before.values().copied().collect();
    assert!(!taken.contains(&after["alpha/new/http"]));
    assert!(!taken.contains(&after["alpha/new/admin"]));
    assert_eq!(added.outcomes[0].lock.ports.len(), 8);

    // Removing one drops its entries and moves nothing else.
    let removed = build_with_lock(
        &web_mesh("  assign web to alpha as b\n  assign web to beta as c"),
        "all.mesh",
        &lock,
    );
    let after = ports_of(&removed);
    assert_eq!(after.len(), 4);
    for (k, p) in &after {
        assert_eq!(before.get(k), Some(p), "{k} moved");
    }
    let new_lock = &removed.outcomes[0].lock;
    assert!(!new_lock.ports.contains_key("alpha/a/http"));
    assert_eq!(new_lock.ports.len(), 4);

    // --locked: an unchanged lock stands, a changed one is refused, naming each change.
    assert!(first.outcomes[0].locked_refusals(&lock).is_empty());
    let refusal = removed.outcomes[0].locked_refusals(&lock);
    assert_eq!(refusal.len(), 1);
    assert_eq!(refusal[0].code.as_str(), "E0510");
    assert!(
        refusal[0].message.contains("alpha/a/http"),
        "{}",
        refusal[0].message
    );
    let refusal = added.outcomes[0].locked_refusals(&lock);
    assert!(refusal[0].message.contains("alpha/new/http"));
}

#[test]
fn a_lock_port_outside_the_range_or_placed_by_another_is_chosen_again() {
    let mut lock = Lock::default();
    lock.ports.insert("alpha/a/http".into(), 9999);
    lock.ports.insert("alpha/a/admin".into(), 20005);
    lock.ports.insert("alpha/gone/http".into(), 20006);
    let b = build_with_lock(
        &web_mesh("  assign web to alpha as a\n  assign web to alpha as b { http at 20005 }"),
        "all.mesh",
        &lock,
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let ports = ports_of(&b);
    assert_eq!(ports["alpha/b/http"], 20005);
    assert_ne!(ports["alpha/a/admin"], 20005);
    assert!((20000..=20099).contains(&ports["alpha/a/http"]));
    let l = &b.outcomes[0].lock;
    assert!(!l.ports.contains_key("alpha/gone/http"));
    assert!(
        !l.ports.contains_key("alpha/b/http"),
        "a placed port is not the lock's"
    );
}

/// A lock of `alpha/NAME/http` and `alpha/NAME/admin` for each name, in turn from 20000.
fn lock_of(names: &[&str]) -> Lock {
    let mut lock = Lock::default();
    let mut port = 20000;
    for name in names {
        for req in ["http", "admin"] {
            lock.ports.insert(format!("alpha/{name}/{req}"), port);
            port += 1;
        }
    }
    lock
}

#[test]
fn a_placement_on_a_locked_port_moves_its_holder_in_either_order() {
    // The lock gave a 20000/20001 and b 20002/20003.
    let lock = lock_of(&["a", "b"]);
    // The earlier assignment placed on the later one's port.
    let earlier = build_with_lock(
        &web_mesh("  assign web to alpha as a { http at 20002 }\n  assign web to alpha as b"),
        "all.mesh",
        &lock,
    );
    // The later assignment placed on the earlier one's port.
    let later = build_with_lock(
        &web_mesh("  assign web to alpha as a\n  assign web to alpha as b { http at 20000 }"),
        "all.mesh",
        &lock,
    );
    for (b, placed, holder, free) in [(&earlier, "a", "b", 20000), (&later, "b", "a", 20002)] {
        assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
        let ports = ports_of(b);
        let placed_on = if placed == "a" { 20002 } else { 20000 };
        let held_before = i64::from(lock.ports[&format!("alpha/{placed}/http")]);
        assert_eq!(ports[&format!("alpha/{placed}/http")], placed_on);
        // The holder moves to the lowest port nobody holds: the one the placed
        // assignment left.
        assert_eq!(ports[&format!("alpha/{holder}/http")], free, "{ports:?}");
        assert_eq!(held_before, free);
        // The other ports of the lock stay.
        for k in ["alpha/a/admin", "alpha/b/admin"] {
            assert_eq!(ports[k], i64::from(lock.ports[k]), "{k} moved");
        }
        let moves = &b.outcomes[0].port_moves;
        assert_eq!(moves.len(), 2, "{moves:?}");
        assert_eq!(
            moves[0],
            format!(
                "port `http` of `{holder}` on `alpha` was {placed_on} in the lock; moved to {free}: the mesh now places `http` of `{placed}` on `alpha` there"
            )
        );
        assert_eq!(
            moves[1],
            format!(
                "port `http` of `{placed}` on `alpha` was {held_before} in the lock; moved to {placed_on}: the mesh places it there"
            )
        );
    }
}

#[test]
fn a_lock_move_takes_the_lowest_free_port_and_moves_nothing_else() {
    // Three holders; the last is placed on the first one's port. The first moves, to
    // the lowest port left free (the last one's), and the middle one keeps its own.
    let lock = lock_of(&["a", "b", "c"]);
    let b = build_with_lock(
        &web_mesh(
            "  assign web to alpha as a\n  assign web to alpha as b\n  assign web to alpha as c { http at 20000 }",
        ),
        "all.mesh",
        &lock,
    );
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let ports = ports_of(&b);
    assert_eq!(ports["alpha/c/http"], 20000);
    assert_eq!(ports["alpha/a/http"], 20004);
    for k in [
        "alpha/a/admin",
        "alpha/b/http",
        "alpha/b/admin",
        "alpha/c/admin",
    ] {
        assert_eq!(ports[k], i64::from(lock.ports[k]), "{k} moved");
    }
    let moves = &b.outcomes[0].port_moves;
    assert_eq!(
        moves,
        &vec![
            "port `http` of `a` on `alpha` was 20000 in the lock; moved to 20004: the mesh now places `http` of `c` on `alpha` there".to_string(),
            "port `http` of `c` on `alpha` was 20004 in the lock; moved to 20000: the mesh places it there".to_string(),
        ]
    );
    // Built again with the lock it wrote, nothing moves.
    let again = build_with_lock(
        &web_mesh(
            "  assign web to alpha as a\n  assign web to alpha as b\n  assign web to alpha as c { http at 20000 }",
        ),
        "all.mesh",
        &b.outcomes[0].lock,
    );
    assert!(
        again.outcomes[0].port_moves.is_empty(),
        "{:?}",
        again.outcomes[0].port_moves
    );
    assert_eq!(ports_of(&again), ports);
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schema/manifest.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} breaks the schema:\n{}",
        errors.join("\n")
    );
}

#[test]
fn every_built_manifest_validates_against_the_schema() {
    let v = validator();
    let mut dirs: Vec<std::path::PathBuf> =
        std::fs::read_dir(repo_root().join("tests/cases/build"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
    if let Some(c) = conformance_dir() {
        dirs.extend(
            std::fs::read_dir(c.join("build"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    let mut count = 0;
    for dir in dirs.iter().filter(|d| d.join("expect.json").is_file()) {
        let spec: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).unwrap())
                .unwrap();
        let b = build(&read_mesh_files(dir), spec["build"].as_str().unwrap());
        for (node, bytes) in b.bytes() {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            assert_valid(&v, &doc, &format!("{}:{node}", dir.display()));
            count += 1;
        }
    }
    // Inline meshes that reach the other shapes: left out entries, templates, vault values.
    for (files, file) in [
        (
            mesh_files(
                r#"mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign pg to alpha
  assign app to alpha
  assign nothing to alpha
}"#,
            ),
            "mesh.mesh",
        ),
        (
            web_mesh("  assign web to alpha\n  assign web to alpha"),
            "all.mesh",
        ),
    ] {
        for (node, bytes) in build(&files, file).bytes() {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            assert_valid(&v, &doc, node.as_str());
            count += 1;
        }
    }
    assert!(count >= 6);
}

#[test]
fn the_schema_refuses_what_is_not_a_manifest() {
    let v = validator();
    let b = build(&lab(), "lab.mesh");
    let good = b.json("alpha").unwrap();
    // A secret written as a value where a sealed reference belongs.
    let mut bad = good.clone();
    bad["instances"][3]["containers"][0]["secrets"][0] =
        serde_json::json!({"target": "/run/secrets/db_password", "value": "hunter2"});
    assert!(!v.is_valid(&bad));
    // An env value that is not a string.
    let mut bad = good.clone();
    bad["instances"][3]["containers"][0]["env"]["FORGEJO__queue__WORKERS"] = serde_json::json!(8);
    assert!(!v.is_valid(&bad));
    // A manifest without its digest.
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().shift_remove("digest");
    assert!(!v.is_valid(&bad));
    // A requirement answered by an unknown way.
    let mut bad = good;
    bad["instances"][3]["requirements"]["db"]["by"] = serde_json::json!("guess");
    assert!(!v.is_valid(&bad));
}

#[test]
fn broken_input_never_panics() {
    // Every prefix of the lab, cut at a step, resolves without a panic.
    let files = lab();
    let all: String = files
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = all.as_bytes();
    let mut cut = 0;
    while cut < bytes.len() {
        if all.is_char_boundary(cut) {
            let text = &all[..cut];
            let _ = build(&one_file("cut.mesh", text), "cut.mesh");
            // And the same with one line dropped in the middle.
            let mut lines: Vec<&str> = all.lines().collect();
            let drop = cut % lines.len().max(1);
            if drop < lines.len() {
                lines.remove(drop);
            }
            let _ = build(&one_file("drop.mesh", &lines.join("\n")), "drop.mesh");
        }
        cut += 97;
    }
}

#[test]
fn two_secrets_from_one_vault_are_kept_under_two_keys() {
    let files = one_file(
        "all.mesh",
        r#"module keeper {
  requires api: host port { container = 8200 }
  container keeper { image "hashicorp/vault:1.17.6"  publish api }
  provides secret { }
}
module app {
  requires session: module secret
  requires signing: module secret { length = 64 }
  container app {
    image "nginx:1.27"
    secret "/run/secrets/session" = session.value
    secret "/run/secrets/signing" = signing.value
  }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  seat vault = keeper on alpha
  assign keeper to alpha
  assign app to alpha
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    let secrets = lookup(&alpha, "instances[instance=app].containers[0].secrets").unwrap();
    assert_eq!(secrets[0]["sealed"]["key"], "alpha_app/value");
    assert_eq!(secrets[1]["sealed"]["key"], "alpha_app/signing/value");
    let consumers = lookup(&alpha, "instances[instance=keeper].provides[0].consumers").unwrap();
    // The first is derivable from the login; the second says which requirement and key.
    assert_eq!(
        consumers[0],
        serde_json::json!({"node": "alpha", "private_name": "alpha.lab.internal", "instance": "app", "login": "alpha_app", "given": {"length": 32, "alphabet": "alnum"}})
    );
    assert_eq!(
        consumers[1],
        serde_json::json!({"node": "alpha", "private_name": "alpha.lab.internal", "instance": "app", "login": "alpha_app", "given": {"length": 64, "alphabet": "alnum"},
                           "requirement": "signing", "keys": {"value": "alpha_app/signing/value"}})
    );
    assert_valid(&validator(), &alpha, "alpha");
}

/// A secret operator value is kept by the vault under `<login>/<requirement>`, a secret
/// field under `<login>/<field>`: a requirement named like a field of another requirement
/// that the vault also answers takes the same key, and the later one in the definition
/// moves aside (`/value` for an operator value, `/<requirement>/<field>` for a field),
/// whichever form came first.
#[test]
fn an_operator_value_and_a_secret_field_of_one_vault_never_share_a_key() {
    let keeper = r#"module keeper {
  requires api: host port { container = 8200 }
  container keeper { image "hashicorp/vault:1.17.6"  publish api }
  provides secret { }
}
"#;
    let mesh = r#"
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  seat vault = keeper on alpha
  assign keeper to alpha
  assign app to alpha
}"#;
    let keys = |app: &str| -> Vec<String> {
        let files = one_file("all.mesh", &format!("{keeper}{app}{mesh}"));
        let b = build(&files, "all.mesh");
        assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
        let alpha = b.json("alpha").unwrap();
        let secrets = lookup(&alpha, "instances[instance=app].containers[0].secrets").unwrap();
        secrets
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sealed"]["key"].as_str().unwrap().to_string())
            .collect()
    };
    // The field first: the operator value named `value` moves aside.
    let field_first = keys(
        r#"module app {
  requires session: module secret
  requires value: operator secret string
  container app {
    image "nginx:1.27"
    secret "/run/secrets/session" = session.value
    secret "/run/secrets/value" = value
  }
}"#,
    );
    assert_eq!(field_first, ["alpha_app/value", "alpha_app/value/value"]);
    // The operator value first: the secret field `value` moves aside.
    let value_first = keys(
        r#"module app {
  requires value: operator secret string
  requires session: module secret
  container app {
    image "nginx:1.27"
    secret "/run/secrets/value" = value
    secret "/run/secrets/session" = session.value
  }
}"#,
    );
    assert_eq!(value_first, ["alpha_app/value", "alpha_app/session/value"]);
}

mod recombined {
    use super::*;
    use proptest::prelude::*;

    /// Lines a mesh may hold, right or wrong: nodes, seats and assignments, some naming
    /// things that are not there.
    const LINES: &[&str] = &[
        r#"node alpha { private_name = "alpha.lab.internal" }"#,
        r#"node beta { private_name = "beta.lab.internal"  ports = 21000..21001 }"#,
        r#"node gamma { root = "relative" }"#,
        "seat vault = keeper on alpha",
        "seat vault = pg on beta",
        "seat proxy = keeper on gamma",
        "assign keeper to alpha",
        "assign keeper to beta as near",
        "assign pg to alpha",
        "assign pg to beta { data at \"/mnt/pg\" }",
        "assign pg to beta as pg2 { data at \"/mnt/pg/inner\"  p at 21000 }",
        "assign app to alpha",
        "assign app to beta { db from pg on alpha  key from near on beta }",
        "assign app to gamma { db from nothing on alpha }",
        "assign app to alpha as app2 { short = \"two\"  db at \"/x\" }",
        "assign missing to alpha",
        "assign app to delta",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]
        #[test]
        fn any_recombination_resolves_without_panic(picks in proptest::collection::vec(0..LINES.len(), 0..14)) {
            let body: Vec<&str> = picks.iter().map(|&k| LINES[k]).collect();
            let mesh = format!("mesh lab {{\n  {}\n}}\n", body.join("\n  "));
            let files = mesh_files(&mesh);
            let a = build(&files, "mesh.mesh");
            let b = build(&files, "mesh.mesh");
            prop_assert_eq!(a.bytes(), b.bytes());
            for o in &a.outcomes {
                for l in &o.left_out {
                    prop_assert!(!l.diagnostics.is_empty(), "{} left out without a reason", l.instance);
                }
                prop_assert_eq!(o.refused(), o.has_errors() || !o.left_out.is_empty());
            }
        }
    }
}

/// The schema lists exactly the language's functions, each described as the compiler
/// applies it, so a host that renders a sealed template reads the same behaviour.
#[test]
fn the_schema_documents_every_function_as_the_compiler_applies_it() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("schema/manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let listed = schema["$defs"]["functions"]["oneOf"].as_array().unwrap();
    let names: Vec<&str> = listed
        .iter()
        .map(|f| f["const"].as_str().unwrap())
        .collect();
    let all: Vec<&str> = meshc::functions::Func::ALL
        .iter()
        .map(|f| f.name())
        .collect();
    assert_eq!(names, all);
    for (f, entry) in meshc::functions::Func::ALL.iter().zip(listed) {
        let text = entry["description"].as_str().unwrap();
        assert!(
            text.ends_with(&format!(": {}.", f.summary())),
            "the schema describes `{}` as {text:?}, the compiler as {:?}",
            f.name(),
            f.summary()
        );
    }
}

/// LANGUAGE.md §12.3: a provider's template runs over its consumers, so a consumer
/// that comes or goes changes the provider's manifest and its digest.
#[test]
fn a_provider_whose_consumers_change_gets_a_new_manifest() {
    let dir = repo_root().join("tests/cases/build/consumers");
    let files = read_mesh_files(&dir);
    let both = build(&files, "lab.mesh");
    assert_eq!(both.exit, 0, "{:?}", both.diagnostics());
    let one_files: Vec<(String, String)> = files
        .iter()
        .map(|(name, text)| {
            let text = text
                .lines()
                .filter(|l| !l.contains("as blog"))
                .collect::<Vec<_>>()
                .join("\n");
            (name.clone(), text)
        })
        .collect();
    let one = build(&one_files, "lab.mesh");
    assert_eq!(one.exit, 0, "{:?}", one.diagnostics());
    let (a2, a1) = (both.json("alpha").unwrap(), one.json("alpha").unwrap());
    assert_ne!(a2["digest"], a1["digest"]);
    let caddy = "instances[instance=proxy].containers[name=proxy].files[target=/etc/caddy/Caddyfile].content";
    let two_sites = lookup(&a2, caddy).unwrap().as_str().unwrap().to_string();
    let one_site = lookup(&a1, caddy).unwrap().as_str().unwrap().to_string();
    assert!(two_sites.contains("blog.example.org") && two_sites.contains("shop.example.org"));
    assert!(!one_site.contains("blog.example.org") && one_site.contains("shop.example.org"));
    // The sealed file keeps one pair of references per consumer, none for one gone.
    let refs = "instances[instance=relay].containers[name=relay].files[target=/etc/postfix/sasl_users].references";
    let two = lookup(&a2, refs).unwrap().as_object().unwrap().len();
    let one_refs = lookup(&a1, refs).unwrap().as_object().unwrap();
    assert_eq!(two, 4);
    assert_eq!(one_refs.len(), 2);
    assert!(one_refs.keys().all(|k| k.starts_with("c.beta_web_shop.")));
    // The consumer's own node did not change, and neither did its manifest's digest.
    assert_eq!(
        both.json("beta").unwrap()["digest"],
        one.json("beta").unwrap()["digest"]
    );
}

/// A provider's answer that reads nothing of its consumer is worked out once and given to
/// every consumer; one that reads `consumer.*` or `given.*`, even inside a string, is
/// worked out for each: three consumers with their own logins and given values each see
/// their own.
#[test]
fn answers_that_read_the_consumer_are_each_consumers_own() {
    let files = one_file(
        "all.mesh",
        r#"contract kv for module {
  host: hostname
  user: string
  label: string
  given tier: string = "low"
}
module store {
  requires here: host node
  container store { image "redis:7.4" }
  provides kv {
    host = here.private_name
    user = consumer.login
    label = "${given.tier} for ${consumer.instance} at ${here.private_name}"
  }
}
module fast {
  requires kv: module kv { tier = "high" }
  container fast { image "nginx:1.27"  env { H = kv.host  U = kv.user  L = kv.label } }
}
module slow {
  requires kv: module kv
  container slow { image "nginx:1.27"  env { H = kv.host  U = kv.user  L = kv.label } }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  assign store to alpha
  assign fast to alpha
  assign slow to beta
  assign fast to beta
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let env = |node: &str, instance: &str| {
        let doc = b.json(node).unwrap();
        lookup(&doc, &format!("instances[instance={instance}].containers")).unwrap()[0]["env"]
            .clone()
    };
    for (node, instance, tier) in [
        ("alpha", "fast", "high"),
        ("beta", "slow", "low"),
        ("beta", "fast", "high"),
    ] {
        let env = env(node, instance);
        assert_eq!(env["H"], "alpha.lab.internal", "{node}/{instance}");
        assert_eq!(env["U"], format!("{node}_{instance}"), "{node}/{instance}");
        assert_eq!(
            env["L"],
            format!("{tier} for {instance} at alpha.lab.internal"),
            "{node}/{instance}"
        );
    }
}

/// Issue 35: a build that left an instance out (its module unknown: renamed, or its file
/// moved away) rewrote the lock without that instance, so its ports went to the next
/// instance that asked. A left-out instance keeps its lock entries, and its ports are
/// held from every other instance, until its assignment is removed from the mesh.
#[test]
fn the_lock_keeps_the_ports_of_an_instance_a_failed_build_left_out() {
    let first = build(
        &web_mesh("  assign web to alpha as a\n  assign web to alpha as b"),
        "all.mesh",
    );
    assert_eq!(first.exit, 0);
    let lock = first.outcomes[0].lock.clone();
    let a_http = lock.ports["alpha/a/http"];
    let a_admin = lock.ports["alpha/a/admin"];
    // `a`'s module is renamed away (E0106): `a` is left out, and a new instance comes.
    let files: Vec<(String, String)> = web_mesh(
        "  assign gone to alpha as a\n  assign web to alpha as new\n  assign web to alpha as b",
    );
    let failed = build_with_lock(&files, "all.mesh", &lock);
    assert_eq!(failed.exit, 1, "the build leaves `a` out");
    let kept = &failed.outcomes[0].lock;
    assert_eq!(kept.ports.get("alpha/a/http"), Some(&a_http), "{kept:?}");
    assert_eq!(kept.ports.get("alpha/a/admin"), Some(&a_admin), "{kept:?}");
    let new: Vec<u16> = ["alpha/new/http", "alpha/new/admin"]
        .iter()
        .map(|k| kept.ports[*k])
        .collect();
    assert!(
        !new.contains(&a_http) && !new.contains(&a_admin),
        "the left-out instance's ports were handed on: {kept:?}"
    );
    // The next build, `a` fixed: it is where it was.
    let fixed = build_with_lock(
        &web_mesh(
            "  assign web to alpha as a\n  assign web to alpha as new\n  assign web to alpha as b",
        ),
        "all.mesh",
        kept,
    );
    assert_eq!(fixed.exit, 0);
    assert_eq!(fixed.outcomes[0].lock.ports["alpha/a/http"], a_http);
    // Removed from the mesh, its entries go.
    let removed = build_with_lock(
        &web_mesh("  assign web to alpha as new\n  assign web to alpha as b"),
        "all.mesh",
        kept,
    );
    assert!(!removed.outcomes[0].lock.ports.contains_key("alpha/a/http"));
}

/// Day two (LANGUAGE.md §14.1, §14.2, §14.7): every key a container gains, present where
/// written, absent where unused, and valid against the schema.
#[test]
fn health_job_after_group_and_sep_reach_the_manifest_as_written() {
    let files = one_file(
        "all.mesh",
        r#"module db {
  requires pg: host port { container = 5432 }
  requires names: operator list<string> = ["a", "b", "c"]
  container pg {
    image "postgres:18.6"
    user 999:70
    publish pg
    file "/etc/pg/names" = for n in names sep ", " "${n}"
    file "/etc/pg/one" owner 5 = for n in names sep "" "${n}"
    health ["pg_isready", "--port=${pg.container}"] retries 5 start "60s" every "7d"
  }
  job provision {
    image "alpine:3.20"
    user 999
    after pg
    command ["sh", "/mesh/provision"]
    file "/mesh/provision" = "select 1\n"
  }
  container api {
    image "nginx:1.27"
    after provision pg
    health ["true"]
    file "/etc/api/names" = for n in names "${n};"
  }
}
module solo {
  requires one: operator list<string> = ["x"]
  container solo {
    image "nginx:1.27"
    file "/etc/one" = for n in one sep "," "${n}"
  }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign db to alpha
  assign solo to alpha
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let alpha = b.json("alpha").unwrap();
    assert_valid(&validator(), &alpha, "the day-two manifest");
    let container = |name: &str| {
        lookup(
            &alpha,
            &format!("instances[instance=db].containers[name={name}]"),
        )
        .unwrap_or_else(|| panic!("no container {name}"))
        .clone()
    };
    let pg = container("db-pg");
    let job = container("db-provision");
    let api = container("db-api");
    // health: the ARGV evaluated, the durations as written, options in any order.
    assert_eq!(
        pg["health"],
        serde_json::json!({"test": ["pg_isready", "--port=5432"], "interval": "7d",
                           "start_period": "60s", "retries": 5})
    );
    // The defaults where no option is written.
    assert_eq!(
        api["health"],
        serde_json::json!({"test": ["true"], "interval": "30s", "start_period": "0s", "retries": 3})
    );
    assert!(job.get("health").is_none());
    // job: true on the job only.
    assert_eq!(job["job"], true);
    assert!(pg.get("job").is_none() && api.get("job").is_none());
    // after: the definition's names, in the order written; absent where unused.
    assert_eq!(job["after"], serde_json::json!(["pg"]));
    assert_eq!(api["after"], serde_json::json!(["provision", "pg"]));
    assert!(pg.get("after").is_none());
    // group: written with `user UID:GID`, the default group of files with no owner; a
    // file's own owner keeps its own group.
    assert_eq!(
        (pg["user"].clone(), pg["group"].clone()),
        (999.into(), 70.into())
    );
    let file = |c: &Value, target: &str| {
        lookup(c, &format!("files[target={target}]"))
            .unwrap_or_else(|| panic!("no file {target}"))
            .clone()
    };
    let names = file(&pg, "/etc/pg/names");
    assert_eq!(
        (names["owner"].clone(), names["group"].clone()),
        (999.into(), 70.into())
    );
    let one = file(&pg, "/etc/pg/one");
    assert_eq!(
        (one["owner"].clone(), one["group"].clone()),
        (5.into(), 5.into())
    );
    // `user UID` alone writes no group; its files' group is the uid.
    assert_eq!(job["user"], 999);
    assert!(job.get("group").is_none());
    let provision = file(&job, "/mesh/provision");
    assert_eq!(provision["group"], 999);
    // sep: between renderings, never after the last; none without `sep`.
    assert_eq!(names["content"], "a, b, c");
    assert_eq!(one["content"], "abc");
    assert_eq!(file(&api, "/etc/api/names")["content"], "a;b;c;");
    let solo = lookup(&alpha, "instances[instance=solo].containers[0]").unwrap();
    assert_eq!(file(solo, "/etc/one")["content"], "x");
    // A manifest with none of it writes none of the keys.
    let lab = build(&lab(), "lab.mesh");
    for (node, bytes) in lab.bytes() {
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        for i in doc["instances"].as_array().unwrap() {
            for c in i["containers"].as_array().unwrap() {
                for key in ["health", "job", "after", "group"] {
                    assert!(c.get(key).is_none(), "{node} writes `{key}`: {c}");
                }
            }
        }
    }
}

/// The order between instances on one node (LANGUAGE.md §14.1, §14.7) is not in the
/// manifest; `emit::same_node_providers` derives it from the manifest: pins and seats
/// answer like any provider, an absent optional requirement answers nothing, a provider
/// on another node is not waited for, and a cycle on one node writes no order.
#[test]
fn same_node_order_comes_from_the_manifest_and_skips_cycles() {
    let files = one_file(
        "all.mesh",
        r#"contract ping for module { host: hostname }
contract pong for module { host: hostname }
module pg {
  requires here: host node
  container pg { image "postgres:18.6" }
  provides postgres {
    host = here.private_name
    port = 5432
    database = consumer.login
    user = consumer.login
  }
}
module app {
  requires db: module postgres
  requires extra?: module postgres
  container app {
    image "nginx:1.27"
    env { H = db.host }
    when extra { env { X = extra.host } }
  }
}
module left {
  requires here: host node
  requires other: module pong
  container left { image "nginx:1.27"  env { H = other.host } }
  provides ping { host = here.private_name }
}
module right {
  requires here: host node
  requires other: module ping
  container right { image "nginx:1.27"  env { H = other.host } }
  provides pong { host = here.private_name }
}
module both {
  requires a: module ping
  requires b: module pong
  container both { image "nginx:1.27"  env { A = a.host  B = b.host } }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }
  assign pg to alpha
  assign pg to beta as pg-beta
  assign app to alpha { extra absent }
  assign app to alpha as app-pinned { db from pg-beta on beta  extra absent }
  assign app to beta as app-beta { extra absent }
  assign left to alpha
  assign right to alpha
  assign both to alpha
}"#,
    );
    let b = build(&files, "all.mesh");
    assert_eq!(b.exit, 0, "{:?}", b.diagnostics());
    let order = |node: &str| {
        let m = b
            .outcomes
            .iter()
            .find_map(|o| o.manifests.get(node))
            .unwrap();
        meshc::emit::same_node_providers(m)
            .into_iter()
            .collect::<Vec<(String, Vec<String>)>>()
    };
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // alpha: `app` waits for `pg` (its node's provider; `extra` is absent); `app-pinned`
    // is answered from beta and waits for nothing here; `left` and `right` answer each
    // other (no order between them), and `both` waits for the two.
    assert_eq!(
        order("alpha"),
        vec![
            ("app".to_string(), s(&["pg"])),
            ("both".to_string(), s(&["left", "right"])),
        ]
    );
    // beta: `app-beta` waits for `pg-beta`.
    assert_eq!(
        order("beta"),
        vec![("app-beta".to_string(), s(&["pg-beta"]))]
    );
}
