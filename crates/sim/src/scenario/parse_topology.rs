//! The `[topology]` table: a dumbbell, or a chain of routers with a queue per link.

use super::error::ScenarioError;
use super::model::*;
use super::parse::{delay_spec, queue};
use super::reader::{array_of_tables, num, type_name, Range, Section};
use crate::tcp::config::TcpConfig;
use crate::time::MAX_TIME_MS;
use toml::{Table, Value};

const U32_MAX: i64 = u32::MAX as i64;

/// The slowest link, Mb/s (1 b/s: slower rounds to 0 b/s). The largest packet (65535 bytes)
/// then takes at most 524280 s, well inside the clock's range.
const MIN_RATE_MBPS: f64 = 1e-6;

/// The most routers of a chain.
const MAX_ROUTERS: usize = 1024;

/// The scenario's `[queue]`: its table as written (what a chain link's `queue` amends) and
/// what it resolved to.
pub struct BaseQueue<'a> {
    /// The `[queue]` table, if the file has one.
    pub table: Option<&'a Table>,
    /// Its resolved spec.
    pub spec: &'a QueueSpec,
}

/// Read `[topology]`; `tcp` is the scenario's TCP, whose smallest packet bounds the link
/// rates.
pub fn topology(
    mut s: Section,
    base: &BaseQueue,
    tcp: &TcpConfig,
) -> Result<Topology, ScenarioError> {
    let t = match s.choice("kind", TOPOLOGY_NAMES, Some("dumbbell"))? {
        "dumbbell" => Topology::Dumbbell(Dumbbell {
            bottleneck_rate_mbps: rate(&mut s, "bottleneck_rate_mbps", Some(50.0), tcp)?,
            bottleneck_delay_ms: s.f64(
                "bottleneck_delay_ms",
                Some(10.0),
                Range::Closed(0.0, MAX_TIME_MS),
            )?,
            access: access_links(&mut s, tcp)?,
        }),
        _ => Topology::Chain(chain(&mut s, base, tcp)?),
    };
    s.finish()?;
    Ok(t)
}

fn chain(s: &mut Section, base: &BaseQueue, tcp: &TcpConfig) -> Result<Chain, ScenarioError> {
    let routers = router_names(s)?;
    let mut links = Vec::new();
    let items = array_of_tables(s, "links")?;
    if items.len() != routers.len() - 1 {
        return Err(s.error(
            "links",
            format!(
                "must hold one link per pair of consecutive routers: {} for {} routers, got {}",
                routers.len() - 1,
                routers.len(),
                items.len()
            ),
        ));
    }
    for mut l in items {
        let rate_mbps = rate(&mut l, "rate_mbps", None, tcp)?;
        let delay_ms = l.f64("delay_ms", None, Range::Closed(0.0, MAX_TIME_MS))?;
        let (queue, queue_overrides) = amended_queue(&mut l, "queue", base.table)?
            .unwrap_or_else(|| (base.spec.clone(), Table::new()));
        let reverse_queue = amended_queue(&mut l, "reverse_queue", base.table)?;
        l.finish()?;
        links.push(ChainLink {
            rate_mbps,
            delay_ms,
            queue,
            queue_overrides,
            reverse_queue,
        });
    }
    Ok(Chain {
        routers,
        links,
        access: access_links(s, tcp)?,
    })
}

/// The access-link keys every topology shares.
fn access_links(s: &mut Section, tcp: &TcpConfig) -> Result<AccessLinks, ScenarioError> {
    Ok(AccessLinks {
        access_rate_mbps: rate(s, "access_rate_mbps", Some(100.0), tcp)?,
        sender_delay_ms: delay_spec(s, "sender_delay_ms")?,
        receiver_delay_ms: delay_spec(s, "receiver_delay_ms")?,
        router_buffer_pkts: s.int("router_buffer_pkts", Some(1000), 1, U32_MAX)? as u32,
        host_buffer_pkts: s.int("host_buffer_pkts", Some(1000), 1, U32_MAX)? as u32,
    })
}

/// `routers`: at least two distinct, non-empty names (a name twice would close a cycle).
fn router_names(s: &mut Section) -> Result<Vec<String>, ScenarioError> {
    let allowed = format!("must be an array of 2 to {MAX_ROUTERS} distinct router names");
    let Some(v) = s.value("routers") else {
        return Err(s.error("routers", format!("is required; {allowed}")));
    };
    let Value::Array(items) = v else {
        return Err(s.error("routers", format!("{allowed}, got {}", type_name(v))));
    };
    if !(2..=MAX_ROUTERS).contains(&items.len()) {
        return Err(s.error("routers", format!("{allowed}, got {}", items.len())));
    }
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{}[{i}]", s.path_of("routers"));
        let Value::String(name) = item else {
            return Err(ScenarioError::new(
                path,
                format!("must be a router name (a string), got {}", type_name(item)),
            ));
        };
        if name.is_empty() {
            return Err(ScenarioError::new(path, "must not be empty"));
        }
        if names.contains(name) {
            return Err(ScenarioError::new(
                path,
                format!("\"{name}\" appears twice: a chain visits each router once (no cycles)"),
            ));
        }
        names.push(name.clone());
    }
    Ok(names)
}

/// The link's `key` table, if it has one: `[queue]` amended by its keys one level deep (a
/// sub-table such as `red` keeps the `[queue.red]` keys it does not set), read as a `[queue]`
/// at the link's path; with the keys as written.
fn amended_queue(
    l: &mut Section,
    key: &'static str,
    queue_table: Option<&Table>,
) -> Result<Option<(QueueSpec, Table)>, ScenarioError> {
    let path = l.path_of(key);
    let overrides = match l.value(key) {
        None => return Ok(None),
        Some(Value::Table(t)) => t,
        Some(v) => {
            return Err(ScenarioError::new(
                path,
                format!("must be a table of [queue] keys, got {}", type_name(v)),
            ))
        }
    };
    let mut merged = queue_table.cloned().unwrap_or_default();
    for (k, v) in overrides {
        match (merged.get_mut(k), v) {
            (Some(Value::Table(old)), Value::Table(new)) => {
                old.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())))
            }
            _ => {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
    let spec = queue(Section::detached(&path, Some(&merged)))?;
    Ok(Some((spec, overrides.clone())))
}

/// A link rate in Mb/s (required when `default` is None): at least [`MIN_RATE_MBPS`], and
/// slow enough that the smallest packet of `tcp` takes at least half a nanosecond (its
/// transmission time does not round to 0 ns).
fn rate(
    s: &mut Section,
    key: &'static str,
    default: Option<f64>,
    tcp: &TcpConfig,
) -> Result<f64, ScenarioError> {
    let mbps = s.f64(key, default, Range::Positive)?;
    let min_bytes = tcp.ack_bytes.min(tcp.packet_bytes);
    let hi = f64::from(min_bytes) * 8.0 * 2e9 / 1e6;
    if (MIN_RATE_MBPS..=hi).contains(&mbps) {
        return Ok(mbps);
    }
    Err(s.error(
        key,
        format!(
            "must be a number in [{}, {}]: below, the rate rounds to 0 b/s; above, a {min_bytes}-byte \
             packet's transmission time rounds to 0 ns",
            num(MIN_RATE_MBPS),
            num(hi)
        ),
    ))
}
