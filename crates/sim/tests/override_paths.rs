//! Overrides reach into arrays (`topology.links[0].rate_mbps`, `measure.cwnd_flows[1]`), never
//! create or extend one, and refuse numbers TOML cannot hold; each mistake is one line naming
//! the path and what is allowed.

use std::convert::Infallible;

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn resolve(text: &str, pairs: &[(&str, &str)]) -> toml::Table {
    sim::resolve_scenario(text, &sets(pairs))
        .unwrap_or_else(|e| panic!("{e}"))
        .parse()
        .unwrap()
}

fn err(text: &str, pairs: &[(&str, &str)]) -> String {
    let line = sim::resolve_scenario(text, &sets(pairs))
        .expect_err("must be refused")
        .to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

const CHAIN: &str = r#"
duration_s = 3.0
[topology]
kind = "chain"
routers = ["A", "B", "C", "D"]
[[topology.links]]
rate_mbps = 10.0
delay_ms = 5.0
[[topology.links]]
rate_mbps = 20.0
delay_ms = 5.0
queue = { aqm = "red" }
[[topology.links]]
rate_mbps = 30.0
delay_ms = 5.0
[[traffic.groups]]
name = "a"
[traffic.groups.schedule]
kind = "constant"
flows = 3
[[traffic.groups]]
name = "b"
path = ["B", "C"]
[traffic.groups.schedule]
kind = "constant"
flows = 2
[measure]
cwnd_flows = [0, 1]
"#;

fn link(t: &toml::Table, i: usize) -> &toml::Value {
    &t["topology"]["links"][i]
}

#[test]
fn indexed_paths_set_keys_and_elements() {
    let t = resolve(
        CHAIN,
        &[
            ("topology.links[0].rate_mbps", "5"),
            ("topology.links[2].queue.aqm", "codel"),
            ("topology.links[1].queue.red.p_max", "0.25"),
            ("traffic.groups[1].schedule.flows", "4"),
            ("traffic.groups[0].path", "[\"A\", \"C\"]"),
            ("measure.cwnd_flows[1]", "6"),
        ],
    );
    assert_eq!(link(&t, 0)["rate_mbps"].as_float(), Some(5.0));
    assert_eq!(link(&t, 1)["rate_mbps"].as_float(), Some(20.0));
    assert_eq!(link(&t, 2)["queue"]["aqm"].as_str(), Some("codel"));
    assert_eq!(link(&t, 1)["queue"]["aqm"].as_str(), Some("red"));
    assert_eq!(link(&t, 1)["queue"]["red"]["p_max"].as_float(), Some(0.25));
    assert_eq!(t["topology"]["links"].as_array().unwrap().len(), 3);
    let groups = t["traffic"]["groups"].as_array().unwrap();
    assert_eq!(groups[1]["schedule"]["flows"].as_integer(), Some(4));
    assert_eq!(groups[0]["path"][1].as_str(), Some("C"));
    let traced: Vec<i64> = t["measure"]["cwnd_flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_integer().unwrap())
        .collect();
    assert_eq!(traced, [0, 6]);
}

#[test]
fn an_indexed_override_reaches_the_run() {
    let run = |pairs: &[(&str, &str)]| {
        sim::run_scenario(CHAIN, &sets(pairs), None, |_| Ok::<(), Infallible>(())).unwrap()
    };
    let r = run(&[("topology.links[1].rate_mbps", "2.5")]);
    assert_eq!(r.ports.floats("rate_mbps").unwrap(), [10.0, 2.5, 30.0]);
    // The second link is now the slowest by far: its queue builds and it runs near capacity.
    let eff = r.ports.floats("link_efficiency").unwrap();
    assert!(eff[1] > 0.5, "{eff:?}");
    let before = run(&[]);
    assert!(
        r.ports.floats("avg_queue_pkts").unwrap()[1]
            > before.ports.floats("avg_queue_pkts").unwrap()[1]
    );
}

#[test]
fn bad_indices_are_refused() {
    let cases = [
        (
            "topology.links[5].rate_mbps",
            "topology.links[5]: index out of range; the array has 3 elements (0..2); an override \
             cannot add elements: set the whole array to change its length",
        ),
        (
            "topology.links[3]",
            "topology.links[3]: index out of range; the array has 3 elements (0..2); an override \
             cannot add elements: set the whole array to change its length",
        ),
        (
            "topology.links[-1].rate_mbps",
            "topology.links[-1]: an index must be a whole number >= 0 (elements count from 0), \
             got -1",
        ),
        (
            "topology.links[one].rate_mbps",
            "topology.links[one]: an index must be a whole number >= 0 (elements count from 0), \
             got \"one\"",
        ),
        (
            "topology.routers[0][0]",
            "topology.routers[0][0]: topology.routers[0] is a string, not an array; only an \
             array takes an index",
        ),
        (
            "queue[0].aqm",
            "queue[0]: queue is not set, and an override cannot create an array; set the whole \
             array instead (queue=[...])",
        ),
        (
            "topology[0]",
            "topology[0]: topology is a table, not an array; only an array takes an index",
        ),
        (
            "topology.links[0.rate_mbps",
            "topology.links[0.rate_mbps: unclosed bracket; an index is written key[N] (N a whole \
             number >= 0), as in topology.links[0]",
        ),
        (
            "measure.cwnd_flows[2]",
            "measure.cwnd_flows[2]: index out of range; the array has 2 elements (0..1); an \
             override cannot add elements: set the whole array to change its length",
        ),
    ];
    for (key, expected) in cases {
        assert_eq!(err(CHAIN, &[(key, "1")]), expected, "{key}");
    }
    // Values set by index are checked like any other, at their indexed path.
    assert_eq!(
        err(CHAIN, &[("topology.links[0].rate_mbps", "0")]),
        "topology.links[0].rate_mbps: must be a number > 0"
    );
    assert_eq!(
        err(CHAIN, &[("measure.cwnd_flows[0]", "99")]),
        "measure.cwnd_flows[0]: must be a flow number in 0..4 (the run has 5 flows), got 99"
    );
    // A whole array may still be replaced, with another length.
    let t = resolve(CHAIN, &[("measure.cwnd_flows", "[4, 3, 2]")]);
    assert_eq!(t["measure"]["cwnd_flows"].as_array().unwrap().len(), 3);
}

#[test]
fn numbers_toml_cannot_hold_are_refused() {
    assert_eq!(
        err(CHAIN, &[("queue.limit_pkts", "1180591620717411303424")]),
        "queue.limit_pkts: integer 1180591620717411303424 does not fit in 64 bits (TOML \
         integers are -2^63..2^63-1)"
    );
    assert_eq!(
        err(
            CHAIN,
            &[("topology.links[0].rate_mbps", "-0x8000_0000_0000_0000")]
        ),
        "topology.links[0].rate_mbps: must be a number, got a string"
    );
    assert!(err(
        CHAIN,
        &[("measure.cwnd_flows", "[0, 99999999999999999999]")]
    )
    .starts_with("measure.cwnd_flows: integer 99999999999999999999 does not fit in 64 bits"));
    assert_eq!(
        err(CHAIN, &[("duration_s", "1e999")]),
        "duration_s: float 1e999 is out of range: TOML floats are 64-bit, at most about 1.8e308 \
         in magnitude (write inf for an infinity)"
    );
    assert!(err(CHAIN, &[("topology.links[0].delay_ms", "-1e999")])
        .starts_with("topology.links[0].delay_ms: float -1e999 is out of range"));
    // Bare words are still strings; an infinity written as one is checked by the key.
    let t = resolve(CHAIN, &[("queue.aqm", "red")]);
    assert_eq!(t["queue"]["aqm"].as_str(), Some("red"));
    assert_eq!(
        err(CHAIN, &[("duration_s", "inf")]),
        "duration_s: must be a number in [0.000001, 1000000000]"
    );
    // The seed takes any 64-bit unsigned value, beyond TOML's integers as digits.
    let t = resolve(CHAIN, &[("seed", "18446744073709551615")]);
    assert_eq!(t["seed"].as_str(), Some("18446744073709551615"));
}
