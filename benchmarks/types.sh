#!/usr/bin/env bash
# The newer types' commands, radish-server (1 shard) against redis-server,
# one core each, rounds alternated between the servers: SETBIT/BITCOUNT,
# PFADD/PFCOUNT, GEOADD/GEOSEARCH (streams: streams.sh), with redis-benchmark
# (-c 50, random keys or members from -r), -P 32 and -P 1. Throughput and
# server CPU µs per request (its threads' schedstat, benchmarks/cpu.sh); medians.
#
#   A=bin/radish-server bash benchmarks/types.sh
#   A=bin/radish-server ROUNDS=3 N=300000 TESTS="setbit bitcount" bash benchmarks/types.sh
#
# The read tests run on what the write test before them left (bitcount
# after setbit ...), so keep each pair together in TESTS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
ROUNDS=${ROUNDS:-5}
N=${N:-1000000}
CONNS=${CONNS:-50}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17397}
IO=${IO:-uring}
TESTS=${TESTS:-setbit bitcount pfadd pfcount geoadd geosearch}
PIPELINES=${PIPELINES:-32 1}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh
# GEOSEARCH's set: 100k members at random places on the globe, as RESP for --pipe.
awk 'BEGIN{srand(1); for (i = 0; i < 100000; i++) {
  lon = sprintf("%.6f", rand() * 360 - 180); lat = sprintf("%.6f", rand() * 160 - 80); m = "p:" i
  printf "*5\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(m), m
}}' >"$tmp/geo"

# args TEST: the command and the key range. Bitmaps of up to 1 KB on 100k
# keys; 100k HLLs; GEOADD into one set (a hot key), GEOSEARCH in another
# of 100k members spread over the globe (loaded at start: about 25 within
# its 200 km).
args() {
  case $1 in
    setbit) echo "-r 100000 setbit bm:__rand_int__ 8191 1" ;;
    bitcount) echo "-r 100000 bitcount bm:__rand_int__" ;;
    pfadd) echo "-r 100000 pfadd hll:__rand_int__ e:__rand_int__" ;;
    pfcount) echo "-r 100000 pfcount hll:__rand_int__" ;;
    geoadd) echo "-r 1000000 geoadd geow 13.361389 38.115556 m:__rand_int__ 15.087269 37.502669 n:__rand_int__" ;;
    geosearch) echo "-r 1000000 geosearch geo fromlonlat 15 37 byradius 200 km asc count 10" ;;
    *) echo "unknown test $1" >&2; exit 1 ;;
  esac
}

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
      redis-cli -p "$PORT" --pipe <"$tmp/geo" >/dev/null
      return
    fi
    sleep 0.05
  done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

# bench NAME TEST PIPELINE -> "name test P rps us_per_req"
bench() {
  local t0 t1 rps n=$N
  [ "$3" = 1 ] && n=$((N / 4))
  t0=$(cpu_ns "$pid")
  # shellcheck disable=SC2046
  rps=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c "$CONNS" -P "$3" -n "$n" --csv $(args "$2") 2>/dev/null |
    tail -1 | cut -d, -f2 | tr -d '"')
  t1=$(cpu_ns "$pid")
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
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS n=$N conns=$CONNS io=$IO"
