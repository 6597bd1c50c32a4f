#!/usr/bin/env bash
# The scrape's own latency: GET /metrics on a radish-server with SHARDS
# shards, while it holds no client and while it holds CONNS idle ones.
#
#   A=bin/radish-server bash benchmarks/scrape.sh
#   A=bin/radish-server SHARDS=16 CONNS=10000 SCRAPES=50 bash benchmarks/scrape.sh
#
# On a machine with fewer CPUs than SHARDS the shards share them; a scrape
# reads the counters the shards publish each turn, so it waits for no
# shard either way.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path to a radish-server}"
SHARDS=${SHARDS:-16}
CONNS=${CONNS:-10000}
SCRAPES=${SCRAPES:-50}
PORT=${PORT:-17393}
MPORT=${MPORT:-17394}

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
ulimit -n $((CONNS + 1024))
go build -o "$tmp/scrape-bench" ./benchmarks/cmd/scrape-bench
"$A" --port "$PORT" --shards "$SHARDS" --metrics-port "$MPORT" --save '' --maxclients $((CONNS + 100)) \
  --dir "$tmp" --logfile "$tmp/log" &
for _ in $(seq 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
for n in 0 "$CONNS"; do
  "$tmp/scrape-bench" -addr "127.0.0.1:$PORT" -metrics "http://127.0.0.1:$MPORT/metrics" -conns "$n" -scrapes "$SCRAPES" |
    sed "s/^/shards=$SHARDS /"
done
