#!/usr/bin/env bash
# HTTP load (issue 6, item 5): the service jar on /demo/hello, driven by wrk (Debian package `wrk`) on the same
# machine, in three modes run one after the other, twice (off, one-key, uniform, off, one-key, uniform):
#   off      the route listed under gridlimit.exempt: the bare route, the filter returns at once
#   one-key  limiting on, every request with the same client IP: ONE key (the hot-key case)
#   uniform  limiting on, client IPs spread over 10 000 addresses: 10 000 keys
# Limiting uses a token bucket so large it never denies, so the limiter's whole path runs on every request (key
# resolution, one async grid decision on the embedded member, headers). Every mode sends the same requests: an
# X-Forwarded-For header from a wrk Lua script (127.0.0.1 is a trusted proxy in the limited modes), so the client's
# cost is the same in all modes. Besides requests/s and latency, the service's CPU time per request is read from
# /proc (utime + stime of the service process over the measured run): it does not depend on what else runs.
#   bench/http.sh [output-dir]      (default bench/results; needs micronaut-app/target${GRIDLIMIT_BUILD_SUFFIX}/*-all.jar)
# WRK_OPTS overrides the measured load (default -t2 -c64 -d15s), WARMUP_SECONDS the warm-up (default 20: the JIT is
# still compiling after 8 s). Prints a Markdown table and the on/off ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="micronaut-app/target${suffix}/micronaut-app-0.1.0-SNAPSHOT-all.jar"
out="${1:-bench/results}"
wrk_opts="${WRK_OPTS:--t2 -c64 -d15s}"
warmup="${WARMUP_SECONDS:-20}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/limited.yml" <<'YML'
gridlimit:
  client-ip:
    trusted-proxies: [127.0.0.1/32]
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
# the same script shape for every mode: one X-Forwarded-For per request
cat > "$work/uniform.lua" <<'LUA'
local counter = 0
request = function()
  counter = counter + 1
  local n = (counter * 7919) % 10000
  return wrk.format(nil, nil, {["X-Forwarded-For"] = "10.0." .. math.floor(n / 100) .. "." .. (n % 100)})
end
LUA
cat > "$work/one-key.lua" <<'LUA'
local counter = 0
request = function()
  counter = counter + 1
  local n = (counter * 7919) % 1
  return wrk.format(nil, nil, {["X-Forwarded-For"] = "10.0." .. math.floor(n / 100) .. "." .. (n % 100)})
end
LUA


run() { # $1 = off|one-key|uniform
  local mode="$1" http hz pid config script
  http="$(free_port)"; hz="$(free_port)"; internal="$(free_port)"
  config="$work/limited.yml"; script="$work/$mode.lua"
  if [ "$mode" = off ]; then config="$work/off.yml"; script="$work/uniform.lua"; fi
  MICRONAUT_SERVER_PORT="$http" GRIDLIMIT_DECISION_API_PORT="$internal" GRIDLIMIT_HAZELCAST_PORT="$hz" GRIDLIMIT_HAZELCAST_CLUSTER_NAME="bench-http-$$-$RANDOM" \
    GRIDLIMIT_HAZELCAST_MEMBERS="127.0.0.1:$hz" MICRONAUT_CONFIG_FILES="$config" \
    java -jar "$jar" > "$work/$mode-$http.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do
    curl -fs "http://127.0.0.1:$internal/health/liveness" > /dev/null 2>&1 && break
    sleep 0.5
  done
  curl -fsi -H 'X-Forwarded-For: 10.0.0.1' "http://127.0.0.1:$http/demo/hello" > "$work/$mode.headers" \
    || { kill "$pid"; cat "$work/$mode-$http.log"; exit 1; }
  wrk -t2 -c64 "-d${warmup}s" -s "$script" "http://127.0.0.1:$http/demo/hello" > /dev/null
  local before after
  before="$(cpu_ticks "$pid")"
  # shellcheck disable=SC2086 # a list of wrk options
  wrk $wrk_opts --latency -s "$script" "http://127.0.0.1:$http/demo/hello" > "$work/$mode.wrk"
  after="$(cpu_ticks "$pid")"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local rps p50 p99 non2xx requests cpu_us
  read -r rps p50 p99 non2xx requests cpu_us < <(wrk_summary "$work/$mode.wrk" "$before" "$after")
  echo "$mode $rps $p50 $p99 $non2xx $cpu_us" >> "$work/rows"
  { echo "== $mode"; cat "$work/$mode.wrk"; } >> "$out/http-wrk.log"
}

: > "$out/http-wrk.log"
echo "uptime before: $(uptime)" > "$out/http-machine.txt"
for mode in off one-key uniform off one-key uniform; do run "$mode"; done
echo "uptime after: $(uptime)" >> "$out/http-machine.txt"
{
  for mode in off one-key uniform; do
    echo "$mode, first response headers:"; grep -i '^ratelimit\|^x-ratelimit' "$work/$mode.headers" || echo "(none)"
  done
} >> "$out/http-machine.txt"
{
  echo "| /demo/hello | run | requests/s | p50 | p99 | non-2xx | service CPU per request (µs) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk '{n[$1]++; printf "| %s | %d | %s | %s | %s | %s | %s |\n", $1, n[$1], $2, $3, $4, $5, $6}' "$work/rows"
  awk '{s[$1]+=$2; c[$1]+=$6; n[$1]++} END {
       off=s["off"]/n["off"]; coff=c["off"]/n["off"];
       for (m in s) if (m != "off") printf "\n%s: mean %.0f req/s vs off %.0f req/s: on/off = %.2f (limiting costs %.0f%% of throughput); CPU %.1f vs %.1f µs per request (+%.1f µs)\n",
         m, s[m]/n[m], off, s[m]/n[m]/off, 100*(1-s[m]/n[m]/off), c[m]/n[m], coff, c[m]/n[m]-coff}' "$work/rows"
} | tee "$out/http.md"
cat "$out/http-machine.txt"
