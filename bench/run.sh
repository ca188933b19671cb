#!/usr/bin/env bash
# All the benchmarks of issue 4, from the repository root or anywhere:
#
#   bench/run.sh             network load table (floor, jsonrpsee, typed-rpc)
#   bench/run.sh inprocess   in-process dispatch, RUNS criterion runs (default 5), medians
#   bench/run.sh icount      in-process instructions per call (callgrind)
#   bench/run.sh compile     compile cost of a 50-method API
#   bench/run.sh all         all four
#   bench/run.sh soak        sustained load on typed-rpc (soak.sh; CONNS, SECS)
#   bench/run.sh paired      CPU per request, each server timed beside the floor (root)
#   bench/run.sh stream      streams: items/s and server CPU per item (SSE, WebSocket)
#   bench/run.sh eth         eth-node: batches of 100 eth_getBalance and newHeads fan-out
#                            to 1 000 subscribers, typed-rpc against jsonrpsee (eth_bench)
#   bench/run.sh a2a         A2A: text-agent against the Python SDK's reference server
#                            (SendMessage + GetTask, a 100-event stream, --runs times;
#                            a 1 MB streamed upper, --big times; a2a_bench)
#   bench/run.sh a2a-stores  A2A task stores (memory, SQLite, PostgreSQL): cost per write against
#                            the Python SDK's InMemoryTaskStore and DatabaseTaskStore
#                            (a2a-stores/; --duration, --workers, --runs)
#   bench/run.sh a2a-replicas  A2A: text-agent replicas on one PostgreSQL behind nginx:
#                            SendMessage + GetTask rounds/s with 1 and 2 replicas and the
#                            CPU each process took, events/s through a cross-replica
#                            subscription (a2a-stores/src/replicas.rs; --duration,
#                            --warmup, --conns, --stream-conns, --runs)
#   bench/run.sh mcp         MCP: tools/call on typed-rpc-mcp, rmcp and the Python SDK,
#                            stdio and Streamable HTTP (mcp_bench; --duration, --no-python)
#   bench/run.sh lsp         LSP: the Tally language server on typed-rpc, tower-lsp-server
#                            and async-lsp, a didChange + hover + completion mix over
#                            stdio (lsp/, lsp_load: --runs, --rounds, --warmup, --window)
#   bench/run.sh lsp-icount  LSP: each of those servers' instructions per round of the mix
#                            (lsp_icount.sh, callgrind; SERVERS, N1, N2)
#
# Extra arguments after the mode go to the runner (network), to paired, to
# stream_bench (stream), to a2a_bench (a2a) or to criterion (inprocess), e.g. `bench/run.sh load --conns 1,64 --duration 3`.
# Needs: taskset (util-linux) for the network table, valgrind for icount.
# Run with nothing else of yours busy: the machine has 2 cores, and the
# network table uses both (server on CPU 0, load generator on CPU 1).
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-load}
[ $# -gt 0 ] && shift

load() {
  cargo build --release --quiet --bins
  target/release/runner "$@"
}

paired() {
  cargo build --release --quiet --bins
  target/release/paired "$@"
}

stream() {
  cargo build --release --quiet --bins
  target/release/stream_bench "$@"
}

a2a() {
  cargo build --release --quiet --bin a2a_bench
  (cd .. && cargo build --release --quiet -p typed-rpc-a2a --bin text-agent)
  # The SDK's pinned packages, as examples/a2a/tests/python_sdk.rs installs them.
  if [ ! -d ../target/a2a-python/a2a ]; then
    python3 -m pip install --quiet --disable-pip-version-check --target ../target/a2a-python \
      -r ../examples/a2a/tests/python/requirements.txt
  fi
  taskset -c 1 target/release/a2a_bench "$@"
}

a2a_stores() {
  cargo build --release --quiet -p typed-rpc-bench-a2a-stores
  "${CARGO_TARGET_DIR:-target}/release/a2a_store_bench" "$@"
}

a2a_replicas() {
  cargo build --release --quiet -p typed-rpc-bench-a2a-stores --bin a2a_replica_bench
  (cd .. && cargo build --release --quiet -p typed-rpc-a2a --bin text-agent)
  "${CARGO_TARGET_DIR:-target}/release/a2a_replica_bench" --agent ../target/release/text-agent "$@"
}

mcp() {
  cargo build --release --quiet --bin mcp_bench --bin mcp_server_ours --bin mcp_server_rmcp
  # The SDK's pinned packages, as examples/mcp/tests installs them.
  if [ ! -d ../target/mcp-python/mcp ]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target ../target/mcp-python \
      -r ../examples/mcp/tests/python/requirements.txt
  fi
  taskset -c 1 "${CARGO_TARGET_DIR:-target}/release/mcp_bench" --bin "${CARGO_TARGET_DIR:-target}/release" "$@"
}

lsp() {
  cargo build --release --quiet -p typed-rpc-bench-lsp --bins
  target/release/lsp_load "$@" typed-rpc=target/release/lsp_typed_rpc \
    tower-lsp-server=target/release/lsp_tower async-lsp=target/release/lsp_async
}

inprocess() {
  cargo build --release --quiet --bin inproc_report
  local results=target/inprocess-results.tsv
  rm -f "$results"
  for run in $(seq "${RUNS:-5}"); do
    echo "# in-process run $run of ${RUNS:-5}" >&2
    rm -rf target/criterion
    cargo bench --quiet --bench inprocess -- --warm-up-time 1 --measurement-time 3 "$@" >/dev/null
    target/release/inproc_report collect target/criterion "$results"
  done
  target/release/inproc_report table "$results"
}

eth() {
  cargo build --release --quiet --bin eth_server --bin eth_bench
  taskset -c 1 target/release/eth_bench batch "$@"
  echo
  taskset -c 1 target/release/eth_bench fanout "$@"
}

case "$mode" in
  load) load "$@" ;;
  inprocess) inprocess "$@" ;;
  icount) ./icount.sh "$@" ;;
  compile) ./compile_cost.sh ;;
  soak) ./soak.sh ;;
  paired) paired "$@" ;;
  stream) stream "$@" ;;
  a2a) a2a "$@" ;;
  a2a-stores) a2a_stores "$@" ;;
  a2a-replicas) a2a_replicas "$@" ;;
  eth) eth "$@" ;;
  mcp) mcp "$@" ;;
  lsp) lsp "$@" ;;
  lsp-icount) ./lsp_icount.sh ;;
  all)
    date -u
    inprocess
    echo
    ./icount.sh
    echo
    load
    echo
    ./compile_cost.sh
    ;;
  *) echo "unknown mode $mode (load | inprocess | icount | compile | all | soak | paired | stream | a2a | a2a-stores | a2a-replicas | eth | mcp | lsp | lsp-icount)" >&2; exit 2 ;;
esac
