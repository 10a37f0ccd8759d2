//! Strict priority on scripted packet sequences: the priomap's classification, strict service
//! of the lowest-numbered band, a buffer per band, flow-queueing bands, the port's queue
//! length, and packet conservation on random sequences.

use super::*;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::metrics::window::Window;
use crate::net::qdisc::flow_queues::FlowQueues;
use crate::net::qdisc::single::SingleQueue;
use aqm::{Aqm, DropTail, FlowQueueing};

/// A test bench: priority bands of drop-tail queues (or of flow queues), and the port's
/// counters.
struct Bench {
    prio: Prio,
    stats: PortStats,
    counts: PacketCounts,
    rng: Rng,
}

/// Flows 0..8: flow f has socket priority `PRIORITIES[f]`.
const PRIORITIES: [u8; 8] = [0, 6, 1, 4, 7, 15, 2, 22];

fn drop_tail(limit_pkts: u32) -> Discipline {
    Discipline::Single(SingleQueue::new(limit_pkts, 0, 1e7, Box::new(DropTail)))
}

fn flow_queues(limit_pkts: u32) -> Discipline {
    let make: Box<dyn FnMut() -> Box<dyn Aqm>> = Box::new(|| Box::new(DropTail) as Box<dyn Aqm>);
    Discipline::FlowQueues(Box::new(FlowQueues::new(
        &FlowQueueing::default(),
        limit_pkts,
        0,
        1e7,
        make,
    )))
}

impl Bench {
    fn new(bands: Vec<Discipline>, priomap: [u8; 16]) -> Self {
        let window = Window::from_s(0.0, 1e3);
        let mut prio = Prio::new(bands, priomap);
        let hosts = vec![(0, 1); PRIORITIES.len()];
        prio.set_flows(&FlowInfo {
            hosts: &hosts,
            priorities: &PRIORITIES,
        });
        Bench {
            prio,
            stats: PortStats::new(window),
            counts: PacketCounts::new(64, window),
            rng: Rng::stream(1, "aqm", 0),
        }
    }

    fn enqueue(&mut self, now_ns: u64, flow: u32, seq: u32) -> bool {
        let pkt = Packet::data(flow, seq, 1, 1000, now_ns, 0);
        self.counts.sent(&pkt);
        let mut host = Host {
            ecn: false,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        self.prio.enqueue(now_ns, pkt, &mut host)
    }

    fn dequeue(&mut self, now_ns: u64) -> Option<Packet> {
        let mut host = Host {
            ecn: false,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        match self.prio.dequeue(now_ns, &mut host) {
            Dequeued::Packet(p) => {
                self.counts.delivered(&p);
                Some(p)
            }
            Dequeued::Empty => None,
            Dequeued::WaitUntil(_) => panic!("no band here has a shaper"),
        }
    }

    fn band_lens(&self) -> Vec<u32> {
        self.prio.bands.iter().map(Discipline::len_pkts).collect()
    }
}

fn three_fifos(limit_pkts: u32) -> Bench {
    Bench::new(
        (0..3).map(|_| drop_tail(limit_pkts)).collect(),
        DEFAULT_PRIOMAP,
    )
}

#[test]
fn the_default_priomap_classifies_as_linux_and_ns3() {
    let mut b = three_fifos(100);
    for flow in 0..PRIORITIES.len() as u32 {
        b.enqueue(0, flow, 0);
    }
    // priority 0 → 1, 6 → 0, 1 → 2, 4 → 1, 7 → 0, 15 → 1, 2 → 2, 22 & 15 = 6 → 0
    assert_eq!(b.band_lens(), vec![3, 3, 2]);
    // a flow the bands were not told of goes to priomap[0]
    b.enqueue(0, 40, 0);
    assert_eq!(b.band_lens(), vec![3, 4, 2]);
}

#[test]
fn the_lowest_numbered_band_is_served_first_and_fifo_within_a_band() {
    let mut b = three_fifos(100);
    // flow 2 (band 2), flow 0 (band 1), flow 1 (band 0), interleaved
    for seq in 0..3 {
        for flow in [2, 0, 1] {
            b.enqueue(0, flow, seq);
        }
    }
    let order: Vec<(u32, u32)> = (0..9)
        .map(|_| b.dequeue(1).map(|p| (p.flow, p.seq)).unwrap())
        .collect();
    assert_eq!(
        order,
        vec![
            (1, 0),
            (1, 1),
            (1, 2),
            (0, 0),
            (0, 1),
            (0, 2),
            (2, 0),
            (2, 1),
            (2, 2)
        ]
    );
    assert!(b.dequeue(2).is_none());
    // a packet of a higher band that arrives while a lower band waits goes first
    b.enqueue(3, 2, 9);
    b.enqueue(3, 0, 9);
    b.enqueue(3, 2, 10);
    b.enqueue(3, 1, 9);
    assert_eq!(b.dequeue(4).map(|p| p.flow), Some(1));
    assert_eq!(b.dequeue(4).map(|p| p.flow), Some(0));
}

#[test]
fn each_band_has_its_own_buffer() {
    let mut b = three_fifos(4);
    let joined_low: Vec<bool> = (0..6).map(|s| b.enqueue(0, 2, s)).collect();
    assert_eq!(joined_low, vec![true, true, true, true, false, false]);
    // band 2 is full; band 0 still takes its own 4
    let joined_high: Vec<bool> = (0..5).map(|s| b.enqueue(0, 1, s)).collect();
    assert_eq!(joined_high, vec![true, true, true, true, false]);
    assert_eq!(b.band_lens(), vec![4, 0, 4]);
    assert_eq!(b.prio.len_pkts(), 8);
    assert_eq!(b.prio.len_bytes(), 8000);
    assert_eq!(
        b.stats.max_queue_pkts, 8,
        "the port counts every band's packets"
    );
    assert_eq!(b.counts.totals.data_dropped, 3);
}

#[test]
fn a_custom_priomap_sends_priorities_where_it_says() {
    let mut map = [1u8; 16];
    map[6] = 0;
    let mut b = Bench::new(vec![drop_tail(10), drop_tail(10)], map);
    for flow in 0..PRIORITIES.len() as u32 {
        b.enqueue(0, flow, 0);
    }
    // priorities 6 and 22 & 15 = 6 → band 0; the rest → band 1
    assert_eq!(b.band_lens(), vec![2, 6]);
    assert_eq!(b.prio.probe_names(), &["band0_pkts", "band1_pkts"]);
    let mut probe = Vec::new();
    b.prio.probe(&mut probe);
    assert_eq!(probe, vec![2.0, 6.0]);
}

#[test]
fn flow_queueing_bands_schedule_inside_each_band_and_add_their_counters() {
    let mut b = Bench::new((0..3).map(|_| flow_queues(100)).collect(), DEFAULT_PRIOMAP);
    // band 1: flows 0 and 3 (priorities 0 and 4); band 0: flow 1
    for seq in 0..4 {
        b.enqueue(0, 0, seq);
        b.enqueue(0, 3, seq);
    }
    b.enqueue(0, 1, 0);
    let flows: Vec<u32> = (0..9).map(|_| b.dequeue(1).unwrap().flow).collect();
    assert_eq!(flows[0], 1, "band 0 first");
    // DRR inside band 1 alternates its two flows (quantum 1500, packets of 1000: 2 then 1)
    let zeros = flows[1..].iter().filter(|&&f| f == 0).count();
    assert_eq!(zeros, 4);
    assert!(flows[1..4].contains(&0) && flows[1..4].contains(&3));
    let counters = b.prio.fq_counters().expect("flow-queueing bands");
    assert_eq!(counters.flow_queues_used, 3);
}

#[test]
fn random_sequences_conserve_packets_and_respect_each_band_limit() {
    let mut r = Rng::stream(7, "test", 0);
    for case in 0..20 {
        let limit = 1 + (case % 7) as u32;
        let mut b = three_fifos(limit);
        let mut sent = 0u64;
        for step in 0..2000u64 {
            if r.uniform() < 0.6 {
                let flow = (r.uniform() * PRIORITIES.len() as f64) as u32;
                b.enqueue(step, flow, step as u32);
                sent += 1;
            } else {
                b.dequeue(step);
            }
            assert!(b.band_lens().iter().all(|&l| l <= limit));
            let t = b.counts.totals;
            assert_eq!(
                t.data_delivered + t.data_dropped + u64::from(b.prio.len_pkts()),
                sent
            );
            assert_eq!(b.prio.data_waiting(), u64::from(b.prio.len_pkts()));
        }
    }
}
