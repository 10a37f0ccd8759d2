//! Traffic schedules turned into one start (and optional stop) time per flow, and the size
//! of each finite flow.
//!
//! Each group's schedule is planned on its own; flow ids count through the groups in order.
//! Every "add" creates new flows; every "remove" stops the group's most recently started flows
//! that are still active. Flows started by a schedule step wait a uniform random offset in
//! [0, start_jitter_s] (stream "start"/flow id), so they do not start in lockstep. Random
//! starts and stops, Poisson arrivals and flow sizes have streams of their own (below).

use crate::scenario::parse_source::MAX_FLOW_BYTES;
use crate::scenario::{
    periodic_steps, FlowChange, FlowGroup, ScenarioError, Schedule, SizeSpec, Source, Traffic,
};
use crate::time::s_to_ns;
use aqm::Rng;

/// When one flow runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowPlan {
    /// Start, ns.
    pub start_ns: u64,
    /// Stop, ns (None: runs to the end).
    pub stop_ns: Option<u64>,
    /// The object a finite TCP flow carries, bytes (None: unlimited, or UDP).
    pub size_bytes: Option<u64>,
}

/// The changes of a step schedule: set the number of active flows at given times.
fn steps_to_changes(points: &[(f64, u32)]) -> Vec<FlowChange> {
    let mut active = 0u32;
    points
        .iter()
        .map(|&(t_s, n)| {
            let change = FlowChange {
                t_s,
                add: n.saturating_sub(active),
                remove: active.saturating_sub(n),
            };
            active = n;
            change
        })
        .collect()
}

/// The changes of a schedule that adds and removes flows at given times (none for the
/// random schedule, whose flows each have their own times).
fn changes(schedule: &Schedule, duration_s: f64) -> Vec<FlowChange> {
    match schedule {
        Schedule::Constant { flows } => vec![FlowChange {
            t_s: 0.0,
            add: *flows,
            remove: 0,
        }],
        Schedule::BetaredSteps {
            n_base,
            n_mid,
            n_max,
            phase_s,
        } => {
            // BetaRED paper §3.1, scenario 2: N = n_base, n_mid, N_max, n_mid, n_base.
            let levels = [*n_base, *n_mid, *n_max, *n_mid, *n_base];
            let points: Vec<(f64, u32)> = levels
                .iter()
                .enumerate()
                .map(|(i, &n)| (i as f64 * phase_s, n))
                .filter(|&(t, _)| t < duration_s)
                .collect();
            steps_to_changes(&points)
        }
        Schedule::Events(changes) => changes.clone(),
        Schedule::Periodic {
            initial,
            add,
            remove,
            every_s,
            from_s,
            to_s,
        } => {
            let mut out = vec![FlowChange {
                t_s: 0.0,
                add: *initial,
                remove: 0,
            }];
            // Step k at from + k·every, computed by multiplication so no error accumulates.
            let steps = periodic_steps(*every_s, *from_s, *to_s);
            out.extend((0..steps).map(|k| FlowChange {
                t_s: from_s + k as f64 * every_s,
                add: *add,
                remove: *remove,
            }));
            out
        }
        Schedule::Random { .. } | Schedule::Poisson { .. } => Vec::new(),
    }
}

/// Arrival times of a Poisson process of `rate_per_s` over [t0, t1), seconds: exponential
/// gaps drawn from stream "poisson"/`group`.
fn poisson_arrivals_s(rate_per_s: f64, window_s: [f64; 2], seed: u64, group: u64) -> Vec<f64> {
    let mut rng = Rng::stream(seed, "poisson", group);
    let mut t = window_s[0];
    let mut out = Vec::new();
    loop {
        t += rng.exponential(1.0 / rate_per_s);
        if t >= window_s[1] {
            return out;
        }
        out.push(t);
    }
}

/// How many flows group number `g` creates in a run of `duration_s`.
fn group_flow_count(group: &FlowGroup, g: u64, duration_s: f64, seed: u64) -> usize {
    match &group.schedule {
        Schedule::Random { flows, .. } => *flows as usize,
        Schedule::Poisson {
            rate_per_s,
            window_s,
        } => poisson_arrivals_s(*rate_per_s, *window_s, seed, g).len(),
        schedule => changes(schedule, duration_s)
            .iter()
            .map(|c| c.add as usize)
            .sum(),
    }
}

/// How many flows `traffic` creates in a run of `duration_s` with `seed` (as many as
/// [`plan`] plans).
pub fn flow_count(traffic: &Traffic, duration_s: f64, seed: u64) -> usize {
    (0u64..)
        .zip(&traffic.groups)
        .map(|(g, group)| group_flow_count(group, g, duration_s, seed))
        .sum()
}

/// One plan per flow, in order of flow id, each with the index of its group.
pub fn plan(
    traffic: &Traffic,
    duration_s: f64,
    seed: u64,
) -> Result<Vec<(u32, FlowPlan)>, ScenarioError> {
    let mut plans = Vec::new();
    for (g, group) in traffic.groups.iter().enumerate() {
        let path = if traffic.single {
            "traffic.schedule".to_string()
        } else {
            format!("traffic.groups[{g}].schedule")
        };
        let first = plans.len() as u64;
        for p in plan_group(group, g as u64, duration_s, seed, first, &path)? {
            plans.push((g as u32, p));
        }
    }
    Ok(plans)
}

/// The plans of group number `g`, whose first flow has id `first`: its schedule's, each flow
/// then stopped after its `flow_duration_s` (stream "flow-duration"/flow id) when the group
/// sets one and that comes first, and each finite flow given its size (stream
/// "flow-size"/flow id).
fn plan_group(
    group: &FlowGroup,
    g: u64,
    duration_s: f64,
    seed: u64,
    first: u64,
    path: &str,
) -> Result<Vec<FlowPlan>, ScenarioError> {
    let mut plans = schedule_plans(group, g, duration_s, seed, first, path)?;
    for (i, p) in (0u32..).zip(plans.iter_mut()) {
        let flow = u32::try_from(first).unwrap_or(u32::MAX).saturating_add(i);
        if let Some(d) = &group.flow_duration_s {
            let stop = p.start_ns + s_to_ns(d.for_flow(flow, i, seed, "flow-duration"));
            p.stop_ns = Some(p.stop_ns.map_or(stop, |s| s.min(stop)));
        }
        if let Source::TcpFinite { size } = &group.source {
            p.size_bytes = Some(flow_size_bytes(size, seed, flow.into()));
        }
    }
    Ok(plans)
}

/// The size of finite flow `flow`, bytes, at least 1.
fn flow_size_bytes(size: &SizeSpec, seed: u64, flow: u64) -> u64 {
    let mut rng = Rng::stream(seed, "flow-size", flow);
    let bytes = match *size {
        SizeSpec::Fixed { bytes } => return bytes,
        SizeSpec::Exponential { mean_bytes } => rng.exponential(mean_bytes),
        SizeSpec::Pareto { mean_bytes, shape } => rng.pareto(mean_bytes, shape),
    };
    // Heavy tails can draw beyond any real object: a drawn size is capped as a set one is.
    (bytes.ceil() as u64).clamp(1, MAX_FLOW_BYTES as u64)
}

/// The plans group number `g`'s schedule gives, its first flow having id `first`; errors
/// name `path`.
fn schedule_plans(
    group: &FlowGroup,
    g: u64,
    duration_s: f64,
    seed: u64,
    first: u64,
    path: &str,
) -> Result<Vec<FlowPlan>, ScenarioError> {
    if let Schedule::Poisson {
        rate_per_s,
        window_s,
    } = &group.schedule
    {
        let arrivals = poisson_arrivals_s(*rate_per_s, *window_s, seed, g);
        return Ok(arrivals
            .into_iter()
            .map(|t| FlowPlan {
                start_ns: s_to_ns(t),
                stop_ns: None,
                size_bytes: None,
            })
            .collect());
    }
    if let Schedule::Random {
        flows,
        start_window_s,
        stop_window_s,
    } = &group.schedule
    {
        return Ok((0..u64::from(*flows))
            .map(|f| FlowPlan {
                start_ns: s_to_ns(
                    Rng::stream(seed, "random-start", first + f)
                        .uniform_in(start_window_s[0], start_window_s[1]),
                ),
                stop_ns: stop_window_s.map(|w| {
                    s_to_ns(Rng::stream(seed, "random-stop", first + f).uniform_in(w[0], w[1]))
                }),
                size_bytes: None,
            })
            .collect());
    }
    let changes = changes(&group.schedule, duration_s);
    let mut plans: Vec<FlowPlan> = Vec::new();
    let mut active: Vec<usize> = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        for _ in 0..c.add {
            let flow = first + plans.len() as u64;
            let offset = Rng::stream(seed, "start", flow).uniform_in(0.0, group.start_jitter_s);
            active.push(plans.len());
            plans.push(FlowPlan {
                start_ns: s_to_ns(c.t_s + offset),
                stop_ns: None,
                size_bytes: None,
            });
        }
        for _ in 0..c.remove {
            let flow = active.pop().ok_or_else(|| {
                ScenarioError::new(
                    format!("{path}.events[{i}].remove"),
                    "removes more flows than are active",
                )
            })?;
            plans[flow].stop_ns = Some(s_to_ns(c.t_s));
        }
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(name: &str, schedule: Schedule, jitter: f64) -> FlowGroup {
        FlowGroup {
            name: name.into(),
            schedule,
            start_jitter_s: jitter,
            sender_delay_ms: None,
            receiver_delay_ms: None,
            flow_duration_s: None,
            path: None,
            source: Source::TcpBulk,
            priority: 0,
            tcp_overrides: Default::default(),
            tcp: crate::tcp::config::TcpConfig::ns3(),
        }
    }

    fn traffic(schedule: Schedule, jitter: f64) -> Traffic {
        Traffic {
            groups: vec![group("all", schedule, jitter)],
            single: true,
        }
    }

    fn starts(plans: &[(u32, FlowPlan)]) -> Vec<FlowPlan> {
        plans.iter().map(|(_, p)| *p).collect()
    }

    #[test]
    fn betared_scenario_2_steps() {
        let t = traffic(
            Schedule::BetaredSteps {
                n_base: 100,
                n_mid: 200,
                n_max: 800,
                phase_s: 50.0,
            },
            0.0,
        );
        let p = starts(&plan(&t, 250.0, 1).unwrap());
        assert_eq!(p.len(), 800);
        assert_eq!(flow_count(&t, 250.0, 1), 800);
        assert_eq!(flow_count(&t, 10.0, 1), plan(&t, 10.0, 1).unwrap().len());
        let active_at = |t_s: f64| {
            let t = s_to_ns(t_s);
            p.iter()
                .filter(|f| f.start_ns <= t && f.stop_ns.is_none_or(|s| t < s))
                .count()
        };
        assert_eq!(
            [25.0, 75.0, 125.0, 175.0, 225.0].map(active_at),
            [100, 200, 800, 200, 100]
        );
    }

    #[test]
    fn jitter_is_bounded_and_per_flow() {
        let t = traffic(Schedule::Constant { flows: 50 }, 0.5);
        let a = starts(&plan(&t, 10.0, 3).unwrap());
        assert!(a.iter().all(|f| f.start_ns <= s_to_ns(0.5)));
        let more = starts(&plan(&traffic(Schedule::Constant { flows: 60 }, 0.5), 10.0, 3).unwrap());
        assert_eq!(
            a[..],
            more[..50],
            "adding flows leaves the others' offsets alone"
        );
    }

    #[test]
    fn removing_too_many_is_an_error() {
        let t = traffic(
            Schedule::Events(vec![FlowChange {
                t_s: 1.0,
                add: 0,
                remove: 1,
            }]),
            0.0,
        );
        assert_eq!(
            plan(&t, 5.0, 1).unwrap_err().path,
            "traffic.schedule.events[0].remove"
        );
    }

    #[test]
    fn groups_count_flow_ids_through_and_keep_their_errors() {
        let t = Traffic {
            groups: vec![
                group("long", Schedule::Constant { flows: 3 }, 0.0),
                group(
                    "late",
                    Schedule::Events(vec![
                        FlowChange {
                            t_s: 2.0,
                            add: 2,
                            remove: 0,
                        },
                        FlowChange {
                            t_s: 4.0,
                            add: 0,
                            remove: 1,
                        },
                    ]),
                    0.5,
                ),
            ],
            single: false,
        };
        let p = plan(&t, 10.0, 1).unwrap();
        assert_eq!(
            p.iter().map(|(g, _)| *g).collect::<Vec<_>>(),
            [0, 0, 0, 1, 1]
        );
        assert_eq!(flow_count(&t, 10.0, 1), 5);
        // The second group's first flow draws its jitter from stream start/3.
        let jitter = Rng::stream(1, "start", 3).uniform_in(0.0, 0.5);
        assert_eq!(p[3].1.start_ns, s_to_ns(2.0 + jitter));
        assert_eq!(p[4].1.stop_ns, Some(s_to_ns(4.0)));
        let mut bad = t.clone();
        bad.groups[1].schedule = Schedule::Events(vec![FlowChange {
            t_s: 1.0,
            add: 0,
            remove: 1,
        }]);
        assert_eq!(
            plan(&bad, 10.0, 1).unwrap_err().path,
            "traffic.groups[1].schedule.events[0].remove"
        );
    }
}
