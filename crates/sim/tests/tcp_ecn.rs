//! ECN at the TCP endpoints: the codepoints senders put on their packets, the receiver's
//! classic (RFC 3168) and per-CE (RFC 8257 §3.2) echo, the settings the scenario reader
//! refuses, and DCTCP through a step-marking queue.

mod common;

use common::{check_invariants, error, m, run};
use sim::packet::{flags, Ecn, Packet};
use sim::tcp::config::{EcnFeedback, EctCodepoint, TcpConfig};
use sim::tcp::receiver::Receiver;

/// A data segment `seq` of flow 0 with the ECN field `ecn`.
fn segment(seq: u32, ecn: Ecn) -> Packet {
    Packet::data(0, seq, 1, 1000, 0, ecn.flag_bits())
}

/// The (ackno, ECE) of every ACK the receiver sends for `marks` (true: CE), one segment per
/// millisecond, with delayed ACKs every 2 segments.
fn acks(cfg: &TcpConfig, marks: &[bool]) -> Vec<(u32, bool)> {
    let mut rx = Receiver::new(0, 1);
    let mut out = Vec::new();
    for (seq, &ce) in marks.iter().enumerate() {
        let ecn = if ce { Ecn::Ce } else { cfg.ect_codepoint.ecn() };
        rx.on_data(
            &segment(seq as u32, ecn),
            seq as u64 * 1_000_000,
            cfg,
            &mut out,
        );
    }
    out.iter().map(|a| (a.seq, a.has(flags::ECE))).collect()
}

fn ecn_cfg(feedback: EcnFeedback) -> TcpConfig {
    TcpConfig {
        ecn: true,
        ecn_feedback: feedback,
        ..TcpConfig::ns3()
    }
}

#[test]
fn per_ce_feedback_echoes_exactly_the_marked_segments() {
    let cfg = ecn_cfg(EcnFeedback::PerCe);
    // Segments 0..8, CE on 2, 3 and 6.
    let marks = [false, false, true, true, false, false, true, false];
    // 0,1: one delayed ACK without ECE. 2,3: one with ECE. 4: the state changes with no ACK
    // pending; 4,5 acknowledged together without ECE. 6 (CE) changes the state with nothing
    // pending and is held; 7 (not CE) changes it back while 6 waits: 6 is acknowledged at once
    // with ECE, and 7 waits for the timer.
    assert_eq!(
        acks(&cfg, &marks),
        vec![(2, false), (4, true), (6, false), (7, true)]
    );
}

#[test]
fn classic_feedback_echoes_until_cwr_and_acks_a_mark_at_once() {
    let cfg = ecn_cfg(EcnFeedback::Classic);
    let marks = [false, false, true, false, false, false];
    // The CE segment is acknowledged at once; ECE stays on until a CWR arrives (none here).
    assert_eq!(acks(&cfg, &marks), vec![(2, false), (3, true), (5, true)]);
}

#[test]
fn control_packets_are_ecn_capable_only_with_per_ce_feedback() {
    let mut out = Vec::new();
    for (cfg, ecn) in [
        (ecn_cfg(EcnFeedback::Classic), Ecn::NotEct),
        (ecn_cfg(EcnFeedback::PerCe), Ecn::Ect0),
        (
            TcpConfig {
                ect_codepoint: EctCodepoint::Ect1,
                ..ecn_cfg(EcnFeedback::PerCe)
            },
            Ecn::Ect1,
        ),
    ] {
        out.clear();
        let mut rx = Receiver::new(0, 1);
        rx.on_syn(&Packet::data(0, 0, 1, 52, 0, flags::SYN), &cfg, &mut out);
        rx.on_data(&segment(0, cfg.ect_codepoint.ecn()), 0, &cfg, &mut out);
        rx.on_data(&segment(1, cfg.ect_codepoint.ecn()), 1, &cfg, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|p| p.ecn() == ecn), "{:?}", cfg.ecn_feedback);
    }
}

/// A dumbbell of `flows` flows through a step-marking queue of threshold `k`, with `tcp`
/// lines added to the `[tcp]` table.
fn step_scenario(tcp: &str, k: u32, flows: u32) -> String {
    format!(
        r#"
        duration_s = 20.0
        seed = 2
        [topology]
        bottleneck_rate_mbps = 20.0
        bottleneck_delay_ms = 5.0
        [queue]
        aqm = "step"
        limit_pkts = 200
        ecn = true
        [queue.step]
        k_pkts = {k}
        [tcp]
        preset = "ns3"
        {tcp}
        [traffic.schedule]
        kind = "constant"
        flows = {flows}
        [measure]
        window = [10.0, 20.0]
        "#
    )
}

#[test]
fn dctcp_holds_the_queue_near_k_by_marks_alone() {
    let r = run(&step_scenario("cc = \"dctcp\"", 30, 5));
    check_invariants(&r, 200.0, 20e6, 1000.0);
    let avg = m(&r, "avg_queue_pkts");
    assert!((15.0..40.0).contains(&avg), "average queue {avg}");
    assert_eq!(m(&r, "bottleneck_drops"), 0.0);
    assert!(m(&r, "bottleneck_marks") > 0.0);
    assert!(m(&r, "link_efficiency") > 0.95);
}

#[test]
fn a_classic_sender_meets_the_step_as_a_drop_threshold_without_ecn() {
    let r = run(&step_scenario("cc = \"cubic\"", 30, 5));
    check_invariants(&r, 200.0, 20e6, 1000.0);
    assert!(m(&r, "bottleneck_drops") > 0.0);
    assert_eq!(m(&r, "bottleneck_marks"), 0.0);
}

#[test]
fn contradictory_ecn_settings_are_refused_with_one_line() {
    let cases = [
        (
            "cc = \"dctcp\"\necn = false",
            "tcp.ecn: dctcp needs ecn = true",
        ),
        (
            "cc = \"dctcp\"\necn_feedback = \"classic\"",
            "tcp.ecn_feedback: dctcp needs ecn_feedback = \"per_ce\"",
        ),
        (
            "ecn = true\nect_codepoint = \"ect1\"",
            "tcp.ect_codepoint: \"ect1\" (the L4S identifier) needs ecn_feedback = \"per_ce\"",
        ),
        (
            "ecn_feedback = \"per_ce\"",
            "tcp.ecn_feedback: \"per_ce\" needs ecn = true",
        ),
        (
            "ect_codepoint = \"ect2\"",
            "tcp.ect_codepoint: unknown value \"ect2\"; allowed: ect0, ect1",
        ),
        ("cc = \"dctcp\"\ndctcp_g = 0.0", "tcp.dctcp_g: "),
    ];
    for (tcp, expected) in cases {
        let e = error(&step_scenario(tcp, 30, 2));
        assert!(e.starts_with(expected), "{tcp}: {e}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn dctcp_turns_ecn_on_with_its_feedback_and_codepoint() {
    let text = sim::resolve_scenario(&step_scenario("cc = \"dctcp\"", 30, 2), &[]).unwrap();
    for line in [
        "ecn = true",
        "ecn_feedback = \"per_ce\"",
        "ect_codepoint = \"ect0\"",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
}
