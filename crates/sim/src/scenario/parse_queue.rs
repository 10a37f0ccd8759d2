//! A queue table (`[queue]`, a link's `queue` or `reverse_queue`): the AQM by name from the
//! AQM registry, the packet and byte limits, ECN, and each AQM's parameters.

use super::aqm_params;
use super::error::ScenarioError;
use super::model::QueueSpec;
use super::reader::Section;

const U32_MAX: i64 = u32::MAX as i64;

/// Read a queue table: the AQM, its limits, ECN, and every AQM's parameter table.
pub(super) fn queue(mut s: Section) -> Result<QueueSpec, ScenarioError> {
    let aqm = s.choice("aqm", aqm::registry::names(), Some("droptail"))?;
    let limit_pkts = s.int("limit_pkts", Some(1000), 1, U32_MAX)? as u32;
    let limit_bytes = s.int("limit_bytes", Some(0), 0, i64::MAX)? as u64;
    let ecn = s.bool("ecn", false)?;
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
    };
    s.finish()?;
    Ok(spec)
}
