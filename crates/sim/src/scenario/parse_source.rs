//! A flow group's `transport` and `source`: bulk or finite TCP; CBR, exponential ON/OFF UDP
//! or a latency probe.

use super::error::ScenarioError;
use super::model::*;
use super::reader::{num, Range, Section};
use crate::time::{MAX_TIME_MS, MAX_TIME_S};

/// The largest finite flow, bytes (1 TB): the most a size may be set to or drawn as.
pub const MAX_FLOW_BYTES: i64 = 1_000_000_000_000;

/// The slowest and fastest UDP source, kb/s.
const UDP_RATE_KBPS: Range = Range::Closed(1e-3, 1e9);

/// A UDP packet on the wire, bytes: at least the IP and UDP headers.
const UDP_PACKET_BYTES: (i64, i64) = (28, 65_535);

/// The shortest gap between a latency probe's requests, ms.
const MIN_PROBE_INTERVAL_MS: f64 = 1.0;

/// The most requests one probe flow may send over the run (duration_s / interval_ms): each
/// is a row of the `probes` table, and its number in the flow is a packet's 32-bit `seq`.
pub const MAX_PROBES_PER_FLOW: f64 = 1e8;

/// Read a group's `transport` and its `source` table, for a run of `duration_s`.
pub fn source(g: &mut Section, duration_s: f64) -> Result<Source, ScenarioError> {
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
            return Err(g.error(
                "source",
                "is required for a UDP group (kind cbr, onoff or probe)",
            ));
        }
        let kind = s.choice("kind", &["cbr", "onoff", "probe"], None)?;
        if kind == "probe" {
            let source = probe(&mut s, duration_s)?;
            s.finish()?;
            return Ok(source);
        }
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

/// A latency probe's keys: `interval_ms` (200 ms, flent's ping interval in the RRUL test) in
/// [1 ms, 10¹² ms], at most [`MAX_PROBES_PER_FLOW`] over the run, and `packet_bytes` (64) as a
/// UDP source's.
fn probe(s: &mut Section, duration_s: f64) -> Result<Source, ScenarioError> {
    const KEY: &str = "interval_ms";
    let interval_ms = s.f64(KEY, Some(200.0), Range::Any)?;
    let lo = (duration_s * 1e3 / MAX_PROBES_PER_FLOW).max(MIN_PROBE_INTERVAL_MS);
    if !(lo..=MAX_TIME_MS).contains(&interval_ms) {
        return Err(s.error(
            KEY,
            format!(
                "must be a number in [{}, {}] ms and give at most {} probes over duration_s = \
                 {} (>= {} ms here)",
                num(MIN_PROBE_INTERVAL_MS),
                num(MAX_TIME_MS),
                num(MAX_PROBES_PER_FLOW),
                num(duration_s),
                num(lo)
            ),
        ));
    }
    let (lo, hi) = UDP_PACKET_BYTES;
    Ok(Source::UdpProbe {
        interval_ms,
        packet_bytes: s.int("packet_bytes", Some(64), lo, hi)? as u32,
    })
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
