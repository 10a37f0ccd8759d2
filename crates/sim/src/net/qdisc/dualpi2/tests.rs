//! DualPI2 on scripted packet sequences: the classifier, Linux's weighted round robin (hand
//! counted), the controller's queue delay, the step and its minimum length, overload both
//! ways, the limit, and conservation with both queues within the limit on random sequences.

use super::*;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::metrics::window::Window;
use aqm::Rng;
use proptest::prelude::*;

/// DualPI2, its port's counters, and the packets it took in and sent out.
struct Bench {
    q: DualPi2,
    stats: PortStats,
    counts: PacketCounts,
    rng: Rng,
    taken: u64,
    sent: u64,
}

impl Bench {
    fn new(params: DualPi2Params, limit_pkts: u32) -> Self {
        let window = Window::from_s(0.0, 1e3);
        Bench {
            q: DualPi2::new(params, limit_pkts, 0),
            stats: PortStats::new(window),
            counts: PacketCounts::new(64, window),
            rng: Rng::stream(1, "aqm", 0),
            taken: 0,
            sent: 0,
        }
    }

    fn with_host<T>(&mut self, op: impl FnOnce(&mut DualPi2, &mut Host) -> T) -> T {
        let mut host = Host {
            ecn: false,
            stats: &mut self.stats,
            counts: &mut self.counts,
            rng: &mut self.rng,
        };
        op(&mut self.q, &mut host)
    }

    /// A data packet of `flow` carrying `ecn`, `bytes` long; whether it joined.
    fn offer(&mut self, now_ns: u64, flow: u32, ecn: Ecn, bytes: u32) -> bool {
        let pkt = Packet::data(flow, 0, 1, bytes, now_ns, ecn.flag_bits());
        self.counts.sent(&pkt);
        self.taken += 1;
        self.with_host(|q, h| q.enqueue(now_ns, pkt, h))
    }

    fn dequeue(&mut self, now_ns: u64) -> Option<Packet> {
        let pkt = self.with_host(|q, h| q.dequeue(now_ns, h));
        if let Some(p) = &pkt {
            self.counts.delivered(p);
            self.sent += 1;
        }
        pkt
    }

    fn dropped(&self) -> u64 {
        let s = &self.stats;
        s.overflow_drops + s.early_drops + s.dequeue_drops
    }
}

/// Parameters that take p' to 1 (or to 1/k without drop on overload) at the first update
/// with a 16 ms queue: β·0.016 ≥ 1.
fn aggressive(drop_on_overload: bool) -> DualPi2Params {
    DualPi2Params {
        beta_hz: 100.0,
        drop_on_overload,
        ..DualPi2Params::default()
    }
}

#[test]
fn the_classifier_puts_ect1_and_ce_in_l_and_the_rest_in_c() {
    let mut b = Bench::new(DualPi2Params::default(), 100);
    for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
        assert!(b.offer(0, 0, ecn, 1000));
    }
    assert_eq!(b.q.queue_lens(), (2, 2));
    let mut any = Bench::new(
        DualPi2Params {
            ecn_mask: aqm::EcnMask::AnyEct,
            ..DualPi2Params::default()
        },
        100,
    );
    for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
        any.offer(0, 0, ecn, 1000);
    }
    assert_eq!(any.q.queue_lens(), (3, 1));
    assert_eq!((b.q.counts.l.arrivals, b.q.counts.c.arrivals), (2, 2));
}

/// The queues packets leave from, L or C, with both backlogged with 1500-byte packets.
fn order(c_protection_pct: u32, n: usize) -> String {
    let params = DualPi2Params {
        c_protection_pct,
        ..DualPi2Params::default()
    };
    let mut b = Bench::new(params, 1000);
    for _ in 0..100 {
        b.offer(0, 1, Ecn::Ect1, 1500);
        b.offer(0, 2, Ecn::NotEct, 1500);
    }
    (0..n)
        .map(|_| match b.dequeue(0).expect("backlogged").flow {
            1 => 'L',
            _ => 'C',
        })
        .collect()
}

#[test]
fn the_round_robin_gives_the_c_queue_its_weight() {
    // w_C = 10 %: the credit starts at 1500·(10 − 90) = −120000; each L packet adds
    // 10·1500 while C waits, so after nine it is 15000 > 0 and C sends one, which takes
    // 90·1500 away: back to −120000. Nine L, one C, and again.
    assert_eq!(order(10, 20), "LLLLLLLLLCLLLLLLLLLC");
    // w_C = 50 %: the credit starts at 0, so L, then C, L, C ...
    assert_eq!(order(50, 6), "LCLCLC");
    // w_C = 100 %: the credit starts at 150000 and no C packet spends it: C first, all of it.
    assert_eq!(order(100, 5), "CCCCC");
    // w_C = 0 %: strict priority to L.
    assert_eq!(order(0, 5), "LLLLL");
}

#[test]
fn the_credit_resets_when_both_queues_empty() {
    let mut b = Bench::new(DualPi2Params::default(), 100);
    for _ in 0..9 {
        b.offer(0, 1, Ecn::Ect1, 1500);
    }
    b.offer(0, 2, Ecn::NotEct, 1500);
    while b.dequeue(0).is_some() {}
    // Reset to −120000: L goes first again.
    b.offer(1, 2, Ecn::NotEct, 1500);
    b.offer(1, 1, Ecn::Ect1, 1500);
    assert_eq!(b.dequeue(1).unwrap().flow, 1);
}

#[test]
fn the_controller_sees_the_larger_head_sojourn() {
    let mut b = Bench::new(DualPi2Params::default(), 100);
    b.offer(0, 2, Ecn::NotEct, 1500);
    b.offer(10_000_000, 1, Ecn::Ect1, 1500);
    b.q.on_timer(15_999_999);
    assert_eq!(b.q.pi2().p_base(), 0.0, "not due yet");
    b.q.on_timer(16_000_000);
    // max(16 ms C, 6 ms L) = 16 ms: 0.16·0.001 + 3.2·0.016 = 0.05136.
    assert!((b.q.pi2().p_base() - 0.05136).abs() < 1e-12);
    assert_eq!(b.q.next_timer_ns(), 32_000_000);
}

#[test]
fn the_step_marks_l_packets_above_1_ms_from_the_minimum_length() {
    let params = DualPi2Params {
        min_qlen_step_pkts: 2,
        ..DualPi2Params::default()
    };
    let mut b = Bench::new(params, 100);
    for _ in 0..4 {
        b.offer(0, 1, Ecn::Ect1, 1500);
    }
    // The first two found fewer than 2 in the L queue: no step whatever their sojourn.
    let ecn: Vec<Ecn> = (0..4)
        .map(|_| b.dequeue(2_000_000).unwrap().ecn())
        .collect();
    assert_eq!(ecn, [Ecn::Ect1, Ecn::Ect1, Ecn::Ce, Ecn::Ce]);
    assert_eq!((b.q.counts.l.step_marks, b.stats.marks), (2, 2));
    // Under 1 ms no mark.
    b.offer(3_000_000, 1, Ecn::Ect1, 1500);
    b.offer(3_000_000, 1, Ecn::Ect1, 1500);
    b.offer(3_000_000, 1, Ecn::Ect1, 1500);
    assert_eq!(b.dequeue(3_500_000).unwrap().ecn(), Ecn::Ect1);
    assert_eq!(
        b.q.counts.l.sojourn_ns,
        [2_000_000, 2_000_000, 2_000_000, 2_000_000, 500_000]
    );
}

#[test]
fn overload_drops_l_packets_or_marks_them_all() {
    for drop_on_overload in [true, false] {
        let mut b = Bench::new(aggressive(drop_on_overload), 1000);
        for _ in 0..20 {
            b.offer(0, 1, Ecn::Ect1, 1500);
            b.offer(0, 2, Ecn::Ect0, 1500);
        }
        b.q.on_timer(16_000_000);
        let p = b.q.pi2();
        if drop_on_overload {
            // p' = 1: overloaded, p_C = 1, every packet above the 2-MTU floor dropped,
            // ECT(0) in C too; the last two (backlog under 2 MTU) pass, marked or not.
            assert!(p.overloaded() && p.p_base() == 1.0);
            let sent: Vec<Packet> = std::iter::from_fn(|| b.dequeue(16_000_000)).collect();
            assert_eq!(sent.len(), 2);
            assert_eq!(b.q.counts.l.drops + b.q.counts.c.drops, 38);
        } else {
            // p' capped at 1/k: p_CL = 1 marks every L packet, none dropped; C packets are
            // marked with p_C = 1/4.
            assert!(!p.overloaded() && p.p_base() == 0.5 && p.p_cl() == 1.0);
            let sent: Vec<Packet> = std::iter::from_fn(|| b.dequeue(16_000_000)).collect();
            assert_eq!(sent.len(), 40);
            let l_ce = sent
                .iter()
                .filter(|p| p.flow == 1 && p.ecn() == Ecn::Ce)
                .count();
            assert_eq!(l_ce, 20);
            assert_eq!(b.dropped(), 0);
        }
    }
}

#[test]
fn not_ect_is_dropped_and_ect0_marked_in_the_c_queue() {
    let mut b = Bench::new(aggressive(false), 1000);
    for _ in 0..400 {
        b.offer(0, 2, Ecn::NotEct, 1500);
        b.offer(0, 3, Ecn::Ect0, 1500);
    }
    b.q.on_timer(16_000_000); // p' = 0.5, p_C = 0.25
    let sent: Vec<Packet> = std::iter::from_fn(|| b.dequeue(16_000_000)).collect();
    let marked = sent.iter().filter(|p| p.ecn() == Ecn::Ce).count();
    assert!(sent.iter().all(|p| p.ecn() != Ecn::Ce || p.flow == 3));
    // About a quarter of each: 100 ± 3σ (σ ≈ 8.7).
    assert!((74..126).contains(&marked), "{marked}");
    let dropped = b.q.counts.c.drops as usize;
    assert!((74..126).contains(&dropped), "{dropped}");
    assert_eq!(b.stats.dequeue_drops as usize, dropped);
}

#[test]
fn drop_enqueue_signals_on_arrival() {
    let params = DualPi2Params {
        drop_enqueue: true,
        ..aggressive(true)
    };
    let mut b = Bench::new(params, 1000);
    for _ in 0..3 {
        b.offer(0, 2, Ecn::NotEct, 1500);
    }
    b.q.on_timer(16_000_000); // p' = 1
    assert!(
        !b.offer(16_000_000, 2, Ecn::NotEct, 1500),
        "dropped on arrival"
    );
    assert_eq!(b.stats.early_drops, 1);
    // At dequeue nothing more happens to the C packets.
    assert_eq!(std::iter::from_fn(|| b.dequeue(17_000_000)).count(), 3);
}

#[test]
fn the_limit_is_shared_and_overflow_counted_per_queue() {
    let mut b = Bench::new(DualPi2Params::default(), 3);
    assert!(b.offer(0, 1, Ecn::Ect1, 1500));
    assert!(b.offer(0, 2, Ecn::NotEct, 1500));
    assert!(b.offer(0, 1, Ecn::Ect1, 1500));
    assert!(!b.offer(0, 1, Ecn::Ect1, 1500));
    assert!(!b.offer(0, 2, Ecn::NotEct, 1500));
    assert_eq!(b.stats.overflow_drops, 2);
    assert_eq!((b.q.counts.l.drops, b.q.counts.c.drops), (1, 1));
}

/// One step of a random sequence.
#[derive(Clone, Debug)]
enum Op {
    Offer { ecn: u8, bytes: u32 },
    Dequeue,
    Timer,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..4, 64u32..1500).prop_map(|(ecn, bytes)| Op::Offer { ecn, bytes }),
        2 => Just(Op::Dequeue),
        1 => Just(Op::Timer),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn packets_are_conserved_and_both_queues_stay_within_the_limit(
        ops in proptest::collection::vec(op(), 1..600),
        limit in 1u32..40,
        c_protection_pct in 0u32..=100,
        drop_on_overload in any::<bool>(),
        drop_enqueue in any::<bool>(),
    ) {
        let params = DualPi2Params {
            c_protection_pct,
            drop_on_overload,
            drop_enqueue,
            beta_hz: 20.0,
            ..DualPi2Params::default()
        };
        let mut b = Bench::new(params, limit);
        let mut now = 0u64;
        for op in ops {
            now += 700_000;
            match op {
                Op::Offer { ecn, bytes } => {
                    let ecn = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce][ecn as usize];
                    b.offer(now, 0, ecn, bytes);
                }
                Op::Dequeue => {
                    b.dequeue(now);
                }
                Op::Timer => {
                    now = now.max(b.q.next_timer_ns());
                    b.q.on_timer(now);
                }
            }
            let (l, c) = b.q.queue_lens();
            prop_assert!(l + c <= limit);
            prop_assert_eq!(b.taken, b.sent + b.dropped() + u64::from(l + c));
            let d = &b.q.counts;
            prop_assert_eq!(d.l.arrivals, d.l.sojourn_ns.len() as u64 + d.l.drops + u64::from(l));
            prop_assert_eq!(d.c.arrivals, d.c.sojourn_ns.len() as u64 + d.c.drops + u64::from(c));
            let bytes: u64 = b.q.packets().map(|p| u64::from(p.size_bytes)).sum();
            prop_assert_eq!(bytes, b.q.len_bytes());
        }
        while b.dequeue(now).is_some() {}
        prop_assert_eq!(b.q.len_pkts(), 0);
        prop_assert_eq!(b.taken, b.sent + b.dropped());
    }
}
