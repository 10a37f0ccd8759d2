//! ns-2.35's window arithmetic in the `ns2` preset, on a scripted two-host path: the timer a
//! fast retransmit restarts, cwnd halved with an integer ssthresh, growth per ACK, and one
//! `recover` guarding both loss and ECN reductions.

mod tcp_path;

use sim::tcp::config::{EcnResponse, TcpConfig, WindowGrowth, WindowReduction};
use sim::time::s_to_ns;
use tcp_path::{run_path, run_path_marked, Trace};

/// 10 Mb/s and 10 ms each way.
const RATE_BPS: u64 = 10_000_000;
const DELAY_MS: f64 = 10.0;

/// The `ns2` preset with a receiver window that never limits these runs.
fn ns2_open() -> TcpConfig {
    TcpConfig {
        rwnd_pkts: 1000,
        ..TcpConfig::ns2()
    }
}

/// Index of the ACK after which segment `seq` went out for the `nth` time.
fn ack_before_send(trace: &Trace, seq: u32, nth: usize) -> usize {
    let t = trace
        .sends
        .iter()
        .filter(|&&(_, s)| s == seq)
        .nth(nth - 1)
        .expect("the segment was sent that often")
        .0;
    trace
        .cwnd
        .iter()
        .rposition(|&(at, _)| at == t)
        .expect("an ACK triggered the send")
}

#[test]
fn a_fast_retransmit_restarts_the_timer_when_asked() {
    let one_loss = |seq: u32, n: u32, _| seq == 60 && n == 1;
    let (_, trace) = run_path(&ns2_open(), 2.0, RATE_BPS, DELAY_MS, one_loss);
    let i = ack_before_send(&trace, 60, 2);
    let t = trace.cwnd[i].0;
    assert_eq!(
        trace.rto_deadline_ns[i],
        Some(t + s_to_ns(trace.rto_s[i])),
        "ns-2's reset_rtx_timer: a full RTO from the fast retransmit"
    );

    let ns3_like = TcpConfig {
        fast_retransmit_restarts_timer: false,
        ..ns2_open()
    };
    let (_, trace) = run_path(&ns3_like, 2.0, RATE_BPS, DELAY_MS, one_loss);
    let i = ack_before_send(&trace, 60, 2);
    let deadline = trace.rto_deadline_ns[i].expect("data is outstanding");
    assert!(
        deadline < trace.cwnd[i].0 + s_to_ns(trace.rto_s[i]),
        "the timer runs on from the last ACK of new data"
    );
}

#[test]
fn ns2_halves_cwnd_and_keeps_ssthresh_an_integer() {
    // The first loss ends slow start; the second comes in congestion avoidance, where cwnd has
    // a fraction.
    let losses = |seq: u32, n: u32, _| (seq == 30 || seq == 400) && n == 1;
    for reduction in [WindowReduction::Cwnd, WindowReduction::Flight] {
        let cfg = TcpConfig {
            window_reduction: reduction,
            ..ns2_open()
        };
        let (tx, trace) = run_path(&cfg, 3.0, RATE_BPS, DELAY_MS, losses);
        assert_eq!(tx.stats.fast_recoveries, 2);
        assert_eq!(tx.stats.timeouts, 0);
        let i = ack_before_send(&trace, 400, 2);
        let before = trace.cwnd[i - 1].1;
        assert!(before.fract() > 0.0, "cwnd {before} has a fraction");
        let entered = trace.cwnd[i].1;
        match reduction {
            WindowReduction::Cwnd => {
                assert_eq!(entered, before / 2.0 + 3.0, "cwnd/2 inflated by 3");
                assert_eq!(tx.ssthresh_pkts(), (before / 2.0).floor());
            }
            WindowReduction::Flight => {
                // The flight: the window's whole segments and the two that limited transmit
                // sent on the first two duplicates.
                let flight = before.floor() + 2.0;
                assert_eq!(tx.ssthresh_pkts(), flight / 2.0);
                assert_eq!(entered, flight / 2.0 + 3.0);
            }
        }
    }
}

#[test]
fn ns2_grows_once_per_ack_when_a_hole_is_filled() {
    // Segment 60 is lost twice: the fast retransmission too, so the timer fires, and the ACK
    // of the third copy covers everything the receiver buffered meanwhile.
    let lost_twice = |seq: u32, n: u32, _| seq == 60 && n <= 2;
    for growth in [WindowGrowth::PerAck, WindowGrowth::PerSegment] {
        let cfg = TcpConfig {
            window_growth: growth,
            ..ns2_open()
        };
        let (tx, trace) = run_path(&cfg, 3.0, RATE_BPS, DELAY_MS, lost_twice);
        assert_eq!(tx.stats.timeouts, 1);
        // The timeout sets cwnd to 1; duplicates of data sent before it leave cwnd there, and
        // the first ACK that moves it is the cumulative jump.
        let after_timeout = trace
            .cwnd
            .iter()
            .position(|&(_, w)| w == 1.0)
            .expect("the timeout leaves cwnd at one segment");
        let jump = (after_timeout..trace.cwnd.len())
            .find(|&k| trace.cwnd[k].1 != 1.0)
            .expect("the hole is filled");
        let grown = trace.cwnd[jump].1;
        match growth {
            WindowGrowth::PerAck => assert_eq!(grown, 2.0, "ns-2's opencwnd: +1 per ACK"),
            WindowGrowth::PerSegment => assert!(grown > 10.0, "+1 per segment: {grown}"),
        }
    }
}

#[test]
fn ns2_leaves_reno_recovery_at_half_the_window_plus_one_growth_step() {
    let one_loss = |seq: u32, n: u32, _| seq == 400 && n == 1;
    let (tx, trace) = run_path(&ns2_open(), 3.0, RATE_BPS, DELAY_MS, |s, n, t| {
        s == 30 && n == 1 || one_loss(s, n, t)
    });
    assert_eq!(tx.stats.timeouts, 0);
    let i = ack_before_send(&trace, 400, 2);
    let half = trace.cwnd[i - 1].1 / 2.0;
    // The first ACK of new data after the fast retransmit ends recovery.
    let exit = (i + 1..trace.cwnd.len())
        .find(|&k| trace.cwnd[k].1 < trace.cwnd[k - 1].1)
        .expect("recovery ends");
    let expected = half + 1.0 / half;
    assert!(
        (trace.cwnd[exit].1 - expected).abs() < 1e-9,
        "cwnd {} after recovery, expected {expected}",
        trace.cwnd[exit].1
    );
}

#[test]
fn one_recover_guards_loss_and_ecn_reductions() {
    let ecn = TcpConfig {
        ecn: true,
        ..ns2_open()
    };
    // CE on segment 400, then segment 405 lost in the same window: one cut only, and the loss
    // is still repaired by a fast retransmit.
    let (tx, trace) = run_path_marked(
        &ecn,
        3.0,
        RATE_BPS,
        DELAY_MS,
        |seq, n, _| (seq == 30 || seq == 405) && n == 1,
        |seq, n| seq == 400 && n == 1,
    );
    assert_eq!(tx.stats.ecn_reductions, 1);
    assert_eq!(
        tx.stats.fast_recoveries, 2,
        "the ECE, then the loss: one fast retransmit each"
    );
    assert_eq!(tx.stats.timeouts, 0);
    let i = ack_before_send(&trace, 405, 2);
    let before_loss = trace.cwnd[i - 1].1;
    assert_eq!(
        trace.cwnd[i].1,
        before_loss + 3.0,
        "no second cut: only the inflation"
    );

    // Segment 400 lost, CE on 405 in the same window: the ECE is not answered.
    let (tx, _) = run_path_marked(
        &ecn,
        3.0,
        RATE_BPS,
        DELAY_MS,
        |seq, n, _| (seq == 30 || seq == 400) && n == 1,
        |seq, n| seq == 405 && n == 1,
    );
    assert_eq!(tx.stats.ecn_reductions, 0);
    assert_eq!(tx.stats.fast_recoveries, 2);
}

#[test]
fn ns2_echoes_hold_the_window_and_can_stall_it_below_one_segment() {
    // Every segment from 100 on arrives marked, so every ACK after that carries ECE.
    let ecn = |response| TcpConfig {
        ecn: true,
        ecn_response: response,
        ..ns2_open()
    };
    let marked = |seq: u32, _| seq >= 100;
    let (_, trace) = run_path_marked(
        &ecn(EcnResponse::Ns2),
        10.0,
        RATE_BPS,
        DELAY_MS,
        |_, _, _| false,
        marked,
    );
    let first_cut = (1..trace.cwnd.len())
        .find(|&i| trace.cwnd[i].1 < trace.cwnd[i - 1].1)
        .expect("the first echo cuts");
    for k in first_cut + 1..trace.cwnd.len() {
        let (before, after) = (trace.cwnd[k - 1].1, trace.cwnd[k].1);
        assert!(
            after <= before || after == 1.0,
            "an ACK with ECE grew cwnd from {before} to {after}"
        );
    }
    assert!(
        trace.cwnd.iter().any(|&(_, w)| w == 0.5),
        "an echo at cwnd 1 halves it to 0.5"
    );
    // Below one segment nothing is sent until the timer fires; the second such echo in a
    // row doubles the timer.
    let late: Vec<u64> = trace
        .sends
        .iter()
        .map(|&(t, _)| t)
        .filter(|&t| t > trace.cwnd[first_cut].0)
        .collect();
    let gaps: Vec<u64> = late.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        gaps.iter().any(|&g| g >= s_to_ns(0.2)),
        "a stall of one RTO"
    );
    assert!(
        gaps.iter().any(|&g| g >= s_to_ns(0.4)),
        "a backed-off stall"
    );

    let (_, trace) = run_path_marked(
        &ecn(EcnResponse::Rfc3168),
        10.0,
        RATE_BPS,
        DELAY_MS,
        |_, _, _| false,
        marked,
    );
    assert!(
        trace.cwnd.iter().all(|&(_, w)| w >= 1.0),
        "RFC 3168: never below one"
    );
}
