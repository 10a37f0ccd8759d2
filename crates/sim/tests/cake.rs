//! CAKE in whole runs: BetaRED scenario 2 (briefly) keeps every invariant; a shaper below the
//! bottleneck's rate holds the bottleneck's throughput to the shaper's rate; bad settings are
//! refused with one line naming the key.

mod common;

use common::{check_invariants, m};

/// BetaRED scenario 2 (50 Mb/s, 1000 packets of 1000 B) run with `sets` applied.
fn scenario2(sets: &[(&str, &str)]) -> Result<sim::result::RunResult, String> {
    let text = include_str!("../../../experiments/betared/scenario2.toml");
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    sim::run_scenario(
        text,
        &sets,
        None,
        |_| Ok::<(), std::convert::Infallible>(()),
    )
    .map_err(|e| match e {
        sim::RunError::Scenario(e) => e.to_string(),
        sim::RunError::Aborted(never) => match never {},
    })
}

#[test]
fn scenario2_with_cake_keeps_the_invariants() {
    let r = scenario2(&[("queue.aqm", "cake"), ("duration_s", "5")]).unwrap();
    check_invariants(&r, 1000.0, 50e6, 1000.0);
    assert!(m(&r, "bottleneck_departures") > 0.0);
}

#[test]
fn a_shaper_below_the_link_rate_sets_the_throughput() {
    let r = scenario2(&[
        ("queue.aqm", "cake"),
        ("queue.cake.rate_mbps", "20"),
        ("duration_s", "10"),
        ("traffic.schedule.n_max", "200"),
        ("measure.window", "[5.0, 10.0]"),
    ])
    .unwrap();
    check_invariants(&r, 1000.0, 20e6, 1000.0);
    let window_s = m(&r, "window_end_s") - m(&r, "window_start_s");
    let mbps = m(&r, "bottleneck_departures") * 1000.0 * 8.0 / window_s / 1e6;
    eprintln!(
        "shaped throughput {mbps} Mb/s, link efficiency {}",
        m(&r, "link_efficiency")
    );
    assert!((mbps / 20.0 - 1.0).abs() < 0.02, "{mbps} Mb/s");
    assert!(
        m(&r, "link_efficiency") < 0.42,
        "the link idles while the shaper waits"
    );
}

#[test]
fn a_shaper_faster_than_the_link_or_negative_is_refused() {
    for (rate, start) in [
        (
            "60",
            "queue.cake.rate_mbps: must be at most the link's rate, 50 Mb/s, got 60",
        ),
        ("-1", "queue.cake.rate_mbps: must be"),
    ] {
        let e = scenario2(&[("queue.aqm", "cake"), ("queue.cake.rate_mbps", rate)])
            .expect_err("refused");
        eprintln!("{e}");
        assert!(e.starts_with(start), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
