//! `meshc graph` on the catalogue's meshes: the drawing's structure matches what `meshc
//! build` resolves (every node, every instance, an arrow per consumer and provider with
//! the rule that chose it, seats marked, instances left out shown with why), in SVG, DOT
//! and Mermaid; and the SVG is opened in headless Chromium, whose screenshot is kept in
//! target/graph-artefacts/ for a person to look at.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

#[path = "support/command.rs"]
mod command;
use command::{meshc, repo_root, stdout_ok};

/// The manifests `meshc build` writes for `mesh` (a file of the catalogue).
fn manifests(mesh: &str) -> Vec<Value> {
    let out = tempfile::tempdir().unwrap();
    let built = meshc(
        &repo_root(),
        &[
            "build",
            &format!("catalogue/{mesh}"),
            "catalogue",
            "--out",
            out.path().to_str().unwrap(),
            "--locked",
        ],
    );
    assert_eq!(built.status.code(), Some(0));
    // Every `<node>.json`; the build's own index (`.meshc-build.json`) is no manifest.
    let mut all: Vec<Value> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    all.sort_by_key(|m: &Value| m["node"].as_str().unwrap().to_string());
    all
}

/// Every value of attribute `attr` on the groups whose class is `class`.
fn attrs(svg: &str, class: &str, attr: &str) -> Vec<String> {
    svg.split("<g class=\"")
        .skip(1)
        .filter(|g| g.starts_with(class) && g[class.len()..].starts_with('"'))
        .filter_map(|g| {
            let head = &g[..g.find('>').unwrap()];
            let at = head.find(&format!(" {attr}=\""))? + attr.len() + 3;
            Some(head[at..at + head[at..].find('"').unwrap()].to_string())
        })
        .collect()
}

/// Tags open and close in order: the SVG is well formed as far as a browser cares.
fn balanced(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.ends_with('/') {
            continue;
        }
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if tag.starts_with('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.as_str()),
                "</{name}> closes another tag"
            );
        } else {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

/// Every module requirement the SVG draws, as `node/instance requirement -> node/instance
/// rule`: an arrow of its own, or a line of a seat holder's grouped delivery.
fn drawn_requirements(svg: &str) -> BTreeSet<String> {
    let mut edges = BTreeSet::new();
    let from = attrs(svg, "edge", "data-from");
    let to = attrs(svg, "edge", "data-to");
    let by = attrs(svg, "edge", "data-by");
    let reqs = attrs(svg, "edge", "data-requirements");
    for k in 0..from.len() {
        for req in reqs[k].split(' ') {
            assert!(
                edges.insert(format!("{} {req} -> {} {}", from[k], to[k], by[k])),
                "drawn twice"
            );
        }
    }
    let node = attrs(svg, "seat-delivery", "data-node");
    let to = attrs(svg, "seat-delivery", "data-to");
    let reqs = attrs(svg, "seat-delivery", "data-requirements");
    for k in 0..node.len() {
        for consumer_req in reqs[k].split(' ') {
            let (consumer, req) = consumer_req.split_once('.').unwrap();
            assert!(
                edges.insert(format!("{}/{consumer} {req} -> {} seat", node[k], to[k])),
                "drawn twice"
            );
        }
    }
    edges
}

#[test]
fn the_lab_is_drawn_as_it_resolves() {
    let svg = stdout_ok(&meshc(
        &repo_root(),
        &["graph", "catalogue/lab.mesh", "catalogue"],
    ));
    let each = stdout_ok(&meshc(
        &repo_root(),
        &["graph", "catalogue/lab.mesh", "catalogue", "--each-seat"],
    ));
    balanced(&each);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    balanced(&svg);
    let built = manifests("lab.mesh");
    // Every node is a box, in the mesh's order.
    assert_eq!(attrs(&svg, "node", "data-node"), ["alpha", "beta", "gamma"]);
    // Every instance sits in its node's box.
    let drawn: BTreeSet<String> = ["instance", "instance seat", "instance left-out"]
        .iter()
        .flat_map(|class| {
            attrs(&svg, class, "data-node")
                .into_iter()
                .zip(attrs(&svg, class, "data-instance"))
        })
        .map(|(n, i)| format!("{n}/{i}"))
        .collect();
    let mut expected_instances = BTreeSet::new();
    // Every module requirement is an arrow from its consumer to its provider, with the
    // rule that chose it.
    let mut expected_edges = BTreeSet::new();
    for m in &built {
        let node = m["node"].as_str().unwrap();
        for inst in m["instances"].as_array().unwrap() {
            let name = inst["instance"].as_str().unwrap();
            expected_instances.insert(format!("{node}/{name}"));
            for (req, r) in inst["requirements"].as_object().unwrap() {
                if r["kind"] == "module" && r.get("provider").is_some() {
                    expected_edges.insert(format!(
                        "{node}/{name} {req} -> {}/{} {}",
                        r["provider"]["node"].as_str().unwrap(),
                        r["provider"]["instance"].as_str().unwrap(),
                        r["by"].as_str().unwrap()
                    ));
                }
            }
        }
        assert!(m["left_out"].as_array().unwrap().is_empty());
    }
    assert_eq!(drawn, expected_instances);
    // Grouped or one arrow each, every requirement is drawn once.
    assert_eq!(drawn_requirements(&svg), expected_edges);
    assert_eq!(drawn_requirements(&each), expected_edges);
    // Seat deliveries are grouped: one arrow per holder and node of consumers, none of
    // them an arrow of its own; `--each-seat` draws them one per consumer.
    let by = attrs(&svg, "edge", "data-by");
    assert!(!by.iter().any(|b| b == "seat"));
    let groups: Vec<(String, String)> = attrs(&svg, "seat-delivery", "data-node")
        .into_iter()
        .zip(attrs(&svg, "seat-delivery", "data-to"))
        .collect();
    let unique: BTreeSet<&(String, String)> = groups.iter().collect();
    assert_eq!(unique.len(), groups.len(), "one arrow per holder and node");
    let seat_edges = expected_edges
        .iter()
        .filter(|e| e.ends_with(" seat"))
        .count();
    assert!(
        groups.len() * 4 < seat_edges,
        "{} groups for {seat_edges} seat deliveries",
        groups.len()
    );
    assert!(attrs(&each, "seat-delivery", "data-node").is_empty());
    assert!(attrs(&each, "edge", "data-by").iter().any(|b| b == "seat"));
    // The lab's vault serves many instances on each node through its seat: the group's
    // label counts them.
    let counted = svg.split("secret for ").skip(1).any(|rest| {
        rest.split_once(" instances · seat")
            .is_some_and(|(n, _)| n.parse::<usize>().is_ok_and(|n| n > 1))
    });
    assert!(counted, "a group says how many it serves");
    // All four rules appear in the lab, each in its colour and in the legend.
    for rule in ["pin", "node", "only"] {
        assert!(by.iter().any(|b| b == rule), "no `{rule}` arrow");
    }
    for rule in ["pin", "seat", "node", "only"] {
        assert!(svg.contains(&format!("{rule}: ")), "legend lacks {rule}");
    }
    // An arrow's label names the contract: forgejo's database is pinned to postgres.
    assert!(svg.contains("db: postgres · pin"));
    // The seats are marked on their holders.
    let seats: BTreeSet<String> = attrs(&svg, "instance seat", "data-instance")
        .into_iter()
        .collect();
    let expected: BTreeSet<String> = ["openbao", "caddy", "rabbitmq", "powerdns"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(seats, expected);
    assert!(svg.contains("★ seat vault"));
    assert!(attrs(&svg, "instance left-out", "data-instance").is_empty());
}

#[test]
fn dot_and_mermaid_say_the_same() {
    let svg = stdout_ok(&meshc(
        &repo_root(),
        &["graph", "catalogue/single.mesh", "catalogue"],
    ));
    // Each consumer's arrow, and one per group of seat deliveries.
    let arrows =
        attrs(&svg, "edge", "data-from").len() + attrs(&svg, "seat-delivery", "data-node").len();
    assert!(arrows >= 5);
    assert!(!attrs(&svg, "seat-delivery", "data-node").is_empty());
    let dot = stdout_ok(&meshc(
        &repo_root(),
        &[
            "graph",
            "catalogue/single.mesh",
            "catalogue",
            "--format",
            "dot",
        ],
    ));
    assert!(dot.starts_with("digraph \"single\" {"), "{dot}");
    assert_eq!(dot.matches("subgraph \"cluster_").count(), 1);
    assert_eq!(dot.matches(" -> ").count(), arrows);
    assert!(dot.contains("seat: vault"));
    let mermaid = stdout_ok(&meshc(
        &repo_root(),
        &[
            "graph",
            "catalogue/single.mesh",
            "catalogue",
            "--format",
            "mermaid",
        ],
    ));
    assert!(mermaid.starts_with("flowchart LR\n"));
    assert_eq!(mermaid.matches("  subgraph ").count(), 1);
    assert_eq!(mermaid.matches(" -->|").count(), arrows);
    assert_eq!(mermaid.matches("  linkStyle ").count(), arrows);
}

#[test]
fn an_instance_left_out_is_drawn_with_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.mesh"),
        r#"module app {
  requires workers: operator int in 1..8
  container app {
    image "busybox:1.36.1"
    env { WORKERS = workers }
  }
}
module web {
  container web { image "busybox:1.36.1" }
}
mesh tiny {
  node alpha { private_name = "alpha.internal" }
  assign app to alpha
  assign web to alpha
}
"#,
    )
    .unwrap();
    let out = meshc(dir.path(), &["graph", "m.mesh", "--out", "tiny.svg"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 assignment is left out"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(dir.path().join("tiny.svg")).unwrap();
    balanced(&svg);
    assert_eq!(attrs(&svg, "instance left-out", "data-instance"), ["app"]);
    assert_eq!(attrs(&svg, "instance", "data-instance"), ["web"]);
    assert!(svg.contains("E0501"), "the reason is shown");
    // Nothing but the drawing was written.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["m.mesh", "tiny.svg"]);
}

#[test]
fn a_file_with_no_mesh_is_said() {
    let out = meshc(
        &repo_root(),
        &["graph", "catalogue/postgres.mesh", "catalogue"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("declares no mesh"));
}

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// The lab's SVG opened in a real browser: the screenshot is a PNG of the drawing's
/// size, kept in target/graph-artefacts/lab.png for a person to look at.
#[test]
fn a_browser_draws_the_lab() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("MESHC_REQUIRE_BROWSER").is_none(),
            "MESHC_REQUIRE_BROWSER is set and no chromium is on PATH"
        );
        eprintln!("skipped: no chromium on PATH (Debian: apt-get install chromium)");
        return;
    };
    let svg = stdout_ok(&meshc(
        &repo_root(),
        &["graph", "catalogue/lab.mesh", "catalogue"],
    ));
    let size = |attr: &str| -> u32 {
        let at = svg.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    let (w, h) = (size("width"), size("height"));
    let artefacts = repo_root().join("target/graph-artefacts");
    std::fs::create_dir_all(&artefacts).unwrap();
    let svg_path = artefacts.join("lab.svg");
    let png = artefacts.join("lab.png");
    std::fs::write(&svg_path, &svg).unwrap();
    let _ = std::fs::remove_file(&png);
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={w},{h}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", svg_path.display()))
        .output()
        .expect("chromium runs");
    assert!(
        png.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (w, h));
    // A drawing, not a blank page: the PNG of a white page of this size is a few KB.
    assert!(bytes.len() > 100_000, "{} bytes", bytes.len());
    eprintln!("screenshot: {}", png.display());
    if std::env::var_os("MESHC_BLESS").is_some() {
        std::fs::copy(&png, repo_root().join("docs/images/lab.png")).unwrap();
    }
}

/// The picture in docs/graph.md is what this meshc draws (`MESHC_BLESS=1` redraws it).
#[test]
fn the_picture_in_the_docs_is_current() {
    let svg = stdout_ok(&meshc(
        &repo_root(),
        &["graph", "catalogue/lab.mesh", "catalogue"],
    ));
    let shipped = repo_root().join("docs/images/lab.svg");
    if std::env::var_os("MESHC_BLESS").is_some() {
        std::fs::write(&shipped, &svg).unwrap();
    }
    assert!(
        std::fs::read_to_string(&shipped).unwrap() == svg,
        "docs/images/lab.svg is not what `meshc graph catalogue/lab.mesh catalogue` draws; \
         MESHC_BLESS=1 redraws it"
    );
    let doc = std::fs::read_to_string(repo_root().join("docs/graph.md")).unwrap();
    assert!(doc.contains("](images/lab.svg)"));
    // The screenshot beside it is of this drawing: a PNG of its size (redrawn by
    // `a_browser_draws_the_lab` under MESHC_BLESS=1).
    assert!(doc.contains("](images/lab.png)"));
    let png = std::fs::read(repo_root().join("docs/images/lab.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let size = |attr: &str| -> u32 {
        let at = svg.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    assert_eq!(
        (
            u32::from_be_bytes(png[16..20].try_into().unwrap()),
            u32::from_be_bytes(png[20..24].try_into().unwrap())
        ),
        (size("width"), size("height")),
        "docs/images/lab.png is not a screenshot of the current drawing; \
         MESHC_BLESS=1 cargo test --test graph a_browser_draws_the_lab takes it again"
    );
}

/// The number in attribute `attr` of a tag's text.
fn num(tag: &str, attr: &str) -> f64 {
    let at = tag.find(&format!(" {attr}=\"")).unwrap() + attr.len() + 3;
    tag[at..at + tag[at..].find('"').unwrap()].parse().unwrap()
}

/// Every label sits on the first stretch of its own arrow, and none covers a node's box
/// (and so no instance), nor another label: in the lab grouped, and one arrow per seat.
#[test]
fn labels_sit_on_their_arrows_and_never_on_a_box_or_another_label() {
    for extra in [None, Some("--each-seat")] {
        let mut args = vec!["graph", "catalogue/lab.mesh", "catalogue"];
        args.extend(extra);
        let svg = stdout_ok(&meshc(&repo_root(), &args));
        // The boxes of the nodes, which hold every instance's box.
        let boxes: Vec<(f64, f64, f64, f64)> = svg
            .split("<g class=\"node\"")
            .skip(1)
            .map(|g| {
                let rect = &g[g.find("<rect").unwrap()..];
                let x = num(rect, "x");
                let y = num(rect, "y");
                (x, y, x + num(rect, "width"), y + num(rect, "height"))
            })
            .collect();
        assert_eq!(boxes.len(), 3);
        // Labels, each with the start of its arrow.
        let mut labels: Vec<(f64, f64, f64, f64)> = Vec::new();
        for group in svg.split("<g class=\"").skip(1) {
            if !(group.starts_with("edge\"") || group.starts_with("seat-delivery\"")) {
                continue;
            }
            let d = &group[group.find(" d=\"M").unwrap() + 5..];
            let start: Vec<f64> = d[..d.find(' ').unwrap()]
                .split(',')
                .map(|v| v.parse().unwrap())
                .collect();
            let (sx, sy) = (start[0], start[1]);
            let texts: Vec<&str> = group.split("<text class=\"edge-label\"").skip(1).collect();
            assert!(!texts.is_empty(), "an arrow without a label");
            for text in texts {
                let x = num(text, "x");
                let y = num(text, "y");
                let content = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
                // 10.5px DejaVu Sans: at most about 6.5px a character.
                let w = content.chars().count() as f64 * 6.5;
                let (x0, x1) = if text.contains("text-anchor=\"end\"") {
                    (x - w, x)
                } else {
                    (x, x + w)
                };
                let (y0, y1) = (y - 9.0, y + 2.0);
                // On its arrow: just above the stub it starts with, by the box or node.
                assert!(
                    (x - sx).abs() <= BOX_INSET + 6.0 && y < sy && sy - y <= 13.0 * 4.0,
                    "the label `{content}` at ({x}, {y}) is away from its arrow at ({sx}, {sy})"
                );
                for &(bx0, by0, bx1, by1) in &boxes {
                    assert!(
                        x1 <= bx0 || bx1 <= x0 || y1 <= by0 || by1 <= y0,
                        "the label `{content}` covers a node's box"
                    );
                }
                for &(lx0, ly0, lx1, ly1) in &labels {
                    assert!(
                        x1 <= lx0 || lx1 <= x0 || y1 <= ly0 || ly1 <= y0,
                        "the label `{content}` covers another label"
                    );
                }
                labels.push((x0, y0, x1, y1));
            }
        }
        assert!(labels.len() > 30, "{} labels", labels.len());
    }
}

/// How far inside its node an instance's box stands (the stub crosses it).
const BOX_INSET: f64 = 22.0;
