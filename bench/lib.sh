# Shell functions shared by bench/http.sh, bench/http-skewed.sh and bench/overload.sh (sourced, never run).

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# CPU time used so far by process $1 (user + system), in clock ticks (getconf CLK_TCK per second).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wrk_summary <wrk --latency output> <cpu ticks before> <cpu ticks after>
# prints one line: requests/s, p50, p99, non-2xx responses (0 when wrk reports none), requests, and the measured
# process's CPU time per request in microseconds (one decimal).
wrk_summary() {
  local file="$1" before="$2" after="$3" requests
  requests="$(awk '/requests in/ {print $1}' "$file")"
  printf '%s %s %s %s %s %s\n' \
    "$(awk '/^Requests\/sec/ {print $2}' "$file")" \
    "$(awk '$1=="50%" {print $2}' "$file")" \
    "$(awk '$1=="99%" {print $2}' "$file")" \
    "$(awk '/Non-2xx/ {n=$NF} END {print n+0}' "$file")" \
    "$requests" \
    "$(awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
}
