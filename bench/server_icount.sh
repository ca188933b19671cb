#!/usr/bin/env bash
# What each network server does per request, counted rather than timed, so
# it holds on a busy machine: user-space instructions (valgrind callgrind)
# and system calls (strace -c), each as (count(N2) - count(N1)) / (N2 - N1)
# over two runs of a fixed number of requests (`loadgen --requests`), which
# cancels start-up and connection set-up.
#
#   bench/server_icount.sh                      # every server, http and ws, C = 16 and 64
#   SERVERS="typed-rpc floor" TRANSPORTS=ws CONNS=16 bench/server_icount.sh
#   TOOL=strace bench/server_icount.sh          # syscalls only (TOOL=callgrind: instructions only)
#   NOTIFY=10 SERVERS=typed-rpc TRANSPORTS=ws bench/server_icount.sh   # 10 notifications per request
#   SERVER_BIN=/some/dir bench/server_icount.sh  # servers built elsewhere (an older commit), no build
#
# With NOTIFY=K each request follows K notifications in the same write
# (`loadgen --notify`, WebSocket only): the count per request minus the
# count without them, over K, is the server's count per notification.
#
# Under either tool the server is the bottleneck, so every connection always
# has a request waiting: the counts are those of a saturated server.
set -euo pipefail
cd "$(dirname "$0")"
# SERVER_BIN names a directory of servers built elsewhere: nothing is built
# (the load generator is the one in target/release).
bin=${SERVER_BIN:-target/release}
[ -n "${SERVER_BIN:-}" ] || cargo build --release --quiet --bins
notify=()
[ -n "${NOTIFY:-}" ] && notify=(--notify "$NOTIFY")
n1=${N1:-2000}; n2=${N2:-12000}
servers=(${SERVERS:-floor jsonrpsee typed-rpc})
transports=(${TRANSPORTS:-http ws})
conns=(${CONNS:-16 64})
tools=(${TOOL:-callgrind strace})
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# server name -> command line and URLs
cmd() {
  case $1 in
    floor) echo "$bin/server_floor --http 127.0.0.1:9101 --ws 127.0.0.1:9102" ;;
    jsonrpsee) echo "$bin/server_jsonrpsee --addr 127.0.0.1:9201" ;;
    typed-rpc) echo "$bin/server_ours --addr 127.0.0.1:9301" ;;
  esac
}
url() {
  case $1-$2 in
    floor-http) echo http://127.0.0.1:9101/ ;; floor-ws) echo ws://127.0.0.1:9102/ ;;
    jsonrpsee-http) echo http://127.0.0.1:9201/ ;; jsonrpsee-ws) echo ws://127.0.0.1:9201/ ;;
    typed-rpc-http) echo http://127.0.0.1:9301/ ;; typed-rpc-ws) echo ws://127.0.0.1:9301/ ;;
  esac
}

# count TOOL SERVER URL C N: the tool's total for a server that answered N requests.
count() {
  local tool=$1 server=$2 url=$3 c=$4 n=$5 log=$out/log pid
  rm -f "$log"
  case $tool in
    callgrind) taskset -c 0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
                 --log-file="$log" $(cmd "$server") & ;;
    strace) taskset -c 0 strace -f -c -o "$log" $(cmd "$server") >/dev/null & ;;
  esac
  pid=$!
  local addr=${url#*://}; addr=${addr%/}
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null && break
    sleep 0.1
  done
  taskset -c 1 target/release/loadgen --url "$url" -c "$c" --requests "$n" "${notify[@]}" | grep -q 'errors=0$' \
    || echo "# $server $url C=$c: errors" >&2
  sleep 0.5
  # valgrind runs the server in its own process; strace's server is its child,
  # and strace writes its summary once that child ends.
  case $tool in
    callgrind) kill -TERM "$pid" ;;
    strace) kill -TERM $(pgrep -P "$pid") ;;
  esac
  wait "$pid" 2>/dev/null || true
  case $tool in
    callgrind) sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" ;;
    strace) awk '$NF == "total" { print $(NF-2) } ' "$log" ;;
  esac
}

printf '%-10s %-5s %4s %-10s %12s\n' server trans C tool per-request
for server in "${servers[@]}"; do
  for transport in "${transports[@]}"; do
    for c in "${conns[@]}"; do
      for tool in "${tools[@]}"; do
        u=$(url "$server" "$transport")
        a=$(count "$tool" "$server" "$u" "$c" "$n1")
        b=$(count "$tool" "$server" "$u" "$c" "$n2")
        per=$(awk -v a="$a" -v b="$b" -v n=$((n2 - n1)) 'BEGIN { printf "%.1f", (b - a) / n }')
        printf '%-10s %-5s %4s %-10s %12s\n' "$server" "$transport" "$c" "$tool" "$per"
      done
    done
  done
done
