//! Every AQM on the BetaRED dumbbell: the invariants hold, the target-seeking AQMs keep the
//! queue near their target while drop tail fills the buffer, and BetaRED with θ = 1/√3 at
//! μ = ½ is classic RED.

use sim::result::RunResult;
use std::convert::Infallible;

/// BetaRED dumbbell, N = 100 constant, 60 s, measured over the last 30 s; T_target 40 ms
/// (q_target = 250 packets) for every AQM that has a target, and q_ref = 250 packets for REM
/// and PI. (At N = 200 ARED's p_max reaches its 0.5 ceiling and the queue settles above the
/// target, near 460 packets.)
const BASE: &str = r#"
duration_s = 60.0
seed = 3
[queue]
limit_pkts = 1000
[queue.ared]
target_delay_ms = 40.0
[queue.codel]
target_ms = 40.0
[queue.pie]
target_ms = 40.0
[queue.rem]
q_ref_pkts = 250.0
[queue.pi]
q_ref_pkts = 250.0
[traffic.schedule]
kind = "constant"
flows = 100
[measure]
window = [30.0, 60.0]
"#;

fn run(sets: &[(&str, &str)]) -> RunResult {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    sim::run_scenario(BASE, &sets, None, |_| Ok::<(), Infallible>(())).unwrap()
}

fn m(r: &RunResult, k: &str) -> f64 {
    r.metric(k).unwrap()
}

#[test]
fn invariants_hold_with_every_aqm() {
    for &aqm in aqm::registry::names() {
        let r = run(&[
            ("queue.aqm", aqm),
            ("duration_s", "20.0"),
            ("measure.window", "[5.0, 20.0]"),
        ]);
        assert_eq!(
            m(&r, "data_sent"),
            m(&r, "data_delivered") + m(&r, "data_dropped") + m(&r, "data_in_flight"),
            "{aqm}: conservation"
        );
        assert!(m(&r, "max_queue_pkts") <= 1000.0, "{aqm}");
        assert!(m(&r, "link_efficiency") <= 1.0, "{aqm}");
        for k in [
            "drop_rate",
            "early_drop_rate",
            "forced_drop_rate",
            "overflow_drop_rate",
        ] {
            assert!((0.0..=1.0).contains(&m(&r, k)), "{aqm}: {k}");
        }
        for (name, col) in &r.timeseries.columns {
            if let sim::result::Column::Floats(v) = col {
                assert!(v.iter().all(|x| x.is_finite()), "{aqm}: {name} not finite");
                if name == "aqm_p" || name == "aqm_p_max" {
                    assert!(v.iter().all(|x| (0.0..=1.0).contains(x)), "{aqm}: {name}");
                }
            }
        }
    }
}

#[test]
fn target_seeking_aqms_hold_the_queue_near_target_while_drop_tail_fills_it() {
    let dt = run(&[("queue.aqm", "droptail")]);
    assert!(
        m(&dt, "avg_queue_pkts") > 900.0,
        "drop tail: {}",
        m(&dt, "avg_queue_pkts")
    );
    for aqm in ["ared", "pie", "dbetared", "rem", "pi"] {
        let q = m(&run(&[("queue.aqm", aqm)]), "avg_queue_pkts");
        assert!(
            (150.0..=350.0).contains(&q),
            "{aqm}: average queue {q}, target 250"
        );
    }
}

#[test]
fn betared_with_theta_one_over_root_three_at_mid_target_is_red() {
    let red = run(&[
        ("queue.aqm", "red"),
        ("queue.red.q_min_pkts", "100"),
        ("queue.red.q_max_pkts", "400"),
        ("queue.red.p_max", "0.1"),
        ("queue.red.w", "0.002"),
        ("duration_s", "20.0"),
        ("measure.window", "[5.0, 20.0]"),
    ]);
    let theta = format!("{:.17}", 1.0 / 3f64.sqrt());
    let beta = run(&[
        ("queue.aqm", "betared"),
        ("queue.betared.q_min_pkts", "100"),
        ("queue.betared.q_max_pkts", "400"),
        ("queue.betared.q_target_pkts", "250"),
        ("queue.betared.p_max", "0.1"),
        ("queue.betared.w", "0.002"),
        ("queue.betared.theta", &theta),
        ("duration_s", "20.0"),
        ("measure.window", "[5.0, 20.0]"),
    ]);
    for k in [
        "avg_queue_pkts",
        "drop_rate",
        "throughput_mbps",
        "bottleneck_drops",
        "events",
    ] {
        assert_eq!(m(&red, k), m(&beta, k), "{k}");
    }
    let (a, b) = (
        red.timeseries.floats("aqm_p").unwrap(),
        beta.timeseries.floats("aqm_p").unwrap(),
    );
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12));
}
