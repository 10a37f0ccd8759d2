//! ns-2.35's Agent/TCP/Newreno and Agent/TCP/Sack1 in the `ns2` preset, on a scripted two-host
//! path: NewReno's timer restarted by the first partial ACK only and its deflation of the
//! window recovery returns to; Sack1's repair of every hole within one RTT, its `pipe`, and its
//! go-back-N after a timeout.

mod tcp_path;

use sim::tcp::config::{RecoveryExit, RecoveryKind, TcpConfig};
use sim::time::s_to_ns;
use tcp_path::{run_path, Trace};

/// 10 Mb/s and 10 ms each way.
const RATE_BPS: u64 = 10_000_000;
const DELAY_MS: f64 = 10.0;

fn ns2_newreno() -> TcpConfig {
    TcpConfig {
        recovery: RecoveryKind::NewReno,
        ..TcpConfig::ns2()
    }
}

fn ns2_sack1() -> TcpConfig {
    TcpConfig {
        recovery: RecoveryKind::Sack1,
        sack: true,
        ..TcpConfig::ns2()
    }
}

/// Time of the `nth` transmission of segment `seq`.
fn sent_at(trace: &Trace, seq: u32, nth: usize) -> u64 {
    trace
        .sends
        .iter()
        .filter(|&&(_, s)| s == seq)
        .nth(nth - 1)
        .expect("the segment was sent that often")
        .0
}

/// Index of the ACK after which segment `seq` went out for the `nth` time.
fn ack_before_send(trace: &Trace, seq: u32, nth: usize) -> usize {
    let t = sent_at(trace, seq, nth);
    trace
        .cwnd
        .iter()
        .rposition(|&(at, _)| at == t)
        .expect("an ACK triggered the send")
}

fn losses(seqs: &'static [u32]) -> impl FnMut(u32, u32, u64) -> bool {
    move |seq, n, _| n == 1 && seqs.contains(&seq)
}

#[test]
fn newreno_restarts_the_timer_at_the_first_partial_ack_only() {
    let cfg = TcpConfig {
        rwnd_pkts: 1000,
        ..ns2_newreno()
    };
    let (tx, trace) = run_path(&cfg, 3.0, RATE_BPS, DELAY_MS, losses(&[60, 63, 66]));
    assert_eq!(
        (
            tx.stats.fast_recoveries,
            tx.stats.timeouts,
            tx.stats.retransmits
        ),
        (1, 0, 3),
        "each partial ACK repairs one hole"
    );
    let first = ack_before_send(&trace, 63, 2);
    let second = ack_before_send(&trace, 66, 2);
    let t = trace.cwnd[first].0;
    assert_eq!(
        trace.rto_deadline_ns[first],
        Some(t + s_to_ns(trace.rto_s[first])),
        "the first partial ACK restarts the timer"
    );
    assert!(
        trace.rto_deadline_ns[first..=second]
            .iter()
            .all(|&d| d == trace.rto_deadline_ns[first]),
        "later partial ACKs and duplicates leave it running (RFC 6582, newreno_changes1_)"
    );
}

#[test]
fn ns2_newreno_deflates_the_window_recovery_returns_to() {
    // With the 20-segment window full (60..79), losing 60 and 79 leaves 18 duplicates:
    // cwnd = 10 + 18 when the partial ACK of 60..78 (19 segments) arrives. The inflation pays
    // 18 of them and the reduced window the 19th (ns-2: cwnd_ = 9, dupwnd_ = 1).
    let exit_windows = |exit: RecoveryExit| {
        let cfg = TcpConfig {
            recovery_exit: exit,
            ..ns2_newreno()
        };
        let (tx, trace) = run_path(&cfg, 3.0, RATE_BPS, DELAY_MS, losses(&[60, 79]));
        assert_eq!((tx.stats.timeouts, tx.stats.retransmits), (0, 2));
        let partial = ack_before_send(&trace, 79, 2);
        (
            trace.cwnd[partial - 1].1,
            trace.cwnd[partial].1,
            trace.cwnd[partial + 1].1,
        )
    };
    assert_eq!(
        exit_windows(RecoveryExit::Ssthresh),
        (28.0, 10.0, 10.0 + 1.0 / 10.0),
        "RFC 6582: back to ssthresh, then one step of congestion avoidance"
    );
    assert_eq!(
        exit_windows(RecoveryExit::Deflated),
        (28.0, 10.0, 9.0 + 1.0),
        "ns-2: back to 9, below ssthresh 10, so the exit ACK adds a slow-start step"
    );
}

#[test]
fn sack1_resends_every_hole_at_once_where_newreno_takes_an_rtt_each() {
    let open = |cfg: TcpConfig| TcpConfig {
        rwnd_pkts: 1000,
        ..cfg
    };
    let (tx, trace) = run_path(
        &open(ns2_sack1()),
        3.0,
        RATE_BPS,
        DELAY_MS,
        losses(&[60, 63, 66]),
    );
    assert_eq!(
        (
            tx.stats.fast_recoveries,
            tx.stats.timeouts,
            tx.stats.retransmits
        ),
        (1, 0, 3)
    );
    let resends: Vec<u32> = trace
        .sends
        .iter()
        .filter(|&&(t, _)| t >= sent_at(&trace, 60, 2))
        .map(|&(_, s)| s)
        .take(4)
        .collect();
    assert_eq!(
        resends[..3],
        [60, 63, 66],
        "the holes below the highest SACK go first"
    );
    assert!(resends[3] > 66, "then new data");
    let sack1_last_hole_ns = sent_at(&trace, 66, 2);

    // NewReno resends a hole per partial ACK, one round trip apart.
    let (_, trace) = run_path(
        &open(ns2_newreno()),
        3.0,
        RATE_BPS,
        DELAY_MS,
        losses(&[60, 63, 66]),
    );
    let rtt_ns = s_to_ns(2.0 * DELAY_MS / 1e3);
    assert!(sent_at(&trace, 63, 2) - sent_at(&trace, 60, 2) > rtt_ns);
    assert!(sent_at(&trace, 66, 2) - sent_at(&trace, 63, 2) > rtt_ns);
    assert!(
        sack1_last_hole_ns < sent_at(&trace, 63, 2),
        "Sack1 has resent every hole before NewReno's first partial ACK"
    );
}

#[test]
fn sack1_sends_in_recovery_once_pipe_falls_below_cwnd() {
    // pipe = outstanding − 3 at the fast retransmit; each duplicate takes one from it, and a
    // segment goes out once pipe < cwnd, then one per duplicate.
    let cfg = TcpConfig {
        rwnd_pkts: 1000,
        ..ns2_sack1()
    };
    let (tx, trace) = run_path(&cfg, 2.0, RATE_BPS, DELAY_MS, losses(&[60]));
    assert_eq!((tx.stats.timeouts, tx.stats.retransmits), (0, 1));
    let fast = ack_before_send(&trace, 60, 2);
    let fast_ns = sent_at(&trace, 60, 2);
    let high = trace
        .sends
        .iter()
        .filter(|&&(t, _)| t < fast_ns)
        .map(|&(_, s)| s + 1)
        .max()
        .unwrap();
    let pipe = i64::from(high - 60) - 3;
    let cwnd = trace.cwnd[fast].1;
    assert_eq!(cwnd, 31.0, "halved");
    let wait = (pipe - cwnd as i64 + 1) as usize;
    assert_eq!(ack_before_send(&trace, high, 1), fast + wait);
    assert_eq!(ack_before_send(&trace, high + 1, 1), fast + wait + 1);
}

#[test]
fn sack1_goes_back_n_after_a_timeout() {
    // Two holes whose retransmissions are lost too: the timer fires, the SACK information is
    // forgotten, and the segment after the second hole, which the receiver holds, is sent
    // again when the window reaches it.
    let (tx, trace) = run_path(&ns2_sack1(), 3.0, RATE_BPS, DELAY_MS, |seq, n, _| {
        (seq == 60 || seq == 70) && n <= 2
    });
    assert_eq!(tx.stats.timeouts, 1);
    let after_timeout = sent_at(&trace, 60, 3);
    assert!(
        trace
            .sends
            .iter()
            .any(|&(t, s)| t > after_timeout && s == 71),
        "71, delivered and SACKed before, is resent"
    );
}
