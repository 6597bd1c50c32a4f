#!/usr/bin/env bash
# Memory per key through the running server: DEBUG POPULATE N (key:N /
# value:N, as Redis makes them) into radish-server and Debian's redis-server,
# then RSS growth and used_memory per key.
#
#   bash benchmarks/populate.sh [N] [radish-server binary]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
BIN=${2:-bin/radish-server}
[ "$BIN" != bin/radish-server ] || go build -o bin/radish-server ./cmd/radish-server
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
rss() { awk '{print $2 * 4096}' "/proc/$1/statm"; }
measure() { # name pid port
  local name=$1 pid=$2 port=$3 before after used
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  before=$(rss "$pid")
  redis-cli -p "$port" debug populate "$N" >/dev/null
  sleep 0.5
  after=$(rss "$pid")
  used=$(redis-cli -p "$port" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{print $2}')
  keys=$(redis-cli -p "$port" dbsize)
  awk -v n="$name" -v k="$keys" -v b="$before" -v a="$after" -v u="$used" \
    'BEGIN{printf "| %s | %d | %.1f | %.1f |\n", n, k, (a-b)/k, u/k}'
}
echo "| server | keys | RSS growth B/key | used_memory B/key |"
echo "|---|---|---|---|"
"$BIN" --port 7391 --shards 1 --save '' --enable-debug-command yes --dir "$tmp" --logfile "$tmp/r.log" & measure radish $! 7391
redis-server --port 7392 --save '' --appendonly no --enable-debug-command yes --dir "$tmp" >/dev/null & measure redis-server $! 7392
