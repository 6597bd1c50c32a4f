#!/usr/bin/env bash
# BGSAVE and start-up load of N keys: radish-server (--shards $SHARDS,
# fork-less snapshots, per-shard files) vs redis-server (forks), same run,
# servers alternated round by round.
#
#   bash benchmarks/bgsave.sh                   # N=10000000, one round
#   N=200000 ROUNDS=1 bash benchmarks/bgsave.sh # a quick check
#   SERVER_CPUS=0-2 CLIENT_CPUS=3-5 bash benchmarks/bgsave.sh
#   RADISH=/tmp/radish-old N=2000000 bash benchmarks/bgsave.sh
#   SERVERS=radish RADISH=/tmp/radish-old bash benchmarks/bgsave.sh # no redis-server
#
# Each round, on each server, after DEBUG POPULATE N (key:<n> value:<n>):
#   1. BGSAVE alone: its wall time T (from BGSAVE to rdb_bgsave_in_progress:0,
#      polled every 20 ms).
#   2. GET latency: the load generator (benchmarks/internal/loadgen, CONNS
#      connections, pipeline 1, random keys of the N) for T + 0.2 s without a
#      save, then for as long again with a BGSAVE started 0.1 s into it (the
#      fork, for redis-server, inside the window): p50, p99, max. In both
#      windows the load generator itself polls INFO every 20 ms on one more
#      connection, and in the second sends the BGSAVE and times it (its
#      poll_every and bgsave_at): no process starts on the client's CPUs
#      while it measures (a redis-cli every 20 ms there took the load
#      generator's CPU and raised its p99 from 0.13-0.15 to 0.5-1.1 ms with
#      no save at all: benchmarks/HISTORY.md, "The fifteenth session's findings").
#   3. Memory under writes: SETs over the same keys (each a value of the
#      same size, so a write dirties a page the save still reads, as a fork's
#      copy-on-write copies it) from WRITE_CONNS connections, pipeline 16;
#      the server's memory sampled every 50 ms as Pss (smaps_rollup), for
#      redis-server its own plus its forked child's (what the two hold
#      together, shared pages counted once): the peak during the save over
#      the peak in the second before it.
#   4. Start-up: SAVE, SHUTDOWN NOSAVE, the same command again: time from
#      its start to the first PONG, the process's CPU time by then (all its
#      threads), keys per second and keys per CPU second (per core used).
# Prints per-round lines and a Markdown table of medians. Needs ~4x the
# dataset's memory free (both servers hold it; redis-server's child may
# copy it).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000000}
ROUNDS=${ROUNDS:-1}
SHARDS=${SHARDS:-2}
CONNS=${CONNS:-10}
WRITE_CONNS=${WRITE_CONNS:-4}
RADISH_PORT=${RADISH_PORT:-7380}
REDIS_PORT=${REDIS_PORT:-7379}
IO=${IO:-uring}
RADISH=${RADISH:-bin/radish-server} # another build: RADISH=/path/to/radish-server
SERVERS=${SERVERS:-both}             # or radish, or redis: that server alone

command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null; }
[ "$RADISH" != bin/radish-server ] || go build -o bin/radish-server ./cmd/radish-server
go build -o bin/radish-bench ./benchmarks/cmd/radish-bench
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/radish" "$tmp/redis"

# Prefixes pinning the servers and the load generator (taskset execs, so
# $! is the server's pid).
spin=() cpin=()
[ -z "${SERVER_CPUS:-}" ] || spin=(taskset -c "$SERVER_CPUS")
[ -z "${CLIENT_CPUS:-}" ] || cpin=(taskset -c "$CLIENT_CPUS")
now() { date +%s.%N; }
cli() { "${cpin[@]}" redis-cli -p "$1" "${@:2}" | tr -d '\r'; } # on the client's CPUs
info() { cli "$1" info persistence | awk -F: -v f="$2" '$1==f{print $2}'; }
field() { grep -o "\"$2\":[-0-9.e+]*" <<<"$1" | cut -d: -f2; } # JSON NAME
hz=$(getconf CLK_TCK)
cpu_s() { awk -v hz="$hz" '{printf "%.3f", ($14+$15)/hz}' "/proc/$1/stat"; }
# pss PID: Pss in kB of PID and of its children (redis-server's save child).
pss() {
  local total=0 p v
  for p in "$1" $(pgrep -P "$1" || true); do
    v=$(awk '$1=="Pss:"{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
    total=$((total + ${v:-0}))
  done
  echo "$total"
}

pid_radish='' pid_redis='' up=''
start() { # NAME: starts it on its port and waits for its first PONG; up is the seconds from exec to it
  local name=$1 t0 port pid
  t0=$(now)
  if [ "$name" = radish ]; then
    port=$RADISH_PORT
    "${spin[@]}" "$RADISH" --port "$port" --shards "$SHARDS" --io "$IO" --save '' \
      --appendonly no --enable-debug-command yes --dir "$tmp/radish" --logfile "$tmp/radish.log" >/dev/null 2>&1 &
    pid_radish=$! pid=$!
  else
    port=$REDIS_PORT
    "${spin[@]}" redis-server --port "$port" --save '' --appendonly no --enable-debug-command yes \
      --dir "$tmp/redis" --logfile "$tmp/redis.log" >/dev/null 2>&1 &
    pid_redis=$! pid=$!
  fi
  until [ "$(cli "$port" ping 2>/dev/null)" = PONG ]; do
    kill -0 "$pid" 2>/dev/null || { echo "$name exited at start; its log:" >&2; tail -5 "$tmp/$name.log" >&2; exit 1; }
    sleep 0.01
  done
  up=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}')
}
stop() { # NAME
  local pid port
  if [ "$1" = radish ]; then pid=$pid_radish port=$RADISH_PORT; else pid=$pid_redis port=$REDIS_PORT; fi
  cli "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
}
port_of() { if [ "$1" = radish ]; then echo "$RADISH_PORT"; else echo "$REDIS_PORT"; fi; }
pid_of() { if [ "$1" = radish ]; then echo "$pid_radish"; else echo "$pid_redis"; fi; }

# bgsave PORT: runs one BGSAVE, prints its wall time in seconds.
bgsave() {
  local t0 out
  t0=$(now)
  out=$(cli "$1" bgsave)
  case "$out" in *started*) ;; *) echo "BGSAVE on :$1 answered: $out" >&2; exit 1 ;; esac
  while [ "$(info "$1" rdb_bgsave_in_progress)" != 0 ]; do sleep 0.02; done
  [ "$(info "$1" rdb_last_bgsave_status)" = ok ] || { echo "BGSAVE on :$1 failed" >&2; exit 1; }
  awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}'
}
# load PORT SETPCT CONNS PIPELINE SECONDS [POLL [BGSAVE_AT]]: a loadgen run,
# its JSON result; with POLL=poll it polls INFO every 20 ms, and sends a
# BGSAVE BGSAVE_AT seconds in and times it (save_seconds). (%.0f: mawk's
# %d stops at 2^31.)
load() {
  local ns extra=''
  ns=$(awk -v s="$5" 'BEGIN{printf "%.0f", s*1e9}')
  [ "${6:-}" != poll ] || extra=',"poll_every":20000000'
  [ -z "${7:-}" ] || extra="$extra,\"bgsave_at\":$(awk -v s="$7" 'BEGIN{printf "%.0f", s*1e9}')"
  "${cpin[@]}" ./bin/radish-bench gen "{\"addr\":\"127.0.0.1:$1\",\"conns\":$3,\"pipeline\":$4,\"keys\":$N,\"set_pct\":$2,\"duration\":$ns,\"seed\":1$extra}"
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  if (( round % 2 )); then order="radish redis"; else order="redis radish"; fi
  [ "$SERVERS" = both ] || order=$SERVERS
  for srv in $order; do
    start "$srv"
    port=$(port_of "$srv") pid=$(pid_of "$srv")
    cli "$port" debug populate "$N" >/dev/null
    keys=$(cli "$port" dbsize)

    # 1. BGSAVE alone.
    T=$(bgsave "$port")

    # 2. GET latency without and during a save.
    win=$(awk -v t="$T" 'BEGIN{printf "%.3f", t+0.2}')
    quiet=$(load "$port" 0 "$CONNS" 1 "$win" poll)
    during=$(load "$port" 0 "$CONNS" 1 "$win" poll 0.1)
    T2=$(field "$during" save_seconds)

    # 3. Memory under writes, before and during a save.
    wlen=$(awk -v t="$T" 'BEGIN{printf "%.3f", 1+3*t+1}')
    load "$port" 100 "$WRITE_CONNS" 16 "$wlen" >"$tmp/writes" &
    lg=$!
    sleep 0.2
    base=0
    end=$(awk -v a="$(now)" 'BEGIN{printf "%.3f", a+1}')
    while awk -v a="$(now)" -v e="$end" 'BEGIN{exit !(a<e)}'; do
      m=$(pss "$pid"); (( m > base )) && base=$m; sleep 0.05
    done
    cli "$port" bgsave >/dev/null
    peak=0
    while :; do
      m=$(pss "$pid"); (( m > peak )) && peak=$m
      [ "$(info "$port" rdb_bgsave_in_progress)" = 0 ] && break
      sleep 0.05
    done
    [ "$(info "$port" rdb_last_bgsave_status)" = ok ] || { echo "BGSAVE under writes on :$port failed" >&2; exit 1; }
    wait "$lg"

    # 4. Start-up from the snapshot.
    cli "$port" save >/dev/null
    stop "$srv"
    start "$srv"
    pid=$(pid_of "$srv")
    cpu=$(cpu_s "$pid")
    loaded=$(cli "$port" dbsize)
    [ "$loaded" = "$keys" ] || { echo "$srv loaded $loaded keys of $keys" >&2; exit 1; }
    stop "$srv"
    rm -rf "${tmp:?}/$srv"/*

    # round server keys bgsave_s bgsave_under_get_s p99_quiet p99_save max_quiet max_save base_mb peak_mb growth_pct startup_s keys_per_s keys_per_cpu_s
    awk -v r="$round" -v s="$srv" -v k="$keys" -v t="$T" -v t2="$T2" \
      -v pq="$(field "$quiet" p99_ms)" -v ps="$(field "$during" p99_ms)" \
      -v mq="$(field "$quiet" max_ms)" -v ms="$(field "$during" max_ms)" \
      -v b="$base" -v p="$peak" -v u="$up" -v c="$cpu" \
      'BEGIN{printf "%d %s %d %.3f %.3f %.3f %.3f %.3f %.3f %.1f %.1f %.1f %.3f %.0f %.0f\n",
        r, s, k, t, t2, pq, ps, mq, ms, b/1024, p/1024, (p-b)*100/b, u, k/u, (c>0 ? k/c : 0)}' | tee -a "$results"
  done
done

echo
echo "| server | keys | BGSAVE s | GET p99 ms, no save | GET p99 ms, during save | p99 ratio | GET max ms, no save / during | Pss MB before | peak MB during save | growth | start-up s | keys/s | keys per CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
servers="radish redis"; [ "$SERVERS" = both ] || servers=$SERVERS
for srv in $servers; do
  med() { awk -v s="$srv" -v c="$1" '$2==s{print $c}' "$results" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
  name=$srv; [ "$srv" = radish ] && name="radish ($SHARDS shards)"; [ "$srv" = redis ] && name=redis-server
  awk -v n="$name" -v k="$(med 3)" -v t="$(med 4)" -v pq="$(med 6)" -v ps="$(med 7)" -v mq="$(med 8)" -v ms="$(med 9)" \
    -v b="$(med 10)" -v p="$(med 11)" -v g="$(med 12)" -v u="$(med 13)" -v kps="$(med 14)" -v kpc="$(med 15)" \
    'BEGIN{printf "| %s | %d | %.2f | %.3f | %.3f | %.2fx | %.1f / %.1f | %.0f | %.0f | %+.1f%% | %.2f | %.0f | %.0f |\n",
      n, k, t, pq, ps, (pq>0 ? ps/pq : 0), mq, ms, b, p, g, u, kps, kpc}'
done
echo
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, kernel $(uname -r); n=$N rounds=$ROUNDS shards=$SHARDS conns=$CONNS write_conns=$WRITE_CONNS io=$IO server_cpus=${SERVER_CPUS:-any} client_cpus=${CLIENT_CPUS:-any}"
