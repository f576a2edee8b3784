# Docker for the container tests (../shared/containers.md), sourced by .ci/run and bench/nemesis.sh (never run).
# No registry is reachable: Docker comes from Debian's packages and the base image is built from the host's JRE.
# docker_up: installs docker.io if missing, starts dockerd unless one answers (its PID in DOCKERD_PID, else empty),
# exports the Testcontainers settings and GRIDLIMIT_BASE_IMAGE, and builds that image when it is missing.
# docker_down: stops the dockerd docker_up started (with every container), and waits for it to exit.
DOCKERD_PID=""

docker_up() {
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "ci: installing docker.io from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
  fi
  if ! docker info >/dev/null 2>&1; then
    echo "ci: starting dockerd"
    # a pid file left by a dockerd that is no longer running would stop this one from starting
    if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
      rm -f /var/run/docker.pid
    fi
    dockerd >/tmp/gridlimit-dockerd.log 2>&1 &
    DOCKERD_PID=$!
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { echo "ci: dockerd did not start"; tail -50 /tmp/gridlimit-dockerd.log; return 1; }
  fi
  export TESTCONTAINERS_RYUK_DISABLED=true
  export TESTCONTAINERS_HOST_OVERRIDE=localhost
  export GRIDLIMIT_BASE_IMAGE="${GRIDLIMIT_BASE_IMAGE:-local/jre17:latest}"
  if ! docker image inspect "$GRIDLIMIT_BASE_IMAGE" >/dev/null 2>&1; then
    echo "ci: building base image $GRIDLIMIT_BASE_IMAGE from the host JRE"
    "$(dirname "${BASH_SOURCE[0]}")/build-base-image" "$GRIDLIMIT_BASE_IMAGE"
  fi
}

docker_down() {
  if [ -n "$DOCKERD_PID" ]; then
    docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1 || true
    kill "$DOCKERD_PID" 2>/dev/null || true
    # wait for it to exit, so that a following run finds no stale pid file or socket
    for _ in $(seq 1 30); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 1; done
  fi
}
