//! CAKE on scripted packet sequences: host fairness under triple-isolate (the paper's §4.2
//! claim) against per-flow fairness, the shaper's rate, sparse-flow priority, overflow drops
//! from the fattest flow queue one packet at a time, and conservation with consistent set and
//! host counts on random sequences.

use super::*;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::metrics::window::Window;
use aqm::{AqmParams, CakeParams, Rng, Scheduler};

/// CAKE, its port's counters, and the packets it took in, sent out and dropped.
struct Bench {
    cake: Cake,
    stats: PortStats,
    counts: PacketCounts,
    rng: Rng,
    hosts: Vec<(u32, u32)>,
    taken: u64,
    sent: u64,
}

fn settings(params: CakeParams) -> CakeSettings {
    match params.scheduler() {
        Scheduler::Cake(s) => s,
        _ => unreachable!("CAKE's scheduler"),
    }
}

impl Bench {
    /// CAKE with `params` and a packet limit of `limit_pkts`, for flows between `hosts`
    /// (sender, receiver) by flow id, on a 100 Mb/s link.
    fn new(params: CakeParams, limit_pkts: u32, hosts: Vec<(u32, u32)>) -> Self {
        let window = Window::from_s(0.0, 1e3);
        let mut cake = Cake::new(settings(params), limit_pkts, 0, 1e8);
        cake.set_flow_hosts(hosts.clone());
        Bench {
            cake,
            stats: PortStats::new(window),
            counts: PacketCounts::new(hosts.len().max(64), window),
            rng: Rng::stream(1, "aqm", 0),
            hosts,
            taken: 0,
            sent: 0,
        }
    }

    /// Run `op` on CAKE with the port's counters.
    fn with_host<T>(&mut self, op: impl FnOnce(&mut Cake, &mut Host) -> T) -> T {
        let mut host = Host {
            ecn: false,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        op(&mut self.cake, &mut host)
    }

    /// A data packet of `flow` (to its receiver) of `bytes`, numbered `seq`.
    fn enqueue_seq(&mut self, now_ns: u64, flow: u32, seq: u32, bytes: u32) {
        let dst = self.hosts.get(flow as usize).map_or(1, |h| h.1);
        let pkt = Packet::data(flow, seq, dst, bytes, now_ns, 0);
        self.counts.sent(&pkt);
        self.taken += 1;
        assert!(self.with_host(|c, h| c.enqueue(now_ns, pkt, h)));
    }

    fn enqueue(&mut self, now_ns: u64, flow: u32, bytes: u32) {
        self.enqueue_seq(now_ns, flow, 0, bytes);
    }

    fn dequeue(&mut self, now_ns: u64) -> Option<Packet> {
        let pkt = self.with_host(|c, h| c.dequeue(now_ns, h));
        if let Some(p) = &pkt {
            self.counts.delivered(p);
            self.sent += 1;
        }
        pkt
    }

    fn dropped(&self) -> u64 {
        self.stats.overflow_drops + self.stats.dequeue_drops
    }
}

/// Flows 0–7 from host 100 and flow 8 from host 101, each to a receiver of its own.
fn eight_and_one() -> Vec<(u32, u32)> {
    (0..9)
        .map(|f| (if f < 8 { 100 } else { 101 }, 200 + f))
        .collect()
}

/// Bytes sent by host 100's flows and by host 101's, over dequeues 300..1500 of a backlog
/// that lasts.
fn host_shares(isolation: Isolation) -> (u64, u64) {
    let params = CakeParams {
        isolation,
        ..CakeParams::default()
    };
    let mut b = Bench::new(params, 100_000, eight_and_one());
    for _ in 0..1500 {
        for flow in 0..9 {
            b.enqueue(0, flow, 1500);
        }
    }
    let mut bytes = (0, 0);
    for k in 0..1500 {
        let p = b.dequeue(0).expect("backlogged");
        if k >= 300 {
            if p.flow < 8 {
                bytes.0 += u64::from(p.size_bytes);
            } else {
                bytes.1 += u64::from(p.size_bytes);
            }
        }
    }
    bytes
}

#[test]
fn triple_isolate_shares_between_hosts_and_flows_mode_between_flows() {
    // Triple-isolate: the host with 8 flows and the host with 1 get equal shares (each of
    // the 8 flows' quanta is divided by 8: Høiland-Jørgensen et al. 2018, §4.2).
    let (many, one) = host_shares(Isolation::TripleIsolate);
    let ratio = many as f64 / one as f64;
    assert!((0.95..1.05).contains(&ratio), "{many} vs {one}");
    // Dual-srchost counts the source hosts in the same way.
    let (many, one) = host_shares(Isolation::DualSrchost);
    assert!((0.95..1.05).contains(&(many as f64 / one as f64)));
    // Flows: per-flow fairness, 8 to 1.
    let (many, one) = host_shares(Isolation::Flows);
    let ratio = many as f64 / one as f64;
    assert!((7.6..8.4).contains(&ratio), "{many} vs {one}");
}

#[test]
fn the_shaper_holds_its_rate_and_the_port_waits_between_packets() {
    let params = CakeParams {
        rate_mbps: 10.0,
        ..CakeParams::default()
    };
    let mut b = Bench::new(params, 100_000, vec![(1, 2)]);
    for _ in 0..2000 {
        b.enqueue(0, 0, 1500);
    }
    // A port on a 100 Mb/s link: 120 µs per packet, then the shaper's wait.
    let (link_ns, end_ns) = (120_000, 1_000_000_000);
    let (mut now, mut bytes, mut waits) = (0, 0u64, 0);
    while now < end_ns {
        match b.dequeue(now) {
            Some(p) => {
                bytes += u64::from(p.size_bytes);
                now += link_ns;
            }
            None => {
                let t = b
                    .cake
                    .not_before_ns()
                    .expect("packets wait: the shaper holds them");
                assert!(t > now);
                now = t;
                waits += 1;
            }
        }
    }
    let rate = bytes as f64 * 8.0;
    assert!((rate / 10e6 - 1.0).abs() < 0.01, "{rate} b/s");
    // After each packet the link idles for 1.2 ms − 120 µs.
    assert!(waits > 800, "{waits}");
}

#[test]
fn a_sparse_flow_is_served_ahead_of_bulk_ones() {
    let mut b = Bench::new(CakeParams::default(), 10_000, vec![(1, 2), (3, 4), (5, 6)]);
    for _ in 0..50 {
        b.enqueue(0, 0, 1500);
        b.enqueue(0, 1, 1500);
    }
    for _ in 0..20 {
        b.dequeue(0);
    }
    assert_eq!(b.cake.set_counts().bulk, 2);
    b.enqueue(0, 2, 100);
    assert_eq!(b.dequeue(0).unwrap().flow, 2);
    assert_eq!(b.cake.set_counts().sparse, 1);
}

#[test]
fn overflow_drops_from_the_fattest_flow_one_packet_at_a_time() {
    // A packet limit of 10: the 11th packet costs the fattest flow queue its head.
    // (At 10 ms: BLUE changes p_drop only more than a target after its last change, at 0.)
    let mut b = Bench::new(CakeParams::default(), 10, vec![(1, 2), (3, 4)]);
    let t = 10_000_000;
    for seq in 0..8 {
        b.enqueue_seq(t, 0, seq, 1000);
    }
    for seq in 0..3 {
        b.enqueue_seq(t, 1, seq, 1000);
    }
    assert_eq!(
        (b.cake.len_pkts(), b.cake.counters.overlimit_drops),
        (10, 1)
    );
    let fattest = &b.cake.flows[0];
    assert_eq!(fattest.packets.front().unwrap().0.seq, 1);
    assert!(b.cake.cobalts[0].p_drop() > 0.0, "its COBALT was told");
    assert_eq!(b.cake.cobalts[1].p_drop(), 0.0);
    // The memory limit: 43 packets of 1500 B fit in 65535 bytes; a 6000-byte arrival then
    // costs the fattest flow queue 4 packets, until the discipline is under the limit.
    let params = CakeParams {
        memory_limit_bytes: 65535,
        ..CakeParams::default()
    };
    let mut b = Bench::new(params, 10_000, vec![(1, 2), (3, 4)]);
    for _ in 0..50 {
        b.enqueue(0, 0, 1500);
    }
    assert_eq!(
        (b.cake.len_pkts(), b.cake.counters.overlimit_drops),
        (43, 7)
    );
    b.enqueue(0, 1, 6000);
    assert_eq!(b.cake.counters.overlimit_drops, 11);
    assert_eq!(b.cake.len_bytes(), 39 * 1500 + 6000);
}

/// The set counts and the hosts' bulk counts agree with the flow queues' sets.
fn assert_counts_consistent(c: &Cake) {
    let mut sets = SetCounts::default();
    for f in &c.flows {
        if let Some(n) = set_count(&mut sets, f.set) {
            *n += 1;
        }
        assert_eq!(f.set == Set::None, f.chain.is_none());
        assert!(f.set != Set::Decaying || f.packets.is_empty() || f.chain == Some(Chain::New));
    }
    assert_eq!(sets, c.set_counts());
    let src: u32 = c.src_bulk.iter().sum();
    let dst: u32 = c.dst_bulk.iter().sum();
    assert_eq!(
        (src, dst),
        (sets.bulk, sets.bulk),
        "triple-isolate counts both ends"
    );
    let queued: u32 = c.flows.iter().map(|f| f.packets.len() as u32).sum();
    assert_eq!(queued, c.len_pkts());
    let listed = c.new_flows.len + c.old_flows.len + c.decaying_flows.len;
    assert_eq!(
        listed as usize,
        c.flows.iter().filter(|f| f.chain.is_some()).count()
    );
}

#[test]
fn random_sequences_conserve_packets_and_keep_the_counts() {
    for seed in 0..20u64 {
        let mut draw = Rng::stream(seed, "cake-test", 0);
        let hosts: Vec<(u32, u32)> = (0..40).map(|f| (100 + f % 5, 200 + (f * 7) % 3)).collect();
        let params = CakeParams {
            rate_mbps: if seed % 2 == 0 { 0.0 } else { 20.0 },
            memory_limit_bytes: 65535 + (seed as u32) * 10_000,
            ..CakeParams::default()
        };
        let mut b = Bench::new(params, 60, hosts);
        let mut now = 0;
        for _ in 0..5000 {
            now += (draw.uniform() * 400_000.0) as u64;
            if draw.uniform() < 0.55 {
                let flow = (draw.uniform() * 40.0) as u32;
                let bytes = 40 + (draw.uniform() * 1460.0) as u32;
                b.enqueue(now, flow, bytes);
            } else if b.dequeue(now).is_none() && b.cake.len_pkts() > 0 {
                assert!(b.cake.not_before_ns().is_some_and(|t| t > now));
            }
            assert!(b.cake.len_pkts() <= 60);
            assert!(b.cake.len_bytes() <= b.cake.buffer_limit_bytes());
            assert_counts_consistent(&b.cake);
            assert_eq!(b.taken, b.sent + b.dropped() + u64::from(b.cake.len_pkts()));
        }
    }
}
