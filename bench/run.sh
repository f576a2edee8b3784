#!/usr/bin/env bash
# Runs the whole benchmark suite once, as recorded in bench/README.md, and prints the Markdown table.
#   bench/run.sh [output-dir]        (default bench/results; builds benchmarks.jar first)
# GRIDLIMIT_BUILD_SUFFIX=-x selects the build folder bench/target-x (the tree's -Dgridlimit.buildSuffix).
# JMH_OPTS overrides the run settings (default: one fork, 2 x 2 s warm-up, 3 x 3 s measured iterations).
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="bench/target${suffix}/benchmarks.jar"
out="${1:-bench/results}"
opts="${JMH_OPTS:--f 1 -wi 2 -w 2s -i 3 -r 3s}"

mvn -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" -pl bench -am package
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpus: $(nproc)"
  echo "cpu model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "java: $(java -version 2>&1 | tr '\n' ' ')"
  echo "command: java -jar $jar $opts -rf csv -rff $out/results.csv"
  echo "uptime before: $(uptime)"
} > "$out/machine.txt"
# shellcheck disable=SC2086 # opts is a list of JMH options
java -jar "$jar" $opts -rf csv -rff "$out/results.csv" > "$out/jmh.log" 2>&1
echo "uptime after: $(uptime)" >> "$out/machine.txt"
java -cp "$jar" io.gridlimit.bench.ResultsTable "$out/results.csv" "$out/jmh.log" | tee "$out/table.md"
cat "$out/machine.txt"
