# Chen, Hu & Ji (2011), §5: the single-bottleneck dumbbell of the self-tuning-RED paper for
# ns-2.35. N long-lived ECN-capable TCP Reno flows from N sender hosts through routers B -> C
# to N receiver hosts; B's port onto the 150 Mb/s, 30 ms bottleneck runs RED (gentle or not)
# with ECN marking; every other port is a large DropTail buffer. Each flow's sender and
# receiver access links (30 Mb/s) get their own propagation delays, uniform in
# [access_delay_min_ms, access_delay_max_ms], so the mean round-trip propagation is
# 2 * (22.5 + 30 + 22.5) = 150 ms with the defaults.
#
# Usage: ns chen2011_dumbbell.tcl key=value ...   (every key below may be given; see opt)
# Prints one "key value" line per result on stdout, between "begin" and "end" lines.
# Driven by `aqmlab validate ns2` (python/aqmlab/validate_ns2.py); see docs/validation-ns2.md.
#
# Packets: packet_bytes (460) of payload, 500 B on the wire with ns-2's 40 B of TCP/IP headers:
# the paper's "mean packet size is 500 bytes" is the M of its model, the size that turns the
# capacity into packets per second (its window of 1125 packets is the 30 ms link's
# bandwidth-delay product in 500 B packets).
#
# Measurements over the window [window_start_s, duration_s), at the bottleneck port B -> C, as
# in li2014_dumbbell.tcl:
#   queue samples: packets waiting (the one on the wire excluded), read every sample_ms from
#     window_start_s; avg_queue_pkts and std_queue_pkts are their mean and population STD;
#   arrivals, drops, departures, bytes_departed, marks: the port's queue monitor, reset at
#     window_start_s (marks: departures carrying CE); drop_rate = drops / arrivals,
#     mark_rate = marks / arrivals;
#   link_efficiency = bytes_departed * 8 / (capacity * window length);
#   queue_delay_mean_ms: mean wait in the queue of the packets that left it in the window;
#   delay_mean_ms: each flow's one-way propagation + serialisation on its three links, weighted
#     by the data packets the flow sent in the window, + queue_delay_mean_ms.

array set opt {
    gentle 0
    flows 200
    capacity_mbps 150
    bottleneck_delay_ms 30
    access_mbps 30
    access_delay_min_ms 10
    access_delay_max_ms 35
    buffer_pkts 7500
    host_buffer_pkts 10000
    min_th 750
    max_th 2250
    w 0.00048814
    linterm 10
    mark_p 0.1
    packet_bytes 460
    window_pkts 1125
    start_jitter_s 1.0
    duration_s 30
    window_start_s 15
    sample_ms 10
    seed 1
}
foreach arg $argv {
    set eq [string first "=" $arg]
    if {$eq < 1} {
        puts stderr "chen2011_dumbbell.tcl: expected key=value, got '$arg'"
        exit 2
    }
    set key [string range $arg 0 [expr {$eq - 1}]]
    if {![info exists opt($key)]} {
        puts stderr "chen2011_dumbbell.tcl: unknown key '$key'"
        exit 2
    }
    set opt($key) [string range $arg [expr {$eq + 1}] end]
}
if {[lsearch -exact {0 1} $opt(gentle)] < 0} {
    puts stderr "chen2011_dumbbell.tcl: gentle must be 0 or 1, got '$opt(gentle)'"
    exit 2
}

set ns [new Simulator]
# The default RNG drives RED's drop and mark decisions; a second stream draws the start
# times, a third the access-link delays.
global defaultRNG
$defaultRNG seed $opt(seed)
set startRNG [new RNG]
$startRNG seed [expr {$opt(seed) + 1000}]
set delayRNG [new RNG]
$delayRNG seed [expr {$opt(seed) + 2000}]

set wire_bytes [expr {$opt(packet_bytes) + 40}]

# Packet mode; RED marks ECN-capable packets while its probability before spacing is below
# mark_p_ (use_mark_p_), and drops them above it.
Queue set limit_ $opt(host_buffer_pkts)
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set setbit_ true
Queue/RED set use_mark_p_ true
Queue/RED set mark_p_ $opt(mark_p)
Queue/RED set mean_pktsize_ $wire_bytes
Queue/RED set thresh_ $opt(min_th)
Queue/RED set maxthresh_ $opt(max_th)
Queue/RED set q_weight_ $opt(w)
Queue/RED set linterm_ $opt(linterm)
Queue/RED set gentle_ [expr {$opt(gentle) ? "true" : "false"}]
Queue/RED set wait_ true
Queue/RED set adaptive_ 0

Agent/TCP set packetSize_ $opt(packet_bytes)
Agent/TCP set window_ $opt(window_pkts)
Agent/TCP set ecn_ 1

set nB [$ns node]
set nC [$ns node]
$ns simplex-link $nB $nC $opt(capacity_mbps)Mb $opt(bottleneck_delay_ms)ms RED
$ns simplex-link $nC $nB $opt(capacity_mbps)Mb $opt(bottleneck_delay_ms)ms DropTail
$ns queue-limit $nB $nC $opt(buffer_pkts)

set access "$opt(access_mbps)Mb"
set lo $opt(access_delay_min_ms)
set hi $opt(access_delay_max_ms)
set tcps {}
set fixed_ms {}
set wire_bits [expr {$wire_bytes * 8.0}]
set ser_ms [expr {1000.0 * (2 * $wire_bits / ($opt(access_mbps) * 1e6) \
    + $wire_bits / ($opt(capacity_mbps) * 1e6))}]
for {set i 0} {$i < $opt(flows)} {incr i} {
    set ds [$delayRNG uniform $lo $hi]
    set dr [$delayRNG uniform $lo $hi]
    set src [$ns node]
    set dst [$ns node]
    $ns duplex-link $src $nB $access ${ds}ms DropTail
    $ns duplex-link $nC $dst $access ${dr}ms DropTail
    set tcp [new Agent/TCP/Reno]
    set sink [new Agent/TCPSink]
    $tcp set fid_ $i
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [$startRNG uniform 0 $opt(start_jitter_s)] "$ftp start"
    lappend tcps $tcp
    lappend fixed_ms [expr {$ds + $opt(bottleneck_delay_ms) + $dr + $ser_ms}]
}

set qmon [$ns monitor-queue $nB $nC "" $opt(duration_s)]
set delays [new Samples]
$qmon set-delay-samples $delays

set n_samples 0
set q_sum 0.0
set q_sumsq 0.0
set marks0 0
set sent0 {}
proc sample {} {
    global qmon n_samples q_sum q_sumsq
    set q [$qmon set pkts_]
    incr n_samples
    set q_sum [expr {$q_sum + $q}]
    set q_sumsq [expr {$q_sumsq + $q * $q}]
}
proc start_window {} {
    global qmon delays tcps sent0 marks0
    $qmon reset
    $delays reset
    set marks0 [$qmon set pmarks_]
    set sent0 {}
    foreach tcp $tcps {
        lappend sent0 [$tcp set ndatapack_]
    }
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
    global opt qmon delays n_samples q_sum q_sumsq span tcps sent0 marks0 fixed_ms
    set mean [expr {$n_samples > 0 ? $q_sum / $n_samples : 0.0}]
    set var [expr {$n_samples > 0 ? $q_sumsq / $n_samples - $mean * $mean : 0.0}]
    if {$var < 0} { set var 0.0 }
    set arrivals [$qmon set parrivals_]
    set drops [$qmon set pdrops_]
    set marks [expr {[$qmon set pmarks_] - $marks0}]
    set bytes [$qmon set bdepartures_]
    set c_bps [expr {$opt(capacity_mbps) * 1e6}]
    # Propagation and serialisation, weighted by each flow's data packets in the window.
    set sent 0
    set weighted 0.0
    foreach tcp $tcps s0 $sent0 f $fixed_ms {
        set n [expr {[$tcp set ndatapack_] - $s0}]
        incr sent $n
        set weighted [expr {$weighted + $n * $f}]
    }
    set fixed [expr {$sent > 0 ? $weighted / $sent : 0.0}]
    set qd_ms [expr {[$delays cnt] > 0 ? 1000.0 * [$delays mean] : 0.0}]
    puts "begin"
    puts "queue [expr {$opt(gentle) ? "gentle_red" : "red"}]"
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
    puts "marks $marks"
    puts "departures [$qmon set pdepartures_]"
    puts "bytes_departed $bytes"
    puts "data_packets_sent $sent"
    puts "drop_rate [expr {$arrivals > 0 ? double($drops) / $arrivals : 0.0}]"
    puts "mark_rate [expr {$arrivals > 0 ? double($marks) / $arrivals : 0.0}]"
    puts "link_efficiency [expr {$bytes * 8.0 / ($c_bps * $span)}]"
    puts "propagation_mean_ms $fixed"
    puts "queue_delay_mean_ms $qd_ms"
    puts "delay_mean_ms [expr {$fixed + $qd_ms}]"
    puts "end"
    exit 0
}
$ns at $opt(duration_s) "finish"
$ns run
