#!/usr/bin/env bash
# HTTP load (issue 6, item 5): the service jar on /demo/hello with limiting ON (a token bucket so large it never
# denies, so the limiter's full path runs on every request: key resolution, one async grid decision, headers) and
# OFF (the same route listed under gridlimit.exempt), driven by wrk (Debian package `wrk`), runs alternating
# on, off, on, off; prints a Markdown table with requests/s and the ratio.
#   bench/http.sh [output-dir]      (default bench/results; needs micronaut-app/target${GRIDLIMIT_BUILD_SUFFIX}/*-all.jar)
# WRK_OPTS overrides the load (default: -t2 -c64 -d15s after a 5 s warm-up). Every request comes from 127.0.0.1,
# so the limited runs hit ONE key (ip:127.0.0.1): the hot-key case, coalesced by default.
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="micronaut-app/target${suffix}/micronaut-app-0.1.0-SNAPSHOT-all.jar"
out="${1:-bench/results}"
wrk_opts="${WRK_OPTS:--t2 -c64 -d15s}"
mkdir -p "$out"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/on.yml" <<'YML'
gridlimit:
  policies:
    bench-huge:
      algorithm: token-bucket
      capacity: 1000000000000000
      refill-tokens: 1000000000000000
      refill-period: 1s
  routes:
    - pattern: /demo/hello
      methods: [GET]
      policy: bench-huge
      key: [client-ip]
      cost: 1
      on-missing-key: reject
YML
cat > "$work/off.yml" <<'YML'
gridlimit:
  exempt:
    - /health/**
    - /prometheus
    - /demo/**
YML

run() { # $1 = on|off
  local mode="$1" http hz pid
  http="$(free_port)"; hz="$(free_port)"
  MICRONAUT_SERVER_PORT="$http" GRIDLIMIT_HAZELCAST_PORT="$hz" GRIDLIMIT_HAZELCAST_CLUSTER_NAME="bench-http-$$-$RANDOM" \
    GRIDLIMIT_HAZELCAST_MEMBERS="127.0.0.1:$hz" MICRONAUT_CONFIG_FILES="$work/$mode.yml" \
    java -jar "$jar" > "$work/$mode-$http.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    curl -fs "http://127.0.0.1:$http/health/liveness" > /dev/null 2>&1 && break
    sleep 0.5
  done
  curl -fsi "http://127.0.0.1:$http/demo/hello" > "$work/$mode.headers" || { kill "$pid"; cat "$work/$mode-$http.log"; exit 1; }
  wrk -t2 -c64 -d5s "http://127.0.0.1:$http/demo/hello" > /dev/null
  # shellcheck disable=SC2086 # a list of wrk options
  wrk $wrk_opts --latency "http://127.0.0.1:$http/demo/hello" > "$work/$mode.wrk"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local rps p50 p99 non2xx
  rps="$(awk '/^Requests\/sec/ {print $2}' "$work/$mode.wrk")"
  p50="$(awk '$1=="50%" {print $2}' "$work/$mode.wrk")"
  p99="$(awk '$1=="99%" {print $2}' "$work/$mode.wrk")"
  non2xx="$(awk '/Non-2xx/ {print $NF}' "$work/$mode.wrk")"
  echo "$mode $rps $p50 $p99 ${non2xx:-0}" >> "$work/rows"
  cat "$work/$mode.wrk" >> "$out/http-wrk.log"
}

: > "$out/http-wrk.log"
echo "uptime before: $(uptime)" > "$out/http-machine.txt"
for mode in on off on off; do run "$mode"; done
echo "uptime after: $(uptime)" >> "$out/http-machine.txt"
{
  echo "limiting on, first response headers:"; grep -i '^ratelimit\|^x-ratelimit' "$work/on.headers" || echo "(none)"
  echo "limiting off (exempt), first response headers:"; grep -i '^ratelimit\|^x-ratelimit' "$work/off.headers" || echo "(none)"
} >> "$out/http-machine.txt"
{
  echo "| /demo/hello | run | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---:|---:|---:|---:|---:|"
  awk '{n[$1]++; printf "| limiting %s | %d | %s | %s | %s | %s |\n", $1, n[$1], $2, $3, $4, $5}' "$work/rows"
  awk '{s[$1]+=$2; n[$1]++} END {on=s["on"]/n["on"]; off=s["off"]/n["off"];
       printf "\nmean on %.0f req/s, mean off %.0f req/s: on/off = %.2f (limiting costs %.0f%%)\n", on, off, on/off, 100*(1-on/off)}' "$work/rows"
} | tee "$out/http.md"
cat "$out/http-machine.txt"
