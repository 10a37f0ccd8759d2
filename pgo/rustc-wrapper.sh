#!/usr/bin/env bash
# Cargo's RUSTC_WRAPPER for the profile-guided build (pgo/build.sh): adds the profile flag to
# the crates whose code the training runs (the simulator, the AQMs) and to the crate that links
# them, and compiles every other crate as it is. AQMLAB_PGO is `generate:DIR` (instrument, the
# counts go to DIR) or `use:FILE` (optimise with the merged profile FILE).
set -euo pipefail
rustc=$1
shift
crate=
prev=
for arg in "$@"; do
    if [ "$prev" = --crate-name ]; then
        crate=$arg
        break
    fi
    prev=$arg
done
case "$crate" in
sim | aqm | _core | pgo_train) ;;
*) exec "$rustc" "$@" ;;
esac
case "${AQMLAB_PGO:-}" in
generate:*) exec "$rustc" "$@" "-Cprofile-generate=${AQMLAB_PGO#generate:}" ;;
use:*) exec "$rustc" "$@" "-Cprofile-use=${AQMLAB_PGO#use:}" ;;
*) exec "$rustc" "$@" ;;
esac
