//! The `[traffic]` table: one schedule of flows (`[traffic.schedule]`), or groups of flows
//! (`[[traffic.groups]]`), each with its own schedule, start jitter, access delays, flow
//! durations and TCP settings on top of `[tcp]`.

use super::error::ScenarioError;
use super::model::*;
use super::parse::{delay_spec, per_flow_spec, tcp, MAX_FLOWS};
use super::reader::{array_of_tables, Range, Section};
use crate::tcp::config::TcpConfig;
use crate::time::MAX_TIME_S;
use crate::traffic;
use toml::{Table, Value};

/// Read `[traffic]`; `tcp_table` is the scenario's `[tcp]` table, which a group's `tcp` table
/// amends, and `base_tcp` what it resolved to (the TCP of a group that amends nothing).
pub fn traffic(
    mut s: Section,
    duration_s: f64,
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
            let (tcp_overrides, tcp) = group_tcp(&mut g, tcp_table, base_tcp)?;
            g.finish()?;
            groups.push(FlowGroup {
                name,
                schedule,
                start_jitter_s,
                sender_delay_ms,
                receiver_delay_ms,
                flow_duration_s,
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
                tcp_overrides: Table::new(),
                tcp: base_tcp.clone(),
            }],
            single: true,
        }
    };
    if traffic::flow_count(&t, duration_s) as i64 > MAX_FLOWS {
        return Err(s.error(
            if t.single { "schedule" } else { "groups" },
            format!("brings the run to more than {MAX_FLOWS} flows"),
        ));
    }
    s.finish()?;
    Ok(t)
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
    merged.extend(overrides.clone());
    let config = tcp(Section::detached(&path, Some(&merged)))?;
    Ok((overrides, config))
}

/// A schedule table.
fn schedule(mut sch: Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
    let schedule = match sch.choice("kind", SCHEDULE_NAMES, None)? {
        "constant" => Schedule::Constant {
            flows: sch.int("flows", None, 1, MAX_FLOWS)? as u32,
        },
        "betared_steps" => Schedule::BetaredSteps {
            n_base: sch.int("n_base", Some(100), 0, MAX_FLOWS)? as u32,
            n_mid: sch.int("n_mid", Some(200), 0, MAX_FLOWS)? as u32,
            n_max: sch.int("n_max", None, 0, MAX_FLOWS)? as u32,
            phase_s: sch.f64("phase_s", Some(50.0), Range::LeftOpen(0.0, MAX_TIME_S))?,
        },
        "events" => {
            let mut changes = Vec::new();
            let mut added = 0;
            for mut e in array_of_tables(&mut sch, "events")? {
                let change = FlowChange {
                    t_s: e.f64("t_s", None, Range::Closed(0.0, duration_s))?,
                    add: e.int("add", Some(0), 0, MAX_FLOWS)? as u32,
                    remove: e.int("remove", Some(0), 0, MAX_FLOWS)? as u32,
                };
                added += i64::from(change.add);
                if added > MAX_FLOWS {
                    return Err(e.error(
                        "add",
                        format!("brings the run to more than {MAX_FLOWS} flows"),
                    ));
                }
                e.finish()?;
                changes.push(change);
            }
            if changes.windows(2).any(|w| w[1].t_s < w[0].t_s) {
                return Err(sch.error("events", "must be in order of t_s"));
            }
            Schedule::Events(changes)
        }
        _ => {
            let flows = sch.int("flows", None, 1, MAX_FLOWS)? as u32;
            let start_window_s = window(&mut sch, "start_window_s", duration_s)?
                .ok_or_else(|| sch.error("start_window_s", "is required"))?;
            let stop_window_s = window(&mut sch, "stop_window_s", duration_s)?;
            if let Some(stop) = stop_window_s {
                if stop[0] < start_window_s[1] {
                    return Err(sch.error(
                        "stop_window_s",
                        "must begin at or after the end of start_window_s",
                    ));
                }
            }
            Schedule::Random {
                flows,
                start_window_s,
                stop_window_s,
            }
        }
    };
    sch.finish()?;
    Ok(schedule)
}

/// An optional `[lo, hi]` pair inside [0, duration].
fn window(
    s: &mut Section,
    key: &'static str,
    duration_s: f64,
) -> Result<Option<[f64; 2]>, ScenarioError> {
    if !s.has(key) {
        return Ok(None);
    }
    let v = s.f64_list(key, None, Range::Closed(0.0, duration_s))?;
    if v.len() != 2 || v[0] > v[1] {
        return Err(s.error(
            key,
            format!("must be [start, end] with 0 <= start <= end <= duration_s ({duration_s})"),
        ));
    }
    Ok(Some([v[0], v[1]]))
}
