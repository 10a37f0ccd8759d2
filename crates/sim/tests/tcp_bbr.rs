//! Pacing and BBR over whole runs: a paced sender spaces its segments after the initial
//! window; BBR fills a drop-tail bottleneck whose buffer is shorter than the path's
//! bandwidth-delay product, its design point, with a short standing queue; the scenario reader
//! turns pacing on for BBR and refuses settings it cannot run with.

mod common;
mod tcp_path;

use common::{check_invariants, error, m, run};
use sim::tcp::cc::registry::CcKind;
use sim::tcp::config::TcpConfig;
use tcp_path::run_path;

/// Data packets sent at the same nanosecond as the one before, after the first `skip`.
fn simultaneous_sends(cfg: &TcpConfig, skip: usize) -> usize {
    let (_, trace) = run_path(cfg, 2.0, 100_000_000, 20.0, |_, _, _| false);
    assert!(trace.sends.len() > 500, "{} sends", trace.sends.len());
    trace.sends[skip..]
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .count()
}

#[test]
fn pacing_spaces_segments_after_the_initial_window() {
    let unpaced = TcpConfig::ns3();
    let paced = TcpConfig {
        pacing: true,
        ..TcpConfig::ns3()
    };
    // Without pacing each ACK releases its segments back to back; paced, no two leave at the
    // same instant once the initial window is out.
    assert!(simultaneous_sends(&unpaced, 10) > 100);
    assert_eq!(simultaneous_sends(&paced, 10), 0);
    // The initial window itself leaves at once (PaceInitialWindow false).
    let (_, trace) = run_path(&paced, 0.1, 100_000_000, 20.0, |_, _, _| false);
    assert!(trace.sends[..10].iter().all(|s| s.0 == trace.sends[0].0));
}

#[test]
fn bbr_paces_every_segment_after_the_initial_window() {
    let cfg = TcpConfig {
        cc: CcKind::Bbr,
        pacing: true,
        ..TcpConfig::ns3()
    };
    assert_eq!(simultaneous_sends(&cfg, 10), 0);
}

/// A dumbbell of `flows` flows of `cc` through a drop-tail queue of `limit` packets: 20 Mb/s,
/// 10 ms each way at the bottleneck and 1 ms on each access link (RTT 24 ms, BDP 60 packets).
fn short_buffer(cc: &str, flows: u32, limit: u32) -> String {
    format!(
        r#"
        duration_s = 30.0
        seed = 3
        [topology]
        bottleneck_rate_mbps = 20.0
        bottleneck_delay_ms = 10.0
        [queue]
        aqm = "droptail"
        limit_pkts = {limit}
        [tcp]
        preset = "ns3"
        cc = "{cc}"
        [traffic.schedule]
        kind = "constant"
        flows = {flows}
        [measure]
        window = [10.0, 30.0]
        "#
    )
}

#[test]
fn bbr_fills_a_short_drop_tail_buffer() {
    // A buffer of a third of the BDP: BBR keeps the link busy with a queue of a few packets.
    let r = run(&short_buffer("bbr", 1, 20));
    check_invariants(&r, 20.0, 20e6, 1000.0);
    let efficiency = m(&r, "link_efficiency");
    assert!(efficiency > 0.95, "link efficiency {efficiency}");
    let avg = m(&r, "avg_queue_pkts");
    assert!(avg < 8.0, "average queue {avg}");
    // CUBIC on the same path fills the buffer before each loss.
    let cubic = run(&short_buffer("cubic", 1, 20));
    assert!(m(&cubic, "avg_queue_pkts") > avg);
}

#[test]
fn bbr_turns_pacing_on_and_refuses_it_off() {
    let text = sim::resolve_scenario(&short_buffer("bbr", 1, 20), &[]).unwrap();
    assert!(text.contains("pacing = true"), "{text}");
    let cases = [
        (
            "cc = \"bbr\"\npacing = false",
            "tcp.pacing: bbr needs pacing = true",
        ),
        (
            "cc = \"bbr\"\nsack = false\nrecovery = \"newreno\"",
            "tcp.cc: bbr needs sack = true with recovery \"prr\" or \"newreno\"",
        ),
        (
            "pacing = true\nrecovery = \"sack1\"",
            "tcp.pacing: needs sack = true with recovery \"prr\" or \"newreno\"",
        ),
        ("pacing_ss_ratio = 0.0", "tcp.pacing_ss_ratio: "),
    ];
    for (tcp, expected) in cases {
        let text = short_buffer("cubic", 1, 20).replace("cc = \"cubic\"", tcp);
        let e = error(&text);
        assert!(e.starts_with(expected), "{tcp}: {e}");
        assert!(!e.contains('\n'));
    }
}
