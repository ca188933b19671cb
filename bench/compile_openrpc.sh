#!/usr/bin/env bash
# Compile cost of openrpc!: MetaMask's API document (55 methods, from the
# npm package pinned in tests/openrpc/npm) as `openrpc!("metamask.json")`,
# beside the same trait and types written out by hand (the text openrpc!
# expands to, formatted: what a user would write for the same API).
#
# Both crates are written under bench/target/compile-openrpc, each a
# workspace of its own on the repository's lock file, built with their
# dependencies first. Then, median of RUNS (default 5), dev profile:
#   first build: touch lib.rs, `cargo build` with CARGO_INCREMENTAL=0 (the
#                crate compiled whole, as in CI or a clean checkout);
#   incremental: touch lib.rs, `cargo build` with CARGO_INCREMENTAL=1 on a
#                warm incremental cache (an edit-compile loop).
# Wall time and CPU time (user + sys) of the cargo process.
set -euo pipefail
cd "$(dirname "$0")"
bench=$(pwd)
repo=$(cd .. && pwd)
runs=${RUNS:-5}
work=$bench/target/compile-openrpc
mkdir -p "$work/npm"

# The pinned document.
cp "$repo/tests/openrpc/npm/package.json" "$repo/tests/openrpc/npm/package-lock.json" "$work/npm/"
if ! cmp -s "$work/npm/package-lock.json" "$work/npm/installed-from.json"; then
  (cd "$work/npm" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
  cp "$work/npm/package-lock.json" "$work/npm/installed-from.json"
fi
doc=$work/npm/node_modules/@metamask/api-specs/dist/build/openrpc.json

crate() { # name -> a crate directory with its manifest and lock
  local dir=$work/$1
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
typed-rpc = { path = "$repo" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
TOML
  cp -n "$repo/Cargo.lock" "$dir/Cargo.lock" 2>/dev/null || true
}

crate metamask_openrpc
cp "$doc" "$work/metamask_openrpc/metamask.json"
printf '%s\n' '//! MetaMask'"'"'s API through openrpc!.' '#![allow(deprecated, dead_code)]' \
  'typed_rpc::openrpc!("metamask.json");' >"$work/metamask_openrpc/src/lib.rs"

crate metamask_written
# What openrpc! expands to, written out (rpc-macros' ignored dump test).
(cd "$repo" && OPENRPC_DOC="$doc" OPENRPC_OUT="$work/metamask_written/src/lib.rs" \
  cargo test -q -p rpc-macros --lib dump_expansion -- --ignored >/dev/null)
rustfmt --edition 2024 "$work/metamask_written/src/lib.rs"

export CARGO_TARGET_DIR=$work/target
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
timed() { # crate incremental -> "wall cpu"
  touch "$work/$1/src/lib.rs"
  TIMEFORMAT='%R %U %S'
  local t; t=$( { time CARGO_INCREMENTAL=$2 cargo build -q --manifest-path "$work/$1/Cargo.toml" >/dev/null 2>&1; } 2>&1 )
  read -r real user sys <<<"$t"
  echo "$real $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')"
}

for c in metamask_openrpc metamask_written; do
  CARGO_INCREMENTAL=0 cargo build -q --manifest-path "$work/$c/Cargo.toml"
  CARGO_INCREMENTAL=1 cargo build -q --manifest-path "$work/$c/Cargo.toml"
done

printf '| crate | lines of source | first build s (wall / CPU) | incremental s (wall / CPU) |\n|---|---:|---:|---:|\n'
for c in metamask_openrpc metamask_written; do
  cols=()
  for incremental in 0 1; do
    walls=(); cpus=()
    for _ in $(seq "$runs"); do
      read -r wall cpu <<<"$(timed "$c" "$incremental")"
      walls+=("$wall"); cpus+=("$cpu")
    done
    cols+=("$(printf '%s\n' "${walls[@]}" | median) / $(printf '%s\n' "${cpus[@]}" | median)")
  done
  lines=$(( $(wc -l <"$work/$c/src/lib.rs") + $( [ "$c" = metamask_openrpc ] && wc -l <"$work/$c/metamask.json" || echo 0) ))
  printf '| %s | %s | %s | %s |\n' "$c" "$lines" "${cols[0]}" "${cols[1]}"
done
echo "(median of $runs builds each; $(nproc) cores; $(date -u +%F))"
