//! A flow group's `transport` and `source`: bulk or finite TCP, CBR or exponential ON/OFF UDP.

use super::error::ScenarioError;
use super::model::*;
use super::reader::{Range, Section};
use crate::time::MAX_TIME_S;

/// The largest finite flow, bytes (1 TB): the most a size may be set to or drawn as.
pub const MAX_FLOW_BYTES: i64 = 1_000_000_000_000;

/// The slowest and fastest UDP source, kb/s.
const UDP_RATE_KBPS: Range = Range::Closed(1e-3, 1e9);

/// A UDP packet on the wire, bytes: at least the IP and UDP headers.
const UDP_PACKET_BYTES: (i64, i64) = (28, 65_535);

/// Read a group's `transport` and its `source` table.
pub fn source(g: &mut Section) -> Result<Source, ScenarioError> {
    let transport = g.choice("transport", TRANSPORT_NAMES, Some("tcp"))?;
    let has_source = g.has("source");
    let mut s = g.section("source")?;
    let source = if transport == "tcp" {
        match s.choice("kind", &["bulk", "finite"], Some("bulk"))? {
            "bulk" => Source::TcpBulk,
            _ => Source::TcpFinite {
                size: size(s.section("size")?)?,
            },
        }
    } else {
        if !has_source {
            return Err(g.error("source", "is required for a UDP group (kind cbr or onoff)"));
        }
        let kind = s.choice("kind", &["cbr", "onoff"], None)?;
        let rate_kbps = s.f64("rate_kbps", None, UDP_RATE_KBPS)?;
        let (lo, hi) = UDP_PACKET_BYTES;
        let packet_bytes = s.int("packet_bytes", None, lo, hi)? as u32;
        if kind == "cbr" {
            Source::UdpCbr {
                rate_kbps,
                packet_bytes,
                random: s.bool("random", false)?,
            }
        } else {
            Source::UdpOnOff {
                rate_kbps,
                packet_bytes,
                on_mean_s: s.f64("on_mean_s", None, Range::LeftOpen(0.0, MAX_TIME_S))?,
                off_mean_s: s.f64("off_mean_s", None, Range::Closed(0.0, MAX_TIME_S))?,
            }
        }
    };
    s.finish()?;
    Ok(source)
}

/// A finite flow's `size` table.
fn size(mut s: Section) -> Result<SizeSpec, ScenarioError> {
    const MEAN: Range = Range::Closed(1.0, MAX_FLOW_BYTES as f64);
    let spec = match s.choice("kind", &["fixed", "exponential", "pareto"], None)? {
        "fixed" => SizeSpec::Fixed {
            bytes: s.int("bytes", None, 1, MAX_FLOW_BYTES)? as u64,
        },
        "exponential" => SizeSpec::Exponential {
            mean_bytes: s.f64("mean_bytes", None, MEAN)?,
        },
        _ => SizeSpec::Pareto {
            mean_bytes: s.f64("mean_bytes", None, MEAN)?,
            shape: s.f64("shape", None, Range::LeftOpen(1.0, 100.0))?,
        },
    };
    s.finish()?;
    Ok(spec)
}
