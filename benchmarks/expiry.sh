#!/usr/bin/env bash
# An expiry wave: N keys with a 1 s TTL and no further commands. Reports how
# long DBSIZE takes to reach 0, RSS before loading / loaded / after, and the
# p99 latency of a concurrent `redis-benchmark -t get -P 1` during the wave
# and with the same N keys loaded without a TTL (no wave).
#
#   bash benchmarks/expiry.sh [N] [radish-server binary]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
BIN=${2:-bin/radish-server}
[ "$BIN" != bin/radish-server ] || go build -o bin/radish-server ./cmd/radish-server
PORT=${PORT:-7393}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
taskset -c 0 "$BIN" --port "$PORT" --shards 1 --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/r.log" &
pid=$!
for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
rss() { awk '{printf "%.1f", $2 * 4096 / 1048576}' "/proc/$pid/statm"; }
p99() { taskset -c 1 redis-benchmark -p "$PORT" -t get -P 1 -c 50 -n "$1" -r 100000 --csv -q | tail -1 | cut -d, -f7 | tr -d '"'; }

# load TTL_MS: N keys exp:I (pipelined SET, with PX TTL_MS when given).
load() {
  awk -v n="$N" -v ttl="${1:-}" 'BEGIN{for(i=0;i<n;i++) if (ttl == "") printf "*3\r\n$3\r\nSET\r\n$%d\r\nexp:%d\r\n$1\r\nv\r\n", length("exp:" i), i;
    else printf "*5\r\n$3\r\nSET\r\n$%d\r\nexp:%d\r\n$1\r\nv\r\n$2\r\nPX\r\n$%d\r\n%s\r\n", length("exp:" i), i, length(ttl), ttl}' |
    redis-cli -p "$PORT" --pipe >/dev/null
}
rss0=$(rss)
# The p99 without the wave: the same N keys, without a TTL; median of three.
load
base_p99=$(for _ in 1 2 3; do p99 200000; done | sort -g | sed -n 2p)
redis-cli -p "$PORT" flushall >/dev/null
sleep 1
# The wave: N keys with a 1 s TTL.
load 1000
loaded_at=$(date +%s.%N)
rss1=$(rss)
keys=$(redis-cli -p "$PORT" dbsize)
# Concurrent load during the wave.
p99 400000 >"$tmp/wave_p99" &
bench=$!
while [ "$(redis-cli -p "$PORT" dbsize)" != 0 ]; do sleep 0.05; done
gone_at=$(date +%s.%N)
wait $bench
wave_p99=$(cat "$tmp/wave_p99")
sleep 1
rss2=$(rss)
echo "| keys | DBSIZE 0 after load (s) | RSS before MB | loaded MB | after MB | GET p99 ms, keys without TTL | GET p99 ms during wave |"
echo "|---|---|---|---|---|---|---|"
awk -v k="$keys" -v a="$loaded_at" -v b="$gone_at" -v r0="$rss0" -v r1="$rss1" -v r2="$rss2" -v q="$base_p99" -v w="$wave_p99" \
  'BEGIN{printf "| %d | %.2f | %s | %s | %s | %s | %s |\n", k, b-a, r0, r1, r2, q, w}'
