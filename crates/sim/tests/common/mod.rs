//! What several test files check on whole runs (each test binary uses its own part).
#![allow(dead_code)]

use proptest::test_runner::{Config, RngSeed};
use sim::result::{Column, RunResult};

/// The property-test configuration: `default_cases` cases from a fixed seed, so that the test
/// suite is the same on every machine; `make fuzz` sets PROPTEST_CASES and draws a fresh seed
/// (PROPTEST_RNG_SEED fixes it), and prints the failing scenario, shrunk, on any failure.
pub fn fuzz_config(default_cases: u32) -> Config {
    match std::env::var("PROPTEST_CASES") {
        Ok(v) => Config::with_cases(v.parse().expect("PROPTEST_CASES is a number of cases")),
        Err(_) => Config {
            rng_seed: RngSeed::Fixed(20_140_611),
            ..Config::with_cases(default_cases)
        },
    }
}

/// Run a scenario that must be valid.
pub fn run(text: &str) -> RunResult {
    sim::run_scenario(text, &[], None, |_| Ok::<(), std::convert::Infallible>(()))
        .unwrap_or_else(|e| panic!("a valid scenario failed: {e:?}"))
}

/// Run a scenario that must be valid with `sets` (key, value) overrides, as `--set` gives them.
pub fn run_with(text: &str, sets: &[(&str, &str)]) -> RunResult {
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
    .unwrap_or_else(|e| panic!("run failed: {e:?}"))
}

/// The error of a scenario that must be invalid.
pub fn error(text: &str) -> String {
    sim::resolve_scenario(text, &[])
        .expect_err("an invalid scenario")
        .to_string()
}

/// Each (text, start) case is refused with one line that starts with `start`.
pub fn assert_errors_start_with(cases: &[(String, &str)]) {
    for (text, expected) in cases {
        let e = error(text);
        assert!(e.starts_with(expected), "{e}\nexpected: {expected}");
        assert!(!e.contains('\n'));
    }
}

/// The names of the measured ports, in port order.
pub fn port_names(r: &RunResult) -> Vec<String> {
    match &r.ports.columns[1].1 {
        Column::Texts(v) => v.clone(),
        _ => panic!("port names are text"),
    }
}

/// The summary metric `k`.
pub fn m(r: &RunResult, k: &str) -> f64 {
    r.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

/// Invariants every run keeps: packet conservation, the queue bound, the bottleneck rate
/// (`pkt_bytes` per full-size data packet), fractions in [0, 1], aqm_p in [0, 1], no NaN.
pub fn check_invariants(r: &RunResult, limit_pkts: f64, rate_bps: f64, pkt_bytes: f64) {
    // Conservation: every data packet sent is delivered, dropped, or still in flight.
    assert_eq!(
        m(r, "data_sent"),
        m(r, "data_delivered") + m(r, "data_dropped") + m(r, "data_in_flight")
    );
    assert!(m(r, "acks_sent") >= m(r, "acks_delivered") + m(r, "acks_dropped"));
    // The bottleneck drops data and, with a handshake, SYNs (counted with the ACKs).
    assert!(m(r, "data_dropped") + m(r, "acks_dropped") >= m(r, "bottleneck_drops"));
    // Queue bound, at every enqueue of the run and in every sample.
    assert!(m(r, "max_queue_pkts") <= limit_pkts);
    let q = r.timeseries.ints("queue_pkts").unwrap();
    assert!(q.iter().all(|&x| x >= 0 && x as f64 <= limit_pkts));
    // The bottleneck never sends faster than its rate: full-size data packets, plus the few
    // small SYNs of the connection set-up (at most ConnCount per flow) and probe requests.
    let window_s = m(r, "window_end_s") - m(r, "window_start_s");
    let syns = m(r, "flows_total") * 6.0;
    let small = syns + m(r, "probes_sent");
    let max_pkts = rate_bps * window_s / (8.0 * pkt_bytes) + 1.0 + small;
    assert!(m(r, "bottleneck_departures") <= max_pkts.ceil());
    assert!((0.0..=1.0).contains(&m(r, "link_efficiency")));
    // Rates are fractions; nothing is NaN.
    for k in [
        "drop_rate",
        "early_drop_rate",
        "overflow_drop_rate",
        "mark_rate",
        "jain_fairness",
    ] {
        assert!((0.0..=1.0).contains(&m(r, k)), "{k} = {}", m(r, k));
    }
    for (name, v) in &r.summary {
        if let sim::result::Value::Float(x) = v {
            let undefined = name == "settle_time_s" || name.starts_with("probe_rtt_");
            assert!(!x.is_nan() || undefined, "{name} is NaN");
        }
    }
    for (name, col) in &r.timeseries.columns {
        if let Column::Floats(v) = col {
            assert!(v.iter().all(|x| x.is_finite()), "{name} has NaN or inf");
            if name == "aqm_p" {
                assert!(
                    v.iter().all(|x| (0.0..=1.0).contains(x)),
                    "aqm_p outside [0, 1]"
                );
            }
        }
    }
}

/// The column `name` of `t` as floats (integers converted).
pub fn col(t: &sim::result::Table, name: &str) -> Vec<f64> {
    match t.columns.iter().find(|(n, _)| n == name) {
        Some((_, Column::Floats(v))) => v.clone(),
        Some((_, Column::Ints(v))) => v.iter().map(|&x| x as f64).collect(),
        _ => panic!("no numeric column {name}"),
    }
}

/// Invariants of every measured port, for a run whose window covers the whole run: the
/// counting identity, the queue bound (`limits[k]` packets), the link rate, fractions in
/// [0, 1]; and of every group and completion-time row: fractions in [0, 1], ordered
/// quantiles.
pub fn check_port_invariants(r: &RunResult, limits: &[f64]) {
    let p = &r.ports;
    let window_s = m(r, "window_end_s") - m(r, "window_start_s");
    let (arr, dep, drops, end) = (
        col(p, "arrivals"),
        col(p, "departures"),
        col(p, "drops"),
        col(p, "queue_end_pkts"),
    );
    assert_eq!(arr.len(), limits.len(), "one row per measured port");
    for k in 0..arr.len() {
        assert_eq!(
            arr[k],
            dep[k] + drops[k] + end[k],
            "port {k}: counting identity"
        );
        assert!(
            col(p, "max_queue_pkts")[k] <= limits[k],
            "port {k}: queue bound"
        );
        let bits = col(p, "throughput_mbps")[k] * 1e6 * window_s;
        let capacity = col(p, "rate_mbps")[k] * 1e6 * window_s;
        assert!(
            bits <= capacity + 65_535.0 * 8.0,
            "port {k}: above its rate"
        );
        for c in ["drop_rate", "mark_rate", "link_efficiency"] {
            assert!((0.0..=1.0).contains(&col(p, c)[k]), "port {k}: {c}");
        }
    }
    for c in ["loss_rate", "jain_fairness"] {
        assert!(
            col(&r.groups, c).iter().all(|x| (0.0..=1.0).contains(x)),
            "{c}"
        );
    }
    let f = &r.fct;
    let (flows, done) = (col(f, "flows"), col(f, "completed"));
    let (med, p95, p99) = (
        col(f, "fct_median_s"),
        col(f, "fct_p95_s"),
        col(f, "fct_p99_s"),
    );
    for i in 0..flows.len() {
        assert!(done[i] <= flows[i] && flows[i] > 0.0);
        if done[i] > 0.0 {
            assert!(0.0 < med[i] && med[i] <= p95[i] && p95[i] <= p99[i]);
        }
    }
}
