#!/usr/bin/env bash
# Overload never lifts a limit (docs/SPEC.md §5): a freshly started service on a loaded machine, one client firing
# 200 requests at once at a policy of 50, for each failure mode in the same run: local (the new default), closed,
# open. Each mode gets its own fresh service (the jar started anew, so its first decisions meet a cold JIT) while
# CPU hogs (`yes > /dev/null`, HOGS of them, default 3) run on the machine from before the start to the end.
# Everything else is the service's default (grid-timeout 100 ms, gridlimit.local.expected-replicas 3); the policy is
# a fixed window of 50 per hour on /demo/hello, keyed by client IP, and every request comes from 127.0.0.1: one key.
# Bound (SPEC §5) for this one replica: 50 by the grid + floor(50 / 3) = 16 locally = 66 admitted at most.
#   bench/overload.sh [output-dir]    (default bench/results; needs micronaut-app/target${GRIDLIMIT_BUILD_SUFFIX}/*-all.jar)
# REQUESTS (200), PARALLEL (50) and ROUNDS (2: local closed open, twice) override the load. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="micronaut-app/target${suffix}/micronaut-app-0.1.0-SNAPSHOT-all.jar"
out="${1:-bench/results}"
requests="${REQUESTS:-200}"
parallel="${PARALLEL:-50}"
rounds="${ROUNDS:-2}"
hogs="${HOGS:-3}"
mkdir -p "$out"
work="$(mktemp -d)"
hog_pids=()
service_pid=""
cleanup() {
  [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null || true
  for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/policy.yml" <<'YML'
gridlimit:
  policies:
    bench-fifty:
      algorithm: fixed-window
      limit: 50
      window: 1h
  routes:
    - pattern: /demo/hello
      methods: [GET]
      policy: bench-fifty
      key: [client-ip]
      cost: 1
      on-missing-key: reject
YML
# one client, PARALLEL connections at once, exactly REQUESTS requests; prints "200=<n> 429=<n> 503=<n> ..."
cat > "$work/fire.py" <<'PY'
import collections, concurrent.futures, http.client, sys
port, total, parallel = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def one(_):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request("GET", "/demo/hello")
        r = c.getresponse(); r.read()
        return r.status
    except Exception as e:
        return type(e).__name__
    finally:
        c.close()
with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
    counts = collections.Counter(pool.map(one, range(total)))
print(" ".join(f"{k}={counts[k]}" for k in sorted(counts, key=str)))
PY

for _ in $(seq 1 "$hogs"); do yes > /dev/null & hog_pids+=("$!"); done
sleep 2

run() { # $1 = local|closed|open
  local mode="$1" http hz internal start ready result
  http="$(free_port)"; hz="$(free_port)"; internal="$(free_port)"
  start="$(date +%s%N)"
  MICRONAUT_SERVER_PORT="$http" GRIDLIMIT_DECISION_API_PORT="$internal" GRIDLIMIT_HAZELCAST_PORT="$hz" \
    GRIDLIMIT_HAZELCAST_CLUSTER_NAME="bench-overload-$$-$RANDOM" GRIDLIMIT_HAZELCAST_MEMBERS="127.0.0.1:$hz" \
    GRIDLIMIT_FAILURE_MODE="$mode" MICRONAUT_CONFIG_FILES="$work/policy.yml" \
    java -jar "$jar" > "$work/$mode-$http.log" 2>&1 &
  service_pid=$!
  for _ in $(seq 1 480); do
    curl -fs "http://127.0.0.1:$internal/health/liveness" > /dev/null 2>&1 && break
    sleep 0.25
  done
  ready="$(( ($(date +%s%N) - start) / 1000000 ))"
  result="$(python3 "$work/fire.py" "$http" "$requests" "$parallel")"
  local load; load="$(cut -d' ' -f1 /proc/loadavg)"
  local errors; errors="$(curl -fs "http://127.0.0.1:$internal/prometheus" | awk '/^gridlimit_grid_errors_total/ {s += $2} END {print s + 0}')"
  kill "$service_pid"; wait "$service_pid" 2>/dev/null || true; service_pid=""
  local admitted; admitted="$(echo "$result" | tr ' ' '\n' | awk -F= '$1=="200" {print $2}')"
  echo "| $mode | ${admitted:-0} | $result | $errors | $ready | $load |" >> "$work/rows"
  { echo "== $mode"; grep -i 'warn\|error' "$work/$mode-$http.log" | head -20 || true; } >> "$out/overload-service.log"
}

: > "$out/overload-service.log"
for _ in $(seq 1 "$rounds"); do for mode in local closed open; do run "$mode"; done; done
{
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $hogs CPU hogs, $requests requests from one client, $parallel at once, policy 50 per 1 h (bound with local: 66)"
  echo
  echo "| failure-mode | admitted (200) | statuses | grid errors (timeouts + failures) | ready after (ms) | load average (1 min) |"
  echo "|---|---:|---|---:|---:|---:|"
  cat "$work/rows"
} | tee "$out/overload.md"
