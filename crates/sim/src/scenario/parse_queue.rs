//! A queue table (`[queue]`, a link's `queue` or `reverse_queue`): the AQM by name from the
//! AQM registry, the packet and byte limits, ECN, the token-bucket shaper, the priority bands,
//! and each AQM's parameters.

use super::aqm_params;
use super::error::ScenarioError;
use super::model::{PrioSpec, QueueSpec, TbfSpec};
use super::reader::{type_name, Range, Section};
use crate::net::qdisc::discipline::prio::{DEFAULT_PRIOMAP, MAX_BANDS};
use toml::Value;

const U32_MAX: i64 = u32::MAX as i64;

/// Read a queue table: the AQM, its limits, ECN, and every AQM's parameter table.
pub(super) fn queue(mut s: Section) -> Result<QueueSpec, ScenarioError> {
    let aqm = s.choice("aqm", aqm::registry::names(), Some("droptail"))?;
    let limit_pkts = s.int("limit_pkts", Some(1000), 1, U32_MAX)? as u32;
    let limit_bytes = s.int("limit_bytes", Some(0), 0, i64::MAX)? as u64;
    let ecn = s.bool("ecn", false)?;
    let tbf = tbf(s.section("tbf")?)?;
    let prio = prio(s.section("prio")?)?;
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
        prio,
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

/// The `prio` table: strict priority over bands, off by default (ns-3.37 `PrioQueueDisc`,
/// Linux `sch_prio`: 2 to 16 bands, the priomap's entries below the band count).
fn prio(mut s: Section) -> Result<PrioSpec, ScenarioError> {
    let max = MAX_BANDS as i64;
    let bands = s.int("bands", Some(0), 0, max)? as u32;
    if bands == 1 {
        return Err(s.error(
            "bands",
            format!("must be 0 (no priority bands) or an integer in [2, {max}], got 1"),
        ));
    }
    let priomap = priomap(&mut s, bands)?;
    s.finish()?;
    Ok(PrioSpec { bands, priomap })
}

/// The priomap: 16 bands, one per socket priority, each below `bands` when bands are on.
fn priomap(s: &mut Section, bands: u32) -> Result<[u8; 16], ScenarioError> {
    let Some(v) = s.value("priomap") else {
        let missing = DEFAULT_PRIOMAP
            .iter()
            .position(|&b| bands > 0 && u32::from(b) >= bands);
        return match missing {
            None => Ok(DEFAULT_PRIOMAP),
            Some(i) => Err(s.error(
                "priomap",
                format!(
                    "the default priomap sends priority {i} to band {}, which needs at least {} \
                     bands; give a priomap of bands below {bands}",
                    DEFAULT_PRIOMAP[i],
                    DEFAULT_PRIOMAP[i] + 1
                ),
            )),
        };
    };
    let top = if bands > 0 {
        bands - 1
    } else {
        MAX_BANDS as u32 - 1
    };
    let allowed = format!("must be an array of 16 integers in [0, {top}]");
    let items = match v {
        Value::Array(items) if items.len() == 16 => items,
        Value::Array(items) => {
            return Err(s.error("priomap", format!("{allowed}, got {} items", items.len())))
        }
        other => return Err(s.error("priomap", format!("{allowed}, got {}", type_name(other)))),
    };
    let mut map = [0u8; 16];
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Integer(b) if (0..=i64::from(top)).contains(b) => map[i] = *b as u8,
            Value::Integer(b) => {
                return Err(s.error(&format!("priomap[{i}]"), format!("{allowed}, got {b}")))
            }
            other => {
                return Err(s.error(
                    &format!("priomap[{i}]"),
                    format!("{allowed}, got {}", type_name(other)),
                ))
            }
        }
    }
    Ok(map)
}
