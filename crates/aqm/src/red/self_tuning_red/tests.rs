//! Unit tests of self-tuning RED: Algorithm 1 on scripted q_avg sequences, the weight from
//! eq. (3.12), bounds and errors.

use super::*;

/// 150 Mb/s and 500-byte packets: C/M = 37 500 packets/s (the paper's §5 network).
const RATE_BPS: f64 = 150e6;

fn stred(params: SelfTuningRedParams) -> SelfTuningRed {
    SelfTuningRed::new(params, RATE_BPS).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn p_max_follows_eq_36_once_per_period() {
    let mut a = stred(SelfTuningRedParams::default());
    // δt = 2 s. q_avg samples 2000 and 2500 inside the first period: no update yet.
    a.observe(1_000_000_000, 2000.0);
    a.observe(2_000_000_000, 2500.0);
    assert_eq!(a.p_max(), 0.01);
    // The first sample after 2 s closes the period: q̃ = (2000 + 2500 + 2000)/3 = 2166.67.
    // p_max = 0.01·(2166.67 − 750)/750·(0.15 + 2166.67/37500)/(0.15 + 1500/37500)
    //       = 0.01·1.888889·0.2077778/0.19 = 0.0206563.
    a.observe(2_000_000_001, 2000.0);
    let q = 6500.0 / 3.0;
    let expected = 0.01 * (q - 750.0) / 750.0 * (0.15 + q / 37_500.0) / 0.19;
    assert!(close(a.p_max(), expected), "{}", a.p_max());
    assert!((a.p_max() - 0.0206563).abs() < 1e-6);
    assert_eq!(a.stats().updates, 1);
    // Next period (from 2.000000001 s): q̃ = 1500 exactly, p_max stays.
    a.observe(3_000_000_000, 1500.0);
    a.observe(4_000_000_002, 1500.0);
    assert!(close(a.p_max(), expected));
    assert_eq!(a.stats().updates, 2);
}

#[test]
fn p_max_is_kept_below_q_min_and_capped() {
    let mut a = stred(SelfTuningRedParams::default());
    // q̃ below q_min: eq. (3.6) would give a negative p_max; the period is skipped.
    a.observe(3_000_000_000, 100.0);
    assert_eq!(a.p_max(), 0.01);
    assert_eq!((a.stats().skipped, a.stats().updates), (1, 0));
    // From p_max 1 with q̃ = 2·q_max: the value above 1 is capped at 1.
    let mut b = stred(SelfTuningRedParams {
        p_max_initial: 1.0,
        ..SelfTuningRedParams::default()
    });
    b.observe(3_000_000_000, 4500.0);
    assert_eq!(b.p_max(), 1.0);
    assert_eq!(b.stats().capped, 1);
}

#[test]
fn p_max_min_floors_the_update() {
    // q̃ = 760 just above q_min: eq. (3.6) gives 0.01·(10/750)·(0.15 + 760/37 500)/0.19
    // = 0.01·0.013333·0.170267/0.19 = 1.1949e-4; with p_max_min = 0.005 it is raised to that.
    let mut a = stred(SelfTuningRedParams::default());
    a.observe(3_000_000_000, 760.0);
    assert!(close(
        a.p_max(),
        0.01 * (10.0 / 750.0) * (0.15 + 760.0 / 37_500.0) / 0.19
    ));
    let mut b = stred(SelfTuningRedParams {
        p_max_min: 0.005,
        ..SelfTuningRedParams::default()
    });
    b.observe(3_000_000_000, 760.0);
    assert_eq!(b.p_max(), 0.005);
    assert_eq!(b.stats().floored, 1);
}

#[test]
fn w_from_the_stability_bound() {
    // d·C/M = 0.15·37 500 = 5625 packets; eq. (3.12): 4/(3 + (750 + 5625)/750) = 4/11.5;
    // per arrival: divided by n = 5625 + 1500 = 7125 packets per round trip = 4.8818e-5.
    let a = stred(SelfTuningRedParams {
        w_from_bound: true,
        ..SelfTuningRedParams::default()
    });
    assert!(close(a.w(), 4.0 / 11.5 / 7125.0));
    assert_eq!(stred(SelfTuningRedParams::default()).w(), 0.00048814);
}

#[test]
fn the_drop_curve_is_gentle_red_with_the_current_p_max() {
    let mut a = stred(SelfTuningRedParams::default());
    assert!(close(a.curve().probability(1500.0), 0.005));
    // q̃ = 2250 over the first period: p_max = 0.01·2·0.21/0.19.
    a.observe(3_000_000_000, 2250.0);
    let p_max = 0.02 * 0.21 / 0.19;
    assert!(close(a.curve().probability(1500.0), p_max / 2.0));
    // Gentle region: p_max + (1 − p_max)·(q − q_max)/q_max at 1.5·q_max.
    assert!(close(
        a.curve().probability(3375.0),
        p_max + (1.0 - p_max) * 0.5
    ));
}

#[test]
fn bad_parameters_name_the_field() {
    let cases = [
        (
            SelfTuningRedParams {
                q_target_pkts: 700.0,
                ..SelfTuningRedParams::default()
            },
            "q_target_pkts",
        ),
        (
            SelfTuningRedParams {
                q_max_pkts: 1500.0,
                ..SelfTuningRedParams::default()
            },
            "q_max_pkts",
        ),
        (
            SelfTuningRedParams {
                p_max_initial: 0.0,
                ..SelfTuningRedParams::default()
            },
            "p_max_initial",
        ),
        (
            SelfTuningRedParams {
                p_max_min: 0.02,
                ..SelfTuningRedParams::default()
            },
            "p_max_min",
        ),
        (
            SelfTuningRedParams {
                delta_t_s: 0.0,
                ..SelfTuningRedParams::default()
            },
            "delta_t_s",
        ),
        (
            SelfTuningRedParams {
                d_ms: f64::NAN,
                ..SelfTuningRedParams::default()
            },
            "d_ms",
        ),
        (
            SelfTuningRedParams {
                w: 2.0,
                ..SelfTuningRedParams::default()
            },
            "w",
        ),
    ];
    for (params, field) in cases {
        assert_eq!(params.validate().unwrap_err().field, field);
    }
}
