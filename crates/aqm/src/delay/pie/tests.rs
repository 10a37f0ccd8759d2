//! Unit tests of PIE against RFC 8033 and the ns-3.37 `PieQueueDisc` behaviour.

use super::*;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: true,
};

fn queue(len_bytes: u64) -> QueueView {
    QueueView {
        len_pkts: len_bytes.div_ceil(1000) as u32,
        len_bytes,
        limit_pkts: 1000,
        limit_bytes: 0,
        rate_bps: 10e6,
    }
}

/// The defaults with RFC 8033's burst allowance and short-queue test.
fn rfc_params() -> PieParams {
    PieParams {
        burst_rule: BurstRule::Rfc8033,
        short_queue_rule: ShortQueueRule::Rfc8033,
        ..PieParams::default()
    }
}

fn new_pie() -> Pie {
    Pie::new(rfc_params()).unwrap()
}

/// Record a timestamp sample (a departure with `sojourn_ms`, queue left non-empty) and run
/// one update at `now_ns`.
fn update_with(pie: &mut Pie, now_ns: u64, sojourn_ms: f64) {
    let mut rng = Rng::from_seed(1);
    let sojourn_ns = ms_to_ns(sojourn_ms);
    assert_eq!(
        pie.on_dequeue(now_ns, sojourn_ns, PKT, &queue(10_000), &mut rng),
        DequeueVerdict::Deliver
    );
    pie.on_timer(now_ns, &queue(10_000), &mut rng);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

/// Δp before scaling for qdelay, qdelay_old in seconds, default α, β and 15 ms target.
fn raw(q: f64, q_old: f64) -> f64 {
    0.125 * (q - 0.015) + 1.25 * (q - q_old)
}

#[test]
fn timer_runs_at_zero_then_every_t_update() {
    let mut pie = new_pie();
    assert_eq!(pie.next_timer_ns(), Some(0));
    pie.on_timer(0, &queue(0), &mut Rng::from_seed(1));
    assert_eq!(pie.next_timer_ns(), Some(15 * MS));
    pie.on_timer(15 * MS, &queue(0), &mut Rng::from_seed(1));
    assert_eq!(pie.next_timer_ns(), Some(30 * MS));
    assert_eq!(pie.stats().updates, 2);
}

#[test]
fn delta_p_follows_the_scaling_table() {
    // From p = 0, qdelay 30 ms after 0: Δp = (0.125·0.015 + 1.25·0.030)/2048.
    let mut pie = new_pie();
    update_with(&mut pie, 0, 30.0);
    let p1 = 0.039375 / 2048.0;
    assert!(close(pie.p(), p1), "{}", pie.p());
    assert!(close(p1, 1.922607421875e-5));
    // p1 is in [1e-5, 1e-4): Δp = 0.125·0.015 / 128 with qdelay steady at 30 ms.
    update_with(&mut pie, 15 * MS, 30.0);
    let p2 = p1 + 0.001875 / 128.0;
    assert!(close(pie.p(), p2), "{}", pie.p());
    // Each band of the table, entered by setting p.
    for (p0, divisor) in [
        (0.0000005, 2048.0),
        (0.000005, 512.0),
        (0.00005, 128.0),
        (0.0005, 32.0),
        (0.005, 8.0),
        (0.05, 2.0),
        (0.5, 1.0),
    ] {
        let mut pie = new_pie();
        pie.vars.p = p0;
        pie.vars.qdelay_old_ns = 20 * MS;
        update_with(&mut pie, 0, 22.0);
        // raw(0.022, 0.020) = 0.125·0.007 + 1.25·0.002 = 0.003375 (below the cap).
        let expect = p0 + raw(0.022, 0.020) / divisor;
        assert!(close(pie.p(), expect), "p0 {p0}: {} vs {expect}", pie.p());
    }
    // A falling delay gives a negative Δp.
    let mut pie = new_pie();
    pie.vars.p = 0.05;
    pie.vars.qdelay_old_ns = 40 * MS;
    update_with(&mut pie, 0, 20.0);
    assert!(close(pie.p(), 0.05 + raw(0.020, 0.040) / 2.0));
    assert!(close(pie.p(), 0.05 - 0.0121875));
}

#[test]
fn cap_drop_adjustment_limits_the_increase_at_high_p() {
    // p = 0.15, qdelay 100 ms after 50 ms: raw Δp = 0.010625 + 0.0625 = 0.073125.
    let mut capped = new_pie();
    capped.vars.p = 0.15;
    capped.vars.qdelay_old_ns = 50 * MS;
    update_with(&mut capped, 0, 100.0);
    assert!(close(capped.p(), 0.17));
    let mut uncapped = Pie::new(PieParams {
        use_cap_drop_adjustment: false,
        ..rfc_params()
    })
    .unwrap();
    uncapped.vars.p = 0.15;
    uncapped.vars.qdelay_old_ns = 50 * MS;
    update_with(&mut uncapped, 0, 100.0);
    assert!(close(uncapped.p(), 0.15 + 0.073125));
    // Below p = 0.1 there is no cap: 0.05 + 0.073125/2.
    let mut low = new_pie();
    low.vars.p = 0.05;
    low.vars.qdelay_old_ns = 50 * MS;
    update_with(&mut low, 0, 100.0);
    assert!(close(low.p(), 0.05 + 0.0365625));
}

#[test]
fn probability_decays_when_the_queue_stays_empty() {
    let mut pie = new_pie();
    pie.vars.p = 0.5;
    // A departure that empties the queue is a zero delay sample.
    let mut rng = Rng::from_seed(1);
    pie.on_dequeue(0, 40 * MS, PKT, &queue(0), &mut rng);
    pie.on_timer(0, &queue(0), &mut rng);
    // Δp = 0.125·(0 − 0.015) = −0.001875 (p ≥ 0.1: unscaled), then ×0.98.
    assert!(close(pie.p(), (0.5 - 0.001875) * 0.98));
    let p1 = pie.p();
    pie.on_timer(15 * MS, &queue(0), &mut rng);
    assert!(close(pie.p(), (p1 - 0.001875) * 0.98));
}

#[test]
fn probability_is_clamped_to_unit_interval() {
    let mut pie = new_pie();
    pie.vars.p = 0.99;
    pie.vars.qdelay_old_ns = 500 * MS;
    update_with(&mut pie, 0, 1000.0);
    assert_eq!(pie.p(), 1.0);
    let mut pie = pie_with_p(0.0000001);
    pie.vars.qdelay_old_ns = 500 * MS;
    update_with(&mut pie, 0, 1.0);
    assert_eq!(pie.p(), 0.0);
}

fn pie_with_p(p: f64) -> Pie {
    let mut pie = new_pie();
    pie.vars.p = p;
    pie
}

#[test]
fn burst_allowance_blocks_drops_then_expires_after_max_burst() {
    let mut pie = new_pie();
    let mut rng = Rng::from_seed(7);
    let big = queue(100_000);
    // Congested from the start: 100 ms samples. Even with p forced to 1 nothing is dropped
    // while allowance remains: 150 → 135 → … → 15 ms after the updates at 0 … 120 ms.
    for k in 0..9u64 {
        update_with(&mut pie, k * 15 * MS, 100.0);
        assert_eq!(pie.vars.burst_allowance_ns, (150 - 15 * (k + 1)) * MS);
        pie.vars.p = 1.0;
        for _ in 0..100 {
            assert_eq!(
                pie.on_enqueue(0, PKT, &big, &mut rng),
                EnqueueVerdict::Accept
            );
        }
    }
    // The tenth update (t = 135 ms) uses up the 150 ms: drops start.
    update_with(&mut pie, 135 * MS, 100.0);
    assert_eq!(pie.vars.burst_allowance_ns, 0);
    pie.vars.p = 1.0;
    assert_eq!(
        pie.on_enqueue(0, PKT, &big, &mut rng),
        EnqueueVerdict::ForcedDrop
    );
    let mut out = Vec::new();
    pie.probe(&mut out);
    assert_eq!(out, vec![1.0, 100.0, 0.0]);
}

#[test]
fn burst_allowance_is_reset_when_congestion_has_gone() {
    let mut pie = new_pie();
    for k in 0..12u64 {
        update_with(&mut pie, k * 15 * MS, 100.0);
    }
    assert_eq!(pie.vars.burst_allowance_ns, 0);
    // Delay back under target/2 while p is still > 0: no reset. (The first 5 ms update
    // also still has qdelay_old = 100 ms.)
    pie.vars.p = 0.5;
    update_with(&mut pie, 180 * MS, 5.0);
    update_with(&mut pie, 195 * MS, 5.0);
    assert!(pie.p() > 0.3);
    assert_eq!(pie.vars.burst_allowance_ns, 0);
    // p = 0 with qdelay and qdelay_old both < 7.5 ms: reset to MAX_BURST.
    pie.vars.p = 0.0;
    update_with(&mut pie, 210 * MS, 5.0);
    assert_eq!(pie.p(), 0.0);
    assert_eq!(pie.vars.burst_allowance_ns, 150 * MS);
}

#[test]
fn short_queue_in_bytes_is_never_dropped() {
    let mut pie = pie_with_p(1.0);
    pie.vars.burst_allowance_ns = 0;
    pie.vars.qdelay_old_ns = 100 * MS;
    let mut rng = Rng::from_seed(3);
    // 2·MEAN_PKTSIZE = 2000 bytes, whatever the packet count.
    let mut q = queue(2000);
    q.len_pkts = 40;
    for _ in 0..1000 {
        assert_eq!(pie.on_enqueue(0, PKT, &q, &mut rng), EnqueueVerdict::Accept);
    }
    assert_eq!(
        pie.on_enqueue(0, PKT, &queue(2001), &mut rng),
        EnqueueVerdict::ForcedDrop
    );
}

#[test]
fn low_delay_and_low_p_bypass_random_drops() {
    let mut pie = pie_with_p(0.19);
    pie.vars.burst_allowance_ns = 0;
    pie.vars.qdelay_old_ns = 7 * MS; // < 7.5 ms
    let mut rng = Rng::from_seed(3);
    for _ in 0..1000 {
        assert_eq!(
            pie.on_enqueue(0, PKT, &queue(100_000), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    // Either condition failing re-enables drops.
    pie.vars.qdelay_old_ns = 7_500_000;
    let drops = (0..1000)
        .filter(|_| pie.on_enqueue(0, PKT, &queue(100_000), &mut rng) != EnqueueVerdict::Accept)
        .count();
    assert!(drops > 100, "{drops}");
}

#[test]
fn drop_frequency_matches_p() {
    let mut pie = pie_with_p(0.05);
    pie.vars.burst_allowance_ns = 0;
    pie.vars.qdelay_old_ns = 30 * MS;
    let mut rng = Rng::from_seed(11);
    let n = 200_000;
    let drops = (0..n)
        .filter(|_| pie.on_enqueue(0, PKT, &queue(50_000), &mut rng) == EnqueueVerdict::EarlyDrop)
        .count();
    let freq = drops as f64 / f64::from(n);
    assert!((freq - 0.05).abs() < 0.002, "frequency {freq}");
    assert_eq!(pie.stats().early_signals, drops as u64);
}

#[test]
fn ecn_marks_only_up_to_the_threshold() {
    for (p, expect) in [
        (0.1, EnqueueVerdict::EarlyDrop),
        (0.100001, EnqueueVerdict::ForcedDrop),
        (0.6, EnqueueVerdict::ForcedDrop),
    ] {
        let mut pie = pie_with_p(p);
        pie.vars.burst_allowance_ns = 0;
        pie.vars.qdelay_old_ns = 30 * MS;
        let mut rng = Rng::from_seed(5);
        let verdicts: Vec<_> = (0..2000)
            .map(|_| pie.on_enqueue(0, PKT, &queue(50_000), &mut rng))
            .filter(|v| *v != EnqueueVerdict::Accept)
            .collect();
        assert!(!verdicts.is_empty());
        assert!(verdicts.iter().all(|v| *v == expect), "p {p}");
        // A packet that is not ECN-capable is an early drop at any p.
        let plain = PacketView { ect: false, ..PKT };
        assert!((0..2000)
            .map(|_| pie.on_enqueue(0, plain, &queue(50_000), &mut rng))
            .all(|v| v != EnqueueVerdict::ForcedDrop));
    }
}

#[test]
fn derandomization_spaces_drops() {
    let params = PieParams {
        use_derandomization: true,
        ..rfc_params()
    };
    let mut pie = Pie::new(params).unwrap();
    pie.vars.p = 0.1;
    pie.vars.burst_allowance_ns = 0;
    pie.vars.qdelay_old_ns = 30 * MS;
    let mut rng = Rng::from_seed(9);
    // accu_prob 0.1 … 0.8 stays below 0.85: no draw, no drop for 8 arrivals.
    let before = rng.clone();
    for _ in 0..8 {
        assert_eq!(
            pie.on_enqueue(0, PKT, &queue(50_000), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    assert_eq!(rng.clone().next_u64(), before.clone().next_u64());
    // From 8.5 on the drop is certain, again without a draw; accu_prob then restarts.
    pie.vars.accu_prob = 8.45;
    assert_eq!(
        pie.on_enqueue(0, PKT, &queue(50_000), &mut rng),
        EnqueueVerdict::EarlyDrop
    );
    assert_eq!(rng.clone().next_u64(), before.clone().next_u64());
    assert_eq!(pie.vars.accu_prob, 0.0);
    // p = 0 clears the accumulator.
    pie.vars.accu_prob = 0.5;
    pie.vars.p = 0.0;
    pie.vars.qdelay_old_ns = 30 * MS;
    pie.on_enqueue(0, PKT, &queue(50_000), &mut rng);
    assert_eq!(pie.vars.accu_prob, 0.0);
}

#[test]
fn dequeue_rate_estimator_gives_littles_law_delay() {
    let mut pie = Pie::new(PieParams {
        use_dequeue_rate_estimator: true,
        ..rfc_params()
    })
    .unwrap();
    let mut rng = Rng::from_seed(1);
    // No rate yet: delay 0.
    pie.on_timer(0, &queue(20_000), &mut rng);
    assert_eq!(pie.vars.qdelay_old_ns, 0);
    // 1000-byte departures every ms with 20 kB behind them: the cycle starts at t = 1 ms
    // and ends at the 17th departure (17 000 ≥ 16 384 bytes) at t = 17 ms, after 16 ms:
    // rate = 17 000 / 0.016 = 1 062 500 B/s.
    for k in 1..=17u64 {
        pie.on_dequeue(k * MS, 0, PKT, &queue(20_000), &mut rng);
    }
    assert!(close(pie.vars.dq.avg_bytes_per_s, 1_062_500.0));
    // A new cycle started at once (20 000 > 16 384 bytes remain).
    assert!(pie.vars.dq.in_measurement);
    assert_eq!(pie.vars.dq.start_ns, 17 * MS);
    pie.on_timer(30 * MS, &queue(20_000), &mut rng);
    // 20 000 / 1 062 500 s = 18.823529… ms.
    assert_eq!(pie.vars.qdelay_old_ns, 18_823_529);
    // The second cycle: 17 000 bytes in 8.5 ms = 2 000 000 B/s; avg = ½·1 062 500 + ½·2 000 000.
    for k in 0..17u64 {
        pie.on_dequeue(17 * MS + (k + 1) * MS / 2, 0, PKT, &queue(20_000), &mut rng);
    }
    assert!(close(pie.vars.dq.avg_bytes_per_s, 1_531_250.0));
}

#[test]
fn timestamp_delay_is_the_last_sojourn_or_zero_when_emptied() {
    let mut pie = new_pie();
    let mut rng = Rng::from_seed(1);
    pie.on_dequeue(MS, 12 * MS, PKT, &queue(3000), &mut rng);
    pie.on_timer(2 * MS, &queue(3000), &mut rng);
    assert_eq!(pie.vars.qdelay_old_ns, 12 * MS);
    pie.on_dequeue(3 * MS, 12 * MS, PKT, &queue(0), &mut rng);
    pie.on_timer(4 * MS, &queue(0), &mut rng);
    assert_eq!(pie.vars.qdelay_old_ns, 0);
}

#[test]
fn bad_parameters_name_the_field() {
    let cases: [(PieParams, &str); 8] = [
        (
            PieParams {
                target_ms: 0.0,
                ..rfc_params()
            },
            "target_ms",
        ),
        (
            PieParams {
                t_update_ms: -1.0,
                ..rfc_params()
            },
            "t_update_ms",
        ),
        (
            PieParams {
                alpha: f64::NAN,
                ..rfc_params()
            },
            "alpha",
        ),
        (
            PieParams {
                beta: -0.1,
                ..rfc_params()
            },
            "beta",
        ),
        (
            PieParams {
                max_burst_ms: f64::INFINITY,
                ..rfc_params()
            },
            "max_burst_ms",
        ),
        (
            PieParams {
                mean_pkt_bytes: 0,
                ..rfc_params()
            },
            "mean_pkt_bytes",
        ),
        (
            PieParams {
                dq_threshold_bytes: 0,
                ..rfc_params()
            },
            "dq_threshold_bytes",
        ),
        (
            PieParams {
                ecn_max_p: 1.5,
                ..rfc_params()
            },
            "ecn_max_p",
        ),
    ];
    for (params, field) in cases {
        assert_eq!(Pie::new(params).unwrap_err().field, field);
    }
    assert!(Pie::new(PieParams {
        max_burst_ms: 0.0,
        ..rfc_params()
    })
    .is_ok());
}

#[test]
fn ns3_burst_allowance_armed_by_the_first_arrival_with_p_held_at_zero() {
    let mut pie = Pie::new(PieParams::default()).unwrap();
    let mut rng = Rng::from_seed(1);
    assert_eq!(pie.vars.burst_allowance_ns, 0, "not armed before traffic");
    // Congested updates before any arrival raise p: the allowance is not armed yet.
    update_with(&mut pie, 0, 60.0);
    assert!(pie.p() > 0.0);
    let p0 = pie.p();
    // The first arrival arms MAX_BURST = 150 ms; p is then held at 0 for 10 updates of 15 ms.
    assert_eq!(
        pie.on_enqueue(MS, PKT, &queue(100_000), &mut rng),
        EnqueueVerdict::Accept
    );
    assert_eq!(pie.vars.burst_allowance_ns, 150 * MS);
    assert!(p0 > 0.0);
    for k in 1..=10 {
        update_with(&mut pie, k * 15 * MS, 60.0);
        assert_eq!(pie.p(), 0.0, "update {k}");
    }
    assert_eq!(pie.vars.burst_allowance_ns, 0);
    // Allowance spent: 60 ms against 15 ms raises p again, α·0.045 + β·0 = 0.005625 / 2048.
    update_with(&mut pie, 165 * MS, 60.0);
    assert!(close(pie.p(), 0.125 * 0.045 / 2048.0), "{}", pie.p());
}

#[test]
fn ns3_burst_allowance_re_armed_only_after_1_5_s_of_quiet() {
    let mut pie = Pie::new(PieParams::default()).unwrap();
    let mut rng = Rng::from_seed(1);
    pie.on_enqueue(0, PKT, &queue(0), &mut rng);
    // 10 quiet updates spend the allowance (state: protecting → in burst at the 10th); then
    // ⌊1.5 s / 15 ms⌋ = 100 quiet updates are counted and the 101st returns to "no burst".
    let mut t = 0;
    for _ in 0..10 {
        t += 15 * MS;
        update_with(&mut pie, t, 0.0);
    }
    assert_eq!(pie.vars.burst_state, BurstState::InBurst);
    for _ in 0..100 {
        t += 15 * MS;
        update_with(&mut pie, t, 0.0);
        pie.on_enqueue(t, PKT, &queue(0), &mut rng);
        assert_eq!(pie.vars.burst_allowance_ns, 0, "not re-armed at {t}");
    }
    t += 15 * MS;
    update_with(&mut pie, t, 0.0);
    assert_eq!(pie.vars.burst_state, BurstState::NoBurst);
    pie.on_enqueue(t, PKT, &queue(0), &mut rng);
    assert_eq!(
        pie.vars.burst_allowance_ns,
        150 * MS,
        "re-armed by the next arrival"
    );
}

#[test]
fn ns3_short_queue_counts_packets_in_a_packet_buffer() {
    let mut pie = Pie::new(PieParams::default()).unwrap();
    pie.vars.p = 1.0;
    pie.vars.burst_state = BurstState::InBurst;
    pie.vars.qdelay_old_ns = 30 * MS;
    let mut rng = Rng::from_seed(1);
    // Two 64-byte packets: 128 bytes, "short" either way; three 64-byte packets (192 bytes)
    // are short by RFC 8033's 2000 bytes but not by ns-3's 2 packets in a packet buffer.
    let small = |n: u32| QueueView {
        len_pkts: n,
        len_bytes: 64 * u64::from(n),
        ..queue(0)
    };
    assert_eq!(
        pie.on_enqueue(0, PKT, &small(2), &mut rng),
        EnqueueVerdict::Accept
    );
    assert_eq!(
        pie.on_enqueue(0, PKT, &small(3), &mut rng),
        EnqueueVerdict::ForcedDrop
    );
    let mut rfc = Pie::new(rfc_params()).unwrap();
    rfc.vars.p = 1.0;
    rfc.vars.burst_allowance_ns = 0;
    rfc.vars.qdelay_old_ns = 30 * MS;
    assert_eq!(
        rfc.on_enqueue(0, PKT, &small(3), &mut rng),
        EnqueueVerdict::Accept
    );
    // A byte-counted buffer uses bytes under the ns-3 rule too.
    let bytes = QueueView {
        limit_bytes: 1_000_000,
        ..small(3)
    };
    assert_eq!(
        pie.on_enqueue(0, PKT, &bytes, &mut rng),
        EnqueueVerdict::Accept
    );
}
