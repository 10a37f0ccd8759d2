#!/usr/bin/env bash
# Build aqmlab's C library (crates/capi) and the ns-3 example program that uses the
# AqmlabQueueDisc (ns3/examples/aqmlab-dumbbell.cc) against Debian's ns-3 3.37 (libns3-dev),
# with warnings as errors. docs/ns3.md explains each step for an ns-3 user's own program.
#
# Usage: ns3/build.sh            -> target/ns3-bridge/aqmlab-dumbbell
# Environment: CARGO (cargo), CXX (g++), NS3_INCLUDE_DIR (/usr/include), OUT_DIR
#              (target/ns3-bridge under the checkout).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
cargo="${CARGO:-cargo}"
cxx="${CXX:-g++}"
inc_dir="${NS3_INCLUDE_DIR:-/usr/include}"
out_dir="${OUT_DIR:-$root/target/ns3-bridge}"

die() {
    echo "ns3/build.sh: $*" >&2
    exit 1
}

[[ -f "$inc_dir/ns3/traffic-control-module.h" ]] \
    || die "ns-3 headers not found in $inc_dir/ns3; install them with: apt-get install libns3-dev"
command -v "$cxx" >/dev/null || die "C++ compiler '$cxx' not found (apt-get install g++)"

# The C library: target/release/libaqmlab.so, with its header in crates/capi/include.
(cd "$root" && "$cargo" build --release --quiet -p aqmlab-capi)
lib_dir="$root/target/release"

# libns3-dev's pkg-config files are not usable as shipped, so the libraries are named directly.
ns3_libs=(-lns3-applications -lns3-traffic-control -lns3-point-to-point-layout
          -lns3-point-to-point -lns3-internet -lns3-network -lns3-core)
mkdir -p "$out_dir"
"$cxx" -O2 -std=c++17 -Wall -Wextra -Werror \
    -I"$inc_dir" -I"$root/crates/capi/include" \
    "$here/aqmlab-queue-disc.cc" "$here/examples/aqmlab-dumbbell.cc" \
    -o "$out_dir/aqmlab-dumbbell" \
    -L"$lib_dir" -laqmlab -Wl,-rpath,"$lib_dir" "${ns3_libs[@]}"
echo "$out_dir/aqmlab-dumbbell"
