//! SACK loss recovery, PRR, limited transmit, timestamps and the connection set-up of the
//! `ns3` preset on a scripted two-host path (a link of fixed rate and delay, chosen data
//! packets dropped).

mod tcp_path;

use sim::tcp::cc::registry::CcKind;
use sim::tcp::config::{RecoveryKind, TcpConfig};
use sim::tcp::sender::Connection;
use sim::time::s_to_ns;
use tcp_path::run_path;

const RATE_BPS: u64 = 10_000_000;
const DELAY_MS: f64 = 10.0;

/// The `ns3` preset with Reno growth and a large receiver window, so that the window at a
/// chosen time is predictable.
fn ns3(sack: bool) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Reno,
        hystart: false,
        rwnd_pkts: 10_000,
        sack,
        recovery: if sack {
            RecoveryKind::Prr
        } else {
            RecoveryKind::NewReno
        },
        ..TcpConfig::ns3()
    }
}

/// How many times each segment was sent.
fn sends_of(trace: &tcp_path::Trace, seq: u32) -> usize {
    trace.sends.iter().filter(|s| s.1 == seq).count()
}

/// When the segments of `lost` were sent the second time (each was sent once before).
fn resend_times(trace: &tcp_path::Trace, lost: &[u32]) -> Vec<u64> {
    let first_sends = lost.len();
    trace
        .sends
        .iter()
        .filter(|s| lost.contains(&s.1))
        .skip(first_sends)
        .map(|s| s.0)
        .collect()
}

#[test]
fn three_losses_in_one_window_are_repaired_in_one_rtt_by_sack() {
    let lost = [200u32, 203, 207];
    let drop = |seq: u32, n: u32, _| lost.contains(&seq) && n == 1;
    let (tx, trace) = run_path(&ns3(true), 5.0, RATE_BPS, DELAY_MS, drop);
    assert_eq!(tx.stats.timeouts, 0);
    assert_eq!(tx.stats.fast_recoveries, 1);
    assert_eq!(
        tx.stats.retransmits, 3,
        "only the three lost segments are resent"
    );
    for seq in lost {
        assert_eq!(sends_of(&trace, seq), 2, "segment {seq}");
    }
    // All three retransmissions leave within one RTT of the first.
    let resent = resend_times(&trace, &lost);
    let rtt_ns = s_to_ns(2.0 * DELAY_MS / 1e3);
    assert!(
        resent[2] - resent[0] < rtt_ns,
        "retransmissions at {resent:?}"
    );
    // Without SACK, NewReno needs one RTT per hole.
    let (tx, trace) = run_path(&ns3(false), 5.0, RATE_BPS, DELAY_MS, drop);
    assert_eq!(tx.stats.timeouts, 0);
    let resent = resend_times(&trace, &lost);
    assert!(
        resent[2] - resent[0] >= 2 * rtt_ns,
        "NewReno retransmissions at {resent:?}"
    );
}

#[test]
fn no_segment_is_delivered_twice_with_sack() {
    let lost = [150u32, 151, 160, 171, 172, 173];
    let (_, trace) = run_path(&ns3(true), 5.0, RATE_BPS, DELAY_MS, |seq, n, _| {
        lost.contains(&seq) && n == 1
    });
    let mut counts = std::collections::HashMap::new();
    for &(_, seq) in &trace.sends {
        *counts.entry(seq).or_insert(0) += 1;
    }
    let twice: Vec<u32> = counts
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(&s, _)| s)
        .collect();
    let mut twice = twice;
    twice.sort_unstable();
    assert_eq!(twice, lost.to_vec(), "segments sent more than once");
}

#[test]
fn after_a_timeout_only_the_holes_are_resent() {
    // Lose 300 and 305, and the first retransmission of 300 too, so that recovery stalls and
    // the retransmission timer fires; segments SACKed before the timeout are not resent.
    let drop = |seq: u32, n: u32, _| (seq == 300 && n <= 2) || (seq == 305 && n == 1);
    let (tx, trace) = run_path(&ns3(true), 8.0, RATE_BPS, DELAY_MS, drop);
    assert_eq!(tx.stats.timeouts, 1);
    assert_eq!(sends_of(&trace, 300), 3);
    assert_eq!(sends_of(&trace, 305), 2);
    for seq in (301..305).chain(306..320) {
        assert_eq!(
            sends_of(&trace, seq),
            1,
            "segment {seq} was SACKed and not resent"
        );
    }
    // Without SACK the timeout goes back to 300 and resends what the receiver already had.
    let (_, trace) = run_path(&ns3(false), 8.0, RATE_BPS, DELAY_MS, drop);
    assert!(
        sends_of(&trace, 302) >= 2,
        "go-back-N resends received segments"
    );
}

#[test]
fn the_connection_opens_with_a_syn_before_any_data() {
    let cfg = ns3(true);
    let (tx, trace) = run_path(&cfg, 1.0, RATE_BPS, DELAY_MS, |_, _, _| false);
    assert_eq!(tx.connection(), Connection::Established);
    // The first data segment waits for the SYN-ACK: one RTT (20 ms plus serialisation).
    assert!(trace.sends[0].0 >= s_to_ns(0.020));
    assert!(tx.stats.rtt_samples > 0);
}

#[test]
fn the_connection_is_abandoned_after_data_retries_timeouts_of_one_segment() {
    let cfg = ns3(true);
    // Segment 10 never gets through: timeouts after 1, 2, 4, … s (MinRto 1 s, doubling).
    let (tx, trace) = run_path(&cfg, 200.0, RATE_BPS, DELAY_MS, |seq, _, _| seq == 10);
    assert_eq!(tx.connection(), Connection::Aborted);
    assert_eq!(tx.stats.timeouts, u64::from(cfg.data_retries));
    assert_eq!(tx.stats.aborted, 1);
    // The first send, the fast retransmit, and one resend per timeout but the last.
    assert_eq!(sends_of(&trace, 10), 2 + cfg.data_retries as usize);
}

#[test]
fn a_timestamp_sample_after_a_retransmission_clears_the_back_off() {
    // One segment in flight at a time: the ACK of a retransmitted segment acknowledges nothing
    // else, so Karn's rule gives no sample from it while the timestamp echo does.
    let rto_after_repair = |timestamps: bool| {
        let cfg = TcpConfig {
            rwnd_pkts: 1,
            delayed_ack: false,
            timestamps,
            ..ns3(false)
        };
        let (tx, trace) = run_path(&cfg, 4.0, RATE_BPS, DELAY_MS, |seq, n, _| {
            seq == 20 && n == 1
        });
        assert_eq!(tx.stats.timeouts, 1);
        // The RTO in force after the ACK that repaired segment 20 (the 21st ACK of data, after
        // the SYN-ACK).
        trace.rto_s[21]
    };
    assert_eq!(rto_after_repair(true), 1.0, "MinRto, back-off cleared");
    assert_eq!(rto_after_repair(false), 2.0, "Karn: the back-off stays");
}

#[test]
fn limited_transmit_sends_new_data_on_the_first_two_duplicates() {
    let cfg = |limited_transmit| TcpConfig {
        limited_transmit,
        ..ns3(false)
    };
    let drop = |seq: u32, n: u32, _| seq == 100 && n == 1;
    let (_, with) = run_path(&cfg(true), 3.0, RATE_BPS, DELAY_MS, drop);
    let (_, without) = run_path(&cfg(false), 3.0, RATE_BPS, DELAY_MS, drop);
    // The retransmission of 100 follows two more new segments with limited transmit.
    let new_before = |t: &tcp_path::Trace| {
        let resent_at = t.sends.iter().filter(|s| s.1 == 100).nth(1).unwrap().0;
        let before = t
            .sends
            .iter()
            .take_while(|s| s.0 < resent_at)
            .map(|s| s.1)
            .max()
            .unwrap();
        before
    };
    assert_eq!(new_before(&with), new_before(&without) + 2);
}
