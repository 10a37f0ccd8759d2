//! Unit tests of IAPI against Li et al. (2014) eqs. (6)–(8) and §2.4, values computed by hand.

use super::*;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 100_000, 45e6)
}

/// q_ref 100, a = 0.003, b = 0.001, w = 100 Hz (T = 0.01 s), e* = 10:
/// k_p = b = 0.001, k_i0 = (a − b)/T = 0.2.
fn small() -> Iapi {
    Iapi::new(IapiParams {
        q_ref_pkts: 100.0,
        a: 0.003,
        b: 0.001,
        sample_hz: 100.0,
        e_star_pkts: 10.0,
    })
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

fn tick(q: &mut Iapi, now_ns: u64, len: u32) {
    q.on_timer(now_ns, &queue(len), &mut Rng::from_seed(1));
}

#[test]
fn timer_runs_at_zero_then_every_period() {
    let mut q = small();
    assert_eq!(q.next_timer_ns(), Some(0));
    tick(&mut q, 0, 0);
    assert_eq!(q.next_timer_ns(), Some(10 * MS));
    tick(&mut q, 10 * MS, 0);
    assert_eq!(q.next_timer_ns(), Some(20 * MS));
    assert_eq!(q.stats().updates, 2);
    // 170 Hz: T = 5 882 352.94 ns, rounded.
    let d = Iapi::new(IapiParams::default()).unwrap();
    assert_eq!(d.period_ns, 5_882_353);
}

#[test]
fn adaptive_integral_gain_and_pi_update() {
    let mut q = small();
    // t = 0, q = 100: e = 0, e(k−1) = 0 − 100 = −100 (ns-2 starts with q_old = 0).
    // k_i = 0.2·(1 + (0 − 10)/20) = 0.1; Δp = 0.001·(0 + 100) + 0.1·0.01·0 = 0.1.
    tick(&mut q, 0, 100);
    assert!(
        close(q.p(), 0.1) && close(q.k_i(), 0.1),
        "{} {}",
        q.p(),
        q.k_i()
    );
    // q = 130: e = 30, k_i = 0.2·(1 + 20/20) = 0.4;
    // Δp = 0.001·(30 − 0) + 0.4·0.01·30 = 0.03 + 0.12 = 0.15 → p = 0.25.
    tick(&mut q, 10 * MS, 130);
    assert!(
        close(q.p(), 0.25) && close(q.k_i(), 0.4),
        "{} {}",
        q.p(),
        q.k_i()
    );
    // q = 110: e = 10 = e*, so k_i = k_i0 = 0.2 and the update is ns-2's
    // a·e(k) − b·e(k−1) = 0.003·10 − 0.001·30 = 0 → p stays 0.25.
    tick(&mut q, 20 * MS, 110);
    assert!(
        close(q.p(), 0.25) && close(q.k_i(), 0.2),
        "{} {}",
        q.p(),
        q.k_i()
    );
    // q = 70: e = −30, k_i = 0.4; Δp = 0.001·(−30 − 10) + 0.4·0.01·(−30) = −0.04 − 0.12
    // = −0.16 → p = 0.09.
    tick(&mut q, 30 * MS, 70);
    assert!(
        close(q.p(), 0.09) && close(q.k_i(), 0.4),
        "{} {}",
        q.p(),
        q.k_i()
    );
}

#[test]
fn default_gains_come_from_ns2_a_and_b() {
    let q = Iapi::new(IapiParams::default()).unwrap();
    // k_p = b = 1.816e-5; k_i0 = (a − b)·w = 6e-8·170 = 1.02e-5.
    assert!(close(q.k_p, 1.816e-5));
    assert!((q.k_i0 - 1.02e-5).abs() < 1e-15, "{}", q.k_i0);
    // First update from an empty queue: e = −300, k_i = k_i0·(1 + 297/6) = 50.5·k_i0, Δp < 0.
    let mut q = q;
    tick(&mut q, 0, 0);
    assert_eq!(q.p(), 0.0);
    assert!((q.k_i() - 50.5 * 1.02e-5).abs() < 1e-15);
}

#[test]
fn arrival_probability_scales_with_the_queue() {
    let mut q = small();
    tick(&mut q, 0, 100);
    tick(&mut q, 10 * MS, 130);
    // p = 0.25: at q = 40, p′ = 40/100·0.25 = 0.1; at q = 0, 0; at q = 500, 1.25 → 1.
    assert!(close(q.arrival_probability(40), 0.1));
    assert_eq!(q.arrival_probability(0), 0.0);
    assert_eq!(q.arrival_probability(500), 1.0);
    let mut rng = Rng::from_seed(3);
    for _ in 0..100 {
        assert_eq!(
            q.on_enqueue(0, PKT, &queue(500), &mut rng),
            EnqueueVerdict::EarlyDrop
        );
        assert_eq!(
            q.on_enqueue(0, PKT, &queue(0), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    assert_eq!(q.stats().early_signals, 100);
    // The per-arrival scaling leaves the controller's p alone.
    assert!(close(q.p(), 0.25));
}

#[test]
fn probability_stays_in_range_under_extreme_queues() {
    let mut q = Iapi::new(IapiParams::default()).unwrap();
    for (k, len) in [u32::MAX, 0, u32::MAX, u32::MAX, 0, 0, 1, u32::MAX]
        .into_iter()
        .enumerate()
    {
        tick(&mut q, k as u64 * 6 * MS, len);
        assert!((0.0..=1.0).contains(&q.p()), "{}", q.p());
        assert!((0.0..=1.0).contains(&q.arrival_probability(len)));
        let mut out = Vec::new();
        q.probe(&mut out);
        assert_eq!(out.len(), q.probe_names().len());
        assert!(out.iter().all(|v| v.is_finite()));
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let d = IapiParams::default;
    let cases = [
        (
            IapiParams {
                q_ref_pkts: 0.0,
                ..d()
            },
            "q_ref_pkts: must be a number in [0.001, 1e9]",
        ),
        (
            IapiParams { a: 1.5, ..d() },
            "a: must be a number in [b, 1]",
        ),
        (
            IapiParams { a: f64::NAN, ..d() },
            "a: must be a number in [b, 1]",
        ),
        (
            IapiParams { b: -1e-6, ..d() },
            "b: must be a number in [0, a] (a non-negative integral gain)",
        ),
        (
            IapiParams { a: 1e-5, ..d() },
            "b: must be a number in [0, a] (a non-negative integral gain)",
        ),
        (
            IapiParams {
                sample_hz: 0.0,
                ..d()
            },
            "sample_hz: must be a number in [1e-9, 1e9]",
        ),
        (
            IapiParams {
                e_star_pkts: 0.0,
                ..d()
            },
            "e_star_pkts: must be a number in [0.001, 1e9]",
        ),
    ];
    for (params, want) in cases {
        let err = Iapi::new(params).unwrap_err();
        assert_eq!(err.to_string(), want);
        assert!(!want.contains('\n'));
    }
    assert!(Iapi::new(d()).is_ok());
}
