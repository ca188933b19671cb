#!/usr/bin/env bash
# What each Tally language server (lsp/: typed-rpc, tower-lsp-server,
# async-lsp) does per round of the LSP mix (one didChange, one hover, one
# completion over stdio), counted rather than timed, so it holds on a busy
# machine: user-space instructions (valgrind callgrind) as
# (count(N2) - count(N1)) / (N2 - N1) over two sessions of lsp_load, which
# cancels start-up, initialize and the document's opening.
#
#   bench/lsp_icount.sh                       # all three, N1=200 N2=600 rounds (about 10 minutes)
#   SERVERS="typed-rpc async-lsp" N2=5000 bench/lsp_icount.sh
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet -p typed-rpc-bench-lsp --bins
n1=${N1:-200}; n2=${N2:-600}
servers=(${SERVERS:-typed-rpc tower-lsp-server async-lsp})
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

binary() {
  case $1 in
    typed-rpc) echo "$PWD/target/release/lsp_typed_rpc" ;;
    tower-lsp-server) echo "$PWD/target/release/lsp_tower" ;;
    async-lsp) echo "$PWD/target/release/lsp_async" ;;
  esac
}

# count SERVER N: the server's instructions over a session of N rounds.
count() {
  local log=$out/log wrapper=$out/server
  rm -f "$log"
  # lsp_load starts the server itself: it starts this wrapper instead.
  printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file=%s %s "$@"\n' \
    "$log" "$(binary "$1")" >"$wrapper"
  chmod +x "$wrapper"
  target/release/lsp_load --runs 1 --warmup 0 --rounds "$2" "$1=$wrapper" >/dev/null
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log"
}

printf '%-17s %16s\n' server instr/round
for server in "${servers[@]}"; do
  a=$(count "$server" "$n1")
  b=$(count "$server" "$n2")
  per=$(awk -v a="$a" -v b="$b" -v n=$((n2 - n1)) 'BEGIN { printf "%.0f", (b - a) / n }')
  printf '%-17s %16s\n' "$server" "$per"
done
