# Chen, Hu & Ji (2011), §5: the dumbbell of chen2011_dumbbell.tcl (sourced from this directory:
# its scenario, measurements and output) with B's port onto the bottleneck running ns-2.35's
# Queue/REM or Queue/PI, set to the paper's parameters, with ECN marking on, instead of RED.
#
# Usage: ns chen2011_rem_pi.tcl aqm=rem|pi key=value ...
#   aqm, q_ref (REM's pbo_, PI's qref_; §5's 1500) and trace_ms are this script's keys; every
#   other key goes to chen2011_dumbbell.tcl (flows, duration_s, window_start_s, seed, ...) but
#   its RED keys (gentle, min_th, max_th, w, linterm, mark_p), which would set nothing here.
# Output: chen2011_dumbbell.tcl's block (its `queue` line then reads `red`: the base script
# builds the bottleneck as a RED link and this script swaps that one link's queue type), after
# a line `bottleneck Queue/REM` or `bottleneck Queue/PI`, and with every trace_ms (0: none)
# from trace_ms to the end of the run a line
#   trace <t> <queue> <prob_>
# with the queue's own length (`curq_`, packets) and its probability `prob_` at that instant.
#
# ECN, as ns-2.35 does it for each queue (queue/rem.cc, queue/pi.cc):
#   REM, markpkts_ true: no early drop at all. Every arrival counts towards the input rate and
#     joins the queue unless the buffer is full; the price is updated every pupdtime_, and the
#     packet at the HEAD of the queue, as it departs, gets CE with probability prob_ if it is
#     ECN-capable (a packet that is not is never marked nor early-dropped).
#   PI, setbit_ true: at each arrival, with probability prob_, an ECN-capable packet is marked
#     and joins the queue, any other is dropped; at every probability (there is no mark_p_).
# Driven by `aqmlab validate ns2` (python/aqmlab/validate_ns2.py); see docs/validation-ns2.md.

array set aqm {aqm rem q_ref 1500 trace_ms 100}
set red_keys {queue gentle min_th max_th w linterm mark_p}
set base_args {}
foreach arg $argv {
    set eq [string first "=" $arg]
    set key [string range $arg 0 [expr {$eq - 1}]]
    if {$eq > 0 && [info exists aqm($key)]} {
        set aqm($key) [string range $arg [expr {$eq + 1}] end]
    } elseif {$eq > 0 && [lsearch -exact $red_keys $key] >= 0} {
        puts stderr "chen2011_rem_pi.tcl: $key is a RED key, not used with REM or PI"
        exit 2
    } else {
        lappend base_args $arg
    }
}
array set queue_class {rem REM pi PI}
if {![info exists queue_class($aqm(aqm))]} {
    puts stderr "chen2011_rem_pi.tcl: aqm must be rem or pi, got '$aqm(aqm)'"
    exit 2
}
# The wire size of chen2011_dumbbell.tcl's packets: payload (packet_bytes, 460) + 40 B.
set wire_bytes 500
foreach arg $base_args {
    if {[string match "packet_bytes=*" $arg]} {
        set wire_bytes [expr {[string range $arg 13 end] + 40}]
    }
}

# REM (§5: φ 1.001, α 0.1, γ 0.001, 2 ms; α is the constant 0.1 in rem.cc): target pbo_ =
# q_ref, input weight 1 (no filtering), packet mode, ECN marks (markpkts_ true); mean_pktsize_
# is the wire size, so that the capacity term is the link's 75 packets per 2 ms at 150 Mb/s.
Queue/REM set phi_ 1.001
Queue/REM set gamma_ 0.001
Queue/REM set pupdtime_ 0.002
Queue/REM set pbo_ $aqm(q_ref)
Queue/REM set inw_ 1
Queue/REM set mean_pktsize_ $wire_bytes
Queue/REM set markpkts_ true
Queue/REM set qib_ false
# PI (§5: a 1.822e-5, b 1.816e-5, Hollot et al.'s design; ns-2's 170 Hz): qref_ = q_ref,
# packet mode, ECN marks (setbit_ true).
Queue/PI set a_ 0.00001822
Queue/PI set b_ 0.00001816
Queue/PI set w_ 170
Queue/PI set qref_ $aqm(q_ref)
Queue/PI set bytes_ false
Queue/PI set queue_in_bytes_ false
Queue/PI set setbit_ true
Queue/PI set mean_pktsize_ $wire_bytes

# The one RED link the base script builds (B -> C) gets REM or PI instead; its queue is
# remembered for the trace.
set bottleneck_class $queue_class($aqm(aqm))
Simulator instproc simplex-link-of-base [Simulator info instargs simplex-link] \
    [Simulator info instbody simplex-link]
Simulator instproc simplex-link {n1 n2 bw delay qtype args} {
    global bottleneck_class bottleneck aqm
    set swap [expr {$qtype eq "RED"}]
    if {$swap} {
        set qtype $bottleneck_class
        puts "bottleneck Queue/$qtype"
    }
    eval [list $self simplex-link-of-base $n1 $n2 $bw $delay $qtype] $args
    if {$swap} {
        set bottleneck [[$self link $n1 $n2] queue]
        if {$aqm(trace_ms) > 0} {
            $self at [expr {$aqm(trace_ms) / 1000.0}] "rem_pi_trace 1"
        }
    }
}

proc rem_pi_trace {k} {
    global aqm bottleneck
    set ns [Simulator instance]
    puts [format "trace %.3f %d %.9g" [$ns now] [$bottleneck set curq_] \
        [$bottleneck set prob_]]
    $ns at [expr {($k + 1) * $aqm(trace_ms) / 1000.0}] "rem_pi_trace [expr {$k + 1}]"
}

set argv $base_args
set argc [llength $argv]
source [file join [file dirname [info script]] chen2011_dumbbell.tcl]
