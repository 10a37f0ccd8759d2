# Li et al. (2014) single-bottleneck dumbbell for ns-2.35: N long-lived TCP flows (Reno, the
# paper's, or Newreno or Sack1 with tcp=...) from N sender hosts through routers B -> C to N
# receiver hosts. B's port onto the bottleneck runs
# DropTail, RED or Adaptive RED; every other port is a large DropTail buffer.
#
# Usage: ns li2014_dumbbell.tcl key=value ...   (every key below may be given; see DEFAULTS)
# Prints one "key value" line per result on stdout, between "begin" and "end" lines.
# Driven by `aqmlab validate ns2` (python/aqmlab/validate.py); see docs/validation-ns2.md.
#
# Measurements over the window [window_start_s, duration_s), at the bottleneck port B -> C:
#   queue samples: packets waiting (the one on the wire excluded), read every sample_ms from
#     window_start_s; avg_queue_pkts and std_queue_pkts are their mean and population STD;
#   arrivals, drops, departures, bytes_departed: the port's queue monitor, reset at
#     window_start_s; drop_rate = drops / arrivals;
#   link_efficiency = bytes_departed * 8 / (capacity * window length);
#   queue_delay_mean_ms: mean wait in the queue of the packets that left it in the window;
#   delay_mean_ms: one-way propagation + serialisation on the three links + queue_delay_mean_ms.

array set opt {
    queue droptail
    flows 100
    capacity_mbps 45
    bottleneck_delay_ms 30
    access_mbps 1000
    access_delay_ms 5
    buffer_pkts 900
    host_buffer_pkts 10000
    min_th 15
    max_th 585
    w 0.002
    linterm 10
    packet_bytes 1000
    window_pkts 10000
    start_jitter_s 1.0
    duration_s 30
    window_start_s 15
    sample_ms 10
    tcp reno
    seed 1
}
foreach arg $argv {
    set eq [string first "=" $arg]
    if {$eq < 1} {
        puts stderr "li2014_dumbbell.tcl: expected key=value, got '$arg'"
        exit 2
    }
    set key [string range $arg 0 [expr {$eq - 1}]]
    if {![info exists opt($key)]} {
        puts stderr "li2014_dumbbell.tcl: unknown key '$key'"
        exit 2
    }
    set opt($key) [string range $arg [expr {$eq + 1}] end]
}
if {[lsearch -exact {droptail red ared} $opt(queue)] < 0} {
    puts stderr "li2014_dumbbell.tcl: queue must be droptail, red or ared, got '$opt(queue)'"
    exit 2
}
array set agent_class {reno Agent/TCP/Reno newreno Agent/TCP/Newreno sack1 Agent/TCP/Sack1}
array set sink_class {reno Agent/TCPSink newreno Agent/TCPSink sack1 Agent/TCPSink/Sack1}
if {![info exists agent_class($opt(tcp))]} {
    puts stderr "li2014_dumbbell.tcl: tcp must be reno, newreno or sack1, got '$opt(tcp)'"
    exit 2
}

set ns [new Simulator]
# The default RNG drives RED's drop decisions; a second stream draws the start times.
global defaultRNG
$defaultRNG seed $opt(seed)
set startRNG [new RNG]
$startRNG seed [expr {$opt(seed) + 1000}]

# Packet mode everywhere; ECN off.
Queue set limit_ $opt(host_buffer_pkts)
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set setbit_ false
Queue/RED set mean_pktsize_ [expr {$opt(packet_bytes) + 40}]
Queue/RED set thresh_ $opt(min_th)
Queue/RED set maxthresh_ $opt(max_th)
Queue/RED set q_weight_ $opt(w)
Queue/RED set linterm_ $opt(linterm)
Queue/RED set gentle_ true
Queue/RED set wait_ true
Queue/RED set adaptive_ [expr {$opt(queue) eq "ared" ? 1 : 0}]

Agent/TCP set packetSize_ $opt(packet_bytes)
Agent/TCP set window_ $opt(window_pkts)
Agent/TCP set ecn_ 0

set nB [$ns node]
set nC [$ns node]
set qtype [expr {$opt(queue) eq "droptail" ? "DropTail" : "RED"}]
$ns simplex-link $nB $nC $opt(capacity_mbps)Mb $opt(bottleneck_delay_ms)ms $qtype
$ns simplex-link $nC $nB $opt(capacity_mbps)Mb $opt(bottleneck_delay_ms)ms DropTail
$ns queue-limit $nB $nC $opt(buffer_pkts)

set access "$opt(access_mbps)Mb"
set adelay "$opt(access_delay_ms)ms"
for {set i 0} {$i < $opt(flows)} {incr i} {
    set src [$ns node]
    set dst [$ns node]
    $ns duplex-link $src $nB $access $adelay DropTail
    $ns duplex-link $nC $dst $access $adelay DropTail
    set tcp [new $agent_class($opt(tcp))]
    set sink [new $sink_class($opt(tcp))]
    $tcp set fid_ $i
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [$startRNG uniform 0 $opt(start_jitter_s)] "$ftp start"
}

set bottleneck [$ns link $nB $nC]
set qmon [$ns monitor-queue $nB $nC "" $opt(duration_s)]
set delays [new Samples]
$qmon set-delay-samples $delays

set n_samples 0
set q_sum 0.0
set q_sumsq 0.0
proc sample {} {
    global qmon n_samples q_sum q_sumsq
    set q [$qmon set pkts_]
    incr n_samples
    set q_sum [expr {$q_sum + $q}]
    set q_sumsq [expr {$q_sumsq + $q * $q}]
}
proc start_window {} {
    global qmon delays
    $qmon reset
    $delays reset
}

set dt [expr {$opt(sample_ms) / 1000.0}]
set ws $opt(window_start_s)
set span [expr {$opt(duration_s) - $ws}]
set k_max [expr {int(ceil($span / $dt - 1e-9))}]
$ns at $ws "start_window"
for {set k 0} {$k < $k_max} {incr k} {
    $ns at [expr {$ws + $k * $dt}] "sample"
}

proc finish {} {
    global opt qmon delays n_samples q_sum q_sumsq span
    set mean [expr {$n_samples > 0 ? $q_sum / $n_samples : 0.0}]
    set var [expr {$n_samples > 0 ? $q_sumsq / $n_samples - $mean * $mean : 0.0}]
    if {$var < 0} { set var 0.0 }
    set arrivals [$qmon set parrivals_]
    set drops [$qmon set pdrops_]
    set bytes [$qmon set bdepartures_]
    set wire_bits [expr {($opt(packet_bytes) + 40) * 8.0}]
    set c_bps [expr {$opt(capacity_mbps) * 1e6}]
    set a_bps [expr {$opt(access_mbps) * 1e6}]
    set fixed_ms [expr {2 * $opt(access_delay_ms) + $opt(bottleneck_delay_ms) \
        + 1000.0 * (2 * $wire_bits / $a_bps + $wire_bits / $c_bps)}]
    set qd_ms [expr {[$delays cnt] > 0 ? 1000.0 * [$delays mean] : 0.0}]
    puts "begin"
    puts "queue $opt(queue)"
    puts "flows $opt(flows)"
    puts "capacity_mbps $opt(capacity_mbps)"
    puts "seed $opt(seed)"
    puts "window_start_s $opt(window_start_s)"
    puts "window_end_s $opt(duration_s)"
    puts "samples $n_samples"
    puts "avg_queue_pkts $mean"
    puts "std_queue_pkts [expr {sqrt($var)}]"
    puts "arrivals $arrivals"
    puts "drops $drops"
    puts "departures [$qmon set pdepartures_]"
    puts "bytes_departed $bytes"
    puts "drop_rate [expr {$arrivals > 0 ? double($drops) / $arrivals : 0.0}]"
    puts "link_efficiency [expr {$bytes * 8.0 / ($c_bps * $span)}]"
    puts "queue_delay_mean_ms $qd_ms"
    puts "delay_mean_ms [expr {$fixed_ms + $qd_ms}]"
    puts "end"
    exit 0
}
$ns at $opt(duration_s) "finish"
$ns run
