//! `--target swarm` on a real two-node Docker Swarm (LANGUAGE.md §14.4): two engines, each
//! in network namespaces of its own, joined as a manager and a worker by
//! `support/swarm.sh`. Without the privileges to make them the tests say so and pass,
//! unless `MESHC_REQUIRE_ENGINE` or `CI` is set: then they fail.

#[path = "support/swarm.rs"]
mod swarm;

use std::time::Duration;
use swarm::Swarm;

/// The reach docs/swarm.md designs, on a stack written by hand: a host-mode port is bound
/// to its node's private address only (the node's `docker_gwbridge` says so), so a task on
/// the other node reaches it there and nothing reaches it on the node's loopback; a secret
/// and a config keep their owner, group and mode; placement follows the node labels.
#[test]
fn the_two_node_swarm_places_binds_and_reaches_as_designed() {
    let test = "the_two_node_swarm_places_binds_and_reaches_as_designed";
    let Some(swarm) = Swarm::up(test) else {
        return;
    };
    let image = "meshc-swarm-hand:1";
    swarm.import_busybox(image, &["sh", "nc", "cat", "stat", "id", "sleep", "echo"]);
    for (node, label) in [(&swarm.a, "alpha"), (&swarm.b, "beta")] {
        swarm.a.docker_ok(&[
            "node",
            "update",
            "--label-add",
            &format!("mesh.node={label}"),
            &node.name,
        ]);
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pw"), "s3cret").unwrap();
    std::fs::write(dir.path().join("conf"), "hello\n").unwrap();
    std::fs::write(
        dir.path().join("stack.yaml"),
        format!(
            r#"version: "3.8"
services:
  prov:
    image: "{image}"
    command: ["/bin/sh", "-c", "while true; do echo pong | nc -l -p 5432; done"]
    user: "1000:1000"
    stop_grace_period: 1s
    ports:
      - {{target: 5432, published: 15432, protocol: tcp, mode: host}}
    deploy:
      endpoint_mode: dnsrr
      placement: {{constraints: ["node.labels.mesh.node == alpha"]}}
    secrets:
      - {{source: pw, target: /run/secrets/pw, uid: "1000", gid: "1001", mode: 0400}}
    configs:
      - {{source: conf, target: /etc/conf, uid: "1000", gid: "1000", mode: 0440}}
    networks: [mesh]
  cons:
    image: "{image}"
    stop_grace_period: 1s
    deploy:
      endpoint_mode: dnsrr
      placement: {{constraints: ["node.labels.mesh.node == beta"]}}
    networks: [mesh]
networks:
  mesh: {{driver: overlay}}
secrets:
  pw: {{file: ./pw}}
configs:
  conf: {{file: ./conf}}
"#
        ),
    )
    .unwrap();
    let deployed = std::process::Command::new("docker")
        .current_dir(dir.path())
        .args(["-H", &format!("unix://{}", swarm.a.sock)])
        .args([
            "stack",
            "deploy",
            "--resolve-image=never",
            "-c",
            "stack.yaml",
            "hand",
        ])
        .output()
        .unwrap();
    assert!(
        deployed.status.success(),
        "{}",
        String::from_utf8_lossy(&deployed.stderr)
    );
    let wait = Duration::from_secs(60);
    let prov = swarm.a.task_container("hand_prov", wait);
    let cons = swarm.b.task_container("hand_cons", wait);
    assert_eq!(
        swarm.a.docker_ok(&[
            "exec",
            &prov,
            "sh",
            "-c",
            "id -u; id -g; stat -c '%u %g %a' /run/secrets/pw /etc/conf; cat /run/secrets/pw; echo; cat /etc/conf"
        ]),
        "1000\n1000\n1000 1001 400\n1000 1000 440\ns3cret\nhello"
    );
    // Across nodes, at node A's private address.
    let reach = |node: &swarm::Node, container: &str, host: &str| {
        node.docker(&[
            "exec",
            container,
            "sh",
            "-c",
            &format!("echo | nc -w 3 {host} 15432"),
        ])
    };
    let mut reached = reach(&swarm.b, &cons, &swarm.a.addr);
    for _ in 0..20 {
        if reached.status.success() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
        reached = reach(&swarm.b, &cons, &swarm.a.addr);
    }
    assert_eq!(
        String::from_utf8_lossy(&reached.stdout).trim(),
        "pong",
        "{}",
        String::from_utf8_lossy(&reached.stderr)
    );
    // Bound to that address only: not on node A's loopback.
    let listening = swarm.a.on_host("ss", &["-Hltn", "sport = :15432"]);
    let listening = String::from_utf8_lossy(&listening.stdout).to_string();
    let bound: Vec<&str> = listening
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3))
        .collect();
    assert_eq!(bound, [format!("{}:15432", swarm.a.addr)], "{listening}");
    let loopback = swarm
        .a
        .on_host("/bin/busybox", &["nc", "-w", "2", "127.0.0.1", "15432"]);
    assert!(!loopback.status.success(), "reached on loopback");
}
