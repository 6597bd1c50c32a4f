#!/usr/bin/env bash
# Exact instructions per request of radish-server (callgrind), for a change
# too small for this noisy machine's wall clock: the server runs under
# valgrind (one shard unless SHARDS says, --io epoll, no async preemption),
# the keyspace is filled first, then the counters are zeroed, N requests of
# each test run, and the instructions collected over them are divided by
# N: those of every thread (the shard's, the Go runtime's: sysmon, the
# scheduler, GC) and those of the busiest thread alone (the shard's, with
# less of the runtime's noise), each line "binary test all shard".
#
#   BINS="/tmp/old /tmp/new" bash benchmarks/callgrind.sh
#   TESTS="get-P32 get-P1" N=100000 BINS="bin/radish-server" bash benchmarks/callgrind.sh
#   SHARDS=2 TESTS="mset10-P1 mget10-P1" N=20000 BINS=... bash benchmarks/callgrind.sh
#
# Tests: set-P32 get-P32 set-P1 get-P1 mset10-P1 mget10-P1 (redis-benchmark
# -c 50, keys from a KEYSPACE of 100000; MSET/MGET of 10 random keys).
# SIM=1 turns on callgrind's cache and branch simulation (--cache-sim=yes
# --branch-sim=yes, slower) and adds, per request over all threads, the
# first-level instruction misses, data read and write misses, the
# last-level data misses and the mispredicted conditional and indirect
# branches: "... I1mr D1mr D1mw DLm Bcm Bim" (misses in the simulated
# caches, sized as the host's, not the machine's own counters).
# LINES=1 adds, for the busiest thread, its code footprint: the distinct
# 64-byte lines of code run in the functions called at least once per
# pipeline (N/P times, P the test's pipeline depth), as "... lines KB"
# (callgrind --dump-instr=yes; steadier from run to run than the miss
# counts, which depend on how the pipelines interleave). The keyspace is
# filled with every key first (key:000000000000 ...), so a SET test
# replaces and never inserts, the same in every run.
# KEEP=DIR keeps each thread's profile as DIR/<binary name>-<test>.cg-NN, for
# callgrind_annotate --inclusive=yes. A binary that lacks a flag given here
# is wrapped by the caller.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BINS:?BINS=radish-server binaries}"
TESTS=${TESTS:-set-P32 get-P32 set-P1 get-P1}
N=${N:-100000}
SHARDS=${SHARDS:-1}
KEYSPACE=${KEYSPACE:-100000}
PORT=${PORT:-17391}
vgsim=()
if [ -n "${SIM:-}" ]; then vgsim=(--cache-sim=yes --branch-sim=yes); fi
if [ -n "${LINES:-}" ]; then vgsim+=(--dump-instr=yes --compress-pos=no --compress-strings=no); fi

# footprint FILE MIN: the 64-byte code lines that a callgrind profile
# (taken with --dump-instr=yes --compress-pos=no --compress-strings=no)
# shows run in the functions called at least MIN times, and their KB.
footprint() {
  python3 - "$1" "$2" <<'PY'
import sys, collections
fn, cfn, skip = "", "", False
calls, lines = collections.Counter(), collections.defaultdict(set)
for line in open(sys.argv[1]):
    if line.startswith("fn="):
        fn = line[3:].strip()
    elif line.startswith("cfn="):
        cfn = line[4:].strip()
    elif line.startswith("calls="):
        calls[cfn] += int(line.split()[0][6:])
        skip = True  # the next cost line is the call's, inclusive
    elif line.startswith("0x"):
        if not skip:
            lines[fn].add(int(line.split()[0], 16) >> 6)
        skip = False
hot = set()
for f, ls in lines.items():
    if calls[f] >= float(sys.argv[2]):
        hot |= ls
print(len(hot), round(len(hot) * 64 / 1024, 1))
PY
}

# fill: SET every key of the keyspace, as redis-benchmark -r names them.
fill() {
  awk -v n="$KEYSPACE" 'BEGIN { for (i = 0; i < n; i++) { k = sprintf("key:%012d", i)
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nxxx\r\n", length(k), k } }' |
    redis-cli -p "$PORT" --pipe >/dev/null
}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

keys10() { local s=""; for _ in $(seq 10); do s+=" k:__rand_int__"; done; echo "$s"; }
msetargs() { local s=""; for _ in $(seq 10); do s+=" k:__rand_int__ v"; done; echo "$s"; }

# load TEST N: the redis-benchmark run of TEST.
load() {
  local p=${1##*-P} rb=(redis-benchmark -p "$PORT" -c 50 -r "$KEYSPACE" -n "$2" -q)
  case $1 in
    set-*) "${rb[@]}" -P "$p" -t set ;;
    get-*) "${rb[@]}" -P "$p" -t get ;;
    # shellcheck disable=SC2046
    mset10-*) "${rb[@]}" -P "$p" MSET $(msetargs) ;;
    # shellcheck disable=SC2046
    mget10-*) "${rb[@]}" -P "$p" MGET $(keys10) ;;
  esac >/dev/null
}

for bin in $BINS; do
  for t in $TESTS; do
    out=$tmp/cg.out
    GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind "${vgsim[@]}" --separate-threads=yes --callgrind-out-file="$out" \
      "$bin" --port "$PORT" --shards "$SHARDS" --io epoll --save '' --dir "$tmp" \
      --logfile "$tmp/log" >"$tmp/vg.log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
    fill
    redis-benchmark -p "$PORT" -c 50 -r "$KEYSPACE" -n 2000 -P 32 -q -t get >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    load "$t" "$N"
    callgrind_control -d "$pid" >/dev/null 2>&1
    kill "$pid"; wait "$pid" 2>/dev/null || true
    # One file per thread: $out.1-01, $out.1-02 ...
    # summary: Ir, and under SIM Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim.
    ir=$(cat "$out".1-* | awk '/^summary:/ {s += $2; if ($2 > m) m = $2
      i1 += $5; d1r += $6; d1w += $7; dl += $9 + $10; bcm += $12; bim += $14}
      END {print s, m, i1, d1r, d1w, dl, bcm, bim}')
    if [ -n "${KEEP:-}" ]; then
      for f in "$out".1-*; do cp "$f" "$KEEP/$(basename "$bin")-$t.cg${f##*.1}"; done
    fi
    fp=""
    if [ -n "${LINES:-}" ]; then
      busiest=$(for f in "$out".1-*; do echo "$(awk '/^summary:/ {print $2}' "$f") $f"; done | sort -n | tail -1 | cut -d' ' -f2)
      fp=$(footprint "$busiest" "$((N / ${t##*-P}))")
    fi
    rm -f "$out" "$out".*
    echo "$ir" | awk -v b="$bin" -v t="$t" -v n="$N" -v sim="${SIM:-}" -v fp="$fp" '{printf "%s %s %.0f %.0f", b, t, $1 / n, $2 / n}
      sim != "" {printf " %.2f %.2f %.2f %.2f %.2f %.2f", $3 / n, $4 / n, $5 / n, $6 / n, $7 / n, $8 / n}
      fp != "" {printf " %s", fp} {printf "\n"}'
  done
done
