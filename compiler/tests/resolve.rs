//! Resolution: hand-written cases of what a fixture header cannot say (which manifest
//! holds what, which span a diagnostic points at), and the header reader's own tests.
//! The fixture cases of `tests/cases/resolve/` run in `tests/cases.rs`.

mod support;
use support as common;

use common::*;

/// The diagnostics `meshc check` reports for one file.
fn diagnostics_of(text: &str) -> Vec<meshc::diagnostics::Diagnostic> {
    check_workspace(&one_file("case.mesh", text))
}

#[test]
fn a_host_requirement_placed_on_another_node_is_refused() {
    let text = format!(
        r#"{PG}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal" }}
  node beta {{ private_name = "beta.lab.internal" }}
  assign pg to alpha {{ data at "/mnt/disk2/pg" on beta }}
}}"#
    );
    let b = build(&one_file("case.mesh", &text), "case.mesh");
    let d: Vec<_> = b
        .diagnostics()
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.as_str(), "E0506");
    assert!(d[0].message.contains("`data`") && d[0].message.contains("`beta`"));
    assert_eq!(b.outcomes[0].left_out.len(), 1);
    assert_eq!(b.exit, 1);
}

#[test]
fn three_unresolved_requirements_of_different_kinds_are_refused_in_one_run() {
    let text = format!(
        r#"{PG}
module keeper {{
  requires api: host port {{ container = 8200 }}
  container keeper {{ image "hashicorp/vault:1.17.6"  publish api }}
  provides secret {{ }}
}}
module big {{
  requires title: operator string
  requires db: module postgres
  requires key: module secret
  container big {{
    image "nginx:1.27"
    env {{ T = title  H = db.host }}
    secret "/run/secrets/db" = db.password
    secret "/run/secrets/key" = key.value
  }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal" }}
  assign big to alpha
}}"#
    );
    let b = build(&one_file("case.mesh", &text), "case.mesh");
    let outcome = &b.outcomes[0];
    assert_eq!(outcome.left_out.len(), 1);
    let left = &outcome.left_out[0];
    let codes: Vec<&str> = left.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes.len(), 3, "{codes:?}");
    for (code, requirement, answer) in [
        ("E0501", "`title`", "title = …"),
        ("E0502", "`db`", "`pg`"),
        ("E0504", "`key`", "`keeper`"),
    ] {
        let d = left
            .diagnostics
            .iter()
            .find(|d| d.code.as_str() == code)
            .unwrap_or_else(|| panic!("no {code}"));
        assert!(d.message.contains(requirement), "{code}: {}", d.message);
        let help = d.help.clone().unwrap_or_default();
        assert!(help.contains(answer), "{code} names no answer: {help}");
    }
    // The manifest lists all three too.
    let alpha = b.json("alpha").unwrap();
    assert_eq!(
        lookup(&alpha, "left_out[instance=big].diagnostics")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn refusal_says_every_problem_of_every_assignment_at_once() {
    let text = format!(
        r#"{PG}
module web {{
  requires http: host port {{ container = 80 }}
  requires title: operator string
  container web {{ image "nginx:1.27"  publish http  env {{ T = title }} }}
}}
module app {{
  requires db: module postgres
  container app {{ image "nginx:1.27"  env {{ H = db.host }} }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal" }}
  assign web to alpha {{ titel = "x" }}
  assign web to alpha as web-two {{ short = "two"  http at 70000 }}
  assign app to alpha
  assign pg to gamma
}}"#
    );
    let codes: Vec<String> = diagnostics_of(&text)
        .iter()
        .map(|d| d.code.as_str().to_string())
        .collect();
    for want in ["E0517", "E0501", "E0513", "E0502", "E0107"] {
        assert!(
            codes.iter().any(|c| c == want),
            "{want} missing from {codes:?}"
        );
    }
}

#[test]
fn an_unanswered_requirement_names_itself_and_its_possible_sources() {
    let text = format!(
        r#"{PG}
module app {{
  requires db: module postgres
  container app {{ image "nginx:1.27"  env {{ H = db.host }} }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha.lab.internal" }}
  assign app to alpha
}}"#
    );
    let d = diagnostics_of(&text);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.as_str(), "E0502");
    assert!(d[0].message.contains("`db`") && d[0].message.contains("`postgres`"));
    assert!(d[0].help.as_ref().unwrap().contains("assign pg to alpha"));
}

#[test]
fn a_public_name_taken_is_refused_naming_the_holder() {
    let text = r#"
module proxy {
  requires https: host port { container = 443 }
  container proxy { image "caddy:2.8.4"  publish https }
  provides route { url = "https://${given.public_name}" }
}
module site {
  requires http: host port { container = 8080 }
  requires route: module route { target = http.host_port }
  container site { image "nginx:1.27"  publish http  env { URL = route.url } }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  seat proxy = proxy on alpha
  assign proxy to alpha
  assign site to alpha { route.public_name = "www.example.org" }
  assign site to alpha as site-two { route.public_name = "www.example.org" }
}"#;
    let b = build(&one_file("case.mesh", text), "case.mesh");
    let errors: Vec<_> = b
        .diagnostics()
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code.as_str(), "E0507");
    assert!(
        errors[0].message.contains("`site-two`"),
        "{}",
        errors[0].message
    );
    assert!(
        errors[0].message.contains("taken by `site` on `alpha`"),
        "{}",
        errors[0].message
    );
    // The holder is built; the second is left out.
    let alpha = b.json("alpha").unwrap();
    assert!(lookup(&alpha, "instances[instance=site]").is_some());
    assert!(lookup(&alpha, "left_out[instance=site-two]").is_some());
}

#[test]
fn an_instance_name_taken_keeps_the_first_and_says_nothing_else() {
    let text = r#"
module web { container web { image "nginx:1.27" } }
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign web to alpha
  assign web to alpha
}"#;
    let d = diagnostics_of(text);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.as_str(), "E0508");
    let b = build(&one_file("case.mesh", text), "case.mesh");
    let alpha = b.json("alpha").unwrap();
    assert_eq!(alpha["instances"].as_array().unwrap().len(), 1);
    assert_eq!(
        lookup(&alpha, "left_out[instance=web].diagnostics[0].code").unwrap(),
        "E0508"
    );
}

#[test]
fn a_mesh_the_workspace_does_not_declare_gives_an_empty_outcome() {
    let (db, ws) = workspace(&one_file(
        "a.mesh",
        "module a { container a { image \"nginx:1.27\" } }",
    ));
    let o = meshc::db::resolve_mesh(&db, ws, "nope".into(), meshc::resolve::Lock::default());
    assert!(o.manifests.is_empty() && o.diagnostics.is_empty());
}

#[test]
fn a_misspelt_header_key_fails_the_case() {
    let text = "// expect: ok\n// expect-txt: alpha\nmesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n}\n";
    let err = run_check_case("case.mesh", text).unwrap_err();
    assert!(err.contains("unknown header key `expect-txt:`"), "{err}");
}

#[test]
fn expect_count_fails_on_one_more_or_one_fewer() {
    let text = |n: usize| {
        format!(
            "// expect: E0106\n// expect-count: E0106={n}\nmesh lab {{\n  node alpha {{ private_name = \"alpha.lab.internal\" }}\n  assign nothing to alpha\n}}\n"
        )
    };
    let once = run_check_case("case.mesh", &text(1));
    assert!(once.is_ok(), "{once:?}");
    for n in [0, 2] {
        let err = run_check_case("case.mesh", &text(n)).unwrap_err();
        assert!(err.contains(&format!("expected exactly {n}")), "{err}");
    }
}

#[test]
fn flags_the_in_process_runner_cannot_honour_fail_the_case() {
    let text = "// expect: ok\n// flags: --format sarif\nmesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n}\n";
    let err = run_check_case("case.mesh", text).unwrap_err();
    assert!(err.contains("cannot be honoured"), "{err}");
}

#[test]
fn deny_flags_are_honoured_in_process() {
    // An unused requirement is W0001: a warning, an error under `--deny warnings`, and
    // still a warning under `--deny old-forms` (it is no old form).
    let case = |flags: &str, expect: &str| {
        format!(
            "// expect: {expect}\n{flags}module web {{\n  requires title: operator string\n  container web {{ image \"nginx:1.27\" }}\n}}\n"
        )
    };
    assert_eq!(run_check_case("case.mesh", &case("", "ok")), Ok(()));
    let denied = case("// flags: --deny warnings\n", "ok");
    let err = run_check_case("case.mesh", &denied).unwrap_err();
    assert!(err.contains("expected no errors"), "{err}");
    let denied = case("// flags: --deny warnings\n// exit: 1\n", "W0001");
    assert_eq!(run_check_case("case.mesh", &denied), Ok(()));
    let old_forms = case("// flags: --deny old-forms\n", "ok");
    assert_eq!(run_check_case("case.mesh", &old_forms), Ok(()));
}

#[test]
fn malformed_header_values_fail_the_case() {
    let body = "mesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n}\n";
    for (header, why) in [
        ("// allow: E0005\n", "no `// expect:` line"),
        ("// expect: E9999\n", "unknown code `E9999`"),
        (
            "// expect: ok E0106\n",
            "`expect: ok` beside expected codes",
        ),
        ("// expect: ok\n// exit: one\n", "is not a number"),
        ("// expect: ok\n// expect-count: E0106\n", "is not CODE=N"),
        ("// expect: ok\n// expect-in: E0106\n", "is not CODE TEXT"),
    ] {
        let err = run_check_case("case.mesh", &format!("{header}{body}")).unwrap_err();
        assert!(err.contains(why), "{header:?}: {err}");
    }
    // A directive after the first line of source is no header line.
    let late = format!("// expect: ok\n{body}// expect: E0106\n");
    assert_eq!(run_check_case("case.mesh", &late), Ok(()));
}

#[test]
fn prose_wrapped_before_a_colon_is_not_a_header_key() {
    for prose in ["user", "both", "note", "value"] {
        assert!(!looks_like_key(prose, CASE_KEYS), "{prose}");
    }
    for misspelt in [
        "expect-txt",
        "expct",
        "expects",
        "alow",
        "flag",
        "exits",
        "expect-cnt",
    ] {
        assert!(looks_like_key(misspelt, CASE_KEYS), "{misspelt}");
    }
}

#[test]
fn a_group_of_alike_logins_names_eight_others_and_counts_the_rest() {
    // `webo1`, `webo2`, … all cut to the short form `webo`: one group of alike logins.
    for others in [7usize, 8, 9, 10] {
        let assigns: String = (1..=others + 1)
            .map(|k| format!("  assign web to alpha as webo{k}\n"))
            .collect();
        let text = format!(
            "module web {{\n  container web {{ image \"nginx:1.27\" }}\n}}\nmesh lab {{\n  node alpha {{ private_name = \"alpha.lab.internal\" }}\n{assigns}}}\n"
        );
        let d = diagnostics_of(&text);
        let alike: Vec<_> = d.iter().filter(|d| d.code.as_str() == "E0509").collect();
        assert_eq!(alike.len(), 1, "{others} others: {d:?}");
        let message = &alike[0].message;
        assert!(
            message.starts_with("the login `alpha_web_webo` of `webo1` on `alpha` is alike"),
            "{message}"
        );
        let named = (2..=others + 1)
            .filter(|k| message.contains(&format!("`webo{k}` on `alpha`")))
            .count();
        assert_eq!(named, others.min(8), "{others} others: {message}");
        assert_eq!(alike[0].labels.len(), others.min(8), "{others} others");
        if others > 8 {
            assert!(
                message.ends_with(&format!("and {} more", others - 8)),
                "{others} others: {message}"
            );
        } else {
            assert!(!message.contains("more"), "{others} others: {message}");
        }
    }
}

#[test]
fn a_public_name_taken_points_at_both_entries() {
    let text = std::fs::read_to_string(
        repo_root().join("tests/cases/resolve/e0507_public_name_taken.mesh"),
    )
    .unwrap();
    let at = |span: meshc::span::Span| &text[span.start as usize..span.end as usize];
    let d = diagnostics_of(&text);
    let taken: Vec<_> = d.iter().filter(|d| d.code.as_str() == "E0507").collect();
    assert_eq!(taken.len(), 1, "{d:?}");
    assert_eq!(
        at(taken[0].span),
        "route.public_name = \"WWW.example.org\"",
        "the refused entry"
    );
    assert_eq!(taken[0].labels.len(), 1);
    assert_eq!(
        at(taken[0].labels[0].span),
        "route.public_name = \"www.example.org\"",
        "the holder's entry"
    );
}

#[test]
fn an_instance_waiting_for_itself_is_left_out_for_its_own_reason_only() {
    // The vault's holder keeps its own secret operator value, so it waits for itself;
    // left out for a missing value, its manifest entry lists that refusal and no E0514.
    let text = std::fs::read_to_string(
        repo_root().join("tests/cases/resolve/e0514_waits_for_itself_is_not_told.mesh"),
    )
    .unwrap();
    let b = build(&one_file("case.mesh", &text), "case.mesh");
    let alpha = b.json("alpha").unwrap();
    let codes: Vec<&str> = lookup(&alpha, "left_out[instance=keeper].diagnostics")
        .and_then(|d| d.as_array())
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["E0501"], "{alpha}");
    let beta = b.json("beta").unwrap();
    assert_eq!(
        lookup(&beta, "left_out[instance=api].diagnostics[0].code").unwrap(),
        "E0514"
    );
}

/// A provider whose answer reads a requirement it does not have (E0104), and a consumer
/// whose module requirement it answers: resolution evaluates the answer for the
/// consumer and meets the reference the checker refused.
fn reads_what_it_lacks() -> String {
    provider_and_consumer(
        r#"  container prov { image "nginx:1.27" }
  provides tokc { url = nope.url }
"#,
    )
}

/// Module `prov`, whose body is `prov_body`, answering contract `tokc` to module `app` on
/// one node.
fn provider_and_consumer(prov_body: &str) -> String {
    format!(
        r#"contract tokc for module {{
  url: string
}}
module prov {{
{prov_body}}}
module app {{
  requires up: module tokc
  container app {{ image "nginx:1.27"  env {{ U = up.url }} }}
}}
mesh lab {{
  node alpha {{ private_name = "alpha" }}
  assign prov to alpha
  assign app to alpha
}}
"#
    )
}

/// Resolution passes over what the checker refused only on the proof the checker
/// reported it: here it did (E0104 in `prov`), so resolution goes on, leaves `prov` out
/// listing that error and `app` out waiting for it (E0514), and builds nothing.
#[test]
fn resolution_passes_over_a_refused_reference_on_the_checkers_error() {
    let b = build(&one_file("case.mesh", &reads_what_it_lacks()), "case.mesh");
    let codes: Vec<&str> = b.diagnostics().iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"E0104"), "{codes:?}");
    assert!(codes.contains(&"E0514"), "{codes:?}");
    let left: Vec<&str> = b.outcomes[0]
        .left_out
        .iter()
        .map(|l| l.instance.as_str())
        .collect();
    assert_eq!(left, ["prov", "app"]);
    assert!(b.manifests().iter().all(|m| m.instances.is_empty()));
    assert_eq!(b.exit, 1);
}

/// `prov` reads a requirement of a contract the workspace lacks: the reference reads
/// nothing, and the cause (E0103) is reported where the requirement names the contract.
#[cfg(debug_assertions)]
fn reads_an_unknown_contract() -> String {
    provider_and_consumer(
        r#"  requires x: module nosuch
  container prov { image "nginx:1.27" }
  provides tokc { url = x.url }
"#,
    )
}

/// Resolves mesh `lab` of the one file `case.mesh` holding `source`, told of no error
/// in any module (as if the checker had missed one).
fn case_told_of_no_error(source: &str, manifests: bool) -> meshc::resolve::MeshOutcome {
    resolve_told_of_no_error(
        &one_file("case.mesh", source),
        "case.mesh",
        "lab",
        manifests,
    )
}

/// The other side of the proof: a module the checker passed never reaches a place where
/// resolution passes over a refusal. A reference the checker refused itself carries its
/// proof in the table of readings (`check::readings`), so resolution needs none from the
/// module's errors; what reads nothing for a cause told elsewhere (here E0103, at the
/// requirement: the requirement itself, and the reference reading it) goes through the
/// gate. Told of no error in `prov` (as if the checker had missed its E0103), resolution
/// meets it without a proof, and debug builds, every test among them, stop there instead
/// of leaving a value out silently.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "in module `prov`, in which the checker reported no error")]
fn a_module_without_a_reported_error_never_reaches_a_passed_over_refusal() {
    let _ = case_told_of_no_error(&reads_an_unknown_contract(), false);
}

/// `app` requires a module contract the workspace lacks (E0103, the checker's), which
/// the provider choice meets at its gate.
fn requires_an_unknown_contract() -> &'static str {
    r#"module app {
  requires db: module nosuch
  container app { image "nginx:1.27" }
}
mesh lab {
  node alpha { private_name = "alpha" }
  assign app to alpha
}
"#
}

/// A phase's gate (the provider choice's) asks for the checker's proof as the
/// evaluator's does: told of no error, debug builds stop there.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "passed over E0103 in module `app`")]
fn an_unknown_contract_goes_through_the_provider_choices_gate() {
    let _ = case_told_of_no_error(requires_an_unknown_contract(), false);
}

/// The phase's gate in a release build: no longer passing over the unknown contract in
/// silence, it refuses `app` with the checker's miss (E0103), which leaves it out.
#[cfg(not(debug_assertions))]
#[test]
fn a_release_build_reports_a_checkers_miss_met_at_a_phases_gate() {
    app_left_out_for_a_checkers_miss(requires_an_unknown_contract(), "E0103");
}

/// Resolves `source` told of no error, as a release build: `app` is left out for the
/// checker's miss of `code` met at a gate, and no manifest holds an instance.
#[cfg(not(debug_assertions))]
fn app_left_out_for_a_checkers_miss(source: &str, code: &str) {
    let outcome = case_told_of_no_error(source, true);
    let [left] = &outcome.left_out[..] else {
        panic!("{:?}", outcome.left_out)
    };
    assert_eq!(left.instance, "app");
    assert!(
        left.diagnostics
            .iter()
            .any(|d| d.code.as_str() == code && d.message.contains("which the checker passed")),
        "{:?}",
        left.diagnostics
    );
    assert!(outcome.manifests.values().all(|m| m.instances.is_empty()));
}

/// A reference the checker refused (E0104 in `prov`) is held by the proof the checker
/// wrote beside its reading: told of no error in `prov`, resolution reaches no gate for
/// it (it would stop there in a debug build, as above) and leaves nothing out for it.
#[test]
fn a_refused_reading_carries_the_checkers_proof() {
    let outcome = case_told_of_no_error(&reads_what_it_lacks(), false);
    assert!(outcome.left_out.is_empty(), "{:?}", outcome.left_out);
}

/// `app` reads a range where a value belongs (E0301, the checker's).
fn reads_a_range() -> &'static str {
    r#"module app {
  requires n: operator int = 1..3
  container app { image "nginx:1.27"  env { N = n } }
}
mesh lab {
  node alpha { private_name = "alpha" }
  assign app to alpha
}
"#
}

/// A range where a value belongs passes the gate on the checker's proof, no longer
/// skipped without one: told of no error, debug builds stop there.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "passed over E0301 in module `app`")]
fn a_range_read_as_a_value_goes_through_the_gate() {
    let _ = case_told_of_no_error(reads_a_range(), false);
}

/// The gate's other side in a release build, where nothing asserts: told of no error,
/// resolution does not pass over the range in silence but reports the checker's miss
/// with the checker's code (E0301), and leaves `app` out for it. (Run by `cargo test
/// --release`; a debug build stops at the gate, as the test above shows.)
#[cfg(not(debug_assertions))]
#[test]
fn a_release_build_reports_a_checkers_miss_met_at_the_gate() {
    app_left_out_for_a_checkers_miss(reads_a_range(), "E0301");
}
