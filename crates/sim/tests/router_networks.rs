//! Networks of routers joined by any links (`kind = "network"`): routes take the fewest hops,
//! a flow's round trip follows its routes, a chain written as a network runs identically, and
//! a broken network (a link to a router that does not exist, a link from a router to itself,
//! two links between one pair, a router cut off) gives one line naming the key.

mod common;

use common::{assert_errors_start_with, check_port_invariants, col, error, m, port_names, run};

/// A square A - B - C - D - A with a diagonal A - C, each link with its own delay; `groups`
/// is the traffic.
fn square(groups: &str) -> String {
    format!(
        r#"
duration_s = 6.0
[topology]
kind = "network"
routers = ["A", "B", "C", "D"]
access_rate_mbps = 100.0
sender_delay_ms = 1.0
receiver_delay_ms = 2.0
[[topology.links]]
from = "A"
to = "B"
rate_mbps = 10.0
delay_ms = 3.0
[[topology.links]]
from = "B"
to = "C"
rate_mbps = 10.0
delay_ms = 5.0
[[topology.links]]
from = "C"
to = "D"
rate_mbps = 10.0
delay_ms = 7.0
reverse_queue = {{}}
[[topology.links]]
from = "D"
to = "A"
rate_mbps = 10.0
delay_ms = 11.0
[[topology.links]]
from = "A"
to = "C"
rate_mbps = 5.0
delay_ms = 40.0
queue = {{ aqm = "droptail", limit_pkts = 40 }}
[queue]
aqm = "red"
limit_pkts = 80
[traffic]
start_jitter_s = 0.2
{groups}
[measure]
window = "all"
"#
    )
}

fn group(name: &str, from: &str, to: &str, flows: u32) -> String {
    format!(
        "[[traffic.groups]]\nname = \"{name}\"\npath = [\"{from}\", \"{to}\"]\n\
         [traffic.groups.schedule]\nkind = \"constant\"\nflows = {flows}\n"
    )
}

#[test]
fn routes_take_the_fewest_hops_even_when_slower() {
    // A to C: one hop over the slow diagonal, not two over A-B-C or A-D-C.
    let r = run(&square(&group("diag", "A", "C", 3)));
    assert_eq!(
        port_names(&r),
        ["A->B", "B->C", "C->D", "D->C", "D->A", "A->C"]
    );
    check_port_invariants(&r, &[80.0, 80.0, 80.0, 80.0, 80.0, 40.0]);
    let arrivals = col(&r.ports, "arrivals");
    assert!(arrivals[5] > 500.0, "the diagonal carries the data");
    assert_eq!(&arrivals[..5], [0.0; 5], "no other managed port is crossed");
    // The round trip follows the route both ways: access 1 + 2, the diagonal twice.
    let rtt = col(&r.flows, "rtt_prop_ms");
    assert!(
        rtt.iter().all(|&x| x == 2.0 * (1.0 + 40.0 + 2.0)),
        "{rtt:?}"
    );
    assert_eq!(
        m(&r, "data_sent"),
        m(&r, "data_delivered") + m(&r, "data_dropped") + m(&r, "data_in_flight")
    );
}

#[test]
fn a_flow_crosses_the_ports_of_its_route() {
    // B to D has two 2-hop routes (B-C-D and B-A-D), and so has D to B; the round trip adds
    // up the links of the two taken.
    let r = run(&square(&group("bd", "B", "D", 2)));
    // Managed ports: 0 A->B, 1 B->C, 2 C->D, 3 D->C, 4 D->A, 5 A->C (B->A and A->D are
    // plain drop tail). Data forward over C crosses B->C and C->D; ACKs back over C cross
    // D->C, back over A cross D->A and A->B.
    let arrivals = col(&r.ports, "arrivals");
    let forward_over_c = arrivals[1] > 0.0;
    assert_eq!(forward_over_c, arrivals[2] > 0.0, "{arrivals:?}");
    let back_over_c = arrivals[3] > 0.0;
    assert_eq!(
        !back_over_c,
        arrivals[4] > 0.0 && arrivals[0] > 0.0,
        "{arrivals:?}"
    );
    assert_eq!(arrivals[5], 0.0, "the diagonal is off every route");
    let (via_c, via_a) = (5.0 + 7.0, 3.0 + 11.0);
    let forward = 1.0 + if forward_over_c { via_c } else { via_a } + 2.0;
    let back = 2.0 + if back_over_c { via_c } else { via_a } + 1.0;
    let rtt = col(&r.flows, "rtt_prop_ms");
    assert_eq!(rtt, [forward + back; 2]);
    // The same file gives the same route every run.
    let again = run(&square(&group("bd", "B", "D", 2)));
    assert_eq!(format!("{:?}", r.ports), format!("{:?}", again.ports));
    assert_eq!(format!("{:?}", r.flows), format!("{:?}", again.flows));
}

#[test]
fn a_chain_written_as_a_network_runs_identically() {
    let links = [(10.0, 5.0), (20.0, 7.0), (10.0, 11.0)];
    let routers = ["A", "B", "C", "D"];
    let text = |network: bool| {
        let mut t = format!(
            "duration_s = 5.0\n[topology]\nkind = \"{}\"\nrouters = [\"A\", \"B\", \"C\", \"D\"]\n\
             sender_delay_ms = {{ uniform = [1.0, 9.0] }}\n",
            if network { "network" } else { "chain" }
        );
        for (i, (rate, delay)) in links.iter().enumerate() {
            t += "[[topology.links]]\n";
            if network {
                t += &format!("from = \"{}\"\nto = \"{}\"\n", routers[i], routers[i + 1]);
            }
            t += &format!("rate_mbps = {rate}\ndelay_ms = {delay}\n");
            if i == 1 {
                t += "reverse_queue = { aqm = \"codel\" }\n";
            }
        }
        t + "[queue]\naqm = \"pie\"\nlimit_pkts = 100\n"
            + &group("through", "A", "D", 3)
            + &group("back", "D", "B", 2)
            + &group("mid", "B", "C", 2)
    };
    let (chain, network) = (run(&text(false)), run(&text(true)));
    assert_eq!(format!("{:?}", chain.ports), format!("{:?}", network.ports));
    assert_eq!(format!("{:?}", chain.flows), format!("{:?}", network.flows));
    assert_eq!(
        format!("{:?}", chain.groups),
        format!("{:?}", network.groups)
    );
    assert_eq!(
        format!("{:?}", chain.port_timeseries),
        format!("{:?}", network.port_timeseries)
    );
    assert_eq!(
        format!("{:?}", chain.summary),
        format!("{:?}", network.summary)
    );
    // The canonical text keeps the kind and, for a network, each link's routers.
    assert!(network.scenario_toml.contains("kind = \"network\""));
    assert!(network.scenario_toml.contains("from = \"B\""));
    assert!(!chain.scenario_toml.contains("from = "));
    for r in [&chain, &network] {
        assert_eq!(
            sim::resolve_scenario(&r.scenario_toml, &[]).unwrap(),
            r.scenario_toml
        );
    }
}

#[test]
fn a_bad_network_names_its_key() {
    let ok = square(&group("g", "A", "C", 1));
    let cases = [
        (
            ok.replacen("to = \"B\"", "to = \"Z\"", 1),
            "topology.links[0].to: \"Z\" is not a router; must be one of the routers A, B, C, D",
        ),
        (
            ok.replacen("from = \"A\"\nto = \"B\"", "to = \"B\"", 1),
            "topology.links[0].from: is required",
        ),
        (
            ok.replacen("from = \"A\"", "from = 3", 1),
            "topology.links[0].from: must be one of the routers A, B, C, D, got an integer",
        ),
        (
            ok.replacen("to = \"B\"", "to = \"A\"", 1),
            "topology.links[0].to: \"A\" is the link's own from",
        ),
        (
            ok.replacen("from = \"A\"\nto = \"C\"", "from = \"B\"\nto = \"A\"", 1),
            "topology.links[4].to: joins \"B\" and \"A\" as topology.links[0] does",
        ),
        (
            ok.replace(
                "routers = [\"A\", \"B\", \"C\", \"D\"]",
                "routers = [\"A\", \"B\", \"C\", \"D\", \"E\"]",
            ),
            "topology.links: leave \"E\" unreachable from \"A\"",
        ),
        (
            ok.replace(
                "routers = [\"A\", \"B\", \"C\", \"D\"]",
                "routers = [\"A\", \"B\", \"A\", \"D\"]",
            ),
            "topology.routers[2]: \"A\" appears twice: router names must be unique",
        ),
        (
            ok.replace("path = [\"A\", \"C\"]", "path = [\"A\", \"E\"]"),
            "traffic.groups[0].path: \"E\" is not a router of the topology",
        ),
        (
            ok.replacen("rate_mbps = 10.0", "rate_mbps = 0.0", 1),
            "topology.links[0].rate_mbps: must be a number > 0",
        ),
        (
            ok.replace("limit_pkts = 40 }", "limit_pkts = 0 }"),
            "topology.links[4].queue.limit_pkts:",
        ),
    ];
    assert_errors_start_with(&cases);
    // Links absent, or an empty list of them.
    let head = "duration_s = 1.0\n[topology]\nkind = \"network\"\nrouters = [\"A\", \"B\"]\n";
    assert!(error(head).starts_with("topology.links: is required"));
    assert!(error(&format!("{head}links = []\n"))
        .starts_with("topology.links: must hold at least one link"));
}
