//! A queue table (`[queue]`, a link's `queue` or `reverse_queue`): the AQM by name from the
//! AQM registry, the packet and byte limits, ECN, and each AQM's parameters.

use super::aqm_params;
use super::error::ScenarioError;
use super::model::{QueueSpec, TbfSpec};
use super::reader::{Range, Section};

const U32_MAX: i64 = u32::MAX as i64;

/// Read a queue table: the AQM, its limits, ECN, and every AQM's parameter table.
pub(super) fn queue(mut s: Section) -> Result<QueueSpec, ScenarioError> {
    let aqm = s.choice("aqm", aqm::registry::names(), Some("droptail"))?;
    let limit_pkts = s.int("limit_pkts", Some(1000), 1, U32_MAX)? as u32;
    let limit_bytes = s.int("limit_bytes", Some(0), 0, i64::MAX)? as u64;
    let ecn = s.bool("ecn", false)?;
    let tbf = tbf(s.section("tbf")?)?;
    let mut reader = aqm_params::ReadAll {
        section: &mut s,
        tables: Vec::new(),
        error: None,
    };
    aqm::registry::for_each(&mut reader);
    if let Some(e) = reader.error {
        return Err(e);
    }
    let spec = QueueSpec {
        aqm,
        limit_pkts,
        limit_bytes,
        ecn,
        params: reader.tables,
        tbf,
    };
    s.finish()?;
    Ok(spec)
}

/// The `tbf` table: a token-bucket shaper, off by default (ns-3.37 `TbfQueueDisc` attributes,
/// its defaults for the bucket sizes).
fn tbf(mut s: Section) -> Result<TbfSpec, ScenarioError> {
    const RATE_MBPS: Range = Range::Closed(0.0, 1e6);
    let spec = TbfSpec {
        rate_mbps: s.f64("rate_mbps", Some(0.0), RATE_MBPS)?,
        burst_bytes: s.int("burst_bytes", Some(125_000), 1, i64::from(u32::MAX))? as u64,
        peak_rate_mbps: s.f64("peak_rate_mbps", Some(0.0), RATE_MBPS)?,
        mtu_bytes: s.int("mtu_bytes", Some(0), 0, i64::from(u32::MAX))? as u64,
    };
    if spec.peak_rate_mbps > 0.0 && spec.rate_mbps == 0.0 {
        return Err(s.error(
            "peak_rate_mbps",
            "needs rate_mbps above 0 (the shaper is off)",
        ));
    }
    if spec.peak_rate_mbps > 0.0 && spec.peak_rate_mbps <= spec.rate_mbps {
        return Err(s.error(
            "peak_rate_mbps",
            format!("must be 0 (none) or above rate_mbps ({})", spec.rate_mbps),
        ));
    }
    s.finish()?;
    Ok(spec)
}
