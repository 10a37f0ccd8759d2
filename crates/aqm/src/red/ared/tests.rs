//! Unit tests of Adaptive RED against Floyd et al. (2001) and ns-3.37 `RedQueueDisc`.

use super::*;
use crate::contract::{Aqm, PacketView, QueueView};
use crate::rng::Rng;

#[test]
fn automatic_configuration_for_the_betared_dumbbell() {
    // 50 Mb/s of 1000-byte packets: C = 6250 packets/s; 40 ms target.
    let p = AredParams {
        target_delay_ms: 40.0,
        ..AredParams::default()
    };
    let c = p.configure(50e6);
    assert!((c.q_min_pkts - 125.0).abs() < 1e-9);
    assert!((c.q_max_pkts - 375.0).abs() < 1e-9);
    assert!((c.w - (1.0 - (-1.0f64 / 6250.0).exp())).abs() < 1e-15);
    assert!((c.bottom - 8.0 * 1000.0 * 0.1 / 50e6).abs() < 1e-18);
    let small = AredParams::default().configure(1e6); // 125 packets/s · 5 ms / 2 < 5
    assert_eq!(small.q_min_pkts, 5.0);
}

#[test]
fn aimd_on_p_max() {
    let mut a = Ared::new(
        AredParams {
            target_delay_ms: 40.0,
            p_max_initial: 0.1,
            ..AredParams::default()
        },
        50e6,
    )
    .unwrap();
    // Band: [125 + 100, 375 − 100] = [225, 275].
    a.adapt(300.0);
    assert!((a.p_max() - 0.11).abs() < 1e-15, "+α = 0.01");
    a.adapt(250.0);
    assert!(
        (a.p_max() - 0.11).abs() < 1e-15,
        "inside the band: unchanged"
    );
    a.adapt(200.0);
    assert!((a.p_max() - 0.099).abs() < 1e-15, "×β = 0.9");
    let mut low = Ared::new(
        AredParams {
            target_delay_ms: 40.0,
            p_max_initial: 0.02,
            ..AredParams::default()
        },
        50e6,
    )
    .unwrap();
    low.adapt(300.0);
    assert!((low.p_max() - 0.025).abs() < 1e-15, "α capped at p_max/4");
    let mut top = Ared::new(
        AredParams {
            p_max_initial: 0.5,
            ..AredParams::default()
        },
        50e6,
    )
    .unwrap();
    top.adapt(1e6);
    assert_eq!(top.p_max(), 0.5, "no increase at top");
}

#[test]
fn timer_runs_every_interval() {
    let timer = AredParams {
        adapt_at: AdaptAt::Timer,
        ..AredParams::default()
    };
    let mut a = Ared::new(timer, 50e6).unwrap();
    let q = QueueView {
        len_pkts: 0,
        len_bytes: 0,
        limit_pkts: 1000,
        limit_bytes: 0,
        rate_bps: 50e6,
    };
    let mut rng = Rng::from_seed(1);
    assert_eq!(a.next_timer_ns(), Some(500_000_000));
    a.on_timer(500_000_000, &q, &mut rng);
    assert_eq!(a.next_timer_ns(), Some(1_000_000_000));
    assert!(a.p_max() < 0.02, "empty queue: p_max decreases");
}

#[test]
fn adaptation_at_arrivals_once_the_interval_has_passed_since_the_last_change() {
    // 50 Mb/s, 40 ms target: band [225, 275]; an empty queue keeps q_avg ≈ 0, below it,
    // so each adaptation is p_max ← 0.9·p_max (from 0.02, far above bottom 1.6e-5).
    let mut a = Ared::new(
        AredParams {
            target_delay_ms: 40.0,
            ..AredParams::default()
        },
        50e6,
    )
    .unwrap();
    assert_eq!(a.next_timer_ns(), None);
    let q = QueueView {
        len_pkts: 0,
        len_bytes: 0,
        limit_pkts: 1000,
        limit_bytes: 0,
        rate_bps: 50e6,
    };
    let pkt = PacketView {
        size_bytes: 1000,
        ect: false,
    };
    let mut rng = Rng::from_seed(1);
    let half_s = 500_000_000;
    // (arrival time, p_max after it): 0.5 s is not past 0 + 0.5 s; 0.5 s + 1 ns is, and
    // sets last_set; 0.9 s is not past it by 0.5 s; 1.0 s + 2 ns is.
    for (t, p_max) in [
        (half_s, 0.02),
        (half_s + 1, 0.018),
        (900_000_000, 0.018),
        (2 * half_s + 2, 0.0162),
    ] {
        a.on_enqueue(t, pkt, &q, &mut rng);
        assert!((a.p_max() - p_max).abs() < 1e-15, "t = {t}: {}", a.p_max());
    }
}

#[test]
fn gentle_slope_from_the_initial_or_the_current_p_max() {
    // q_min 125, q_max 375; p_max 0.1 → 0.11 after one increase. At q_avg 450 the gentle
    // line gives 0.1 + 0.9·75/375 = 0.28 from the initial p_max, 0.11 + 0.89·0.2 = 0.288
    // from the current one; below q_max both use the current p_max: 0.11·125/250 = 0.055.
    for (fixed, expect) in [(true, 0.28), (false, 0.288)] {
        let mut a = Ared::new(
            AredParams {
                target_delay_ms: 40.0,
                p_max_initial: 0.1,
                gentle_slope_from_initial_p_max: fixed,
                ..AredParams::default()
            },
            50e6,
        )
        .unwrap();
        assert!(a.adapt(300.0));
        assert!((a.drop_probability(450.0) - expect).abs() < 1e-15);
        assert!((a.drop_probability(250.0) - 0.055).abs() < 1e-15);
        assert_eq!(a.drop_probability(750.0), 1.0);
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let field = |p: AredParams| Ared::new(p, 50e6).unwrap_err().field;
    let d = AredParams::default;
    assert_eq!(
        field(AredParams {
            target_delay_ms: 0.0,
            ..d()
        }),
        "target_delay_ms"
    );
    assert_eq!(
        field(AredParams {
            q_min_pkts: 10.0,
            ..d()
        }),
        "q_max_pkts"
    );
    assert_eq!(field(AredParams { beta: 1.0, ..d() }), "beta");
    assert_eq!(field(AredParams { top: 1.5, ..d() }), "top");
    assert_eq!(
        field(AredParams {
            mark_p_max: 0.0,
            ..d()
        }),
        "mark_p_max"
    );
    let infinite = AredParams {
        q_min_pkts: 10.0,
        q_max_pkts: f64::INFINITY,
        ..d()
    };
    assert_eq!(field(infinite), "q_max_pkts");
}
