//! The per-group outputs for comparing groups of senders: the groups table's `delay_p99_ms`
//! (99th percentile, nearest rank, of the group's one-way packet delays in the window) and the
//! time series' `goodput_mbps_<group>` columns (each group's in-order payload delivered over
//! each sample step).

use sim::result::RunResult;
use std::convert::Infallible;

fn run(text: &str) -> RunResult {
    sim::run_scenario(text, &[], None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("run failed: {e:?}"))
}

fn group_col(r: &RunResult, name: &str) -> Vec<f64> {
    r.groups
        .floats(name)
        .unwrap_or_else(|| panic!("groups.{name}"))
        .to_vec()
}

/// Two UDP groups far below the link rate: every packet of a group meets the same empty path,
/// so each group's delays are all equal and its p99 is its mean; the far group's exceeds the
/// near group's by its extra access delay.
#[test]
fn p99_of_constant_delays_is_the_delay() {
    let r = run(r#"
duration_s = 4.0
[topology]
bottleneck_rate_mbps = 10.0
[queue]
aqm = "droptail"
[[traffic.groups]]
name = "near"
transport = "udp"
[traffic.groups.source]
kind = "cbr"
rate_kbps = 500.0
packet_bytes = 500
[traffic.groups.schedule]
kind = "constant"
flows = 1
[[traffic.groups]]
name = "far"
transport = "udp"
sender_delay_ms = 21.0
[traffic.groups.source]
kind = "cbr"
rate_kbps = 500.0
packet_bytes = 500
[traffic.groups.schedule]
kind = "constant"
flows = 1
"#);
    let mean = group_col(&r, "delay_mean_ms");
    let p99 = group_col(&r, "delay_p99_ms");
    for g in 0..2 {
        assert!(
            (p99[g] - mean[g]).abs() < 1e-6,
            "group {g}: {p99:?} vs {mean:?}"
        );
    }
    assert!((p99[1] - p99[0] - 20.0).abs() < 1e-6, "{p99:?}");
}

/// Bulk TCP through a drop-tail queue: the delays spread, so the p99 lies above the mean and
/// below the path's propagation delay plus a full queue's drain time (and the transmissions).
#[test]
fn p99_under_load_lies_between_mean_and_full_queue() {
    let r = run(r#"
duration_s = 10.0
[topology]
bottleneck_rate_mbps = 10.0
bottleneck_delay_ms = 10.0
[queue]
aqm = "droptail"
limit_pkts = 50
[traffic.schedule]
kind = "constant"
flows = 2
[measure]
window = "second_half"
"#);
    let mean = group_col(&r, "delay_mean_ms")[0];
    let p99 = group_col(&r, "delay_p99_ms")[0];
    // one way: 1 + 10 + 1 ms of propagation; 51 packets of 1000 B at 10 Mb/s drain in 40.8 ms;
    // two 100 Mb/s access links add 0.16 ms
    let bound = 12.0 + 51.0 * 0.8 + 0.16 + 1e-6;
    assert!(
        mean < p99 && p99 <= bound,
        "mean {mean}, p99 {p99}, bound {bound}"
    );
    assert!(p99 > 12.0 + 20.0, "a queue that fills: {p99}");
}

/// The goodput columns: one per group, named after it; 0 at t = 0; and summed over the samples
/// of the window they give the group's delivered payload there, as the groups table counts it
/// (to within a packet at either edge of the window).
#[test]
fn goodput_series_adds_up_to_the_groups_throughput() {
    let r = run(r#"
duration_s = 6.0
[topology]
bottleneck_rate_mbps = 10.0
[queue]
aqm = "red"
[traffic]
start_jitter_s = 0.5
[[traffic.groups]]
name = "a"
[traffic.groups.schedule]
kind = "constant"
flows = 2
[[traffic.groups]]
name = "b"
[traffic.groups.schedule]
kind = "constant"
flows = 1
[measure]
window = "last 4 s"
sample_interval_ms = 20.0
"#);
    let t = r.timeseries.floats("t_s").unwrap().to_vec();
    let step = 0.02;
    let throughput = group_col(&r, "throughput_mbps");
    let mut total = 0.0;
    for (g, name) in ["a", "b"].iter().enumerate() {
        let col = r
            .timeseries
            .floats(&format!("goodput_mbps_{name}"))
            .unwrap_or_else(|| panic!("goodput_mbps_{name}"));
        assert_eq!(col.len(), t.len());
        assert_eq!(col[0], 0.0);
        assert!(col.iter().all(|&v| v >= 0.0 && v.is_finite()));
        let bits: f64 = t
            .iter()
            .zip(col)
            .filter(|(&ts, _)| ts > 2.0 + 1e-9 && ts <= 6.0 + 1e-9)
            .map(|(_, &v)| v * 1e6 * step)
            .sum();
        let want = throughput[g] * 1e6 * 4.0;
        assert!(want > 1e6, "group {name} delivered: {want}");
        // a segment of 948 B payload at either edge of the window
        assert!(
            (bits - want).abs() <= 2.0 * 948.0 * 8.0 + 1e-3,
            "{name}: {bits} vs {want}"
        );
        total += bits;
    }
    let summary = r.metric("throughput_mbps").unwrap() * 1e6 * 4.0;
    assert!((total - summary).abs() <= 4.0 * 948.0 * 8.0 + 1e-3);
}

/// A scenario with one `[traffic.schedule]` has the one group `all`, and its column.
#[test]
fn a_single_schedule_has_the_all_column() {
    let r = run(r#"
duration_s = 2.0
[traffic.schedule]
kind = "constant"
flows = 1
"#);
    assert!(r.timeseries.floats("goodput_mbps_all").is_some());
    assert_eq!(group_col(&r, "delay_p99_ms").len(), 1);
}
