//! Snapshots of rendered human diagnostics, the input above the output: the best review
//! of an error message is reading it beside the source it points into.

#[path = "support/ci.rs"]
mod ci;

use meshc::db::{self, Database};
use meshc::diagnostics::render;
use meshc::span::FilePath;
use std::collections::HashMap;
use std::sync::Arc;

/// Checks `text` as the only file of a workspace and renders its diagnostics as
/// `meshc check` prints them (without colour).
fn render_case(text: &str) -> String {
    let path: FilePath = "case.mesh".into();
    let (database, ws) = Database::with_files([(path.clone(), Arc::from(text))]);
    let mut diags = db::workspace_diagnostics(&database, ws);
    diags.sort_by_key(|d| (d.file.clone(), d.span.start, d.code));
    let mut sources: HashMap<FilePath, Arc<str>> = HashMap::new();
    sources.insert(path, Arc::from(text));
    sources.insert(db::STDLIB_PATH.into(), Arc::from(db::STDLIB_TEXT));
    let out = render::to_human(&diags, &sources, false);
    format!("--- input\n{text}\n--- output\n{out}")
}

macro_rules! case {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            ci::refuse_update_modes_in_ci();
            insta::assert_snapshot!(render_case($text));
        }
    };
}

case!(
    syntax_missing_colon,
    "contract thing for module {\n  host hostname\n  port: port\n}\n"
);

case!(
    syntax_unclosed_block,
    "module a {\n  container a {\n    image \"nginx:1.27\"\n"
);

case!(
    syntax_errors_in_two_items,
    "module a {\n  requires db module postgres\n}\n\nmodule b {\n  container b { image 42 }\n}\n"
);

case!(
    bad_escape_and_number,
    "module a {\n  container a {\n    image \"nginx:1.27\"\n    file \"/etc/x\" mode 0o79 = \"a\\qb\"\n  }\n}\n"
);

case!(
    secret_into_env,
    "module a {\n  requires db: module postgres\n  container a {\n    image \"nginx:1.27\"\n    env { DB_PASSWORD = db.password }\n  }\n}\n"
);

case!(
    secret_through_interpolation,
    "module a {\n  requires db: module postgres\n  container a {\n    image \"nginx:1.27\"\n    env { URL = \"postgres://${db.user}:${db.password}@${db.host}/app\" }\n  }\n}\n"
);

case!(
    unknown_contract_did_you_mean,
    "module a {\n  requires db: module postgress\n  container a { image \"nginx:1.27\"  env { H = db.host } }\n}\n"
);

case!(
    unknown_field_did_you_mean,
    "module a {\n  requires db: module postgres\n  container a { image \"nginx:1.27\"  env { H = db.hots } }\n}\n"
);

case!(
    narrowing_widens,
    "module a {\n  requires db: module postgres { password len 8.. }\n  container a { image \"nginx:1.27\"  secret \"/run/secrets/db\" = db.password }\n}\n"
);

case!(
    host_path_into_env,
    "module a {\n  requires data: host directory\n  container a {\n    image \"nginx:1.27\"\n    mount data.path -> \"/data\"\n    env { DATA_DIR = data.path }\n  }\n}\n"
);

case!(
    duplicate_contract,
    "contract widget for module { url: url }\ncontract widget for module { url: url }\n"
);

case!(
    domain_in_definition,
    "module a {\n  container a { image \"nginx:1.27\"  env { UPSTREAM = \"api.example.com\" } }\n}\n"
);

case!(
    unresolved_everything_at_once,
    r#"module big {
  requires title: operator string
  requires db: module postgres
  requires key: module secret
  container big {
    image "nginx:1.27"
    env { T = title  H = db.host }
    secret "/run/secrets/db" = db.password
    secret "/run/secrets/key" = key.value
  }
}
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  assign big to alpha
}
"#
);

case!(
    function_unknown_and_wrong_arity,
    "module a {\n  requires db: module postgres\n  container a {\n    image \"nginx:1.27\"\n    user 1000\n    env { NAME = lowr(db.database)  HOST = replace(db.host, \"-\") }\n  }\n}\n"
);

case!(
    function_keeps_the_secret,
    "module a {\n  requires db: module postgres\n  container a {\n    image \"nginx:1.27\"\n    user 1000\n    env { DB_URL = \"postgres://u:${url(db.password)}@h/\" }\n  }\n}\n"
);

case!(
    port_nothing_publishes,
    "module a {\n  requires http: host port { container = 80 }\n  requires route: module route { target = http.host_port }\n  container a { image \"nginx:1.27\"  env { URL = route.url } }\n}\n"
);

case!(
    owner_missing_and_half_written,
    "module a {\n  requires db: module postgres\n  container a {\n    image \"nginx:1.27\"\n    secret \"/run/secrets/db\" = db.password\n    file \"/etc/a.conf\" owner 1000: = \"a\\n\"\n    file \"/etc/b.conf\" owner -1 = \"b\\n\"\n  }\n}\n"
);

case!(
    consumers_of_a_contract_not_provided,
    "module proxy {\n  requires http: host port { container = 80 }\n  provides route { url = \"https://${given.public_name}\" }\n  container caddy {\n    image \"caddy:2.8\"\n    publish http\n    file \"/etc/caddy/Caddyfile\" = for c in consumers smtp \"${c.login}\\n\"\n  }\n}\n"
);

case!(
    for_with_nothing_to_run_over,
    "module proxy {\n  requires http: host port { container = 80 }\n  provides route { url = \"https://${given.public_name}\" }\n  container caddy {\n    image \"caddy:2.8\"\n    env { SITES = for c in }\n    publish http\n  }\n}\n"
);

case!(
    loop_variable_outside_its_loop,
    "module proxy {\n  requires http: host port { container = 80 }\n  provides route { url = \"https://${given.public_name}\" }\n  container caddy {\n    image \"caddy:2.8\"\n    publish http\n    env {\n      SITES = for c in consumers route \"${c.given.public_name} \"\n      LAST = c.login\n    }\n  }\n}\n"
);
