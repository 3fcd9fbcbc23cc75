#!/usr/bin/env bash
# tests/docker/check.sh — CI check of the club image (docker/Dockerfile) on a machine with no
# Docker daemon and no registry: podman, host networking, loopback only, bounded waits.
#
#   bash tests/docker/check.sh          (as root, from anywhere in the repository)
#
# 1. builds the image with the shared container-check.sh (which also checks /healthz answers);
# 2. checks the image: size under MAX_MB, non-root user, /data volume, healthcheck, SIGTERM;
# 3. runs it with a named volume on a free loopback port and plays part of a Quantik game over
#    its WebSocket from outside the container (a small Python client below), unfinished;
# 4. scrapes /metrics; takes an online backup with sqlite3 inside the container;
# 5. stops it (SIGTERM: must exit 0 quickly) and starts it again; the room must come back with
#    its moves (lobby list, a spectator's `full`, and `plateau-cli watch`), and the game must go
#    on: the player to move reconnects with their token and moves;
# 6. runs it with a self-signed certificate mounted (PLATEAU_TLS_CERT/KEY): https only, the
#    HEALTHCHECK follows, SIGTERM exits 0; a missing key stops the start with exit code 1.
# Ends with a line "N passed, M failed"; exits 1 if anything failed.
#
# Environment (all optional):
#   CONTAINER_CHECK=../shared/tools/container-check.sh (relative to the repository root, or to the
#                                        local checkout this clone was made from)
#   IMAGE=localhost/plateau:check        tag to build (removed afterwards unless KEEP_IMAGE=1)
#   MAX_MB=150                           the image must be smaller than this (MB = 10^6 bytes)
#   WAIT_S=90                            seconds to wait for the server to answer
#   SLIM=1                               passed to container-check.sh: a base image like the
#                                        official -slim one when it has to make it (78 MB vs 121)
#   PLATEAU_CLI=build/clients/cli/plateau-cli   host-built CLI (built with scripts/build.sh if missing)
#   SKIP_BUILD=1                         reuse an IMAGE built earlier (e.g. with KEEP_IMAGE=1)
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
# Unless CONTAINER_CHECK names it: beside the repository, or, for a clone made elsewhere
# (mktemp -d) from a local checkout, beside that checkout.
if [ -z "${CONTAINER_CHECK:-}" ]; then
  CONTAINER_CHECK=$root/../shared/tools/container-check.sh
  origin=$(git -C "$root" remote get-url origin 2>/dev/null || true)
  if [ ! -f "$CONTAINER_CHECK" ] && [ -n "$origin" ] && [ -f "$origin/../shared/tools/container-check.sh" ]; then
    CONTAINER_CHECK=$origin/../shared/tools/container-check.sh
  fi
fi
IMAGE=${IMAGE:-localhost/plateau:check}
MAX_MB=${MAX_MB:-150}
WAIT_S=${WAIT_S:-90}
KEEP_IMAGE=${KEEP_IMAGE:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
PLATEAU_CLI=${PLATEAU_CLI:-$root/build/clients/cli/plateau-cli}
export SLIM=${SLIM:-1}

passed=0; failed=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# shellcheck disable=SC2001  # indents every line of a multi-line note
note() { sed 's/^/      /' <<<"$*"; }
summary() { echo "$passed passed, $failed failed"; }
T0=$(date +%s)

WORK=$(mktemp -d -t plateau-docker-check.XXXXXX)
NAME=plateau-check-$$
VOLUME=plateau-check-data-$$
CID=""
PODMAN_GLOBAL=()
pm() { timeout "${PM_TIMEOUT:-180}" podman "${PODMAN_GLOBAL[@]}" "$@"; }
cleanup() {
  set +e
  [ -n "$CID" ] && pm rm -f -t 2 "$CID" >/dev/null 2>&1
  pm volume rm -f "$VOLUME" >/dev/null 2>&1
  [ "$KEEP_IMAGE" = 1 ] || pm rmi -f "$IMAGE" >/dev/null 2>&1
  # The Dockerfile's build stage is left as an untagged image (~700 MB) by every build; a
  # machine that runs this check often would fill its disk with them. Dangling images only.
  [ "$KEEP_IMAGE" = 1 ] || pm image prune -f >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# A free TCP port on the loopback (the container shares the host's network).
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT

wait_healthy() {   # wait_healthy SECONDS: /healthz says ok, while the container runs
  local deadline=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if grep -q '"status":"ok"' <<<"$(curl -fsS --max-time 3 "$BASE/healthz" 2>/dev/null)"; then return 0; fi
    [ "$(pm inspect -f '{{.State.Running}}' "$CID" 2>/dev/null)" = true ] || return 1
    sleep 0.3
  done
  return 1
}
logs_tail() { pm logs "$CID" 2>&1 | tail -n "${1:-20}" | sed 's/^/      | /'; }

# ------------------------------------------------------------------ the host-side client
if [ ! -x "$PLATEAU_CLI" ]; then
  echo "== $PLATEAU_CLI missing: building with scripts/build.sh"
  bash scripts/deps.sh build && bash scripts/build.sh "$root/build" >/dev/null
fi
if [ -x "$PLATEAU_CLI" ]; then pass "host CLI present: $PLATEAU_CLI"; else fail "no host CLI at $PLATEAU_CLI"; fi

# --------------------------------------------------------------- 1. build + first serve
if [ "$SKIP_BUILD" != 1 ]; then
  [ -f "$CONTAINER_CHECK" ] || { fail "container-check.sh not found at $CONTAINER_CHECK (set CONTAINER_CHECK)"; summary; exit 1; }
  echo "== building $IMAGE with $CONTAINER_CHECK (slow: compiles and runs the unit tests)"
  t=$(date +%s)
  # BUILDAH_FORMAT=docker: the OCI format has no HEALTHCHECK, podman would drop it.
  # --tmpfs /data: container-check.sh removes its container without -v; an anonymous volume
  # for the image's VOLUME would be left behind.
  # shellcheck disable=SC2097,SC2098  # PORT is this script's own, passed on unchanged
  if BUILDAH_FORMAT=docker KEEP_IMAGE=1 IMAGE="$IMAGE" PORT="$PORT" WAIT_S="$WAIT_S" \
     CHECK_URL="$BASE/healthz" EXPECT='"status":"ok"' \
     RUN_ARGS="-e PLATEAU_HOST=127.0.0.1 -e PLATEAU_PORT=$PORT -e PLATEAU_DATA=none --tmpfs /data" \
     bash "$CONTAINER_CHECK" "$root" "$root/docker/Dockerfile" >"$WORK/build.log" 2>&1; then
    pass "image built and /healthz answered (container-check.sh, $(( $(date +%s) - t )) s)"
    grep -E '^(TIME|OK:|unit tests:)|tests passed|Total Test time' "$WORK/build.log" | sed 's/^/      /'
  else
    fail "container-check.sh build+serve ($(( $(date +%s) - t )) s); last lines:"
    tail -40 "$WORK/build.log" | sed 's/^/      | /'
    # A unit test that failed in the image's build: its own report, which the tail cuts off.
    if grep -qE '^\[  FAILED  \]|Failure$' "$WORK/build.log"; then
      echo "      failing tests' output:"
      grep -B3 -A12 -E 'Failure$' "$WORK/build.log" | head -120 | sed 's/^/      | /'
    fi
    summary; exit 1
  fi
fi

# Same podman setup as container-check.sh: private containers.conf with the runc runtime,
# ulimits this sandbox allows, host network, cgroupfs.
NOFILE=$(ulimit -Hn); [ "$NOFILE" = unlimited ] && NOFILE=1048576
NPROC=$(ulimit -Hu);  { [ "$NPROC" = unlimited ] || [ "$NPROC" -gt 32768 ]; } && NPROC=32768
export CONTAINERS_CONF=$WORK/containers.conf
cat > "$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=${NOFILE}:${NOFILE}", "nproc=${NPROC}:${NPROC}"]
netns = "host"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
if [ -n "${STORAGE_DRIVER:-}" ]; then
  PODMAN_GLOBAL+=(--storage-driver "$STORAGE_DRIVER"
    --root "/var/lib/containers/storage-$STORAGE_DRIVER" --runroot "/run/containers/storage-$STORAGE_DRIVER")
fi
pm image exists "$IMAGE" || { fail "image $IMAGE not found"; summary; exit 1; }

# --------------------------------------------------------------- 2. the image itself
bytes=$(pm image inspect -f '{{.Size}}' "$IMAGE")
mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
base_bytes=$(pm image inspect -f '{{.Size}}' docker.io/library/debian:bookworm-slim 2>/dev/null || echo 0)
base_mb=$(awk -v b="$base_bytes" 'BEGIN{printf "%.1f", b/1e6}')
added_mb=$(awk -v a="$bytes" -v b="$base_bytes" 'BEGIN{printf "%.1f", (a-b)/1e6}')
echo "IMAGE SIZE: $mb MB (base debian:bookworm-slim $base_mb MB + $added_mb MB of Plateau layers)"
if awk -v m="$mb" -v x="$MAX_MB" 'BEGIN{exit !(m < x)}'; then pass "image size $mb MB < $MAX_MB MB"
else fail "image size $mb MB >= $MAX_MB MB"; fi

# shellcheck disable=SC2016  # Go templates, not shell
cfg=$(pm image inspect -f 'user={{.Config.User}} stop={{.Config.StopSignal}} vol={{range $k,$v := .Config.Volumes}}{{$k}} {{end}}ports={{range $k,$v := .Config.ExposedPorts}}{{$k}} {{end}}entry={{json .Config.Entrypoint}}' "$IMAGE")
hc=$(pm image inspect -f '{{json .Config.Healthcheck}}' "$IMAGE" 2>/dev/null || true)
note "$cfg"
note "healthcheck=$hc"
case "$cfg" in
  *"user=10001"*"stop=SIGTERM"*"vol=/data "*"ports=8080/tcp "*'entry=["/usr/local/bin/plateau-server"]'*)
    pass "image config: non-root user, SIGTERM, /data volume, port 8080, exec-form entrypoint" ;;
  *) fail "image config unexpected: $cfg" ;;
esac
case "$hc" in *healthz*) pass "image has a HEALTHCHECK on /healthz" ;; *) fail "no HEALTHCHECK in the image" ;; esac

# --------------------------------------------------------------- 3. run with a named volume
pm volume create "$VOLUME" >/dev/null
# As docker/compose.yml runs it (read-only root, /tmp in memory, no capabilities), and with no
# --init: the server is PID 1 and must handle SIGTERM itself.
CID=$(pm run -d --name "$NAME" --network host -v "$VOLUME:/data" \
      --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
      -e PLATEAU_HOST=127.0.0.1 -e PLATEAU_PORT="$PORT" -e PLATEAU_GRACE=1 "$IMAGE" 2>"$WORK/run.err")
# (podman's stderr has harmless "unable to get systemd connection to add healthchecks" lines
# here: with no systemd it cannot schedule the health check, `podman healthcheck run` still works.)
[ -n "$CID" ] || { fail "podman run: $(cat "$WORK/run.err")"; summary; exit 1; }
if wait_healthy "$WAIT_S"; then pass "container with volume $VOLUME answers on $BASE"
else fail "container did not become healthy in ${WAIT_S}s"; logs_tail 30; summary; exit 1; fi

page=$(curl -fsS --max-time 5 "$BASE/" 2>&1)
case "$page" in *app.js*) pass "GET / serves the browser client from the image" ;; *) fail "GET / did not serve the client"; note "$(head -c 300 <<<"$page")" ;; esac
uid=$(pm exec "$CID" id -u 2>&1)
if [ "$uid" = 10001 ]; then pass "server runs as uid 10001"; else fail "server runs as uid '$uid'"; fi
if pm healthcheck run "$CID" >/dev/null 2>&1; then pass "podman healthcheck run: healthy"
else fail "the image's HEALTHCHECK fails inside the container"; fi

# ----- a minimal WebSocket client (stdlib only) that plays part of a game, then resumes it
cat > "$WORK/play.py" <<'PY'
import base64, json, os, socket, struct, sys, time

class WS:
    def __init__(self, port, name, token=None, timeout=10):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.s.recv(4096)
            if not chunk: raise RuntimeError("connection closed during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]: raise RuntimeError("no upgrade: " + head.decode(errors="replace"))
        self.send({"type": "hello", "name": name, **({"token": token} if token else {})})
        self.welcome = self.until(lambda m: m["type"] == "welcome")

    def send(self, obj):
        data = json.dumps(obj).encode(); mask = os.urandom(4); n = len(data)
        hdr = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk: raise RuntimeError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        payload = b""
        while True:
            b0, b1 = self._read(2); n = b1 & 0x7F
            if n == 126: n = struct.unpack(">H", self._read(2))[0]
            elif n == 127: n = struct.unpack(">Q", self._read(8))[0]
            data = self._read(n); op = b0 & 0x0F
            if op == 8: raise RuntimeError("server closed the WebSocket")
            if op == 9: self.s.sendall(bytes([0x8A, 0x80]) + os.urandom(4)); continue  # pong (empty)
            if op == 10: continue
            payload += data
            if b0 & 0x80: return json.loads(payload)

    def until(self, pred, seconds=10):
        end = time.time() + seconds
        while time.time() < end:
            m = self.recv()
            if m.get("type") == "error" and not pred(m): raise RuntimeError("error: " + json.dumps(m))
            if pred(m): return m
        raise RuntimeError("timed out")

    def full(self, room, rid):
        self.send({"type": "sync", "room": room, "id": rid})
        return self.until(lambda m: m["type"] == "full" and m.get("id") == rid)

def play(port, out, n_moves):
    a = WS(port, "Ada"); b = WS(port, "Bob")
    a.send({"type": "create", "game": "quantik", "options": {"players": 2, "first": "0"}, "id": "c"})
    room = a.until(lambda m: m["type"] == "created")["room"]
    a.send({"type": "join", "room": room, "as": "player", "seat": 0}); a.until(lambda m: m["type"] == "joined")
    b.send({"type": "join", "room": room, "as": "player", "seat": 1}); b.until(lambda m: m["type"] == "joined")
    seats = {0: a, 1: b}; moves = []
    # Fewer than 4 moves: no Quantik line, column or zone can hold four shapes, so it cannot end.
    for i in range(n_moves):
        st = a.full(room, f"s{i}")
        mover = seats[st["state"]["to_move"]]
        f = mover.full(room, f"m{i}")
        move = f["state"]["legal_moves"][0]; v = f["version"]
        mover.send({"type": "move", "room": room, "version": v, "move": move, "id": f"mv{i}"})
        # The patch is broadcast only once the store has committed the move.
        mover.until(lambda m: m["type"] == "patch" and m["version"] > v)
        moves.append(move)
    f = a.full(room, "end")
    assert f["state"]["status"] == "playing", f["state"]["status"]
    json.dump({"room": room, "moves": moves, "version": f["version"], "board": f["state"]["board"],
               "to_move": f["state"]["to_move"], "tokens": [a.welcome["token"], b.welcome["token"]]},
              open(out, "w"))
    print(f"room {room}: moves {' '.join(moves)}; version {f['version']}; to move: seat {f['state']['to_move']}")

def resume(port, saved_path):
    saved = json.load(open(saved_path)); room = saved["room"]
    s = WS(port, "Watcher")
    s.send({"type": "rooms", "id": "r"})
    listed = [r for r in s.until(lambda m: m["type"] == "rooms")["rooms"] if r["room"] == room]
    assert listed and listed[0]["status"] == "playing", f"room {room} not listed as playing: {listed}"
    print(f"lobby lists room {room}: {listed[0]['status']}, seats {[x['name'] for x in listed[0]['seats']]}")
    s.send({"type": "join", "room": room, "as": "spectator"})
    f = s.until(lambda m: m["type"] == "full")
    assert f["state"]["board"] == saved["board"], f"board differs:\n{f['state']['board']}\n{saved['board']}"
    assert f["state"]["status"] == "playing"
    assert f["version"] > saved["version"], f"version {f['version']} not above {saved['version']}"
    print(f"spectator full: same board ({len(saved['moves'])} moves, last {f['state']['board'].get('last')}), "
          f"version {saved['version']} -> {f['version']}")
    seat = saved["to_move"]
    p = WS(port, "again", token=saved["tokens"][seat])   # back at its seat by its token
    f = p.until(lambda m: m["type"] == "full" and m["room"] == room)
    assert f["state"]["you"] == seat and f["state"]["to_move"] == seat, (f["state"]["you"], f["state"]["to_move"])
    move = f["state"]["legal_moves"][0]; v = f["version"]
    p.send({"type": "move", "room": room, "version": v, "move": move, "id": "after"})
    p.until(lambda m: m["type"] == "patch" and m["version"] > v)
    p.full(room, "check")  # and the board took it
    print(f"seat {seat} reconnected by token and played {move} at version {v}")

if __name__ == "__main__":
    if sys.argv[1] == "play": play(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    else: resume(int(sys.argv[2]), sys.argv[3])
PY

SAVED=$WORK/game.json
if out=$(timeout 60 python3 "$WORK/play.py" play "$PORT" "$SAVED" 3 2>&1); then
  pass "played 3 moves of Quantik over ws://127.0.0.1:$PORT/ws from outside, left unfinished"; note "$out"
else fail "could not play over the WebSocket"; note "$out"; logs_tail; fi
ROOM=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["room"])' "$SAVED" 2>/dev/null || echo "")

# --------------------------------------------------------------- 4. metrics and backup
metrics=$(curl -fsS --max-time 5 "$BASE/metrics" 2>&1)
if grep -q '^plateau_moves_accepted_total 3$' <<<"$metrics" &&
   grep -q '^plateau_rooms{game="quantik",status="playing"} 1$' <<<"$metrics" &&
   grep -q '^# TYPE plateau_store_commit_seconds histogram' <<<"$metrics" &&
   grep -q '^plateau_move_broadcast_seconds_count 3$' <<<"$metrics"; then
  pass "/metrics scraped ($(grep -c '^plateau_' <<<"$metrics") samples; 3 moves, each timed to its broadcast; 1 Quantik room playing)"
else fail "/metrics"; note "$(head -c 600 <<<"$metrics")"; fi

# Online backup with the sqlite3 CLI in the image, exactly as docker/README.md says (the backup
# API copes with WAL and a live writer), streamed out and checked with the host's sqlite3.
n=""
if pm exec "$CID" sh -c 'sqlite3 /data/plateau.db ".backup /tmp/backup.db" && cat /tmp/backup.db && rm /tmp/backup.db' \
     >"$WORK/backup.db" &&
   n=$(python3 - "$WORK/backup.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
# A round in play has its moves in move_log; `moves` holds them once it ends (or the log is pruned).
print(db.execute("PRAGMA integrity_check").fetchone()[0], db.execute(
    "SELECT count(*) FROM (SELECT room, round, idx FROM moves UNION SELECT room, round, idx FROM move_log)").fetchone()[0])
PY
) && [ "$n" = "ok 3" ]; then
  pass "online backup streamed out of the container: $(stat -c %s "$WORK/backup.db") bytes, integrity ok, 3 moves"
else fail "online backup (got: ${n:-nothing})"; fi

# --------------------------------------------------------------- 5. stop (SIGTERM) and start
t=$(date +%s.%N)
pm stop -t 10 "$CID" >/dev/null 2>>"$WORK/run.err"
took=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
code=$(pm inspect -f '{{.State.ExitCode}}' "$CID")
stop_log=$(pm logs "$CID" 2>&1)
if [ "$code" = 0 ] && awk -v s="$took" 'BEGIN{exit !(s < 5)}' && grep -q 'event=stopped' <<<"$stop_log"; then
  pass "SIGTERM: the server stopped by itself in $took s with exit code 0"
else fail "stop: exit code $code after $took s (10 s means it needed SIGKILL)"; logs_tail; fi

pm start "$CID" >/dev/null 2>>"$WORK/run.err"
if wait_healthy "$WAIT_S"; then pass "restarted on the same volume"
else fail "did not come back after the restart"; logs_tail 30; summary; exit 1; fi
note "$(pm logs "$CID" 2>&1 | grep 'event=recovered' | tail -1)"
# Read whole, then searched: `curl | grep -q` fails under pipefail when grep stops reading
# first (curl: (23) Failed writing body), and /metrics is long enough for that to happen.
recovered=$(curl -fsS --max-time 5 "$BASE/metrics")
if grep -q '^plateau_rooms_recovered 1$' <<<"$recovered"; then
  pass "/metrics after restart: plateau_rooms_recovered 1"
else fail "/metrics after restart does not show the recovered room"; fi

if out=$(timeout 60 python3 "$WORK/play.py" resume "$PORT" "$SAVED" 2>&1); then
  pass "room $ROOM is back with its 3 moves and the game goes on"; note "$out"
else fail "room $ROOM after the restart"; note "$out"; logs_tail; fi

# The project's own CLI, as a spectator: its first `full` must show the moves.
if [ -x "$PLATEAU_CLI" ] && [ -n "$ROOM" ]; then
  # stdbuf: the CLI writes through stdio, which would keep its lines in a buffer until killed.
  timeout 5 stdbuf -oL "$PLATEAU_CLI" --port "$PORT" --name cli-watch watch "$ROOM" >"$WORK/watch.out" 2>&1
  if out=$(python3 - "$WORK/watch.out" "$SAVED" 2>&1 <<'PY'
import json, sys
saved = json.load(open(sys.argv[2]))
full = next(json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and json.loads(l)["type"] == "full")
cells = [c for row in full["state"]["board"]["cells"] for c in row if c]
assert len(cells) == len(saved["moves"]) + 1, cells   # the 3 moves, plus the one made after the restart
print(f"plateau-cli watch: full at version {full['version']} with {len(cells)} pieces on the board")
PY
  ); then pass "plateau-cli watch $ROOM sees the pieces"; note "$out"
  else fail "plateau-cli watch $ROOM"; note "$out"; head -c 800 "$WORK/watch.out" | sed 's/^/      | /'; fi
fi

# --------------------------------------------------------------- 6. final stop
t=$(date +%s.%N)
pm stop -t 10 "$CID" >/dev/null 2>>"$WORK/run.err"
took=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
code=$(pm inspect -f '{{.State.ExitCode}}' "$CID")
if [ "$code" = 0 ]; then pass "final stop: exit code 0 in $took s"; else fail "final stop: exit code $code after $took s"; fi

# --------------------------------------------------------------- 7. direct TLS
# The same image with a certificate mounted read-only, as the README's "HTTPS and wss://
# directly" runs it: HTTPS only, a HEALTHCHECK that switches to https by itself, exit 0 on
# SIGTERM; and a key that is not there stops it at start with exit code 1.
pm rm -f -t 2 "$CID" >/dev/null 2>&1
CID=""
TLS_DIR=$WORK/tls
mkdir -p "$TLS_DIR"
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
     -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
     -keyout "$TLS_DIR/privkey.pem" -out "$TLS_DIR/fullchain.pem" >/dev/null 2>&1; then
  chown -R 10001:10001 "$TLS_DIR" && chmod 0600 "$TLS_DIR/privkey.pem"
  CID=$(pm run -d --name "$NAME-tls" --network host -v "$TLS_DIR:/tls:ro" \
        --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
        -e PLATEAU_HOST=127.0.0.1 -e PLATEAU_PORT="$PORT" -e PLATEAU_DATA=none \
        -e PLATEAU_TLS_CERT=/tls/fullchain.pem -e PLATEAU_TLS_KEY=/tls/privkey.pem "$IMAGE" 2>>"$WORK/run.err")
  answered=""
  deadline=$(( $(date +%s) + WAIT_S ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    answered=$(curl -fsS --max-time 3 --cacert "$TLS_DIR/fullchain.pem" "https://127.0.0.1:$PORT/healthz" 2>/dev/null) && break
    [ "$(pm inspect -f '{{.State.Running}}' "$CID" 2>/dev/null)" = true ] || break
    sleep 0.3
  done
  case "$answered" in
    *'"status":"ok"'*) pass "TLS: /healthz over https with the mounted certificate" ;;
    *) fail "TLS: no https answer"; logs_tail 20 ;;
  esac
  if curl -fsS --max-time 3 "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then fail "TLS: plain http answered"
  else pass "TLS: plain http gets no answer"; fi
  if pm healthcheck run "$CID" >/dev/null 2>&1; then pass "TLS: podman healthcheck run: healthy (https)"
  else fail "TLS: the image's HEALTHCHECK fails with PLATEAU_TLS_CERT set"; fi
  pm stop -t 10 "$CID" >/dev/null 2>>"$WORK/run.err"
  code=$(pm inspect -f '{{.State.ExitCode}}' "$CID")
  log=$(pm logs "$CID" 2>&1)  # (not piped into grep -q: pipefail would see podman's SIGPIPE)
  if [ "$code" = 0 ] && grep -q 'event=listening .*tls=on' <<<"$log"; then pass "TLS: tls=on, SIGTERM exit code 0"
  else fail "TLS: exit code $code"; logs_tail; fi
  out=$(pm run --rm --network host -v "$TLS_DIR:/tls:ro" -e PLATEAU_PORT="$PORT" -e PLATEAU_DATA=none \
        -e PLATEAU_TLS_CERT=/tls/fullchain.pem -e PLATEAU_TLS_KEY=/tls/missing.pem "$IMAGE" 2>&1)
  code=$?
  if [ "$code" = 1 ] && grep -q 'event=tls_failed' <<<"$out"; then pass "TLS: a missing key stops the start (exit 1, event=tls_failed)"
  else fail "TLS: a missing key gave exit code $code"; note "$(grep -v systemd <<<"$out" | tail -5)"; fi
else
  fail "TLS: openssl could not make a test certificate"
fi

echo "TOTAL TIME $(( $(date +%s) - T0 )) s"
summary
[ "$failed" = 0 ]
