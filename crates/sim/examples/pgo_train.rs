//! The training run of the profile-guided build (`pgo/build.sh`, docs/architecture.md, "The
//! profile-guided build"): short runs that take the simulator through every AQM of the
//! registry, every congestion control, ECN, pacing, both TCP presets and the scenario files'
//! topologies and traffic, so that no path users run is left out of the profile (code the
//! training never reaches is optimised as cold). The results are discarded; only the counts
//! the instrumented build writes matter.
//! `cargo run --release -p aqmlab-sim --example pgo_train -- EXPERIMENTS_DIR`.

use sim::tcp::cc::registry::CcKind;

const USAGE: &str = "usage: pgo_train EXPERIMENTS_DIR";

/// BetaRED scenario 2 shortened: all five phases (100, 200, 800, 200, 100 flows) in 20 s.
const STEPS: &str = "betared/scenario2.toml";
const SHORT_STEPS: &[(&str, &str)] = &[("duration_s", "20"), ("traffic.schedule.phase_s", "4")];

/// Features beyond the AQM and the congestion control, on the shortened scenario 2.
const FEATURES: &[&[(&str, &str)]] = &[
    &[("tcp.ecn", "true"), ("queue.aqm", "red")],
    &[("tcp.cc", "dctcp"), ("queue.aqm", "step")],
    &[("tcp.cc", "prague"), ("queue.aqm", "dualpi2")],
    &[("tcp.cc", "prague"), ("queue.aqm", "fq_codel")],
    &[("tcp.cc", "bbr"), ("queue.aqm", "fq_codel")],
    &[("tcp.pacing", "true")],
    &[("tcp.preset", "ns2")],
    &[("tcp.preset", "ns2"), ("queue.aqm", "red")],
];

/// The scenario files' topologies and traffic (chains, two bottlenecks, two-way traffic, UDP
/// sources, latency probes, mixed round trips), each for 10 s measured over the whole run.
const FILES: &[&str] = &[
    "betared/scenario1.toml",
    "chen2011/dumbbell.toml",
    "examples/triangle.toml",
    "fq/scenarios/mixed_rtt.toml",
    "fq/scenarios/rrul.toml",
    "fq/scenarios/udp_flood.toml",
    "l4s/scenarios/coexistence.toml",
    "li2014/single_bottleneck.toml",
    "li2014/table7_rtt_20_140ms.toml",
    "li2014/table13_rtt_500ms.toml",
    "li2014/table14_tcp_with_udp_onoff.toml",
    "li2014/table17_18_two_bottlenecks.toml",
    "rfc7928/scenarios/dumbbell.toml",
    "rfc7928/scenarios/two_bottlenecks.toml",
    "rfc7928/scenarios/two_way.toml",
];
const SHORT_FILE: &[(&str, &str)] = &[("duration_s", "10"), ("measure.window", "all")];

/// Run `file` (under `dir`) with `sets`; a failure ends the training with status 1.
fn train(dir: &std::path::Path, file: &str, sets: &[(&str, &str)]) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("pgo_train: cannot read '{}': {e}", path.display());
        std::process::exit(1);
    });
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    if let Err(e) = sim::run_scenario(&text, &sets, None, |_| Ok::<(), ()>(())) {
        let why = match e {
            sim::RunError::Scenario(e) => e.to_string(),
            sim::RunError::Aborted(()) => "aborted".to_owned(),
        };
        eprintln!("pgo_train: {file} {sets:?}: {why}");
        std::process::exit(1);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(&dir);
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut sets = SHORT_STEPS.to_vec();
        sets.extend_from_slice(extra);
        sets
    };
    for aqm in aqm::registry::names() {
        train(dir, STEPS, &with(&[("queue.aqm", aqm)]));
    }
    for cc in CcKind::NAMES {
        train(dir, STEPS, &with(&[("tcp.cc", cc)]));
    }
    for extra in FEATURES {
        train(dir, STEPS, &with(extra));
    }
    for file in FILES {
        train(dir, file, SHORT_FILE);
    }
}
