//! Invariants of whole runs: packet conservation, queue bounds, the bottleneck rate, sane
//! probabilities, no NaN, and byte-identical repeat runs.

use sim::result::{Column, RunResult};
use std::convert::Infallible;

/// A short dumbbell run: 5 Mb/s bottleneck so that a few flows congest it.
fn base(aqm: &str, extra: &str) -> String {
    format!(
        r#"
        duration_s = 20.0
        seed = 7
        [topology]
        bottleneck_rate_mbps = 5.0
        bottleneck_delay_ms = 10.0
        sender_delay_ms = {{ uniform = [1.0, 20.0] }}
        [queue]
        aqm = "{aqm}"
        limit_pkts = 60
        [queue.red]
        q_min_pkts = 10.0
        q_max_pkts = 40.0
        p_max = 0.1
        w = 0.01
        [traffic]
        start_jitter_s = 0.5
        [traffic.schedule]
        kind = "events"
        events = [{{ t_s = 0.0, add = 20 }}, {{ t_s = 8.0, add = 20 }}, {{ t_s = 14.0, remove = 25 }}]
        [measure]
        window = [2.0, 20.0]
        {extra}
        "#
    )
}

fn run(text: &str, sets: &[(&str, &str)]) -> RunResult {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    sim::run_scenario(text, &sets, None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("run failed: {e:?}"))
}

fn m(r: &RunResult, k: &str) -> f64 {
    r.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

fn check_invariants(r: &RunResult, limit_pkts: f64, rate_bps: f64, pkt_bytes: f64) {
    // Conservation: every data packet sent is delivered, dropped, or still in flight.
    assert_eq!(
        m(r, "data_sent"),
        m(r, "data_delivered") + m(r, "data_dropped") + m(r, "data_in_flight")
    );
    assert!(m(r, "acks_sent") >= m(r, "acks_delivered") + m(r, "acks_dropped"));
    assert!(m(r, "data_dropped") >= m(r, "bottleneck_drops"));
    // Queue bound, at every enqueue of the run and in every sample.
    assert!(m(r, "max_queue_pkts") <= limit_pkts);
    let q = r.timeseries.ints("queue_pkts").unwrap();
    assert!(q.iter().all(|&x| x >= 0 && x as f64 <= limit_pkts));
    // The bottleneck never sends faster than its rate: full-size data packets, plus the few
    // small SYNs of the connection set-up (at most ConnCount per flow).
    let window_s = m(r, "window_end_s") - m(r, "window_start_s");
    let syns = m(r, "flows_total") * 6.0;
    let max_pkts = rate_bps * window_s / (8.0 * pkt_bytes) + 1.0 + syns;
    assert!(m(r, "bottleneck_departures") <= max_pkts.ceil());
    assert!(m(r, "link_efficiency") <= 1.0 && m(r, "link_efficiency") > 0.5);
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
            assert!(!x.is_nan() || name == "settle_time_s", "{name} is NaN");
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

#[test]
fn invariants_hold_with_drop_tail_and_red() {
    for aqm in ["droptail", "red"] {
        let r = run(&base(aqm, ""), &[]);
        check_invariants(&r, 60.0, 5e6, 1000.0);
        assert!(
            m(&r, "bottleneck_drops") > 0.0,
            "{aqm}: the scenario congests"
        );
    }
}

#[test]
fn invariants_hold_with_reno_ns2_ecn_and_byte_limits() {
    let text = base("red", "");
    let r = run(
        &text,
        &[
            ("tcp.preset", "ns2"),
            ("queue.ecn", "true"),
            ("tcp.ecn", "true"),
        ],
    );
    check_invariants(&r, 60.0, 5e6, 1040.0);
    assert!(m(&r, "mark_rate") > 0.0, "ECN-capable flows get marks");
    // ns-2's Newreno and Sack1 agents, with and without ECN.
    for (ecn, sack, recovery) in [
        ("false", "false", "newreno"),
        ("true", "false", "newreno"),
        ("false", "true", "sack1"),
        ("true", "true", "sack1"),
    ] {
        let sets = [
            ("tcp.preset", "ns2"),
            ("tcp.recovery", recovery),
            ("tcp.sack", sack),
            ("queue.ecn", ecn),
            ("tcp.ecn", ecn),
        ];
        let r = run(&text, &sets);
        check_invariants(&r, 60.0, 5e6, 1040.0);
        let again = run(&text, &sets);
        for k in ["drop_rate", "avg_queue_pkts", "throughput_mbps"] {
            assert_eq!(m(&r, k), m(&again, k), "{recovery} repeats exactly: {k}");
        }
    }
    let r = run(
        &text,
        &[("queue.aqm", "droptail"), ("queue.limit_bytes", "20000")],
    );
    check_invariants(&r, 60.0, 5e6, 1000.0);
    // The byte limit binds first: 20 full-size packets, or a few more when small SYNs wait.
    let bytes = r.timeseries.ints("queue_bytes").unwrap();
    assert!(bytes.iter().all(|&b| b <= 20_000), "the byte limit binds");
    assert!(m(&r, "max_queue_pkts") < 30.0, "the byte limit binds first");
}

#[test]
fn drop_tail_fills_the_buffer_and_red_keeps_it_lower() {
    let dt = run(&base("droptail", ""), &[]);
    let red = run(&base("red", ""), &[]);
    assert!(
        m(&dt, "avg_queue_pkts") > 40.0,
        "drop tail sits near the 60-packet limit"
    );
    assert!(m(&red, "avg_queue_pkts") < m(&dt, "avg_queue_pkts"));
    assert_eq!(m(&dt, "early_drop_rate"), 0.0);
    assert!(m(&red, "early_drop_rate") > 0.0);
}

#[test]
fn same_seed_same_bytes_other_seed_other_run() {
    let text = base("red", "");
    let a = run(&text, &[]);
    let b = run(&text, &[]);
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
    assert_eq!(format!("{:?}", a.timeseries), format!("{:?}", b.timeseries));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.cwnd), format!("{:?}", b.cwnd));
    assert_eq!(a.scenario_toml, b.scenario_toml);
    let c = run(&text, &[("seed", "8")]);
    assert_ne!(format!("{:?}", a.summary), format!("{:?}", c.summary));
}

#[test]
fn flows_follow_the_schedule() {
    let r = run(&base("droptail", ""), &[]);
    let t = r.timeseries.floats("t_s").unwrap();
    let active = r.timeseries.ints("active_flows").unwrap();
    let at = |s: f64| active[t.iter().position(|&x| x >= s).unwrap()];
    assert_eq!((at(5.0), at(12.0), at(18.0)), (20, 40, 15));
    assert_eq!(r.flows.ints("flow").unwrap().len(), 40);
}
