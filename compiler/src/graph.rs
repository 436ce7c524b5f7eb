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
    /// Seat deliveries drawn as one arrow per holder and consumers' node (the default),
    /// or, when false, one per consumer like every other arrow.
    pub group_seats: bool,
}

/// The seat deliveries of one node's consumers from one holder, drawn as one arrow from
/// the node to the holder: a vault or a proxy serves nearly every instance, and an arrow
/// for each would hide the rest of the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatDelivery<'a> {
    /// The consumers' node.
    pub node: &'a str,
    /// The seat holder: (node, instance).
    pub holder: &'a (String, String),
    /// One edge per consumer, in the order of the manifests.
    pub consumers: Vec<&'a Edge>,
}

impl SeatDelivery<'_> {
    /// `secret for 9 instances`.
    pub fn label(&self) -> String {
        let mut contracts: Vec<&str> = Vec::new();
        for e in &self.consumers {
            for (_, c) in &e.requirements {
                if !contracts.contains(&c.as_str()) {
                    contracts.push(c);
                }
            }
        }
        let n = self.consumers.len();
        format!(
            "{} for {n} instance{}",
            contracts.join(", "),
            if n == 1 { "" } else { "s" }
        )
    }

    /// Every consumer with the requirements it gets: `forgejo: secret_key, token: secret`.
    pub fn listing(&self) -> Vec<String> {
        self.consumers
            .iter()
            .map(|e| format!("{}: {}", e.from.1, e.label()))
            .collect()
    }
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
            group_seats: true,
        }
    }

    /// The arrows drawn one per consumer: every edge, but for the seats' when they are
    /// grouped.
    pub fn direct_edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges
            .iter()
            .filter(|e| !(self.group_seats && e.by == "seat"))
    }

    /// The seats' edges grouped by holder and consumers' node, in the order of their first
    /// edge; none when they are drawn one per consumer.
    pub fn seat_deliveries(&self) -> Vec<SeatDelivery<'_>> {
        let mut out: Vec<SeatDelivery<'_>> = Vec::new();
        if !self.group_seats {
            return out;
        }
        for e in self.edges.iter().filter(|e| e.by == "seat") {
            match out
                .iter_mut()
                .find(|d| d.holder == &e.to && d.node == e.from.0)
            {
                Some(d) => d.consumers.push(e),
                None => out.push(SeatDelivery {
                    node: &e.from.0,
                    holder: &e.to,
                    consumers: vec![e],
                }),
            }
        }
        out
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
        for d in self.seat_deliveries() {
            // An edge leaves a cluster from one of its instances, clipped at the cluster.
            let Some(first) = self
                .nodes
                .iter()
                .find(|n| n.name == d.node)
                .and_then(|n| n.instances.first())
            else {
                continue;
            };
            let _ = writeln!(
                s,
                "  {} -> {} [label={}, tooltip={}, color=\"{}\", ltail={}];",
                dot_id(&format!("{}/{}", d.node, first.name)),
                dot_id(&format!("{}/{}", d.holder.0, d.holder.1)),
                dot_str(&format!("{} (seat)", d.label())),
                dot_str(&d.listing().join("; ")),
                by_color("seat"),
                dot_id(&format!("cluster_{}", d.node)),
            );
        }
        for e in self.direct_edges() {
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
        let deliveries = self.seat_deliveries();
        for d in &deliveries {
            let _ = writeln!(
                s,
                "  {} -->|\"{} (seat)\"| {}",
                mermaid_id(&format!("node__{}", d.node)),
                mermaid_text(&d.label()),
                id(&d.holder.0, &d.holder.1)
            );
        }
        for e in self.direct_edges() {
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
        let colours = deliveries
            .iter()
            .map(|_| "seat")
            .chain(self.direct_edges().map(|e| e.by.as_str()));
        for (i, by) in colours.enumerate() {
            let _ = writeln!(s, "  linkStyle {i} stroke:{}", by_color(by));
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
    //! The layout: nodes are columns with their instances stacked inside. Every arrow
    //! leaves its consumer (or, for a group of seat deliveries, its consumers' node)
    //! through a straight stub with its label written just above it, in a band beside the
    //! node that holds nothing else, so a label always sits on its arrow and never on a
    //! box. Arrows to another column then curve through the middle of the gap and arrive
    //! straight; arrows within a column run down a lane of their own beside it, lanes
    //! given so that no two arrows in one lane overlap.

    use super::{Graph, by_color, shorten};
    use std::collections::HashMap;
    use std::fmt::Write as _;

    const MARGIN: f64 = 40.0;
    const COLUMN: f64 = 280.0;
    const HEADER: f64 = 58.0;
    const BOX_X: f64 = 22.0;
    const BOX_H: f64 = 44.0;
    const SEAT_H: f64 = 16.0;
    const REASON_H: f64 = 14.0;
    const SPACING: f64 = 18.0;
    const FONT: f64 = 12.0;
    /// A line of an arrow's label, and the room an arriving arrow takes on a side.
    const LINE: f64 = 13.0;
    const ARRIVAL: f64 = 9.0;
    /// Between two lanes of arrows within a column.
    const LANE: f64 = 7.0;
    /// Where arrows between columns curve.
    const CURVE: f64 = 110.0;
    /// Average advance of a character at 10.5px in a sans-serif face, for label widths.
    const CHAR_W: f64 = 6.0;
    /// A label's line is wrapped past this many characters.
    const WRAP: usize = 42;

    fn esc(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }

    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    enum Side {
        Left,
        Right,
    }

    /// Where an arrow starts: an instance, or the header of a node (seat deliveries).
    #[derive(Clone, PartialEq, Eq, Hash, Debug)]
    enum Start {
        Instance(String, String),
        Node(String),
    }

    struct Arrow {
        from: Start,
        to: (String, String),
        lines: Vec<String>,
        by: String,
        /// `class`, the `data-` attributes and the tooltip of the arrow's group.
        class: &'static str,
        data: String,
        title: String,
        from_side: Side,
        to_side: Side,
    }

    /// A label's lines: split where it lists another contract, then between names.
    fn wrap(label: &str) -> Vec<String> {
        let mut out = Vec::new();
        for part in label.split("; ") {
            let mut line = String::new();
            for (i, word) in part.split(", ").enumerate() {
                let piece = if i == 0 {
                    word.to_string()
                } else {
                    format!(", {word}")
                };
                if !line.is_empty() && line.chars().count() + piece.chars().count() > WRAP {
                    out.push(format!("{line},"));
                    line = word.to_string();
                } else {
                    line.push_str(&piece);
                }
            }
            out.push(line);
        }
        out
    }

    fn text_w(s: &str) -> f64 {
        s.chars().count() as f64 * CHAR_W
    }

    /// The room a side of an instance or a header needs: outgoing arrows with their labels,
    /// then arriving ones.
    #[derive(Default)]
    struct Slots {
        out: Vec<usize>,
        arriving: Vec<usize>,
    }

    impl Slots {
        fn height(&self, arrows: &[Arrow]) -> f64 {
            self.out
                .iter()
                .map(|&a| arrows[a].lines.len() as f64 * LINE + 6.0)
                .sum::<f64>()
                + self.arriving.len() as f64 * ARRIVAL
                + 8.0
        }
    }

    pub fn render(g: &Graph) -> String {
        let column_of: HashMap<&str, usize> = g
            .nodes
            .iter()
            .enumerate()
            .map(|(c, n)| (n.name.as_str(), c))
            .collect();
        let col = |node: &str| column_of.get(node).copied();
        let known = |key: &(String, String)| {
            col(&key.0).is_some_and(|c| g.nodes[c].instances.iter().any(|i| i.name == key.1))
        };

        // The arrows: each consumer's, then each group of seat deliveries.
        let mut arrows: Vec<Arrow> = Vec::new();
        let sides = |a: usize, b: usize| {
            if a < b {
                (Side::Right, Side::Left)
            } else if a > b {
                (Side::Left, Side::Right)
            } else {
                (Side::Right, Side::Right)
            }
        };
        for d in g.seat_deliveries() {
            let (Some(a), Some(b)) = (col(d.node), col(&d.holder.0)) else {
                continue;
            };
            if !known(d.holder) {
                continue;
            }
            let (from_side, to_side) = sides(a, b);
            let consumers: Vec<String> = d
                .consumers
                .iter()
                .flat_map(|e| {
                    e.requirements
                        .iter()
                        .map(move |(r, _)| format!("{}.{r}", e.from.1))
                })
                .collect();
            arrows.push(Arrow {
                from: Start::Node(d.node.to_string()),
                to: d.holder.clone(),
                lines: wrap(&format!("{} · seat", d.label())),
                by: "seat".into(),
                class: "seat-delivery",
                data: format!(
                    r#" data-node="{}" data-to="{}/{}" data-by="seat" data-requirements="{}""#,
                    esc(d.node),
                    esc(&d.holder.0),
                    esc(&d.holder.1),
                    esc(&consumers.join(" "))
                ),
                title: format!(
                    "{} on {} → {}/{}:\n{}",
                    d.label(),
                    d.node,
                    d.holder.1,
                    d.holder.0,
                    d.listing().join("\n")
                ),
                from_side,
                to_side,
            });
        }
        for e in g.direct_edges() {
            if !known(&e.from) || !known(&e.to) {
                continue;
            }
            let (Some(a), Some(b)) = (col(&e.from.0), col(&e.to.0)) else {
                continue;
            };
            let (from_side, to_side) = sides(a, b);
            let label = format!("{} · {}", e.label(), e.by);
            arrows.push(Arrow {
                from: Start::Instance(e.from.0.clone(), e.from.1.clone()),
                to: e.to.clone(),
                lines: wrap(&label),
                by: e.by.clone(),
                class: "edge",
                data: format!(
                    r#" data-from="{}/{}" data-to="{}/{}" data-by="{}" data-requirements="{}""#,
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
                        .join(" "))
                ),
                title: format!("{}/{} → {}/{}: {label}", e.from.1, e.from.0, e.to.1, e.to.0),
                from_side,
                to_side,
            });
        }

        // Which arrows leave and arrive on each side of each instance and header.
        let mut slots: HashMap<(Start, Side), Slots> = HashMap::new();
        for (k, a) in arrows.iter().enumerate() {
            slots
                .entry((a.from.clone(), a.from_side))
                .or_default()
                .out
                .push(k);
            let to = Start::Instance(a.to.0.clone(), a.to.1.clone());
            slots.entry((to, a.to_side)).or_default().arriving.push(k);
        }
        let side_h = |start: &Start, side: Side| {
            slots
                .get(&(start.clone(), side))
                .map_or(0.0, |s| s.height(&arrows))
        };

        // Heights and places down each column.
        struct Placed {
            y: f64,
            h: f64,
        }
        let mut placed: HashMap<(String, String), Placed> = HashMap::new();
        let mut bottoms = Vec::new();
        let mut headers = Vec::new();
        for n in &g.nodes {
            let node = Start::Node(n.name.clone());
            let header = HEADER
                .max(side_h(&node, Side::Left))
                .max(side_h(&node, Side::Right));
            headers.push(header);
            let mut y = MARGIN + header;
            for i in &n.instances {
                let mut h = BOX_H;
                if !i.seats.is_empty() {
                    h += SEAT_H;
                }
                if !i.left_out.is_empty() {
                    h += REASON_H * (1 + i.left_out.len().min(4)) as f64;
                }
                let at = Start::Instance(n.name.clone(), i.name.clone());
                h = h.max(side_h(&at, Side::Left)).max(side_h(&at, Side::Right));
                placed.insert((n.name.clone(), i.name.clone()), Placed { y, h });
                y += h + SPACING;
            }
            bottoms.push(y + 4.0);
        }
        let node_h = bottoms
            .iter()
            .map(|b| b - MARGIN)
            .fold(HEADER + 40.0, f64::max);
        let top_of = |start: &Start| match start {
            Start::Instance(n, i) => placed[&(n.clone(), i.clone())].y,
            Start::Node(_) => MARGIN,
        };

        // Where each arrow leaves and arrives (its y), each side's slots ordered by where
        // the other end is, so arrows leaving one box cross each other less.
        let mut y_from = vec![0.0; arrows.len()];
        let mut y_to = vec![0.0; arrows.len()];
        let mut keys: Vec<&(Start, Side)> = slots.keys().collect();
        keys.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        for key in keys {
            let s = &slots[key];
            let mut out = s.out.clone();
            out.sort_by(|&a, &b| {
                let ya = placed[&arrows[a].to].y;
                let yb = placed[&arrows[b].to].y;
                ya.total_cmp(&yb).then(a.cmp(&b))
            });
            let mut arriving = s.arriving.clone();
            arriving.sort_by(|&a, &b| {
                top_of(&arrows[a].from)
                    .total_cmp(&top_of(&arrows[b].from))
                    .then(a.cmp(&b))
            });
            let mut cur = top_of(&key.0) + 4.0;
            for k in out {
                cur += arrows[k].lines.len() as f64 * LINE + 2.0;
                y_from[k] = cur;
                cur += 4.0;
            }
            for k in arriving {
                y_to[k] = cur + ARRIVAL / 2.0;
                cur += ARRIVAL;
            }
        }

        // The label bands beside each column (as wide as its widest label) and the lanes
        // of the arrows within it.
        let mut band = vec![[0.0f64; 2]; g.nodes.len()];
        for a in &arrows {
            let c = match &a.from {
                Start::Instance(n, _) | Start::Node(n) => column_of[n.as_str()],
            };
            let w = a.lines.iter().map(|l| text_w(l)).fold(0.0, f64::max) + 10.0;
            let s = match a.from_side {
                Side::Left => 0,
                Side::Right => 1,
            };
            band[c][s] = band[c][s].max(w);
        }
        let mut lane_of = vec![0usize; arrows.len()];
        let mut lanes = vec![0usize; g.nodes.len()];
        for (c, n) in g.nodes.iter().enumerate() {
            let mut within: Vec<usize> = (0..arrows.len())
                .filter(|&k| {
                    arrows[k].from_side == Side::Right
                        && arrows[k].to_side == Side::Right
                        && arrows[k].to.0 == n.name
                })
                .collect();
            // Short arrows nearest the column, so long ones pass outside them.
            within.sort_by(|&a, &b| {
                (y_from[a] - y_to[a])
                    .abs()
                    .total_cmp(&(y_from[b] - y_to[b]).abs())
                    .then(a.cmp(&b))
            });
            let mut taken: Vec<Vec<(f64, f64)>> = Vec::new();
            for k in within {
                let (lo, hi) = (y_from[k].min(y_to[k]) - 3.0, y_from[k].max(y_to[k]) + 3.0);
                let lane = taken
                    .iter()
                    .position(|l| l.iter().all(|&(a, b)| hi < a || b < lo))
                    .unwrap_or_else(|| {
                        taken.push(Vec::new());
                        taken.len() - 1
                    });
                taken[lane].push((lo, hi));
                lane_of[k] = lane;
            }
            lanes[c] = taken.len();
        }
        let lanes_w = |c: usize| {
            if lanes[c] == 0 {
                0.0
            } else {
                lanes[c] as f64 * LANE + 10.0
            }
        };

        // Columns left to right, each gap as wide as its bands, lanes and a curve.
        let mut xs = Vec::new();
        let mut x = MARGIN + band.first().map_or(0.0, |b| b[0]);
        for c in 0..g.nodes.len() {
            xs.push(x);
            x += COLUMN + band[c][1] + lanes_w(c);
            if c + 1 < g.nodes.len() {
                x += CURVE + band[c + 1][0];
            }
        }
        let seat_rule = if g.group_seats {
            "the seat's holder (one arrow per node of consumers)"
        } else {
            "the seat's holder"
        };
        let rules = [
            ("pin", "a pin on the assignment"),
            ("seat", seat_rule),
            ("node", "the provider on the same node"),
            ("only", "the only provider"),
        ];
        // The legend's items, wrapped into rows as wide as the drawing (or 560).
        let width = x + MARGIN;
        let legend_y = MARGIN + node_h + 36.0;
        let avail = (width - 2.0 * MARGIN).max(560.0);
        let mut items: Vec<(usize, f64, f64)> = Vec::new();
        let (mut lx, mut ly) = (MARGIN + 140.0, legend_y);
        let item_w = |k: usize| match k {
            0..=3 => 60.0 + (rules[k].0.len() + rules[k].1.chars().count()) as f64 * 7.0,
            4 => 120.0,
            _ => 100.0,
        };
        for k in 0..6 {
            if lx + item_w(k) > MARGIN + avail && lx > MARGIN + 140.0 {
                lx = MARGIN + 140.0;
                ly += 22.0;
            }
            items.push((k, lx, ly));
            lx += item_w(k);
        }
        let width = width.max(2.0 * MARGIN + avail);
        let height = ly + 40.0;
        let node_left = |c: usize| xs[c];
        let node_right = |c: usize| xs[c] + COLUMN;

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
            let x = xs[c];
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
                let (bx, bw) = (x + BOX_X, COLUMN - 2.0 * BOX_X);
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
                    r#"<rect x="{bx:.1}" y="{:.1}" width="{bw:.1}" height="{:.1}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
                    p.y, p.h
                );
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="{FONT}" font-weight="bold" fill="#111827">{}</text>"##,
                    bx + 10.0,
                    p.y + 18.0,
                    esc(&i.name)
                );
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#4b5563">module {}</text>"##,
                    bx + 10.0,
                    p.y + 34.0,
                    esc(&i.module)
                );
                let mut y = p.y + BOX_H;
                if seat {
                    let _ = writeln!(
                        s,
                        r##"<text class="seat-mark" x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#0369a1">★ seat {}</text>"##,
                        bx + 10.0,
                        y + 6.0,
                        esc(&i.seats.join(", "))
                    );
                    y += SEAT_H;
                }
                if left_out {
                    let _ = writeln!(
                        s,
                        r##"<text class="left-out-mark" x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#b91c1c">left out:</text>"##,
                        bx + 10.0,
                        y + 6.0
                    );
                    for (k, reason) in i.left_out.iter().take(4).enumerate() {
                        let _ = writeln!(
                            s,
                            r##"<text class="reason" x="{:.1}" y="{:.1}" font-size="10" fill="#7f1d1d">{}<title>{}</title></text>"##,
                            bx + 10.0,
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

        // The arrows, each with its label on its first stretch.
        let mut over = 0usize;
        for (k, a) in arrows.iter().enumerate() {
            let (from_node, from_box) = match &a.from {
                Start::Instance(n, _) => (n.as_str(), true),
                Start::Node(n) => (n.as_str(), false),
            };
            let fc = column_of[from_node];
            let tc = column_of[a.to.0.as_str()];
            let (y1, y2) = (y_from[k], y_to[k]);
            let inset = if from_box { BOX_X } else { 0.0 };
            // The start, on the box (or the node) and past the label band and lanes.
            let (x1, out1) = match a.from_side {
                Side::Right => (node_right(fc) - inset, node_right(fc) + band[fc][1]),
                Side::Left => (node_left(fc) + inset, node_left(fc) - band[fc][0]),
            };
            let (x2, in2) = match a.to_side {
                Side::Right => (node_right(tc) - BOX_X, node_right(tc) + band[tc][1]),
                Side::Left => (node_left(tc) + BOX_X, node_left(tc) - band[tc][0]),
            };
            let path = if a.from_side == Side::Right && a.to_side == Side::Right {
                let lane = node_right(fc) + band[fc][1] + 8.0 + lane_of[k] as f64 * LANE;
                let r = 4.0_f64.min((y2 - y1).abs() / 2.0);
                let dir = if y2 >= y1 { 1.0 } else { -1.0 };
                format!(
                    "M{x1:.1},{y1:.1} H{:.1} Q{lane:.1},{y1:.1} {lane:.1},{:.1} V{:.1} Q{lane:.1},{y2:.1} {:.1},{y2:.1} H{x2:.1}",
                    lane - r,
                    y1 + dir * r,
                    y2 - dir * r,
                    lane - r
                )
            } else {
                // Past this column's lanes before curving, so the lanes cross a straight line.
                let (s1, s2) = match a.from_side {
                    Side::Right => (out1 + lanes_w(fc), in2),
                    Side::Left => (out1, in2 + lanes_w(tc)),
                };
                if fc.abs_diff(tc) > 1 {
                    // Over the columns between, above their boxes, each such arrow a
                    // little higher than the one before.
                    let top = MARGIN - 6.0 - over as f64 * 5.0;
                    over += 1;
                    let turn = if s2 > s1 { 40.0 } else { -40.0 };
                    format!(
                        "M{x1:.1},{y1:.1} H{s1:.1} C{:.1},{y1:.1} {:.1},{top:.1} {:.1},{top:.1} H{:.1} C{:.1},{top:.1} {:.1},{y2:.1} {s2:.1},{y2:.1} H{x2:.1}",
                        s1 + turn,
                        s1 + turn,
                        s1 + 2.0 * turn,
                        s2 - 2.0 * turn,
                        s2 - turn,
                        s2 - turn
                    )
                } else {
                    let dx = (s2 - s1) / 2.0;
                    format!(
                        "M{x1:.1},{y1:.1} H{s1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {s2:.1},{y2:.1} H{x2:.1}",
                        s1 + dx,
                        s2 - dx
                    )
                }
            };
            let color = by_color(&a.by);
            let _ = write!(
                s,
                r#"<g class="{}"{}><path d="{path}" fill="none" stroke="{color}" stroke-width="1.4" opacity="0.85" marker-end="url(#arrow-{})"/>"#,
                a.class,
                a.data,
                esc(&a.by)
            );
            // The label above the stub, in the band beside the node.
            let n = a.lines.len() as f64;
            for (i, line) in a.lines.iter().enumerate() {
                let ly = y1 - 3.0 - (n - 1.0 - i as f64) * LINE;
                let (lx, anchor) = match a.from_side {
                    Side::Right => (node_right(fc) + 5.0, "start"),
                    Side::Left => (node_left(fc) - 5.0, "end"),
                };
                let _ = write!(
                    s,
                    r#"<text class="edge-label" x="{lx:.1}" y="{ly:.1}" text-anchor="{anchor}" font-size="10.5" fill="{color}">{}</text>"#,
                    esc(line)
                );
            }
            let _ = writeln!(s, "<title>{}</title></g>", esc(&a.title));
        }

        // Legend.
        let _ = writeln!(
            s,
            r##"<g class="legend"><text x="{MARGIN}" y="{legend_y:.1}" font-size="12" font-weight="bold" fill="#111827">provider chosen by:</text>"##
        );
        for (k, x, y) in items {
            match k {
                0..=3 => {
                    let (by, what) = rules[k];
                    let _ = writeln!(
                        s,
                        r##"<line x1="{x}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{c}" stroke-width="2" marker-end="url(#arrow-{by})"/><text x="{:.1}" y="{y:.1}" font-size="12" fill="{c}">{by}: {what}</text>"##,
                        y - 4.0,
                        x + 30.0,
                        y - 4.0,
                        x + 36.0,
                        c = by_color(by)
                    );
                }
                4 => {
                    let _ = writeln!(
                        s,
                        r##"<rect x="{x}" y="{:.1}" width="22" height="14" rx="3" fill="#e0f2fe" stroke="#0369a1" stroke-width="3"/><text x="{:.1}" y="{y:.1}" font-size="12" fill="#0369a1">seat holder</text>"##,
                        y - 11.0,
                        x + 28.0
                    );
                }
                _ => {
                    let _ = writeln!(
                        s,
                        r##"<rect x="{x}" y="{:.1}" width="22" height="14" rx="3" fill="#fef2f2" stroke="#b91c1c" stroke-dasharray="6 4"/><text x="{:.1}" y="{y:.1}" font-size="12" fill="#b91c1c">left out</text>"##,
                        y - 11.0,
                        x + 28.0
                    );
                }
            }
        }
        s.push_str("</g>\n");
        s.push_str("</svg>\n");
        s
    }
}
