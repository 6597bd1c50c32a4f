#!/usr/bin/env bash
# Streams, radish-server (1 shard) against redis-server, one core each,
# rounds alternated between the servers: XADD to one stream and XRANGE of
# 10 with redis-benchmark (-c 50), and consumer group reads (XREADGROUP
# COUNT 1 then XACK of what it got, one consumer per connection, with
# benchmarks/cmd/group-bench) on a stream of N entries, -P 32 and -P 1.
# Throughput and server CPU µs per request (its threads' schedstat, benchmarks/cpu.sh; for
# xreadgroup per entry read and acked, two commands); medians.
#
#   A=bin/radish-server bash benchmarks/streams.sh
#   A=bin/radish-server ROUNDS=1 N=20000 DURATION=1s bash benchmarks/streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
N=${N:-1000000}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17398}
IO=${IO:-uring}
TESTS=${TESTS:-xadd xrange xreadgroup}
PIPELINES=${PIPELINES:-32 1}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh
go build -o "$tmp/group-bench" ./benchmarks/cmd/group-bench

start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    taskset -c "$SERVER_CPU" "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    taskset -c "$SERVER_CPU" "$A" --port "$PORT" --shards 1 --io "$IO" --save '' --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

cpu() { cpu_ns "$pid"; }

# bench NAME TEST PIPELINE -> "name test P rps us_per_req"
bench() {
  local t0 t1 rps n=$N out
  [ "$3" = 1 ] && n=$((N / 4))
  case $2 in
    xadd | xrange)
      local args=(xadd s '*' f __rand_int__)
      [ "$2" = xrange ] && args=(xrange s - + count 10)
      t0=$(cpu)
      rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c "$CONNS" -P "$3" -n "$n" -r 1000000 --csv "${args[@]}" 2>/dev/null |
        tail -1 | cut -d, -f2 | tr -d '"')
      t1=$(cpu)
      ;;
    xreadgroup)
      # A fresh group over the stream XADD filled (at least n entries).
      redis-cli -p "$PORT" del s >/dev/null
      redis-benchmark -p "$PORT" -c "$CONNS" -P 32 -n "$n" xadd s '*' f v >/dev/null 2>&1
      redis-cli -p "$PORT" xgroup create s g 0 >/dev/null
      t0=$(cpu)
      out=$(taskset -c "$CLIENT_CPU" "$tmp/group-bench" -addr "127.0.0.1:$PORT" -conns "$CONNS" -pipeline "$3" \
        -key s -group g -duration "$DURATION")
      t1=$(cpu)
      rps=${out% *}
      n=${out#* }
      ;;
  esac
  awk -v b="$1" -v t="$2" -v p="$3" -v r="$rps" -v d=$((t1 - t0)) -v n="$n" \
    'BEGIN{printf "%s %s %s %s %.3f\n", b, t, p, r, d/1e3/n}'
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="redis radish"; (( round % 2 )) || order="radish redis"
  for which in $order; do
    start "$which"
    for p in $PIPELINES; do
      for t in $TESTS; do bench "$which" "$t" "$p" | tee -a "$results"; done
    done
    stop
  done
done

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| test | -P | redis krps | radish krps | redis µs CPU/req | radish µs CPU/req | per core (redis CPU / radish CPU) |"
echo "|---|---|---|---|---|---|---|"
for p in $PIPELINES; do
  for t in $TESTS; do
    sel() { awk -v b="$1" -v t="$t" -v p="$p" -v c="$2" '$1==b && $2==t && $3==p {print $c}' "$results"; }
    awk -v t="$t" -v p="$p" -v r0="$(sel redis 4 | med)" -v r1="$(sel radish 4 | med)" \
      -v c0="$(sel redis 5 | med)" -v c1="$(sel radish 5 | med)" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.3f | %.3f | %.2fx |\n", toupper(t), p, r0/1000, r1/1000, c0, c1, c0/c1}'
  done
done
echo
echo "A=$A; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS n=$N conns=$CONNS io=$IO duration=$DURATION"
