//! Completion offers exactly the keyword table's words in each place the table names
//! (`meshc::syntax::keywords`): no word the table does not list there, none missing.

mod support;

use meshc::syntax::keywords::{self, Place};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use support::{TestClient, position};

/// A document per place, `$0` at the cursor. Modules have no requirements and meshes
/// no instances, so the only keyword or property items are the table's.
fn document(place: Place) -> &'static str {
    match place {
        Place::Top => "$0",
        Place::ContractHead => "contract c $0",
        Place::ContractKind => "contract c for $0",
        Place::Contract => "contract c for module {\n  $0\n}\n",
        Place::Module => "module m {\n  $0\n}\n",
        Place::RequirementKind => "module m {\n  requires x: $0\n}\n",
        Place::Container => "module m {\n  container c {\n    $0\n  }\n}\n",
        Place::FileOwner => {
            "module m {\n  container c {\n    image \"x:1\"\n    file \"/x\" $0\n  }\n}\n"
        }
        Place::FileMode => {
            "module m {\n  container c {\n    image \"x:1\"\n    file \"/x\" owner 1000 $0\n  }\n}\n"
        }
        Place::EnvValue => {
            "module m {\n  container c {\n    image \"x:1\"\n    env {\n      A = \"x\" $0\n    }\n  }\n}\n"
        }
        Place::Narrowing => {
            "contract c for module {\n  f: int\n}\nmodule m {\n  requires x: module c {\n    f $0\n  }\n}\n"
        }
        Place::Provides => {
            "contract c for module {\n  url: string\n}\nmodule m {\n  provides c {\n    url = $0\n  }\n}\n"
        }
        Place::Mesh => "mesh l {\n  $0\n}\n",
        Place::AssignModule => "mesh l {\n  assign m $0\n}\n",
        Place::AssignNode => {
            "mesh l {\n  node a { private_name = \"a.lan\" }\n  assign m to a $0\n}\n"
        }
        Place::SeatInstance => "mesh l {\n  seat s = i $0\n}\n",
        Place::Node => "mesh l {\n  node a {\n    $0\n  }\n}\n",
        Place::Assign => {
            "module m {\n  container c { image \"x:1\" }\n}\nmesh l {\n  node a { private_name = \"a.lan\" }\n  assign m to a {\n    $0\n  }\n}\n"
        }
        Place::Placement => {
            "module m {\n  container c { image \"x:1\" }\n}\nmesh l {\n  node a { private_name = \"a.lan\" }\n  assign m to a {\n    x $0\n  }\n}\n"
        }
        Place::PlacementNode => {
            "module m {\n  container c { image \"x:1\" }\n}\nmesh l {\n  node a { private_name = \"a.lan\" }\n  assign m to a {\n    x from i $0\n  }\n}\n"
        }
    }
}

/// LSP's completion item kinds for a keyword and a property.
const KEYWORD: u64 = 14;
const PROPERTY: u64 = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_the_tables_words_in_each_place() {
    let rel = "k.mesh";
    let mut client = TestClient::start(&[(rel.to_string(), String::new())], false).await;
    for (version, &place) in (1..).zip(Place::ALL) {
        let marked = document(place);
        let offset = marked.find("$0").expect("a cursor");
        let text = marked.replace("$0", "");
        if version == 1 {
            client.open(rel, &text, version).await;
        } else {
            client.change(rel, &text, version).await;
        }
        let at = json!({
            "textDocument": {"uri": client.uri(rel)},
            "position": position(&text, offset, false),
        });
        let items = match client.request("textDocument/completion", at).await {
            Ok(Value::Array(items)) => items,
            other => panic!("{place:?}: no completion list: {other:?}"),
        };
        let got: BTreeSet<(String, u64)> = items
            .iter()
            .filter(|i| i["kind"] == KEYWORD || i["kind"] == PROPERTY)
            .map(|i| {
                (
                    i["label"].as_str().unwrap().to_string(),
                    i["kind"].as_u64().unwrap(),
                )
            })
            .collect();
        let want: BTreeSet<(String, u64)> = keywords::offered(place)
            .map(|k| {
                let kind = if k.kind == keywords::Kind::Property {
                    PROPERTY
                } else {
                    KEYWORD
                };
                (k.word.to_string(), kind)
            })
            .collect();
        assert!(!want.is_empty(), "{place:?} offers nothing in the table");
        assert_eq!(got, want, "{place:?} in {text:?}");
        // Each item carries the table's documentation.
        for i in items.iter().filter(|i| i["kind"] == KEYWORD) {
            let label = i["label"].as_str().unwrap();
            let row = keywords::offered(place).find(|k| k.word == label).unwrap();
            assert_eq!(i["documentation"]["value"], row.doc, "{place:?} `{label}`");
        }
    }
    client.shutdown().await;
}
