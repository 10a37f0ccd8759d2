//! The `ns2` preset on a scripted two-host path: classic Reno recovery against NewReno, ns-2's
//! tick-based retransmission timer, one timed segment per RTT, and the per-ACK burst limit.

mod tcp_path;

use sim::tcp::config::{RecoveryKind, RttEstimatorKind, TcpConfig, WindowGrowth, WindowReduction};
use sim::time::s_to_ns;
use tcp_path::run_path;

/// 10 Mb/s and 10 ms each way: a 20-packet window (ns-2's window_) never fills the link, so
/// nothing is lost unless the test drops it.
const RATE_BPS: u64 = 10_000_000;
const DELAY_MS: f64 = 10.0;

#[test]
fn ns2_preset_uses_ns2_defaults() {
    let c = TcpConfig::ns2();
    assert_eq!(c.recovery, RecoveryKind::Reno);
    assert_eq!(c.rtt_estimator, RttEstimatorKind::Ns2);
    assert_eq!(
        (c.initial_cwnd_pkts, c.rwnd_pkts, c.max_burst_pkts),
        (2, 20, 0)
    );
    assert!(!c.delayed_ack, "TCPSink acknowledges every packet");
    assert!(!c.sack && !c.timestamps && !c.handshake);
    assert!(c.limited_transmit, "singledup_ 1");
    assert!(
        c.fast_retransmit_restarts_timer,
        "reset_rtx_timer on a fast retransmit"
    );
    assert_eq!(c.window_growth, WindowGrowth::PerAck);
    assert_eq!(c.window_reduction, WindowReduction::Cwnd);
    let n = TcpConfig::ns3();
    assert_eq!(n.recovery, RecoveryKind::Prr);
    assert!(n.sack && n.timestamps && n.handshake && n.limited_transmit && n.hystart);
    assert!(!n.fast_retransmit_restarts_timer);
    assert_eq!(n.window_growth, WindowGrowth::PerSegment);
    assert_eq!(n.window_reduction, WindowReduction::Flight);
    assert_eq!(
        (n.packet_bytes - n.header_bytes, n.header_bytes, n.ack_bytes),
        (948, 52, 52)
    );
    assert_eq!(n.rtt_estimator, RttEstimatorKind::Rfc6298);
    assert_eq!(n.max_burst_pkts, 0);
}

#[test]
fn reno_times_out_on_two_losses_in_a_window_where_newreno_does_not() {
    let two_losses = |seq: u32, n: u32, _| (seq == 60 || seq == 63) && n == 1;
    // With ns-2's 20-segment window no duplicates follow the partial ACK; with a large one they
    // do, but they are for data sent before recovery began and start no second episode.
    for rwnd_pkts in [20, 1000] {
        let reno = TcpConfig {
            rwnd_pkts,
            ..TcpConfig::ns2()
        };
        let (tx, trace) = run_path(&reno, 5.0, RATE_BPS, DELAY_MS, two_losses);
        assert_eq!(tx.stats.fast_recoveries, 1, "Reno, rwnd {rwnd_pkts}");
        assert_eq!(
            tx.stats.timeouts, 1,
            "Reno, rwnd {rwnd_pkts}: the second hole times out"
        );
        assert!(trace.delivered > 1000);
    }

    let newreno = TcpConfig {
        recovery: RecoveryKind::NewReno,
        ..TcpConfig::ns2()
    };
    let (tx, trace) = run_path(&newreno, 5.0, RATE_BPS, DELAY_MS, two_losses);
    assert_eq!(tx.stats.fast_recoveries, 1, "NewReno");
    assert_eq!(
        tx.stats.timeouts, 0,
        "NewReno: the partial ACK repairs the second hole"
    );
    assert_eq!(
        tx.stats.retransmits, 2,
        "NewReno resends only the two lost segments"
    );
    assert!(trace.delivered > 1000);
}

#[test]
fn reno_leaves_recovery_on_a_partial_ack_with_half_the_window() {
    let (tx, trace) = run_path(&TcpConfig::ns2(), 2.0, RATE_BPS, DELAY_MS, |seq, n, _| {
        (seq == 60 || seq == 63) && n == 1
    });
    // The first ACK of new data after the fast retransmit (a partial one) ends recovery with
    // cwnd at half the 20-segment window (ns-2's window() is capped by window_), plus the
    // growth step ns-2 takes on every ACK of new data, 1/10; nothing else arrives until the
    // timer expires.
    let w: Vec<f64> = trace.cwnd.iter().map(|&(_, w)| w).collect();
    let falls: Vec<usize> = (1..w.len()).filter(|&i| w[i] < w[i - 1]).collect();
    // falls[0] enters fast recovery (ssthresh + 3), falls[1] leaves it.
    let exit = falls[1];
    assert_eq!(w[exit], 10.0 + 1.0 / 10.0, "deflated to half the window");
    let silence = trace.cwnd[exit + 1].0 - trace.cwnd[exit].0;
    assert!(silence >= s_to_ns(0.2), "the next ACK follows the timeout");
    assert_eq!(
        tx.stats.retransmits, 2,
        "one fast and one timeout retransmission"
    );
}

#[test]
fn ns2_rto_is_a_multiple_of_the_tick_and_never_below_min_rto() {
    let cfg = TcpConfig::ns2();
    // Short and long paths, with and without losses, to move the RTO above minrto_ and back
    // it off.
    for (delay_ms, loss_every) in [(10.0, 0), (60.0, 0), (60.0, 97), (150.0, 41)] {
        let (tx, trace) = run_path(&cfg, 20.0, RATE_BPS, delay_ms, |seq, n, _| {
            loss_every > 0 && seq % loss_every == 0 && n == 1
        });
        assert!(tx.stats.rtt_samples > 10);
        for &rto in &trace.rto_s {
            let ticks = rto / cfg.clock_granularity_s;
            assert!((ticks - ticks.round()).abs() < 1e-6, "RTO {rto} s");
            assert!(rto >= cfg.min_rto_s, "RTO {rto} s below minrto_");
        }
        if delay_ms > 100.0 {
            assert!(
                trace.rto_s.iter().any(|&r| r > cfg.min_rto_s),
                "long paths get RTOs above minrto_"
            );
        }
    }
}

#[test]
fn ns2_times_one_segment_per_rtt() {
    let duration_s = 5.0;
    let (tx, trace) = run_path(
        &TcpConfig::ns2(),
        duration_s,
        RATE_BPS,
        DELAY_MS,
        |_, _, _| false,
    );
    assert_eq!(tx.stats.retransmits, 0);
    let acks = trace.cwnd.len() as f64;
    // The RTT is 20 ms of propagation plus under a millisecond of serialisation.
    let rtts = duration_s / 0.021;
    let samples = tx.stats.rtt_samples as f64;
    assert!(
        samples > 0.9 * rtts && samples < 1.1 * rtts,
        "{samples} samples in about {rtts:.0} RTTs ({acks} ACKs)"
    );
    // RFC 6298 sampling takes one from every ACK of new data.
    let rfc = TcpConfig {
        rtt_estimator: RttEstimatorKind::Rfc6298,
        ..TcpConfig::ns2()
    };
    let (tx, trace) = run_path(&rfc, duration_s, RATE_BPS, DELAY_MS, |_, _, _| false);
    assert_eq!(tx.stats.rtt_samples, trace.cwnd.len() as u64);
}

#[test]
fn max_burst_limits_the_segments_sent_per_ack() {
    let cfg = TcpConfig {
        initial_cwnd_pkts: 10,
        max_burst_pkts: 3,
        ..TcpConfig::ns2()
    };
    let (_, trace) = run_path(&cfg, 2.0, RATE_BPS, DELAY_MS, |_, _, _| false);
    let mut per_instant = std::collections::BTreeMap::new();
    for &(t, _) in &trace.sends {
        *per_instant.entry(t).or_insert(0u32) += 1;
    }
    assert_eq!(
        per_instant[&0], 3,
        "the initial window goes out three at a time"
    );
    assert!(per_instant.values().all(|&n| n <= 3));
    let unlimited = TcpConfig {
        max_burst_pkts: 0,
        ..cfg
    };
    let (_, trace) = run_path(&unlimited, 2.0, RATE_BPS, DELAY_MS, |_, _, _| false);
    assert_eq!(trace.sends.iter().filter(|&&(t, _)| t == 0).count(), 10);
}

#[test]
fn ns2_runs_repeat_exactly() {
    let lossy = |seq: u32, n: u32, _| seq % 37 == 5 && n == 1;
    let (a, ta) = run_path(&TcpConfig::ns2(), 10.0, RATE_BPS, DELAY_MS, lossy);
    let (b, tb) = run_path(&TcpConfig::ns2(), 10.0, RATE_BPS, DELAY_MS, lossy);
    assert_eq!(ta.sends, tb.sends);
    assert_eq!(ta.rto_s, tb.rto_s);
    assert_eq!(format!("{:?}", a.stats), format!("{:?}", b.stats));
}
