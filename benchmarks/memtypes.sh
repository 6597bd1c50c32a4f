#!/usr/bin/env bash
# Memory per entry of the data model issue's three data sets, radish-server
# against redis-server, a fresh server per data set:
#   - stream: one stream of 1M entries (XADD s * with 3 fields of 8-byte values)
#   - bitmaps: 1M keys, each a 1 KB bitmap (SETBIT k 8191 1)
#   - hlls: 100k HyperLogLogs of 1,000 distinct elements each (PFADD, 100 per call)
# Loaded with redis-cli --pipe; RSS (from /proc) and INFO's used_memory are
# read before and after, and the difference is divided by the entries.
#
#   A=bin/radish-server bash benchmarks/memtypes.sh
#   A=bin/radish-server SCALE=10 bash benchmarks/memtypes.sh   # a tenth of each set
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
REDIS=${REDIS:-redis-server}
SCALE=${SCALE:-1}
SHARDS=${SHARDS:-1}
PORT=${PORT:-17396}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

streams=$((1000000 / SCALE)) bitmaps=$((1000000 / SCALE)) hlls=$((100000 / SCALE))

# The load files, RESP, made once for both servers.
resp() { awk '{printf "*%d\r\n", NF; for (i = 1; i <= NF; i++) printf "$%d\r\n%s\r\n", length($i), $i}'; }
awk -v n="$streams" 'BEGIN{for (i = 0; i < n; i++) printf "XADD s * a %08d b %08d c %08d\n", i, i, i}' | resp >"$tmp/stream"
awk -v n="$bitmaps" 'BEGIN{for (i = 0; i < n; i++) printf "SETBIT bitmap:%d 8191 1\n", i}' | resp >"$tmp/bitmaps"
awk -v n="$hlls" 'BEGIN{
  for (i = 0; i < n; i++) for (j = 0; j < 10; j++) {
    line = "PFADD hll:" i
    for (k = 0; k < 100; k++) line = line " e" i ":" (j * 100 + k)
    print line
  }
}' | resp >"$tmp/hlls"

start() {
  if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "port $PORT is taken" >&2; exit 1; fi
  if [ "$1" = redis ]; then
    "$REDIS" --port "$PORT" --save "" --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
  else
    "$A" --port "$PORT" --shards "$SHARDS" --save '' --dir "$tmp" --logfile "$tmp/log" &
  fi
  pid=$!
  for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
rss() { awk '/^VmRSS/ {print $2 * 1024}' "/proc/$pid/status"; }
used() { redis-cli -p "$PORT" info memory | awk -F: '/^used_memory:/ {print $2+0}'; }

echo "| data set | entries | server | RSS bytes/entry | used_memory bytes/entry |"
echo "|---|---|---|---|---|"
for set in stream bitmaps hlls; do
  case $set in stream) n=$streams ;; bitmaps) n=$bitmaps ;; hlls) n=$hlls ;; esac
  for which in redis radish; do
    start "$which"
    r0=$(rss) u0=$(used)
    redis-cli -p "$PORT" --pipe <"$tmp/$set" >/dev/null
    sleep 1
    r1=$(rss) u1=$(used)
    if [ "$set" = stream ]; then got=$(redis-cli -p "$PORT" xlen s); else got=$(redis-cli -p "$PORT" dbsize); fi
    [ "$got" = "$n" ] || { echo "$which $set: $got entries, want $n" >&2; exit 1; }
    awk -v s="$set" -v n="$n" -v w="$which" -v r=$((r1 - r0)) -v u=$((u1 - u0)) \
      'BEGIN{printf "| %s | %d | %s | %.1f | %.1f |\n", s, n, w, r/n, u/n}'
    stop
  done
done
echo
echo "A=$A shards=$SHARDS; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
