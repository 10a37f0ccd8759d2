//! From a TOML table to a validated [`Scenario`]: the entry point of the scenario reader. It
//! reads the top-level keys and hands each table to its reader (`parse_tcp.rs`,
//! `parse_queue.rs`, `parse_topology.rs`, `parse_traffic.rs`, `measure.rs`), which give every
//! key its path, range and default, then checks what spans tables (byte limits against the
//! largest packet). docs/scenario-format.md documents the same keys.

use super::error::ScenarioError;
use super::measure;
use super::model::*;
use super::overrides::Overridden;
use super::parse_queue::queue;
use super::parse_tcp::tcp;
use super::parse_topology::{self, BaseQueue, LinkBounds};
use super::parse_traffic;
use super::reader::{type_name, Range, Section};
use crate::time::MAX_TIME_S;
use crate::traffic;
use toml::{Table, Value};

/// The shortest run, seconds (1 µs).
const MIN_DURATION_S: f64 = 1e-6;

/// Read and validate a whole scenario; `overridden` names the keys that overrides set.
pub fn scenario(table: &Table, overridden: &Overridden) -> Result<Scenario, ScenarioError> {
    let mut root = Section::root(table);
    let name = root.string("name", "")?;
    let description = root.string("description", "")?;
    let duration_s = root.f64(
        "duration_s",
        None,
        Range::Closed(MIN_DURATION_S, MAX_TIME_S),
    )?;
    let seed = seed(&mut root)?;
    let tcp = tcp(root.section("tcp")?)?;
    let queue = queue(root.section("queue")?)?;
    let base_queue = BaseQueue {
        table: table.get("queue").and_then(Value::as_table),
        spec: &queue,
    };
    let bounds = LinkBounds {
        tcp: &tcp,
        duration_s,
    };
    let topology = parse_topology::topology(root.section("topology")?, &base_queue, &bounds)?;
    let tcp_table = table.get("tcp").and_then(Value::as_table);
    let traffic = parse_traffic::traffic(
        root.section("traffic")?,
        duration_s,
        seed,
        &topology,
        tcp_table,
        &tcp,
    )?;
    byte_limits(&queue, &topology, &traffic)?;
    let n_flows = traffic::flow_count(&traffic, duration_s, seed);
    let measure = measure::read(
        root.section("measure")?,
        duration_s,
        n_flows,
        &topology.port_names(),
        overridden,
    )?;
    root.finish()?;
    Ok(Scenario {
        name,
        description,
        duration_s,
        seed,
        topology,
        queue,
        tcp,
        traffic,
        measure,
    })
}

/// The largest data packet any flow of `traffic` sends, bytes: each TCP group's
/// `tcp.packet_bytes`, each UDP source's and probe's `packet_bytes`.
fn largest_packet_bytes(traffic: &Traffic) -> u32 {
    traffic
        .groups
        .iter()
        .map(|g| match g.source {
            Source::UdpCbr { packet_bytes, .. }
            | Source::UdpOnOff { packet_bytes, .. }
            | Source::UdpProbe { packet_bytes, .. } => packet_bytes,
            Source::TcpBulk | Source::TcpFinite { .. } => g.tcp.packet_bytes,
        })
        .max()
        .unwrap_or(0)
}

/// Every byte limit of a managed queue is 0 (none) or holds the largest packet of the run: a
/// smaller one would drop every such packet. `[queue]`'s is checked at `queue.limit_bytes`,
/// a link's where its `queue` or `reverse_queue` table sets one.
fn byte_limits(
    queue: &QueueSpec,
    topology: &Topology,
    traffic: &Traffic,
) -> Result<(), ScenarioError> {
    let largest = largest_packet_bytes(traffic);
    let check = |path: String, limit: u64| {
        if limit == 0 || limit >= u64::from(largest) {
            return Ok(());
        }
        Err(ScenarioError::new(
            format!("{path}.limit_bytes"),
            format!(
                "must be 0 (no byte limit) or at least one packet ({largest} bytes here), got \
                 {limit}"
            ),
        ))
    };
    check("queue".into(), queue.limit_bytes)?;
    shaper_holds_a_packet("queue", queue, largest)?;
    let Some(net) = topology.router_net() else {
        return Ok(());
    };
    for (i, link) in net.links.iter().enumerate() {
        let own = |t: &Table| t.contains_key("limit_bytes");
        if own(&link.queue_overrides) {
            check(format!("topology.links[{i}].queue"), link.queue.limit_bytes)?;
        }
        shaper_holds_a_packet(&format!("topology.links[{i}].queue"), &link.queue, largest)?;
        if let Some((q, _)) = &link.reverse_queue {
            shaper_holds_a_packet(&format!("topology.links[{i}].reverse_queue"), q, largest)?;
        }
        if let Some((q, overrides)) = &link.reverse_queue {
            if own(overrides) {
                check(format!("topology.links[{i}].reverse_queue"), q.limit_bytes)?;
            }
        }
    }
    Ok(())
}

/// A token-bucket shaper's buckets hold the largest packet of the run: a smaller bucket would
/// never let it through.
fn shaper_holds_a_packet(path: &str, q: &QueueSpec, largest: u32) -> Result<(), ScenarioError> {
    let t = &q.tbf;
    let buckets = [
        ("burst_bytes", t.rate_mbps > 0.0, t.burst_bytes),
        ("mtu_bytes", t.peak_rate_mbps > 0.0, t.mtu_bytes),
    ];
    for (key, used, bytes) in buckets {
        if used && bytes < u64::from(largest) {
            return Err(ScenarioError::new(
                format!("{path}.tbf.{key}"),
                format!("must hold at least one packet ({largest} bytes here), got {bytes}"),
            ));
        }
    }
    Ok(())
}

/// The seed: an integer in [0, 2^63 - 1] (TOML's integers are signed 64-bit), or a string of
/// decimal digits for any value in [0, 2^64 - 1].
fn seed(s: &mut Section) -> Result<u64, ScenarioError> {
    let allowed = || {
        format!(
            "must be an integer in [0, {}] or a string of decimal digits in [0, {}]",
            i64::MAX,
            u64::MAX
        )
    };
    match s.value("seed") {
        None => Ok(1),
        Some(Value::Integer(i)) => {
            u64::try_from(*i).map_err(|_| s.error("seed", format!("{}, got {i}", allowed())))
        }
        Some(Value::String(text)) => text
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| text.parse::<u64>().ok())
            .flatten()
            .ok_or_else(|| s.error("seed", format!("{}, got \"{text}\"", allowed()))),
        Some(v) => Err(s.error("seed", format!("{}, got {}", allowed(), type_name(v)))),
    }
}

/// Read a `[queue]` table on its own (for AQMs built outside a scenario).
pub fn queue_spec(table: &Table) -> Result<QueueSpec, ScenarioError> {
    queue(Section::root(table))
}
