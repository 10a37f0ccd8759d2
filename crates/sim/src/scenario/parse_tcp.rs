//! The `[tcp]` table: a preset and the knobs set on top of it, congestion control by the names
//! of its registry.

use super::error::ScenarioError;
use super::reader::{Range, Section};
use crate::tcp::cc::registry::CcKind;
use crate::tcp::cc::EcnUse;
use crate::tcp::config::{
    EcnFeedback, EcnResponse, EctCodepoint, RecoveryExit, RecoveryKind, RttEstimatorKind,
    TcpConfig, WindowGrowth, WindowReduction, PRESETS,
};
use crate::time::{MAX_TIME_MS, MAX_TIME_S};

/// The `[tcp]` keys whose defaults depend on the congestion control (an algorithm that needs ECN
/// or pacing turns them on). A flow group's `tcp` table that names its own `cc` takes these from
/// that `cc` unless it sets them too, rather than from the scenario's `[tcp]`.
pub(super) const CC_DEFAULTED_KEYS: &[&str] = &["ecn", "ect_codepoint", "ecn_feedback", "pacing"];

/// The shortest retransmission and delayed-ACK timeouts, seconds (1 µs).
const MIN_TIMEOUT_S: f64 = 1e-6;

/// Read a `[tcp]` table (or a group's `tcp` table merged over it): a preset, then every knob
/// that overrides it, and the combinations that have no meaning refused.
pub(super) fn tcp(mut s: Section) -> Result<TcpConfig, ScenarioError> {
    const TIMEOUT_S: Range = Range::Closed(MIN_TIMEOUT_S, MAX_TIME_S);
    let preset = s.choice("preset", PRESETS, Some("ns3"))?;
    let base = TcpConfig::preset(preset).expect("every listed preset exists");
    let cc_name = s.choice("cc", CcKind::NAMES, Some(base.cc.name()))?;
    let cc = CcKind::from_name(cc_name).expect("a registered name");
    // An algorithm that needs ECN turns it on, with its feedback and codepoint, by default.
    let (ecn_default, codepoint_default, feedback_default) = match cc.ecn_use() {
        EcnUse::Optional => (base.ecn, base.ect_codepoint, base.ecn_feedback),
        EcnUse::Required {
            codepoint,
            feedback,
        } => (true, codepoint, feedback),
    };
    let ect_codepoint = s.choice(
        "ect_codepoint",
        EctCodepoint::NAMES,
        Some(codepoint_default.name()),
    )?;
    let ecn_feedback = s.choice(
        "ecn_feedback",
        EcnFeedback::NAMES,
        Some(feedback_default.name()),
    )?;
    let packet_bytes = s.int("packet_bytes", Some(base.packet_bytes.into()), 60, 65_535)? as u32;
    let header_bytes = s.int("header_bytes", Some(base.header_bytes.into()), 20, 120)? as u32;
    if header_bytes >= packet_bytes {
        return Err(s.error("header_bytes", "must be smaller than packet_bytes"));
    }
    let recovery = s.choice("recovery", RecoveryKind::NAMES, Some(base.recovery.name()))?;
    let recovery_exit = s.choice(
        "recovery_exit",
        RecoveryExit::NAMES,
        Some(base.recovery_exit.name()),
    )?;
    let window_growth = s.choice(
        "window_growth",
        WindowGrowth::NAMES,
        Some(base.window_growth.name()),
    )?;
    let window_reduction = s.choice(
        "window_reduction",
        WindowReduction::NAMES,
        Some(base.window_reduction.name()),
    )?;
    let ecn_response = s.choice(
        "ecn_response",
        EcnResponse::NAMES,
        Some(base.ecn_response.name()),
    )?;
    let rtt_estimator = s.choice(
        "rtt_estimator",
        RttEstimatorKind::NAMES,
        Some(base.rtt_estimator.name()),
    )?;
    let c = TcpConfig {
        preset: preset.to_string(),
        cc,
        recovery: RecoveryKind::from_name(recovery).expect("a listed name"),
        recovery_exit: RecoveryExit::from_name(recovery_exit).expect("a listed name"),
        sack: s.bool("sack", base.sack)?,
        limited_transmit: s.bool("limited_transmit", base.limited_transmit)?,
        fast_retransmit_restarts_timer: s.bool(
            "fast_retransmit_restarts_timer",
            base.fast_retransmit_restarts_timer,
        )?,
        window_growth: WindowGrowth::from_name(window_growth).expect("a listed name"),
        window_reduction: WindowReduction::from_name(window_reduction).expect("a listed name"),
        timestamps: s.bool("timestamps", base.timestamps)?,
        handshake: s.bool("handshake", base.handshake)?,
        conn_timeout_s: s.f64("conn_timeout_s", Some(base.conn_timeout_s), TIMEOUT_S)?,
        conn_retries: s.int("conn_retries", Some(base.conn_retries.into()), 1, 64)? as u32,
        data_retries: s.int("data_retries", Some(base.data_retries.into()), 0, 64)? as u32,
        rtt_estimator: RttEstimatorKind::from_name(rtt_estimator).expect("a listed name"),
        packet_bytes,
        header_bytes,
        ack_bytes: s.int("ack_bytes", Some(base.ack_bytes.into()), 20, 1500)? as u32,
        initial_cwnd_pkts: s.int(
            "initial_cwnd_pkts",
            Some(base.initial_cwnd_pkts.into()),
            1,
            10_000,
        )? as u32,
        rwnd_pkts: s.int("rwnd_pkts", Some(base.rwnd_pkts.into()), 1, 1 << 30)? as u32,
        send_buffer_bytes: s.int(
            "send_buffer_bytes",
            Some(base.send_buffer_bytes.into()),
            0,
            1 << 30,
        )? as u32,
        min_rto_s: s.f64("min_rto_s", Some(base.min_rto_s), TIMEOUT_S)?,
        initial_rto_s: s.f64("initial_rto_s", Some(base.initial_rto_s), TIMEOUT_S)?,
        max_rto_s: s.f64("max_rto_s", Some(base.max_rto_s), TIMEOUT_S)?,
        clock_granularity_s: s.f64(
            "clock_granularity_s",
            Some(base.clock_granularity_s),
            Range::Closed(0.0, MAX_TIME_S),
        )?,
        delayed_ack: s.bool("delayed_ack", base.delayed_ack)?,
        delack_count: s.int("delack_count", Some(base.delack_count.into()), 1, 64)? as u32,
        delack_timeout_ms: s.f64(
            "delack_timeout_ms",
            Some(base.delack_timeout_ms),
            Range::Closed(MIN_TIMEOUT_S * 1e3, MAX_TIME_MS),
        )?,
        max_burst_pkts: s.int(
            "max_burst_pkts",
            Some(base.max_burst_pkts.into()),
            0,
            1 << 30,
        )? as u32,
        dupack_threshold: s.int(
            "dupack_threshold",
            Some(base.dupack_threshold.into()),
            1,
            64,
        )? as u32,
        ecn: s.bool("ecn", ecn_default)?,
        ecn_response: EcnResponse::from_name(ecn_response).expect("a listed name"),
        ect_codepoint: EctCodepoint::from_name(ect_codepoint).expect("a listed name"),
        ecn_feedback: EcnFeedback::from_name(ecn_feedback).expect("a listed name"),
        dctcp_g: s.f64("dctcp_g", Some(base.dctcp_g), Range::LeftOpen(0.0, 1.0))?,
        dctcp_alpha_init: s.f64(
            "dctcp_alpha_init",
            Some(base.dctcp_alpha_init),
            Range::Closed(0.0, 1.0),
        )?,
        dctcp_halve_on_loss: s.bool("dctcp_halve_on_loss", base.dctcp_halve_on_loss)?,
        prague_ecn_fallback: s.bool("prague_ecn_fallback", base.prague_ecn_fallback)?,
        // Linux's sysctl takes 1 up to GSO_MAX_SEGS.
        prague_min_tso_segs: s.int(
            "prague_min_tso_segs",
            Some(base.prague_min_tso_segs.into()),
            1,
            65_535,
        )? as u32,
        ledbat_target_ms: s.f64(
            "ledbat_target_ms",
            Some(base.ledbat_target_ms),
            Range::Closed(0.001, 1e6),
        )?,
        ledbat_gain: s.f64(
            "ledbat_gain",
            Some(base.ledbat_gain),
            Range::LeftOpen(0.0, 1000.0),
        )?,
        cubic_c: s.f64("cubic_c", Some(base.cubic_c), Range::Positive)?,
        cubic_beta: s.f64("cubic_beta", Some(base.cubic_beta), Range::Open(0.0, 1.0))?,
        fast_convergence: s.bool("fast_convergence", base.fast_convergence)?,
        cubic_friendliness: s.bool("cubic_friendliness", base.cubic_friendliness)?,
        hystart: s.bool("hystart", base.hystart)?,
        hystart_low_window_pkts: s.int(
            "hystart_low_window_pkts",
            Some(base.hystart_low_window_pkts.into()),
            2,
            1 << 20,
        )? as u32,
        pacing: s.bool("pacing", base.pacing || cc.has_cong_control())?,
        pacing_ss_ratio: s.f64(
            "pacing_ss_ratio",
            Some(base.pacing_ss_ratio),
            Range::Closed(0.01, 100.0),
        )?,
        pacing_ca_ratio: s.f64(
            "pacing_ca_ratio",
            Some(base.pacing_ca_ratio),
            Range::Closed(0.01, 100.0),
        )?,
    };
    if c.max_rto_s < c.min_rto_s {
        return Err(s.error("max_rto_s", "must be >= min_rto_s"));
    }
    match (c.recovery, c.sack) {
        (RecoveryKind::Reno, true) => {
            return Err(s.error(
                "recovery",
                "\"reno\" needs sack = false; with SACK use \"prr\", \"newreno\" or \"sack1\"",
            ))
        }
        (RecoveryKind::Prr, false) => {
            return Err(s.error("recovery", "\"prr\" needs sack = true"));
        }
        (RecoveryKind::Sack1, false) => {
            return Err(s.error("recovery", "\"sack1\" needs sack = true"));
        }
        _ => {}
    }
    check_ecn(&c, &s)?;
    check_pacing(&c, &s)?;
    if c.timestamps && c.rtt_estimator == RttEstimatorKind::Ns2 {
        return Err(s.error(
            "timestamps",
            "needs rtt_estimator = \"rfc6298\" (ns-2's estimator times its own segments)",
        ));
    }
    s.finish()?;
    Ok(c)
}

/// Pacing and rate-based congestion control run on the RFC 6675 path only (ns-3's sender); an
/// algorithm that sets the pacing rate itself (ns-3's HasCongControl, BBR) needs pacing on.
fn check_pacing(c: &TcpConfig, s: &Section) -> Result<(), ScenarioError> {
    let sack_path = c.sack && c.recovery != RecoveryKind::Sack1;
    if c.cc.has_cong_control() && !sack_path {
        return Err(s.error(
            "cc",
            format!(
                "{} needs sack = true with recovery \"prr\" or \"newreno\"",
                c.cc.name()
            ),
        ));
    }
    if c.cc.has_cong_control() && !c.pacing {
        return Err(s.error("pacing", format!("{} needs pacing = true", c.cc.name())));
    }
    if c.pacing && !sack_path {
        return Err(s.error(
            "pacing",
            "needs sack = true with recovery \"prr\" or \"newreno\"",
        ));
    }
    Ok(())
}

/// ECN settings that contradict each other or the congestion control: an algorithm that needs
/// ECN without it or with another feedback, ECT(1) (the L4S identifier, which RFC 9331 §4.2
/// reserves for senders with accurate feedback) with classic feedback, per-CE feedback without
/// ECN.
fn check_ecn(c: &TcpConfig, s: &Section) -> Result<(), ScenarioError> {
    if let EcnUse::Required { feedback, .. } = c.cc.ecn_use() {
        if !c.ecn {
            return Err(s.error("ecn", format!("{} needs ecn = true", c.cc.name())));
        }
        if c.ecn_feedback != feedback {
            return Err(s.error(
                "ecn_feedback",
                format!(
                    "{} needs ecn_feedback = \"{}\"",
                    c.cc.name(),
                    feedback.name()
                ),
            ));
        }
    }
    if c.ecn_feedback == EcnFeedback::PerCe && !c.ecn {
        return Err(s.error("ecn_feedback", "\"per_ce\" needs ecn = true"));
    }
    if c.ecn && c.ect_codepoint == EctCodepoint::Ect1 && c.ecn_feedback == EcnFeedback::Classic {
        return Err(s.error(
            "ect_codepoint",
            "\"ect1\" (the L4S identifier) needs ecn_feedback = \"per_ce\"",
        ));
    }
    Ok(())
}
