//! From a TOML table to a validated [`Scenario`]. Every key has its path, range and default
//! here (the `[measure]` table in `measure.rs`), in one place; docs/scenario-format.md
//! documents the same keys.

use super::aqm_params;
use super::error::ScenarioError;
use super::measure;
use super::model::*;
use super::overrides::Overridden;
use super::parse_topology::{self, BaseQueue};
use super::parse_traffic;
use super::reader::{as_f64, type_name, Range, Section};
use crate::tcp::config::{
    CcKind, EcnResponse, RecoveryExit, RecoveryKind, RttEstimatorKind, TcpConfig, WindowGrowth,
    WindowReduction, PRESETS,
};
use crate::time::{MAX_TIME_MS, MAX_TIME_S};
use crate::traffic;
use toml::{Table, Value};

const U32_MAX: i64 = u32::MAX as i64;

/// The most flows a run may create, all groups together.
pub(super) const MAX_FLOWS: i64 = 1_000_000;

/// The shortest run, seconds (1 µs).
const MIN_DURATION_S: f64 = 1e-6;

/// The shortest retransmission and delayed-ACK timeouts, seconds (1 µs).
const MIN_TIMEOUT_S: f64 = 1e-6;

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
    let topology = parse_topology::topology(root.section("topology")?, &base_queue, &tcp)?;
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
/// `tcp.packet_bytes`, each UDP source's `packet_bytes`.
fn largest_packet_bytes(traffic: &Traffic) -> u32 {
    traffic
        .groups
        .iter()
        .map(|g| match g.source {
            Source::UdpCbr { packet_bytes, .. } | Source::UdpOnOff { packet_bytes, .. } => {
                packet_bytes
            }
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
    let Some(net) = topology.router_net() else {
        return Ok(());
    };
    for (i, link) in net.links.iter().enumerate() {
        let own = |t: &Table| t.contains_key("limit_bytes");
        if own(&link.queue_overrides) {
            check(format!("topology.links[{i}].queue"), link.queue.limit_bytes)?;
        }
        if let Some((q, overrides)) = &link.reverse_queue {
            if own(overrides) {
                check(format!("topology.links[{i}].reverse_queue"), q.limit_bytes)?;
            }
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

/// A delay: a number, `{ uniform = [lo, hi] }` or `{ list = [...] }`; 1 ms when absent.
pub(super) fn delay_spec(s: &mut Section, key: &'static str) -> Result<DelaySpec, ScenarioError> {
    per_flow_spec(s, key, "ms", MAX_TIME_MS)
}

/// A value drawn per flow (a delay, a duration): a number of `unit` in [0, max], or
/// `{ uniform = [lo, hi] }`, or `{ list = [..] }`.
pub(super) fn per_flow_spec(
    s: &mut Section,
    key: &'static str,
    unit: &str,
    max: f64,
) -> Result<DelaySpec, ScenarioError> {
    let allowed = format!(
        "must be a number of {unit} in [0, {max}], {{ uniform = [lo, hi] }} or {{ list = [..] }}"
    );
    let allowed = allowed.as_str();
    let range = Range::Closed(0.0, max);
    match s.value(key) {
        None => Ok(DelaySpec::Constant(1.0)),
        Some(v) if as_f64(v).is_some() => {
            let x = as_f64(v).unwrap_or_default();
            if range.check(x).is_ok() {
                Ok(DelaySpec::Constant(x))
            } else {
                Err(s.error(key, allowed))
            }
        }
        Some(Value::Table(_)) => {
            let mut t = s.section(key)?;
            let spec = if t.has("uniform") {
                let lo_hi = t.f64_list("uniform", None, range)?;
                if lo_hi.len() != 2 || lo_hi[0] > lo_hi[1] {
                    return Err(t.error("uniform", "must be [lo, hi] with 0 <= lo <= hi"));
                }
                DelaySpec::Uniform(lo_hi[0], lo_hi[1])
            } else if t.has("list") {
                let items = t.f64_list("list", None, range)?;
                if items.is_empty() {
                    return Err(t.error("list", "must hold at least one delay"));
                }
                DelaySpec::List(items)
            } else {
                return Err(s.error(key, allowed));
            };
            t.finish()?;
            Ok(spec)
        }
        Some(_) => Err(s.error(key, allowed)),
    }
}

/// Read a `[queue]` table on its own (for AQMs built outside a scenario).
pub fn queue_spec(table: &Table) -> Result<QueueSpec, ScenarioError> {
    queue(Section::root(table))
}

pub(super) fn queue(mut s: Section) -> Result<QueueSpec, ScenarioError> {
    let aqm = s.choice("aqm", aqm::registry::names(), Some("droptail"))?;
    let limit_pkts = s.int("limit_pkts", Some(1000), 1, U32_MAX)? as u32;
    let limit_bytes = s.int("limit_bytes", Some(0), 0, i64::MAX)? as u64;
    let ecn = s.bool("ecn", false)?;
    let mut reader = aqm_params::ReadAll {
        section: &mut s,
        tables: Vec::new(),
        error: None,
    };
    aqm::registry::for_each(&mut reader);
    if let Some(e) = reader.error {
        return Err(e);
    }
    let spec = QueueSpec {
        aqm,
        limit_pkts,
        limit_bytes,
        ecn,
        params: reader.tables,
    };
    s.finish()?;
    Ok(spec)
}

pub(super) fn tcp(mut s: Section) -> Result<TcpConfig, ScenarioError> {
    const TIMEOUT_S: Range = Range::Closed(MIN_TIMEOUT_S, MAX_TIME_S);
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
    let recovery = s.choice("recovery", RecoveryKind::NAMES, Some(base.recovery.name()))?;
    let recovery_exit = s.choice(
        "recovery_exit",
        RecoveryExit::NAMES,
        Some(base.recovery_exit.name()),
    )?;
    let window_growth = s.choice(
        "window_growth",
        WindowGrowth::NAMES,
        Some(base.window_growth.name()),
    )?;
    let window_reduction = s.choice(
        "window_reduction",
        WindowReduction::NAMES,
        Some(base.window_reduction.name()),
    )?;
    let ecn_response = s.choice(
        "ecn_response",
        EcnResponse::NAMES,
        Some(base.ecn_response.name()),
    )?;
    let rtt_estimator = s.choice(
        "rtt_estimator",
        RttEstimatorKind::NAMES,
        Some(base.rtt_estimator.name()),
    )?;
    let c = TcpConfig {
        preset: preset.to_string(),
        cc,
        recovery: RecoveryKind::from_name(recovery).expect("a listed name"),
        recovery_exit: RecoveryExit::from_name(recovery_exit).expect("a listed name"),
        sack: s.bool("sack", base.sack)?,
        limited_transmit: s.bool("limited_transmit", base.limited_transmit)?,
        fast_retransmit_restarts_timer: s.bool(
            "fast_retransmit_restarts_timer",
            base.fast_retransmit_restarts_timer,
        )?,
        window_growth: WindowGrowth::from_name(window_growth).expect("a listed name"),
        window_reduction: WindowReduction::from_name(window_reduction).expect("a listed name"),
        timestamps: s.bool("timestamps", base.timestamps)?,
        handshake: s.bool("handshake", base.handshake)?,
        conn_timeout_s: s.f64("conn_timeout_s", Some(base.conn_timeout_s), TIMEOUT_S)?,
        conn_retries: s.int("conn_retries", Some(base.conn_retries.into()), 1, 64)? as u32,
        data_retries: s.int("data_retries", Some(base.data_retries.into()), 0, 64)? as u32,
        rtt_estimator: RttEstimatorKind::from_name(rtt_estimator).expect("a listed name"),
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
        min_rto_s: s.f64("min_rto_s", Some(base.min_rto_s), TIMEOUT_S)?,
        initial_rto_s: s.f64("initial_rto_s", Some(base.initial_rto_s), TIMEOUT_S)?,
        max_rto_s: s.f64("max_rto_s", Some(base.max_rto_s), TIMEOUT_S)?,
        clock_granularity_s: s.f64(
            "clock_granularity_s",
            Some(base.clock_granularity_s),
            Range::Closed(0.0, MAX_TIME_S),
        )?,
        delayed_ack: s.bool("delayed_ack", base.delayed_ack)?,
        delack_count: s.int("delack_count", Some(base.delack_count.into()), 1, 64)? as u32,
        delack_timeout_ms: s.f64(
            "delack_timeout_ms",
            Some(base.delack_timeout_ms),
            Range::Closed(MIN_TIMEOUT_S * 1e3, MAX_TIME_MS),
        )?,
        max_burst_pkts: s.int(
            "max_burst_pkts",
            Some(base.max_burst_pkts.into()),
            0,
            1 << 30,
        )? as u32,
        dupack_threshold: s.int(
            "dupack_threshold",
            Some(base.dupack_threshold.into()),
            1,
            64,
        )? as u32,
        ecn: s.bool("ecn", base.ecn)?,
        ecn_response: EcnResponse::from_name(ecn_response).expect("a listed name"),
        cubic_c: s.f64("cubic_c", Some(base.cubic_c), Range::Positive)?,
        cubic_beta: s.f64("cubic_beta", Some(base.cubic_beta), Range::Open(0.0, 1.0))?,
        fast_convergence: s.bool("fast_convergence", base.fast_convergence)?,
        cubic_friendliness: s.bool("cubic_friendliness", base.cubic_friendliness)?,
        hystart: s.bool("hystart", base.hystart)?,
        hystart_low_window_pkts: s.int(
            "hystart_low_window_pkts",
            Some(base.hystart_low_window_pkts.into()),
            2,
            1 << 20,
        )? as u32,
    };
    if c.max_rto_s < c.min_rto_s {
        return Err(s.error("max_rto_s", "must be >= min_rto_s"));
    }
    match (c.recovery, c.sack) {
        (RecoveryKind::Reno, true) => {
            return Err(s.error(
                "recovery",
                "\"reno\" needs sack = false; with SACK use \"prr\", \"newreno\" or \"sack1\"",
            ))
        }
        (RecoveryKind::Prr, false) => {
            return Err(s.error("recovery", "\"prr\" needs sack = true"));
        }
        (RecoveryKind::Sack1, false) => {
            return Err(s.error("recovery", "\"sack1\" needs sack = true"));
        }
        _ => {}
    }
    if c.timestamps && c.rtt_estimator == RttEstimatorKind::Ns2 {
        return Err(s.error(
            "timestamps",
            "needs rtt_estimator = \"rfc6298\" (ns-2's estimator times its own segments)",
        ));
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
