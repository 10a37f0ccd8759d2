//! Flow queueing on scripted packet sequences: DRR shares, new-flow priority, drops from the
//! fattest flow queue, the CE threshold, collisions, the flow queues' AQM timers, and packet
//! conservation on random sequences.

use super::*;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::metrics::window::Window;
use aqm::{CoDel, CoDelParams, DequeueVerdict, DropTail, EnqueueVerdict, PacketView, Rng};
use std::cell::RefCell;
use std::rc::Rc;

/// A test bench: flow queues with drop tail per flow queue (the scheduler alone) or CoDel,
/// and the port's counters.
struct Bench {
    fq: FlowQueues,
    stats: PortStats,
    counts: PacketCounts,
    rng: Rng,
    ecn: bool,
}

impl Bench {
    fn new(settings: FlowQueueing, limit_pkts: u32, codel: bool) -> Self {
        let make: Box<dyn FnMut() -> Box<dyn Aqm>> = if codel {
            Box::new(|| Box::new(CoDel::new(CoDelParams::default()).unwrap()) as Box<dyn Aqm>)
        } else {
            Box::new(|| Box::new(DropTail) as Box<dyn Aqm>)
        };
        let window = Window::from_s(0.0, 1e3);
        Bench {
            fq: FlowQueues::new(&settings, limit_pkts, 0, 1e7, make),
            stats: PortStats::new(window),
            counts: PacketCounts::new(64, window),
            rng: Rng::stream(1, "aqm", 0),
            ecn: false,
        }
    }

    fn enqueue(&mut self, now_ns: u64, flow: u32, bytes: u32) -> bool {
        let pkt = Packet::data(flow, 0, 1, bytes, now_ns, 0);
        self.counts.sent(&pkt);
        let mut host = Host {
            ecn: self.ecn,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        self.fq.enqueue(now_ns, pkt, &mut host)
    }

    fn dequeue(&mut self, now_ns: u64) -> Option<Packet> {
        let mut host = Host {
            ecn: self.ecn,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        let pkt = self.fq.dequeue(now_ns, &mut host);
        if let Some(p) = &pkt {
            self.counts.delivered(p);
        }
        pkt
    }
}

fn settings() -> FlowQueueing {
    FlowQueueing::default()
}

#[test]
fn equal_backlogged_flows_get_equal_bytes_per_round() {
    let mut b = Bench::new(settings(), 1000, false);
    for _ in 0..30 {
        for flow in 0..3 {
            b.enqueue(0, flow, 1000);
        }
    }
    // Quantum 1500 bytes, packets of 1000: over any 3 rounds each flow sends 4.5 kB, so in
    // the first 27 packets each flow has 9 (DRR, RFC 8290 §4.2).
    let mut sent = [0; 3];
    for _ in 0..27 {
        sent[b.dequeue(0).unwrap().flow as usize] += 1;
    }
    assert_eq!(sent, [9, 9, 9]);
}

#[test]
fn unequal_packet_sizes_share_bytes_not_packets() {
    let mut b = Bench::new(settings(), 1000, false);
    for _ in 0..200 {
        b.enqueue(0, 0, 1500);
        b.enqueue(0, 1, 500);
        b.enqueue(0, 1, 500);
        b.enqueue(0, 1, 500);
    }
    let mut bytes = [0u64; 2];
    for _ in 0..400 {
        let p = b.dequeue(0).unwrap();
        bytes[p.flow as usize] += u64::from(p.size_bytes);
    }
    let share = bytes[0] as f64 / (bytes[0] + bytes[1]) as f64;
    assert!((share - 0.5).abs() < 0.01, "{bytes:?}");
}

#[test]
fn a_new_sparse_flow_is_served_before_the_backlogged_ones() {
    let mut b = Bench::new(settings(), 1000, false);
    for _ in 0..20 {
        b.enqueue(0, 0, 1000);
        b.enqueue(0, 1, 1000);
    }
    for _ in 0..6 {
        b.dequeue(0).unwrap();
    }
    // Flows 0 and 1 are old now; a packet of a new flow goes out next.
    b.enqueue(1, 2, 100);
    assert_eq!(b.dequeue(2).unwrap().flow, 2);
    assert_eq!(b.fq.counters.new_flows, 3);
}

#[test]
fn when_full_the_fattest_flow_queue_loses_half_its_bytes_from_its_head() {
    let mut fq = settings();
    fq.drop_batch_size = 64;
    let mut b = Bench::new(fq, 10, false);
    for _ in 0..8 {
        b.enqueue(0, 0, 1000);
    }
    b.enqueue(0, 1, 1000);
    b.enqueue(0, 1, 1000);
    // The 11th packet overflows: flow 0 (8 kB) loses half its bytes, 4 packets.
    assert!(b.enqueue(0, 1, 1000));
    assert_eq!(b.fq.len_pkts(), 7);
    assert_eq!(b.fq.counters.overlimit_drops, 4);
    assert_eq!(b.stats.overflow_drops, 4);
    assert_eq!(b.counts.totals.data_dropped, 4);
}

#[test]
fn the_drop_batch_caps_an_overlimit_drop() {
    let mut fq = settings();
    fq.drop_batch_size = 2;
    let mut b = Bench::new(fq, 20, false);
    for _ in 0..21 {
        b.enqueue(0, 0, 1000);
    }
    assert_eq!(b.fq.counters.overlimit_drops, 2);
    assert_eq!(b.fq.len_pkts(), 19);
}

#[test]
fn the_memory_limit_cuts_the_fattest_flow_queue_too() {
    let mut fq = settings();
    fq.memory_limit_bytes = 5000;
    let mut b = Bench::new(fq, 1000, false);
    for _ in 0..6 {
        b.enqueue(0, 0, 1000);
    }
    assert!(b.fq.len_bytes() <= 5000);
    assert_eq!(b.fq.counters.overlimit_drops, 3);
}

#[test]
fn packets_above_the_ce_threshold_are_marked_when_ecn_is_on() {
    let mut fq = settings();
    fq.ce_threshold_ms = 1.0;
    let mut b = Bench::new(fq, 1000, false);
    b.ecn = true;
    for flow in 0..2 {
        let pkt = Packet::data(flow, 0, 1, 1000, 0, crate::packet::Ecn::Ect0.flag_bits());
        let mut host = Host {
            ecn: true,
            stats: &mut b.stats,
            counts: &mut b.counts,
            rng: &mut b.rng,
        };
        b.fq.enqueue(0, pkt, &mut host);
    }
    assert!(b.dequeue(500_000).unwrap().ecn() == crate::packet::Ecn::Ect0);
    assert!(b.dequeue(2_000_000).unwrap().ecn() == crate::packet::Ecn::Ce);
    assert_eq!(b.fq.counters.ce_threshold_marks, 1);
}

#[test]
fn flows_sharing_a_bucket_are_counted_as_a_collision() {
    let mut fq = settings();
    fq.flows = 1;
    let mut b = Bench::new(fq, 1000, false);
    b.enqueue(0, 0, 1000);
    b.enqueue(0, 1, 1000);
    b.enqueue(0, 2, 1000);
    assert_eq!(b.fq.counters.flow_queues_used, 1);
    assert_eq!(b.fq.counters.collisions, 1);
}

#[test]
fn set_associative_hashing_separates_flows_of_one_set() {
    let mut fq = settings();
    fq.flows = 8;
    fq.set_associative_hash = true;
    fq.set_ways = 8;
    let mut b = Bench::new(fq, 1000, false);
    for flow in 0..8 {
        b.enqueue(0, flow, 1000);
    }
    assert_eq!(b.fq.counters.flow_queues_used, 8);
    assert_eq!(b.fq.counters.collisions, 0);
}

#[test]
fn codel_per_flow_queue_drops_only_the_standing_flow() {
    let mut b = Bench::new(settings(), 10_000, true);
    // Flow 0 keeps 50 packets standing for a second; flow 1 sends one packet every 10 ms.
    let mut t = 0;
    for _ in 0..50 {
        b.enqueue(t, 0, 1000);
    }
    for step in 0..100u64 {
        t = step * 10_000_000;
        b.enqueue(t, 0, 1000);
        b.enqueue(t, 1, 1000);
        b.dequeue(t + 1);
        b.dequeue(t + 2);
    }
    assert!(b.stats.dequeue_drops > 0);
    assert!(b.counts.lost_by_flow[0] > 0);
    assert_eq!(b.counts.lost_by_flow[1], 0);
}

/// What a [`Logger`] saw: (its flow queue's number, time in ns, call, flow queue length).
type Log = Rc<RefCell<Vec<(u32, u64, &'static str, u32)>>>;

/// An AQM that logs its calls and, like PIE, wants a timer at once and then every 10 ns.
struct Logger {
    id: u32,
    next_ns: u64,
    log: Log,
}

impl Aqm for Logger {
    fn name(&self) -> &'static str {
        "logger"
    }

    fn on_enqueue(
        &mut self,
        now_ns: u64,
        _: PacketView,
        q: &QueueView,
        _: &mut Rng,
    ) -> EnqueueVerdict {
        self.log
            .borrow_mut()
            .push((self.id, now_ns, "enqueue", q.len_pkts));
        EnqueueVerdict::Accept
    }

    fn on_dequeue(
        &mut self,
        now_ns: u64,
        _: u64,
        _: PacketView,
        q: &QueueView,
        _: &mut Rng,
    ) -> DequeueVerdict {
        self.log
            .borrow_mut()
            .push((self.id, now_ns, "dequeue", q.len_pkts));
        DequeueVerdict::Deliver
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.next_ns)
    }

    fn on_timer(&mut self, now_ns: u64, q: &QueueView, _: &mut Rng) {
        self.log
            .borrow_mut()
            .push((self.id, now_ns, "timer", q.len_pkts));
        self.next_ns = now_ns + 10;
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }

    fn probe(&self, _out: &mut Vec<f64>) {}
}

#[test]
fn a_flow_queues_timers_run_at_their_own_times_when_it_is_next_touched() {
    let log: Log = Rc::default();
    let mut made = 0;
    let shared = log.clone();
    let mut b = Bench::new(settings(), 1000, false);
    b.fq = FlowQueues::new(
        &settings(),
        1000,
        0,
        1e7,
        Box::new(move || {
            made += 1;
            Box::new(Logger {
                id: made - 1,
                next_ns: 0,
                log: shared.clone(),
            }) as Box<dyn Aqm>
        }),
    );
    b.enqueue(5, 0, 1000);
    b.enqueue(12, 0, 1000);
    b.enqueue(20, 1, 1000);
    assert_eq!(b.dequeue(30).map(|p| p.flow), Some(0));
    assert_eq!(b.dequeue(50).map(|p| p.flow), Some(0));
    assert_eq!(
        *log.borrow(),
        [
            // The timer wanted at once runs at the flow queue's making, after its first packet.
            (0, 5, "enqueue", 0),
            (0, 5, "timer", 1),
            (0, 12, "enqueue", 1),
            // Flow 1's packet leaves flow 0's timer at 15 waiting.
            (1, 20, "enqueue", 0),
            // Flow 0's timers due before its next packet, with the lengths of their times.
            (0, 15, "timer", 2),
            (0, 25, "timer", 2),
            (0, 30, "dequeue", 1),
            (0, 35, "timer", 1),
            (0, 45, "timer", 1),
            (0, 50, "dequeue", 0),
        ]
    );
}

#[test]
fn random_sequences_conserve_packets_and_respect_the_limit() {
    for seed in 0..20 {
        let mut fq = settings();
        fq.flows = 16;
        fq.drop_batch_size = 1 + (seed as u32 % 5);
        let mut b = Bench::new(fq, 40, seed % 2 == 0);
        let mut rng = Rng::stream(seed, "test", 0);
        let (mut offered, mut out) = (0u64, 0u64);
        for step in 0..5000u64 {
            let now = step * 100_000;
            if rng.uniform() < 0.6 {
                let flow = (rng.uniform() * 40.0) as u32;
                let bytes = 100 + (rng.uniform() * 1400.0) as u32;
                b.enqueue(now, flow, bytes);
                offered += 1;
                assert!(b.fq.len_pkts() <= 40);
            } else if b.dequeue(now).is_some() {
                out += 1;
            }
            let queued: u64 = b.fq.queues.iter().map(|q| q.packets.len() as u64).sum();
            let bytes: u64 = b.fq.queues.iter().map(|q| q.bytes).sum();
            assert_eq!(queued, u64::from(b.fq.len_pkts()));
            assert_eq!(bytes, b.fq.len_bytes());
            for q in &b.fq.queues {
                let own: u64 = q.packets.iter().map(|(p, _)| u64::from(p.size_bytes)).sum();
                assert_eq!(own, q.bytes);
            }
            assert_eq!(
                offered,
                out + b.counts.totals.data_dropped + u64::from(b.fq.len_pkts())
            );
        }
    }
}
