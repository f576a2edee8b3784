#!/usr/bin/env bash
# Runs the whole benchmark set once, as recorded in bench/README.md, and prints the tables:
#   1. JMH (every class: pure algorithms, GridLimit sync/async, no-op floor, Bucket4j, Redis Lua + seeds' code,
#      hot-key coalescing, in-process ceiling) -> results.csv, jmh.log, table.md, chart.svg
#   2. RaceCheck (admitted vs limit in a race)                                   -> race.md
#   3. StateSize (serialized bytes and heap per idle key, GridLimit vs Bucket4j) -> state.md
#   4. http.sh (wrk on /demo/hello, limiting on vs exempt)                       -> http.md
#   bench/run.sh [output-dir]        (default bench/results; builds benchmarks.jar and the service jar first)
# GRIDLIMIT_BUILD_SUFFIX=-x selects the build folders target-x (the tree's -Dgridlimit.buildSuffix).
# JMH_OPTS overrides the JMH settings (default: one fork, 3 x 2 s warm-up, 3 x 3 s measured iterations).
# Needs redis-server and wrk on the PATH (Debian: apt-get install -y redis-server wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="bench/target${suffix}/benchmarks.jar"
out="${1:-bench/results}"
opts="${JMH_OPTS:--f 1 -wi 3 -w 2s -i 3 -r 3s}"
flags="--add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.management/sun.management=ALL-UNNAMED --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED"

mvn -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" -pl bench,micronaut-app -am package
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git HEAD: $(git rev-parse --short HEAD) (working tree may differ: $(git status --short grid-core bench | wc -l) changed files in grid-core/bench)"
  echo "cpus: $(nproc)"
  echo "cpu model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "java: $(java -version 2>&1 | tr '\n' ' ')"
  echo "redis: $(redis-server --version)"
  echo "command: java -jar $jar $opts -rf csv -rff $out/results.csv"
  echo "uptime before: $(uptime)"
} > "$out/machine.txt"
# shellcheck disable=SC2086 # opts is a list of JMH options
java -jar "$jar" $opts -rf csv -rff "$out/results.csv" > "$out/jmh.log" 2>&1
echo "uptime after JMH: $(uptime)" >> "$out/machine.txt"
# shellcheck disable=SC2086 # flags is a list of JVM options
java $flags -cp "$jar" io.gridlimit.bench.RaceCheck 2> "$out/race.err" | grep '^|' > "$out/race.md"
# shellcheck disable=SC2086
java $flags -cp "$jar" io.gridlimit.bench.StateSize 2> "$out/state.err" | grep '^|' > "$out/state.md"
echo "uptime after race and state: $(uptime)" >> "$out/machine.txt"
bench/http.sh "$out" > /dev/null
echo "uptime after: $(uptime)" >> "$out/machine.txt"
java -cp "$jar" io.gridlimit.bench.ResultsTable "$out/results.csv" "$out/jmh.log" > "$out/table.md"
java -cp "$jar" io.gridlimit.bench.ChartSvg "$out/results.csv" "$out/chart.svg"
grep '^\[hot-key' "$out/jmh.log" > "$out/hotkey-admitted.txt" || true
cat "$out/table.md" "$out/race.md" "$out/state.md" "$out/http.md" "$out/machine.txt"
