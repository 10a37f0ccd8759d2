//! The token-bucket shaper in front of a discipline (`[queue.tbf]`): the port sends no faster
//! than the token rate, whatever the discipline, and packets are conserved.

mod common;

use common::{error, m, run};

/// The BetaRED dumbbell (50 Mb/s bottleneck), 50 flows, 20 s, measured over the last 10 s,
/// with `aqm` and the shaper table `tbf`.
fn scenario(aqm: &str, tbf: &str) -> String {
    format!(
        "duration_s = 20.0\nseed = 2\n[traffic.schedule]\nkind = \"constant\"\nflows = 50\n\
         [measure]\nwindow = [10.0, 20.0]\n[queue]\naqm = \"{aqm}\"\ntbf = {{ {tbf} }}\n"
    )
}

#[test]
fn the_shaper_holds_its_rate_under_every_kind_of_discipline() {
    for aqm in ["droptail", "codel", "fq_codel"] {
        let r = run(&scenario(aqm, "rate_mbps = 10"));
        assert_eq!(
            m(&r, "data_sent"),
            m(&r, "data_delivered") + m(&r, "data_dropped") + m(&r, "data_in_flight"),
            "{aqm}: conservation"
        );
        // The link (50 Mb/s) is busy a fifth of the time, and the bytes sent stay within the
        // token rate plus one bucket (125 kB over 10 s: 0.1 Mb/s).
        let efficiency = m(&r, "link_efficiency");
        assert!((0.19..=0.2021).contains(&efficiency), "{aqm}: {efficiency}");
        // The discipline's limit, plus the packet the shaper holds aside (as ns-3's TBF holds
        // its child's head once it has peeked at it).
        assert!(m(&r, "max_queue_pkts") <= 1001.0, "{aqm}");
    }
}

#[test]
fn a_peak_rate_and_an_unshaped_run_behave() {
    let unshaped = run(&scenario("fq_codel", ""));
    assert!(m(&unshaped, "link_efficiency") > 0.99);
    let peaked = run(&scenario(
        "droptail",
        "rate_mbps = 20, peak_rate_mbps = 40, mtu_bytes = 1500",
    ));
    let efficiency = m(&peaked, "link_efficiency");
    assert!((0.39..=0.405).contains(&efficiency), "{efficiency}");
}

#[test]
fn bad_shaper_values_name_the_key() {
    let cases = [
        (
            "rate_mbps = 60",
            "queue.tbf.rate_mbps: must be 0 (no shaper) or at most the link's rate (50 Mb/s), got 60",
        ),
        (
            "rate_mbps = 10, burst_bytes = 500",
            "queue.tbf.burst_bytes: must hold at least one packet (1000 bytes here), got 500",
        ),
        (
            "peak_rate_mbps = 10",
            "queue.tbf.peak_rate_mbps: needs rate_mbps above 0 (the shaper is off)",
        ),
        (
            "rate_mbps = 10, peak_rate_mbps = 5",
            "queue.tbf.peak_rate_mbps: must be 0 (none) or above rate_mbps (10)",
        ),
    ];
    for (tbf, expected) in cases {
        assert_eq!(error(&scenario("droptail", tbf)), expected);
    }
    assert!(error(&scenario("droptail", "rate_mbps = -1")).starts_with("queue.tbf.rate_mbps: "));
}
