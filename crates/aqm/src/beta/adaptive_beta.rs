//! What ABetaRED and DBetaRED share (Giménez et al. 2022, §5.1–5.2): thresholds q_min = 0 and
//! q_max = B (eq. (9)), a target q_target = C·T_target (eq. (10)) with C in packets per second,
//! and an update every T_update with step factors Alpha and Beta in (0, 1].

use crate::contract::{check_rate_bps, LinkContext, ParamError};
use crate::params::{ParamDoc, Range, POSITIVE};
use crate::red::common_params::MEAN_PKT_BYTES;

/// The typical packet size of ABetaRED and DBetaRED: it also converts the link rate to
/// packets/s, so it bounds q_target = C·T_target.
pub(crate) const ADAPTIVE_MEAN_PKT_BYTES_DOC: ParamDoc = ParamDoc::new(
    "mean_pkt_bytes",
    "bytes",
    Range::Joint(&MEAN_PKT_BYTES, "with C·T_target in (0, limit_pkts)"),
    "typical packet size: idle correction, byte mode, link rate in packets/s (hence q_target)",
);
/// T_target, shared by ABetaRED and DBetaRED.
pub(crate) const T_TARGET_DOC: ParamDoc = ParamDoc::new(
    "t_target_ms",
    "ms",
    Range::Joint(
        &POSITIVE,
        "with C·T_target in (0, limit_pkts); limit_pkts >= 3",
    ),
    "target queueing delay T_target: q_target = C·T_target, C in packets/s",
);
/// T_update, shared by ABetaRED and DBetaRED.
pub(crate) const T_UPDATE_DOC: ParamDoc =
    ParamDoc::new("t_update_s", "s", POSITIVE, "update period T_update");

/// Smallest buffer B the adaptive variants accept, packets: DBetaRED keeps its virtual target
/// in [q_min + 1, q_max − 1] (Algorithm 3, lines 11 and 13), an empty or single-point range
/// below 3 packets, where μ reaches 0 or 1 and the curve's shapes become NaN.
pub const MIN_BUFFER_PKTS: u32 = 3;

/// Thresholds and target from eq. (9)–(10): (q_min, q_max, q_target) in packets. Rejects a
/// buffer below [`MIN_BUFFER_PKTS`].
pub fn thresholds(
    link: LinkContext,
    t_target_ms: f64,
    mean_pkt_bytes: f64,
) -> Result<(f64, f64, f64), ParamError> {
    check_rate_bps(link.rate_bps)?;
    if link.buffer_pkts < MIN_BUFFER_PKTS {
        return Err(ParamError::new(
            "limit_pkts",
            format!(
                "must be at least {MIN_BUFFER_PKTS} packets for the adaptive BetaRED variants \
                 (got {})",
                link.buffer_pkts
            ),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_below_three_packets_are_rejected() {
        // 50 Mb/s of 1000-byte packets: 6250 packets/s; T_target 0.08 ms gives q_target 0.5.
        for b in [1, 2] {
            let link = LinkContext {
                rate_bps: 50e6,
                buffer_pkts: b,
            };
            assert_eq!(
                thresholds(link, 0.08, 1000.0).unwrap_err().field,
                "limit_pkts"
            );
        }
        let link = LinkContext {
            rate_bps: 50e6,
            buffer_pkts: 3,
        };
        let (q_min, q_max, q_target) = thresholds(link, 0.08, 1000.0).unwrap();
        assert_eq!((q_min, q_max), (0.0, 3.0));
        assert!((q_target - 0.5).abs() < 1e-12);
    }
}
