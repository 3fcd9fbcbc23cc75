#!/usr/bin/env bash
# cluster-check.sh: runs docker/compose.cluster.yml for real on a Debian 12 machine with no Docker
# engine and no registry (this project's build machines), and checks the cluster it starts.
#
#   bash tests/docker/cluster-check.sh      (as root, from anywhere; about 5 minutes once the
#                                              images are built, 20 more to build them)
#   PLATEAU_IMAGE=localhost/plateau:check bash tests/docker/cluster-check.sh
#                                             (uses that image of docker/Dockerfile: CI's)
#   REBUILD=1 ...                             builds every image again
#
# How: Debian's docker-compose (1.29) drives podman through podman's Docker API on a private
# socket. The images compose.cluster.yml names are built locally: plateau:latest and
# plateau-haproxy:latest from this repository's Dockerfiles, and stand-ins for the official
# postgres:15-bookworm and redis:7-bookworm (postgres.Dockerfile, redis.Dockerfile here: Debian
# 12's PostgreSQL 15 and Redis 7, with what the compose file uses of the official images). The
# base debian:bookworm-slim image must exist in podman already: the project's
# ../shared/tools/container-check.sh makes it.
#
# What differs from `docker compose up` on a Docker engine, each for a reason of this machine's
# (the override file it writes says so line by line):
#   - docker-compose 1.29 knows no top-level `name:`: the project is named with -p instead;
#   - podman runs health checks only through systemd, absent here: this script runs them itself
#     every 2 seconds (`podman healthcheck run`), as Docker's engine would; and it does not
#     restart a killed container (restart: unless-stopped), so the check starts it again;
#   - docker-compose 1.29 reads podman's networks as changed once they exist, and so refuses a
#     later `up` of one service: a stopped node is started again with `start`;
#   - HAProxy's resolver is Docker's embedded DNS (127.0.0.11); podman's DNS answers at the
#     network's gateway instead, so HAProxy gets a copy of haproxy.cfg naming that address;
#   - this sandbox lets root raise the open-files limit to `ulimit -Hn` only (20000 here), below
#     the 131072 the compose file asks for HAProxy, and HAProxy refuses to start with a maxconn
#     of 60000 it cannot open descriptors for: the copy of haproxy.cfg has a maxconn that fits;
#   - podman 4.3 (CNI) gives an `internal: true` network no DNS, so the backend network is not
#     internal here (the services still publish nothing but HAProxy's frontend).
#
# Checks, all on the containers' own addresses (nothing is published on the host):
#   1. every service becomes healthy, in the order of depends_on;
#   2. HAProxy answers /healthz from a node, and /metrics is refused there;
#   3. two players (plateau-cli bots, from the image) play a game of Quantik to the end through
#      HAProxy, and a spectator's copy of it ends the same;
#   4. a node killed with SIGKILL: HAProxy takes it out, new games still play to the end, and the
#      node comes back healthy;
#   5. a node stopped with SIGTERM (a rolling upgrade's step) drains: HAProxy takes it out while
#      it still serves; then it exits 0 within its grace, games still play, and it starts again
#      healthy; a last game plays with all three back;
#   6. exactly one node directs the tournaments.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PROJECT=plateau-check
WORK=$(mktemp -d -t cluster-check.XXXXXX)
SOCK=$WORK/podman.sock
SERVICE_PID=""
HEALTH_PID=""
FAILED=0
PIDS=()
PLATEAU_CLI=${PLATEAU_CLI:-$ROOT/build/clients/cli/plateau-cli}
if [ ! -x "$PLATEAU_CLI" ]; then
  echo "== $PLATEAU_CLI missing: building it with scripts/build.sh"
  (cd "$ROOT" && bash scripts/build.sh build >/dev/null)
fi
[ -x "$PLATEAU_CLI" ] || { echo "no plateau-cli at $PLATEAU_CLI"; exit 2; }

log() { printf '== %s\n' "$*"; }
fail() {
  printf 'FAIL: %s\n' "$*"
  FAILED=1
}

# ------------------------------------------------------------------- packages and podman setup
if ! command -v podman >/dev/null || ! command -v docker-compose >/dev/null ||
   ! command -v runc >/dev/null || [ ! -x /usr/lib/cni/dnsname ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends podman runc catatonit docker-compose \
    golang-github-containernetworking-plugin-dnsname curl >/dev/null
fi
NOFILE=$(ulimit -Hn)
[ "$NOFILE" = unlimited ] && NOFILE=1048576
[ "$NOFILE" -gt 131072 ] && NOFILE=131072
NPROC=$(ulimit -Hu)
{ [ "$NPROC" = unlimited ] || [ "$NPROC" -gt 32768 ]; } && NPROC=32768
export CONTAINERS_CONF=$WORK/containers.conf
cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=${NOFILE}:${NOFILE}", "nproc=${NPROC}:${NPROC}"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF

compose() {  # docker-compose on podman's socket, each call at most 10 minutes
  DOCKER_HOST="unix://$SOCK" COMPOSE_HTTP_TIMEOUT=300 timeout 600 \
    docker-compose -p "$PROJECT" -f "$WORK/compose.yml" -f "$WORK/override.yml" "$@"
}
cname() { echo "${PROJECT}_$1_1"; }
# Whatever an earlier run left (its containers, networks and the database's volume).
leftovers() {
  local ids
  ids=$(podman ps -aq --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null || true)
  [ -z "$ids" ] || podman rm -f $ids >/dev/null 2>&1 || true
  podman network rm -f "${PROJECT}_backend" "${PROJECT}_frontend" >/dev/null 2>&1 || true
  podman volume rm -f plateau-pg >/dev/null 2>&1 || true
}

cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  if [ -S "$SOCK" ]; then
    if [ "$FAILED" = 1 ]; then
      for s in postgres redis node1 node2 node3 haproxy; do
        echo "--- logs of $s (last 30 lines)"
        podman logs --tail 30 "$(cname $s)" 2>&1
      done
    fi
    compose down -v --timeout 20 >/dev/null 2>&1
  fi
  leftovers
  [ -n "$HEALTH_PID" ] && kill "$HEALTH_PID" 2>/dev/null
  [ -n "$SERVICE_PID" ] && kill "$SERVICE_PID" 2>/dev/null && wait "$SERVICE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

podman image exists docker.io/library/debian:bookworm-slim ||
  { echo "no debian:bookworm-slim image: run ../shared/tools/container-check.sh once"; exit 2; }

# ------------------------------------------------------------------------------------ images
build() {  # build TAG DOCKERFILE CONTEXT, unless it exists and REBUILD is not 1
  if [ "${REBUILD:-0}" != 1 ] && podman image exists "$1"; then return; fi
  log "building $1"
  # Docker's format: an OCI image drops the Dockerfile's HEALTHCHECK (HAProxy's is the one used).
  podman build --format docker --pull=never --network host -q -t "$1" -f "$2" "$3" >/dev/null
}
build docker.io/library/postgres:15-bookworm "$HERE/postgres.Dockerfile" "$HERE"
build docker.io/library/redis:7-bookworm "$HERE/redis.Dockerfile" "$HERE"
build localhost/plateau-haproxy:latest "$ROOT/docker/haproxy.Dockerfile" "$ROOT/docker"
# PLATEAU_IMAGE: an image of docker/Dockerfile built already (CI: tests/docker/check.sh's).
if [ -n "${PLATEAU_IMAGE:-}" ] && [ "$PLATEAU_IMAGE" != localhost/plateau:latest ]; then
  podman tag "$PLATEAU_IMAGE" localhost/plateau:latest
fi
build localhost/plateau:latest "$ROOT/docker/Dockerfile" "$ROOT"

# ------------------------------------------------------------------- the compose file, as run
sed '/^name: /d' "$ROOT/docker/compose.cluster.yml" >"$WORK/compose.yml"
# Paths in the file are relative to its folder: keep them pointing at docker/.
sed -i "s#context: \.\.  #context: $ROOT  #; s#context: \.  #context: $ROOT/docker  #; s#- \./haproxy.cfg:#- $ROOT/docker/haproxy.cfg:#" "$WORK/compose.yml"
SUBNET=172.30.60
GATEWAY=$SUBNET.1
# HAProxy needs two descriptors per connection: its maxconn, fitted to this machine's limit.
MAXCONN=$(((NOFILE - 200) / 2))
[ "$MAXCONN" -gt 60000 ] && MAXCONN=60000
sed -e "s#nameserver dns 127.0.0.11:53#nameserver dns $GATEWAY:53#" \
  -e "s#^\(    maxconn\) 60000#\1 $MAXCONN#" "$ROOT/docker/haproxy.cfg" >"$WORK/haproxy.cfg"
grep -q "maxconn $MAXCONN" "$WORK/haproxy.cfg" || { echo "haproxy.cfg: no 'maxconn 60000' to fit"; exit 2; }
cat >"$WORK/override.yml" <<EOF
version: "3.8"
services:
  haproxy:
    # podman's DNS answers at the backend network's gateway, not at Docker's 127.0.0.11.
    volumes:
      - $WORK/haproxy.cfg:/etc/haproxy/haproxy.cfg:ro
    # The most open files this machine lets root allow (the compose file asks 131072).
    ulimits:
      nofile:
        soft: $NOFILE
        hard: $NOFILE
      # Once a container names any limit, podman's Docker API gives it its own nproc default
      # (1048576), above what this machine allows: the machine's own is named here too.
      nproc:
        soft: $NPROC
        hard: $NPROC
networks:
  backend:
    # podman 4.3's CNI networks have no DNS when internal: the nodes could not find postgres.
    # (docker-compose 1.29 replaces a network's whole entry: its subnet is repeated here.)
    internal: false
    ipam:
      config:
        - subnet: "$SUBNET.0/24"
EOF

# ------------------------------------------------------------ podman's Docker API, and health
podman system service --time=0 "unix://$SOCK" >"$WORK/service.log" 2>&1 &
SERVICE_PID=$!
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { echo "podman's API did not start"; cat "$WORK/service.log"; exit 1; }
# Docker's engine runs each container's HEALTHCHECK; podman leaves it to systemd timers.
(
  while true; do
    for c in $(podman ps --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}}'); do
      podman healthcheck run "$c" >/dev/null 2>&1 || true
    done
    sleep 2
  done
) &
HEALTH_PID=$!

leftovers

# ------------------------------------------------------------------------------------ up
log "docker-compose up -d (nodes after postgres and redis are healthy, haproxy after the nodes)"
t0=$(date +%s)
if ! compose up -d --no-build >"$WORK/up.log" 2>&1; then
  cat "$WORK/up.log"
  fail "compose up"
  exit 1
fi
cat "$WORK/up.log"
health() { podman inspect -f '{{.State.Health.Status}}' "$(cname "$1")" 2>/dev/null; }
wait_healthy() {  # wait_healthy SERVICE SECONDS
  local until=$(($(date +%s) + $2))
  while [ "$(date +%s)" -lt "$until" ]; do
    [ "$(podman inspect -f '{{.State.Running}}' "$(cname "$1")" 2>/dev/null)" = true ] &&
      [ "$(health "$1")" = healthy ] && return 0
    sleep 1
  done
  return 1
}
for s in postgres redis node1 node2 node3 haproxy; do
  wait_healthy "$s" 180 || fail "$s never became healthy ($(health "$s"))"
done
log "all six services healthy after $(($(date +%s) - t0)) s"
[ "$FAILED" = 0 ] || exit 1

wait_down() {  # wait_down SERVICE SECONDS: until HAProxy's own stats say the node is DOWN
  local until=$(($(date +%s) + $2)) st
  while [ "$(date +%s)" -lt "$until" ]; do
    st=$(podman exec "$(cname haproxy)" curl -fsS --max-time 2 'http://127.0.0.1:8404/stats;csv' 2>/dev/null |
      awk -F, -v n="$1" '$1 == "nodes" && $2 == n { print $18 }')
    case "$st" in DOWN*) return 0 ;; esac
    sleep 0.5
  done
  return 1
}
ip_of() {  # ip_of SERVICE NETWORK
  podman inspect -f "{{(index .NetworkSettings.Networks \"${PROJECT}_$2\").IPAddress}}" "$(cname "$1")"
}
HA=$(ip_of haproxy frontend)
log "HAProxy at $HA:8080"

# ------------------------------------------------------------------------------- checks
body=$(curl -fsS --max-time 5 "http://$HA:8080/healthz" || true)
case "$body" in *'"status":"ok"'*) log "healthz through HAProxy: $body" ;; *) fail "healthz: '$body'" ;; esac
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$HA:8080/metrics" || true)
[ "$code" = 404 ] && log "/metrics refused through HAProxy (404)" || fail "/metrics through HAProxy: $code"

# The players and the spectator: the host's plateau-cli (what a remote player would run), on
# HAProxy's address. Line-buffered, so that what it printed is there when it is stopped.
cli() {  # cli NAME ARGS...
  local name=$1
  shift
  stdbuf -oL "$PLATEAU_CLI" --host "$HA" --port 8080 --name "$name" "$@"
}
play_game() {  # play_game LABEL: two bots and a spectator through HAProxy; the same end for all
  local label=$1 out=$WORK/game-${#PIDS[@]}
  mkdir -p "$out"
  cli Ann bot --game quantik --level random --seed 11 >"$out/ann" 2>"$out/ann.err" &
  local ann=$!
  PIDS+=("$ann")
  local room=""
  for _ in $(seq 100); do
    room=$(sed -n 's/^room //p' "$out/ann" | head -1)
    [ -n "$room" ] && break
    sleep 0.2
  done
  if [ -z "$room" ]; then
    kill "$ann" 2>/dev/null
    fail "$label: Ann made no room ($(cat "$out/ann.err"))"
    return
  fi
  cli Eve watch "$room" >"$out/eve" 2>"$out/eve.err" &
  local eve=$!
  PIDS+=("$eve")
  timeout 60 "$PLATEAU_CLI" --host "$HA" --port 8080 --name Bob bot --game quantik --room "$room" \
    --level random --seed 12 >"$out/bob" 2>"$out/bob.err" || true
  for _ in $(seq 50); do grep -q '^over: ' "$out/ann" && break; sleep 0.2; done
  sleep 1  # the spectator's last frames
  kill "$ann" "$eve" 2>/dev/null
  wait "$ann" "$eve" 2>/dev/null || true
  local a b
  a=$(sed -n 's/^over: //p' "$out/ann")
  b=$(sed -n 's/^over: //p' "$out/bob")
  if [ -z "$a" ] || [ "$a" != "$b" ]; then
    fail "$label: room $room did not end the same for both players (Ann '$a', Bob '$b'; $(cat "$out/ann.err" "$out/bob.err" | tail -3))"
    return
  fi
  # The spectator saw it end: a full state, or a patch, saying so.
  if ! grep -qE '"status":"over"|"path":"/status","value":"over"' "$out/eve"; then
    fail "$label: the spectator never saw room $room end ($(tail -c 300 "$out/eve") $(cat "$out/eve.err"))"
    return
  fi
  log "$label: room $room played to the end through HAProxy: $a; the spectator saw it end"
}

play_game "game 1"

# A node killed: HAProxy takes it out (2 failed checks, 2 s apart); games go on; it comes back.
log "SIGKILL node1"
podman kill --signal KILL "$(cname node1)" >/dev/null
wait_down node1 30 && log "HAProxy took node1 out" || fail "HAProxy still sends to node1"
play_game "game 2 (node1 killed)"
body=$(curl -fsS --max-time 5 "http://$HA:8080/healthz" || true)
case "$body" in *'"status":"ok"'*) log "healthz through HAProxy with node1 down: ok" ;; *) fail "healthz with node1 down: '$body'" ;; esac
# restart: unless-stopped brings it back on Docker's engine; podman's Docker API does not restart
# a killed container, so the check does what an operator (or the engine) would.
sleep 3
if [ "$(podman inspect -f '{{.State.Running}}' "$(cname node1)")" != true ]; then
  log "node1 not restarted by podman: started again as the engine would (podman start)"
  podman start "$(cname node1)" >/dev/null 2>&1 || fail "podman start node1"
fi
wait_healthy node1 120 && log "node1 healthy again" || fail "node1 did not come back healthy"

# A rolling upgrade's step: a node stopped with SIGTERM hands over, then starts again.
log "SIGTERM node2 (docker-compose stop), then up again"
t=$(date +%s)
compose stop node2 >"$WORK/stop-node2.log" 2>&1 || fail "docker-compose stop node2: $(tail -3 "$WORK/stop-node2.log")"
code=$(podman inspect -f '{{.State.ExitCode}}' "$(cname node2)")
log "node2 stopped in $(($(date +%s) - t)) s (drain 6 s, grace 20 s), exit code $code"
[ "$code" = 0 ] || fail "node2 exited with $code"
wait_down node2 30 && log "HAProxy took node2 out" || fail "HAProxy still sends to node2"
# It drained first (PLATEAU_DRAIN_SECONDS): HAProxy took it out on its 503 "draining", while it
# still served, not on a refused connection once it was gone.
# (The logs are read whole into files first: `podman logs | grep -q` fails under pipefail when
# grep stops reading early.)
podman logs "$(cname haproxy)" >"$WORK/haproxy.log" 2>&1 || true
podman logs "$(cname node2)" >"$WORK/node2.log" 2>&1 || true
grep -q 'nodes/node2 is DOWN, reason: Layer7 wrong status, code: 503' "$WORK/haproxy.log" &&
  log "HAProxy took node2 out on its 503 while it drained" ||
  fail "HAProxy did not see node2 drain: $(grep 'node2 is DOWN' "$WORK/haproxy.log" | head -1)"
grep -q 'event=draining' "$WORK/node2.log" && log "node2 logged its drain" ||
  fail "node2 did not log event=draining"
grep -q 'event=stopped' "$WORK/node2.log" && log "node2 logged its stop" ||
  fail "node2 did not log event=stopped"
play_game "game 3 (node2 stopped)"
# (docker-compose 1.29's `up -d --no-deps node2` would refuse here: it reads podman's network
# as changed and asks to recreate it. `start` runs the same container again.)
compose start node2 >"$WORK/start-node2.log" 2>&1 ||
  fail "docker-compose start node2: $(tail -3 "$WORK/start-node2.log")"
wait_healthy node2 120 && log "node2 healthy again" || fail "node2 did not come back healthy"
play_game "game 4 (all three back)"

# One node, and one only, directs the tournaments.
directors=0
for s in node1 node2 node3; do
  ip=$(ip_of "$s" backend)
  m=$(curl -fsS --max-time 5 "http://$ip:8080/metrics" 2>/dev/null || true)
  peers=$(printf '%s\n' "$m" | sed -n 's/^plateau_cluster_peers \([0-9.]*\)$/\1/p')
  d=$(printf '%s\n' "$m" | sed -n 's/^plateau_cluster_tournament_director \([0-9.]*\)$/\1/p')
  log "$s: peers=$peers director=$d"
  [ -n "$d" ] && directors=$((directors + ${d%.*}))
done
[ "$directors" = 1 ] || fail "$directors nodes direct the tournaments (1 expected)"

if [ "$FAILED" = 0 ]; then
  log "cluster-check: PASSED"
else
  log "cluster-check: FAILED"
  exit 1
fi
