#!/usr/bin/env bash
# Envoy's ShouldRateLimit beside the HTTP decision API and the Java API, in one run (EnvoyRlsBenchmark): the same
# service JVMs (one member, then three), the same token bucket that never denies, 10 000 uniform keys, 4 caller
# threads with at most 64 decisions in flight each. Writes envoy.csv and envoy.md and prints the table.
#   bench/envoy.sh [output-dir]      (default bench/results; builds benchmarks.jar and the service jar first)
# GRIDLIMIT_BUILD_SUFFIX=-x selects the build folders target-x; ENVOY_JMH_OPTS overrides the JMH settings
# (default -f 1 -wi 3 -w 5s -i 3 -r 5s: the gRPC path needs its warm-up, a 2 s iteration measures the JIT).
# MVN_OPTS adds Maven options to the build (e.g. "-o -Dmaven.repo.local=/path/to/repo"); SKIP_BUILD=1 uses the jars
# already built. About 6 minutes on 2 cores (6 trials, each starting its service JVMs).
set -euo pipefail
cd "$(dirname "$0")/.."
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
out="${1:-bench/results}"
opts="${ENVOY_JMH_OPTS:--f 1 -wi 3 -w 5s -i 3 -r 5s}"
mkdir -p "$out"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2086
  mvn -q -B ${MVN_OPTS:-} -DskipTests -Dgridlimit.buildSuffix="$suffix" -pl bench,micronaut-app -am package
fi
service_jar="$PWD/micronaut-app/target${suffix}/micronaut-app-0.1.0-SNAPSHOT-all.jar"
uptime | tee "$out/envoy-machine.txt"
# shellcheck disable=SC2086
java -jar "bench/target${suffix}/benchmarks.jar" EnvoyRlsBenchmark $opts -rf csv -rff "$out/envoy.csv" \
  -jvmArgsAppend "-Dgridlimit.serviceJar=$service_jar" | tee "$out/envoy-jmh.log"
uptime | tee -a "$out/envoy-machine.txt"
{
  echo "| path | members | decisions/s | ± (99.9 %) |"
  echo "|---|---|---|---|"
  tail -n +2 "$out/envoy.csv" | tr -d '"' | awk -F, '{
    split($1, b, "."); path = b[length(b)];
    name = (path == "shouldRateLimit") ? "Envoy ShouldRateLimit (gRPC)" : (path == "decisionApi") ? "HTTP decision API" : "Java API (Hazelcast client)";
    printf "| %s | %s | %.0f | %.0f |\n", name, $8, $5, $6 }'
} | tee "$out/envoy.md"
