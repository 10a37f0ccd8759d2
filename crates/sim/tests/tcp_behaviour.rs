//! TCP behaviour on a scripted two-host path: a sender and a receiver joined by a link of
//! fixed rate and delay, with chosen packets dropped. Checks fast retransmit, window
//! reduction (Reno ½, CUBIC 0.7), RTO back-off and loss-free link filling.

mod tcp_path;

use sim::tcp::cc::registry::CcKind;
use sim::tcp::config::{RecoveryKind, TcpConfig};
use sim::time::s_to_ns;
use tcp_path::run_path;

/// The `ns3` preset on the cumulative-ACK path (no SACK, NewReno recovery), whose window
/// steps are easy to read; SACK and PRR have their own tests in `tcp_sack.rs`.
fn config(cc: CcKind) -> TcpConfig {
    TcpConfig {
        cc,
        rwnd_pkts: 10_000,
        sack: false,
        recovery: RecoveryKind::NewReno,
        ..TcpConfig::ns3()
    }
}

#[test]
fn one_flow_without_loss_fills_the_link() {
    // 10 Mb/s, 20 ms RTT: BDP = 25 packets; a 40-packet receiver window keeps the flow
    // window-limited, so nothing is lost and the link stays busy.
    let cfg = TcpConfig {
        rwnd_pkts: 40,
        ..TcpConfig::ns3()
    };
    let (tx, trace) = run_path(&cfg, 10.0, 10_000_000, 10.0, |_, _, _| false);
    assert_eq!(tx.stats.retransmits, 0);
    assert_eq!(tx.stats.timeouts, 0);
    let capacity_pkts = 10e6 * 10.0 / 8.0 / 1000.0;
    let share = f64::from(trace.delivered) / capacity_pkts;
    assert!(share > 0.97, "delivered {share:.3} of capacity");
}

#[test]
fn a_single_loss_is_repaired_by_fast_retransmit() {
    for cc in [CcKind::Reno, CcKind::Cubic] {
        let cfg = config(cc);
        let (tx, trace) = run_path(&cfg, 5.0, 10_000_000, 10.0, |seq, n, _| seq == 60 && n == 1);
        assert_eq!(tx.stats.fast_recoveries, 1, "{cc:?}");
        assert_eq!(tx.stats.timeouts, 0, "{cc:?}");
        assert_eq!(
            tx.stats.retransmits, 1,
            "{cc:?}: only the lost segment is resent"
        );
        assert!(trace.sends.iter().filter(|s| s.1 == 60).count() == 2);
    }
}

#[test]
fn window_falls_by_half_for_reno_and_to_point_seven_for_cubic() {
    for (cc, factor) in [(CcKind::Reno, 0.5), (CcKind::Cubic, 0.7)] {
        let cfg = config(cc);
        // Let slow start end on a first loss, then measure the reduction at a second one
        // deep in congestion avoidance.
        let loss_at = s_to_ns(2.0);
        let mut lost = false;
        let (_, trace) = run_path(&cfg, 4.0, 10_000_000, 10.0, |seq, n, t| {
            let second = !lost && t >= loss_at && n == 1;
            lost |= second;
            (seq == 40 && n == 1) || second
        });
        // Entry into fast recovery is the first fall of the window after the loss; the window
        // it had just before is what gets reduced. Recovery ends with the next fall, to
        // ssthresh.
        let after_loss = trace
            .cwnd
            .iter()
            .position(|&(t, _)| t > loss_at)
            .expect("ACKs after the loss");
        let falls: Vec<usize> = (after_loss..trace.cwnd.len())
            .filter(|&i| trace.cwnd[i].1 < trace.cwnd[i - 1].1)
            .take(2)
            .collect();
        let cwnd_before = trace.cwnd[falls[0] - 1].1;
        let after = trace.cwnd[falls[1]].1;
        let ratio = after / cwnd_before;
        assert!(
            (ratio - factor).abs() < 0.02,
            "{cc:?}: cwnd {cwnd_before:.1} -> {after:.1}, ratio {ratio:.3}"
        );
    }
}

#[test]
fn rto_backs_off_exponentially() {
    // Everything sent after 1 s is lost: the oldest segment is retransmitted at intervals
    // that double (MinRto 1 s keeps the first one at 1 s).
    let cfg = config(CcKind::Reno);
    let cut = s_to_ns(1.0);
    let (tx, trace) = run_path(&cfg, 40.0, 10_000_000, 10.0, |_, _, t| t >= cut);
    let head = trace
        .sends
        .iter()
        .filter(|&&(t, _)| t >= cut)
        .map(|&(_, s)| s)
        .min()
        .expect("sends after the cut");
    let retx: Vec<u64> = trace
        .sends
        .iter()
        .filter(|&&(t, s)| s == head && t > cut)
        .map(|&(t, _)| t)
        .skip(1) // the original transmission; the rest are timer-driven
        .collect();
    let gaps: Vec<f64> = retx
        .windows(2)
        .map(|w| (w[1] - w[0]) as f64 * 1e-9)
        .collect();
    assert!(gaps.len() >= 3, "gaps {gaps:?}");
    for pair in gaps.windows(2) {
        assert!((pair[1] / pair[0] - 2.0).abs() < 1e-6, "gaps {gaps:?}");
    }
    assert!(tx.stats.timeouts >= 4);
}
