#!/usr/bin/env bash
# What a two-way connection does per message that is neither a request nor
# a response, counted by callgrind: (Ir(N2) - Ir(N1)) / (N2 - N1) of
# `conn_icount` (see its header): notifications and cancel notices to a
# server, subscription items to a client. Stable on a busy machine.
#
#   bench/conn_icount.sh [case ...]          # notify cancel items
#   CONN_ICOUNT=/some/dir/conn_icount bench/conn_icount.sh   # built elsewhere, no build
set -euo pipefail
cd "$(dirname "$0")"
bin=${CONN_ICOUNT:-target/release/conn_icount}
[ -n "${CONN_ICOUNT:-}" ] || cargo build --release --quiet --bin conn_icount
n1=${N1:-1000}; n2=${N2:-11000}
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(notify cancel items)
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-8s %12s\n' case per-message
for case in "${cases[@]}"; do
  a=$(ir "$case" $n1); b=$(ir "$case" $n2)
  printf '%-8s %12s\n' "$case" "$(( (b - a) / (n2 - n1) ))"
done
