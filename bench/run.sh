#!/usr/bin/env bash
# Runs the whole benchmark set once, as recorded in bench/README.md, and prints the tables:
#   1. JMH throughput (every class: pure algorithms, GridLimit sync/async, no-op floor, Bucket4j, Redis Lua +
#      seeds' code, hot-key coalescing, in-process ceiling, and the three-member rows: ClusterBenchmark with
#      topology members-3 / client-3, ClusterBackupsBenchmark with backups async / none)
#      -> results.csv, jmh.log, table.md, chart.svg; async rows' latency histograms -> latency/*.hlat;
#      cluster member JVM logs -> cluster-logs/
#   2. JMH latency: a second, shorter pass over the synchronous rows in SampleTime mode (-bm sample -tu us)
#      -> latency-sample.csv, jmh-latency.log; with latency/*.hlat -> latency.md (LatencyTable)
#   3. RaceCheck (admitted vs limit in a race)                                   -> race.md
#   4. StateSize (serialized bytes and heap per idle key, GridLimit vs Bucket4j) -> state.md
#   5. BatchingBenchmark (issue 14 item 3: keys of one member / partition decided in one multi-key invocation vs
#      one invocation per key, embedded, members-3, client-3; excluded from pass 1) and BatchBackupCheck (the
#      batch's backup holds every key's state)       -> batching.csv, batching-jmh.log, batching.md, batching-check.txt
#   6. http.sh (wrk on /demo/hello, limiting on vs exempt)                       -> http.md
#      then http-skewed.sh (issue 14: wrk on GET /hello of bench/http-app on Zipf client keys, s = 1.1 over
#      100 000 addresses: bare, GridLimit without and with leases, Bucket4j's Hazelcast filter; builds and installs
#      grid-core + gridlimit-micronaut into the local Maven repository, then bench/http-app) -> http-skewed.md
#   7. skewed workloads (issue 14): SkewedBenchmark (uniform / hot / zipf, one member: GridLimit async with and
#      without leases, Bucket4j sync, Redis Lua, in-process) and SkewedClusterBenchmark (zipf, members-3), same
#      JMH settings as step 1
#      -> skewed.csv, jmh-skewed.log, skewed.md (SkewedTable); side files (latency, cluster logs) -> skewed/
#   8. LeaseAccuracy (admitted per key vs the exact limiter on one Zipf trace, stepped clock): leases off, and
#      leases on (stepped, then cluster clock)  -> lease-accuracy-off.md, lease-accuracy-on.md,
#      lease-accuracy-on-cluster.md (+ *-keys.csv)
#   bench/run.sh [output-dir]        (default bench/results; builds benchmarks.jar and the service jar first)
# GRIDLIMIT_BUILD_SUFFIX=-x selects the build folders target-x (the tree's -Dgridlimit.buildSuffix).
# JMH_OPTS overrides the throughput pass's settings (default: one fork, 5 x 3 s warm-up, 3 x 3 s measured).
# LATENCY_OPTS overrides the latency pass's settings (default: one fork, 2 x 3 s warm-up, 2 x 3 s measured;
#   -bm sample -tu us are always added).
# CLUSTER_WARMUP_SECONDS: seconds each three-member trial runs its own call on 32 threads before JMH's warm-up, so
#   the child JVMs' JIT catches up (default 10; without it a members-3 sync row still climbed through all 8
#   iterations in a smoke run); not measured.
# BATCHING_OPTS overrides step 5's settings (default: one fork, 2 x 3 s warm-up, 3 x 3 s measured).
# QUICK=1: a smoke run of everything (both passes -f 1 -wi 1 -w 1s -i 1 -r 1s, http.sh with wrk -d3s after a 2 s
#   warm-up, no cluster pre-warm-up; JMH_OPTS, LATENCY_OPTS, WRK_OPTS, WARMUP_SECONDS, CLUSTER_WARMUP_SECONDS still
#   override): checks the harness, its figures
#   mean nothing.
# Steps 7 and 8 add about 11 minutes (15 embedded rows x ~28 s, 3 three-member rows x ~48 s, 3 accuracy runs
#   x ~25 s); QUICK=1 shortens the accuracy runs to 3 s.
# http-skewed.sh adds about 7 minutes (its build ~1 min, 8 runs x (~8 s start-up + 20 s warm-up + 15 s)).
# Whole run on 2 cores, estimated: about 66 minutes (throughput: 32 embedded rows x (24 s + ~4 s start-up) ~15 min,
#   14 three-member rows x (24 s + ~11 s cluster formation + 10 s pre-warm-up + ~3 s) ~11 min; latency: 10 + 6 such
#   rows with 12 s of iterations ~6.5 min; race and state size ~0.5 min; batching: 5 embedded rows x ~19 s + 10
#   three-member rows x ~40 s ~8.5 min; http.sh ~4.5 min; skewed and accuracy ~11 min; build ~1.5 min);
#   CLUSTER_WARMUP_SECONDS=0 saves ~3.5 min.
# Needs redis-server and wrk on the PATH (Debian: apt-get install -y redis-server wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="bench/target${suffix}/benchmarks.jar"
out="${1:-bench/results}"
if [ "${QUICK:-0}" = 1 ]; then
  opts="${JMH_OPTS:--f 1 -wi 1 -w 1s -i 1 -r 1s}"
  latency_opts="${LATENCY_OPTS:--f 1 -wi 1 -w 1s -i 1 -r 1s}"
  export WRK_OPTS="${WRK_OPTS:--t2 -c64 -d3s}"
  export WARMUP_SECONDS="${WARMUP_SECONDS:-2}"
  cluster_warmup="${CLUSTER_WARMUP_SECONDS:-0}"
  accuracy_seconds="${ACCURACY_SECONDS:-3}"
  batching_opts="${BATCHING_OPTS:--f 1 -wi 1 -w 1s -i 1 -r 1s}"
else
  opts="${JMH_OPTS:--f 1 -wi 5 -w 3s -i 3 -r 3s}"
  latency_opts="${LATENCY_OPTS:--f 1 -wi 2 -w 3s -i 2 -r 3s}"
  cluster_warmup="${CLUSTER_WARMUP_SECONDS:-10}"
  accuracy_seconds="${ACCURACY_SECONDS:-10}"
  batching_opts="${BATCHING_OPTS:--f 1 -wi 2 -w 3s -i 3 -r 3s}"
fi
# JMH forks inherit the host JVM's -D options: the side-file directory and the cluster pre-warm-up
jvm_props=("-Dgridlimit.bench.out=$out" "-Dgridlimit.bench.clusterWarmupSeconds=$cluster_warmup")
# the synchronous rows of the latency pass (JMH include patterns; ClusterBenchmark's default params give
# members-3 and client-3 at sync backup)
latency_rows=('GridFloorBenchmark\.executeOnKey$' 'GridLimitBenchmark\.tryAcquire$' 'Bucket4jBenchmark\.tryConsume$'
  'RedisBenchmark\.luaSlidingWindow$' 'InProcessBenchmark\.tryAcquire$'
  'ClusterBenchmark\.(gridLimitTryAcquire|floorExecuteOnKey|bucket4jTryConsume)$')
flags="--add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.management/sun.management=ALL-UNNAMED --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED"

mvn -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" -pl bench,micronaut-app -am package
mkdir -p "$out"
rm -rf "$out/latency" "$out/cluster-logs"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git HEAD: $(git rev-parse --short HEAD) (working tree may differ: $(git status --short grid-core bench | wc -l) changed files in grid-core/bench)"
  echo "cpus: $(nproc)"
  echo "cpu model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "java: $(java -version 2>&1 | tr '\n' ' ')"
  echo "redis: $(redis-server --version)"
  echo "command: java ${jvm_props[*]} -jar $jar $opts -rf csv -rff $out/results.csv"
  echo "batching command: java ${jvm_props[*]} -jar $jar BatchingBenchmark $batching_opts -rf csv -rff $out/batching.csv"
  echo "latency command: java ${jvm_props[*]} -jar $jar ${latency_rows[*]} $latency_opts -bm sample -tu us -rf csv -rff $out/latency-sample.csv"
  echo "uptime before: $(uptime)"
} > "$out/machine.txt"
# shellcheck disable=SC2086 # opts is a list of JMH options
# the skewed classes have their own step (7), batching its own (5)
java "${jvm_props[@]}" -jar "$jar" $opts -e 'Skewed' -e BatchingBenchmark -rf csv -rff "$out/results.csv" \
  > "$out/jmh.log" 2>&1
echo "uptime after JMH: $(uptime)" >> "$out/machine.txt"
# shellcheck disable=SC2086 # latency_opts is a list of JMH options
java "${jvm_props[@]}" -jar "$jar" "${latency_rows[@]}" $latency_opts -bm sample -tu us \
  -rf csv -rff "$out/latency-sample.csv" > "$out/jmh-latency.log" 2>&1
echo "uptime after the latency pass: $(uptime)" >> "$out/machine.txt"
# shellcheck disable=SC2086 # flags is a list of JVM options
java $flags -cp "$jar" io.gridlimit.bench.RaceCheck 2> "$out/race.err" | grep '^|' > "$out/race.md"
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.StateSize 2> "$out/state.err" | grep '^|' > "$out/state.md"
echo "uptime after race and state: $(uptime)" >> "$out/machine.txt"
# shellcheck disable=SC2086 # batching_opts is a list of JMH options
java "${jvm_props[@]}" -jar "$jar" BatchingBenchmark $batching_opts -rf csv -rff "$out/batching.csv" \
  > "$out/batching-jmh.log" 2>&1
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.BatchBackupCheck 2> "$out/batching-check.err" \
  | grep '^batch backup check' > "$out/batching-check.txt"
echo "uptime after batching: $(uptime)" >> "$out/machine.txt"
bench/http.sh "$out" > /dev/null
echo "uptime after http: $(uptime)" >> "$out/machine.txt"
bench/http-skewed.sh "$out" > /dev/null
echo "uptime after http-skewed: $(uptime)" >> "$out/machine.txt"
rm -rf "$out/skewed"
# shellcheck disable=SC2086 # opts is a list of JMH options
java "-Dgridlimit.bench.out=$out/skewed" "-Dgridlimit.bench.clusterWarmupSeconds=$cluster_warmup" -jar "$jar" \
  'SkewedBenchmark' 'SkewedClusterBenchmark' $opts \
  -rf csv -rff "$out/skewed.csv" > "$out/jmh-skewed.log" 2>&1
echo "uptime after the skewed rows: $(uptime)" >> "$out/machine.txt"
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.LeaseAccuracy "$out/lease-accuracy-off.md" leases=false \
  "seconds=$accuracy_seconds" clock=stepped 2> "$out/lease-accuracy.err"
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.LeaseAccuracy "$out/lease-accuracy-on.md" leases=true \
  "seconds=$accuracy_seconds" clock=stepped 2>> "$out/lease-accuracy.err"
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.LeaseAccuracy "$out/lease-accuracy-on-cluster.md" leases=true \
  "seconds=$accuracy_seconds" clock=cluster 2>> "$out/lease-accuracy.err"
echo "uptime after: $(uptime)" >> "$out/machine.txt"
java -cp "$jar" io.gridlimit.bench.ResultsTable "$out/results.csv" "$out/jmh.log" > "$out/table.md"
java -cp "$jar" io.gridlimit.bench.ChartSvg "$out/results.csv" "$out/chart.svg"
java -cp "$jar" io.gridlimit.bench.LatencyTable "$out/latency-sample.csv" "$out/latency" > "$out/latency.md"
java -cp "$jar" io.gridlimit.bench.SkewedTable "$out/skewed.csv" > "$out/skewed.md"
java -cp "$jar" io.gridlimit.bench.BatchingTable "$out/batching.csv" > "$out/batching.md"
grep '^\[hot-key' "$out/jmh.log" > "$out/hotkey-admitted.txt" || true
leftover="$(pgrep -f io.gridlimit.bench.BenchClusterMember || true)"
[ -z "$leftover" ] || echo "WARNING: cluster member JVMs still running: $leftover" >> "$out/machine.txt"
cat "$out/table.md" "$out/latency.md" "$out/race.md" "$out/state.md" "$out/batching.md" "$out/batching-check.txt" \
  "$out/http.md" "$out/http-skewed.md" "$out/skewed.md" "$out/lease-accuracy-off.md" "$out"/lease-accuracy-on*.md "$out/machine.txt"
