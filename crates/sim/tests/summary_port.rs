//! The summary and the main time series describe one measured port, named in the summary's
//! `port`: the one `measure.port` names, or by default the dumbbell's bottleneck, a chain's
//! first link, and a network's slowest link (the first in link order among equals).

mod common;

use common::{col, error, m, port_names, run};
use sim::result::{RunResult, Value};

/// The triangle of `experiments/examples/triangle.toml`: A - B - C with a slow direct A - C
/// (CoDel) that the traffic (A to C) takes; A->B and B->C (RED) carry nothing. 4 s long,
/// measured over the whole run, with `measure` appended to `[measure]`.
fn triangle(measure: &str) -> String {
    let file = include_str!("../../../experiments/examples/triangle.toml");
    let text = file
        .replace("duration_s = 20.0", "duration_s = 4.0")
        .replace("window = \"second_half\"", "window = \"all\"");
    assert_ne!(
        text, file,
        "the triangle's duration and window are where this test expects"
    );
    format!("{text}\n{measure}\n")
}

/// The summary's text value `k`.
fn text(r: &RunResult, k: &str) -> String {
    match r.summary.iter().find(|(n, _)| n == k) {
        Some((_, Value::Text(s))) => s.clone(),
        other => panic!("{k} is not text: {other:?}"),
    }
}

/// Port `k`'s column `c` of the long per-port series.
fn port_series(r: &RunResult, k: usize, c: &str) -> Vec<f64> {
    let ports = col(&r.port_timeseries, "port");
    let values = col(&r.port_timeseries, c);
    ports
        .iter()
        .zip(values)
        .filter(|(p, _)| **p == k as f64)
        .map(|(_, v)| v)
        .collect()
}

/// The summary, the main time series and the per-port table agree on port `k`.
fn describes(r: &RunResult, k: usize) {
    assert_eq!(text(r, "port"), port_names(r)[k]);
    let aqm: Vec<String> = match &r.ports.columns[2].1 {
        sim::result::Column::Texts(v) => v.clone(),
        _ => panic!("AQM names are text"),
    };
    assert_eq!(text(r, "aqm"), aqm[k]);
    for (summary, table) in [
        ("avg_queue_pkts", "avg_queue_pkts"),
        ("std_queue_pkts", "std_queue_pkts"),
        ("avg_queue_aqm_pkts", "avg_queue_aqm_pkts"),
        ("drop_rate", "drop_rate"),
        ("link_efficiency", "link_efficiency"),
        ("max_queue_pkts", "max_queue_pkts"),
        ("bottleneck_arrivals", "arrivals"),
        ("bottleneck_departures", "departures"),
        ("bottleneck_drops", "drops"),
    ] {
        assert_eq!(m(r, summary), col(&r.ports, table)[k], "{summary}");
    }
    assert_eq!(
        col(&r.timeseries, "queue_pkts"),
        port_series(r, k, "queue_pkts")
    );
    assert_eq!(
        col(&r.timeseries, "queue_bytes"),
        port_series(r, k, "queue_bytes")
    );
}

#[test]
fn a_network_is_described_by_its_slowest_link() {
    let r = run(&triangle(""));
    assert_eq!(port_names(&r), ["A->B", "B->C", "A->C"]);
    describes(&r, 2);
    assert_eq!(text(&r, "port"), "A->C");
    assert_eq!(text(&r, "aqm"), "codel");
    assert!(m(&r, "link_efficiency") > 0.5, "the traffic's bottleneck");
    // Its AQM's state is the main series'.
    assert!(r.timeseries.floats("aqm_sojourn_ms").is_some());
    assert!(r.timeseries.floats("aqm_q_avg").is_none());
}

#[test]
fn measure_port_picks_the_port_and_changes_nothing_else() {
    let slowest = run(&triangle(""));
    let idle = run(&triangle("port = \"A->B\""));
    describes(&idle, 0);
    assert_eq!(text(&idle, "aqm"), "red");
    assert_eq!(m(&idle, "link_efficiency"), 0.0);
    assert!(idle.timeseries.floats("aqm_q_avg").is_some());
    // The run itself is the same: every per-port, per-flow and per-group number.
    for (a, b) in [
        (&slowest.ports, &idle.ports),
        (&slowest.port_timeseries, &idle.port_timeseries),
        (&slowest.flows, &idle.flows),
        (&slowest.groups, &idle.groups),
        (&slowest.cwnd, &idle.cwnd),
    ] {
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    for k in [
        "throughput_mbps",
        "delay_mean_ms",
        "jitter_ms",
        "events",
        "data_sent",
    ] {
        assert_eq!(m(&slowest, k), m(&idle, k), "{k}");
    }
    // Naming the default's port gives the default's result.
    let named = run(&triangle("port = \"A->C\""));
    assert_eq!(
        format!("{:?}", named.summary),
        format!("{:?}", slowest.summary)
    );
    assert_eq!(
        format!("{:?}", named.timeseries),
        format!("{:?}", slowest.timeseries)
    );
    // An override sets it too, as a bare word.
    let sets = [("measure.port".to_string(), "B->C".to_string())];
    let r = sim::run_scenario(&triangle(""), &sets, None, |_| {
        Ok::<(), std::convert::Infallible>(())
    })
    .unwrap();
    describes(&r, 1);
}

#[test]
fn ties_go_to_the_first_link_and_forward_before_reverse() {
    // A - B and B - C both at 5 Mb/s, A - C at 8: A->B, the first of the two.
    let text = triangle("")
        .replace(
            "rate_mbps = 20.0\ndelay_ms = 10.0",
            "rate_mbps = 5.0\ndelay_ms = 10.0",
        )
        .replace(
            "rate_mbps = 5.0\ndelay_ms = 30.0",
            "rate_mbps = 8.0\ndelay_ms = 30.0",
        );
    describes(&run(&text), 0);
    // The slowest link alone with a reverse queue: its forward port.
    let text = triangle("")
        .replacen(
            "rate_mbps = 20.0\ndelay_ms = 10.0",
            "rate_mbps = 20.0\ndelay_ms = 10.0\nreverse_queue = {}",
            1,
        )
        .replace(
            "queue = { aqm = \"codel\" }",
            "queue = { aqm = \"codel\" }\nreverse_queue = { aqm = \"pie\" }",
        );
    let r = run(&text);
    assert_eq!(port_names(&r), ["A->B", "B->A", "B->C", "A->C", "C->A"]);
    describes(&r, 3);
}

#[test]
fn a_chain_keeps_its_first_link_and_a_dumbbell_its_bottleneck() {
    let chain = r#"
duration_s = 3.0
[topology]
kind = "chain"
routers = ["A", "B", "C"]
[[topology.links]]
rate_mbps = 20.0
delay_ms = 5.0
[[topology.links]]
rate_mbps = 5.0
delay_ms = 5.0
[traffic.schedule]
kind = "constant"
flows = 4
"#;
    let r = run(chain);
    describes(&r, 0);
    assert_eq!(text(&r, "port"), "A->B");
    let r = run(&format!("{chain}[measure]\nport = \"B->C\"\n"));
    describes(&r, 1);
    let dumbbell = "duration_s = 2.0\n[traffic.schedule]\nkind = \"constant\"\nflows = 2\n";
    let r = run(dumbbell);
    describes(&r, 0);
    assert_eq!(text(&r, "port"), "R1->R2");
    assert_eq!(r.summary[1].0, "port", "right after the AQM");
    let named = run(&format!("{dumbbell}[measure]\nport = \"R1->R2\"\n"));
    assert_eq!(format!("{:?}", named.summary), format!("{:?}", r.summary));
}

#[test]
fn the_canonical_text_writes_the_port_only_when_set() {
    let plain = sim::resolve_scenario(&triangle(""), &[]).unwrap();
    assert!(!plain.contains("port ="), "{plain}");
    let named = sim::resolve_scenario(&triangle("port = \"B->C\""), &[]).unwrap();
    assert!(named.contains("port = \"B->C\""), "{named}");
    assert_eq!(sim::resolve_scenario(&named, &[]).unwrap(), named);
    // Apart from the key, the text is the same.
    let without: String = named
        .lines()
        .filter(|l| !l.starts_with("port = "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(without, plain);
}

#[test]
fn an_unknown_port_lists_the_measured_ones() {
    assert_eq!(
        error(&triangle("port = \"C->A\"")),
        "measure.port: \"C->A\" is not a measured port; the measured ports are A->B, B->C, A->C"
    );
    assert_eq!(
        error(&triangle("port = 2")),
        "measure.port: must be a port name (a string), got an integer; the measured ports are \
         A->B, B->C, A->C"
    );
    let dumbbell = "duration_s = 2.0\n[traffic.schedule]\nkind = \"constant\"\nflows = 2\n";
    assert_eq!(
        error(&format!("{dumbbell}[measure]\nport = \"A->B\"\n")),
        "measure.port: \"A->B\" is not a measured port; the measured ports are R1->R2"
    );
}
