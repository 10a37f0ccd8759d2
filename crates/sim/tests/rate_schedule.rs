//! Links whose rate changes during the run (`topology.bottleneck_rate_schedule`,
//! `topology.links[i].rate_schedule`): the bottleneck sends at each rate of its schedule, a
//! change alters nothing before its time, runs keep their invariants and repeat byte for
//! byte, and the AQM keeps the rate it was built with.

mod common;

use aqm::{Aqm, EnqueueVerdict, PacketView, QueueView, Rng};
use common::{check_invariants, check_port_invariants, col, m, run_with};
use sim::result::{Column, RunResult};
use sim::Simulation;
use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

/// 30 flows through a 10 Mb/s drop-tail bottleneck that runs at 5 Mb/s from 10 s to 20 s.
const STEPS: &str = r#"
duration_s = 30.0
seed = 3
[topology]
bottleneck_rate_mbps = 10.0
bottleneck_rate_schedule = [[10.0, 5.0], [20.0, 10.0]]
bottleneck_delay_ms = 10.0
sender_delay_ms = { uniform = [1.0, 20.0] }
[queue]
aqm = "droptail"
limit_pkts = 200
[traffic]
start_jitter_s = 0.5
[traffic.schedule]
kind = "constant"
flows = 30
[measure]
sample_interval_ms = 100.0
"#;

/// A chain A - B - C whose first link slows from 20 to 8 Mb/s at 3 s and speeds up to 12 at
/// 6 s, its reverse port managed too; the second link is fixed at 10 Mb/s.
const CHAIN: &str = r#"
duration_s = 10.0
seed = 5
[topology]
kind = "chain"
routers = ["A", "B", "C"]
[[topology.links]]
rate_mbps = 20.0
rate_schedule = [[3.0, 8.0], [6.0, 12.0]]
delay_ms = 5.0
reverse_queue = { aqm = "codel" }
[[topology.links]]
rate_mbps = 10.0
delay_ms = 5.0
[queue]
aqm = "red"
limit_pkts = 150
[queue.red]
q_min_pkts = 15.0
q_max_pkts = 45.0
[[traffic.groups]]
[traffic.groups.schedule]
kind = "constant"
flows = 20
[[traffic.groups]]
path = ["C", "A"]
[traffic.groups.schedule]
kind = "constant"
flows = 5
"#;

/// The bottleneck's throughput over [a, b] s, Mb/s: the bytes of the packets it started to
/// send in the window, over the window.
fn throughput_mbps(window: [f64; 2]) -> f64 {
    let r = run_with(STEPS, &[("measure.window", &format!("{window:?}"))]);
    col(&r.ports, "throughput_mbps")[0]
}

#[test]
fn the_bottleneck_sends_at_each_rate_of_its_schedule() {
    // Each interval starts 2 s after a change, once the flows have filled the new rate (the
    // buffer drains within half a second after the rate doubles).
    for (window, rate_mbps) in [
        ([2.0, 10.0], 10.0),
        ([12.0, 20.0], 5.0),
        ([22.0, 30.0], 10.0),
    ] {
        let got = throughput_mbps(window);
        assert!(
            (got / rate_mbps - 1.0).abs() < 0.01,
            "{window:?}: {got} Mb/s, the schedule says {rate_mbps}"
        );
    }
}

#[test]
fn a_change_alters_nothing_before_its_time() {
    let fixed = run_with(STEPS, &[("topology.bottleneck_rate_schedule", "[]")]);
    let changing = run_with(STEPS, &[]);
    // The samples up to 10 s are the same; the next ones differ (the link is slower).
    let rows = |r: &RunResult, upto_s: f64| -> String {
        let t = col(&r.timeseries, "t_s");
        let n = t.iter().take_while(|&&t| t <= upto_s).count();
        r.timeseries
            .columns
            .iter()
            .map(|(name, c)| match c {
                Column::Floats(v) => format!("{name}{:?}", &v[..n]),
                Column::Ints(v) => format!("{name}{:?}", &v[..n]),
                Column::Texts(v) => format!("{name}{:?}", &v[..n]),
            })
            .collect()
    };
    assert_eq!(rows(&fixed, 10.0), rows(&changing, 10.0));
    assert_ne!(rows(&fixed, 11.0), rows(&changing, 11.0));
}

#[test]
fn runs_with_a_schedule_keep_their_invariants_and_repeat() {
    for aqm in ["droptail", "red", "pie", "codel", "fq_codel"] {
        let sets = [("queue.aqm", aqm), ("duration_s", "24")];
        let r = run_with(STEPS, &sets);
        // The fastest rate of the schedule bounds what the bottleneck sends.
        check_invariants(&r, 200.0, 10e6, 1000.0);
        check_port_invariants(&r, &[200.0]);
        assert!(
            m(&r, "link_efficiency") > 0.8,
            "{aqm}: the flows fill the link"
        );
        let again = run_with(STEPS, &sets);
        assert_eq!(format!("{r:?}"), format!("{again:?}"), "{aqm}: repeats");
    }
    let r = run_with(CHAIN, &[]);
    check_invariants(&r, 150.0, 20e6, 1000.0);
    check_port_invariants(&r, &[150.0, 150.0, 150.0]);
    assert_eq!(format!("{r:?}"), format!("{:?}", run_with(CHAIN, &[])));
}

#[test]
fn a_link_slowed_below_the_next_becomes_the_bottleneck() {
    // From 2 s on, link 0 (5 Mb/s, drop tail) is slower than link 1 (10 Mb/s): its forward
    // port, lightly used before, is busy nearly all the time at 5 Mb/s, with a standing queue.
    let sets = |schedule: &'static str| {
        [
            ("topology.links[0].rate_schedule", schedule),
            ("topology.links[0].queue", "{ aqm = \"droptail\" }"),
            ("measure.window", "[3.0, 10.0]"),
        ]
    };
    let fixed = run_with(CHAIN, &sets("[]"));
    let slowed = run_with(CHAIN, &sets("[[2.0, 5.0]]"));
    let port0 = |r: &RunResult, c: &str| col(&r.ports, c)[0];
    assert!(port0(&fixed, "link_efficiency") < 0.6);
    assert!(port0(&slowed, "link_efficiency") > 0.98);
    // At most 5 Mb/s over the 7 s, and one packet started before the window's end.
    let sent = port0(&slowed, "throughput_mbps");
    assert!((4.9..=5.0 + 8e3 / 7.0 / 1e6).contains(&sent), "{sent} Mb/s");
    assert!(port0(&slowed, "avg_queue_pkts") > 2.0 * port0(&fixed, "avg_queue_pkts"));
}

/// What the AQM heard of its link's rate.
#[derive(Default)]
struct RatesSeen {
    min_bps: Option<f64>,
    max_bps: f64,
}

/// Accepts every packet, noting the link rate each decision is told of.
struct RateWitness(Rc<RefCell<RatesSeen>>);

impl Aqm for RateWitness {
    fn name(&self) -> &'static str {
        "rate-witness"
    }
    fn on_enqueue(&mut self, _: u64, _: PacketView, q: &QueueView, _: &mut Rng) -> EnqueueVerdict {
        let mut s = self.0.borrow_mut();
        s.min_bps = Some(s.min_bps.map_or(q.rate_bps, |x| x.min(q.rate_bps)));
        s.max_bps = s.max_bps.max(q.rate_bps);
        EnqueueVerdict::Accept
    }
    fn decides_at_dequeue(&self) -> bool {
        false
    }
    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
    fn probe(&self, _: &mut Vec<f64>) {}
}

#[test]
fn the_aqm_keeps_the_rate_it_was_built_with() {
    let seen = Rc::new(RefCell::new(RatesSeen::default()));
    let sc = sim::scenario::load(STEPS, &[]).unwrap();
    let r = Simulation::with_aqm(sc, Box::new(RateWitness(seen.clone())))
        .unwrap()
        .run(|_| Ok::<(), Infallible>(()))
        .unwrap();
    let s = seen.borrow();
    assert_eq!((s.min_bps, s.max_bps), (Some(10e6), 10e6));
    // The per-port table gives the rate the link starts with, its `rate_mbps`.
    assert_eq!(col(&r.ports, "rate_mbps"), [10.0]);
}

#[test]
fn a_periodic_schedule_is_the_pairs_it_stands_for() {
    let key = "topology.bottleneck_rate_schedule";
    let resolve = |value: &str| sim::resolve_scenario(STEPS, &[(key.into(), value.into())]);
    let periodic =
        resolve("{ every_s = 0.1, rates_mbps = [5.0, 10.0], from_s = 0.2, to_s = 0.6 }").unwrap();
    let pairs = resolve("[[0.2, 5.0], [0.3, 10.0], [0.4, 5.0], [0.5, 10.0], [0.6, 5.0]]").unwrap();
    assert_eq!(periodic, pairs, "the canonical text writes the pairs out");
    assert_eq!(sim::resolve_scenario(&periodic, &[]).unwrap(), periodic);
    // By default the first change comes one period in and the last at the end of the run:
    // 10 s every 2.5 s gives 2.5, 5, 7.5 and 10 s.
    let short = sim::resolve_scenario(
        STEPS,
        &[
            ("duration_s".into(), "10".into()),
            (
                key.into(),
                "{ every_s = 2.5, rates_mbps = [5.0, 10.0, 2.0] }".into(),
            ),
        ],
    )
    .unwrap();
    assert!(
        short.contains(
            "bottleneck_rate_schedule = [[2.5, 5.0], [5.0, 10.0], [7.5, 2.0], [10.0, 5.0]]"
        ),
        "{short}"
    );
    // The 100 ms alternation of RFC 7928 §8.2.6 over the whole 30 s run: 300 changes, each
    // exactly 0.1 s after the one before in whole nanoseconds.
    let fast = resolve("{ every_s = 0.1, rates_mbps = [5.0, 10.0] }").unwrap();
    assert!(
        fast.contains("[0.1, 5.0], [0.2, 10.0], [0.3, 5.0]"),
        "{fast}"
    );
    assert!(fast.contains("[29.9, 5.0], [30.0, 10.0]]"), "{fast}");
    let r = run_with(
        STEPS,
        &[(key, "{ every_s = 0.1, rates_mbps = [5.0, 10.0] }")],
    );
    check_invariants(&r, 200.0, 10e6, 1000.0);
    check_port_invariants(&r, &[200.0]);
    let throughput = col(&r.ports, "throughput_mbps")[0];
    assert!(
        (5.0..=7.6).contains(&throughput),
        "half the time at 5 Mb/s, half at 10: {throughput} Mb/s"
    );
}

#[test]
fn the_canonical_text_keeps_a_schedule_and_only_when_set() {
    let text = sim::resolve_scenario(STEPS, &[]).unwrap();
    assert!(
        text.contains("bottleneck_rate_schedule = [[10.0, 5.0], [20.0, 10.0]]"),
        "{text}"
    );
    let again = sim::resolve_scenario(&text, &[]).unwrap();
    assert_eq!(text, again, "the canonical text reads back to itself");
    let none = sim::resolve_scenario(
        STEPS,
        &[("topology.bottleneck_rate_schedule".into(), "[]".into())],
    )
    .unwrap();
    assert!(!none.contains("rate_schedule"), "{none}");
    let chain = sim::resolve_scenario(CHAIN, &[]).unwrap();
    assert!(
        chain.contains("rate_schedule = [[3.0, 8.0], [6.0, 12.0]]"),
        "{chain}"
    );
    assert_eq!(
        chain.matches("rate_schedule").count(),
        1,
        "only the first link has one"
    );
}
