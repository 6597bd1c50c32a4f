#!/usr/bin/env bash
# Radish benchmark harness: builds radish-server, go-ycsb and radish-bench,
# then compares radish-server with Debian's redis-server (and any peers).
#
#   bash benchmarks/run.sh                                   # full run
#   QUICK=1 bash benchmarks/run.sh                           # under 3 minutes
#   bash benchmarks/run.sh --peer valkey=/usr/bin/valkey-server
#   bash benchmarks/run.sh --only matrix,latency --runs 5    # see --help
#
# Results: benchmarks/results/<date>-<host>.{json,md,*.png}; see
# benchmarks/README.md for the method and how to read them.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
  apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null
fi
command -v taskset >/dev/null || { apt-get update -qq && apt-get install -y -qq util-linux >/dev/null; }

mkdir -p bin
go build -o bin/radish-server ./cmd/radish-server
# go-ycsb comes from its own module (benchmarks/ycsb) so that its many
# dependencies stay out of go.mod. The first build takes minutes; later ones
# are skipped until that module changes.
if [ ! -x bin/go-ycsb ] || [ benchmarks/ycsb/go.mod -nt bin/go-ycsb ] || [ benchmarks/ycsb/go.sum -nt bin/go-ycsb ]; then
  echo "building go-ycsb (first time: a few minutes)..." >&2
  (cd benchmarks/ycsb && CGO_ENABLED=0 go build -o ../../bin/go-ycsb github.com/pingcap/go-ycsb/cmd/go-ycsb)
fi
go build -o bin/radish-bench ./benchmarks/cmd/radish-bench

# Open files for 500 clients plus the servers' own.
ulimit -n 65536 2>/dev/null || true
exec bin/radish-bench "$@"
