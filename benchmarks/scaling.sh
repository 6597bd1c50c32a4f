#!/usr/bin/env bash
# The scaling curve: radish-server at 1, 2, 4, ... shards pinned to the
# first cores, the Go load generator (radish-bench gen) on the others; GET,
# SET and a 90/10 GET/SET mix over 1M keys at -P 1 and -P 32; the same with
# valkey-server --io-threads 1..8 and redis-server when given. Server and
# client CPU per request beside each point, the model's prediction beside
# radish's, and a perf profile of radish at its largest shard count where
# perf is installed. Fits 7 minutes on 16 cores (3 runs of 2 s per point).
#
#   bash benchmarks/scaling.sh                                  # build, then run
#   bash benchmarks/scaling.sh --valkey /opt/valkey-server --redis /usr/bin/redis-server
#   bash benchmarks/scaling.sh --build-only                     # build bin/ to carry
#   bash benchmarks/scaling.sh --prebuilt --valkey bin/valkey-server   # no Go, no network
#   bash benchmarks/scaling.sh --runs 5 --max-shards 12 --budget 10m --costs get:1:6.6:5.3,...
#
# Everything it runs is built before it starts (static binaries, CGO off),
# so a machine without network needs only bin/radish-server,
# bin/radish-bench, bin/radish-server.commit and taskset (util-linux).
# Flags other than --build-only, --prebuilt and --redis go to radish-bench
# (see bin/radish-bench --help). Results: benchmarks/results/<date>-<host>
# .json, .md and -curve.png; see benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1 run=1 redis="" args=()
while (( $# )); do
  case $1 in
    --build-only) run=0 ;;
    --prebuilt) build=0 ;;
    --redis) redis=$2; shift ;;
    --redis=*) redis=${1#--redis=} ;;
    *) args+=("$1") ;;
  esac
  shift
done

if (( build )); then
  mkdir -p bin
  CGO_ENABLED=0 go build -trimpath -o bin/radish-server ./cmd/radish-server
  CGO_ENABLED=0 go build -trimpath -o bin/radish-bench ./benchmarks/cmd/radish-bench
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit+="+changes"
  echo "$commit" >bin/radish-server.commit
  echo "built bin/radish-server and bin/radish-bench (static) from $commit" >&2
fi
for f in bin/radish-server bin/radish-bench; do
  [ -x "$f" ] || { echo "$f is missing: run without --prebuilt where Go is installed" >&2; exit 1; }
done
command -v taskset >/dev/null || { echo "taskset (util-linux) is missing" >&2; exit 1; }
(( run )) || exit 0

if [ -n "$redis" ]; then args+=(--redis "$redis"); else args+=(--no-redis); fi
# Open files for up to 1000 connections per server.
ulimit -n 65536 2>/dev/null || true
exec bin/radish-bench --only scaling --commit "$(cat bin/radish-server.commit 2>/dev/null || echo unknown)" "${args[@]}"
