//! The canonical text of a resolved scenario: every key with the value the run used, so the
//! file alone reproduces the run.

use super::model::*;
use crate::tcp::cc::registry::CcKind;
use crate::tcp::config::{TcpConfig, LEDBAT_GAIN, LEDBAT_TARGET_MS, PRAGUE_MIN_TSO_SEGS};
use toml::Value;

fn table(pairs: Vec<(&str, Value)>) -> Value {
    Value::Table(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn f(x: f64) -> Value {
    Value::Float(x)
}

fn i(x: impl Into<i64>) -> Value {
    Value::Integer(x.into())
}

fn s(x: &str) -> Value {
    Value::String(x.to_string())
}

fn floats(xs: &[f64]) -> Value {
    Value::Array(xs.iter().copied().map(Value::Float).collect())
}

/// A seed as an integer when TOML's signed integers hold it, else as a string of digits.
fn seed(x: u64) -> Value {
    i64::try_from(x).map_or_else(|_| Value::String(x.to_string()), Value::Integer)
}

fn delay(d: &DelaySpec) -> Value {
    match d {
        DelaySpec::Constant(x) => f(*x),
        DelaySpec::Uniform(lo, hi) => table(vec![("uniform", floats(&[*lo, *hi]))]),
        DelaySpec::List(items) => table(vec![("list", floats(items))]),
    }
}

fn tcp(c: &TcpConfig) -> Value {
    let mut pairs = vec![
        ("preset", s(&c.preset)),
        ("cc", s(c.cc.name())),
        ("recovery", s(c.recovery.name())),
        ("recovery_exit", s(c.recovery_exit.name())),
        ("sack", Value::Boolean(c.sack)),
        ("limited_transmit", Value::Boolean(c.limited_transmit)),
        (
            "fast_retransmit_restarts_timer",
            Value::Boolean(c.fast_retransmit_restarts_timer),
        ),
        ("window_growth", s(c.window_growth.name())),
        ("window_reduction", s(c.window_reduction.name())),
        ("timestamps", Value::Boolean(c.timestamps)),
        ("handshake", Value::Boolean(c.handshake)),
        ("conn_timeout_s", f(c.conn_timeout_s)),
        ("conn_retries", i(c.conn_retries)),
        ("data_retries", i(c.data_retries)),
        ("rtt_estimator", s(c.rtt_estimator.name())),
        ("packet_bytes", i(c.packet_bytes)),
        ("header_bytes", i(c.header_bytes)),
        ("ack_bytes", i(c.ack_bytes)),
        ("initial_cwnd_pkts", i(c.initial_cwnd_pkts)),
        ("rwnd_pkts", i(c.rwnd_pkts)),
        ("min_rto_s", f(c.min_rto_s)),
        ("initial_rto_s", f(c.initial_rto_s)),
        ("max_rto_s", f(c.max_rto_s)),
        ("clock_granularity_s", f(c.clock_granularity_s)),
        ("delayed_ack", Value::Boolean(c.delayed_ack)),
        ("delack_count", i(c.delack_count)),
        ("delack_timeout_ms", f(c.delack_timeout_ms)),
        ("max_burst_pkts", i(c.max_burst_pkts)),
        ("dupack_threshold", i(c.dupack_threshold)),
        ("ecn", Value::Boolean(c.ecn)),
        ("ecn_response", s(c.ecn_response.name())),
        ("ect_codepoint", s(c.ect_codepoint.name())),
        ("ecn_feedback", s(c.ecn_feedback.name())),
        ("dctcp_g", f(c.dctcp_g)),
        ("dctcp_alpha_init", f(c.dctcp_alpha_init)),
        ("dctcp_halve_on_loss", Value::Boolean(c.dctcp_halve_on_loss)),
        ("prague_ecn_fallback", Value::Boolean(c.prague_ecn_fallback)),
        ("cubic_c", f(c.cubic_c)),
        ("cubic_beta", f(c.cubic_beta)),
        ("fast_convergence", Value::Boolean(c.fast_convergence)),
        ("cubic_friendliness", Value::Boolean(c.cubic_friendliness)),
        ("hystart", Value::Boolean(c.hystart)),
        ("hystart_low_window_pkts", i(c.hystart_low_window_pkts)),
        ("pacing", Value::Boolean(c.pacing)),
        ("pacing_ss_ratio", f(c.pacing_ss_ratio)),
        ("pacing_ca_ratio", f(c.pacing_ca_ratio)),
    ];
    // Written only when not ns-3.37's defaults, so that every scenario written before these
    // keys keeps its canonical text (and its run identifiers).
    if c.ledbat_target_ms != LEDBAT_TARGET_MS || c.ledbat_gain != LEDBAT_GAIN {
        pairs.push(("ledbat_target_ms", f(c.ledbat_target_ms)));
        pairs.push(("ledbat_gain", f(c.ledbat_gain)));
    }
    // Written only when set: a scenario without it keeps its canonical text.
    if c.send_buffer_bytes != 0 {
        pairs.push(("send_buffer_bytes", i(c.send_buffer_bytes)));
    }
    // Written for Prague, whose runs it changes, and wherever it is set: every other sender's
    // scenario keeps its canonical text.
    if c.cc == CcKind::Prague || c.prague_min_tso_segs != PRAGUE_MIN_TSO_SEGS {
        pairs.push(("prague_min_tso_segs", i(c.prague_min_tso_segs)));
    }
    table(pairs)
}

/// `[traffic]`: the file's one schedule, or every group with what it sets.
fn traffic(t: &Traffic) -> Value {
    if t.single {
        let g = &t.groups[0];
        return table(vec![
            ("start_jitter_s", f(g.start_jitter_s)),
            ("schedule", schedule(&g.schedule)),
        ]);
    }
    let groups = t
        .groups
        .iter()
        .map(|g| {
            let mut pairs = vec![
                ("name", s(&g.name)),
                ("start_jitter_s", f(g.start_jitter_s)),
                ("schedule", schedule(&g.schedule)),
            ];
            if let Some(d) = &g.sender_delay_ms {
                pairs.push(("sender_delay_ms", delay(d)));
            }
            if let Some(d) = &g.receiver_delay_ms {
                pairs.push(("receiver_delay_ms", delay(d)));
            }
            if let Some(d) = &g.flow_duration_s {
                pairs.push(("flow_duration_s", delay(d)));
            }
            if let Some([ingress, egress]) = &g.path {
                pairs.push(("path", Value::Array(vec![s(ingress), s(egress)])));
            }
            if g.source != Source::TcpBulk {
                let (transport, src) = source(&g.source);
                pairs.push(("transport", s(transport)));
                pairs.push(("source", src));
            }
            if g.priority != 0 {
                pairs.push(("priority", i(g.priority)));
            }
            if !g.tcp_overrides.is_empty() {
                pairs.push(("tcp", Value::Table(g.tcp_overrides.clone())));
            }
            table(pairs)
        })
        .collect();
    table(vec![("groups", Value::Array(groups))])
}

/// A group's transport and its `source` table.
fn source(src: &Source) -> (&'static str, Value) {
    match src {
        Source::TcpBulk => ("tcp", table(vec![("kind", s("bulk"))])),
        Source::TcpFinite { size } => {
            let size = match size {
                SizeSpec::Fixed { bytes } => {
                    table(vec![("kind", s("fixed")), ("bytes", i(*bytes as i64))])
                }
                SizeSpec::Exponential { mean_bytes } => table(vec![
                    ("kind", s("exponential")),
                    ("mean_bytes", f(*mean_bytes)),
                ]),
                SizeSpec::Pareto { mean_bytes, shape } => table(vec![
                    ("kind", s("pareto")),
                    ("mean_bytes", f(*mean_bytes)),
                    ("shape", f(*shape)),
                ]),
            };
            ("tcp", table(vec![("kind", s("finite")), ("size", size)]))
        }
        Source::UdpCbr {
            rate_kbps,
            packet_bytes,
            random,
        } => (
            "udp",
            table(vec![
                ("kind", s("cbr")),
                ("rate_kbps", f(*rate_kbps)),
                ("packet_bytes", i(*packet_bytes)),
                ("random", Value::Boolean(*random)),
            ]),
        ),
        Source::UdpOnOff {
            rate_kbps,
            packet_bytes,
            on_mean_s,
            off_mean_s,
        } => (
            "udp",
            table(vec![
                ("kind", s("onoff")),
                ("rate_kbps", f(*rate_kbps)),
                ("packet_bytes", i(*packet_bytes)),
                ("on_mean_s", f(*on_mean_s)),
                ("off_mean_s", f(*off_mean_s)),
            ]),
        ),
        Source::UdpProbe {
            interval_ms,
            packet_bytes,
        } => (
            "udp",
            table(vec![
                ("kind", s("probe")),
                ("interval_ms", f(*interval_ms)),
                ("packet_bytes", i(*packet_bytes)),
            ]),
        ),
    }
}

fn schedule(sch: &Schedule) -> Value {
    match sch {
        Schedule::Constant { flows } => table(vec![("kind", s("constant")), ("flows", i(*flows))]),
        Schedule::BetaredSteps {
            n_base,
            n_mid,
            n_max,
            phase_s,
        } => table(vec![
            ("kind", s("betared_steps")),
            ("n_base", i(*n_base)),
            ("n_mid", i(*n_mid)),
            ("n_max", i(*n_max)),
            ("phase_s", f(*phase_s)),
        ]),
        Schedule::Events(changes) => table(vec![
            ("kind", s("events")),
            (
                "events",
                Value::Array(
                    changes
                        .iter()
                        .map(|c| {
                            table(vec![
                                ("t_s", f(c.t_s)),
                                ("add", i(c.add)),
                                ("remove", i(c.remove)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]),
        Schedule::Random {
            flows,
            start_window_s,
            stop_window_s,
        } => {
            let mut pairs = vec![
                ("kind", s("random")),
                ("flows", i(*flows)),
                ("start_window_s", floats(start_window_s)),
            ];
            if let Some(stop) = stop_window_s {
                pairs.push(("stop_window_s", floats(stop)));
            }
            table(pairs)
        }
        Schedule::Periodic {
            initial,
            add,
            remove,
            every_s,
            from_s,
            to_s,
        } => table(vec![
            ("kind", s("periodic")),
            ("initial", i(*initial)),
            ("add", i(*add)),
            ("remove", i(*remove)),
            ("every_s", f(*every_s)),
            ("from_s", f(*from_s)),
            ("to_s", f(*to_s)),
        ]),
        Schedule::Poisson {
            rate_per_s,
            window_s,
        } => table(vec![
            ("kind", s("poisson")),
            ("rate_per_s", f(*rate_per_s)),
            ("window_s", floats(window_s)),
        ]),
    }
}

/// A queue spec as a `[queue]` table.
fn queue(q: &QueueSpec) -> Value {
    table(
        [
            ("aqm", s(q.aqm)),
            ("limit_pkts", i(q.limit_pkts)),
            ("limit_bytes", i(q.limit_bytes as i64)),
            ("ecn", Value::Boolean(q.ecn)),
            (
                "tbf",
                table(vec![
                    ("rate_mbps", f(q.tbf.rate_mbps)),
                    ("burst_bytes", i(q.tbf.burst_bytes as i64)),
                    ("peak_rate_mbps", f(q.tbf.peak_rate_mbps)),
                    ("mtu_bytes", i(q.tbf.mtu_bytes as i64)),
                ]),
            ),
            (
                "prio",
                table(vec![
                    ("bands", i(q.prio.bands)),
                    (
                        "priomap",
                        Value::Array(q.prio.priomap.iter().map(|&b| i(b)).collect()),
                    ),
                ]),
            ),
        ]
        .into_iter()
        .chain(
            q.params
                .iter()
                .map(|(name, t)| (*name, Value::Table(t.clone()))),
        )
        .collect(),
    )
}

/// The access-link keys every topology shares.
fn access_links(a: &AccessLinks) -> [(&'static str, Value); 5] {
    [
        ("access_rate_mbps", f(a.access_rate_mbps)),
        ("sender_delay_ms", delay(&a.sender_delay_ms)),
        ("receiver_delay_ms", delay(&a.receiver_delay_ms)),
        ("router_buffer_pkts", i(a.router_buffer_pkts)),
        ("host_buffer_pkts", i(a.host_buffer_pkts)),
    ]
}

/// A rate schedule as `[[t_s, rate_mbps], ...]`.
fn rate_schedule(changes: &[RateChange]) -> Value {
    Value::Array(
        changes
            .iter()
            .map(|c| floats(&[c.t_s, c.rate_mbps]))
            .collect(),
    )
}

fn topology(t: &Topology) -> Value {
    match t {
        Topology::Dumbbell(d) => {
            let mut pairs = vec![
                ("kind", s("dumbbell")),
                ("bottleneck_rate_mbps", f(d.bottleneck_rate_mbps)),
                ("bottleneck_delay_ms", f(d.bottleneck_delay_ms)),
            ];
            // Written only when set, so that scenarios without one keep the text they had.
            if !d.bottleneck_rate_schedule.is_empty() {
                pairs.push((
                    "bottleneck_rate_schedule",
                    rate_schedule(&d.bottleneck_rate_schedule),
                ));
            }
            pairs.extend(access_links(&d.access));
            table(pairs)
        }
        Topology::Chain(n) => router_net("chain", n),
        Topology::Network(n) => router_net("network", n),
    }
}

/// A chain's or a network's table; a network's links name their routers (a chain's are
/// implied by their order).
fn router_net(kind: &str, n: &RouterNet) -> Value {
    let named_ends = kind == "network";
    let links = n
        .links
        .iter()
        .map(|l| {
            let mut pairs = Vec::new();
            if named_ends {
                pairs.push(("from", s(&n.routers[l.ends.0])));
                pairs.push(("to", s(&n.routers[l.ends.1])));
            }
            pairs.push(("rate_mbps", f(l.rate_mbps)));
            if !l.rate_schedule.is_empty() {
                pairs.push(("rate_schedule", rate_schedule(&l.rate_schedule)));
            }
            pairs.push(("delay_ms", f(l.delay_ms)));
            if !l.queue_overrides.is_empty() {
                pairs.push(("queue", Value::Table(l.queue_overrides.clone())));
            }
            if let Some((_, overrides)) = &l.reverse_queue {
                pairs.push(("reverse_queue", Value::Table(overrides.clone())));
            }
            table(pairs)
        })
        .collect();
    let mut pairs = vec![
        ("kind", s(kind)),
        (
            "routers",
            Value::Array(n.routers.iter().map(|r| s(r)).collect()),
        ),
        ("links", Value::Array(links)),
    ];
    pairs.extend(access_links(&n.access));
    table(pairs)
}

/// The scenario as a TOML document.
pub fn to_toml(sc: &Scenario) -> String {
    let m = &sc.measure;
    let mut measure = vec![
        ("window", floats(&m.window_s)),
        ("sample_interval_ms", f(m.sample_interval_ms)),
        (
            "cwnd_flows",
            Value::Array(m.cwnd_flows.iter().map(|&x| i(x)).collect()),
        ),
        ("settle_band", f(m.settle_band)),
    ];
    if let Some(target) = m.target_queue_pkts {
        measure.push(("target_queue_pkts", f(target)));
    }
    // Written only when set, so that scenarios without it keep the text they always had.
    if let Some(port) = &m.port {
        measure.push(("port", s(port)));
    }
    // The bins only matter to finite flows; other scenarios keep the text they always had.
    let finite = |g: &FlowGroup| matches!(g.source, Source::TcpFinite { .. });
    if sc.traffic.groups.iter().any(finite) {
        let edges = m.fct_bins_bytes.iter().map(|&b| i(b as i64)).collect();
        measure.push(("fct_bins_bytes", Value::Array(edges)));
    }
    let root = table(vec![
        ("name", s(&sc.name)),
        ("description", s(&sc.description)),
        ("duration_s", f(sc.duration_s)),
        ("seed", seed(sc.seed)),
        ("topology", topology(&sc.topology)),
        ("queue", queue(&sc.queue)),
        ("tcp", tcp(&sc.tcp)),
        ("traffic", traffic(&sc.traffic)),
        ("measure", table(measure)),
    ]);
    match root {
        Value::Table(t) => toml::to_string(&t).expect("a TOML table always serialises"),
        _ => unreachable!("root is built as a table"),
    }
}

/// Re-reading the canonical text gives back the same scenario.
#[cfg(test)]
mod tests {
    use super::super::load;
    use super::*;
    use toml::Table;

    #[test]
    fn canonical_text_round_trips() {
        let text = r#"
            duration_s = 10.0
            [topology]
            sender_delay_ms = { uniform = [1.0, 5.0] }
            [queue]
            aqm = "red"
            [traffic.schedule]
            kind = "events"
            events = [{ t_s = 0.0, add = 3 }, { t_s = 5.0, remove = 1 }]
        "#;
        let a = load(text, &[]).unwrap();
        let b = load(&to_toml(&a), &[]).unwrap();
        assert_eq!(a, b);
        let _: Table = to_toml(&a).parse().unwrap();
    }

    #[test]
    fn seeds_beyond_signed_integers_are_strings() {
        assert_eq!(seed(7), Value::Integer(7));
        assert_eq!(seed(i64::MAX as u64), Value::Integer(i64::MAX));
        assert_eq!(seed(1 << 63), Value::String("9223372036854775808".into()));
        assert_eq!(seed(u64::MAX), Value::String(u64::MAX.to_string()));
    }
}
