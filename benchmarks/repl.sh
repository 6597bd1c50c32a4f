#!/usr/bin/env bash
# Replication, radish -> radish ($SHARDS shards each) against redis-server ->
# redis-server, same run, the two pairs alternated round by round:
#
#  - full sync: a primary holding N keys (DEBUG POPULATE N), an empty
#    replica; wall time from REPLICAOF to master_link_status:up with
#    master_sync_in_progress:0 on the replica (which then holds N keys);
#  - write throughput: redis-benchmark -t set -P 32 against the primary,
#    with no replica, then with the replica attached and in sync;
#  - replication lag under that load: cmd/repl-lag writes a sequence
#    number to the primary every 10 ms and reads it back on the replica in
#    a tight loop (p50, p99, max of the time from the SET to its sight).
#
#   bash benchmarks/repl.sh                       # 3 rounds, 10M keys
#   ROUNDS=1 N=200000 REQUESTS=200000 bash benchmarks/repl.sh   # a quick check
#   A=/path/to/radish-server SHARDS=4 bash benchmarks/repl.sh
#   PRIMARY_CPUS=0 REPLICA_CPUS=1 CLIENT_CPUS=1 bash benchmarks/repl.sh
#
# redis-server runs with repl-diskless-sync-delay 0 (its other settings
# are its defaults: a diskless sync, loaded on the replica from disk);
# radish with its defaults (a radish replica of radish takes its full sync
# on flows, one connection per primary shard). Without *_CPUS nothing is
# pinned: on a small machine the replica competes with the primary and
# the client for the same cores, which a real deployment does not.
# Prints one line per round and pair and a Markdown table of medians.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N=${N:-10000000}
SHARDS=${SHARDS:-2}
REQUESTS=${REQUESTS:-2000000}
KEYSPACE=${KEYSPACE:-1000000}
A=${A:-bin/radish-server}
REDIS=${REDIS:-redis-server}
IO=${IO:-uring}
PPORT=${PPORT:-17401}
RPORT=${RPORT:-17402}

command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null; }
[ "$A" != bin/radish-server ] || go build -o bin/radish-server ./cmd/radish-server
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/repl-lag" ./benchmarks/cmd/repl-lag

pin() { if [ -n "$1" ]; then echo taskset -c "$1"; fi; }

# start KIND PORT CPUS: starts radish or redis on PORT (its dir under
# $tmp), prints its pid.
start() {
  local kind=$1 port=$2 dir="$tmp/$2"
  if redis-cli -p "$port" ping >/dev/null 2>&1; then echo "port $port is taken" >&2; exit 1; fi
  rm -rf "$dir" && mkdir -p "$dir"
  # shellcheck disable=SC2046
  if [ "$kind" = redis ]; then
    $(pin "$3") "$REDIS" --port "$port" --save "" --appendonly no --dir "$dir" --logfile "$dir/log" \
      --enable-debug-command yes --repl-diskless-sync-delay 0 >/dev/null &
  else
    $(pin "$3") "$A" --port "$port" --shards "$SHARDS" --io "$IO" --save "" --dir "$dir" --logfile "$dir/log" \
      --enable-debug-command yes >/dev/null &
  fi
  local pid=$!
  for _ in $(seq 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && { echo "$pid"; return; }; sleep 0.05; done
  echo "$kind on $port did not start" >&2; exit 1
}
# stop PID: stops a server and waits until it is gone (start runs it in
# a subshell: it is no child of this shell, which wait would need).
stop() {
  kill "$1" 2>/dev/null || true
  while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}

# synced: whether the replica's link is up with no sync in progress.
synced() {
  local info
  info=$(redis-cli -p "$RPORT" INFO replication 2>/dev/null | tr -d '\r')
  grep -qx 'master_link_status:up' <<<"$info" && grep -qx 'master_sync_in_progress:0' <<<"$info"
}

# bench PORT: redis-benchmark SET -P 32's requests per second.
bench() {
  # shellcheck disable=SC2046
  $(pin "${CLIENT_CPUS:-}") redis-benchmark -p "$1" -t set -P 32 -c 50 -n "$REQUESTS" -r "$KEYSPACE" --csv -q |
    tail -1 | cut -d, -f2 | tr -d '"'
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  order="radish redis"; (( round % 2 )) || order="redis radish"
  for kind in $order; do
    p=$(start "$kind" "$PPORT" "${PRIMARY_CPUS:-}")
    redis-cli -p "$PPORT" DEBUG POPULATE "$N" >/dev/null
    none=$(bench "$PPORT")
    r=$(start "$kind" "$RPORT" "${REPLICA_CPUS:-}")
    t0=$(now_ms)
    redis-cli -p "$RPORT" REPLICAOF 127.0.0.1 "$PPORT" >/dev/null
    until synced; do sleep 0.01; done
    sync_ms=$(( $(now_ms) - t0 ))
    got=$(redis-cli -p "$RPORT" DBSIZE)
    want=$(redis-cli -p "$PPORT" DBSIZE)
    if [ "$got" != "$want" ]; then echo "$kind: the replica holds $got keys after its full sync, the primary $want" >&2; exit 1; fi
    rm -f "$tmp/lagctl" && mkfifo "$tmp/lagctl"
    # shellcheck disable=SC2046
    $(pin "${CLIENT_CPUS:-}") "$tmp/repl-lag" -primary "127.0.0.1:$PPORT" -replica "127.0.0.1:$RPORT" -stdin \
      <"$tmp/lagctl" >"$tmp/lag" &
    lag_pid=$!
    exec 3>"$tmp/lagctl"
    with=$(bench "$PPORT")
    exec 3>&-
    wait "$lag_pid"
    read -r samples p50 p99 lmax <"$tmp/lag"
    stop "$r"
    stop "$p"
    line="$kind $round $sync_ms $none $with $p50 $p99 $lmax $samples"
    echo "$line"
    echo "$line" >>"$results"
  done
done

median() { sort -g | awk '{a[NR]=$1} END{if (NR==0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -v k="$1" -v c="$2" '$1==k {print $c}' "$results" | median; }
echo
echo "Replication, $N keys, radish $SHARDS+$SHARDS shards, $ROUNDS rounds (medians)"
echo
echo "| pair | full sync (ms) | SET -P 32, no replica (rps) | with a replica (rps) | ratio | lag p50 (ms) | lag p99 (ms) | lag max (ms) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for kind in radish redis; do
  s=$(col "$kind" 3) a=$(col "$kind" 4) b=$(col "$kind" 5)
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN{ if (a > 0) printf "%.2f", b/a; else print "n/a" }')
  echo "| $kind -> $kind | $s | $a | $b | $ratio | $(col "$kind" 6) | $(col "$kind" 7) | $(col "$kind" 8) |"
done
rs=$(col radish 3) ds=$(col redis 3)
awk -v r="$rs" -v d="$ds" 'BEGIN{ if (r > 0) printf "\nfull sync: radish %.2fx as fast as redis-server\n", d/r }'
