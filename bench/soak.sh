#!/usr/bin/env bash
# Sustained load (issue 5): C keep-alive connections (default 64) for S
# seconds (default 60) against typed-rpc's server, over HTTP and then over
# WebSocket, each reply checked by the load generator; the server's resident
# memory sampled every second. Prints, per transport: requests, errors, and
# RSS at the start, after 10 s, at the end and at its highest, so one can
# see that nothing failed and that memory stopped growing once warm.
#
#   bench/soak.sh                 # 64 connections, 60 s each
#   CONNS=16 SECS=20 bench/soak.sh
#
# Server on CPU 0, load generator on CPU 1 (taskset), as in the load table.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet --bin server_ours --bin loadgen
conns=${CONNS:-64}; secs=${SECS:-60}
addr=127.0.0.1:9301
out=$(mktemp)

taskset -c 0 target/release/server_ours --addr "$addr" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null && break
  sleep 0.1
done

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$server/status"; }

printf '%-9s %4s %6s %10s %7s %8s %11s %11s %11s %11s\n' transport C secs requests errors \
  req/s "RSS start" "RSS 10 s" "RSS end" "RSS max"
for transport in http ws; do
  samples=()
  taskset -c 1 target/release/loadgen --url "$transport://$addr/" -c "$conns" -d "$secs" \
    --warmup 1 >"$out" &
  loadgen=$!
  while kill -0 "$loadgen" 2>/dev/null; do
    samples+=("$(rss_kib)")
    sleep 1
  done
  wait "$loadgen"
  result=$(grep '^RESULT' "$out")
  field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $result"; }
  max=$(printf '%s\n' "${samples[@]}" | sort -n | tail -1)
  tenth=${samples[10]:-${samples[-1]}}
  printf '%-9s %4s %6s %10s %7s %8s %7s KiB %7s KiB %7s KiB %7s KiB\n' "$transport" "$conns" \
    "$secs" "$(field requests)" "$(field errors)" "$(field rps)" \
    "${samples[0]}" "$tenth" "${samples[-1]}" "$max"
done
