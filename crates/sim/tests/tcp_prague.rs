//! TCP Prague on whole runs: against CUBIC through DualPI2 it keeps the L queue near a
//! millisecond while the C queue sits near its 15 ms target, with no loss of its own; alone
//! through a step (without the classic-ECN fall-back) it holds the queue near K by marks; a flow group that names Prague gets its
//! ECN and pacing defaults whatever the scenario's `[tcp]` says.

mod common;

use common::{check_invariants, col, m, run};

/// One Prague flow (group 0) and one CUBIC flow (group 1) over a 40 Mb/s bottleneck with a
/// 20 ms base RTT through `aqm`, `tcp` added to the scenario's `[tcp]`, measured over 10–25 s.
fn coexistence(aqm: &str, tcp: &str) -> String {
    format!(
        r#"
duration_s = 25.0
seed = 4
[topology]
bottleneck_rate_mbps = 40.0
bottleneck_delay_ms = 10.0
sender_delay_ms = 0.0
receiver_delay_ms = 0.0
access_rate_mbps = 1000.0
router_buffer_pkts = 1000
host_buffer_pkts = 1000
[queue]
aqm = "{aqm}"
limit_pkts = 1000
ecn = true
[queue.step]
k_pkts = 30
[tcp]
preset = "ns3"
{tcp}
[[traffic.groups]]
name = "prague"
[traffic.groups.tcp]
cc = "prague"
[traffic.groups.schedule]
kind = "constant"
flows = 1
[[traffic.groups]]
name = "cubic"
[traffic.groups.tcp]
cc = "cubic"
[traffic.groups.schedule]
kind = "constant"
flows = 1
[measure]
window = [10.0, 25.0]
"#
    )
}

fn port(r: &sim::result::RunResult, name: &str) -> f64 {
    col(&r.ports, name)[0]
}

#[test]
fn through_dualpi2_prague_gets_the_shallow_queue_and_cubic_the_classic_one() {
    let r = run(&coexistence("dualpi2", ""));
    check_invariants(&r, 1000.0, 40e6, 1000.0);
    assert!(m(&r, "link_efficiency") > 0.95);
    let l_ms = port(&r, "l_sojourn_mean_ms");
    let c_ms = port(&r, "c_sojourn_mean_ms");
    assert!(l_ms < 1.5, "L queue {l_ms} ms");
    assert!((7.5..25.0).contains(&c_ms), "C queue {c_ms} ms");
    let throughput = col(&r.groups, "flow_throughput_mbps");
    let loss = col(&r.groups, "loss_rate");
    assert_eq!(loss[0], 0.0, "Prague's packets are marked, not dropped");
    assert!(throughput[0] > 4.0 && throughput[1] > 4.0, "{throughput:?}");
}

#[test]
fn a_group_naming_prague_takes_its_ecn_and_pacing_defaults() {
    let text = coexistence("dualpi2", "ecn = false\npacing = false");
    let resolved = sim::resolve_scenario(&text, &[]).unwrap();
    // Resolving twice gives the same text: the group's defaults survive the canonical form.
    assert_eq!(sim::resolve_scenario(&resolved, &[]).unwrap(), resolved);
    let r = run(&text);
    assert!(
        port(&r, "l_arrivals") > 0.0,
        "Prague's ECT(1) packets reach the L queue"
    );
}

/// Without the classic-ECN fall-back (Linux's default): a 30-packet step is a 9 ms queue at
/// 40 Mb/s, which the detector reads as a classic bottleneck, and with the fall-back Prague's
/// deeper cuts keep the queue well below K.
#[test]
fn by_itself_through_a_step_prague_holds_the_queue_near_k_by_marks() {
    let text = coexistence("step", "prague_ecn_fallback = false")
        .replace("cc = \"cubic\"", "cc = \"prague\"");
    let r = run(&text);
    let avg = m(&r, "avg_queue_pkts");
    assert!((15.0..40.0).contains(&avg), "average queue {avg}");
    assert_eq!(m(&r, "bottleneck_drops"), 0.0);
    assert!(m(&r, "link_efficiency") > 0.9);
}
