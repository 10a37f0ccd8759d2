//! CUBIC as ns-3.37's TcpCubic: HyStart on a scripted path, and the window rules (Reno-
//! friendly region, cnt clamping, reset on timeout, ssthresh from cwnd with fast convergence)
//! through the congestion-control interface with a synthetic ACK clock.

mod tcp_path;

use sim::tcp::cc::registry::CcKind;
use sim::tcp::cc::{AckedInfo, CongestionControl, Controller};
use sim::tcp::config::TcpConfig;
use sim::time::{ns_to_s, tx_time_ns};
use tcp_path::run_path;

/// 10 Mb/s and 50 ms each way: a 100 ms RTT, a bandwidth-delay product of 125 packets.
const RATE_BPS: u64 = 10_000_000;
const DELAY_MS: f64 = 50.0;
/// Drop-tail buffer in front of the link, packets: overflows only far above the BDP.
const BUFFER_PKTS: u64 = 400;

/// A drop-tail buffer of `limit_pkts` in front of the path's link, mirroring its timing.
struct DropTail {
    tx_ns: u64,
    limit_pkts: u64,
    link_free_ns: u64,
    first_drop_ns: Option<u64>,
}

impl DropTail {
    fn new(cfg: &TcpConfig) -> Self {
        DropTail {
            tx_ns: tx_time_ns(cfg.packet_bytes, RATE_BPS),
            limit_pkts: BUFFER_PKTS,
            link_free_ns: 0,
            first_drop_ns: None,
        }
    }

    /// Whether a data packet sent at `now_ns` finds the buffer full.
    fn drops(&mut self, now_ns: u64) -> bool {
        let backlog_pkts = self
            .link_free_ns
            .saturating_sub(now_ns)
            .div_ceil(self.tx_ns);
        if backlog_pkts >= self.limit_pkts {
            self.first_drop_ns.get_or_insert(now_ns);
            return true;
        }
        self.link_free_ns = self.link_free_ns.max(now_ns) + self.tx_ns;
        false
    }
}

/// A bulk flow over the drop-tail path for `duration_s`: the time of the first drop and
/// ssthresh at that moment (at the end of the run when nothing dropped).
fn until_first_drop(cfg: &TcpConfig, duration_s: f64) -> (Option<u64>, f64) {
    let mut q = DropTail::new(cfg);
    run_path(cfg, duration_s, RATE_BPS, DELAY_MS, |_, _, now| {
        q.drops(now)
    });
    let first_drop_ns = q.first_drop_ns;
    // The run is deterministic: rerun it up to the first drop, which no ACK has reported yet.
    let until_s = first_drop_ns.map_or(duration_s, ns_to_s);
    let mut q = DropTail::new(cfg);
    let (tx, _) = run_path(cfg, until_s, RATE_BPS, DELAY_MS, |_, _, now| q.drops(now));
    (first_drop_ns, tx.ssthresh_pkts())
}

fn path_cfg(hystart: bool) -> TcpConfig {
    TcpConfig {
        hystart,
        rwnd_pkts: 100_000,
        ..TcpConfig::ns3()
    }
}

#[test]
fn hystart_leaves_slow_start_before_the_first_loss_on_a_long_path() {
    let (hystart_drop_ns, ssthresh) = until_first_drop(&path_cfg(true), 20.0);
    assert!(
        ssthresh.is_finite(),
        "HyStart ended slow start before the first drop ({hystart_drop_ns:?} ns)"
    );
    // The ACK train must span a whole minimum RTT, so slow start ends once the window is
    // past the bandwidth-delay product (125), well short of the 525 packets (BDP + buffer)
    // at which the buffer overflows.
    assert!(
        (125.0..=400.0).contains(&ssthresh),
        "ssthresh {ssthresh} at HyStart's exit"
    );

    let (plain_drop_ns, ssthresh) = until_first_drop(&path_cfg(false), 20.0);
    let plain_drop_ns = plain_drop_ns.expect("slow start overflows the buffer");
    assert!(
        ssthresh.is_infinite(),
        "without HyStart slow start runs until the loss ({ssthresh})"
    );
    let mut q = DropTail::new(&path_cfg(false));
    let (tx, _) = run_path(&path_cfg(false), 20.0, RATE_BPS, DELAY_MS, |_, _, now| {
        q.drops(now)
    });
    assert!(tx.ssthresh_pkts().is_finite(), "the loss ends slow start");
    // Congestion avoidance from HyStart's exit fills the buffer seconds later than slow start.
    assert!(
        hystart_drop_ns.is_none_or(|t| t > plain_drop_ns + 1_000_000_000),
        "first drop with HyStart {hystart_drop_ns:?} ns, without {plain_drop_ns} ns"
    );
}

/// An ACK of `acked_pkts` at `now_s` with a smoothed RTT of `srtt_s`.
fn ack(now_s: f64, acked_pkts: u32, srtt_s: f64) -> AckedInfo {
    AckedInfo {
        acked_pkts,
        snd_una: 0,
        snd_max: 0,
        rtt_sample_s: Some(srtt_s),
        newest_rtt_s: None,
        now_s,
        srtt_s: Some(srtt_s),
        min_rtt_s: None,
        ece: false,
    }
}

/// Congestion avoidance from `cwnd_pkts` for `duration_s`, one ACK per segment, a window's
/// worth of ACKs per `rtt_s`, each ACK through on_pkts_acked and increase_window.
fn avoid(
    cc: &mut CongestionControl,
    cwnd_pkts: f64,
    start_s: f64,
    duration_s: f64,
    rtt_s: f64,
) -> f64 {
    let mut cwnd = cwnd_pkts;
    let mut t = start_s;
    while t < start_s + duration_s {
        let a = ack(t, 1, rtt_s);
        assert_eq!(cc.on_pkts_acked(&a, cwnd, 1.0), None);
        cwnd = cc.increase_window(&a, cwnd, 1.0);
        t += rtt_s / cwnd;
    }
    cwnd
}

fn cubic(friendliness: bool) -> CongestionControl {
    CongestionControl::new(&TcpConfig {
        cubic_friendliness: friendliness,
        ..TcpConfig::ns3()
    })
}

#[test]
fn reno_friendly_region_speeds_growth_on_a_short_rtt() {
    // After a loss at 100 segments with a 10 ms RTT, Reno's α = 0.53 segment per RTT (53 per
    // second) outgrows the cubic curve's start (about 3C·K² ≈ 21 segments per second).
    let mut results = Vec::new();
    for friendliness in [false, true] {
        let mut cc = cubic(friendliness);
        let cwnd = cc.ssthresh_after_congestion(100.0, 100);
        assert_eq!(cwnd, 70.0);
        results.push(avoid(&mut cc, cwnd, 0.0, 1.0, 0.01));
    }
    let (plain, friendly) = (results[0], results[1]);
    assert!(
        friendly > plain + 10.0,
        "friendly {friendly} vs plain {plain}"
    );
    // On a 500 ms RTT the cubic curve is ahead and the region changes nothing.
    let mut results = Vec::new();
    for friendliness in [false, true] {
        let mut cc = cubic(friendliness);
        let cwnd = cc.ssthresh_after_congestion(100.0, 100);
        results.push(avoid(&mut cc, cwnd, 0.0, 3.0, 0.5));
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn cnt_is_clamped_until_the_first_loss() {
    // No loss yet (W_max = 0): the curve starts at cwnd and, right at the epoch's start, is
    // flat, yet cwnd grows one segment per 20 acknowledged.
    let mut cc = cubic(false);
    let cwnd = (0..40).fold(100.0, |cwnd, i| {
        cc.increase_window(&ack(1.0 + f64::from(i) * 1e-4, 1, 0.0), cwnd, 50.0)
    });
    assert_eq!(cwnd, 102.0);
    // After a loss at 143 (W_max 143, K ≈ 4.75 s) the curve starts at about cwnd 100: cnt is
    // 100 or more and the same ACKs give no growth.
    let mut cc = cubic(false);
    cc.ssthresh_after_congestion(143.0, 143);
    let cwnd = (0..40).fold(100.0, |cwnd, i| {
        cc.increase_window(&ack(1.0 + f64::from(i) * 1e-4, 1, 0.0), cwnd, 50.0)
    });
    assert_eq!(cwnd, 100.0);
}

#[test]
fn timeout_resets_w_max_and_the_epoch() {
    let w_max = |cc: &CongestionControl| match cc {
        CongestionControl::Cubic(c) => c.w_max_pkts(),
        _ => unreachable!(),
    };
    // Loss at 100 (W_max 100), a timeout: cwnd back to 1, slow start up to ssthresh 70.
    let mut cc = cubic(false);
    assert_eq!(cc.ssthresh_after_congestion(100.0, 100), 70.0);
    cc.on_timeout();
    assert_eq!(w_max(&cc), 0);
    // Congestion avoidance at 70: K = 0 from cwnd, cnt clamped to 20 → +2 in 40 segments.
    let grown = (0..40).fold(70.0, |cwnd, i| {
        cc.increase_window(&ack(5.0 + f64::from(i) * 1e-4, 1, 0.1), cwnd, 70.0)
    });
    assert_eq!(grown, 72.0);
    // Without the timeout the curve sits below W_max = 100 (K ≈ 4.2 s): its target at the
    // epoch's start is about cwnd, so 40 segments give no growth.
    let mut cc = cubic(false);
    cc.ssthresh_after_congestion(100.0, 100);
    let grown = (0..40).fold(70.0, |cwnd, i| {
        cc.increase_window(&ack(5.0 + f64::from(i) * 1e-4, 1, 0.1), cwnd, 70.0)
    });
    assert_eq!(grown, 70.0);
}

/// A slow-start round of CUBIC at cwnd 20 from `start_s`: its first ACK acknowledges up to
/// `snd_una` (which starts a new round if beyond the last one's end) with a 50 ms delay, then
/// 19 ACKs 10 ms apart (no train) with a 120 ms delay. Returns how often HyStart fired.
fn slow_start_round(cc: &mut CongestionControl, start_s: f64, snd_una: u32) -> usize {
    let mut first = ack(start_s, 2, 0.05);
    first.snd_una = snd_una;
    first.snd_max = snd_una + 100;
    let mut exits = usize::from(cc.on_pkts_acked(&first, 20.0, f64::INFINITY).is_some());
    cc.increase_window(&first, 20.0, f64::INFINITY);
    for i in 1..20 {
        let a = ack(start_s + f64::from(i) * 0.01, 2, 0.12);
        exits += usize::from(cc.on_pkts_acked(&a, 20.0, f64::INFINITY) == Some(20.0));
    }
    exits
}

#[test]
fn timeout_rearms_hystart() {
    let mut cc = cubic(false);
    // A new round: its 8 samples of 120 ms exceed twice the 50 ms minimum.
    assert_eq!(slow_start_round(&mut cc, 0.0, 1), 1);
    assert_eq!(slow_start_round(&mut cc, 1.0, 200), 0, "HyStart fires once");
    cc.ssthresh_after_congestion(20.0, 20);
    cc.on_timeout();
    // The round begun by the timeout lasts until segment 350 (the highest sent) is
    // acknowledged, so the 50 ms sample stays among its first 8 and nothing fires.
    assert_eq!(slow_start_round(&mut cc, 5.0, 250), 0);
    // The next round starts afresh and fires again.
    assert_eq!(slow_start_round(&mut cc, 6.0, 400), 1);
}

#[test]
fn ssthresh_comes_from_cwnd_with_fast_convergence() {
    let mut cc = cubic(false);
    // β·cwnd, whatever the flight size; Reno would halve the flight.
    assert_eq!(cc.ssthresh_after_congestion(100.0, 10), 70.0);
    // A second loss below W_max = 100: W_max = ⌊80·1.7/2⌋ = 68, so the next epoch's curve
    // (K = ∛((68 − 56)/0.4) ≈ 3.1 s) is back at 68 segments sooner than at 80.
    assert_eq!(cc.ssthresh_after_congestion(80.0, 80), 56.0);
    let mut no_fc = CongestionControl::new(&TcpConfig {
        fast_convergence: false,
        cubic_friendliness: false,
        ..TcpConfig::ns3()
    });
    no_fc.ssthresh_after_congestion(100.0, 10);
    assert_eq!(no_fc.ssthresh_after_congestion(80.0, 80), 56.0);
    let with_fc = avoid(&mut cc, 56.0, 0.0, 3.0, 0.1);
    let without_fc = avoid(&mut no_fc, 56.0, 0.0, 3.0, 0.1);
    assert!(
        with_fc < without_fc - 5.0,
        "fast convergence {with_fc}, without {without_fc}"
    );
    let mut reno = CongestionControl::new(&TcpConfig {
        cc: CcKind::Reno,
        ..TcpConfig::ns3()
    });
    assert_eq!(reno.ssthresh_after_congestion(100.0, 10), 5.0);
    // ns-2 halves the window instead.
    let mut ns2 = CongestionControl::new(&TcpConfig::ns2());
    assert_eq!(ns2.ssthresh_after_congestion(100.0, 10), 50.0);
}
