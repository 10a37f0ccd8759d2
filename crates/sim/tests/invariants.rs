//! Invariants of whole runs: packet conservation, queue bounds, the bottleneck rate, sane
//! probabilities, no NaN, and byte-identical repeat runs.

mod common;

use common::{check_invariants, m, run_with};

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

#[test]
fn invariants_hold_with_drop_tail_and_red() {
    for aqm in ["droptail", "red"] {
        let r = run_with(&base(aqm, ""), &[]);
        check_invariants(&r, 60.0, 5e6, 1000.0);
        assert!(
            m(&r, "link_efficiency") > 0.5,
            "{aqm}: the flows fill the link"
        );
        assert!(
            m(&r, "bottleneck_drops") > 0.0,
            "{aqm}: the scenario congests"
        );
    }
}

#[test]
fn invariants_hold_with_reno_ns2_ecn_and_byte_limits() {
    let text = base("red", "");
    let r = run_with(
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
        let r = run_with(&text, &sets);
        check_invariants(&r, 60.0, 5e6, 1040.0);
        let again = run_with(&text, &sets);
        for k in ["drop_rate", "avg_queue_pkts", "throughput_mbps"] {
            assert_eq!(m(&r, k), m(&again, k), "{recovery} repeats exactly: {k}");
        }
    }
    let r = run_with(
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
    let dt = run_with(&base("droptail", ""), &[]);
    let red = run_with(&base("red", ""), &[]);
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
    let a = run_with(&text, &[]);
    let b = run_with(&text, &[]);
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
    assert_eq!(format!("{:?}", a.timeseries), format!("{:?}", b.timeseries));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.cwnd), format!("{:?}", b.cwnd));
    assert_eq!(a.scenario_toml, b.scenario_toml);
    let c = run_with(&text, &[("seed", "8")]);
    assert_ne!(format!("{:?}", a.summary), format!("{:?}", c.summary));
}

#[test]
fn flows_follow_the_schedule() {
    let r = run_with(&base("droptail", ""), &[]);
    let t = r.timeseries.floats("t_s").unwrap();
    let active = r.timeseries.ints("active_flows").unwrap();
    let at = |s: f64| active[t.iter().position(|&x| x >= s).unwrap()];
    assert_eq!((at(5.0), at(12.0), at(18.0)), (20, 40, 15));
    assert_eq!(r.flows.ints("flow").unwrap().len(), 40);
}
