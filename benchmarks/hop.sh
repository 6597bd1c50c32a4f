#!/usr/bin/env bash
# What a cross-shard hop costs: server CPU per request for GET and SET,
# -P 1 and -P 32, with the key local and on the other shard, and MSET/MGET
# of 10 keys over 1 and 2 shards. One or two radish-server binaries,
# alternated round by round; medians.
#
#   A=/tmp/radish-old B=bin/radish-server bash benchmarks/hop.sh
#   A=bin/radish-server ROUNDS=3 bash benchmarks/hop.sh
#
# A connection belongs to the shard that accepted it (SO_REUSEPORT spreads
# them), so no client chooses where its commands run. Instead every key of
# a run has one hash tag: {d} lives on shard 0 of 2, {a} on shard 1 (shard's
# TestBenchTags checks). On one shard every request is local (L µs of
# server CPU per request). On two shards the requests of the connections
# the other shard accepted hop: the fraction f that did is INFO's
# cross_shard_hops over the requests, and a run costs c = L + f*H. Each
# round runs both tags and takes H = (c_d - L + c_a - L) / (f_d + f_a): the
# server CPU one hop adds, its turns on both shards included.
#
# Connection migration (migrate-connections) would move every connection
# to its tag's shard and leave nothing to measure: it is set to $MIGRATE
# (default no; MIGRATE=yes shows the migrated case instead: a hop
# fraction near 0 and the 2-shard cost near the local one; its per-hop
# column means nothing then). A server without the parameter ignores it.
#
# Server on CPU $SERVER_CPU (both shards there by default: no core of its
# own for the second shard, so every hop that finds it asleep is a context
# switch; SERVER_CPU=0-1 to spread them), redis-benchmark on $CLIENT_CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server (B= a second one to compare)}"
B=${B:-}
ROUNDS=${ROUNDS:-5}
N=${N:-1000000} # requests of a -P 32 run; -P 1 and MSET/MGET runs do fewer
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-17391}
IO=${IO:-uring}
MIGRATE=${MIGRATE:-no}

command -v redis-benchmark >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-tools >/dev/null; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
. benchmarks/cpu.sh

# start BIN SHARDS: starts a server on $PORT, sets $pid.
start() {
  # A server already there would share the port (SO_REUSEPORT) and the
  # requests.
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  taskset -c "$SERVER_CPU" "$1" --port "$PORT" --shards "$2" --io "$IO" --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/log" &
  pid=$!
  for _ in $(seq 100); do
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
      redis-cli -p "$PORT" config set migrate-connections "$MIGRATE" >/dev/null 2>&1 || true
      return
    fi
    sleep 0.05
  done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }

hops() { redis-cli -p "$PORT" info stats | tr -d '\r' | awk -F: '$1=="cross_shard_hops"{print $2}'; }

# bench BIN SHARDS TAG TEST N ARGS... -> "bin shards tag test rps us_per_req hop_fraction"
bench() {
  local bin=$1 shards=$2 tag=$3 test=$4 n=$5; shift 5
  local t0 t1 h0 h1 out rps
  h0=$(hops)
  t0=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -c 50 -r 1000000 -n "$n" --csv -q "$@" | tail -1)
  t1=$(cpu_ns "$pid")
  h1=$(hops)
  rps=$(echo "$out" | cut -d, -f2 | tr -d '"')
  awk -v b="$bin" -v s="$shards" -v g="$tag" -v t="$test" -v r="$rps" -v d=$((t1 - t0)) -v n="$n" \
    -v h=$((h1 - h0)) 'BEGIN{printf "%s %s %s %s %s %.3f %.3f\n", b, s, g, t, r, d/1e3/n, h/n}'
}

# singles WHICH SHARDS TAG: GET and SET, -P 32 and -P 1, keys {TAG}:n.
singles() {
  local k="{$3}:__rand_int__"
  bench "$1" "$2" "$3" set-P32 "$N" -P 32 SET "$k" v
  bench "$1" "$2" "$3" get-P32 "$N" -P 32 GET "$k"
  bench "$1" "$2" "$3" set-P1 $((N / 5)) SET "$k" v
  bench "$1" "$2" "$3" get-P1 $((N / 5)) GET "$k"
}

# multis WHICH SHARDS: MSET and MGET of 10 random keys (on two shards
# nearly every one spans both: a txn).
multis() {
  local keys="" pairs=""
  for _ in $(seq 10); do keys+=" k:__rand_int__"; pairs+=" k:__rand_int__ v"; done
  # shellcheck disable=SC2086
  bench "$1" "$2" - mset10-P1 $((N / 10)) MSET $pairs
  # shellcheck disable=SC2086
  bench "$1" "$2" - mget10-P1 $((N / 10)) MGET $keys
}

results="$tmp/results"
: >"$results"
bins="A"; [ -n "$B" ] && bins="A B"
for round in $(seq "$ROUNDS"); do
  order=$bins; (( round % 2 )) || order=$(echo "$bins" | rev)
  for which in $order; do
    bin=$A; [ "$which" = B ] && bin=$B
    start "$bin" 1
    singles "$which" 1 d | tee -a "$results"
    multis "$which" 1 | tee -a "$results"
    stop
    start "$bin" 2
    singles "$which" 2 d | tee -a "$results"
    singles "$which" 2 a | tee -a "$results"
    multis "$which" 2 | tee -a "$results"
    stop
  done
done

# med: the median of stdin's numbers.
med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo
echo "| test | bin | 1 shard krps | 2 shards krps | 1 shard µs CPU/req | 2 shards µs CPU/req | hop fraction | µs CPU per hop |"
echo "|---|---|---|---|---|---|---|---|"
for t in set-P32 get-P32 set-P1 get-P1; do
  for which in $bins; do
    sel() { awk -v b="$which" -v s="$1" -v g="$2" -v t="$t" -v c="$3" '$1==b && $2==s && $3==g && $4==t {print $c}' "$results"; }
    # Per round: H = (c_d - L + c_a - L) / (f_d + f_a), then the median.
    hop=$(paste <(sel 1 d 6) <(sel 2 d 6) <(sel 2 a 6) <(sel 2 d 7) <(sel 2 a 7) |
      awk '{ f = $4 + $5; if (f > 0) print ($2 - $1 + $3 - $1) / f }' | med)
    awk -v t="$t" -v b="$which" -v r1="$(sel 1 d 5 | med)" -v r2="$( (sel 2 d 5; sel 2 a 5) | med)" \
      -v c1="$(sel 1 d 6 | med)" -v c2="$( (sel 2 d 6; sel 2 a 6) | med)" \
      -v f="$( (sel 2 d 7; sel 2 a 7) | med)" -v h="$hop" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.3f | %.3f | %.2f | %.3f |\n", t, b, r1/1000, r2/1000, c1, c2, f, h}'
  done
done
for t in mset10-P1 mget10-P1; do
  for which in $bins; do
    sel() { awk -v b="$which" -v s="$1" -v t="$t" -v c="$2" '$1==b && $2==s && $4==t {print $c}' "$results"; }
    awk -v t="$t" -v b="$which" -v r1="$(sel 1 5 | med)" -v r2="$(sel 2 5 | med)" \
      -v c1="$(sel 1 6 | med)" -v c2="$(sel 2 6 | med)" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.3f | %.3f | | |\n", t, b, r1/1000, r2/1000, c1, c2}'
  done
done
echo
echo "A=$A${B:+ B=$B}; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
  "server on CPU $SERVER_CPU, client on CPU $CLIENT_CPU; rounds=$ROUNDS n=$N io=$IO migrate-connections=$MIGRATE"
