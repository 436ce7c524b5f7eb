#!/usr/bin/env bash
# A two-node Docker Swarm on one machine, for the `--target swarm` engine tests
# (compiler/tests/engine_swarm.rs; the layout is explained in docs/swarm.md, "Testing").
#
#   swarm.sh up STATE     start two engines, one per network namespace, joined as a swarm
#   swarm.sh down STATE   stop them and remove everything `up` made (idempotent)
#
# STATE is an empty directory the caller owns. `up` writes STATE/env (shell syntax):
# NODE_A_SOCK, NODE_B_SOCK (each engine's socket), NODE_A_ADDR, NODE_B_ADDR (each node's
# private address), NODE_A_NAME, NODE_B_NAME (host names, which are the swarm node names),
# NODE_A_NETNS, NODE_B_NETNS (their network namespaces, for `nsenter --net=`).
#
# Nothing here touches the machine's own engine or its default socket: each `dockerd` has
# its own data root, exec root, socket, pidfile and configuration, runs in a network
# namespace and a mount namespace of its own (so what it mounts is never seen, or left
# behind, on the host) and in a UTS namespace of its own (so the two nodes have different
# host names). The namespaces are joined by veth pairs to a bridge made here, which carries
# no address on the host: the only traffic is between the two namespaces.
#
# Why each choice (measured on Debian's docker.io 20.10 with the engine started
# `--iptables=false`, as CI does):
# - `nsenter --net=…`, not `ip netns exec`: the latter remounts /sys, hiding the cgroup
#   mounts dockerd needs ("Devices cgroup isn't mounted").
# - one MASQUERADE rule in each namespace: both engines give `docker_gwbridge` the same
#   subnet, so a task reaching a host-mode port on the other node must leave with its
#   node's address or the reply goes to a local container instead.
# - a bind mount over /etc/docker inside the mount namespace: dockerd keeps its identity
#   key there, and two engines must not share one.
set -Eeuo pipefail

usage() {
  echo "usage: $0 up|down STATE" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
state=$2

# The nodes' private network. It exists only between the two namespaces (the host bridge
# has no address), so it cannot meet the host's own networks; it is kept clear of Swarm's
# default overlay pool (10.0.0.0/8) and of the engines' bridge pools (172.17-31.x.x).
subnet_prefix=192.168.213
nodes=(a b)

names() {
  # Interface names are at most 15 bytes: "msw" + 6 hex + suffix.
  id=$(cat "$state/id")
  bridge="msw${id}br"
}
ns_of() { echo "meshc-swarm-${id}-$1"; }
addr_of() {
  case $1 in a) echo "$subnet_prefix.11" ;; b) echo "$subnet_prefix.12" ;; esac
}
in_ns() {
  local node=$1
  shift
  nsenter --net="/run/netns/$(ns_of "$node")" "$@"
}
sock_of() { echo "$state/$1/docker.sock"; }
dk() {
  local node=$1
  shift
  docker -H "unix://$(sock_of "$node")" "$@"
}

need() {
  local missing=()
  for tool in ip nsenter unshare dockerd docker iptables mount; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "swarm.sh: missing ${missing[*]} (install iproute2, util-linux, iptables, docker.io)" >&2
    exit 1
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "swarm.sh: network namespaces and engines need root" >&2
    exit 1
  fi
}

start_node() {
  local node=$1 ns veth_host addr dir
  ns=$(ns_of "$node")
  veth_host="msw${id}${node}0"
  addr=$(addr_of "$node")
  dir="$state/$node"
  mkdir -p "$dir/data" "$dir/exec" "$dir/etc-docker"
  echo '{}' >"$dir/daemon.json"

  ip netns add "$ns"
  ip link add "$veth_host" type veth peer name "msw${id}${node}1"
  ip link set "msw${id}${node}1" netns "$ns"
  ip link set "$veth_host" master "$bridge" up
  in_ns "$node" ip link set lo up
  in_ns "$node" ip link set "msw${id}${node}1" name eth0
  in_ns "$node" ip addr add "$addr/24" dev eth0
  in_ns "$node" ip link set eth0 up
  in_ns "$node" iptables -t nat -A POSTROUTING -o eth0 -j MASQUERADE

  # setsid: the engine is no child of the caller's process group, so a ^C in the test does
  # not reach it half-way; `down` stops it by its pid.
  setsid nsenter --net="/run/netns/$ns" \
    unshare --uts --mount --propagation private \
    sh -c 'hostname "$1" && mount --bind "$2/etc-docker" /etc/docker && shift 2 && exec "$@"' \
    sh "meshc-$node" "$dir" \
    dockerd \
    --storage-driver vfs --iptables=false \
    --data-root "$dir/data" --exec-root "$dir/exec" \
    --pidfile "$dir/docker.pid" --config-file "$dir/daemon.json" \
    -H "unix://$(sock_of "$node")" \
    >"$dir/dockerd.log" 2>&1 </dev/null &
  echo $! >"$dir/launcher.pid"
}

wait_node() {
  local node=$1
  for _ in $(seq 1 120); do
    if dk "$node" info >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$(cat "$state/$node/launcher.pid")" 2>/dev/null; then
      break
    fi
    sleep 0.5
  done
  echo "swarm.sh: the engine of node $node did not start; its log:" >&2
  tail -n 30 "$state/$node/dockerd.log" >&2 || true
  return 1
}

# The bridge that carries a swarm node's host-mode ports, made before the node joins (as
# docs/swarm.md tells operators to do): host ports are bound to the node's private address
# only, so a private port is never reachable on another address of the machine.
gwbridge() {
  local node=$1
  dk "$node" network create --driver bridge \
    -o com.docker.network.bridge.name=docker_gwbridge \
    -o com.docker.network.bridge.enable_icc=false \
    -o com.docker.network.bridge.enable_ip_masquerade=true \
    -o com.docker.network.bridge.host_binding_ipv4="$(addr_of "$node")" \
    docker_gwbridge >/dev/null
}

up() {
  need
  [ -d "$state" ] || {
    echo "swarm.sh: $state is not a directory" >&2
    exit 2
  }
  if [ -e "$state/id" ]; then
    echo "swarm.sh: $state already holds a swarm; run down first" >&2
    exit 2
  fi
  head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$state/id"
  names
  # Whatever fails from here on, nothing is left behind.
  trap 'echo "swarm.sh: up failed; tearing down" >&2; down; exit 1' ERR

  ip link add "$bridge" type bridge
  ip link set "$bridge" up
  for node in "${nodes[@]}"; do
    start_node "$node"
  done
  for node in "${nodes[@]}"; do
    wait_node "$node"
    gwbridge "$node"
  done

  dk a swarm init --advertise-addr "$(addr_of a)" --listen-addr "$(addr_of a):2377" >/dev/null
  local token
  token=$(dk a swarm join-token -q worker)
  dk b swarm join --token "$token" --advertise-addr "$(addr_of b)" \
    --listen-addr "$(addr_of b):2377" "$(addr_of a):2377" >/dev/null
  # The worker is Ready once the manager has heard from it.
  for _ in $(seq 1 60); do
    if [ "$(dk a node ls --format '{{.Status}}' | grep -c '^Ready$')" = 2 ]; then
      break
    fi
    sleep 0.5
  done
  if [ "$(dk a node ls --format '{{.Status}}' | grep -c '^Ready$')" != 2 ]; then
    echo "swarm.sh: node b did not become ready:" >&2
    dk a node ls >&2
    false
  fi

  cat >"$state/env" <<EOF
NODE_A_SOCK=$(sock_of a)
NODE_B_SOCK=$(sock_of b)
NODE_A_ADDR=$(addr_of a)
NODE_B_ADDR=$(addr_of b)
NODE_A_NAME=meshc-a
NODE_B_NAME=meshc-b
NODE_A_NETNS=/run/netns/$(ns_of a)
NODE_B_NETNS=/run/netns/$(ns_of b)
EOF
  trap - ERR
}

# The pids of processes this node started that may outlive its engine: those in its
# network namespace (containerd and the shims) and the containers' own (in cgroups named
# after the container ids of its data root).
node_pids() {
  local node=$1 ns_inode ids pid
  ns_inode=$(stat -L -c %i "/run/netns/$(ns_of "$node")" 2>/dev/null || true)
  ids=$(ls "$state/$node/data/containers" 2>/dev/null || true)
  for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    if [ -n "$ns_inode" ] && [ "$(stat -L -c %i "$proc/ns/net" 2>/dev/null || true)" = "$ns_inode" ]; then
      echo "$pid"
      continue
    fi
    if [ -n "$ids" ] && grep -qF -f <(echo "$ids") "$proc/cgroup" 2>/dev/null; then
      echo "$pid"
    fi
  done
}

stop_node() {
  local node=$1 dir=$state/$1 pid
  [ -d "$dir" ] || return 0
  pid=$(cat "$dir/launcher.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # The tasks are killed first: a PID 1 that ignores SIGTERM (a shell, `sleep`) would hold
    # the engine's shutdown for its stop timeout.
    local running
    running=$(dk "$node" ps -q 2>/dev/null)
    if [ -n "$running" ]; then
      # shellcheck disable=SC2086
      dk "$node" kill $running >/dev/null 2>&1
    fi
    # dockerd stops what is left and its containerd on SIGTERM.
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
  fi
  local left
  left=$(node_pids "$node")
  if [ -n "$left" ]; then
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    sleep 0.5
  fi
}

down() {
  trap - ERR
  set +e
  [ -e "$state/id" ] || return 0
  names
  for node in "${nodes[@]}"; do
    stop_node "$node"
  done
  for node in "${nodes[@]}"; do
    ip netns del "$(ns_of "$node")" 2>/dev/null
  done
  ip link del "$bridge" 2>/dev/null
  # The engines' mounts lived in their own mount namespaces, gone with their processes;
  # any still visible here would be under STATE and are undone before removing it.
  grep -F " $state/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do
    umount -l "$m"
  done
  rm -rf "${state:?}"/a "${state:?}"/b "$state/env" "$state/id"
  return 0
}

case $cmd in
  up) up ;;
  down) down ;;
  *) usage ;;
esac
