//! The `[topology]` table: a dumbbell, a chain of routers, or a network of routers joined by
//! any links, each link with a queue of its own.

use super::error::ScenarioError;
use super::model::*;
use super::parse_link_rate::{rate, rate_schedule};
use super::parse_queue::queue;
use super::per_flow::delay_spec;
use super::reader::{array_of_tables, type_name, Range, Section};
use crate::tcp::config::TcpConfig;
use crate::time::MAX_TIME_MS;
use std::collections::BTreeMap;
use toml::{Table, Value};

const U32_MAX: i64 = u32::MAX as i64;

/// The most routers of a chain or a network.
const MAX_ROUTERS: usize = 1024;

/// The scenario's `[queue]`: its table as written (what a chain link's `queue` amends) and
/// what it resolved to.
pub struct BaseQueue<'a> {
    /// The `[queue]` table, if the file has one.
    pub table: Option<&'a Table>,
    /// Its resolved spec.
    pub spec: &'a QueueSpec,
}

/// What bounds the links of a run: the TCP whose smallest packet bounds the link rates, and
/// the run's length, which bounds the times of the rate schedules.
pub struct LinkBounds<'a> {
    /// The scenario's `[tcp]`.
    pub tcp: &'a TcpConfig,
    /// `duration_s`.
    pub duration_s: f64,
}

/// Read `[topology]` of a run whose links `bounds` bounds.
pub fn topology(
    mut s: Section,
    base: &BaseQueue,
    bounds: &LinkBounds,
) -> Result<Topology, ScenarioError> {
    let tcp = bounds.tcp;
    let t = match s.choice("kind", TOPOLOGY_NAMES, Some("dumbbell"))? {
        "dumbbell" => Topology::Dumbbell(Dumbbell {
            bottleneck_rate_mbps: rate(&mut s, "bottleneck_rate_mbps", Some(50.0), tcp)?,
            bottleneck_rate_schedule: rate_schedule(
                &mut s,
                "bottleneck_rate_schedule",
                bounds.duration_s,
                tcp,
            )?,
            bottleneck_delay_ms: s.f64(
                "bottleneck_delay_ms",
                Some(10.0),
                Range::Closed(0.0, MAX_TIME_MS),
            )?,
            access: access_links(&mut s, tcp)?,
        }),
        "chain" => Topology::Chain(chain(&mut s, base, bounds)?),
        _ => Topology::Network(network(&mut s, base, bounds)?),
    };
    s.finish()?;
    Ok(t)
}

/// A chain: link i joins routers i and i + 1.
fn chain(
    s: &mut Section,
    base: &BaseQueue,
    bounds: &LinkBounds,
) -> Result<RouterNet, ScenarioError> {
    let routers = router_names(s, "a chain visits each router once (no cycles)")?;
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
    let links = (0..)
        .zip(items)
        .map(|(i, l)| link(l, (i, i + 1), base, bounds))
        .collect::<Result<_, _>>()?;
    Ok(RouterNet {
        routers,
        links,
        access: access_links(s, bounds.tcp)?,
    })
}

/// A network: each link names the two routers it joins (`from`, `to`); no two links join
/// the same pair, and every router can reach every other.
fn network(
    s: &mut Section,
    base: &BaseQueue,
    bounds: &LinkBounds,
) -> Result<RouterNet, ScenarioError> {
    let routers = router_names(s, "router names must be unique")?;
    let items = array_of_tables(s, "links")?;
    if items.is_empty() {
        return Err(s.error("links", "must hold at least one link"));
    }
    let mut links: Vec<RouterLink> = Vec::with_capacity(items.len());
    let mut first_of_pair = BTreeMap::new();
    for mut l in items {
        let from = router_of(&mut l, "from", &routers)?;
        let to = router_of(&mut l, "to", &routers)?;
        if from == to {
            return Err(l.error(
                "to",
                format!(
                    "\"{}\" is the link's own from: a link joins two different routers",
                    routers[to]
                ),
            ));
        }
        // The first link of each pair of routers, either way round.
        if let Some(j) = first_of_pair.insert((from.min(to), from.max(to)), links.len()) {
            return Err(l.error(
                "to",
                format!(
                    "joins \"{}\" and \"{}\" as topology.links[{j}] does: one link per pair of routers (routes take the fewest hops, so a second would carry nothing)",
                    routers[from], routers[to]
                ),
            ));
        }
        links.push(link(l, (from, to), base, bounds)?);
    }
    if let Some(lost) = unreachable_router(routers.len(), &links) {
        return Err(s.error(
            "links",
            format!(
                "leave \"{}\" unreachable from \"{}\": every router must be joined to every other by some chain of links",
                routers[lost], routers[0]
            ),
        ));
    }
    Ok(RouterNet {
        routers,
        links,
        access: access_links(s, bounds.tcp)?,
    })
}

/// One `[[topology.links]]` entry joining the routers `ends`.
fn link(
    mut l: Section,
    ends: (usize, usize),
    base: &BaseQueue,
    bounds: &LinkBounds,
) -> Result<RouterLink, ScenarioError> {
    let rate_mbps = rate(&mut l, "rate_mbps", None, bounds.tcp)?;
    let rate_schedule = rate_schedule(&mut l, "rate_schedule", bounds.duration_s, bounds.tcp)?;
    let delay_ms = l.f64("delay_ms", None, Range::Closed(0.0, MAX_TIME_MS))?;
    let (queue, queue_overrides) = amended_queue(&mut l, "queue", base.table)?
        .unwrap_or_else(|| (base.spec.clone(), Table::new()));
    let reverse_queue = amended_queue(&mut l, "reverse_queue", base.table)?;
    l.finish()?;
    Ok(RouterLink {
        ends,
        rate_mbps,
        rate_schedule,
        delay_ms,
        queue,
        queue_overrides,
        reverse_queue,
    })
}

/// A link end `key`: the index of a router of `routers` (required).
fn router_of(
    l: &mut Section,
    key: &'static str,
    routers: &[String],
) -> Result<usize, ScenarioError> {
    let allowed = || format!("must be one of the routers {}", routers.join(", "));
    match l.value(key) {
        None => Err(l.error(key, format!("is required; {}", allowed()))),
        Some(Value::String(name)) => routers
            .iter()
            .position(|r| r == name)
            .ok_or_else(|| l.error(key, format!("\"{name}\" is not a router; {}", allowed()))),
        Some(v) => Err(l.error(key, format!("{}, got {}", allowed(), type_name(v)))),
    }
}

/// The first router (by index) that router 0 cannot reach over `links`, if any.
fn unreachable_router(routers: usize, links: &[RouterLink]) -> Option<usize> {
    let mut neighbours = vec![Vec::new(); routers];
    for &(a, b) in links.iter().map(|l| &l.ends) {
        neighbours[a].push(b);
        neighbours[b].push(a);
    }
    let mut reached = vec![false; routers];
    reached[0] = true;
    let mut stack = vec![0];
    while let Some(v) = stack.pop() {
        for &next in &neighbours[v] {
            if !reached[next] {
                reached[next] = true;
                stack.push(next);
            }
        }
    }
    reached.iter().position(|&r| !r)
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

/// `routers`: at least two distinct, non-empty names; `twice` says why a name may not repeat.
fn router_names(s: &mut Section, twice: &str) -> Result<Vec<String>, ScenarioError> {
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
                format!("\"{name}\" appears twice: {twice}"),
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
