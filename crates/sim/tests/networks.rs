//! Chains of bottlenecks, UDP sources and finite flows on whole runs: where each group's
//! packets go, what each source sends, when finite flows complete, and the errors of a bad
//! network.

mod common;

use common::{assert_errors_start_with, check_port_invariants, col, error, m, port_names, run};

/// Routers A - B - C - D; the links' rates, and the groups' text.
fn chain(rates: [f64; 3], groups: &str) -> String {
    format!(
        r#"
duration_s = 8.0
[topology]
kind = "chain"
routers = ["A", "B", "C", "D"]
access_rate_mbps = 100.0
sender_delay_ms = 2.0
receiver_delay_ms = 3.0
[[topology.links]]
rate_mbps = {:?}
delay_ms = 5.0
[[topology.links]]
rate_mbps = {:?}
delay_ms = 7.0
queue = {{ aqm = "droptail", limit_pkts = 50 }}
[[topology.links]]
rate_mbps = {:?}
delay_ms = 11.0
reverse_queue = {{ aqm = "droptail" }}
[queue]
aqm = "red"
limit_pkts = 100
[traffic]
start_jitter_s = 0.5
{groups}
[measure]
window = "all"
"#,
        rates[0], rates[1], rates[2]
    )
}

const THREE_GROUPS: &str = r#"
[[traffic.groups]]
name = "through"
path = ["A", "D"]
[traffic.groups.schedule]
kind = "constant"
flows = 4
[[traffic.groups]]
name = "first"
path = ["A", "B"]
receiver_delay_ms = 13.0
[traffic.groups.schedule]
kind = "constant"
flows = 3
[[traffic.groups]]
name = "back"
path = ["D", "C"]
[traffic.groups.schedule]
kind = "constant"
flows = 2
"#;

#[test]
fn groups_cross_the_ports_of_their_path() {
    let r = run(&chain([10.0, 100.0, 10.0], THREE_GROUPS));
    assert_eq!(port_names(&r), ["A->B", "B->C", "C->D", "D->C"]);
    check_port_invariants(&r, &[100.0, 50.0, 100.0, 100.0]);
    // Round trips: access 2 + 3 (13 for "first") plus the links crossed, both ways.
    let rtt = col(&r.flows, "rtt_prop_ms");
    assert_eq!(rtt[0], 2.0 * (2.0 + 5.0 + 7.0 + 11.0 + 3.0));
    assert_eq!(rtt[4], 2.0 * (2.0 + 5.0 + 13.0));
    assert_eq!(rtt[7], 2.0 * (2.0 + 11.0 + 3.0));
    // A->B carries "through" and "first"; C->D "through" only, plus "back"'s ACKs; D->C
    // "back"'s data and "through"'s ACKs.
    let arrivals = col(&r.ports, "arrivals");
    let data = col(&r.ports, "data_departures");
    assert!(data[0] > data[2], "A->B carries more data than C->D");
    assert!(arrivals[3] > 0.0);
    // A chain's summary reports its first port.
    assert_eq!(m(&r, "bottleneck_arrivals"), arrivals[0]);
    assert_eq!(m(&r, "avg_queue_pkts"), col(&r.ports, "avg_queue_pkts")[0]);
    // Conservation over the whole network.
    assert_eq!(
        m(&r, "data_sent"),
        m(&r, "data_delivered") + m(&r, "data_dropped") + m(&r, "data_in_flight")
    );
}

#[test]
fn a_group_off_a_port_leaves_it_idle() {
    let only_first = r#"
[[traffic.groups]]
path = ["A", "B"]
[traffic.groups.schedule]
kind = "constant"
flows = 3
"#;
    let r = run(&chain([10.0, 100.0, 10.0], only_first));
    let arrivals = col(&r.ports, "arrivals");
    assert!(arrivals[0] > 1000.0);
    assert_eq!(&arrivals[1..], [0.0, 0.0, 0.0]);
}

#[test]
fn cbr_sends_at_its_rate_and_loses_nothing_on_an_idle_path() {
    let cbr = r#"
[[traffic.groups]]
transport = "udp"
path = ["A", "D"]
[traffic.groups.source]
kind = "cbr"
rate_kbps = 400.0
packet_bytes = 500
[traffic.groups.schedule]
kind = "events"
events = [{ t_s = 1.0, add = 2 }, { t_s = 6.0, remove = 2 }]
"#;
    let text =
        chain([10.0, 100.0, 10.0], cbr).replace("start_jitter_s = 0.5", "start_jitter_s = 0.0");
    let r = run(&text);
    // 500 B at 400 kb/s: one packet per 10 ms from 1 s to 6 s, the last at 5.99 s.
    assert_eq!(col(&r.flows, "data_sent"), [500.0, 500.0]);
    assert_eq!(col(&r.groups, "loss_rate"), [0.0]);
    // 1000 packets of 500 B over the 8-s window.
    assert_eq!(
        col(&r.groups, "throughput_mbps"),
        [1000.0 * 500.0 * 8.0 / 8.0 / 1e6]
    );
    // One-way delay: access 2 + 3 ms and links 5 + 7 + 11 ms of propagation, 0.92 ms of
    // serialisation (0.04 ms at each 100 Mb/s hop, 0.4 ms at each 10 Mb/s one), and a
    // little queueing where the two sources' packets meet.
    let delay = col(&r.groups, "delay_mean_ms")[0];
    assert!((28.92..29.5).contains(&delay), "{delay}");
    check_port_invariants(&r, &[100.0, 50.0, 100.0, 100.0]);
}

#[test]
fn udp_overload_is_lost_at_the_bottleneck() {
    // 20 ON/OFF sources at 2 Mb/s while on (about 20 Mb/s on average) onto 10 Mb/s.
    let onoff = r#"
[[traffic.groups]]
transport = "udp"
path = ["A", "B"]
[traffic.groups.source]
kind = "onoff"
rate_kbps = 2000.0
packet_bytes = 1000
on_mean_s = 0.2
off_mean_s = 0.2
[traffic.groups.schedule]
kind = "constant"
flows = 20
"#;
    let r = run(&chain([10.0, 100.0, 10.0], onoff));
    let loss = col(&r.groups, "loss_rate")[0];
    assert!((0.3..0.7).contains(&loss), "{loss}");
    let lost: f64 = col(&r.flows, "lost_pkts").iter().sum();
    assert_eq!(lost, col(&r.groups, "lost_pkts")[0]);
    assert!(col(&r.ports, "link_efficiency")[0] > 0.9);
    check_port_invariants(&r, &[100.0, 50.0, 100.0, 100.0]);
}

#[test]
fn finite_flows_complete_and_report_their_completion_times() {
    let finite = r#"
[[traffic.groups]]
name = "objects"
path = ["A", "D"]
[traffic.groups.source]
kind = "finite"
size = { kind = "fixed", bytes = 30000 }
[traffic.groups.schedule]
kind = "poisson"
rate_per_s = 5.0
window_s = [0.0, 5.0]
"#;
    let r = run(&chain([10.0, 100.0, 10.0], finite));
    let n = col(&r.flows, "flow").len();
    assert!(
        (15..=40).contains(&n),
        "{n} Poisson arrivals at 5/s over 5 s"
    );
    let fct = col(&r.flows, "fct_s");
    assert!(fct.iter().all(|&t| t > 0.0 && t < 3.0), "{fct:?}");
    // 30 000 B in 1000-byte packets (948 B of payload each with the ns3 preset): 32
    // segments, delivered in full.
    let delivered = col(&r.flows, "delivered_bytes");
    assert!(
        delivered.iter().all(|&b| b == 32.0 * 948.0),
        "{delivered:?}"
    );
    assert_eq!(col(&r.fct, "flows"), [n as f64]);
    assert_eq!(col(&r.fct, "completed"), [n as f64]);
    assert_eq!(col(&r.fct, "size_min_bytes"), [10_000.0]);
    // A flow needs at least a few round trips of 56 ms.
    assert!(col(&r.fct, "fct_median_s")[0] > 0.1);
    check_port_invariants(&r, &[100.0, 50.0, 100.0, 100.0]);
}

#[test]
fn a_finite_flow_stopped_early_never_completes() {
    let cut_short = r#"
[[traffic.groups]]
path = ["A", "D"]
flow_duration_s = 1.0
[traffic.groups.source]
kind = "finite"
size = { kind = "fixed", bytes = 100000000 }
[traffic.groups.schedule]
kind = "constant"
flows = 2
"#;
    let r = run(&chain([10.0, 100.0, 10.0], cut_short));
    assert!(col(&r.flows, "fct_s").iter().all(|t| t.is_nan()));
    assert_eq!(col(&r.fct, "completed"), [0.0]);
    assert!(col(&r.flows, "delivered_bytes").iter().all(|&b| b > 0.0));
}

#[test]
fn networks_repeat_byte_for_byte() {
    let text = chain([10.0, 100.0, 10.0], THREE_GROUPS);
    let (a, b) = (run(&text), run(&text));
    assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports));
    assert_eq!(
        format!("{:?}", a.port_timeseries),
        format!("{:?}", b.port_timeseries)
    );
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(
        sim::resolve_scenario(&a.scenario_toml, &[]).unwrap(),
        a.scenario_toml
    );
}

#[test]
fn a_bad_network_names_its_key() {
    let ok = chain([10.0, 100.0, 10.0], THREE_GROUPS);
    let cases = [
        (
            ok.replace(r#"["A", "D"]"#, r#"["A", "Z"]"#),
            "traffic.groups[0].path: \"Z\" is not a router of the topology",
        ),
        (
            ok.replace(r#"["A", "D"]"#, r#"["B", "B"]"#),
            "traffic.groups[0].path: enters and leaves at \"B\"",
        ),
        (
            ok.replace(r#"["A", "D"]"#, r#"["A"]"#),
            "traffic.groups[0].path: must be [ingress, egress]",
        ),
        (
            ok.replace(r#"["A", "B", "C", "D"]"#, r#"["A", "B", "A", "D"]"#),
            "topology.routers[2]: \"A\" appears twice",
        ),
        (
            ok.replace(r#"["A", "B", "C", "D"]"#, r#"["A", "B", "C"]"#),
            "topology.links: must hold one link per pair",
        ),
        (
            ok.replace(
                "rate_mbps = 100.0\ndelay_ms = 7.0",
                "rate_mbps = 0.0\ndelay_ms = 7.0",
            ),
            "topology.links[1].rate_mbps: must be a number > 0",
        ),
        (
            ok.replace("delay_ms = 7.0", "delay_ms = -7.0"),
            "topology.links[1].delay_ms: must be a number in",
        ),
        (
            ok.replace("delay_ms = 7.0", "delay_ms = 7.0\ncolour = 1"),
            "topology.links[1].colour: unknown key",
        ),
        (
            ok.replace(r#"aqm = "droptail", limit_pkts = 50"#, r#"aqm = "nope""#),
            "topology.links[1].queue.aqm: unknown value \"nope\"",
        ),
        (
            ok.replace(
                "routers = [\"A\", \"B\", \"C\", \"D\"]",
                "routers = \"ABCD\"",
            ),
            "topology.routers: must be an array",
        ),
        (
            ok.replace("name = \"back\"", "name = \"back\"\ntransport = \"udp\""),
            "traffic.groups[2].source: is required for a UDP group",
        ),
        (
            ok.replace("kind = \"chain\"", "kind = \"ring\""),
            "topology.kind: unknown value \"ring\"",
        ),
    ];
    assert_errors_start_with(&cases);
    let dumbbell_with_path = "duration_s = 1.0\n[[traffic.groups]]\npath = [\"A\", \"B\"]\n\
        [traffic.groups.schedule]\nkind = \"constant\"\nflows = 1\n";
    assert!(
        error(dumbbell_with_path).starts_with("traffic.groups[0].path: only a chain or a network")
    );
}
