//! Property-based tests of the scenario format: small valid scenarios of every kind (each AQM,
//! both TCP presets and ns-2's agents, every congestion control, every schedule, one schedule or flow groups, ECN on and
//! off, random delays and buffers, a bottleneck rate that is fixed or follows a schedule of
//! pairs or a periodic one) run with every invariant kept and repeat byte for byte; invalid ones (wrong types,
//! out-of-range values, unknown keys and names, zero-rate links) give one line that names the
//! key. `make test` runs a few hundred cases; `make fuzz` sets PROPTEST_CASES to 10 000.

mod common;

use common::{check_invariants, fuzz_config};
use proptest::prelude::*;
use sim::tcp::cc::registry::CcKind;
use sim::tcp::cc::EcnUse;
use std::convert::Infallible;

/// A small scenario, rendered to the scenario format by [`Small::text`].
#[derive(Clone, Debug)]
struct Small {
    duration_s: f64,
    seed: u64,
    rate_mbps: f64,
    /// `topology.bottleneck_rate_schedule` ("" for none) and the highest rate it reaches over
    /// `rate_mbps` (at least 1).
    rate_schedule: (String, f64),
    bottleneck_delay_ms: f64,
    access_rate_mbps: f64,
    sender_delay: (f64, f64),
    receiver_delay_ms: f64,
    router_buffer_pkts: u32,
    host_buffer_pkts: u32,
    aqm: &'static str,
    limit_pkts: u32,
    ecn: bool,
    /// Priority bands at the bottleneck (0: none); the second group, when there is one, has
    /// socket priority 6 (band 0).
    bands: u32,
    tcp: &'static str,
    /// Congestion control, any registered one (with ECN when it needs it).
    cc: &'static str,
    schedule: String,
    /// Written as two `[[traffic.groups]]` (the schedule's, and two flows of a second group
    /// with their own delays, durations and window) rather than one `[traffic.schedule]`.
    groups: bool,
    start_jitter_s: f64,
    window: String,
}

/// TCP settings: the presets and the ns-2 agents.
const TCP: &[&str] = &[
    "preset = \"ns3\"",
    "preset = \"ns3\"\nrecovery = \"newreno\"",
    "preset = \"ns2\"",
    "preset = \"ns2\"\nrecovery = \"newreno\"",
    "preset = \"ns2\"\nsack = true\nrecovery = \"sack1\"",
];

impl Small {
    fn text(&self) -> String {
        let l = f64::from(self.limit_pkts);
        let (lo, span) = self.sender_delay;
        format!(
            r#"
duration_s = {duration}
seed = {seed}
[topology]
bottleneck_rate_mbps = {rate}
{rate_schedule}
bottleneck_delay_ms = {bdelay}
access_rate_mbps = {arate}
sender_delay_ms = {{ uniform = [{lo}, {hi}] }}
receiver_delay_ms = {rdelay}
router_buffer_pkts = {rbuf}
host_buffer_pkts = {hbuf}
[queue]
aqm = "{aqm}"
limit_pkts = {limit}
ecn = {ecn}
[queue.prio]
bands = {bands}
[queue.red]
q_min_pkts = {qmin}
q_max_pkts = {qmax}
[queue.ared]
q_min_pkts = {qmin}
q_max_pkts = {qmax}
[queue.betared]
q_min_pkts = {qmin}
q_max_pkts = {qmax}
q_target_pkts = {qtarget}
[queue.abetared]
t_target_ms = {ttarget}
[queue.dbetared]
t_target_ms = {ttarget}
[tcp]
{tcp}
cc = "{cc}"
ecn = {tcp_ecn}
[traffic]
start_jitter_s = {jitter}
{traffic}
[measure]
window = {window}
"#,
            duration = self.duration_s,
            seed = self.seed,
            rate = self.rate_mbps,
            rate_schedule = if self.rate_schedule.0.is_empty() {
                String::new()
            } else {
                format!("bottleneck_rate_schedule = {}", self.rate_schedule.0)
            },
            bdelay = self.bottleneck_delay_ms,
            arate = self.access_rate_mbps,
            hi = lo + span,
            rdelay = self.receiver_delay_ms,
            rbuf = self.router_buffer_pkts,
            hbuf = self.host_buffer_pkts,
            aqm = self.aqm,
            limit = self.limit_pkts,
            ecn = self.ecn,
            bands = self.bands,
            qmin = (0.1 * l).floor().max(1.0),
            qmax = (0.6 * l).floor(),
            qtarget = ((0.1 * l).floor().max(1.0) + (0.6 * l).floor()) / 2.0,
            // ABetaRED's and DBetaRED's target delay, at 35 % of the buffer in 1000-byte
            // packets (their q_target = C·T_target must lie inside the buffer).
            ttarget = 0.35 * l * 8000.0 / (self.rate_mbps * 1e6) * 1e3,
            tcp = self.tcp_settings(),
            cc = self.cc,
            tcp_ecn = self.ecn || self.cc_needs_ecn(),
            jitter = self.start_jitter_s,
            traffic = self.traffic(),
            window = self.window,
        )
    }

    fn traffic(&self) -> String {
        if self.groups {
            format!(
                "[[traffic.groups]]\n[traffic.groups.schedule]\n{}\n\n[[traffic.groups]]\n\
                 name = \"extra\"\npriority = 6\nsender_delay_ms = {{ list = [1.0, 30.0] }}\n\
                 flow_duration_s = {{ uniform = [0.1, 0.5] }}\n\
                 [traffic.groups.schedule]\nkind = \"constant\"\nflows = 2\n\
                 [traffic.groups.tcp]\nrwnd_pkts = 8",
                self.schedule
            )
        } else {
            format!("[traffic.schedule]\n{}", self.schedule)
        }
    }

    /// The drawn TCP settings; a rate-based algorithm (BBR) runs on ns-2's preset with the SACK
    /// path it needs.
    fn tcp_settings(&self) -> &'static str {
        let cc = CcKind::from_name(self.cc).expect("a registered name");
        if cc.has_cong_control() && self.tcp.contains("ns2") {
            "preset = \"ns2\"\nsack = true\nrecovery = \"newreno\""
        } else {
            self.tcp
        }
    }

    fn cc_needs_ecn(&self) -> bool {
        let cc = CcKind::from_name(self.cc).expect("a registered name");
        cc.ecn_use() != EcnUse::Optional
    }

    /// Size of a full data packet at IP, bytes.
    fn packet_bytes(&self) -> f64 {
        if self.tcp.contains("ns2") {
            1040.0
        } else {
            1000.0
        }
    }
}

/// One of the four schedule kinds, with times inside a run of `duration_s`.
fn schedule(duration_s: f64) -> impl Strategy<Value = String> {
    let d = duration_s;
    prop_oneof![
        (1u32..12).prop_map(|n| format!("kind = \"constant\"\nflows = {n}")),
        (0u32..4, 1u32..4, 1u32..6).prop_map(move |(base, mid, max)| format!(
            "kind = \"betared_steps\"\nn_base = {base}\nn_mid = {}\nn_max = {}\nphase_s = {}",
            base + mid,
            base + mid + max,
            d / 5.0
        )),
        (1u32..8, 0.1f64..0.5, 0u32..8).prop_map(move |(a, frac, r)| format!(
            "kind = \"events\"\nevents = [{{ t_s = 0.0, add = {a} }}, {{ t_s = {}, add = 3, remove = {} }}]",
            frac * d,
            r.min(a)
        )),
        (1u32..10, 0.0f64..0.3, any::<bool>()).prop_map(move |(n, a, stop)| {
            let stops = if stop {
                format!("\nstop_window_s = [{}, {}]", 0.5 * d, 0.9 * d)
            } else {
                String::new()
            };
            format!(
                "kind = \"random\"\nflows = {n}\nstart_window_s = [{}, {}]{stops}",
                a * d,
                0.4 * d
            )
        }),
    ]
}

/// A bottleneck rate schedule for a run of `duration_s` at `rate_mbps` (none, two changes, or
/// a periodic one), with the highest rate it reaches over `rate_mbps` (at least 1).
fn rate_schedule(duration_s: f64, rate_mbps: f64) -> impl Strategy<Value = (String, f64)> {
    let (d, r) = (duration_s, rate_mbps);
    prop_oneof![
        2 => Just((String::new(), 1.0)),
        1 => (0.05f64..0.45, 0.2f64..2.0, 0.5f64..0.95, 0.2f64..2.0).prop_map(
            move |(t1, f1, t2, f2)| (
                format!("[[{}, {}], [{}, {}]]", t1 * d, f1 * r, t2 * d, f2 * r),
                f1.max(f2).max(1.0)
            )
        ),
        1 => (0.02f64..0.3, 0.2f64..2.0, 0.2f64..2.0).prop_map(move |(every, f1, f2)| (
            format!(
                "{{ every_s = {}, rates_mbps = [{}, {}] }}",
                every * d,
                f1 * r,
                f2 * r
            ),
            f1.max(f2).max(1.0)
        )),
    ]
}

fn small() -> impl Strategy<Value = Small> {
    let aqms = aqm::registry::names().to_vec();
    (
        (
            0.5f64..3.0,
            0u64..1000,
            0.5f64..30.0,
            0.1f64..30.0,
            5.0f64..1000.0,
        ),
        (
            (0.0f64..20.0, 0.0f64..20.0),
            0.0f64..20.0,
            5u32..2000,
            5u32..2000,
        ),
        (
            proptest::sample::select(aqms),
            10u32..400,
            any::<bool>(),
            proptest::sample::select(&[0u32, 0, 3][..]),
        ),
        (
            proptest::sample::select(TCP),
            0.0f64..0.5,
            0usize..3,
            any::<bool>(),
            proptest::sample::select(CcKind::NAMES),
        ),
    )
        .prop_flat_map(|(a, b, c, d)| {
            let duration_s = a.0;
            (
                Just((a, b, c, d)),
                schedule(duration_s),
                rate_schedule(duration_s, a.2),
            )
        })
        .prop_map(|((a, b, c, d), schedule, rate_schedule)| {
            let window = ["\"all\"", "\"second_half\"", "[0.1, 0.4]"][d.2];
            Small {
                duration_s: a.0,
                seed: a.1,
                rate_mbps: a.2,
                rate_schedule,
                bottleneck_delay_ms: a.3,
                access_rate_mbps: a.4,
                sender_delay: b.0,
                receiver_delay_ms: b.1,
                router_buffer_pkts: b.2,
                host_buffer_pkts: b.3,
                aqm: c.0,
                limit_pkts: c.1,
                ecn: c.2,
                bands: c.3,
                tcp: d.0,
                cc: d.4,
                schedule,
                groups: d.3,
                start_jitter_s: d.1,
                window: window.to_string(),
            }
        })
}

fn run(text: &str) -> sim::result::RunResult {
    sim::run_scenario(text, &[], None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("a valid scenario failed: {e:?}\n{text}"))
}

/// A mutation that makes a valid scenario invalid, as an override, and the key path the
/// error must name.
fn mutation() -> impl Strategy<Value = ((String, String), String)> {
    let numeric = proptest::sample::select(vec![
        "duration_s",
        "topology.bottleneck_rate_mbps",
        "topology.bottleneck_delay_ms",
        "topology.access_rate_mbps",
        "topology.router_buffer_pkts",
        "queue.limit_pkts",
        "queue.red.p_max",
        "queue.red.w",
        "queue.pie.target_ms",
        "queue.codel.interval_ms",
        "tcp.min_rto_s",
        "tcp.initial_cwnd_pkts",
        "traffic.start_jitter_s",
        "measure.sample_interval_ms",
    ]);
    let bad_number = prop_oneof![
        Just("-1".to_string()),
        Just("-0.5".to_string()),
        Just("1e400".to_string()),
        Just("\"ten\"".to_string()),
        Just("true".to_string()),
        Just("[1, 2]".to_string()),
    ];
    let section = proptest::sample::select(vec![
        "",
        "topology.",
        "queue.",
        "queue.red.",
        "queue.pie.",
        "tcp.",
        "traffic.",
        "measure.",
    ]);
    prop_oneof![
        (numeric, bad_number).prop_map(|(k, v)| ((k.to_string(), v), k.to_string())),
        (section, "[a-z]{3,8}_x").prop_map(|(s, k)| {
            let key = format!("{s}{k}");
            ((key.clone(), "1".to_string()), key)
        }),
        "[a-z]{2,9}".prop_map(|name| (
            ("queue.aqm".to_string(), format!("\"{name}_x\"")),
            "queue.aqm".to_string()
        )),
        "[a-z]{2,9}".prop_map(|name| (
            ("tcp.recovery".to_string(), format!("\"{name}_x\"")),
            "tcp.recovery".to_string()
        )),
        Just((
            ("topology.bottleneck_rate_mbps".to_string(), "0".to_string()),
            "topology.bottleneck_rate_mbps".to_string()
        )),
        Just((
            ("queue.limit_pkts".to_string(), "0".to_string()),
            "queue.limit_pkts".to_string()
        )),
    ]
}

proptest! {
    #![proptest_config(fuzz_config(160))]

    #[test]
    fn valid_scenarios_run_keep_every_invariant_and_repeat(s in small()) {
        let text = s.text();
        let r = run(&text);
        // Each priority band has the whole buffer.
        let limit = f64::from(s.limit_pkts * s.bands.max(1));
        let peak_bps = s.rate_mbps * s.rate_schedule.1 * 1e6;
        check_invariants(&r, limit, peak_bps, s.packet_bytes());
        let again = run(&text);
        prop_assert_eq!(format!("{:?}", r.summary), format!("{:?}", again.summary));
        prop_assert_eq!(format!("{:?}", r.timeseries), format!("{:?}", again.timeseries));
        prop_assert_eq!(format!("{:?}", r.flows), format!("{:?}", again.flows));
        // The resolved text reads back to the same scenario.
        prop_assert_eq!(
            sim::resolve_scenario(&r.scenario_toml, &[]).expect("resolved text is valid"),
            r.scenario_toml.clone()
        );
    }

    #[test]
    fn invalid_scenarios_give_one_line_naming_the_key(
        s in small(),
        ((key, value), path) in mutation(),
    ) {
        let sets = [(key.clone(), value.clone())];
        let e = sim::resolve_scenario(&s.text(), &sets)
            .expect_err(&format!("{key} = {value} must be rejected"));
        let line = e.to_string();
        prop_assert!(!line.contains('\n'), "one line: {}", line);
        prop_assert!(line.starts_with(&format!("{path}:")), "{} = {}: {}", key, value, line);
    }
}
