# Chen, Hu & Ji (2011), §5: the dumbbell of chen2011_dumbbell.tcl (sourced from this directory:
# its scenario, measurements and output) with the bottleneck's gentle Queue/RED run as
#   aqm=ared             Adaptive RED, ns-2.35's own (adaptive_ 1): α 0.01, β 0.9, interval_
#                        2 s, q_weight_ 0.000014305, initial max_p 0.01 (§5), top_ and bottom_
#                        at ns-2's defaults (0.5; 0, which red.cc turns into
#                        min(0.01, 80000 / bandwidth), 5.33e-4 at 150 Mb/s);
#   aqm=self_tuning_red  Algorithm 1 of the paper, driven from Tcl: a gentle RED (adaptive_ 0,
#                        q_weight_ 0.00048814, initial max_p 0.01) whose max_p a procedure
#                        below re-estimates every delta_t_s by eq. (3.6) from the mean q~ of
#                        q_avg over the period (over arrivals, or with q_tilde_over=time over
#                        time).
# ECN as the base script: setbit_ true, use_mark_p_ true, mark_p_ 0.1.
#
# Usage: ns chen2011_tuned_red.tcl aqm=ared|self_tuning_red key=value ...
#   This script's keys are in `tuned` below; every other key goes to chen2011_dumbbell.tcl
#   (flows, duration_s, window_start_s, seed, ...; its gentle, w and linterm are set here from
#   this script's keys: gentle 1, w = ared_w or the base script's w, linterm = 1/p_max_initial).
# Output: chen2011_dumbbell.tcl's block (its `queue` line reads gentle_red), with these lines
# added before its `end`:
#   p_max_final      the queue's cur_max_p_ at the end of the run;
#   p_max_min, p_max_max  its smallest and largest value at the period ticks;
#   periods, periods_skipped  (self_tuning_red) p_max updates by eq. (3.6), and periods whose
#                    mean q~ was at or below q_min, where max_p was kept.
# and before `begin`, once per period of delta_t_s (both AQMs), a line
#   period <t> <q~> <mean queue> <min queue> <max queue> <cur_max_p_ after the tick>
# over the samples taken every sample_ms_tuned in (t - delta_t_s, t] (q~: the mean of ave_,
# weighted as q_tilde_over says; queue: packets waiting, the queue monitor's pkts_).
#
# Self-tuning RED, what the procedure does: every sample_ms_tuned it reads the queue's
# average `ave_` (RED's q_avg, updated at each arrival) and adds it to a sum, weighted by the
# arrivals at the queue since the last sample (q_tilde_over=arrivals, the default: Algorithm 1
# averages q_avg over its updates, one per arrival, and so does aqmlab; each of the ~37
# arrivals of a millisecond at full load counts with the ave_ at the millisecond's end) or by
# 1 (q_tilde_over=time: a mean over time). Every delta_t_s it takes the mean q~ of the
# period's samples and, when q~ > q_min, sets the queue's `cur_max_p_` (red.cc binds
# it to edv_.cur_max_p, the max_p that drop_early uses for every packet; nothing but ARED's
# updateMaxP and a queue reset writes it, and linterm_ is read only at the reset when the run
# starts) to
#   p_max * (q~ - q_min)/(q_target - q_min) * (d + q~/C)/(d + q_target/C),
# capped at 1, with C = capacity / (8 * wire bytes) packets per second. With q~ <= q_min it
# keeps p_max, as it does when no packet arrived in the period. One more difference from
# aqmlab: red.cc draws the gentle region (q_avg from q_max to 2 q_max) once, at the reset that
# starts the run, from the initial max_p (p = p0 + (1 - p0)(q_avg - q_max)/q_max with p0 0.01),
# whatever cur_max_p_ becomes; aqmlab's self-tuning RED draws it from the current p_max.
# Driven by `aqmlab validate ns2` (python/aqmlab/validate_ns2.py); see docs/validation-ns2.md.

array set tuned {
    aqm ared
    p_max_initial 0.01
    alpha 0.01
    beta 0.9
    interval_s 2.0
    ared_w 0.000014305
    q_target 1500
    delta_t_s 2.0
    d_ms 150
    sample_ms_tuned 1
    q_tilde_over arrivals
}
set base_args {}
foreach arg $argv {
    set eq [string first "=" $arg]
    set key [string range $arg 0 [expr {$eq - 1}]]
    if {$eq > 0 && [info exists tuned($key)]} {
        set tuned($key) [string range $arg [expr {$eq + 1}] end]
    } elseif {$eq > 0 && [lsearch -exact {gentle linterm} $key] >= 0} {
        puts stderr "chen2011_tuned_red.tcl: $key is set by this script"
        exit 2
    } else {
        lappend base_args $arg
    }
}
if {[lsearch -exact {arrivals time} $tuned(q_tilde_over)] < 0} {
    puts stderr "chen2011_tuned_red.tcl: q_tilde_over must be arrivals or time"
    exit 2
}
if {[lsearch -exact {ared self_tuning_red} $tuned(aqm)] < 0} {
    puts stderr "chen2011_tuned_red.tcl: aqm must be ared or self_tuning_red, got '$tuned(aqm)'"
    exit 2
}
set per_period [expr {round($tuned(delta_t_s) * 1000.0 / $tuned(sample_ms_tuned))}]
if {$per_period < 1} {
    puts stderr "chen2011_tuned_red.tcl: delta_t_s must hold at least one sample_ms_tuned"
    exit 2
}

# ARED's own parameters are class defaults (the base script does not set them); adaptive_ is
# set on the bottleneck queue itself below, since the base script sets the class's to 0.
Queue/RED set alpha_ $tuned(alpha)
Queue/RED set beta_ $tuned(beta)
Queue/RED set interval_ $tuned(interval_s)
Queue/RED set top_ 0.5
Queue/RED set bottom_ 0

# The base script's one RED link (B -> C): remember its queue, make it adaptive for ARED, and
# start the sampling procedure.
Simulator instproc simplex-link-of-base [Simulator info instargs simplex-link] \
    [Simulator info instbody simplex-link]
Simulator instproc simplex-link {n1 n2 bw delay qtype args} {
    global tuned bottleneck
    eval [list $self simplex-link-of-base $n1 $n2 $bw $delay $qtype] $args
    if {$qtype eq "RED"} {
        set bottleneck [[$self link $n1 $n2] queue]
        if {$tuned(aqm) eq "ared"} {
            $bottleneck set adaptive_ 1
        }
        puts "bottleneck Queue/RED $tuned(aqm)"
        $self at [expr {$tuned(sample_ms_tuned) / 1000.0}] "tuned_sample 1"
        $self at 0.0 "wrap_finish"
    }
}

set tuned_sum_ave 0.0
set tuned_weight 0
set tuned_arrivals_seen 0
set tuned_sum_q 0.0
set tuned_q_min_seen -1
set tuned_q_max_seen -1
set tuned_n 0
set tuned_periods 0
set tuned_skipped 0
set tuned_p_lo -1
set tuned_p_hi -1
set tuned_p -1

# One sample; every per_period-th sample ends a period.
proc tuned_sample {k} {
    global tuned per_period bottleneck qmon tuned_sum_ave tuned_sum_q tuned_n \
        tuned_q_min_seen tuned_q_max_seen tuned_weight tuned_arrivals_seen
    set ns [Simulator instance]
    set q [$qmon set pkts_]
    if {$tuned(q_tilde_over) eq "arrivals"} {
        # The queue monitor's count restarts at 0 when the base script resets it.
        set a [$qmon set parrivals_]
        set weight [expr {$a >= $tuned_arrivals_seen ? $a - $tuned_arrivals_seen : $a}]
        set tuned_arrivals_seen $a
    } else {
        set weight 1
    }
    set tuned_sum_ave [expr {$tuned_sum_ave + $weight * [$bottleneck set ave_]}]
    set tuned_weight [expr {$tuned_weight + $weight}]
    set tuned_sum_q [expr {$tuned_sum_q + $q}]
    if {$tuned_q_min_seen < 0 || $q < $tuned_q_min_seen} { set tuned_q_min_seen $q }
    if {$q > $tuned_q_max_seen} { set tuned_q_max_seen $q }
    incr tuned_n
    if {$k % $per_period == 0} {
        end_period
    }
    $ns at [expr {($k + 1) * $tuned(sample_ms_tuned) / 1000.0}] "tuned_sample [expr {$k + 1}]"
}

proc end_period {} {
    global tuned opt bottleneck tuned_sum_ave tuned_sum_q tuned_n tuned_q_min_seen \
        tuned_q_max_seen tuned_periods tuned_skipped tuned_p_lo tuned_p_hi tuned_p tuned_weight
    set ns [Simulator instance]
    set q_tilde [expr {$tuned_weight > 0 ? $tuned_sum_ave / $tuned_weight : 0.0}]
    # Self-tuning RED keeps its p_max here at full precision (reading cur_max_p_ back gives
    # six digits); ARED's is read from the queue.
    if {$tuned(aqm) eq "self_tuning_red" && $tuned_p >= 0} {
        set p $tuned_p
    } else {
        set p [$bottleneck set cur_max_p_]
    }
    if {$tuned(aqm) eq "self_tuning_red"} {
        set q_min $opt(min_th)
        if {$q_tilde > $q_min} {
            set c [expr {$opt(capacity_mbps) * 1e6 / (8.0 * ($opt(packet_bytes) + 40))}]
            set d [expr {$tuned(d_ms) / 1000.0}]
            set p [expr {$p * ($q_tilde - $q_min) / ($tuned(q_target) - $q_min) \
                * ($d + $q_tilde / $c) / ($d + $tuned(q_target) / $c)}]
            if {$p > 1.0} { set p 1.0 }
            $bottleneck set cur_max_p_ $p
            set tuned_p $p
            incr tuned_periods
        } else {
            incr tuned_skipped
        }
    }
    if {$tuned_p_lo < 0 || $p < $tuned_p_lo} { set tuned_p_lo $p }
    if {$p > $tuned_p_hi} { set tuned_p_hi $p }
    puts [format "period %.3f %.3f %.3f %d %d %.9g" [$ns now] $q_tilde \
        [expr {$tuned_sum_q / $tuned_n}] $tuned_q_min_seen $tuned_q_max_seen $p]
    set tuned_sum_ave 0.0
    set tuned_weight 0
    set tuned_sum_q 0.0
    set tuned_n 0
    set tuned_q_min_seen -1
    set tuned_q_max_seen -1
}

# The base script's `finish` prints its block and exits; the lines of this script go in just
# before the block's `end`.
proc tuned_results {} {
    global bottleneck tuned_periods tuned_skipped tuned_p_lo tuned_p_hi tuned_p
    set p [expr {$tuned_p >= 0 ? $tuned_p : [$bottleneck set cur_max_p_]}]
    return [list \
        "p_max_final $p" \
        "p_max_min $tuned_p_lo" \
        "p_max_max $tuned_p_hi" \
        "periods $tuned_periods" \
        "periods_skipped $tuned_skipped"]
}
proc wrap_finish {} {
    rename finish finish_of_base
    proc finish {} {
        rename puts puts_of_base
        proc puts {args} {
            if {$args eq "end"} {
                foreach line [tuned_results] {
                    puts_of_base $line
                }
            }
            puts_of_base {*}$args
        }
        finish_of_base
    }
}

set w [expr {$tuned(aqm) eq "ared" ? $tuned(ared_w) : ""}]
set own [list gentle=1 linterm=[expr {1.0 / $tuned(p_max_initial)}]]
if {$w ne ""} {
    lappend own w=$w
}
set argv [concat $own $base_args]
set argc [llength $argv]
source [file join [file dirname [info script]] chen2011_dumbbell.tcl]
