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
        "queue.aqm: unknown value \"codel2\"; allowed: droptail, red, ared, betared, abetared, dbetared, codel, pie, cobalt, rem, pi, iapi, neuron_pid, an_aqm, fapidnn, nrl, self_tuning_red"
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
