//! The model against the self-tuning-RED paper (Chen, Hu & Ji 2011) §3 and against the AQM
//! crate: the worked example after eq. (3.12), the behaviour either side of the bound, BetaRED
//! reducing to RED, and the errors for bad parameters.

use model::{attractor, equilibria, orbit, DropKind, Model, ModelParams, OrbitOptions, Stop};

fn red(w: f64) -> Model {
    Model::new(&ModelParams {
        drop: DropKind::Red,
        w,
        ..ModelParams::default()
    })
    .unwrap()
}

#[test]
fn worked_example_fixed_point_345_1_and_bound_0_1578() {
    let fp = equilibria(&red(0.02)).fixed_points;
    assert_eq!(fp.len(), 1);
    assert_eq!((fp[0].q_avg_pkts * 10.0).round() / 10.0, 345.1);
    assert_eq!((fp[0].w_bound * 1e4).round() / 1e4, 0.1578);
    assert_eq!((fp[0].w_bound_eq312.unwrap() * 1e4).round() / 1e4, 0.1578);
}

#[test]
fn period_two_just_above_the_bound_convergence_just_below() {
    let opts = OrbitOptions {
        iterations: 50_000,
        transient: 40_000,
        ..OrbitOptions::default()
    };
    let below = attractor(&red(0.155), &opts, Stop::NEVER).unwrap();
    assert_eq!(below.period, Some(1));
    assert!((below.q_avg_pkts[0] - 345.1).abs() < 0.05);
    let above = attractor(&red(0.16), &opts, Stop::NEVER).unwrap();
    assert_eq!(above.period, Some(2));
    let spread = (above.q_avg_pkts[0] - above.q_avg_pkts[1]).abs();
    assert!(spread > 1.0, "period-2 amplitude {spread}");
}

#[test]
fn betared_with_theta_one_over_root_three_and_mu_half_is_the_red_map() {
    for p_max in [0.05, 0.1, 0.5] {
        let base = ModelParams {
            p_max,
            w: 0.1,
            theta: 1.0 / 3f64.sqrt(),
            q_target_pkts: 500.0, // μ = (500 − 250)/(750 − 250) = ½
            ..ModelParams::default()
        };
        let r = Model::new(&ModelParams {
            drop: DropKind::Red,
            ..base
        })
        .unwrap();
        let b = Model::new(&ModelParams {
            drop: DropKind::BetaRed,
            ..base
        })
        .unwrap();
        for i in 0..=3750 {
            let q = i as f64;
            assert!(
                (r.f(q) - b.f(q)).abs() <= 1e-12 * r.f(q).max(1.0),
                "q = {q}"
            );
            let (dr, db) = (r.derivative(q), b.derivative(q));
            assert!(
                (dr - db).abs() <= 1e-12 * dr.abs().max(1.0),
                "q = {q}: {dr} vs {db}"
            );
        }
        let (fr, fb) = (
            equilibria(&r).fixed_points[0],
            equilibria(&b).fixed_points[0],
        );
        assert!((fr.q_avg_pkts - fb.q_avg_pkts).abs() < 1e-9);
        // Orbits to a stable fixed point stay together (a chaotic one, at p_max = 0.5,
        // amplifies the rounding differences, as it would between two RED maps).
        if fr.stable {
            let (or, ob) = (
                orbit(&r, 700.0, 200, Stop::NEVER).unwrap(),
                orbit(&b, 700.0, 200, Stop::NEVER).unwrap(),
            );
            for (x, y) in or.q_avg_pkts.iter().zip(&ob.q_avg_pkts) {
                assert!((x - y).abs() < 1e-9, "{x} vs {y}");
            }
        }
        assert!((fr.eigenvalue - fb.eigenvalue).abs() < 1e-12);
    }
}

#[test]
fn bad_parameters_are_clear_errors() {
    let err = |p: ModelParams| Model::new(&p).unwrap_err().to_string();
    let d = ModelParams::default;
    for w in [0.0, -0.1, 1.0001, f64::NAN] {
        assert_eq!(err(ModelParams { w, ..d() }), "w: must be in (0, 1]");
    }
    for theta in [0.0, 1.0, 1.5, -0.2] {
        let p = ModelParams {
            drop: DropKind::BetaRed,
            theta,
            ..d()
        };
        assert_eq!(err(p), "theta: must be in [0.005, 1)");
    }
    assert_eq!(
        err(ModelParams {
            drop: DropKind::BetaRed,
            q_target_pkts: 800.0,
            ..d()
        }),
        "q_target_pkts: must be in (q_min_pkts, q_max_pkts) = (250, 750)"
    );
}
