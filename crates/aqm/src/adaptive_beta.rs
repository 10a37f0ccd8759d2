//! What ABetaRED and DBetaRED share (Giménez et al. 2022, §5.1–5.2): thresholds q_min = 0 and
//! q_max = B (eq. (9)), a target q_target = C·T_target (eq. (10)) with C in packets per second,
//! and an update every T_update with step factors Alpha and Beta in (0, 1].

use crate::beta_curve::validate_theta;
use crate::contract::ParamError;
use crate::param_doc::ParamDoc;
use crate::red::validate_common;

/// The link the adaptive variants are configured for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkContext {
    /// Link rate, bits per second.
    pub rate_bps: f64,
    /// Buffer size B, packets.
    pub buffer_pkts: u32,
}

/// T_target, shared by ABetaRED and DBetaRED.
pub(crate) const T_TARGET_DOC: ParamDoc = ParamDoc::new(
    "t_target_ms",
    "ms",
    "> 0, with C·T_target in (0, limit_pkts)",
    "target queueing delay T_target: q_target = C·T_target, C in packets/s",
);
/// T_update, shared by ABetaRED and DBetaRED.
pub(crate) const T_UPDATE_DOC: ParamDoc =
    ParamDoc::new("t_update_s", "s", "> 0", "update period T_update");

/// Thresholds and target from eq. (9)–(10): (q_min, q_max, q_target) in packets.
pub fn thresholds(
    link: LinkContext,
    t_target_ms: f64,
    mean_pkt_bytes: f64,
) -> Result<(f64, f64, f64), ParamError> {
    if !(link.rate_bps > 0.0 && link.rate_bps.is_finite()) {
        return Err(ParamError::new("rate_bps", "must be a number > 0"));
    }
    let q_max = f64::from(link.buffer_pkts);
    let c_pkts_per_s = link.rate_bps / (8.0 * mean_pkt_bytes);
    let q_target = c_pkts_per_s * t_target_ms * 1e-3;
    if !(q_target > 0.0 && q_target < q_max) {
        return Err(ParamError::new(
            "t_target_ms",
            format!(
                "gives q_target = C·T_target = {q_target:.1} packets, outside (0, B) = (0, {q_max})"
            ),
        ));
    }
    Ok((0.0, q_max, q_target))
}

/// Check the parameters both adaptive variants have.
pub fn validate_adaptive(
    t_target_ms: f64,
    w: f64,
    theta: f64,
    alpha: f64,
    beta: f64,
    t_update_s: f64,
    mean_pkt_bytes: f64,
) -> Result<(), ParamError> {
    if !(t_target_ms > 0.0 && t_target_ms.is_finite()) {
        return Err(ParamError::new("t_target_ms", "must be a number > 0"));
    }
    validate_theta(theta)?;
    if !(alpha > 0.0 && alpha <= 1.0) {
        return Err(ParamError::new("alpha", "must be in (0, 1]"));
    }
    if !(beta > 0.0 && beta <= 1.0) {
        return Err(ParamError::new("beta", "must be in (0, 1]"));
    }
    if !(t_update_s > 0.0 && t_update_s.is_finite()) {
        return Err(ParamError::new("t_update_s", "must be a number > 0"));
    }
    validate_common(w, mean_pkt_bytes)
}
