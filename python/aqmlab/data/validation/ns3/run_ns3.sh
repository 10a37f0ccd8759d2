#!/usr/bin/env bash
# Build the ns-3 version of the BetaRED dumbbell (betared_dumbbell.cc) against Debian's ns-3 3.37
# and run it with each AQM in $AQMS, one run after the other. Optional benchmark, not part of the
# test suite; `aqmlab validate ns3` builds and runs the same program. See docs/validation-ns3.md.
#
# Usage: validation/ns3/run_ns3.sh [extra program options, e.g. --duration=20 --schedule=constant]
# Environment: AQMS ("droptail red"; also ared, pie, codel, cobalt, fq_codel, fq_pie, fq_cobalt),
#              BUILD_DIR (target/ns3 under the current folder), OUT_DIR (results/ns3 under
#              the current folder), CXX (g++), NICE (nice; set empty to run at normal priority).
# Prints one JSON line per run on stdout, with the wall time and peak RSS of the whole process
# (from /usr/bin/time -v) added as wall_s and max_rss_kb.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${BUILD_DIR:-$PWD/target/ns3}"
out_dir="${OUT_DIR:-$PWD/results/ns3}"
cxx="${CXX:-g++}"
nice_cmd="${NICE-nice}"
aqms="${AQMS:-droptail red}"

die() {
    echo "run_ns3.sh: $*" >&2
    exit 1
}

# libns3-dev puts the headers in /usr/include/ns3 and the libraries (libns3-core.so, ...) in
# the multiarch library directory. Its pkg-config files are not usable as shipped, so the
# libraries are named directly.
inc_dir="${NS3_INCLUDE_DIR:-/usr/include}"
if [[ ! -f "$inc_dir/ns3/core-module.h" || ! -f "$inc_dir/ns3/red-queue-disc.h" ]]; then
    die "ns-3 headers not found in $inc_dir/ns3. This benchmark needs ns-3 3.37 from Debian: \
apt-get install libns3-dev"
fi
command -v "$cxx" >/dev/null || die "C++ compiler '$cxx' not found (apt-get install g++)"

version="$(sed -n 's/^#define NS3_VERSION_STRING "\(.*\)"/\1/p' "$inc_dir/ns3/version-defines.h" \
    2>/dev/null || true)"
if [[ -n "$version" && "$version" != "ns-3.37" ]]; then
    echo "run_ns3.sh: warning: written for ns-3.37, found $version" >&2
fi

libs=(-lns3-nix-vector-routing -lns3-applications -lns3-traffic-control
      -lns3-point-to-point -lns3-internet -lns3-network -lns3-core)
mkdir -p "$build_dir" "$out_dir"
bin="$build_dir/betared_dumbbell"
stale=0
for src in "$here"/betared_dumbbell.cc "$here"/*.h; do
    if [[ "$src" -nt "$bin" ]]; then stale=1; fi
done
if [[ ! -x "$bin" || $stale == 1 ]]; then
    echo "building $bin" >&2
    $nice_cmd "$cxx" -O2 -std=c++17 -I"$inc_dir" "$here/betared_dumbbell.cc" -o "$bin" \
        "${libs[@]}" || die "build failed (is libns3-dev 3.37 installed? apt-get install \
libns3-dev)"
fi

for aqm in $aqms; do
    json="$out_dir/$aqm.json"
    timing="$out_dir/$aqm.time"
    echo "running --aqm=$aqm $*" >&2
    if [[ -x /usr/bin/time ]]; then
        $nice_cmd /usr/bin/time -v "$bin" --aqm="$aqm" "$@" >"$json" 2>"$timing" \
            || { cat "$timing" >&2; die "run with --aqm=$aqm failed"; }
        wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {
            n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' \
            "$timing")"
        rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$timing")"
        sed -i "s/}\$/,\"wall_s\":$wall,\"max_rss_kb\":$rss}/" "$json"
    else
        echo "run_ns3.sh: /usr/bin/time not found (apt-get install time); no wall/RSS" >&2
        $nice_cmd "$bin" --aqm="$aqm" "$@" >"$json" || die "run with --aqm=$aqm failed"
    fi
    cat "$json"
done
