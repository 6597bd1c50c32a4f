#!/usr/bin/env bash
# What ACL checks cost: GET and SET -P 32 (and -P 1) as the default user
# (every permission: no key pattern is matched) and as a user with 20 key
# patterns, of which only the last matches redis-benchmark's keys
# (key:<12 digits>), so every check walks all 20. Both users on the same
# server, alternated within each round; redis-server measured the same
# way in the same run. Throughput and server CPU µs per request; medians.
#
#   A=bin/radish-server bash benchmarks/acl.sh
#   A=bin/radish-server ROUNDS=3 N=500000 bash benchmarks/acl.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
N=${N:-1000000}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17394}
IO=${IO:-uring}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh

patterns=()
for i in $(seq 19); do patterns+=("~app$i:*"); done
patterns+=("~key:*")

# start NAME: starts a server on $PORT, sets $pid, adds the user "bench".
start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards 1 --io "$IO" --save '' --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
      redis-cli -p "$PORT" ACL SETUSER bench on '>pw' "${patterns[@]}" '+@all' >/dev/null
      return
    fi
    sleep 0.05
  done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# bench NAME USER TEST PIPELINE -> "name user test P rps us_per_req"
bench() {
  local t0 t1 rps auth=() n=$N
  [ "$2" = bench ] && auth=(--user bench -a pw)
  [ "$4" = 1 ] && n=$((N / 4))
  t0=$(cpu_ns "$pid")
  rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" "${auth[@]}" -c "$CONNS" -P "$4" -n "$n" -r 1000000 \
    -t "$3" --csv 2>/dev/null | tail -1 | cut -d, -f2 | tr -d '"')
  t1=$(cpu_ns "$pid")
  awk -v b="$1" -v u="$2" -v t="$3" -v p="$4" -v r="$rps" -v d=$((t1 - t0)) -v n="$n" \
    'BEGIN{printf "%s %s %s %s %s %.3f\n", b, u, t, p, r, d/1e3/n}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="redis radish"; (( round % 2 )) || order="radish redis"
  users="default bench"; (( round % 2 )) || users="bench default"
  for which in $order; do
    start "$which"
    for p in 32 1; do
      for t in set get; do
        for u in $users; do bench "$which" "$u" "$t" "$p" | tee -a "$results"; done
      done
    done
    stop
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| server | test | -P | default krps | 20 patterns krps | default µs CPU/req | 20 patterns µs CPU/req | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|"
for b in redis radish; do
  for p in 32 1; do
    for t in set get; do
      sel() { awk -v b="$b" -v u="$1" -v t="$t" -v p="$p" -v c="$2" '$1==b && $2==u && $3==t && $4==p {print $c}' "$results"; }
      awk -v b="$b" -v t="$t" -v p="$p" -v r0="$(sel default 5 | med)" -v r1="$(sel bench 5 | med)" \
        -v c0="$(sel default 6 | med)" -v c1="$(sel bench 6 | med)" \
        'BEGIN{printf "| %s | %s | %s | %.0f | %.0f | %.3f | %.3f | %.3f |\n", b, toupper(t), p, r0/1000, r1/1000, c0, c1, c1/c0}'
    done
  done
done
echo
echo "A=$A; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS n=$N conns=$CONNS io=$IO"
