//! TCP behaviour on a scripted two-host path: a sender and a receiver joined by a link of
//! fixed rate and delay, with chosen packets dropped. Checks fast retransmit, window
//! reduction (Reno ½, CUBIC 0.7), RTO back-off and loss-free link filling.

use sim::packet::Packet;
use sim::tcp::config::{CcKind, TcpConfig};
use sim::tcp::receiver::Receiver;
use sim::tcp::sender::Sender;
use sim::time::{ms_to_ns, s_to_ns, tx_time_ns};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

const SENDER: u32 = 0;
const RECEIVER: u32 = 1;

/// A packet on the wire: (arrival time, order, destination, seq, flags, sent time).
type OnWire = Reverse<(u64, u64, u32, u32, u8, u64)>;

/// What happened on the path.
#[derive(Default)]
struct Trace {
    /// (time, seq) of every data transmission.
    sends: Vec<(u64, u32)>,
    /// (time, cwnd) after every ACK.
    cwnd: Vec<(u64, f64)>,
    delivered: u32,
}

/// Run one flow for `duration_s` over a link of `rate_bps` and one-way `delay_ms`;
/// `drop(seq, nth_transmission, time)` says which data packets are lost.
fn run_path(
    cfg: &TcpConfig,
    duration_s: f64,
    rate_bps: u64,
    delay_ms: f64,
    mut drop: impl FnMut(u32, u32, u64) -> bool,
) -> (Sender, Trace) {
    let mut tx = Sender::new(0, RECEIVER, cfg);
    let mut rx = Receiver::new(0, SENDER);
    let delay = ms_to_ns(delay_ms);
    let end = s_to_ns(duration_s);
    let mut heap: BinaryHeap<OnWire> = BinaryHeap::new();
    let mut seq_no = 0u64;
    let mut link_free = 0u64;
    let mut times_sent: HashMap<u32, u32> = HashMap::new();
    let mut trace = Trace::default();
    let mut out = Vec::new();
    let mut now = 0u64;
    tx.start(0, cfg, &mut out);
    loop {
        // Put whatever the endpoints produced on the wire.
        for p in out.drain(..) {
            let arrive = if p.is_ack() {
                now + delay
            } else {
                trace.sends.push((now, p.seq));
                let n = times_sent.entry(p.seq).or_insert(0);
                *n += 1;
                if drop(p.seq, *n, now) {
                    continue;
                }
                let start = link_free.max(now);
                link_free = start + tx_time_ns(p.size_bytes, rate_bps);
                link_free + delay
            };
            seq_no += 1;
            heap.push(Reverse((arrive, seq_no, p.dst, p.seq, p.flags, p.sent_ns)));
        }
        let next_pkt = heap.peek().map(|r| r.0 .0).unwrap_or(u64::MAX);
        let next_rto = tx.rto_deadline_ns().unwrap_or(u64::MAX);
        let next_delack = rx.delack_deadline_ns().unwrap_or(u64::MAX);
        let next = next_pkt.min(next_rto).min(next_delack);
        if next > end {
            break;
        }
        now = next;
        if next == next_pkt {
            let Reverse((_, _, dst, seq, flags, sent_ns)) = heap.pop().unwrap();
            let pkt = Packet {
                flow: 0,
                seq,
                dst,
                size_bytes: if dst == SENDER {
                    cfg.ack_bytes
                } else {
                    cfg.packet_bytes
                },
                sent_ns,
                flags,
            };
            if dst == SENDER {
                tx.on_ack(&pkt, now, cfg, &mut out);
                trace.cwnd.push((now, tx.cwnd_pkts()));
            } else {
                trace.delivered += rx.on_data(&pkt, now, cfg, &mut out);
            }
        } else if next == next_rto {
            tx.on_rto(now, cfg, &mut out);
        } else {
            rx.on_delack_timer(now, cfg, &mut out);
        }
    }
    (tx, trace)
}

fn config(cc: CcKind) -> TcpConfig {
    TcpConfig {
        cc,
        rwnd_pkts: 10_000,
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
