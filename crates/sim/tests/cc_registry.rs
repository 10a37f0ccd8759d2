//! Every congestion control of the registry is what scenarios accept as `tcp.cc`, what the
//! canonical text writes back, what the scenario-format page lists, and runs with the
//! engine's invariants kept, under both presets.

mod common;

use common::{check_invariants, error, run};
use sim::tcp::cc::registry::CcKind;

/// A short congested dumbbell with congestion control `cc` on top of `preset`.
fn scenario(preset: &str, cc: &str) -> String {
    // A rate-based algorithm (BBR) needs the SACK path, which ns-2's preset turns off.
    let path = match CcKind::from_name(cc) {
        Some(k) if k.has_cong_control() && preset == "ns2" => "sack = true\nrecovery = \"newreno\"",
        _ => "",
    };
    format!(
        r#"
        duration_s = 10.0
        seed = 3
        [topology]
        bottleneck_rate_mbps = 5.0
        bottleneck_delay_ms = 10.0
        [queue]
        aqm = "red"
        limit_pkts = 60
        [queue.red]
        q_min_pkts = 10.0
        q_max_pkts = 40.0
        p_max = 0.1
        w = 0.01
        [tcp]
        preset = "{preset}"
        cc = "{cc}"
        {path}
        [traffic.schedule]
        kind = "constant"
        flows = 10
        "#
    )
}

#[test]
fn every_registered_name_is_accepted_written_back_and_runs() {
    assert!(!CcKind::NAMES.is_empty());
    for &name in CcKind::NAMES {
        for (preset, pkt_bytes) in [("ns3", 1000.0), ("ns2", 1040.0)] {
            let text = scenario(preset, name);
            let canonical = sim::resolve_scenario(&text, &[]).unwrap();
            assert!(canonical.contains(&format!("cc = \"{name}\"")), "{name}");
            let r = run(&text);
            check_invariants(&r, 60.0, 5e6, pkt_bytes);
            assert!(
                common::m(&r, "data_delivered") > 0.0,
                "{name} under {preset}"
            );
        }
    }
}

#[test]
fn an_unknown_name_lists_the_registered_ones() {
    assert_eq!(
        error(&scenario("ns3", "bogus")),
        format!(
            "tcp.cc: unknown value \"bogus\"; allowed: {}",
            CcKind::NAMES.join(", ")
        )
    );
}

#[test]
fn the_scenario_format_page_lists_the_registered_names() {
    let page = include_str!("../../../docs/scenario-format.md");
    let row = page
        .lines()
        .find(|l| l.starts_with("| `cc` |"))
        .expect("the [tcp] table has a `cc` row");
    let listed: Vec<&str> = row
        .trim_start_matches("| `cc` |")
        .split('`')
        .skip(1)
        .step_by(2)
        .collect();
    assert_eq!(listed, CcKind::NAMES, "{row}");
}
