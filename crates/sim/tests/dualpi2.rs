//! DualPI2 (`queue.aqm = "dualpi2"`) on whole runs: with ECN flows classified to the L queue
//! (`any_ect`, ECT(0) being what the senders send) the L queue's sojourn stays near the 1 ms
//! step while the C queue's sits near the 15 ms target, the per-queue counts add up to the
//! port's, the time series carries the queues and probabilities; under the default mask
//! ECT(0) goes to the C queue and is marked; bad values name the key in one line.

mod common;

use common::{assert_errors_start_with, check_invariants, col, m, run};

/// Five Not-ECT and five ECN TCP flows over a 20 Mb/s dumbbell with DualPI2 and `extra` in
/// its table, measured over 5–20 s.
fn scenario(extra: &str) -> String {
    format!(
        r#"
duration_s = 20.0
seed = 3
[topology]
bottleneck_rate_mbps = 20.0
bottleneck_delay_ms = 10.0
access_rate_mbps = 100.0
sender_delay_ms = 1.0
receiver_delay_ms = 2.0
[queue]
aqm = "dualpi2"
limit_pkts = 10000
[queue.dualpi2]
{extra}
[traffic]
start_jitter_s = 0.5
[[traffic.groups]]
name = "classic"
[traffic.groups.schedule]
kind = "constant"
flows = 5
[[traffic.groups]]
name = "ecn"
[traffic.groups.tcp]
ecn = true
[traffic.groups.schedule]
kind = "constant"
flows = 5
[measure]
window = [5.0, 20.0]
"#
    )
}

/// The bottleneck's row of the per-port table, column `name`.
fn port(r: &sim::result::RunResult, name: &str) -> f64 {
    col(&r.ports, name)[0]
}

#[test]
fn the_l_queue_keeps_its_sojourn_near_the_step_and_the_c_queue_near_the_target() {
    let r = run(&scenario("ecn_mask = \"any_ect\""));
    check_invariants(&r, 10000.0, 20e6, 1000.0);
    assert!(
        m(&r, "link_efficiency") > 0.95,
        "{}",
        m(&r, "link_efficiency")
    );
    let (l_mean, l_p99) = (port(&r, "l_sojourn_mean_ms"), port(&r, "l_sojourn_p99_ms"));
    let (c_mean, c_p99) = (port(&r, "c_sojourn_mean_ms"), port(&r, "c_sojourn_p99_ms"));
    eprintln!("L {l_mean:.2}/{l_p99:.2} ms, C {c_mean:.2}/{c_p99:.2} ms");
    assert!(l_mean < 2.0 && l_p99 < 10.0, "L {l_mean} {l_p99}");
    assert!((8.0..25.0).contains(&c_mean), "C {c_mean}");
    assert!(c_p99 > l_p99);
    // The L packets are marked by the step (and the coupling), never dropped but for the
    // limit, which 10000 packets do not reach; the Not-ECT C packets are dropped.
    assert!(port(&r, "l_step_marks") > 0.0 && port(&r, "l_drops") == 0.0);
    assert!(port(&r, "c_drops") > 0.0 && port(&r, "c_marks") == 0.0);
    // The queues' counts add up to the port's.
    let sum = |a: &str, b: &str| port(&r, a) + port(&r, b);
    assert_eq!(sum("l_arrivals", "c_arrivals"), port(&r, "arrivals"));
    assert_eq!(sum("l_drops", "c_drops"), port(&r, "drops"));
    let marks = port(&r, "l_marks") + sum("l_step_marks", "c_marks");
    assert_eq!(marks, port(&r, "marks"));
    // Both groups get a share of the link.
    for t in col(&r.groups, "throughput_mbps") {
        assert!(t > 1.0, "{t}");
    }
    // The time series carries both queues and the probabilities.
    for name in ["l_queue_pkts", "c_queue_pkts", "p_base", "p_c", "p_cl"] {
        let series = col(&r.timeseries, &format!("aqm_{name}"));
        assert!(series.iter().all(|v| v.is_finite() && *v >= 0.0), "{name}");
    }
    let p = col(&r.timeseries, "aqm_p_base");
    assert!(p.iter().any(|&v| v > 0.0) && p.iter().all(|&v| v <= 1.0));
}

#[test]
fn ect0_goes_to_the_c_queue_by_default_and_is_marked_there() {
    let r = run(&scenario(""));
    check_invariants(&r, 10000.0, 20e6, 1000.0);
    assert_eq!(port(&r, "l_arrivals"), 0.0);
    assert!(port(&r, "l_sojourn_mean_ms").is_nan());
    assert!(port(&r, "c_marks") > 0.0 && port(&r, "c_drops") > 0.0);
    let c_mean = port(&r, "c_sojourn_mean_ms");
    assert!((8.0..25.0).contains(&c_mean), "C {c_mean}");
}

#[test]
fn other_ports_report_no_dual_queue() {
    let r = run(&scenario("").replace("aqm = \"dualpi2\"", "aqm = \"pie\""));
    assert_eq!(port(&r, "l_arrivals") + port(&r, "c_arrivals"), 0.0);
    assert!(port(&r, "c_sojourn_p99_ms").is_nan());
}

#[test]
fn bad_values_name_the_key_in_one_line() {
    let cases = [
        (
            "coupling_factor = 0",
            "queue.dualpi2.coupling_factor: must be",
        ),
        (
            "c_protection_pct = 101",
            "queue.dualpi2.c_protection_pct: must be",
        ),
        (
            "ecn_mask = \"ect0\"",
            "queue.dualpi2.ecn_mask: unknown variant",
        ),
        ("tupdate_ms = 0", "queue.dualpi2.tupdate_ms: must be"),
        ("alpha_hz = -1", "queue.dualpi2.alpha_hz: must be"),
        (
            "ramp_range_ms = 0.4\nstep_thresh_pkts = 3",
            "queue.dualpi2.ramp_range_ms: must be 0",
        ),
        ("target = 5", "queue.dualpi2.target"),
    ];
    let cases: Vec<(String, &str)> = cases.iter().map(|(e, s)| (scenario(e), *s)).collect();
    assert_errors_start_with(&cases);
}
