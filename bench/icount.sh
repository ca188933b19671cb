#!/usr/bin/env bash
# Instructions per call of each in-process case and column, counted by
# callgrind: (Ir(N2) - Ir(N1)) / (N2 - N1). Stable on a busy machine.
# Usage: bench/icount.sh [case ...]
#        ICOUNT=/some/dir/icount bench/icount.sh   # built elsewhere (an older commit), no build
set -euo pipefail
cd "$(dirname "$0")"
bin=${ICOUNT:-target/release/icount}
[ -n "${ICOUNT:-}" ] || cargo build --release --quiet --bin icount
n1=1000; n2=11000
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(add_positional add_named add_struct invalid_params batch_add_100 notification)
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-16s %10s %10s %10s %9s\n' case ours jsonrpsee floor ours/floor
for case in "${cases[@]}"; do
  row=()
  for col in ours jsonrpsee floor; do
    if [ "$col" = jsonrpsee ] && { [ "$case" = batch_add_100 ] || [ "$case" = notification ]; }; then
      row+=("-"); continue
    fi
    a=$(ir "$case" "$col" $n1); b=$(ir "$case" "$col" $n2)
    row+=("$(( (b - a) / (n2 - n1) ))")
  done
  ratio=$(awk -v o="${row[0]}" -v f="${row[2]}" 'BEGIN { printf "%.2f", o / f }')
  printf '%-16s %10s %10s %10s %9s\n' "$case" "${row[0]}" "${row[1]}" "${row[2]}" "$ratio"
done
