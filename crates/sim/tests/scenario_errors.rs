//! Bad scenario files give one line naming the key path and what is allowed.

fn err(text: &str, sets: &[(&str, &str)]) -> String {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let e = sim::resolve_scenario(text, &sets).expect_err("must be rejected");
    let line = e.to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

const OK: &str = r#"
duration_s = 10.0
[traffic.schedule]
kind = "constant"
flows = 2
"#;

#[test]
fn a_minimal_scenario_resolves_with_defaults() {
    let text = sim::resolve_scenario(OK, &[]).unwrap();
    assert!(text.contains("bottleneck_rate_mbps = 50.0"));
    assert!(text.contains("preset = \"ns3\""));
    assert!(text.contains("cc = \"cubic\""));
}

#[test]
fn ledbat_target_and_gain_are_written_only_when_set() {
    let text = sim::resolve_scenario(OK, &[]).unwrap();
    assert!(
        !text.contains("ledbat_"),
        "ns-3's defaults leave the canonical text alone"
    );
    let sets = [
        ("tcp.ledbat_target_ms".to_string(), "5".to_string()),
        ("tcp.ledbat_gain".to_string(), "10".to_string()),
    ];
    let text = sim::resolve_scenario(OK, &sets).unwrap();
    assert!(text.contains("ledbat_target_ms = 5.0") && text.contains("ledbat_gain = 10.0"));
    assert_eq!(sim::resolve_scenario(&text, &[]).unwrap(), text);
    assert_eq!(
        err(OK, &[("tcp.ledbat_gain", "0")]),
        "tcp.ledbat_gain: must be a number in (0, 1000]"
    );
    assert!(err(OK, &[("tcp.ledbat_target_ms", "0")]).starts_with("tcp.ledbat_target_ms: "));
}

#[test]
fn unknown_keys_list_the_allowed_ones() {
    let line = err(OK, &[("queue.red.pmax", "0.1")]);
    assert!(
        line.starts_with("queue.red.pmax: unknown key; allowed here: "),
        "{line}"
    );
    assert!(line.contains("p_max"));
    let line = err(&format!("bogus = 1\n{OK}"), &[]);
    assert!(line.starts_with("bogus: unknown key"), "{line}");
}

#[test]
fn out_of_range_values_name_the_range() {
    assert_eq!(
        err(OK, &[("queue.red.p_max", "1.5")]),
        "queue.red.p_max: must be in (0, 1]"
    );
    assert_eq!(
        err(OK, &[("queue.red.q_max_pkts", "50")]),
        "queue.red.q_max_pkts: must be greater than q_min_pkts"
    );
    assert_eq!(
        err(OK, &[("duration_s", "-1")]),
        "duration_s: must be a number in [0.000001, 1000000000]"
    );
    assert_eq!(
        err(OK, &[("traffic.schedule.flows", "0")]),
        "traffic.schedule.flows: must be an integer in [1, 1000000], got 0"
    );
    assert!(err(OK, &[("measure.window", "[5.0, 20.0]")]).starts_with("measure.window: "));
    assert!(err(OK, &[("measure.window_s", "[5.0, 10.0]")])
        .starts_with("measure.window_s: unknown key; allowed here: cwnd_flows, "));
}

#[test]
fn aqm_parameter_errors_name_the_key() {
    assert_eq!(
        err(OK, &[("queue.betared.theta", "1.0")]),
        "queue.betared.theta: must be in [0.005, 1)"
    );
    assert_eq!(
        err(OK, &[("queue.betared.q_target_pkts", "1200")]),
        "queue.betared.q_target_pkts: must be in (q_min_pkts, q_max_pkts) = (0, 1000)"
    );
    assert_eq!(
        err(
            OK,
            &[
                ("queue.betared.q_min_pkts", "500"),
                ("queue.betared.q_max_pkts", "400")
            ]
        ),
        "queue.betared.q_max_pkts: must be greater than q_min_pkts"
    );
    assert_eq!(
        err(OK, &[("queue.dbetared.alpha", "0")]),
        "queue.dbetared.alpha: must be in (0, 1]"
    );
    assert!(err(OK, &[("queue.red.spacing", "often")]).starts_with("queue.red.spacing: "));
    assert!(err(OK, &[("queue.codel.interval", "100")])
        .starts_with("queue.codel.interval: unknown key"));
    // The adaptive variants check the target against the buffer only once the link is known.
    assert_eq!(
        err(OK, &[("queue.aqm", "dbetared"), ("queue.limit_pkts", "100")]),
        "queue.dbetared.t_target_ms: gives q_target = C·T_target = 250.0 packets, outside (0, B) = (0, 100)"
    );
}

#[test]
fn wrong_choices_and_types() {
    assert_eq!(
        err(OK, &[("queue.aqm", "codel2")]),
        format!(
            "queue.aqm: unknown value \"codel2\"; allowed: {}",
            aqm::registry::names().join(", ")
        )
    );
    assert!(aqm::registry::names().starts_with(&["droptail", "red", "ared", "betared"]));
    // Flow queueing is checked as every other discipline: a way count must divide the flows.
    assert_eq!(
        err(
            OK,
            &[
                ("queue.aqm", "fq_codel"),
                ("queue.fq_codel.set_associative_hash", "true"),
                ("queue.fq_codel.flows", "100"),
            ]
        ),
        "queue.fq_codel.set_ways: must divide flows (100) when set_associative_hash is true"
    );
    assert_eq!(
        err(OK, &[("queue.fq_codel.quantum_bytes", "0")]),
        "queue.fq_codel.quantum_bytes: must be at least 1"
    );
    assert_eq!(
        err(OK, &[("queue.fq_pie.flows", "0")]),
        "queue.fq_pie.flows: must be an integer in [1, 65536]"
    );
    assert_eq!(
        err(
            OK,
            &[
                ("queue.aqm", "fq_codel"),
                ("queue.fq_codel.memory_limit_bytes", "500")
            ]
        ),
        "queue.fq_codel.memory_limit_bytes: must be at least 65535"
    );
    assert_eq!(
        err(OK, &[("tcp.preset", "ns4")]),
        "tcp.preset: unknown value \"ns4\"; allowed: ns3, ns2"
    );
    assert_eq!(
        err(OK, &[("tcp.delayed_ack", "yes")]),
        "tcp.delayed_ack: must be true or false, got a string"
    );
    assert!(err(OK, &[("topology", "3")]).starts_with("topology: must be a table"));
}

#[test]
fn required_keys_and_syntax() {
    assert_eq!(
        err("[traffic.schedule]\nkind = \"constant\"\nflows = 1\n", &[]),
        "duration_s: is required"
    );
    assert!(err("duration_s = 10\n", &[]).starts_with("traffic.schedule.kind: is required"));
    assert!(
        err("duration_s = = 3", &[]).starts_with("TOML syntax error at line 1, column 14: "),
        "{}",
        err("duration_s = = 3", &[])
    );
    let line = err(
        "duration_s = 10\n[traffic.schedule]\nkind = \"constant\"\nflows = 2x\n",
        &[],
    );
    assert!(
        line.starts_with("TOML syntax error at line 4, column 10: "),
        "{line}"
    );
    let bad_remove = "duration_s = 10.0\n[traffic.schedule]\nkind = \"events\"\nevents = [{ t_s = 1.0, remove = 2 }]\n";
    assert_eq!(
        err(bad_remove, &[]),
        "traffic.schedule.events[0].remove: removes more flows than are active"
    );
}

#[test]
fn recovery_kinds_that_need_or_refuse_sack_say_so() {
    assert_eq!(
        err(
            OK,
            &[("tcp.preset", "\"ns2\""), ("tcp.recovery", "\"sack1\"")]
        ),
        "tcp.recovery: \"sack1\" needs sack = true"
    );
    assert_eq!(
        err(OK, &[("tcp.recovery", "\"reno\"")]),
        "tcp.recovery: \"reno\" needs sack = false; with SACK use \"prr\", \"newreno\" or \"sack1\""
    );
    let line = err(OK, &[("tcp.recovery_exit", "\"half\"")]);
    assert!(line.starts_with("tcp.recovery_exit: "), "{line}");
    assert!(
        line.contains("ssthresh") && line.contains("deflated"),
        "{line}"
    );
}

#[test]
fn rate_schedule_errors_name_the_pair_and_what_is_allowed() {
    let key = "topology.bottleneck_rate_schedule";
    let bad = |value: &str| err(OK, &[(key, value)]);
    let pairs = "must be an array of at most 1000000 [t_s, rate_mbps] pairs, times strictly \
                 increasing in [0, duration_s = 10], or a table { every_s, rates_mbps, from_s, \
                 to_s }";
    assert_eq!(bad("5"), format!("{key}: {pairs}, got an integer"));
    assert_eq!(
        bad("[5.0]"),
        format!("{key}[0]: must be a pair [t_s, rate_mbps], got a float")
    );
    assert_eq!(
        bad("[[1.0, 2.0, 3.0]]"),
        format!("{key}[0]: must be a pair [t_s, rate_mbps], got an array of 3 elements")
    );
    let first = "t_s must be a number in [0, 10] (duration_s)";
    assert_eq!(
        bad("[[11.0, 5.0]]"),
        format!("{key}[0][0]: {first}, got 11")
    );
    assert_eq!(
        bad("[[-1.0, 5.0]]"),
        format!("{key}[0][0]: {first}, got -1")
    );
    assert_eq!(
        bad("[[\"1\", 5.0]]"),
        format!("{key}[0][0]: {first}, got a string")
    );
    // Strictly increasing, also once counted in whole nanoseconds.
    let later = "t_s must be a number in (2, 10]: later than the change before it by at least \
                 1 ns, and at most duration_s";
    assert_eq!(
        bad("[[2.0, 5.0], [2.0, 6.0]]"),
        format!("{key}[1][0]: {later}, got 2")
    );
    assert_eq!(
        bad("[[2.0, 5.0], [2.0000000001, 6.0]]"),
        format!("{key}[1][0]: {later}, got 2.0000000001")
    );
    assert_eq!(
        bad("[[2.0, 5.0], [1.0, 6.0]]"),
        format!("{key}[1][0]: {later}, got 1")
    );
    // Rates are checked as `bottleneck_rate_mbps` is.
    assert_eq!(
        bad("[[1.0, 0.0]]"),
        format!("{key}[0][1]: rate_mbps must be a number > 0")
    );
    assert_eq!(
        bad("[[1.0, \"fast\"]]"),
        format!("{key}[0][1]: rate_mbps must be a number > 0, got a string")
    );
    assert_eq!(
        bad("[[1.0, 1e9]]"),
        format!(
            "{key}[0][1]: rate_mbps must be a number in [0.000001, 832000]: below, the rate \
             rounds to 0 b/s; above, a 52-byte packet's transmission time rounds to 0 ns"
        )
    );
    // A shorter run leaves a change outside it; an element set on its own is checked too.
    assert_eq!(
        err(OK, &[(key, "[[8.0, 5.0]]"), ("duration_s", "5")]),
        format!("{key}[0][0]: t_s must be a number in [0, 5] (duration_s), got 8")
    );
    assert_eq!(
        err(
            OK,
            &[(key, "[[1.0, 5.0], [2.0, 6.0]]"), ("topology.bottleneck_rate_schedule[1][0]", "0.5")]
        ),
        format!("{key}[1][0]: t_s must be a number in (1, 10]: later than the change before it by at least 1 ns, and at most duration_s, got 0.5")
    );
    // The first and last instants of the run, and an empty schedule, are allowed.
    for ok in ["[[0.0, 5.0], [10.0, 1.0]]", "[]"] {
        let sets = [(key.to_string(), ok.to_string())];
        sim::resolve_scenario(OK, &sets).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn periodic_rate_schedule_errors_name_the_key_and_what_is_allowed() {
    let key = "topology.bottleneck_rate_schedule";
    let bad = |value: &str| err(OK, &[(key, value)]);
    assert_eq!(
        bad("{ rates_mbps = [5.0] }"),
        format!("{key}.every_s: is required")
    );
    assert_eq!(
        bad("{ every_s = 0.0, rates_mbps = [5.0] }"),
        format!("{key}.every_s: must be a number in (0, 1000000000]")
    );
    assert_eq!(
        bad("{ every_s = 1e-10, rates_mbps = [5.0] }"),
        format!("{key}.every_s: must be at least 1 ns (1e-9 s), got 1e-10")
    );
    assert_eq!(
        bad("{ every_s = 1.0, rates_mbps = [] }"),
        format!("{key}.rates_mbps: must hold at least one rate")
    );
    assert_eq!(
        bad("{ every_s = 1.0, rates_mbps = [5.0, 0.0] }"),
        format!("{key}.rates_mbps[1]: must be a number > 0")
    );
    assert!(
        bad("{ every_s = 1.0, rates_mbps = [1e9] }").starts_with(&format!(
            "{key}.rates_mbps[0]: must be a number in [0.000001, 832000]"
        ))
    );
    assert_eq!(
        bad("{ every_s = 1.0, rates_mbps = [5.0], from_s = 11.0 }"),
        format!("{key}.from_s: must be a number in [0, 10]")
    );
    assert_eq!(
        bad("{ every_s = 1.0, rates_mbps = [5.0], from_s = 4.0, to_s = 3.0 }"),
        format!("{key}.to_s: must be a number in [4, 10]")
    );
    assert_eq!(
        bad("{ every_s = 1e-6, rates_mbps = [5.0] }"),
        format!(
            "{key}.every_s: gives 10000000 changes from from_s to to_s, more than the 1000000 \
             allowed"
        )
    );
    assert!(bad("{ every_s = 1.0, rates_mbps = [5.0], period_s = 2.0 }")
        .starts_with(&format!("{key}.period_s: unknown key; allowed here: ")));
}

#[test]
fn a_link_rate_schedule_belongs_to_its_kind_of_topology() {
    let chain = r#"
duration_s = 10.0
[topology]
kind = "chain"
routers = ["A", "B"]
[[topology.links]]
rate_mbps = 10.0
delay_ms = 5.0
rate_schedule = [[1.0, 5.0], [2.0, -5.0]]
[traffic.schedule]
kind = "constant"
flows = 2
"#;
    assert_eq!(
        err(chain, &[]),
        "topology.links[0].rate_schedule[1][1]: rate_mbps must be a number > 0"
    );
    let fixed = ("topology.links[0].rate_schedule[1][1]", "5");
    let line = err(chain, &[fixed, ("topology.bottleneck_rate_schedule", "[]")]);
    assert!(
        line.starts_with("topology.bottleneck_rate_schedule: unknown key; allowed here: "),
        "{line}"
    );
    let line = err(OK, &[("topology.rate_schedule", "[]")]);
    assert!(
        line.starts_with("topology.rate_schedule: unknown key; allowed here: ")
            && line.contains("bottleneck_rate_schedule"),
        "{line}"
    );
}
