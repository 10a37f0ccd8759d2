#!/usr/bin/env bash
# `make build`'s extension, profile-guided (docs/architecture.md, "The profile-guided build"):
#  1. the simulator and the AQMs built instrumented (target/pgo/gen) run the training
#     (crates/sim/examples/pgo_train.rs) and llvm-profdata merges the counts they write;
#  2. `maturin develop --release` builds the extension in target/pgo/use with that profile on
#     the same crates (pgo/rustc-wrapper.sh), so the branches and the code layout follow the
#     runs.
# The profile is made again only when the Rust sources, Cargo.lock, the scenario files or the
# compiler change (target/pgo/stamp). The results are the same with or without it; only the
# speed differs. PGO=off, or no llvm-profdata of the compiler's LLVM version (rustup's
# llvm-tools component, or llvm-profdata-N on the PATH), builds the extension as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
# The extension as maturin builds it; in the profile-guided build with the wrapper's settings.
build_extension() {
    exec maturin develop --release --quiet
}

if [ "${PGO:-on}" = off ]; then
    build_extension
fi

host=$(rustc -vV | sed -n 's/^host: //p')
llvm_major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
find_profdata() {
    local bundled
    bundled="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
    if [ -x "$bundled" ]; then
        echo "$bundled"
    else
        command -v "llvm-profdata-$llvm_major" || true
    fi
}
profdata=$(find_profdata)
if [ -z "$profdata" ] && command -v rustup >/dev/null 2>&1; then
    timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
    profdata=$(find_profdata)
fi
if [ -z "$profdata" ]; then
    echo "make build: no llvm-profdata for LLVM $llvm_major (rustup component add llvm-tools);" \
        "building without a profile (runs 2-8 % slower, the same results)" >&2
    build_extension
fi

dir=$PWD/target/pgo
wrapper=$PWD/pgo/rustc-wrapper.sh
profile=$dir/merged.profdata
stamp=$(
    {
        rustc -vV
        cat Cargo.lock pgo/build.sh pgo/rustc-wrapper.sh
        find crates experiments/ -name '*.rs' -o -name '*.toml' | LC_ALL=C sort | xargs cat
    } | sha256sum | cut -d' ' -f1
)
if [ ! -f "$profile" ] || [ "$(cat "$dir/stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$dir/raw" "$profile" "$dir/stamp"
    AQMLAB_PGO="generate:$dir/raw" RUSTC_WRAPPER=$wrapper CARGO_TARGET_DIR=$dir/gen \
        "$cargo" build --release --quiet -p aqmlab-sim --example pgo_train
    "$dir/gen/release/examples/pgo_train" experiments
    "$profdata" merge -o "$profile" "$dir/raw"
    rm -rf "$dir/raw"
    echo "$stamp" >"$dir/stamp"
fi
AQMLAB_PGO="use:$profile" RUSTC_WRAPPER=$wrapper CARGO_TARGET_DIR=$dir/use build_extension
