//! Strict priority over bands (`[queue.prio]`, a group's `priority`) on whole runs: probes in
//! band 0 cross a bottleneck whose lower band holds a standing queue as if it were idle, a
//! lower band starves while a higher one is saturated, every discipline runs in the bands, and
//! bad values name the key.

mod common;

use common::{check_invariants, col, error, m, run};

/// A 10 Mb/s dumbbell with `queue` lines and `groups`, measured over 5–20 s.
fn dumbbell(queue: &str, groups: &str) -> String {
    format!(
        r#"
duration_s = 20.0
seed = 3
[topology]
bottleneck_rate_mbps = 10.0
bottleneck_delay_ms = 10.0
access_rate_mbps = 100.0
sender_delay_ms = 1.0
receiver_delay_ms = 2.0
[queue]
limit_pkts = 400
{queue}
[traffic]
start_jitter_s = 0.0
{groups}
[measure]
window = [5.0, 20.0]
"#
    )
}

/// Ten TCP flows at socket priority `tcp` and one probe flow at `probe`.
fn tcp_and_probe(tcp: u8, probe: u8) -> String {
    format!(
        r#"
[[traffic.groups]]
name = "tcp"
priority = {tcp}
[traffic.groups.schedule]
kind = "constant"
flows = 10
[[traffic.groups]]
name = "ping"
transport = "udp"
priority = {probe}
[traffic.groups.source]
kind = "probe"
[traffic.groups.schedule]
kind = "constant"
flows = 1
"#
    )
}

#[test]
fn probes_in_band_0_skip_the_standing_queue_of_band_1() {
    // priority 6 → band 0, priority 0 → band 1 (the default priomap)
    let fifo = run(&dumbbell("aqm = \"droptail\"", &tcp_and_probe(0, 6)));
    let bands = run(&dumbbell(
        "aqm = \"droptail\"\nprio = { bands = 3 }",
        &tcp_and_probe(0, 6),
    ));
    for r in [&fifo, &bands] {
        check_invariants(r, 3.0 * 400.0, 10e6, 1000.0);
        assert!(m(r, "link_efficiency") > 0.99);
    }
    // Drop tail's standing queue (up to 400 packets, 320 ms) delays the probes in one FIFO;
    // in band 0 a probe waits at most for the packet on the wire (0.8 ms) at the bottleneck.
    let base_ms = 26.1;
    assert!(m(&fifo, "probe_rtt_p50_ms") > base_ms + 100.0);
    let p99 = m(&bands, "probe_rtt_p99_ms");
    assert!((base_ms..base_ms + 2.0).contains(&p99), "{p99}");
    assert_eq!(m(&bands, "probes_lost"), 0.0);
    // Same priority for both groups: the probes share band 1's queue again.
    let same = run(&dumbbell(
        "aqm = \"droptail\"\nprio = { bands = 3 }",
        &tcp_and_probe(0, 0),
    ));
    assert!(m(&same, "probe_rtt_p50_ms") > base_ms + 100.0);
}

#[test]
fn a_saturated_higher_band_starves_the_lower_one() {
    // A CBR flow at 12 Mb/s in band 0 over a 10 Mb/s link: band 1's TCP flows get nothing
    // once the flood has started.
    let groups = r#"
[[traffic.groups]]
name = "tcp"
[traffic.groups.schedule]
kind = "constant"
flows = 5
[[traffic.groups]]
name = "flood"
transport = "udp"
priority = 7
[traffic.groups.source]
kind = "cbr"
rate_kbps = 12000.0
packet_bytes = 1000
[traffic.groups.schedule]
kind = "constant"
flows = 1
"#;
    let r = run(&dumbbell("aqm = \"codel\"\nprio = { bands = 2, priomap = [1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1] }", groups));
    check_invariants(&r, 2.0 * 400.0, 10e6, 1000.0);
    let names = col(&r.groups, "throughput_mbps");
    let (tcp, flood) = (names[0], names[1]);
    assert!(tcp < 0.05, "band 1 starves: {tcp}");
    assert!(flood > 9.5, "{flood}");
}

#[test]
fn every_kind_of_discipline_runs_in_the_bands() {
    for aqm in ["red", "pie", "fq_codel", "fq_pie", "cake"] {
        let queue = format!("aqm = \"{aqm}\"\nprio = {{ bands = 3 }}\ntbf = {{ rate_mbps = 8 }}");
        let r = run(&dumbbell(&queue, &tcp_and_probe(0, 6)));
        check_invariants(&r, 3.0 * 401.0, 10e6, 1000.0);
        let efficiency = m(&r, "link_efficiency");
        assert!((0.75..=0.81).contains(&efficiency), "{aqm}: {efficiency}");
        assert!(m(&r, "probe_rtt_p99_ms") < 30.0, "{aqm}");
    }
}

#[test]
fn bad_priority_values_name_the_key() {
    let groups = tcp_and_probe(0, 6);
    let cases = [
        (
            "prio = { bands = 1 }",
            "queue.prio.bands: must be 0 (no priority bands) or an integer in [2, 16], got 1",
        ),
        (
            "prio = { bands = 17 }",
            "queue.prio.bands: must be an integer in [0, 16], got 17",
        ),
        (
            "prio = { bands = 2 }",
            "queue.prio.priomap: the default priomap sends priority 1 to band 2, which needs at \
             least 3 bands; give a priomap of bands below 2",
        ),
        (
            "prio = { bands = 2, priomap = [0, 1] }",
            "queue.prio.priomap: must be an array of 16 integers in [0, 1], got 2 items",
        ),
        (
            "prio = { bands = 3, priomap = [0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }",
            "queue.prio.priomap[3]: must be an array of 16 integers in [0, 2], got 3",
        ),
        (
            "prio = { bands = 3, priomap = \"1 2 2\" }",
            "queue.prio.priomap: must be an array of 16 integers in [0, 2], got a string",
        ),
    ];
    for (queue, expected) in cases {
        assert_eq!(error(&dumbbell(queue, &groups)), expected);
    }
    let bad_priority = tcp_and_probe(16, 6);
    assert_eq!(
        error(&dumbbell("", &bad_priority)),
        "traffic.groups[0].priority: must be an integer in [0, 15], got 16"
    );
}

#[test]
fn a_port_given_one_aqm_instance_refuses_bands() {
    let text = dumbbell(
        "aqm = \"droptail\"\nprio = { bands = 3 }",
        &tcp_and_probe(0, 6),
    );
    let sc = sim::scenario::load(&text, &[]).unwrap();
    let e = sim::Simulation::with_aqm(sc, Box::new(aqm::DropTail))
        .err()
        .expect("bands with one AQM instance are refused");
    assert_eq!(
        e.to_string(),
        "queue.prio.bands: must be 0 here: priority bands each run an AQM instance, and one AQM \
         instance is given"
    );
}
