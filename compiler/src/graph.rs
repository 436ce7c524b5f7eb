//! A picture of a resolved mesh (`meshc graph`): nodes as boxes with their instances
//! inside, an arrow from each consumer's module requirement to its provider labelled with
//! the contract and the rule that chose it (pin, seat, node, only), seat holders marked,
//! and the instances left out with why. Drawn as SVG (laid out here, no Graphviz), as
//! Graphviz DOT, or as a Mermaid flowchart. Pure: the caller resolves and writes.

use crate::emit::manifest::Requirement;
use crate::resolve::MeshOutcome;
use crate::syntax::ast;
use std::fmt::Write as _;

/// What the picture shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub mesh: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub private_name: Option<String>,
    pub instances: Vec<Instance>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    pub name: String,
    pub module: String,
    /// The seats this instance holds (`vault`, `proxy`, …).
    pub seats: Vec<String>,
    /// Why the instance was left out of its node's manifest (`E0514: …`); empty when built.
    pub left_out: Vec<String>,
}

/// Module requirements of one consumer answered by one provider through one rule,
/// gathered into one arrow: `db: postgres` or `secret_key, internal_token: secret`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: (String, String),
    pub to: (String, String),
    /// `(requirement, contract)` pairs, in the definition's order.
    pub requirements: Vec<(String, String)>,
    /// `pin`, `seat`, `node` or `only`.
    pub by: String,
}

impl Edge {
    /// `db: postgres` or `key, token: secret`.
    pub fn label(&self) -> String {
        let mut by_contract: Vec<(String, Vec<&str>)> = Vec::new();
        for (req, contract) in &self.requirements {
            match by_contract.iter_mut().find(|(c, _)| c == contract) {
                Some((_, reqs)) => reqs.push(req),
                None => by_contract.push((contract.clone(), vec![req])),
            }
        }
        by_contract
            .iter()
            .map(|(c, reqs)| format!("{}: {c}", reqs.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl Graph {
    /// The picture of a resolved mesh: nodes in the mesh's order, instances in each
    /// manifest's order, then those left out.
    pub fn of(outcome: &MeshOutcome, mesh: &ast::Mesh) -> Graph {
        let mut nodes: Vec<Node> = mesh
            .nodes()
            .map(|n| Node {
                name: n.name.name.to_string(),
                private_name: n.prop("private_name").and_then(|p| match &p.value {
                    ast::Expr::Str(s) => s.as_plain(),
                    _ => None,
                }),
                instances: Vec::new(),
            })
            .collect();
        let mut edges: Vec<Edge> = Vec::new();
        for (node_name, manifest) in &outcome.manifests {
            let Some(node) = nodes.iter_mut().find(|n| &n.name == node_name) else {
                continue;
            };
            for inst in &manifest.instances {
                node.instances.push(Instance {
                    name: inst.instance.clone(),
                    module: inst.module.clone(),
                    seats: Vec::new(),
                    left_out: Vec::new(),
                });
                for (req, r) in &inst.requirements {
                    let Requirement::Module(m) = r else { continue };
                    let from = (node_name.clone(), inst.instance.clone());
                    let to = (m.provider.node.clone(), m.provider.instance.clone());
                    let by = m.by.as_str().to_string();
                    match edges
                        .iter_mut()
                        .find(|e| e.from == from && e.to == to && e.by == by)
                    {
                        Some(e) => e.requirements.push((req.clone(), m.contract.clone())),
                        None => edges.push(Edge {
                            from,
                            to,
                            requirements: vec![(req.clone(), m.contract.clone())],
                            by,
                        }),
                    }
                }
            }
            for l in &manifest.left_out {
                node.instances.push(Instance {
                    name: l.instance.clone(),
                    module: l.module.clone(),
                    seats: Vec::new(),
                    left_out: l
                        .diagnostics
                        .iter()
                        .map(|d| format!("{}: {}", d.code, d.message))
                        .collect(),
                });
            }
        }
        // Assignments dropped before any manifest (an unknown node) have no node to sit in.
        for l in &outcome.left_out {
            if let Some(node) = nodes.iter_mut().find(|n| n.name == l.node)
                && !node.instances.iter().any(|i| i.name == l.instance)
            {
                node.instances.push(Instance {
                    name: l.instance.clone(),
                    module: l.module.clone(),
                    seats: Vec::new(),
                    left_out: l
                        .diagnostics
                        .iter()
                        .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                        .collect(),
                });
            }
        }
        for seat in mesh.seats() {
            let (Some(inst), Some(node)) = (&seat.instance, &seat.node) else {
                continue;
            };
            if let Some(i) = nodes
                .iter_mut()
                .filter(|n| n.name == node.name.as_str())
                .flat_map(|n| n.instances.iter_mut())
                .find(|i| i.name == inst.name.as_str())
            {
                i.seats.push(seat.seat.name.to_string());
            }
        }
        Graph {
            mesh: outcome.mesh.clone(),
            nodes,
            edges,
        }
    }

    /// Graphviz DOT: a cluster per node.
    pub fn dot(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph {} {{", dot_id(&self.mesh));
        s.push_str("  rankdir=LR;\n  compound=true;\n  node [shape=box, style=\"rounded\", fontname=\"sans-serif\"];\n  edge [fontname=\"sans-serif\", fontsize=10];\n");
        for n in &self.nodes {
            let _ = writeln!(
                s,
                "  subgraph {} {{",
                dot_id(&format!("cluster_{}", n.name))
            );
            let title = match &n.private_name {
                Some(p) => format!("{} ({p})", n.name),
                None => n.name.clone(),
            };
            let _ = writeln!(s, "    label={};", dot_str(&title));
            for i in &n.instances {
                let mut label = format!("{}\\n{}", dot_escape(&i.name), dot_escape(&i.module));
                let mut attrs = String::new();
                if !i.seats.is_empty() {
                    let _ = write!(label, "\\nseat: {}", dot_escape(&i.seats.join(", ")));
                    attrs.push_str(", penwidth=2.5, peripheries=2");
                }
                if !i.left_out.is_empty() {
                    label.push_str("\\nleft out:");
                    for reason in &i.left_out {
                        let _ = write!(label, "\\n{}", dot_escape(&shorten(reason, 70)));
                    }
                    attrs.push_str(", style=\"rounded,dashed\", color=\"#b91c1c\"");
                }
                let _ = writeln!(
                    s,
                    "    {} [label=\"{label}\"{attrs}];",
                    dot_id(&format!("{}/{}", n.name, i.name))
                );
            }
            s.push_str("  }\n");
        }
        for e in &self.edges {
            let _ = writeln!(
                s,
                "  {} -> {} [label={}, color=\"{}\"];",
                dot_id(&format!("{}/{}", e.from.0, e.from.1)),
                dot_id(&format!("{}/{}", e.to.0, e.to.1)),
                dot_str(&format!("{} ({})", e.label(), e.by)),
                by_color(&e.by)
            );
        }
        s.push_str("}\n");
        s
    }

    /// A Mermaid flowchart: a subgraph per node.
    pub fn mermaid(&self) -> String {
        let id = |node: &str, inst: &str| mermaid_id(&format!("{node}__{inst}"));
        let mut s = String::from("flowchart LR\n");
        for n in &self.nodes {
            let title = match &n.private_name {
                Some(p) => format!("{} ({p})", n.name),
                None => n.name.clone(),
            };
            let _ = writeln!(
                s,
                "  subgraph {}[\"{}\"]",
                mermaid_id(&format!("node__{}", n.name)),
                mermaid_text(&title)
            );
            for i in &n.instances {
                let mut label = format!(
                    "<b>{}</b><br/>{}",
                    mermaid_text(&i.name),
                    mermaid_text(&i.module)
                );
                if !i.seats.is_empty() {
                    let _ = write!(label, "<br/>seat: {}", mermaid_text(&i.seats.join(", ")));
                }
                for reason in &i.left_out {
                    let _ = write!(
                        label,
                        "<br/>left out: {}",
                        mermaid_text(&shorten(reason, 70))
                    );
                }
                let _ = writeln!(s, "    {}[\"{label}\"]", id(&n.name, &i.name));
            }
            s.push_str("  end\n");
        }
        for e in &self.edges {
            let _ = writeln!(
                s,
                "  {} -->|\"{} ({})\"| {}",
                id(&e.from.0, &e.from.1),
                mermaid_text(&e.label()),
                e.by,
                id(&e.to.0, &e.to.1)
            );
        }
        s.push_str("  classDef seat stroke-width:3px\n  classDef leftout stroke:#b91c1c,stroke-dasharray:5 4\n");
        for n in &self.nodes {
            for i in &n.instances {
                if !i.seats.is_empty() {
                    let _ = writeln!(s, "  class {} seat", id(&n.name, &i.name));
                }
                if !i.left_out.is_empty() {
                    let _ = writeln!(s, "  class {} leftout", id(&n.name, &i.name));
                }
            }
        }
        for (i, e) in self.edges.iter().enumerate() {
            let _ = writeln!(s, "  linkStyle {i} stroke:{}", by_color(&e.by));
        }
        s
    }

    /// SVG, laid out here: nodes side by side as columns, instances stacked inside, arrows
    /// between them through the gaps, a legend of the rules at the bottom.
    pub fn svg(&self) -> String {
        svg::render(self)
    }
}

/// The colour of an arrow, by the rule that chose its provider.
pub fn by_color(by: &str) -> &'static str {
    match by {
        "pin" => "#7c3aed",
        "seat" => "#0369a1",
        "node" => "#15803d",
        _ => "#b45309",
    }
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', " ")
}

fn dot_str(s: &str) -> String {
    format!("\"{}\"", dot_escape(s))
}

fn dot_id(s: &str) -> String {
    dot_str(s)
}

fn mermaid_id(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Text inside a quoted Mermaid label: quotes and angle brackets as entities.
fn mermaid_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "#quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

mod svg {
    use super::{Graph, by_color, shorten};
    use std::collections::HashMap;
    use std::fmt::Write as _;

    const MARGIN: f64 = 40.0;
    const COLUMN: f64 = 280.0;
    const GAP: f64 = 260.0;
    const HEADER: f64 = 58.0;
    const BOX_X: f64 = 22.0;
    const BOX_H: f64 = 44.0;
    const SEAT_H: f64 = 16.0;
    const REASON_H: f64 = 14.0;
    const SPACING: f64 = 18.0;
    const FONT: f64 = 12.0;
    /// Average advance of a character at 11px in a sans-serif face, for label boxes.
    const CHAR_W: f64 = 6.2;

    fn esc(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }

    struct Placed {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        column: usize,
    }

    pub fn render(g: &Graph) -> String {
        // Place every instance.
        let mut placed: HashMap<(String, String), Placed> = HashMap::new();
        let mut column_heights = Vec::new();
        for (c, n) in g.nodes.iter().enumerate() {
            let x = MARGIN + c as f64 * (COLUMN + GAP);
            let mut y = MARGIN + HEADER;
            for i in &n.instances {
                let mut h = BOX_H;
                if !i.seats.is_empty() {
                    h += SEAT_H;
                }
                if !i.left_out.is_empty() {
                    h += REASON_H * (1 + i.left_out.len().min(4)) as f64;
                }
                placed.insert(
                    (n.name.clone(), i.name.clone()),
                    Placed {
                        x: x + BOX_X,
                        y,
                        w: COLUMN - 2.0 * BOX_X,
                        h,
                        column: c,
                    },
                );
                y += h + SPACING;
            }
            column_heights.push(y - MARGIN + 4.0);
        }
        let node_h = column_heights.iter().cloned().fold(HEADER + 40.0, f64::max);
        let columns = g.nodes.len().max(1) as f64;
        // Same-node arrows loop out to the right of the last column too.
        let width = 2.0 * MARGIN + columns * COLUMN + columns * GAP;
        let legend_y = MARGIN + node_h + 36.0;
        let height = legend_y + 40.0;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" data-mesh="{}">"#,
            esc(&g.mesh)
        );
        let _ = writeln!(s, "<title>mesh {}</title>", esc(&g.mesh));
        s.push_str("<defs>\n");
        for by in ["pin", "seat", "node", "only"] {
            let _ = writeln!(
                s,
                r#"<marker id="arrow-{by}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{}"/></marker>"#,
                by_color(by)
            );
        }
        s.push_str("</defs>\n");
        let _ = writeln!(
            s,
            r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##
        );
        let _ = writeln!(
            s,
            r##"<text x="{MARGIN}" y="26" font-size="16" font-weight="bold" fill="#111827">mesh {}</text>"##,
            esc(&g.mesh)
        );

        // Nodes and their instances.
        for (c, n) in g.nodes.iter().enumerate() {
            let x = MARGIN + c as f64 * (COLUMN + GAP);
            let _ = writeln!(s, r#"<g class="node" data-node="{}">"#, esc(&n.name));
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{:.1}" width="{COLUMN:.1}" height="{node_h:.1}" rx="10" fill="#f3f4f6" stroke="#6b7280" stroke-width="1.5"/>"##,
                MARGIN
            );
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="15" font-weight="bold" fill="#111827">{}</text>"##,
                x + 14.0,
                MARGIN + 24.0,
                esc(&n.name)
            );
            if let Some(p) = &n.private_name {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#4b5563">{}</text>"##,
                    x + 14.0,
                    MARGIN + 41.0,
                    esc(p)
                );
            }
            for i in &n.instances {
                let p = &placed[&(n.name.clone(), i.name.clone())];
                let left_out = !i.left_out.is_empty();
                let seat = !i.seats.is_empty();
                let class = match (left_out, seat) {
                    (true, _) => "instance left-out",
                    (false, true) => "instance seat",
                    _ => "instance",
                };
                let _ = writeln!(
                    s,
                    r#"<g class="{class}" data-node="{}" data-instance="{}" data-module="{}">"#,
                    esc(&n.name),
                    esc(&i.name),
                    esc(&i.module)
                );
                let (fill, stroke, width, dash) = if left_out {
                    ("#fef2f2", "#b91c1c", 1.5, r#" stroke-dasharray="6 4""#)
                } else if seat {
                    ("#e0f2fe", "#0369a1", 3.0, "")
                } else {
                    ("#ffffff", "#374151", 1.2, "")
                };
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
                    p.x, p.y, p.w, p.h
                );
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="{FONT}" font-weight="bold" fill="#111827">{}</text>"##,
                    p.x + 10.0,
                    p.y + 18.0,
                    esc(&i.name)
                );
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#4b5563">module {}</text>"##,
                    p.x + 10.0,
                    p.y + 34.0,
                    esc(&i.module)
                );
                let mut y = p.y + BOX_H;
                if seat {
                    let _ = writeln!(
                        s,
                        r##"<text class="seat-mark" x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#0369a1">★ seat {}</text>"##,
                        p.x + 10.0,
                        y + 6.0,
                        esc(&i.seats.join(", "))
                    );
                    y += SEAT_H;
                }
                if left_out {
                    let _ = writeln!(
                        s,
                        r##"<text class="left-out-mark" x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#b91c1c">left out:</text>"##,
                        p.x + 10.0,
                        y + 6.0
                    );
                    for (k, reason) in i.left_out.iter().take(4).enumerate() {
                        let _ = writeln!(
                            s,
                            r##"<text class="reason" x="{:.1}" y="{:.1}" font-size="10" fill="#7f1d1d">{}<title>{}</title></text>"##,
                            p.x + 10.0,
                            y + 6.0 + REASON_H * (k + 1) as f64,
                            esc(&shorten(reason, 38)),
                            esc(reason)
                        );
                    }
                }
                s.push_str("</g>\n");
            }
            s.push_str("</g>\n");
        }

        // Arrows: each consumer's outgoing arrows leave from points spread down its box's
        // side, each provider's incoming ones arrive at points spread down its side.
        let side_slots = |key: &(String, String), edges: &[(usize, bool)]| -> Vec<f64> {
            let p = &placed[key];
            let n = edges.len().max(1) as f64;
            (0..edges.len())
                .map(|k| p.y + p.h * (k as f64 + 1.0) / (n + 1.0))
                .collect()
        };
        // For every instance: which edges leave/arrive on its right side and on its left.
        let mut right: HashMap<(String, String), Vec<(usize, bool)>> = HashMap::new();
        let mut left: HashMap<(String, String), Vec<(usize, bool)>> = HashMap::new();
        for (k, e) in g.edges.iter().enumerate() {
            let (Some(a), Some(b)) = (placed.get(&e.from), placed.get(&e.to)) else {
                continue;
            };
            if a.column < b.column {
                right.entry(e.from.clone()).or_default().push((k, true));
                left.entry(e.to.clone()).or_default().push((k, false));
            } else if a.column > b.column {
                left.entry(e.from.clone()).or_default().push((k, true));
                right.entry(e.to.clone()).or_default().push((k, false));
            } else {
                right.entry(e.from.clone()).or_default().push((k, true));
                right.entry(e.to.clone()).or_default().push((k, false));
            }
        }
        // Endpoint of edge k at an instance: (x, y).
        let mut ends: HashMap<(usize, bool), (f64, f64)> = HashMap::new();
        for (map, on_right) in [(&right, true), (&left, false)] {
            for (key, list) in map {
                let mut list = list.clone();
                // Order by where the other end is, so arrows cross less.
                list.sort_by(|x, y| {
                    let other = |(k, from): &(usize, bool)| {
                        let e = &g.edges[*k];
                        let o = if *from { &e.to } else { &e.from };
                        placed.get(o).map_or(0.0, |p| p.y)
                    };
                    other(x).total_cmp(&other(y))
                });
                let p = &placed[key];
                let xs = if on_right { p.x + p.w } else { p.x };
                for (slot, y) in list.iter().zip(side_slots(key, &list)) {
                    ends.insert(*slot, (xs, y));
                }
            }
        }
        let mut labels = String::new();
        let mut taken: Vec<(f64, f64, f64, f64)> = Vec::new();
        for (k, e) in g.edges.iter().enumerate() {
            let (Some(a), Some(b)) = (placed.get(&e.from), placed.get(&e.to)) else {
                continue;
            };
            let (Some(&(x1, y1)), Some(&(x2, y2))) = (ends.get(&(k, true)), ends.get(&(k, false)))
            else {
                continue;
            };
            let color = by_color(&e.by);
            let (path, lx, ly) = if a.column == b.column {
                let reach = 40.0 + ((y1 - y2).abs() / 6.0).min(GAP / 2.0 - 50.0);
                (
                    format!(
                        "M{x1:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {x2:.1},{y2:.1}",
                        x1 + reach,
                        x2 + reach
                    ),
                    x1 + reach * 0.75 + 4.0,
                    (y1 + y2) / 2.0,
                )
            } else {
                let dx = (x2 - x1) / 2.0;
                (
                    format!(
                        "M{x1:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {x2:.1},{y2:.1}",
                        x1 + dx,
                        x2 - dx
                    ),
                    x1 + if x2 > x1 { 10.0 } else { -10.0 },
                    y1 - 4.0,
                )
            };
            let label = format!("{} · {}", e.label(), e.by);
            let _ = writeln!(
                s,
                r#"<g class="edge" data-from="{}/{}" data-to="{}/{}" data-by="{}" data-requirements="{}"><path d="{path}" fill="none" stroke="{color}" stroke-width="{}" opacity="{}" marker-end="url(#arrow-{})"/><title>{}/{} → {}/{}: {}</title></g>"#,
                esc(&e.from.0),
                esc(&e.from.1),
                esc(&e.to.0),
                esc(&e.to.1),
                esc(&e.by),
                esc(&e
                    .requirements
                    .iter()
                    .map(|(r, _)| r.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")),
                // The seats' arrows are many and alike: lighter, so the rest stands out.
                if e.by == "seat" { 1.0 } else { 1.6 },
                if e.by == "seat" { 0.45 } else { 0.9 },
                esc(&e.by),
                esc(&e.from.1),
                esc(&e.from.0),
                esc(&e.to.1),
                esc(&e.to.0),
                esc(&label)
            );
            // The label sits by the arrow's start, moved down while it would cover another.
            let w = label.chars().count() as f64 * CHAR_W + 8.0;
            let mut lx = lx;
            if x2 < x1 && a.column != b.column {
                lx -= w;
            }
            let mut ly = ly;
            let overlaps = |ly: f64, taken: &[(f64, f64, f64, f64)]| {
                taken.iter().any(|&(tx, ty, tw, th)| {
                    lx < tx + tw && tx < lx + w && ly - 11.0 < ty + th && ty < ly + 3.0
                })
            };
            let mut tries = 0;
            while overlaps(ly, &taken) && tries < 30 {
                ly += 13.0;
                tries += 1;
            }
            taken.push((lx, ly - 11.0, w, 14.0));
            let _ = writeln!(
                labels,
                r##"<g class="edge-label" data-by="{}"><rect x="{:.1}" y="{:.1}" width="{w:.1}" height="14" rx="3" fill="#ffffff" fill-opacity="0.9"/><text x="{:.1}" y="{ly:.1}" font-size="10.5" fill="{color}">{}</text></g>"##,
                esc(&e.by),
                lx,
                ly - 11.0,
                lx + 4.0,
                esc(&label)
            );
        }
        s.push_str(&labels);

        // Legend.
        let mut x = MARGIN;
        let _ = writeln!(
            s,
            r##"<g class="legend"><text x="{x}" y="{legend_y:.1}" font-size="12" font-weight="bold" fill="#111827">provider chosen by:</text>"##
        );
        x += 140.0;
        for (by, what) in [
            ("pin", "a pin on the assignment"),
            ("seat", "the seat's holder"),
            ("node", "the provider on the same node"),
            ("only", "the only provider"),
        ] {
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2" marker-end="url(#arrow-{by})"/><text x="{:.1}" y="{legend_y:.1}" font-size="12" fill="{c}">{by}: {what}</text>"##,
                legend_y - 4.0,
                x + 30.0,
                legend_y - 4.0,
                x + 36.0,
                c = by_color(by)
            );
            x += 60.0 + (by.len() + what.len()) as f64 * 7.0;
        }
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{:.1}" width="22" height="14" rx="3" fill="#e0f2fe" stroke="#0369a1" stroke-width="3"/><text x="{:.1}" y="{legend_y:.1}" font-size="12" fill="#0369a1">seat holder</text>"##,
            legend_y - 11.0,
            x + 28.0
        );
        x += 120.0;
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{:.1}" width="22" height="14" rx="3" fill="#fef2f2" stroke="#b91c1c" stroke-dasharray="6 4"/><text x="{:.1}" y="{legend_y:.1}" font-size="12" fill="#b91c1c">left out</text></g>"##,
            legend_y - 11.0,
            x + 28.0
        );
        s.push_str("</svg>\n");
        s
    }
}
