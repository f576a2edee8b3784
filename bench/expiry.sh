#!/usr/bin/env bash
# Runs ExpiryBench once, as recorded in bench/README.md ("Expiry sweep"), and prints its tables:
#   memory: 20 000 keys on a 1 s window, owned and backup entries every second for 30 s after the last decision,
#           used heap after a GC (GridLimit's sweep settings vs Hazelcast's defaults);
#   throughput: decisions/s and CPU per decision with GridLimit's sweep, Hazelcast's default sweep and no sweep, 5 rounds.
#   bench/expiry.sh [output-dir]     (default bench/results; writes expiry.md, expiry.err, expiry-machine.txt)
# GRIDLIMIT_BUILD_SUFFIX=-x selects the build folder target-x (the tree's -Dgridlimit.buildSuffix).
# About 7 minutes on 2 cores (memory 2 x ~40 s, throughput 16 trials x ~20 s, build ~1 min).
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
jar="bench/target${suffix}/benchmarks.jar"
out="${1:-bench/results}"
flags="--add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.management/sun.management=ALL-UNNAMED --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED"
# MVN_FLAGS: extra Maven flags, e.g. -o to build offline
# shellcheck disable=SC2086
mvn ${MVN_FLAGS:-} -q -B -DskipTests "-Dgridlimit.buildSuffix=${suffix}" -pl bench -am package
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git HEAD: $(git rev-parse --short HEAD) (working tree may differ: $(git status --short grid-core bench | wc -l) changed files in grid-core/bench)"
  echo "cpus: $(nproc)"
  echo "java: $(java -version 2>&1 | tr '\n' ' ')"
  echo "command: java \$flags -Xmx2g -cp $jar io.gridlimit.bench.ExpiryBench"
  echo "uptime before: $(uptime)"
} > "$out/expiry-machine.txt"
# shellcheck disable=SC2086 # flags is a list of JVM options
java $flags -Xmx2g -cp "$jar" io.gridlimit.bench.ExpiryBench 2> "$out/expiry.err" | grep '^|\|^$' > "$out/expiry.md"
echo "uptime after: $(uptime)" >> "$out/expiry-machine.txt"
cat "$out/expiry.md" "$out/expiry-machine.txt"
