#!/usr/bin/env bash
# Runs one fuzz target for a time budget, growing its corpus in place.
#
#   fuzz/run.sh <target> <seconds> [more libFuzzer flags]
#   fuzz/run.sh router 600
#   fuzz/run.sh list                 # the targets
#   fuzz/run.sh cmin router          # shrink a corpus to a small set covering the same edges
#
# Targets: router, router_model, framing, framing_model (see fuzz/README.md).
# Needs cargo-fuzz (`cargo install cargo-fuzz`). libFuzzer wants nightly
# flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain take them, so no
# nightly is needed. Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"

export RUSTC_BOOTSTRAP=1
export RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-stable}

if [[ ${1:-} == list ]]; then
    exec cargo fuzz list
fi
if [[ ${1:-} == cmin && $# -eq 2 ]]; then
    # Keep a small set of inputs that covers every edge the corpus covers
    # (greedy set cover, hit counts ignored): small enough to commit, and a
    # run rediscovers the rest quickly.
    target=$2
    fresh=$(mktemp -d)
    cargo fuzz run "$target" "$fresh" "corpus/$target" -- \
        -set_cover_merge=1 -use_counters=0 -rss_limit_mb=2048 -max_len=16384
    rm -rf "corpus/$target"
    mv "$fresh" "corpus/$target"
    exit
fi
if [[ $# -lt 2 ]]; then
    echo "usage: $0 <target> <seconds> [libFuzzer flags...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

dict=()
if [[ -f dict/$target.dict ]]; then
    dict=("-dict=dict/$target.dict")
fi
mkdir -p "corpus/$target" "artifacts/$target"
# One job on one core: the machine is shared. -timeout flags a hang,
# -rss_limit_mb a memory blow-up, -max_len leaves room for batches.
exec cargo fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -max_len=16384 \
    -print_final_stats=1 \
    -artifact_prefix="artifacts/$target/" \
    "${dict[@]}" "$@"
