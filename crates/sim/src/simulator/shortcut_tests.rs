//! The ways the simulator skips events whose outcome is known in advance change nothing but
//! the event count: closed-form hops (`hops.rs`), in-order managed ports and the other managed
//! ports' late ends of transmission (`crate::net::managed_port`), receivers that take
//! packets early and senders that take their acknowledgements early (`early.rs`). Each case
//! runs with and without the shortcut and compares every table, on fixed links and on links
//! whose rate changes during the run.

use super::Simulation;
use crate::net::network::{Node, PortQueue};
use crate::result::{RunResult, Value};

/// Which shortcuts a run takes.
#[derive(Clone, Copy)]
struct Shortcuts {
    closed_form_hops: bool,
    in_order_ports: bool,
    late_ends: bool,
    early_receivers: bool,
    early_senders: bool,
}

const ALL: Shortcuts = Shortcuts {
    closed_form_hops: true,
    in_order_ports: true,
    late_ends: true,
    early_receivers: true,
    early_senders: true,
};

/// `text` run to the end with `shortcuts`: its summary without the event count, its tables,
/// and the event count.
fn run(text: &str, sets: &[(&str, &str)], shortcuts: Shortcuts) -> (RunResult, u64) {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let scenario = crate::scenario::load(text, &sets).unwrap();
    let mut sim = Simulation::new(scenario).unwrap();
    for port in &mut sim.net.ports {
        if !shortcuts.closed_form_hops {
            port.shortcuts.sole_input = None;
        }
        if !shortcuts.early_receivers {
            port.shortcuts.early_receiver = false;
        }
        if !shortcuts.early_senders {
            port.shortcuts.early_sender = false;
        }
        if let PortQueue::Managed(m) = &mut port.queue {
            if !shortcuts.in_order_ports {
                m.never_in_order();
            }
            if !shortcuts.late_ends {
                m.never_late();
            }
        }
    }
    let mut result = sim.run(|_| Ok::<(), ()>(())).unwrap();
    let at = result
        .summary
        .iter()
        .position(|(k, _)| k == "events")
        .unwrap();
    let Value::Int(events) = result.summary.remove(at).1 else {
        panic!("the event count is an integer")
    };
    (result, events)
}

/// Runs `cases` with every shortcut and with `without`'s, and checks that the tables are the
/// same and the shortcuts save events.
fn same_tables_fewer_events(cases: &[(&str, &[(&str, &str)])], without: Shortcuts) {
    for &(text, sets) in cases {
        let (with, fewer) = run(text, sets, ALL);
        let (plain, more) = run(text, sets, without);
        // As text, so that a NaN (a metric without samples) equals itself.
        let text = |r: &RunResult| {
            format!(
                "{:?}",
                (
                    (&r.summary, &r.flows, &r.groups, &r.fct),
                    (&r.timeseries, &r.port_timeseries, &r.ports),
                    (&r.cwnd, &r.probes),
                )
            )
        };
        assert_eq!(text(&with), text(&plain), "{sets:?}");
        assert!(fewer < more, "{fewer} events with, {more} without");
    }
}

const STEPS: &str = include_str!("../../../../experiments/betared/scenario2.toml");
const SHORT_FLOWS: &str = include_str!("../../../../experiments/chen2011/table1_short_flows.toml");
const UDP_ONOFF: &str =
    include_str!("../../../../experiments/li2014/table14_tcp_with_udp_onoff.toml");
const COEXISTENCE: &str = include_str!("../../../../experiments/l4s/scenarios/coexistence.toml");
const RRUL: &str = include_str!("../../../../experiments/fq/scenarios/rrul.toml");
const DUMBBELL: &str = include_str!("../../../../experiments/betared/scenario1.toml");
const CHAIN: &str = include_str!("../../../../experiments/li2014/table15_16_two_bottlenecks.toml");
/// Five bulk flows and finite ones (Pareto sizes) arriving as a Poisson process.
const FINITE: &str = r#"
duration_s = 4.0
[topology]
bottleneck_rate_mbps = 10.0
[[traffic.groups]]
name = "bulk"
[traffic.groups.schedule]
kind = "constant"
flows = 5
[[traffic.groups]]
name = "web"
[traffic.groups.source]
kind = "finite"
size = { kind = "pareto", mean_bytes = 30000.0, shape = 1.5 }
[traffic.groups.schedule]
kind = "poisson"
rate_per_s = 20.0
"#;

#[test]
fn closed_form_hops_change_nothing_but_the_event_count() {
    same_tables_fewer_events(
        &[
            (
                DUMBBELL,
                &[("duration_s", "8"), ("traffic.schedule.flows", "40")],
            ),
            (
                DUMBBELL,
                &[
                    ("duration_s", "8"),
                    ("traffic.schedule.flows", "40"),
                    ("queue.aqm", "fq_codel"),
                ],
            ),
            (CHAIN, &[("duration_s", "4"), ("queue.aqm", "pi")]),
        ],
        Shortcuts {
            closed_form_hops: false,
            ..ALL
        },
    );
}

#[test]
fn in_order_ports_change_nothing_but_the_event_count() {
    let short = [("duration_s", "8"), ("traffic.schedule.flows", "40")];
    let with = |aqm: &'static str| -> Vec<(&'static str, &'static str)> {
        let mut sets = short.to_vec();
        sets.push(("queue.aqm", aqm));
        sets
    };
    let (droptail, ared, pie) = (with("droptail"), with("ared"), with("pie"));
    let mut red_ecn = with("red");
    red_ecn.push(("queue.ecn", "true"));
    same_tables_fewer_events(
        &[
            (DUMBBELL, &droptail),
            (DUMBBELL, &ared),
            (DUMBBELL, &pie),
            (DUMBBELL, &red_ecn),
            (CHAIN, &[("duration_s", "4"), ("queue.aqm", "pi")]),
        ],
        Shortcuts {
            in_order_ports: false,
            ..ALL
        },
    );
}

#[test]
fn late_ends_of_transmission_change_nothing_but_the_event_count() {
    let short = [("duration_s", "6"), ("traffic.schedule.flows", "40")];
    let with = |more: &[(&'static str, &'static str)]| -> Vec<(&'static str, &'static str)> {
        [&short[..], more].concat()
    };
    let codel = with(&[("queue.aqm", "codel")]);
    let fq_codel_ecn = with(&[
        ("queue.aqm", "fq_codel"),
        ("queue.ecn", "true"),
        ("tcp.ecn", "true"),
    ]);
    let fq_pie = with(&[("queue.aqm", "fq_pie")]);
    let cobalt_varying = with(&[
        ("queue.aqm", "cobalt"),
        (
            "topology.bottleneck_rate_schedule",
            "{ every_s = 0.1, rates_mbps = [10.0, 50.0] }",
        ),
    ]);
    // Shapers make the port wait with packets queued: CAKE's own and a token bucket.
    let cake_shaped = with(&[("queue.aqm", "cake"), ("queue.cake.rate_mbps", "30")]);
    let codel_tbf = with(&[("queue.aqm", "codel"), ("queue.tbf.rate_mbps", "20")]);
    let fq_pie_bands = with(&[("queue.aqm", "fq_pie"), ("queue.prio.bands", "3")]);
    same_tables_fewer_events(
        &[
            (DUMBBELL, &codel),
            (DUMBBELL, &fq_codel_ecn),
            (DUMBBELL, &fq_pie),
            (DUMBBELL, &cobalt_varying),
            (DUMBBELL, &cake_shaped),
            (DUMBBELL, &codel_tbf),
            (DUMBBELL, &fq_pie_bands),
            (
                RRUL,
                &[
                    ("duration_s", "6"),
                    ("measure.window", "\"last 3 s\""),
                    ("queue.aqm", "fq_codel"),
                ],
            ),
            (
                COEXISTENCE,
                &[("duration_s", "6"), ("measure.window", "\"last 3 s\"")],
            ),
        ],
        Shortcuts {
            late_ends: false,
            ..ALL
        },
    );
}

#[test]
fn early_receivers_change_nothing_but_the_event_count() {
    // Flows joining and leaving (BetaRED's steps, scaled down), finite flows stopped by their
    // application (ECN Reno through RED), UDP on/off sources beside TCP, DCTCP with ECT(1)
    // beside CUBIC through DualPI2 (cases with a managed port that is not in order), and the
    // RRUL-like test (hosts with several endpoints, which take their packets as events).
    let steps: &[(&str, &str)] = &[
        ("traffic.schedule.n_base", "10"),
        ("traffic.schedule.n_mid", "20"),
        ("traffic.schedule.n_max", "40"),
    ];
    let short = |s: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![("duration_s", s), ("measure.window", "\"last 3 s\"")]
    };
    let mut dual = short("6");
    dual.push(("queue.aqm", "dualpi2"));
    let mut fq = short("6");
    fq.push(("queue.aqm", "fq_codel"));
    // Many flows on a slow link: a few packets per RTT each, so that delayed-ACK deadlines
    // expire while a packet is on its way.
    let crowded: &[(&str, &str)] = &[
        ("duration_s", "10"),
        ("traffic.schedule.flows", "200"),
        ("topology.bottleneck_rate_mbps", "5"),
    ];
    same_tables_fewer_events(
        &[
            (DUMBBELL, crowded),
            (STEPS, steps),
            (
                SHORT_FLOWS,
                &[
                    ("duration_s", "6"),
                    ("traffic.groups[1].schedule.start_window_s", "[0.0, 4.0]"),
                ],
            ),
            (UDP_ONOFF, &short("6")),
            (COEXISTENCE, &dual),
            (COEXISTENCE, &fq),
            (RRUL, &short("6")),
        ],
        Shortcuts {
            early_receivers: false,
            ..ALL
        },
    );
}

#[test]
fn early_senders_change_nothing_but_the_event_count() {
    // The dumbbell crowded on a slow link (timeouts as well as fast recovery), its flows'
    // windows traced (those senders take every acknowledgement as an event), flows that stop
    // (BetaRED's steps, scaled down, and Chen 2011's short-lived flows), paced senders (BBR;
    // CUBIC with pacing), finite flows (which keep their events), DCTCP and CUBIC through
    // DualPI2, UDP beside TCP, the RRUL-like test (hosts with several endpoints) and the chain
    // of two bottlenecks.
    let crowded: &[(&str, &str)] = &[
        ("duration_s", "10"),
        ("traffic.schedule.flows", "200"),
        ("topology.bottleneck_rate_mbps", "5"),
        ("queue.limit_pkts", "30"),
    ];
    let traced: &[(&str, &str)] = &[
        ("duration_s", "6"),
        ("traffic.schedule.flows", "20"),
        ("measure.cwnd_flows", "[0, 3, 7]"),
    ];
    let steps: &[(&str, &str)] = &[
        ("traffic.schedule.n_base", "10"),
        ("traffic.schedule.n_mid", "20"),
        ("traffic.schedule.n_max", "40"),
    ];
    let paced = |cc: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("duration_s", "6"),
            ("traffic.schedule.flows", "30"),
            ("tcp.cc", cc),
            ("tcp.pacing", "true"),
        ]
    };
    let (bbr, cubic_paced) = (paced("bbr"), paced("cubic"));
    let short = |s: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![("duration_s", s), ("measure.window", "\"last 3 s\"")]
    };
    let mut dual = short("6");
    dual.push(("queue.aqm", "dualpi2"));
    same_tables_fewer_events(
        &[
            (DUMBBELL, crowded),
            (DUMBBELL, traced),
            (STEPS, steps),
            (DUMBBELL, &bbr),
            (DUMBBELL, &cubic_paced),
            (
                SHORT_FLOWS,
                &[
                    ("duration_s", "6"),
                    ("traffic.groups[1].schedule.start_window_s", "[0.0, 4.0]"),
                ],
            ),
            (FINITE, &[]),
            (COEXISTENCE, &dual),
            (UDP_ONOFF, &short("6")),
            (RRUL, &short("6")),
            (CHAIN, &[("duration_s", "4"), ("queue.aqm", "pi")]),
        ],
        Shortcuts {
            early_senders: false,
            ..ALL
        },
    );
}

#[test]
fn early_senders_are_alone_on_their_hosts_unbounded_and_untraced() {
    let sets = [
        ("traffic.schedule.flows".to_string(), "10".to_string()),
        ("measure.cwnd_flows".to_string(), "[2]".to_string()),
    ];
    let sim = Simulation::new(crate::scenario::load(DUMBBELL, &sets).unwrap()).unwrap();
    let early: Vec<u32> = (0..sim.flows.len() as u32)
        .filter(|&f| {
            let host = sim.flows[f as usize].ends.sender;
            sim.net
                .ports
                .iter()
                .any(|p| p.to_node == host && p.shortcuts.early_sender)
        })
        .collect();
    assert_eq!(
        early,
        [0, 1, 3, 4, 5, 6, 7, 8, 9],
        "every sender but the traced one"
    );
    let finite = crate::scenario::load(FINITE, &[]).unwrap();
    let sim = Simulation::new(finite).unwrap();
    let traced = &sim.scenario.measure.cwnd_flows;
    let (mut bulk, mut finite) = (0, 0);
    for (id, f) in (0u32..).zip(&sim.flows) {
        let mut ports_to_sender = sim.net.ports.iter().filter(|p| p.to_node == f.ends.sender);
        let early = ports_to_sender.any(|p| p.shortcuts.early_sender);
        let unbounded = f.plan.size_bytes.is_none();
        assert_eq!(early, unbounded && !traced.contains(&id), "flow {id}");
        if unbounded {
            bulk += 1;
        } else {
            finite += 1;
        }
    }
    assert!(
        bulk > 1 && finite > 1,
        "{bulk} unbounded flows, {finite} finite ones"
    );
}

#[test]
fn rate_schedules_keep_every_shortcut_exact() {
    // The dumbbell's bottleneck slows from 50 to 20 Mb/s at 2 s and speeds up to 60 at 4 s,
    // under an in-order port (drop tail, RED) and one that decides at dequeue (CoDel). On the
    // chain, link C - D drops from 100 to 30 Mb/s (becoming the bottleneck) and back: its
    // reverse port D -> C, drop tail and fed by E -> D alone, is a closed-form hop, and its
    // forward port an in-order one.
    let dumbbell = |aqm: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![
            ("duration_s", "6"),
            ("traffic.schedule.flows", "40"),
            (
                "topology.bottleneck_rate_schedule",
                "[[2.0, 20.0], [4.0, 60.0]]",
            ),
            ("queue.aqm", aqm),
        ]
    };
    let (droptail, red, codel) = (dumbbell("droptail"), dumbbell("red"), dumbbell("codel"));
    let chain: &[(&str, &str)] = &[
        ("duration_s", "4"),
        ("queue.aqm", "pi"),
        (
            "topology.links[1].rate_schedule",
            "[[1.0, 30.0], [2.5, 100.0]]",
        ),
    ];
    let in_order: [(&str, &[(&str, &str)]); 3] =
        [(DUMBBELL, &droptail), (DUMBBELL, &red), (CHAIN, chain)];
    let all = [in_order[0], in_order[1], (DUMBBELL, &codel), in_order[2]];
    let without = |shortcuts: fn(&mut Shortcuts)| {
        let mut s = ALL;
        shortcuts(&mut s);
        s
    };
    same_tables_fewer_events(&all, without(|s| s.closed_form_hops = false));
    // A CoDel port is never in order: nothing to save there.
    same_tables_fewer_events(&in_order, without(|s| s.in_order_ports = false));
    same_tables_fewer_events(&all, without(|s| s.early_receivers = false));
    same_tables_fewer_events(&all, without(|s| s.early_senders = false));
}

#[test]
fn only_a_single_queue_whose_aqm_never_decides_at_dequeue_is_in_order() {
    for (aqm, in_order) in [
        ("red", true),
        ("pie", true),
        ("codel", false),
        ("fq_pie", false),
    ] {
        let sets = [("queue.aqm".to_string(), aqm.to_string())];
        let sim = Simulation::new(crate::scenario::load(DUMBBELL, &sets).unwrap()).unwrap();
        let bottleneck = sim.measured[sim.summary_port].port;
        let m = sim.net.managed(bottleneck).unwrap();
        assert_eq!(m.in_order(), in_order, "{aqm}");
    }
}

#[test]
fn only_a_routers_drop_tail_port_fed_by_one_link_qualifies() {
    let scenario = crate::scenario::load(DUMBBELL, &[]).unwrap();
    let sim = Simulation::new(scenario).unwrap();
    let fed: Vec<(usize, u32)> = (0..sim.net.ports.len())
        .filter_map(|p| Some((p, sim.net.ports[p].shortcuts.sole_input?)))
        .collect();
    // In the dumbbell, each flow's receiver access port and sender access port (on the way
    // back) qualify; the bottleneck (managed, fed by every sender) and hosts' ports do not.
    assert_eq!(fed.len(), 2 * sim.flows.len());
    for (p, input) in fed {
        let port = &sim.net.ports[p];
        assert!(matches!(port.queue, PortQueue::Fifo(_)));
        assert!(matches!(
            sim.net.nodes[sim.net.ports[input as usize].to_node as usize],
            Node::Router { .. }
        ));
    }
}
