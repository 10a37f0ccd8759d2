//! From a TOML table to a validated [`Scenario`]. Every key has its path, range and default
//! here, in one place; docs/scenario-format.md documents the same keys.

use super::aqm_params;
use super::error::ScenarioError;
use super::model::*;
use super::reader::{array_of_tables, as_f64, Range, Section};
use crate::tcp::config::{CcKind, TcpConfig, PRESETS};
use aqm::{
    ABetaRedParams, AredParams, BetaRedParams, CoDelParams, DBetaRedParams, PieParams, RedParams,
};
use toml::{Table, Value};

const U32_MAX: i64 = u32::MAX as i64;

/// Read and validate a whole scenario.
pub fn scenario(table: &Table) -> Result<Scenario, ScenarioError> {
    let mut root = Section::root(table);
    let name = root.string("name", "")?;
    let description = root.string("description", "")?;
    let duration_s = root.f64("duration_s", None, Range::Positive)?;
    let seed = root.int("seed", Some(1), 0, i64::MAX)? as u64;
    let topology = dumbbell(root.section("topology")?)?;
    let queue = queue(root.section("queue")?)?;
    let tcp = tcp(root.section("tcp")?)?;
    let traffic = traffic(root.section("traffic")?, duration_s)?;
    let measure = measure(root.section("measure")?, duration_s)?;
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

fn dumbbell(mut s: Section) -> Result<Dumbbell, ScenarioError> {
    s.choice("kind", &["dumbbell"], Some("dumbbell"))?;
    let d = Dumbbell {
        bottleneck_rate_mbps: s.f64("bottleneck_rate_mbps", Some(50.0), Range::Positive)?,
        bottleneck_delay_ms: s.f64("bottleneck_delay_ms", Some(10.0), Range::NonNegative)?,
        access_rate_mbps: s.f64("access_rate_mbps", Some(100.0), Range::Positive)?,
        sender_delay_ms: delay_spec(&mut s, "sender_delay_ms")?,
        receiver_delay_ms: delay_spec(&mut s, "receiver_delay_ms")?,
        router_buffer_pkts: s.int("router_buffer_pkts", Some(1000), 1, U32_MAX)? as u32,
        host_buffer_pkts: s.int("host_buffer_pkts", Some(1000), 1, U32_MAX)? as u32,
    };
    s.finish()?;
    Ok(d)
}

/// A delay: a number, `{ uniform = [lo, hi] }` or `{ list = [...] }`; 1 ms when absent.
fn delay_spec(s: &mut Section, key: &'static str) -> Result<DelaySpec, ScenarioError> {
    const ALLOWED: &str = "must be a number of ms >= 0, { uniform = [lo, hi] } or { list = [..] }";
    match s.value(key) {
        None => Ok(DelaySpec::Constant(1.0)),
        Some(v) if as_f64(v).is_some() => {
            let x = as_f64(v).unwrap_or_default();
            if x.is_finite() && x >= 0.0 {
                Ok(DelaySpec::Constant(x))
            } else {
                Err(s.error(key, ALLOWED))
            }
        }
        Some(Value::Table(_)) => {
            let mut t = s.section(key)?;
            let spec = if t.has("uniform") {
                let lo_hi = t.f64_list("uniform", None, Range::NonNegative)?;
                if lo_hi.len() != 2 || lo_hi[0] > lo_hi[1] {
                    return Err(t.error("uniform", "must be [lo, hi] with 0 <= lo <= hi"));
                }
                DelaySpec::Uniform(lo_hi[0], lo_hi[1])
            } else if t.has("list") {
                let items = t.f64_list("list", None, Range::NonNegative)?;
                if items.is_empty() {
                    return Err(t.error("list", "must hold at least one delay"));
                }
                DelaySpec::List(items)
            } else {
                return Err(s.error(key, ALLOWED));
            };
            t.finish()?;
            Ok(spec)
        }
        Some(_) => Err(s.error(key, ALLOWED)),
    }
}

/// Read a `[queue]` table on its own (for AQMs built outside a scenario).
pub fn queue_spec(table: &Table) -> Result<QueueSpec, ScenarioError> {
    queue(Section::root(table))
}

fn queue(mut s: Section) -> Result<QueueSpec, ScenarioError> {
    let aqm = AqmKind::from_name(s.choice("aqm", AQM_NAMES, Some("droptail"))?)
        .expect("choices are the listed names");
    let limit_pkts = s.int("limit_pkts", Some(1000), 1, U32_MAX)? as u32;
    let limit_bytes = s.int("limit_bytes", Some(0), 0, i64::MAX)? as u64;
    let ecn = s.bool("ecn", false)?;
    let spec = QueueSpec {
        aqm,
        limit_pkts,
        limit_bytes,
        ecn,
        red: aqm_params::read(&s.path_of("red"), s.value("red"), RedParams::validate)?,
        ared: aqm_params::read(&s.path_of("ared"), s.value("ared"), AredParams::validate)?,
        betared: aqm_params::read(
            &s.path_of("betared"),
            s.value("betared"),
            BetaRedParams::validate,
        )?,
        abetared: aqm_params::read(
            &s.path_of("abetared"),
            s.value("abetared"),
            ABetaRedParams::validate,
        )?,
        dbetared: aqm_params::read(
            &s.path_of("dbetared"),
            s.value("dbetared"),
            DBetaRedParams::validate,
        )?,
        codel: aqm_params::read(&s.path_of("codel"), s.value("codel"), CoDelParams::validate)?,
        pie: aqm_params::read(&s.path_of("pie"), s.value("pie"), PieParams::validate)?,
    };
    s.finish()?;
    Ok(spec)
}

fn tcp(mut s: Section) -> Result<TcpConfig, ScenarioError> {
    let preset = s.choice("preset", PRESETS, Some("ns3"))?;
    let base = TcpConfig::preset(preset).expect("every listed preset exists");
    let cc = match s.choice("cc", &["reno", "cubic"], Some(cc_name(base.cc)))? {
        "reno" => CcKind::Reno,
        _ => CcKind::Cubic,
    };
    let packet_bytes = s.int("packet_bytes", Some(base.packet_bytes.into()), 60, 65_535)? as u32;
    let header_bytes = s.int("header_bytes", Some(base.header_bytes.into()), 20, 120)? as u32;
    if header_bytes >= packet_bytes {
        return Err(s.error("header_bytes", "must be smaller than packet_bytes"));
    }
    let c = TcpConfig {
        preset: preset.to_string(),
        cc,
        packet_bytes,
        header_bytes,
        ack_bytes: s.int("ack_bytes", Some(base.ack_bytes.into()), 20, 1500)? as u32,
        initial_cwnd_pkts: s.int(
            "initial_cwnd_pkts",
            Some(base.initial_cwnd_pkts.into()),
            1,
            10_000,
        )? as u32,
        rwnd_pkts: s.int("rwnd_pkts", Some(base.rwnd_pkts.into()), 1, 1 << 30)? as u32,
        min_rto_s: s.f64("min_rto_s", Some(base.min_rto_s), Range::Positive)?,
        initial_rto_s: s.f64("initial_rto_s", Some(base.initial_rto_s), Range::Positive)?,
        max_rto_s: s.f64("max_rto_s", Some(base.max_rto_s), Range::Positive)?,
        clock_granularity_s: s.f64(
            "clock_granularity_s",
            Some(base.clock_granularity_s),
            Range::NonNegative,
        )?,
        delayed_ack: s.bool("delayed_ack", base.delayed_ack)?,
        delack_count: s.int("delack_count", Some(base.delack_count.into()), 1, 64)? as u32,
        delack_timeout_ms: s.f64(
            "delack_timeout_ms",
            Some(base.delack_timeout_ms),
            Range::Positive,
        )?,
        dupack_threshold: s.int(
            "dupack_threshold",
            Some(base.dupack_threshold.into()),
            1,
            64,
        )? as u32,
        ecn: s.bool("ecn", base.ecn)?,
        cubic_c: s.f64("cubic_c", Some(base.cubic_c), Range::Positive)?,
        cubic_beta: s.f64("cubic_beta", Some(base.cubic_beta), Range::Open(0.0, 1.0))?,
        fast_convergence: s.bool("fast_convergence", base.fast_convergence)?,
    };
    if c.max_rto_s < c.min_rto_s {
        return Err(s.error("max_rto_s", "must be >= min_rto_s"));
    }
    s.finish()?;
    Ok(c)
}

/// Name of a congestion control as written in scenarios.
pub fn cc_name(cc: CcKind) -> &'static str {
    match cc {
        CcKind::Reno => "reno",
        CcKind::Cubic => "cubic",
    }
}

fn traffic(mut s: Section, duration_s: f64) -> Result<Traffic, ScenarioError> {
    let start_jitter_s = s.f64("start_jitter_s", Some(1.0), Range::NonNegative)?;
    let mut sch = s.section("schedule")?;
    let schedule = match sch.choice("kind", SCHEDULE_NAMES, None)? {
        "constant" => Schedule::Constant {
            flows: sch.int("flows", None, 1, 1_000_000)? as u32,
        },
        "betared_steps" => Schedule::BetaredSteps {
            n_base: sch.int("n_base", Some(100), 0, 1_000_000)? as u32,
            n_mid: sch.int("n_mid", Some(200), 0, 1_000_000)? as u32,
            n_max: sch.int("n_max", None, 0, 1_000_000)? as u32,
            phase_s: sch.f64("phase_s", Some(50.0), Range::Positive)?,
        },
        "events" => {
            let mut changes = Vec::new();
            for mut e in array_of_tables(&mut sch, "events")? {
                let change = FlowChange {
                    t_s: e.f64("t_s", None, Range::Closed(0.0, duration_s))?,
                    add: e.int("add", Some(0), 0, 1_000_000)? as u32,
                    remove: e.int("remove", Some(0), 0, 1_000_000)? as u32,
                };
                e.finish()?;
                changes.push(change);
            }
            if changes.windows(2).any(|w| w[1].t_s < w[0].t_s) {
                return Err(sch.error("events", "must be in order of t_s"));
            }
            Schedule::Events(changes)
        }
        _ => {
            let flows = sch.int("flows", None, 1, 1_000_000)? as u32;
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
    s.finish()?;
    Ok(Traffic {
        schedule,
        start_jitter_s,
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

fn measure(mut s: Section, duration_s: f64) -> Result<Measure, ScenarioError> {
    let window_s = window(&mut s, "window_s", duration_s)?.unwrap_or([0.0, duration_s]);
    if window_s[1] <= window_s[0] {
        return Err(s.error("window_s", "must have end > start"));
    }
    let cwnd_flows = s
        .f64_list("cwnd_flows", Some(vec![0.0]), Range::NonNegative)?
        .into_iter()
        .map(|x| x as u32)
        .collect();
    let target_queue_pkts = if s.has("target_queue_pkts") {
        Some(s.f64("target_queue_pkts", None, Range::Positive)?)
    } else {
        None
    };
    let m = Measure {
        window_s,
        sample_interval_ms: s.f64("sample_interval_ms", Some(10.0), Range::Positive)?,
        cwnd_flows,
        target_queue_pkts,
        settle_band: s.f64("settle_band", Some(0.2), Range::LeftOpen(0.0, 1.0))?,
    };
    s.finish()?;
    Ok(m)
}
