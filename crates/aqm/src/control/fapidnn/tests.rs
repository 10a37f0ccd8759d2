//! Unit tests of FAPIDNN: the fuzzy learning rate, the PIDNN update by hand, bounds and errors.

use super::*;

/// 8 Mb/s and 1000-byte packets: C = 1000 packets/s, C·T = 1 packet per 1 ms sample.
fn link() -> LinkContext {
    LinkContext {
        rate_bps: 8e6,
        buffer_pkts: 1000,
    }
}

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 1000, 8e6)
}

fn sample(a: &mut Fapidnn, k: u64, q: u32) {
    a.on_timer(k * 1_000_000, &queue(q), &mut Rng::from_seed(1));
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn memberships_are_triangles_that_sum_to_one() {
    // 0.25 lies halfway between ZE (centre 0) and PS (centre ½): ½ each.
    assert_eq!(fuzzy::memberships(0.25), [0.0, 0.0, 0.5, 0.5, 0.0]);
    // Outside [−1, 1] the end sets saturate.
    assert_eq!(fuzzy::memberships(-7.0), [1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(fuzzy::memberships(3.0), [0.0, 0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn eta_factor_is_the_centroid_of_the_fired_rules() {
    // E = 0, EC = 0: only ZE/ZE fires, VS = ¼.
    assert_eq!(fuzzy::eta_factor(0.0, 0.0), 0.25);
    // E = 0.25 (ZE ½, PS ½), EC = 0 (ZE): ½·VS + ½·M = 0.125 + 0.5.
    assert!(close(fuzzy::eta_factor(0.25, 0.0), 0.625));
    // E = 0.75 (PS ½, PB ½), EC = −0.25 (NS ½, ZE ½): ¼·(S + M + M + B) = ¼·4 = 1.
    assert!(close(fuzzy::eta_factor(0.75, -0.25), 1.0));
    // Large and growing error: PB/PB, VB = 2.
    assert_eq!(fuzzy::eta_factor(5.0, 5.0), 2.0);
    for e in [-3.0, -1.0, -0.3, 0.0, 0.1, 0.9, 4.0] {
        for ec in [-3.0, -0.6, 0.0, 0.2, 1.0, 9.0] {
            let f = fuzzy::eta_factor(e, ec);
            assert!((0.25..=2.0).contains(&f), "{e} {ec} {f}");
        }
    }
}

#[test]
fn pidnn_update_by_hand() {
    let params = FapidnnParams {
        k_p: 0.1,
        k_i: 0.2,
        k_d: 0.05,
        eta: 0.01,
        momentum: 0.5,
        ..FapidnnParams::default()
    };
    let mut a = Fapidnn::new(params, link()).unwrap();
    // k = 0, q = 500: u = 200/1000 = 0.2; E = 200/300 = 0.6667 (PS 0.6667, PB 0.3333), EC = 0
    // (first sample, ZE): factor = 0.6667·M + 0.3333·B = 0.6667 + 0.5 = 1.16667.
    // No previous hidden outputs, so no weight change; x = (0.2, 0.2, 0.2);
    // p = 0.1·0.2 + 0.2·0.2 + 0.05·0.2 = 0.07.
    sample(&mut a, 0, 500);
    assert!(close(a.eta(), 0.01 * (2.0 / 3.0 + 0.5)));
    assert_eq!(a.gains(), [0.1, 0.2, 0.05]);
    assert!(close(a.p(), 0.07));
    // k = 1, q = 560: u = 0.26; E = 0.86667 (PS 0.26667, PB 0.73333), EC = 60/1 → 1 (PB):
    // factor = 0.26667·B + 0.73333·VB = 0.4 + 1.46667 = 1.86667, η = 0.0186667.
    // Δw_j = η·u·x_j(0) = 0.0186667·0.26·0.2 = 0.000970667 for each j.
    // x = (0.26, sat(0.2 + 0.26) = 0.46, sat(0.26 − 0.2) = 0.06);
    // p = 0.100970667·0.26 + 0.200970667·0.46 + 0.050970667·0.06 = 0.12175712.
    sample(&mut a, 1, 560);
    assert!(close(a.eta(), 0.018_666_666_666_666_668));
    let dw = 0.018_666_666_666_666_668 * 0.26 * 0.2;
    assert!(close(dw, 0.000970666666666667));
    let g = a.gains();
    assert!(close(g[0], 0.1 + dw) && close(g[1], 0.2 + dw) && close(g[2], 0.05 + dw));
    assert!(close(a.p(), 0.12175712));
    // k = 2, q = 300: u = 0, E = 0 (ZE), EC = −260 → −1 (NB): factor M = 1, η = 0.01.
    // Δw_j = 0·… + 0.5·0.000970667 = 0.000485333: w = (0.101456, 0.201456, 0.051456).
    // x = (0, sat(0.46 + 0) = 0.46, sat(0 − 0.26) = −0.26);
    // p = 0.201456·0.46 − 0.051456·0.26 = 0.09266976 − 0.01337856 = 0.0792912.
    sample(&mut a, 2, 300);
    assert!(close(a.eta(), 0.01));
    let g = a.gains();
    assert!(close(g[0], 0.101456) && close(g[1], 0.201456) && close(g[2], 0.051456));
    assert!(close(a.p(), 0.0792912));
    assert_eq!(a.stats().updates, 3);
}

#[test]
fn integral_neuron_saturates_at_one() {
    let params = FapidnnParams {
        k_p: 0.0,
        k_i: 0.5,
        k_d: 0.0,
        eta: 0.0,
        ..FapidnnParams::default()
    };
    let mut a = Fapidnn::new(params, link()).unwrap();
    // u = 0.7 per sample: x_I = 0.7, then sat(1.4) = 1, and stays 1; p = 0.5·x_I.
    sample(&mut a, 0, 1000);
    assert!(close(a.p(), 0.35));
    sample(&mut a, 1, 1000);
    assert!(close(a.p(), 0.5));
    sample(&mut a, 2, 1000);
    assert!(close(a.p(), 0.5));
}

#[test]
fn timer_runs_at_zero_then_every_sample_interval() {
    let mut a = Fapidnn::new(FapidnnParams::default(), link()).unwrap();
    assert_eq!(a.next_timer_ns(), Some(0));
    a.on_timer(0, &queue(0), &mut Rng::from_seed(1));
    assert_eq!(a.next_timer_ns(), Some(1_000_000));
}

#[test]
fn probability_stays_in_unit_interval_under_extreme_inputs() {
    for (k_p, eta) in [(1e6, 1.0), (-1e6, 1.0), (0.0, 0.0), (1.0, 0.0)] {
        let params = FapidnnParams {
            k_p,
            k_i: k_p,
            k_d: k_p,
            eta,
            ..FapidnnParams::default()
        };
        let mut a = Fapidnn::new(params, link()).unwrap();
        for (k, q) in [0, 1000, 0, 1000, 300, 999, 1, 1000]
            .into_iter()
            .enumerate()
        {
            sample(&mut a, k as u64, q);
            assert!((0.0..=1.0).contains(&a.p()), "{}", a.p());
        }
    }
    // With the defaults and a queue held at the full buffer, p rises and stays in [0, 1].
    let mut a = Fapidnn::new(FapidnnParams::default(), link()).unwrap();
    for k in 0..20_000 {
        sample(&mut a, k, 1000);
        assert!((0.0..=1.0).contains(&a.p()));
    }
    assert!(a.p() > 0.0);
}

#[test]
fn probes_are_p_then_the_gains_and_eta() {
    let a = Fapidnn::new(FapidnnParams::default(), link()).unwrap();
    assert_eq!(a.probe_names(), ["p", "k_p", "k_i", "k_d", "eta"]);
    let mut out = Vec::new();
    a.probe(&mut out);
    assert_eq!(out, [0.0, 2.58392e-8, 2.98929e-8, 3.50735e-10, 8.5e-5]);
}

#[test]
fn early_drops_follow_p() {
    let params = FapidnnParams {
        k_p: 10.0,
        ..FapidnnParams::default()
    };
    let mut a = Fapidnn::new(params, link()).unwrap();
    let pkt = PacketView {
        size_bytes: 1000,
        ect: false,
    };
    let mut rng = Rng::from_seed(3);
    assert_eq!(
        a.on_enqueue(0, pkt, &queue(0), &mut rng),
        EnqueueVerdict::Accept
    );
    sample(&mut a, 0, 900); // u = 0.6, p = min(1, 10·0.6 + …) = 1
    assert_eq!(a.p(), 1.0);
    assert_eq!(
        a.on_enqueue(0, pkt, &queue(0), &mut rng),
        EnqueueVerdict::EarlyDrop
    );
    assert_eq!(a.stats().early_drops, 1);
}

#[test]
fn bad_parameters_name_the_field() {
    let cases: Vec<(FapidnnParams, &str, &str)> = vec![
        (
            FapidnnParams {
                q_ref_pkts: 0.0,
                ..Default::default()
            },
            "q_ref_pkts",
            "must be a number in (0, 1e9]",
        ),
        (
            FapidnnParams {
                sample_interval_ms: 0.0,
                ..Default::default()
            },
            "sample_interval_ms",
            "must be a number in [0.000001, 1e9] (at least 1 ns)",
        ),
        (
            FapidnnParams {
                k_p: f64::NAN,
                ..Default::default()
            },
            "k_p",
            "must be a number in [-1e6, 1e6]",
        ),
        (
            FapidnnParams {
                k_i: f64::INFINITY,
                ..Default::default()
            },
            "k_i",
            "must be a number in [-1e6, 1e6]",
        ),
        (
            FapidnnParams {
                k_d: f64::NEG_INFINITY,
                ..Default::default()
            },
            "k_d",
            "must be a number in [-1e6, 1e6]",
        ),
        (
            FapidnnParams {
                eta: -1.0,
                ..Default::default()
            },
            "eta",
            "must be in [0, 1]",
        ),
        (
            FapidnnParams {
                momentum: 1.0,
                ..Default::default()
            },
            "momentum",
            "must be in [0, 1)",
        ),
        (
            FapidnnParams {
                mean_pkt_bytes: 0.5,
                ..Default::default()
            },
            "mean_pkt_bytes",
            "must be a number in [1, 1e9]",
        ),
    ];
    for (params, field, message) in cases {
        let err = params.validate().unwrap_err();
        assert_eq!((err.field.as_str(), err.message.as_str()), (field, message));
        assert!(!err.to_string().contains('\n'));
    }
    let zero_rate = LinkContext {
        rate_bps: 0.0,
        buffer_pkts: 10,
    };
    assert_eq!(
        Fapidnn::new(FapidnnParams::default(), zero_rate)
            .unwrap_err()
            .field,
        "rate_bps"
    );
}
