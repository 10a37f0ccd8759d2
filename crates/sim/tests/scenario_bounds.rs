//! Values at the edges of what a scenario may hold: seeds over the whole u64 range, windows
//! relative to the run, the time-series step, traced flows and link rates.

use std::convert::Infallible;

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn err(text: &str, pairs: &[(&str, &str)]) -> String {
    let e = sim::resolve_scenario(text, &sets(pairs)).expect_err("must be rejected");
    let line = e.to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

const OK: &str = r#"
duration_s = 2.0
[traffic]
start_jitter_s = 0.1
[traffic.schedule]
kind = "constant"
flows = 3
"#;

/// The scenario text of the `[measure]` window, as the canonical text writes it.
fn window_line(text: &str, pairs: &[(&str, &str)]) -> String {
    let canonical = sim::resolve_scenario(text, &sets(pairs)).unwrap();
    canonical
        .lines()
        .find(|l| l.starts_with("window = "))
        .unwrap_or_else(|| panic!("no window in {canonical}"))
        .to_string()
}

#[test]
fn seeds_cover_every_u64_and_round_trip() {
    for seed in [u64::MAX, 1 << 63, (1 << 63) - 1, 0] {
        let run = sim::run_scenario(OK, &[], Some(seed), |_| Ok::<(), Infallible>(())).unwrap();
        assert_eq!(run.seed, seed);
        let again = sim::resolve_scenario(&run.scenario_toml, &[]).unwrap();
        assert_eq!(again, run.scenario_toml, "seed {seed}: same canonical text");
        let rerun = sim::run_scenario(&again, &[], None, |_| Ok::<(), Infallible>(())).unwrap();
        assert_eq!(rerun.seed, seed);
        // Debug text, so that NaN metrics compare equal.
        assert_eq!(
            format!("{:?}", rerun.summary),
            format!("{:?}", run.summary),
            "seed {seed}: same run"
        );
    }
    let text = sim::resolve_scenario(OK, &sets(&[("seed", "18446744073709551615")])).unwrap();
    assert!(text.contains("seed = \"18446744073709551615\""), "{text}");
    let text = sim::resolve_scenario(OK, &sets(&[("seed", "\"42\"")])).unwrap();
    assert!(text.contains("seed = 42\n"), "{text}");
}

#[test]
fn bad_seeds_name_both_forms() {
    let allowed = "seed: must be an integer in [0, 9223372036854775807] or a string of decimal \
                   digits in [0, 18446744073709551615]";
    assert_eq!(err(OK, &[("seed", "-1")]), format!("{allowed}, got -1"));
    assert_eq!(
        err(OK, &[("seed", "\"-1\"")]),
        format!("{allowed}, got \"-1\"")
    );
    assert_eq!(
        err(OK, &[("seed", "18446744073709551616")]),
        format!("{allowed}, got \"18446744073709551616\"")
    );
    assert_eq!(
        err(OK, &[("seed", "abc")]),
        format!("{allowed}, got \"abc\"")
    );
    assert_eq!(err(OK, &[("seed", "\"\"")]), format!("{allowed}, got \"\""));
    assert_eq!(
        err(OK, &[("seed", "1.5")]),
        format!("{allowed}, got a float")
    );
}

#[test]
fn windows_follow_the_run() {
    assert_eq!(window_line(OK, &[]), "window = [0.0, 2.0]");
    let second_half = [("measure.window", "second_half")];
    assert_eq!(window_line(OK, &second_half), "window = [1.0, 2.0]");
    let longer = [("measure.window", "second_half"), ("duration_s", "10")];
    assert_eq!(window_line(OK, &longer), "window = [5.0, 10.0]");
    let last = [("measure.window", "\"last 0.5 s\"")];
    assert_eq!(window_line(OK, &last), "window = [1.5, 2.0]");
    let first = [("measure.window", "\"first 0.5 s\"")];
    assert_eq!(window_line(OK, &first), "window = [0.0, 0.5]");
    let pct = [("measure.window", "\"last 25%\"")];
    assert_eq!(window_line(OK, &pct), "window = [1.5, 2.0]");
    let text = format!("{OK}\n[measure]\nwindow = \"last 50%\"\n");
    assert_eq!(
        window_line(&text, &[("duration_s", "250")]),
        "window = [125.0, 250.0]"
    );
    // The canonical text reruns with the same window.
    let canonical = sim::resolve_scenario(&text, &[]).unwrap();
    assert_eq!(sim::resolve_scenario(&canonical, &[]).unwrap(), canonical);
}

#[test]
fn absolute_windows_that_do_not_fit_say_where_they_came_from() {
    let text = format!("{OK}\n[measure]\nwindow = [125, 250]\n");
    assert_eq!(
        err(&text, &[("duration_s", "100")]),
        "measure.window: [125, 250] s (from the scenario text) ends after duration_s = 100 \
         (from an override); use a window relative to the run such as \"second_half\" or \
         \"last 50 s\""
    );
    assert_eq!(
        err(OK, &[("measure.window", "[1, 3]")]),
        "measure.window: [1, 3] s (from an override) ends after duration_s = 2 (from the \
         scenario text); use a window relative to the run such as \"second_half\" or \"last 1 s\""
    );
    assert_eq!(
        err(&text.replace("duration_s = 2.0", "duration_s = 200.0"), &[]),
        "measure.window: [125, 250] s (from the scenario text) ends after duration_s = 200; use \
         a window relative to the run such as \"second_half\" or \"last 125 s\""
    );
    assert_eq!(
        err(OK, &[("measure.window", "\"last 5 s\"")]),
        "measure.window: \"last 5 s\": X must be a number of seconds in (0, 2] (duration_s)"
    );
    assert_eq!(
        err(OK, &[("measure.window", "middle")]),
        "measure.window: unknown form \"middle\"; allowed: [start_s, end_s], \"all\", \
         \"second_half\", \"last X s\", \"first X s\", \"last P%\""
    );
}

#[test]
fn the_sample_interval_is_bounded() {
    assert_eq!(
        err(
            OK,
            &[
                ("measure.sample_interval_ms", "1e-300"),
                ("duration_s", "250")
            ]
        ),
        "measure.sample_interval_ms: must be >= 0.001 ms and give at most 10000000 samples over \
         duration_s = 250 (>= 0.025 ms here)"
    );
    assert!(sim::resolve_scenario(OK, &sets(&[("measure.sample_interval_ms", "0.001")])).is_ok());
}

#[test]
fn traced_flows_must_exist() {
    assert_eq!(
        err(OK, &[("measure.cwnd_flows", "[0, 5000]")]),
        "measure.cwnd_flows[1]: must be a flow number in 0..2 (the run has 3 flows), got 5000"
    );
    assert_eq!(
        err(OK, &[("measure.cwnd_flows", "[1.7]")]),
        "measure.cwnd_flows[0]: must be a flow number in 0..2 (the run has 3 flows), got a float"
    );
    let steps = "duration_s = 10\n[traffic.schedule]\nkind = \"betared_steps\"\nn_base = 0\n\
                 n_max = 5\n";
    let canonical = sim::resolve_scenario(steps, &[]).unwrap();
    assert!(canonical.contains("cwnd_flows = []"), "{canonical}");
    assert!(err(steps, &[("measure.cwnd_flows", "[0]")]).contains("the run has no flows"));
    // A scenario built in code is checked against its flows too.
    let mut sc = sim::scenario::load(OK, &[]).unwrap();
    sc.measure.cwnd_flows = vec![3];
    let e = sim::Simulation::new(sc)
        .err()
        .expect("flow 3 of 3 is rejected");
    assert_eq!(e.path, "measure.cwnd_flows[0]");
}

#[test]
fn scenarios_built_in_code_are_checked_like_text() {
    let mut sc = sim::scenario::load(OK, &[]).unwrap();
    sc.duration_s = 1e300;
    let e = sim::Simulation::new(sc)
        .err()
        .expect("a run of 1e300 s is rejected");
    assert_eq!(e.path, "duration_s");
    let mut sc = sim::scenario::load(OK, &[]).unwrap();
    if let sim::scenario::Topology::Dumbbell(d) = &mut sc.topology {
        d.bottleneck_rate_mbps = 0.0;
    }
    let aqm = Box::new(aqm::DropTail);
    let e = sim::Simulation::with_aqm(sc, aqm)
        .err()
        .expect("a rate of 0 is rejected");
    assert_eq!(e.path, "topology.bottleneck_rate_mbps");
    let mut sc = sim::scenario::load(OK, &[]).unwrap();
    sc.seed = u64::MAX;
    assert!(sim::Simulation::new(sc).is_ok());
}

#[test]
fn link_rates_fit_the_nanosecond_clock() {
    for (key, value) in [
        ("topology.bottleneck_rate_mbps", "1e-9"),
        ("topology.bottleneck_rate_mbps", "1e-300"),
        ("topology.access_rate_mbps", "1e-300"),
        ("topology.access_rate_mbps", "1e9"),
    ] {
        assert_eq!(
            err(OK, &[(key, value)]),
            format!(
                "{key}: must be a number in [0.000001, 832000]: below, the rate rounds to 0 b/s; \
                 above, a 52-byte packet's transmission time rounds to 0 ns"
            )
        );
    }
    let slowest = sets(&[
        ("topology.bottleneck_rate_mbps", "0.000001"),
        ("duration_s", "0.01"),
    ]);
    sim::run_scenario(OK, &slowest, None, |_| Ok::<(), Infallible>(())).unwrap();
    let fastest = sets(&[
        ("topology.access_rate_mbps", "832000"),
        ("duration_s", "0.01"),
    ]);
    sim::run_scenario(OK, &fastest, None, |_| Ok::<(), Infallible>(())).unwrap();
}

#[test]
fn times_beyond_the_clock_are_rejected() {
    for (key, value) in [
        ("duration_s", "1e300"),
        ("topology.bottleneck_delay_ms", "1e300"),
        ("topology.sender_delay_ms", "1e300"),
        ("topology.receiver_delay_ms", "{ uniform = [0, 1e300] }"),
        ("topology.receiver_delay_ms", "{ list = [1, 1e300] }"),
        ("tcp.min_rto_s", "1e-300"),
        ("tcp.max_rto_s", "1e300"),
        ("tcp.initial_rto_s", "1e300"),
        ("tcp.delack_timeout_ms", "1e-300"),
        ("tcp.clock_granularity_s", "1e300"),
        ("traffic.start_jitter_s", "1e300"),
        ("queue.ared.interval_s", "1e-300"),
        ("queue.abetared.t_update_s", "1e300"),
    ] {
        let line = err(OK, &[(key, value)]);
        assert!(line.starts_with(key), "{key} = {value}: {line}");
    }
    let events = "duration_s = 10\n[traffic.schedule]\nkind = \"events\"\nevents = [\
                  { t_s = 0, add = 1000000 }, { t_s = 1, add = 1 }]\n";
    assert_eq!(
        err(events, &[]),
        "traffic.schedule.events[1].add: brings the run to more than 1000000 flows"
    );
}
