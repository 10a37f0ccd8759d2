# Li et al. (2014) single-bottleneck dumbbell for ns-2.35 with REM or PI at router B: the
# scenario, measurements and output of li2014_dumbbell.tcl (sourced from this directory),
# with B's port onto the bottleneck running ns-2.35's Queue/REM or Queue/PI set to the
# paper's parameters (§3.1) instead of RED.
#
# Usage: ns li2014_rem_pi.tcl aqm=rem|pi q_ref=<packets> key=value ...
#   aqm, q_ref: this script's keys (q_ref: REM's pbo_, PI's qref_); every other key goes to
#   li2014_dumbbell.tcl (flows, capacity_mbps, duration_s, seed, ...; not queue).
# The output is li2014_dumbbell.tcl's, whose `queue` line then reads `red` (the base script
# builds the bottleneck as a RED link, and this script swaps that one link's queue type),
# after a line `bottleneck Queue/REM` or `bottleneck Queue/PI` naming the queue it runs.
# Driven by `aqmlab validate ns2` (python/aqmlab/validate_ns2.py); see docs/validation-ns2.md.

array set aqm {aqm rem q_ref 300}
set base_args {}
foreach arg $argv {
    set eq [string first "=" $arg]
    set key [string range $arg 0 [expr {$eq - 1}]]
    if {$eq > 0 && [info exists aqm($key)]} {
        set aqm($key) [string range $arg [expr {$eq + 1}] end]
    } elseif {$eq > 0 && $key eq "queue"} {
        puts stderr "li2014_rem_pi.tcl: give aqm=rem or aqm=pi, not queue"
        exit 2
    } else {
        lappend base_args $arg
    }
}
array set queue_class {rem REM pi PI}
if {![info exists queue_class($aqm(aqm))]} {
    puts stderr "li2014_rem_pi.tcl: aqm must be rem or pi, got '$aqm(aqm)'"
    exit 2
}
# The wire size of li2014_dumbbell.tcl's packets: payload (packet_bytes, 1000) + 40 B.
set wire_bytes 1040
foreach arg $base_args {
    if {[string match "packet_bytes=*" $arg]} {
        set wire_bytes [expr {[string range $arg 13 end] + 40}]
    }
}

# REM (Athuraliya et al. 2001, as Li §3.1): φ 1.001, γ 0.001, a 2 ms price update (α is the
# constant 0.1 in rem.cc), target pbo_ = q_ref, input weight 1 (no filtering), drop mode
# (markpkts_ false, as ECN is off), packet mode; mean_pktsize_ is the wire size, so that the
# capacity term is the link's packets per update interval.
Queue/REM set phi_ 1.001
Queue/REM set gamma_ 0.001
Queue/REM set pupdtime_ 0.002
Queue/REM set pbo_ $aqm(q_ref)
Queue/REM set inw_ 1
Queue/REM set mean_pktsize_ $wire_bytes
Queue/REM set markpkts_ false
Queue/REM set qib_ false
# PI (Hollot et al. 2001, ns-2's defaults as Li §3.1): a 1.822e-5, b 1.816e-5, 170 Hz,
# qref_ = q_ref, packet mode, drop (setbit_ false).
Queue/PI set a_ 0.00001822
Queue/PI set b_ 0.00001816
Queue/PI set w_ 170
Queue/PI set qref_ $aqm(q_ref)
Queue/PI set bytes_ false
Queue/PI set queue_in_bytes_ false
Queue/PI set setbit_ false
Queue/PI set mean_pktsize_ $wire_bytes

# The one RED link the base script builds (B -> C) gets REM or PI instead.
set bottleneck_class $queue_class($aqm(aqm))
Simulator instproc simplex-link-of-base [Simulator info instargs simplex-link] \
    [Simulator info instbody simplex-link]
Simulator instproc simplex-link {n1 n2 bw delay qtype args} {
    global bottleneck_class
    if {$qtype eq "RED"} {
        set qtype $bottleneck_class
        puts "bottleneck Queue/$qtype"
    }
    eval [list $self simplex-link-of-base $n1 $n2 $bw $delay $qtype] $args
}

set argv [linsert $base_args 0 queue=red]
set argc [llength $argv]
source [file join [file dirname [info script]] li2014_dumbbell.tcl]
