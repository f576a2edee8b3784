#!/usr/bin/env bash
# Nemesis (issue 25; bench/README.md, "Nemesis"; the bounds: docs/SPEC.md §15): three service replicas in containers,
# load from three client processes over many keys (hot keys at their limit, Zipf keys, every algorithm, two
# composites, quota leases on m1), and a seeded random schedule of faults meanwhile (kill -9 and restart, pause past
# the heartbeat timeout, partition of one member's member-to-member network, wall-clock steps). Every decision and
# fault goes to a history file (JSON lines), which the checker then checks against its own exact model; it prints a
# table per fault kind and, last, "nemesis: runs=R faults=F kinds=... decisions=D violations=V lost=L".
#
#   bench/nemesis.sh [--minutes N] [--seed S] [--history FILE] [--kinds k1,k2,...] [--rate R] [--threads T]
#                    [--heartbeat-seconds H] [--min-cluster-size M]
#   bench/nemesis.sh --check FILE...          check histories only (a JDK is all it needs)
#
# Defaults: 4 minutes, seed 25, kinds kill,pause,partition,clock, 200 requests/s over 3 client processes of 4 threads,
# hazelcast.max.no.heartbeat.seconds 10, no min-cluster-size, history micronaut-app/target/nemesis/history.jsonl (the
# report beside it, <history>.report.txt; members' logs and the clients' parts in <history>.work/). The run is
# NemesisIT (its CI form is the same class with a minute and three kinds, in mvn -B verify) under failsafe, so it
# builds the service jar first; MAVEN_ARGS adds Maven options (e.g. -o). Docker is prepared as .ci/run does
# (.ci/docker.sh); clock faults need Debian's libfaketime, installed here when missing. Every request goes to
# 127.0.0.1 or to the run's own containers; the load stops by itself. Exit status: the test's (0: no violation).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--check" ]; then
  shift
  [ $# -ge 1 ] || { echo "usage: bench/nemesis.sh --check HISTORY..." >&2; exit 2; }
  classes="$(mktemp -d)"
  trap 'rm -rf "$classes"' EXIT
  # the checker has no dependency: javac alone builds it
  javac -d "$classes" $(ls micronaut-app/src/test/java/io/gridlimit/nemesis/check/*.java | grep -v 'Test\.java$')
  java -cp "$classes" io.gridlimit.nemesis.check.CheckMain "$@"
  exit $?
fi

minutes=4 seed=25 history="" kinds="kill,pause,partition,clock" rate=200 threads=4 heartbeat=10 min_cluster=0
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --history) history="$2"; shift 2 ;;
    --kinds) kinds="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --heartbeat-seconds) heartbeat="$2"; shift 2 ;;
    --min-cluster-size) min_cluster="$2"; shift 2 ;;
    *) echo "bench/nemesis.sh: unknown option '$1' (see the comment at the top of bench/nemesis.sh)" >&2; exit 2 ;;
  esac
done
suffix="${GRIDLIMIT_BUILD_SUFFIX:-}"
if [ -z "$history" ]; then
  history="micronaut-app/target${suffix}/nemesis/history.jsonl"
fi
mkdir -p "$(dirname "$history")"
history="$(cd "$(dirname "$history")" && pwd)/$(basename "$history")"

faketime=""
if [[ ",$kinds," == *",clock,"* ]]; then
  faketime=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
  if [ ! -f "$faketime" ]; then
    echo "nemesis: installing libfaketime from Debian (clock faults)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfaketime >/dev/null \
      || { DEBIAN_FRONTEND=noninteractive apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfaketime >/dev/null; }
  fi
fi

. .ci/docker.sh
trap docker_down EXIT
docker_up

rm -f "$history.report.txt" # a failed run must not show the last run's report
status=0
# shellcheck disable=SC2086
mvn -B ${MAVEN_ARGS:-} -Dgridlimit.buildSuffix="$suffix" -pl micronaut-app -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=NemesisIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dnemesis.minutes="$minutes" -Dnemesis.seed="$seed" -Dnemesis.history="$history" -Dnemesis.kinds="$kinds" \
  -Dnemesis.rate="$rate" -Dnemesis.threads="$threads" -Dnemesis.heartbeatSeconds="$heartbeat" \
  -Dnemesis.minClusterSize="$min_cluster" -Dnemesis.faketime="$faketime" > "$history.mvn.log" 2>&1 || status=$?
grep -E '^nemesis: (cluster|kill|pause|partition|clock|accidental)' \
  "micronaut-app/target${suffix}/failsafe-reports/io.gridlimit.nemesis.NemesisIT-output.txt" 2>/dev/null || true
if [ -f "$history.report.txt" ]; then
  cat "$history.report.txt"
else
  echo "nemesis: no report (the run failed before the check): see $history.mvn.log"
  tail -40 "$history.mvn.log"
fi
exit $status
