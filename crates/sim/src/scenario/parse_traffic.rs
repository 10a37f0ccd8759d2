//! The `[traffic]` table: one schedule of flows (`[traffic.schedule]`), or groups of flows
//! (`[[traffic.groups]]`), each with its own schedule, start jitter, path through a chain or network,
//! access delays, flow durations, transport and source, socket priority, and TCP settings on top
//! of `[tcp]`.

use super::error::ScenarioError;
use super::model::*;
use super::parse_schedule::{schedule, MAX_FLOWS};
use super::parse_source::source;
use super::parse_tcp::{tcp, CC_DEFAULTED_KEYS};
use super::per_flow::{delay_spec, per_flow_spec};
use super::reader::{array_of_tables, type_name, Range, Section};
use crate::tcp::config::TcpConfig;
use crate::time::MAX_TIME_S;
use crate::traffic;
use toml::{Table, Value};

/// Read `[traffic]` for a run of `duration_s` with `seed` on `topology`; `tcp_table` is the
/// scenario's `[tcp]` table, which a group's `tcp` table amends, and `base_tcp` what it
/// resolved to (the TCP of a group that amends nothing).
pub fn traffic(
    mut s: Section,
    duration_s: f64,
    seed: u64,
    topology: &Topology,
    tcp_table: Option<&Table>,
    base_tcp: &TcpConfig,
) -> Result<Traffic, ScenarioError> {
    const JITTER: Range = Range::Closed(0.0, MAX_TIME_S);
    let start_jitter_s = s.f64("start_jitter_s", Some(1.0), JITTER)?;
    let t = if s.has("groups") {
        if s.has("schedule") {
            return Err(s.error(
                "schedule",
                "use traffic.schedule (one group of flows) or traffic.groups, not both",
            ));
        }
        let mut groups = Vec::new();
        for (i, mut g) in array_of_tables(&mut s, "groups")?.into_iter().enumerate() {
            let name = g.string("name", &format!("g{i}"))?;
            if groups.iter().any(|other: &FlowGroup| other.name == name) {
                return Err(g.error("name", format!("\"{name}\" names an earlier group too")));
            }
            let start_jitter_s = g.f64("start_jitter_s", Some(start_jitter_s), JITTER)?;
            let sender_delay_ms = optional_delay(&mut g, "sender_delay_ms")?;
            let receiver_delay_ms = optional_delay(&mut g, "receiver_delay_ms")?;
            let flow_duration_s = if g.has("flow_duration_s") {
                Some(per_flow_spec(&mut g, "flow_duration_s", "s", MAX_TIME_S)?)
            } else {
                None
            };
            let schedule = schedule(g.section("schedule")?, duration_s)?;
            let path = path(&mut g, topology)?;
            let source = source(&mut g, duration_s)?;
            let priority = g.int("priority", Some(0), 0, 15)? as u8;
            if !source.is_tcp() && g.has("tcp") {
                return Err(g.error("tcp", "a UDP group takes no tcp table"));
            }
            let (tcp_overrides, tcp) = group_tcp(&mut g, tcp_table, base_tcp)?;
            g.finish()?;
            groups.push(FlowGroup {
                name,
                schedule,
                start_jitter_s,
                sender_delay_ms,
                receiver_delay_ms,
                flow_duration_s,
                path,
                source,
                priority,
                tcp_overrides,
                tcp,
            });
        }
        if groups.is_empty() {
            return Err(s.error("groups", "must hold at least one group"));
        }
        Traffic {
            groups,
            single: false,
        }
    } else {
        let schedule = schedule(s.section("schedule")?, duration_s)?;
        Traffic {
            groups: vec![FlowGroup {
                name: "all".into(),
                schedule,
                start_jitter_s,
                sender_delay_ms: None,
                receiver_delay_ms: None,
                flow_duration_s: None,
                path: None,
                source: Source::TcpBulk,
                priority: 0,
                tcp_overrides: Table::new(),
                tcp: base_tcp.clone(),
            }],
            single: true,
        }
    };
    if traffic::flow_count(&t, duration_s, seed) as i64 > MAX_FLOWS {
        return Err(s.error(
            if t.single { "schedule" } else { "groups" },
            format!("brings the run to more than {MAX_FLOWS} flows"),
        ));
    }
    s.finish()?;
    Ok(t)
}

/// A group's `path = [ingress, egress]`: two different routers of the chain or network (None:
/// absent, its first and last router). A dumbbell takes none.
fn path(g: &mut Section, topology: &Topology) -> Result<Option<[String; 2]>, ScenarioError> {
    let Some(v) = g.value("path") else {
        return Ok(None);
    };
    let Some(net) = topology.router_net() else {
        return Err(g.error(
            "path",
            "only a chain or a network has routers to enter and leave by; a dumbbell takes no path",
        ));
    };
    let allowed = || {
        format!(
            "must be [ingress, egress]: two of {}",
            net.routers.join(", ")
        )
    };
    let names: Vec<&str> = match v {
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        other => return Err(g.error("path", format!("{}, got {}", allowed(), type_name(other)))),
    };
    if names.len() != 2 || v.as_array().is_some_and(|a| a.len() != 2) {
        return Err(g.error("path", allowed()));
    }
    for name in &names {
        if !net.routers.iter().any(|r| r == name) {
            return Err(g.error(
                "path",
                format!("\"{name}\" is not a router of the topology; {}", allowed()),
            ));
        }
    }
    if names[0] == names[1] {
        return Err(g.error(
            "path",
            format!("enters and leaves at \"{}\": no link to cross", names[0]),
        ));
    }
    Ok(Some([names[0].to_string(), names[1].to_string()]))
}

/// A group's own access delay, if it sets one.
fn optional_delay(s: &mut Section, key: &'static str) -> Result<Option<DelaySpec>, ScenarioError> {
    if s.has(key) {
        delay_spec(s, key).map(Some)
    } else {
        Ok(None)
    }
}

/// A group's `tcp` table (validated) and its TCP: the scenario's `[tcp]` with those keys
/// replaced (`base_tcp` when it has none).
fn group_tcp(
    g: &mut Section,
    tcp_table: Option<&Table>,
    base_tcp: &TcpConfig,
) -> Result<(Table, TcpConfig), ScenarioError> {
    let path = g.path_of("tcp");
    let overrides = match g.value("tcp") {
        None => return Ok((Table::new(), base_tcp.clone())),
        Some(Value::Table(t)) => t.clone(),
        Some(_) => return Err(ScenarioError::new(path, "must be a table")),
    };
    let mut merged = tcp_table.cloned().unwrap_or_default();
    if overrides.contains_key("cc") {
        // The group's congestion control brings its own defaults for these.
        for key in CC_DEFAULTED_KEYS {
            if !overrides.contains_key(*key) {
                merged.remove(*key);
            }
        }
    }
    merged.extend(overrides.clone());
    let config = tcp(Section::detached(&path, Some(&merged)))?;
    Ok((overrides, config))
}
