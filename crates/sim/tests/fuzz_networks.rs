//! Property-based tests of networks and traffic sources: small chains of 2 to 5 routers, or
//! the same routers as a network with chords (links between routers further apart, so routes
//! have cycles to avoid), each link with its own rate, delay and AQM (and sometimes a managed
//! reverse port, and sometimes a periodic rate schedule below its rate), and groups on random paths sending bulk or finite TCP or CBR or ON/OFF UDP
//! under every schedule kind. Each run keeps packet conservation and every port's counting
//! identity, queue bound and rate, describes in its summary the port the default rule picks
//! (a chain's first, a network's slowest), and repeats byte for byte; broken networks (dangling router
//! names, links from a router to itself or twice between one pair, routers cut off, paths that
//! do not exist, repeated routers, wrong link counts, zero-rate links, bad sources) give one
//! line naming the key. `make fuzz` sets PROPTEST_CASES to 10 000.

mod common;

use common::{check_port_invariants, col, fuzz_config, m, port_names};
use proptest::prelude::*;
use std::convert::Infallible;

/// One link: rate (Mb/s), delay (ms), its AQM, whether its reverse port is managed, and a
/// periodic rate schedule, if any: (every_s, two rates as factors of the rate).
#[derive(Clone, Debug)]
struct Link(f64, f64, &'static str, bool, Option<(f64, f64, f64)>);

/// One group: path (router indices), transport and source text, schedule text.
#[derive(Clone, Debug)]
struct Group(usize, usize, String, String);

#[derive(Clone, Debug)]
struct Net {
    duration_s: f64,
    seed: u64,
    links: Vec<Link>,
    limit_pkts: u32,
    groups: Vec<Group>,
    /// Written as `kind = "network"` (links name their routers) rather than a chain.
    network: bool,
    /// A network's links beyond the line: routers (a, b) with b ≥ a + 2, each pair once.
    chords: Vec<(usize, usize, Link)>,
}

fn router(i: usize) -> String {
    format!("R{i}")
}

impl Net {
    fn routers(&self) -> Vec<String> {
        (0..=self.links.len()).map(router).collect()
    }

    fn text(&self) -> String {
        let l = f64::from(self.limit_pkts);
        let max_rate = self.all_links().map(|(_, _, k)| k.0).fold(0.0, f64::max);
        let routers: Vec<String> = self.routers().iter().map(|r| format!("\"{r}\"")).collect();
        let mut t = format!(
            "duration_s = {}\nseed = {}\n[topology]\nkind = \"{}\"\nrouters = [{}]\n\
             access_rate_mbps = 100.0\nsender_delay_ms = {{ uniform = [0.0, 10.0] }}\n",
            self.duration_s,
            self.seed,
            if self.network { "network" } else { "chain" },
            routers.join(", ")
        );
        for (a, b, Link(rate, delay, aqm, reverse, schedule)) in self.all_links() {
            t += "[[topology.links]]\n";
            if self.network {
                t += &format!("from = \"{}\"\nto = \"{}\"\n", router(a), router(b));
            }
            t +=
                &format!("rate_mbps = {rate}\ndelay_ms = {delay}\nqueue = {{ aqm = \"{aqm}\" }}\n");
            if *reverse {
                t += "reverse_queue = {}\n";
            }
            if let Some((every_s, f1, f2)) = schedule {
                t += &format!(
                    "rate_schedule = {{ every_s = {every_s}, rates_mbps = [{}, {}] }}\n",
                    f1 * rate,
                    f2 * rate
                );
            }
        }
        // Every AQM's thresholds inside the buffer; the Beta family's target delay at 35 %
        // of the buffer on the fastest link (inside the buffer on every slower one).
        t += &format!(
            "[queue]\naqm = \"red\"\nlimit_pkts = {}\n[queue.red]\nq_min_pkts = {qmin}\n\
             q_max_pkts = {qmax}\n[queue.ared]\nq_min_pkts = {qmin}\nq_max_pkts = {qmax}\n\
             [queue.betared]\nq_min_pkts = {qmin}\nq_max_pkts = {qmax}\nq_target_pkts = {qt}\n\
             [queue.abetared]\nt_target_ms = {tt}\n[queue.dbetared]\nt_target_ms = {tt}\n\
             [traffic]\nstart_jitter_s = 0.2\n",
            self.limit_pkts,
            qmin = (0.1 * l).floor().max(1.0),
            qmax = (0.6 * l).floor(),
            qt = ((0.1 * l).floor().max(1.0) + (0.6 * l).floor()) / 2.0,
            tt = 0.35 * l * 8000.0 / (max_rate * 1e6) * 1e3,
        );
        for (i, Group(a, b, source, schedule)) in self.groups.iter().enumerate() {
            t += &format!(
                "[[traffic.groups]]\nname = \"g{i}\"\npath = [\"{}\", \"{}\"]\n{source}\n\
                 [traffic.groups.schedule]\n{schedule}\n",
                router(*a),
                router(*b)
            );
        }
        t + "[measure]\nwindow = \"all\"\n"
    }

    /// Every link in file order with the routers it joins: the line, then the chords.
    fn all_links(&self) -> impl Iterator<Item = (usize, usize, &Link)> {
        let line = self.links.iter().enumerate().map(|(i, k)| (i, i + 1, k));
        line.chain(self.chords.iter().map(|(a, b, k)| (*a, *b, k)))
    }

    /// The measured port the summary describes: a chain's first; a network's slowest, the
    /// first in port order among equals.
    fn described(&self) -> usize {
        if !self.network {
            return 0;
        }
        let rates: Vec<f64> = self
            .all_links()
            .flat_map(|(_, _, k)| if k.3 { vec![k.0, k.0] } else { vec![k.0] })
            .collect();
        let slowest = rates.iter().copied().fold(f64::INFINITY, f64::min);
        rates
            .iter()
            .position(|&r| r == slowest)
            .expect("a slowest port")
    }

    /// Each measured port's buffer: every forward port, and the managed reverse ones.
    fn limits(&self) -> Vec<f64> {
        let l = f64::from(self.limit_pkts);
        self.all_links()
            .flat_map(|(_, _, k)| if k.3 { vec![l, l] } else { vec![l] })
            .collect()
    }
}

fn source() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        (1u64..200_000).prop_map(|b| format!(
            "[traffic.groups.source]\nkind = \"finite\"\nsize = {{ kind = \"fixed\", bytes = {b} }}"
        )),
        (1000.0f64..100_000.0).prop_map(|m| format!(
            "[traffic.groups.source]\nkind = \"finite\"\nsize = {{ kind = \"exponential\", mean_bytes = {m} }}"
        )),
        (1000.0f64..100_000.0, 1.05f64..3.0).prop_map(|(m, a)| format!(
            "[traffic.groups.source]\nkind = \"finite\"\nsize = {{ kind = \"pareto\", mean_bytes = {m}, shape = {a} }}"
        )),
        (10.0f64..5000.0, 28u32..1500, any::<bool>()).prop_map(|(r, p, random)| format!(
            "transport = \"udp\"\n[traffic.groups.source]\nkind = \"cbr\"\nrate_kbps = {r}\npacket_bytes = {p}\nrandom = {random}"
        )),
        (10.0f64..5000.0, 28u32..1500, 0.01f64..0.5, 0.0f64..0.5).prop_map(|(r, p, on, off)| format!(
            "transport = \"udp\"\n[traffic.groups.source]\nkind = \"onoff\"\nrate_kbps = {r}\npacket_bytes = {p}\non_mean_s = {on}\noff_mean_s = {off}"
        )),
        (1.0f64..300.0, 28u32..1500).prop_map(|(i, p)| format!(
            "transport = \"udp\"\n[traffic.groups.source]\nkind = \"probe\"\ninterval_ms = {i}\npacket_bytes = {p}"
        )),
    ]
}

fn schedule(d: f64) -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..6).prop_map(|n| format!("kind = \"constant\"\nflows = {n}")),
        (0u32..4, 1u32..3, any::<bool>()).prop_map(move |(n, k, add)| {
            // Steps at d/4, d/2, 3d/4 and d: removals need 4·k initial flows.
            let (n, add, remove) = if add { (n, k, 0) } else { (n + 4 * k, 0, k) };
            format!(
                "kind = \"periodic\"\ninitial = {n}\nadd = {add}\nremove = {remove}\nevery_s = {}",
                d / 4.0
            )
        }),
        (0.5f64..8.0).prop_map(move |rate| format!(
            "kind = \"poisson\"\nrate_per_s = {rate}\nwindow_s = [0.0, {}]",
            d / 2.0
        )),
        (1u32..6).prop_map(move |n| format!(
            "kind = \"random\"\nflows = {n}\nstart_window_s = [0.0, {}]\nstop_window_s = [{}, {}]",
            d / 3.0,
            d / 2.0,
            d
        )),
    ]
}

fn net() -> impl Strategy<Value = Net> {
    let aqms = aqm::registry::names().to_vec();
    let link = (
        0.5f64..30.0,
        0.0f64..20.0,
        proptest::sample::select(aqms),
        any::<bool>(),
        // Rates at most the link's own, which the per-port table reports and the invariants bound.
        proptest::option::weighted(0.3, (0.05f64..0.5, 0.3f64..1.0, 0.3f64..1.0)),
    )
        .prop_map(|(r, d, a, rev, sch)| Link(r, d, a, rev, sch));
    (
        0.5f64..2.5,
        0u64..1000,
        proptest::collection::vec(link.clone(), 1..5),
        10u32..300,
        any::<bool>(),
        proptest::collection::vec((0usize..5, 0usize..5, link), 0..3),
    )
        .prop_flat_map(|(d, seed, links, limit, network, chords)| {
            let routers = links.len() + 1;
            // Chords between routers at least two apart, each pair once; none on a chain.
            let mut pairs: Vec<(usize, usize, Link)> = Vec::new();
            for (a, b, k) in chords.into_iter().filter(|_| network) {
                let (a, b) = (a % routers, b % routers);
                let pair = (a.min(b), a.max(b));
                let taken = |p: &&(usize, usize, Link)| (p.0.min(p.1), p.0.max(p.1)) == pair;
                if pair.1 >= pair.0 + 2 && !pairs.iter().any(|p| taken(&p)) {
                    pairs.push((a, b, k));
                }
            }
            let path = (0..routers, 0..routers - 1).prop_map(move |(a, b)| {
                let b = if b >= a { b + 1 } else { b };
                (a, b)
            });
            let group =
                (path, source(), schedule(d)).prop_map(|((a, b), src, sch)| Group(a, b, src, sch));
            (
                Just((d, seed, links, limit, network, pairs)),
                proptest::collection::vec(group, 1..4),
            )
        })
        .prop_map(
            |((duration_s, seed, links, limit_pkts, network, chords), groups)| Net {
                duration_s,
                seed,
                links,
                limit_pkts,
                groups,
                network,
                chords,
            },
        )
}

fn run(text: &str) -> sim::result::RunResult {
    sim::run_scenario(text, &[], None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("a valid scenario failed: {e:?}\n{text}"))
}

/// A valid network's text broken one way, and the key path the error must name: cases 10 to
/// 13 break what only a network has (a chain takes cases 0 to 3 instead).
fn broken(n: &Net, how: usize, seed: usize) -> (String, String) {
    let how = if how >= 10 && !n.network {
        how - 10
    } else {
        how
    };
    let text = n.text();
    let routers = n.routers();
    let path_of = |g: &Group| format!("path = [\"{}\", \"{}\"]", router(g.0), router(g.1));
    let path_line = path_of(&n.groups[seed % n.groups.len()]);
    // The first group on that path is the one whose line is edited.
    let g = n
        .groups
        .iter()
        .position(|x| path_of(x) == path_line)
        .unwrap_or(0);
    let group_path = format!("traffic.groups[{g}].path");
    let k = seed % n.links.len();
    let nth_link = |text: &str, from: &str, to: &str| {
        // Replace `from` in the k-th link only.
        let mut parts: Vec<&str> = text.split("[[topology.links]]").collect();
        let fixed = parts[k + 1].replacen(from, to, 1);
        parts[k + 1] = &fixed;
        parts.join("[[topology.links]]")
    };
    let routers_line = format!(
        "routers = [{}]",
        routers
            .iter()
            .map(|r| format!("\"{r}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match how {
        0 => (
            text.replacen(&path_line, "path = [\"R0\", \"nowhere\"]", 1),
            group_path,
        ),
        1 => (
            text.replacen(&path_line, "path = [\"R0\", \"R0\"]", 1),
            group_path,
        ),
        2 => (text.replacen(&path_line, "path = [\"R0\"]", 1), group_path),
        3 => {
            let mut r = routers.clone();
            let last = r.len() - 1;
            r[last] = r[0].clone();
            let cyclic = format!(
                "routers = [{}]",
                r.iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            (
                text.replacen(&routers_line, &cyclic, 1),
                format!("topology.routers[{last}]"),
            )
        }
        4 => {
            let extra = routers_line.replacen(']', ", \"extra\"]", 1);
            (
                text.replacen(&routers_line, &extra, 1),
                "topology.links".into(),
            )
        }
        5 => (
            nth_link(&text, "rate_mbps = ", "rate_mbps = 0.0\nold_rate = "),
            format!("topology.links[{k}].rate_mbps"),
        ),
        6 => (
            nth_link(&text, "delay_ms = ", "delay_ms = -1.0\nold_delay = "),
            format!("topology.links[{k}].delay_ms"),
        ),
        7 => (
            nth_link(&text, "queue = { aqm = \"", "queue = { aqm = \"x"),
            format!("topology.links[{k}].queue.aqm"),
        ),
        8 => (
            text.replacen(
                &path_line,
                &format!("{path_line}\nsender_delay_ms = \"far\""),
                1,
            ),
            format!("traffic.groups[{g}].sender_delay_ms"),
        ),
        9 => (
            // The first key a dumbbell does not know, in the table's (sorted) order.
            text.replacen(
                &format!("kind = \"{}\"", if n.network { "network" } else { "chain" }),
                "kind = \"dumbbell\"",
                1,
            ),
            "topology.links".into(),
        ),
        10 => (
            nth_link(&text, "to = \"", "to = \"nowhere"),
            format!("topology.links[{k}].to"),
        ),
        11 => (
            nth_link(
                &text,
                &format!("to = \"{}\"", router(k + 1)),
                &format!("to = \"{}\"", router(k)),
            ),
            format!("topology.links[{k}].to"),
        ),
        12 => {
            // The k-th link again, its ends swapped, after every other link.
            let (a, b) = (router(k), router(k + 1));
            let again = format!("from = \"{b}\"\nto = \"{a}\"\nrate_mbps = 1.0\ndelay_ms = 1.0\n");
            let at = text.find("[queue]").expect("the [queue] table");
            let total = n.links.len() + n.chords.len();
            (
                format!("{}[[topology.links]]\n{again}{}", &text[..at], &text[at..]),
                format!("topology.links[{total}].to"),
            )
        }
        _ => {
            let island = routers_line.replacen(']', ", \"island\"]", 1);
            (
                text.replacen(&routers_line, &island, 1),
                "topology.links".into(),
            )
        }
    }
}

proptest! {
    #![proptest_config(fuzz_config(120))]

    #[test]
    fn networks_keep_every_invariant_and_repeat(n in net()) {
        let text = n.text();
        let r = run(&text);
        prop_assert_eq!(
            m(&r, "data_sent"),
            m(&r, "data_delivered") + m(&r, "data_dropped") + m(&r, "data_in_flight")
        );
        check_port_invariants(&r, &n.limits());
        // The summary describes the port the rule picks, with the per-port table's numbers.
        let k = n.described();
        let port = r.summary.iter().find(|(name, _)| name == "port").map(|(_, v)| v.clone());
        prop_assert_eq!(port, Some(sim::result::Value::Text(port_names(&r)[k].clone())));
        for (summary, table) in [("bottleneck_arrivals", "arrivals"), ("avg_queue_pkts", "avg_queue_pkts")] {
            prop_assert_eq!(m(&r, summary), col(&r.ports, table)[k]);
        }
        for (name, v) in &r.summary {
            if let sim::result::Value::Float(x) = v {
                let undefined = name == "settle_time_s" || name.starts_with("probe_rtt_");
                prop_assert!(!x.is_nan() || undefined, "{} is NaN", name);
            }
        }
        // Probes: each lost or answered at most once; percentiles in order.
        let rtt = col(&r.probes, "rtt_ms");
        let lost = col(&r.probes, "lost");
        prop_assert!(rtt.iter().zip(&lost).all(|(x, &l)| l == 0.0 || x.is_nan()));
        prop_assert!(m(&r, "probes_lost") <= m(&r, "probes_sent"));
        prop_assert_eq!(m(&r, "probes_sent") as usize, rtt.len());
        if rtt.iter().any(|x| !x.is_nan()) {
            let p = ["probe_rtt_p50_ms", "probe_rtt_p90_ms", "probe_rtt_p99_ms"].map(|k| m(&r, k));
            prop_assert!(0.0 < p[0] && p[0] <= p[1] && p[1] <= p[2]);
        }
        let again = run(&text);
        prop_assert_eq!(format!("{:?}", r.ports), format!("{:?}", again.ports));
        prop_assert_eq!(format!("{:?}", r.groups), format!("{:?}", again.groups));
        prop_assert_eq!(format!("{:?}", r.fct), format!("{:?}", again.fct));
        prop_assert_eq!(format!("{:?}", r.probes), format!("{:?}", again.probes));
        prop_assert_eq!(
            sim::resolve_scenario(&r.scenario_toml, &[]).expect("resolved text is valid"),
            r.scenario_toml.clone()
        );
    }

    #[test]
    fn broken_networks_give_one_line_naming_the_key(
        n in net(),
        how in 0usize..14,
        seed in 0usize..1000,
    ) {
        let (text, path) = broken(&n, how, seed);
        let e = sim::resolve_scenario(&text, &[]).expect_err(&format!("broken ({how}):\n{text}"));
        let line = e.to_string();
        prop_assert!(!line.contains('\n'), "one line: {}", line);
        prop_assert!(line.starts_with(&format!("{path}:")), "{}: {}", path, line);
    }
}
