#!/usr/bin/env bash
# Radish vs redis-server over TLS, one core each, same run, servers
# alternated: redis-benchmark --tls, pipelined (-P 32) and not (-P 1).
#
#   bash benchmarks/tls.sh                  # 5 rounds, 2M requests per pipelined test
#   ROUNDS=3 N=500000 bash benchmarks/tls.sh
#   TESTS="set get" WORKLOADS=P32 IO=epoll bash benchmarks/tls.sh
#
# A throwaway CA and server certificate (openssl, ECDSA P-256) are made in
# a temporary directory; both servers listen on TLS only (port 0) with
# tls-auth-clients no, so redis-benchmark needs only --cacert. Server on
# CPU $SERVER_CPU, redis-benchmark on CPU $CLIENT_CPU (taskset). Prints
# per-run lines and a Markdown table of medians: throughput, server CPU
# microseconds per request (its threads' schedstat, benchmarks/cpu.sh), p99 latency.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
N=${N:-2000000}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
RADISH_PORT=${RADISH_PORT:-7390}
REDIS_PORT=${REDIS_PORT:-7389}
IO=${IO:-uring}
TESTS=${TESTS:-set get}
WORKLOADS=${WORKLOADS:-P32 P1}
KEYSPACE=${KEYSPACE:-1000000}

command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null; }
go build -o bin/radish-server ./cmd/radish-server
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.crt" \
  -days 1 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/server.key" -out "$tmp/server.csr" \
  -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tmp/san.ext"
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
  -out "$tmp/server.crt" -days 1 -extfile "$tmp/san.ext" 2>/dev/null
tls_args() {
  echo --port 0 --tls-port "$1" --tls-cert-file "$tmp/server.crt" --tls-key-file "$tmp/server.key" \
    --tls-ca-cert-file "$tmp/ca.crt" --tls-auth-clients no
}
cli_tls=(--tls --cacert "$tmp/ca.crt" -h 127.0.0.1)

# shellcheck disable=SC2046
taskset -c "$SERVER_CPU" redis-server $(tls_args "$REDIS_PORT") --save '' --appendonly no --dir "$tmp" >/dev/null &
redis_pid=$!
# shellcheck disable=SC2046
taskset -c "$SERVER_CPU" ./bin/radish-server $(tls_args "$RADISH_PORT") --shards 1 --io "$IO" --save '' \
  --dir "$tmp" --logfile "$tmp/radish.log" &
radish_pid=$!
for p in "$REDIS_PORT" "$RADISH_PORT"; do
  for _ in $(seq 100); do redis-cli "${cli_tls[@]}" -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

. benchmarks/cpu.sh

# run NAME PID PORT TEST ARGS... -> prints "name test rps us_per_req p99"
run() {
  local name=$1 pid=$2 port=$3 test=$4; shift 4
  local before after out rps p99 cpu total
  before=$(cpu_ns "$pid")
  out=$(taskset -c "$CLIENT_CPU" redis-benchmark "${cli_tls[@]}" -p "$port" -t "$test" --csv -q "$@" | tail -1)
  after=$(cpu_ns "$pid")
  rps=$(echo "$out" | cut -d, -f2 | tr -d '"')
  p99=$(echo "$out" | cut -d, -f7 | tr -d '"')
  total=$(printf '%s ' "$@" | grep -o -- '-n [0-9]*' | awk '{print $2}')
  cpu=$(awk -v t=$((after - before)) -v n="$total" 'BEGIN{printf "%.3f", t/1e3/n}')
  echo "$name $test $rps $cpu $p99"
}

results="$tmp/results"
: >"$results"
for round in $(seq "$ROUNDS"); do
  for cfg in "P32:-n $N -r $KEYSPACE -c 50 -P 32" "P1:-n $((N / 4)) -r $KEYSPACE -c 50 -P 1"; do
    label=${cfg%%:*}; args=${cfg#*:}
    [[ " $WORKLOADS " == *" $label "* ]] || continue
    # Alternate which server goes first, round by round.
    if (( round % 2 )); then order="redis radish"; else order="radish redis"; fi
    for srv in $order; do
      for t in $TESTS; do
        # shellcheck disable=SC2086
        if [ "$srv" = redis ]; then line=$(run redis $redis_pid $REDIS_PORT $t $args); else line=$(run radish $radish_pid $RADISH_PORT $t $args); fi
        echo "$round $label $line" | tee -a "$results"
      done
    done
  done
done

echo
echo "| workload | test | redis krps | radish krps | ratio | redis µs CPU/req | radish µs CPU/req | redis p99 ms | radish p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for label in $WORKLOADS; do
  for t in $TESTS; do
    med() { grep " $label $1 $t " "$results" | awk -v c="$2" '{print $c}' | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
    rr=$(med redis 5); ar=$(med radish 5); rc=$(med redis 6); ac=$(med radish 6); rp=$(med redis 7); ap=$(med radish 7)
    awk -v l="$label" -v t="$t" -v rr="$rr" -v ar="$ar" -v rc="$rc" -v ac="$ac" -v rp="$rp" -v ap="$ap" \
      'BEGIN{printf "| %s | %s | %.0f | %.0f | %.2fx | %.2f | %.2f | %s | %s |\n", l, t, rr/1000, ar/1000, ar/rr, rc, ac, rp, ap}'
  done
done
echo
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, kernel $(uname -r); rounds=$ROUNDS n=$N io=$IO keyspace=$KEYSPACE (TLS)"
