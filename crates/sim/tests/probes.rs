//! Latency probes and unresponsive UDP on whole runs: a probe's round-trip time on an idle
//! path is exactly the propagation and serialisation of its request and response, lost probes
//! are counted, a standing queue shows in the probes' RTT, and a CBR flow above the link rate
//! takes the link from TCP on drop tail.

mod common;

use common::{check_invariants, col, m, run};
use sim::time::{ms_to_ns, tx_time_ns};

/// A dumbbell at `rate_mbps` with the given `[queue]` and groups.
fn dumbbell(rate_mbps: f64, queue: &str, groups: &str, duration_s: f64) -> String {
    format!(
        r#"
duration_s = {duration_s:?}
[topology]
bottleneck_rate_mbps = {rate_mbps:?}
bottleneck_delay_ms = 10.0
access_rate_mbps = 100.0
sender_delay_ms = 1.0
receiver_delay_ms = 2.0
[queue]
{queue}
[traffic]
start_jitter_s = 0.0
{groups}
[measure]
window = "all"
"#
    )
}

/// One probe flow with the default interval (200 ms) and size (64 bytes).
const PROBE: &str = r#"
[[traffic.groups]]
name = "ping"
transport = "udp"
[traffic.groups.source]
kind = "probe"
[traffic.groups.schedule]
kind = "constant"
flows = 1
"#;

/// One probe flow sending every `interval_ms`.
fn probe(interval_ms: f64) -> String {
    PROBE.replace(
        "kind = \"probe\"",
        &format!("kind = \"probe\"\ninterval_ms = {interval_ms:?}"),
    )
}

fn tcp(flows: u32) -> String {
    format!(
        r#"
[[traffic.groups]]
name = "tcp"
[traffic.groups.schedule]
kind = "constant"
flows = {flows}
"#
    )
}

#[test]
fn an_idle_path_gives_twice_the_propagation_and_serialisation() {
    let r = run(&dumbbell(10.0, "aqm = \"droptail\"", PROBE, 3.0));
    // Three hops each way (sender access, bottleneck, receiver access), 64 bytes on each.
    let hops = [(100e6, 1.0), (10e6, 10.0), (100e6, 2.0)];
    let one_way: u64 = hops
        .iter()
        .map(|&(rate, delay_ms)| tx_time_ns(64, rate as u64) + ms_to_ns(delay_ms))
        .sum();
    let rtt_ms = (2 * one_way) as f64 * 1e-6;
    assert_eq!(2 * one_way, 26_122_880);
    // A request every 200 ms from 0 to 3 s; all answered but the last, in flight at the end.
    assert_eq!(m(&r, "probes_sent"), 16.0);
    assert_eq!(m(&r, "probes_lost"), 0.0);
    let rtts = col(&r.probes, "rtt_ms");
    assert_eq!(rtts.len(), 16);
    assert!(rtts[..15].iter().all(|&x| x == rtt_ms), "{rtts:?}");
    assert!(rtts[15].is_nan());
    for k in [
        "probe_rtt_mean_ms",
        "probe_rtt_p50_ms",
        "probe_rtt_p90_ms",
        "probe_rtt_p99_ms",
    ] {
        assert_eq!(m(&r, k), rtt_ms, "{k}");
    }
    let t = col(&r.probes, "t_s");
    assert_eq!(t[..3], [0.0, 0.2, 0.4]);
    // Requests and responses are the flow's data packets: 16 + 15 sent, none lost.
    assert_eq!(col(&r.flows, "data_sent"), [31.0]);
    assert_eq!(m(&r, "data_sent"), 31.0);
    assert_eq!(m(&r, "data_in_flight"), 1.0);
    // The probe flow carries no load: the summary's delivery metrics leave it out.
    assert_eq!(m(&r, "flows_total"), 1.0);
    assert_eq!(m(&r, "throughput_mbps"), 0.0);
    assert_eq!(m(&r, "jain_fairness"), 1.0);
}

#[test]
fn a_standing_queue_shows_in_the_probes_rtt() {
    let groups = format!("{}{PROBE}", tcp(10));
    let droptail = run(&dumbbell(
        10.0,
        "aqm = \"droptail\"\nlimit_pkts = 400",
        &groups,
        20.0,
    ));
    let codel = run(&dumbbell(
        10.0,
        "aqm = \"codel\"\nlimit_pkts = 400",
        &groups,
        20.0,
    ));
    for r in [&droptail, &codel] {
        check_invariants(r, 400.0, 10e6, 1000.0);
        assert_eq!(m(r, "probes_sent"), 101.0);
        let (p50, p90, p99) = (
            m(r, "probe_rtt_p50_ms"),
            m(r, "probe_rtt_p90_ms"),
            m(r, "probe_rtt_p99_ms"),
        );
        assert!(26.1 < p50 && p50 <= p90 && p90 <= p99, "{p50} {p90} {p99}");
        // The summary's percentiles are values of the table.
        let rtts = col(&r.probes, "rtt_ms");
        assert!(rtts.contains(&p50) && rtts.contains(&p99));
        // Ten TCP flows alone set the summary's fairness.
        assert_eq!(m(r, "flows_total"), 11.0);
        let tcp_jain = col(&r.groups, "jain_fairness")[0];
        assert_eq!(m(r, "jain_fairness"), tcp_jain);
    }
    // 400 packets of 1000 bytes at 10 Mb/s: up to 320 ms of queue on drop tail; CoDel keeps
    // its sojourn near 5 ms.
    let (dt, cd) = (
        m(&droptail, "probe_rtt_p50_ms"),
        m(&codel, "probe_rtt_p50_ms"),
    );
    assert!(dt > 150.0 && cd < 80.0, "drop tail {dt} ms, CoDel {cd} ms");
}

#[test]
fn lost_probes_are_counted() {
    // A CBR flow at twice the link rate keeps a 5-packet queue full: many requests are
    // dropped at the bottleneck.
    let groups = format!("{}{}", probe(20.0), cbr(2 * 10_000, 1));
    let r = run(&dumbbell(
        10.0,
        "aqm = \"droptail\"\nlimit_pkts = 5",
        &groups,
        5.0,
    ));
    check_invariants(&r, 5.0, 10e6, 1000.0);
    let (sent, lost) = (m(&r, "probes_sent"), m(&r, "probes_lost"));
    assert_eq!(sent, 251.0);
    assert!(lost > 50.0, "{lost}");
    let (rtt, marked) = (col(&r.probes, "rtt_ms"), col(&r.probes, "lost"));
    assert_eq!(marked.iter().sum::<f64>(), lost);
    // A lost probe has no RTT; every other one but those in flight at the end has.
    let answered = rtt.iter().filter(|x| !x.is_nan()).count() as f64;
    assert!(rtt
        .iter()
        .zip(&marked)
        .all(|(x, &l)| l == 0.0 || x.is_nan()));
    assert!(sent - lost - answered <= 1.0, "{sent} {lost} {answered}");
    // Each lost probe lost its request or its response: the probe flow's lost packets.
    assert_eq!(col(&r.flows, "lost_pkts")[0], lost);
}

fn cbr(rate_kbps: u32, flows: u32) -> String {
    format!(
        r#"
[[traffic.groups]]
name = "cbr"
transport = "udp"
[traffic.groups.source]
kind = "cbr"
rate_kbps = {rate_kbps}.0
packet_bytes = 1000
[traffic.groups.schedule]
kind = "constant"
flows = {flows}
"#
    )
}

#[test]
fn an_unresponsive_flow_above_the_link_rate_takes_it_on_drop_tail() {
    // One CBR flow at 1.5 times the 10 Mb/s bottleneck among ten TCP flows.
    let groups = format!("{}{}", tcp(10), cbr(15_000, 1));
    let r = run(&dumbbell(
        10.0,
        "aqm = \"droptail\"\nlimit_pkts = 100",
        &groups,
        20.0,
    ));
    check_invariants(&r, 100.0, 10e6, 1000.0);
    let through = col(&r.groups, "throughput_mbps");
    // The queue stays full; a third of the CBR flow's packets are dropped, and TCP, backing
    // off at that loss rate, keeps a sliver.
    assert!(through[1] > 9.0, "CBR {} Mb/s", through[1]);
    assert!(through[0] < 0.5, "TCP {} Mb/s", through[0]);
    let loss = col(&r.groups, "loss_rate");
    assert!((0.3..0.4).contains(&loss[1]), "CBR loss {}", loss[1]);
    assert!(m(&r, "link_efficiency") > 0.99);
    assert!(m(&r, "avg_queue_pkts") > 95.0);
    // Every CBR packet is sent, then delivered, dropped or in flight.
    let sent = col(&r.flows, "data_sent")[10];
    assert_eq!(sent, (20.0 * 15e6 / 8000.0_f64).floor() + 1.0);
}

#[test]
fn probe_keys_are_checked() {
    let with = |source: &str, duration_s: f64| {
        dumbbell(
            10.0,
            "aqm = \"droptail\"",
            &format!(
                "[[traffic.groups]]\ntransport = \"udp\"\nsource = {source}\n\
                 schedule = {{ kind = \"constant\", flows = 1 }}"
            ),
            duration_s,
        )
    };
    let cases = [
        (
            with("{ kind = \"probe\", interval_ms = 0.5 }", 10.0),
            "traffic.groups[0].source.interval_ms: must be a number in [1, 1000000000000] ms and \
             give at most 100000000 probes over duration_s = 10 (>= 1 ms here)",
        ),
        (
            with("{ kind = \"probe\", interval_ms = 50.0 }", 1e7),
            "traffic.groups[0].source.interval_ms: must be a number in [1, 1000000000000] ms and \
             give at most 100000000 probes over duration_s = 10000000 (>= 100 ms here)",
        ),
        (
            with("{ kind = \"probe\", packet_bytes = 20 }", 10.0),
            "traffic.groups[0].source.packet_bytes: must be an integer in [28, 65535], got 20",
        ),
        (
            with("{ kind = \"probe\", rate_kbps = 5.0 }", 10.0),
            "traffic.groups[0].source.rate_kbps: unknown key; allowed here: interval_ms, kind, \
             packet_bytes",
        ),
        (
            with("{ kind = \"ping\" }", 10.0),
            "traffic.groups[0].source.kind: unknown value \"ping\"; allowed: cbr, onoff, probe",
        ),
    ];
    for (text, expected) in cases {
        // Samples every second, so that a run of 10^7 s is refused for its probes only.
        let sets = [("measure.sample_interval_ms".into(), "1000.0".into())];
        let e = sim::resolve_scenario(&text, &sets).unwrap_err().to_string();
        assert_eq!(e, expected);
    }
    assert!(sim::resolve_scenario(&with("{ kind = \"probe\" }", 10.0), &[]).is_ok());
}

#[test]
fn a_probe_resolves_to_text_that_reads_back_the_same() {
    let text = dumbbell(10.0, "aqm = \"droptail\"", PROBE, 2.0);
    let canonical = sim::resolve_scenario(&text, &[]).unwrap();
    assert!(canonical.contains("kind = \"probe\""), "{canonical}");
    assert!(canonical.contains("interval_ms = 200.0"), "{canonical}");
    assert!(canonical.contains("packet_bytes = 64"), "{canonical}");
    assert_eq!(sim::resolve_scenario(&canonical, &[]).unwrap(), canonical);
    // The same run from either text: the same probes (NaN included, hence the text form).
    let probes = |t: &str| format!("{:?}", run(t).probes);
    assert_eq!(probes(&text), probes(&canonical));
}
