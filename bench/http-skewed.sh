#!/usr/bin/env bash
# HTTP on Zipf keys (issue 14, item 4): GET /hello of bench/http-app (a Micronaut 4 application depending on the
# gridlimit-micronaut library as a user's service does), driven by wrk on the same machine, in five modes run
# interleaved, ROUNDS times (default 3: bare, grid-floor, gridlimit, gridlimit-leases, bucket4j, then again, ...):
#   bare              the library's route exempt (gridlimit.exempt): the filter returns at once
#   grid-floor        the library's route exempt; GridFloorFilter does the least any grid limiter must do per
#                     request (issue 22 item 4): on the event loop, no thread hop, one asynchronous submitToKey of a
#                     small fixed state with a TTL on the request's key (GridFloorProcessor), the response written
#                     when it completes; no policy, algorithm, headers or 429
#   gridlimit         the library limits /hello: token bucket capacity 1 000, 1 000 per second, key client-ip;
#                     one EntryProcessor on the embedded member per request (leases off, the default)
#   gridlimit-leases  the same with gridlimit.leases.enabled: true (docs/SPEC.md §13, default window 500 ms, max-life
#                     1 s, min-units 8, capacity-share 10): busy keys are decided in process from leased units
#   bucket4j          the library's route exempt; Bucket4j 8.14.0's Hazelcast integration limits /hello in a
#                     @ServerFilter of the app (Bucket4jFilter: one bucket per client IP, capacity 1 000 greedy
#                     1 000/s, tryConsumeAndReturnRemaining(1) synchronously on Micronaut's blocking executor, 429)
#   bucket4j-event-loop  (optional, MODES) the same Bucket4j filter called on the Netty event loop (no @ExecuteOn)
# Every mode runs the same jar, the same embedded member (BenchGridFactory: the library's member config plus
# Bucket4j's serializers) and the same requests: X-Forwarded-For from 127.0.0.1 (a trusted proxy) with client
# addresses drawn from a Zipf distribution, s = 1.1 over 100 000 addresses (rank r -> 10.a.b.c with a.b.c = r in
# base 256, rank 1 = 10.0.0.1), a fixed seeded sequence of 2^16 draws (seed 14) written to a Lua table that the wrk
# script turns into ready-made requests in init() and walks cyclically (thread i starts at draw i * 2^15): the per
# request Lua cost is one table read, the same in every mode. Besides requests/s and latency, the service's CPU time
# per request is read from /proc (utime + stime over the measured run), and wrk's non-2xx count is the 429s.
#   bench/http-skewed.sh [output-dir]      (default bench/results)
# Builds first: `mvn -pl micronaut-gridlimit -am install` (grid-core, gridlimit-micronaut and the parent pom into
# the local Maven repository, as README's orders-service step does), then `mvn -f bench/http-app/pom.xml package`.
# MVN_ARGS adds Maven options to both (e.g. "-o -Dmaven.repo.local=/path"); SKIP_BUILD=1 uses the jar already built.
# MODES overrides the modes (default "bare grid-floor gridlimit gridlimit-leases bucket4j"; the ratios need bare,
# and bucket4j and grid-floor for their columns). ROUNDS sets how many times the modes run (default 3).
# The summary (per mode: median requests/s and median service CPU µs per request over the rounds) is printed last.
# WRK_OPTS overrides the measured load (default -t2 -c64 -d15s), WARMUP_SECONDS the warm-up (default 20).
# PROFILE=<mode> records a JFR (settings=profile, jcmd JFR.start duration=15s as the measured run begins) of that
# mode's first measured run to <output-dir>/http-skewed-<mode>.jfr (read it with bench/jfr-top.py); JFR_SETTINGS names
# another .jfc (e.g. profile.jfc with jdk.ExecutionSample every 1 ms for more samples). Prints a Markdown table and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="bench/http-app/target${suffix}/bench-http-app-0.1.0-SNAPSHOT.jar"
out="${1:-bench/results}"
wrk_opts="${WRK_OPTS:--t2 -c64 -d15s}"
warmup="${WARMUP_SECONDS:-20}"
profile="${PROFILE:-}"
# shellcheck disable=SC2206 # a list of Maven options
mvn_args=(${MVN_ARGS:-})
# shellcheck disable=SC2206 # a list of modes
modes=(${MODES:-bare grid-floor gridlimit gridlimit-leases bucket4j})
rounds="${ROUNDS:-3}"
mkdir -p "$out"
out_abs="$(cd "$out" && pwd)"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" "${mvn_args[@]}" -pl micronaut-gridlimit -am install
  mvn -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" "${mvn_args[@]}" -f bench/http-app/pom.xml package
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# one file per mode on top of the app's application.yml (policy bench-skewed on GET /hello, key client-ip)
cat > "$work/bare.yml" <<'YML'
gridlimit:
  exempt: [/health/**, /hello]
YML
cat > "$work/gridlimit.yml" <<'YML'
gridlimit:
  leases:
    enabled: false
YML
cat > "$work/gridlimit-leases.yml" <<'YML'
gridlimit:
  leases:
    enabled: true
YML
cat > "$work/bucket4j.yml" <<'YML'
gridlimit:
  exempt: [/health/**, /hello]
bench:
  bucket4j:
    enabled: true
    thread: blocking
YML
cat > "$work/grid-floor.yml" <<'YML'
gridlimit:
  exempt: [/health/**, /hello]
bench:
  grid-floor:
    enabled: true
YML
cat > "$work/bucket4j-event-loop.yml" <<'YML'
gridlimit:
  exempt: [/health/**, /hello]
bench:
  bucket4j:
    enabled: true
    thread: event-loop
YML

# the Zipf trace: 2^16 seeded draws over 100 000 ranks, P(rank k) proportional to k^-1.1 (inverse CDF by bisection)
python3 - "$work/zipf-addresses.lua" "$out/http-skewed-keys.txt" <<'PY'
import bisect, collections, itertools, random, sys
N, S, COUNT, SEED = 100_000, 1.1, 1 << 16, 14
cumulative = list(itertools.accumulate(k ** -S for k in range(1, N + 1)))
rng = random.Random(SEED)
ranks = [min(N, 1 + bisect.bisect_left(cumulative, rng.random() * cumulative[-1])) for _ in range(COUNT)]
address = lambda r: "10.%d.%d.%d" % (r >> 16, (r >> 8) & 255, r & 255)
with open(sys.argv[1], "w") as f:
    f.write("return {\n")
    for r in ranks:
        f.write('"%s",\n' % address(r))
    f.write("}\n")
counts = collections.Counter(ranks)
with open(sys.argv[2], "w") as f:
    f.write("Zipf trace: s = %s over %d addresses, %d draws, seed %d: %d distinct addresses\n"
            % (S, N, COUNT, SEED, len(counts)))
    for rank, n in sorted(counts.items())[:5]:
        f.write("  rank %d (%s): %d draws (%.2f%%)\n" % (rank, address(rank), n, 100.0 * n / COUNT))
    top10 = sum(n for r, n in counts.items() if r <= 10)
    f.write("  ranks 1-10: %.1f%% of the draws\n" % (100.0 * top10 / COUNT))
PY
cat > "$work/zipf.lua" <<LUA
local addresses = dofile("$work/zipf-addresses.lua")
local n = #addresses
local threads = 0
function setup(thread)
  thread:set("offset", threads * 32768)
  threads = threads + 1
end
local requests = {}
local i = 0
function init(args)
  for k = 1, n do
    requests[k] = wrk.format(nil, nil, {["X-Forwarded-For"] = addresses[k]})
  end
  i = (offset or 0) % n
end
function request()
  i = i % n + 1
  return requests[i]
end
LUA


profiled=""
run() { # $1 = a mode
  local mode="$1" http hz pid record=""
  http="$(free_port)"; hz="$(free_port)"
  if [ "$mode" = "$profile" ] && [ -z "$profiled" ]; then profiled=1; record=1; fi
  MICRONAUT_SERVER_PORT="$http" GRIDLIMIT_HAZELCAST_PORT="$hz" GRIDLIMIT_HAZELCAST_CLUSTER_NAME="bench-http-skewed-$$-$RANDOM" \
    GRIDLIMIT_HAZELCAST_MEMBERS="127.0.0.1:$hz" MICRONAUT_CONFIG_FILES="$work/$mode.yml" \
    java -jar "$jar" > "$work/$mode-$http.log" 2>&1 &
  pid=$!
  local code=000
  for _ in $(seq 1 240); do
    code="$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 10.0.0.1' "http://127.0.0.1:$http/hello" || true)"
    [ "$code" = 200 ] && break
    sleep 0.5
  done
  curl -fsi -H 'X-Forwarded-For: 10.0.0.1' "http://127.0.0.1:$http/hello" > "$work/$mode.headers" \
    || { kill "$pid"; cat "$work/$mode-$http.log"; exit 1; }
  wrk -t2 -c64 "-d${warmup}s" -s "$work/zipf.lua" "http://127.0.0.1:$http/hello" > /dev/null
  local before after
  if [ -n "$record" ]; then
    jcmd "$pid" JFR.start duration=15s "settings=${JFR_SETTINGS:-profile}" "filename=$out_abs/http-skewed-$mode.jfr" > /dev/null
  fi
  before="$(cpu_ticks "$pid")"
  # shellcheck disable=SC2086 # a list of wrk options
  wrk $wrk_opts --latency -s "$work/zipf.lua" "http://127.0.0.1:$http/hello" > "$work/$mode.wrk"
  after="$(cpu_ticks "$pid")"
  if [ -n "$record" ]; then sleep 2; fi # the recording ends 15 s after it began
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local rps p50 p99 non2xx requests cpu_us
  read -r rps p50 p99 non2xx requests cpu_us < <(wrk_summary "$work/$mode.wrk" "$before" "$after")
  echo "$mode $rps $p50 $p99 $non2xx $requests $cpu_us" >> "$work/rows"
  { echo "== $mode"; cat "$work/$mode.wrk"; } >> "$out/http-skewed-wrk.log"
}

: > "$out/http-skewed-wrk.log"
echo "uptime before: $(uptime)" > "$out/http-skewed-machine.txt"
for _ in $(seq 1 "$rounds"); do
  for mode in "${modes[@]}"; do run "$mode"; done
done
echo "uptime after: $(uptime)" >> "$out/http-skewed-machine.txt"
{
  for mode in "${modes[@]}"; do
    echo "$mode, first response headers:"; grep -i '^ratelimit\|^x-ratelimit\|^retry-after' "$work/$mode.headers" || echo "(none)"
  done
} >> "$out/http-skewed-machine.txt"
{
  echo "| GET /hello, Zipf keys | run | requests/s | p50 | p99 | 429 (non-2xx) | share limited | service CPU per request (µs) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  awk '{n[$1]++; printf "| %s | %d | %s | %s | %s | %s | %.1f%% | %s |\n", $1, n[$1], $2, $3, $4, $5, 100 * $5 / $6, $7}' "$work/rows"
  echo
  echo "| mode | median requests/s | median CPU µs per request | ÷ bare (requests/s) | limiting costs | CPU − bare (µs) | CPU − bare ÷ grid-floor's | ÷ bucket4j (requests/s) | CPU − bare ÷ bucket4j's |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -v modes="${modes[*]}" '
     function median(list,   v, k, m, i, j, t) {
       k = split(list, v, " ");
       for (i = 2; i <= k; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
       return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
     }
     {rps[$1] = rps[$1] " " $2; cpu[$1] = cpu[$1] " " $7}
     END {
       count = split(modes, order, " ");
       for (i = 1; i <= count; i++) { m = order[i]; r[m] = median(rps[m]); c[m] = median(cpu[m]) }
       for (i = 1; i <= count; i++) { m = order[i];
         floor = ("grid-floor" in c) ? sprintf("%.2f", (c[m] - c["bare"]) / (c["grid-floor"] - c["bare"])) : "-";
         b4j = ("bucket4j" in c) ? sprintf("%.2f", r[m] / r["bucket4j"]) : "-";
         cb4j = ("bucket4j" in c) ? sprintf("%.2f", (c[m] - c["bare"]) / (c["bucket4j"] - c["bare"])) : "-";
         printf "| %s | %.0f | %.1f | %.2f | %.0f%% | %+.1f | %s | %s | %s |\n", m, r[m], c[m], r[m] / r["bare"],
           100 * (1 - r[m] / r["bare"]), c[m] - c["bare"], floor, b4j, cb4j }
     }' "$work/rows"
} > "$out/http-skewed.md"
cat "$out/http-skewed-keys.txt" "$out/http-skewed-machine.txt"
cat "$out/http-skewed.md"
