//! A flow group's `schedule` table: when its flows are added and removed.

use super::error::ScenarioError;
use super::model::*;
use super::reader::{array_of_tables, num, Range, Section};
use crate::time::MAX_TIME_S;

/// The most flows a run may create, all groups together.
pub(super) const MAX_FLOWS: i64 = 1_000_000;

/// The most steps a periodic schedule may take.
const MAX_PERIODIC_STEPS: f64 = 1e6;

/// Read a schedule table of a run of `duration_s`.
pub fn schedule(mut sch: Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
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
        "events" => events(&mut sch, duration_s)?,
        "random" => random(&mut sch, duration_s)?,
        "periodic" => periodic(&mut sch, duration_s)?,
        _ => poisson(&mut sch, duration_s)?,
    };
    sch.finish()?;
    Ok(schedule)
}

fn events(sch: &mut Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
    let mut changes = Vec::new();
    let mut added = 0;
    for mut e in array_of_tables(sch, "events")? {
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
    Ok(Schedule::Events(changes))
}

fn random(sch: &mut Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
    let flows = sch.int("flows", None, 1, MAX_FLOWS)? as u32;
    let start_window_s = window(sch, "start_window_s", duration_s)?
        .ok_or_else(|| sch.error("start_window_s", "is required"))?;
    let stop_window_s = window(sch, "stop_window_s", duration_s)?;
    if let Some(stop) = stop_window_s {
        if stop[0] < start_window_s[1] {
            return Err(sch.error(
                "stop_window_s",
                "must begin at or after the end of start_window_s",
            ));
        }
    }
    Ok(Schedule::Random {
        flows,
        start_window_s,
        stop_window_s,
    })
}

fn periodic(sch: &mut Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
    let initial = sch.int("initial", Some(0), 0, MAX_FLOWS)? as u32;
    let add = sch.int("add", Some(0), 0, MAX_FLOWS)? as u32;
    let remove = sch.int("remove", Some(0), 0, MAX_FLOWS)? as u32;
    if (add > 0) == (remove > 0) {
        return Err(sch.error(
            if add > 0 { "remove" } else { "add" },
            "exactly one of add and remove must be a positive number of flows",
        ));
    }
    let every_s = sch.f64("every_s", None, Range::LeftOpen(0.0, MAX_TIME_S))?;
    let from_s = sch.f64("from_s", Some(every_s), Range::Closed(0.0, duration_s))?;
    let to_s = sch.f64("to_s", Some(duration_s), Range::Closed(from_s, duration_s))?;
    let steps = periodic_steps(every_s, from_s, to_s) as f64;
    if steps > MAX_PERIODIC_STEPS {
        return Err(sch.error(
            "every_s",
            format!(
                "gives {} steps from from_s to to_s, more than the {} allowed",
                num(steps),
                num(MAX_PERIODIC_STEPS)
            ),
        ));
    }
    if f64::from(remove) * steps > f64::from(initial) {
        return Err(sch.error(
            "remove",
            format!(
                "removes {} flows over {} steps, more than the {initial} initial flows",
                num(f64::from(remove) * steps),
                num(steps)
            ),
        ));
    }
    Ok(Schedule::Periodic {
        initial,
        add,
        remove,
        every_s,
        from_s,
        to_s,
    })
}

fn poisson(sch: &mut Section, duration_s: f64) -> Result<Schedule, ScenarioError> {
    let rate_per_s = sch.f64("rate_per_s", None, Range::LeftOpen(0.0, 1e9))?;
    let window_s = window(sch, "window_s", duration_s)?.unwrap_or([0.0, duration_s]);
    let expected = rate_per_s * (window_s[1] - window_s[0]);
    if expected > MAX_FLOWS as f64 / 2.0 {
        return Err(sch.error(
            "rate_per_s",
            format!(
                "expects {} arrivals over window_s, more than the {} allowed",
                num(expected),
                num(MAX_FLOWS as f64 / 2.0)
            ),
        ));
    }
    Ok(Schedule::Poisson {
        rate_per_s,
        window_s,
    })
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
