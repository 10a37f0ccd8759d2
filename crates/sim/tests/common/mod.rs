//! What several test files check on whole runs.

use sim::result::{Column, RunResult};

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
    // small SYNs of the connection set-up (at most ConnCount per flow).
    let window_s = m(r, "window_end_s") - m(r, "window_start_s");
    let syns = m(r, "flows_total") * 6.0;
    let max_pkts = rate_bps * window_s / (8.0 * pkt_bytes) + 1.0 + syns;
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
