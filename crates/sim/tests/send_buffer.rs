//! `tcp.send_buffer_bytes`: a stopping flow still sends the whole segments its send buffer
//! holds, counted from its oldest unacknowledged segment; without a buffer (the default) it
//! only completes what it sent. The key is written in the canonical text only when set.

mod common;

use common::check_invariants;
use sim::result::RunResult;
use std::convert::Infallible;

/// One bulk flow on an uncongested path, its flight capped at 20 segments by the receive
/// window, stopped 2 s after it starts.
const ONE_FLOW: &str = r#"
duration_s = 4.0
seed = 1
[topology]
bottleneck_rate_mbps = 100.0
[queue]
aqm = "droptail"
limit_pkts = 1000
[tcp]
preset = "ns3"
rwnd_pkts = 20
[traffic]
start_jitter_s = 0.0
[[traffic.groups]]
flow_duration_s = 2.0
[traffic.groups.schedule]
kind = "constant"
flows = 1
[measure]
window = "all"
"#;

const PAYLOAD_BYTES: u64 = 948;

fn delivered_bytes(text: &str, sets: &[(&str, &str)]) -> u64 {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let r: RunResult = sim::run_scenario(text, &sets, None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("run failed: {e:?}"));
    check_invariants(&r, 1000.0, 100e6, 1000.0);
    r.flows.ints("delivered_bytes").unwrap()[0] as u64
}

#[test]
fn a_stopped_flow_sends_what_its_buffer_holds_beyond_its_flight() {
    let none = delivered_bytes(ONE_FLOW, &[]);
    // 100 segments written from the oldest unacknowledged one: 80 more than the 20 in flight.
    let buffer = (100 * PAYLOAD_BYTES).to_string();
    let with = delivered_bytes(ONE_FLOW, &[("tcp.send_buffer_bytes", &buffer)]);
    assert_eq!(with - none, 80 * PAYLOAD_BYTES);
    // Part of a segment is not sent.
    let buffer = (100 * PAYLOAD_BYTES + PAYLOAD_BYTES - 1).to_string();
    let partial = delivered_bytes(ONE_FLOW, &[("tcp.send_buffer_bytes", &buffer)]);
    assert_eq!(partial, with);
    // A buffer no larger than the flight adds nothing.
    let buffer = (10 * PAYLOAD_BYTES).to_string();
    assert_eq!(
        delivered_bytes(ONE_FLOW, &[("tcp.send_buffer_bytes", &buffer)]),
        none
    );
}

#[test]
fn a_finite_flow_never_sends_beyond_its_object() {
    let object = ONE_FLOW.replace(
        "flow_duration_s = 2.0\n",
        "flow_duration_s = 0.2\nsource = { kind = \"finite\", size = { kind = \"fixed\", bytes = 1000000 } }\n",
    );
    let none = delivered_bytes(&object, &[]);
    assert!(none < 1_000_000, "stopped before it completed: {none}");
    let all = delivered_bytes(&object, &[("tcp.send_buffer_bytes", "1073741824")]);
    assert_eq!(all, 1_000_000_u64.div_ceil(PAYLOAD_BYTES) * PAYLOAD_BYTES);
}

#[test]
fn the_key_is_written_only_when_set_and_has_a_range() {
    let plain = sim::resolve_scenario(ONE_FLOW, &[]).unwrap();
    assert!(!plain.contains("send_buffer_bytes"));
    let set = [("tcp.send_buffer_bytes".to_string(), "131072".to_string())];
    let text = sim::resolve_scenario(ONE_FLOW, &set).unwrap();
    assert!(text.contains("send_buffer_bytes = 131072"));
    assert_eq!(sim::resolve_scenario(&text, &[]).unwrap(), text);
    let bad = [("tcp.send_buffer_bytes".to_string(), "-1".to_string())];
    let err = sim::resolve_scenario(ONE_FLOW, &bad)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("tcp.send_buffer_bytes: "), "{err}");
    assert!(err.contains("1073741824"), "{err}");
}
