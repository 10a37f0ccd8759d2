//! A scripted two-host path for TCP tests: a sender and a receiver joined by a link of fixed
//! rate and delay, with chosen data packets dropped.

use sim::packet::{flags, Ecn, Packet};
use sim::tcp::config::TcpConfig;
use sim::tcp::receiver::Receiver;
use sim::tcp::sender::Sender;
use sim::time::{ms_to_ns, s_to_ns, tx_time_ns};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Node of the sender.
const SENDER: u32 = 0;
/// Node of the receiver.
const RECEIVER: u32 = 1;

/// A packet on the wire: (arrival time, order), the packet itself kept in `wire`.
type OnWire = Reverse<(u64, u64)>;

/// What happened on the path.
#[derive(Default)]
pub struct Trace {
    /// (time, seq) of every data transmission.
    pub sends: Vec<(u64, u32)>,
    /// (time, cwnd) after every ACK.
    pub cwnd: Vec<(u64, f64)>,
    /// The retransmission timeout in force after every ACK, seconds.
    pub rto_s: Vec<f64>,
    /// When the retransmission timer expires, after every ACK.
    pub rto_deadline_ns: Vec<Option<u64>>,
    /// Segments delivered in order to the receiver.
    pub delivered: u32,
}

/// Run one flow for `duration_s` over a link of `rate_bps` and one-way `delay_ms`;
/// `drop(seq, nth_transmission, time)` says which data packets are lost.
pub fn run_path(
    cfg: &TcpConfig,
    duration_s: f64,
    rate_bps: u64,
    delay_ms: f64,
    drop: impl FnMut(u32, u32, u64) -> bool,
) -> (Sender, Trace) {
    run_path_marked(cfg, duration_s, rate_bps, delay_ms, drop, |_, _| false)
}

/// [`run_path`] where `mark(seq, nth_transmission)` also says which ECN-capable data packets
/// arrive with CE set.
pub fn run_path_marked(
    cfg: &TcpConfig,
    duration_s: f64,
    rate_bps: u64,
    delay_ms: f64,
    mut drop: impl FnMut(u32, u32, u64) -> bool,
    mut mark: impl FnMut(u32, u32) -> bool,
) -> (Sender, Trace) {
    let mut tx = Sender::new(0, RECEIVER, cfg);
    let mut rx = Receiver::new(0, SENDER);
    let delay = ms_to_ns(delay_ms);
    let end = s_to_ns(duration_s);
    let mut heap: BinaryHeap<OnWire> = BinaryHeap::new();
    let mut wire: HashMap<u64, Packet> = HashMap::new();
    let mut seq_no = 0u64;
    let mut link_free = 0u64;
    let mut times_sent: HashMap<u32, u32> = HashMap::new();
    let mut trace = Trace::default();
    let mut out = Vec::new();
    let mut now = 0u64;
    tx.start(0, cfg, &mut out);
    loop {
        // Put whatever the endpoints produced on the wire.
        for mut p in out.drain(..) {
            let arrive = if p.is_ack() {
                now + delay
            } else {
                trace.sends.push((now, p.seq));
                let n = times_sent.entry(p.seq).or_insert(0);
                *n += 1;
                if drop(p.seq, *n, now) {
                    continue;
                }
                if p.ecn().is_capable() && mark(p.seq, *n) {
                    p.set_ecn(Ecn::Ce);
                }
                let start = link_free.max(now);
                link_free = start + tx_time_ns(p.bytes(), rate_bps);
                link_free + delay
            };
            seq_no += 1;
            wire.insert(seq_no, p);
            heap.push(Reverse((arrive, seq_no)));
        }
        let next_pkt = heap.peek().map(|r| r.0 .0).unwrap_or(u64::MAX);
        let next_rto = tx.rto_deadline_ns().unwrap_or(u64::MAX);
        let next_delack = rx.delack_deadline_ns().unwrap_or(u64::MAX);
        let next_pace = tx.pace_deadline_ns().unwrap_or(u64::MAX);
        let next = next_pkt.min(next_rto).min(next_delack).min(next_pace);
        if next > end {
            break;
        }
        now = next;
        if next == next_pkt {
            let Reverse((_, order)) = heap.pop().unwrap();
            let pkt = wire
                .remove(&order)
                .expect("every packet on the wire is kept");
            if pkt.has(flags::ACK) {
                tx.on_ack(&pkt, now, cfg, &mut out);
                trace.cwnd.push((now, tx.cwnd_pkts()));
                trace.rto_s.push(tx.rto_s());
                trace.rto_deadline_ns.push(tx.rto_deadline_ns());
            } else if pkt.has(flags::SYN) {
                rx.on_syn(&pkt, cfg, &mut out);
            } else {
                trace.delivered += rx.on_data(&pkt, now, cfg, &mut out);
            }
        } else if next == next_rto {
            tx.on_rto(now, cfg, &mut out);
        } else if next == next_pace {
            tx.on_pace_timer(now, cfg, &mut out);
        } else {
            rx.on_delack_timer(now, cfg, &mut out);
        }
    }
    (tx, trace)
}
