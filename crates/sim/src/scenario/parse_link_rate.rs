//! A link's rate keys: its rate (`bottleneck_rate_mbps`, `access_rate_mbps`,
//! `topology.links[i].rate_mbps`) and its rate schedule (`topology.bottleneck_rate_schedule`
//! on a dumbbell, `topology.links[i].rate_schedule` on a chain or a network). A schedule is an
//! array of `[t_s, rate_mbps]` pairs: the link runs at its `rate_mbps` from the start, then at
//! each pair's rate from its time on, both ways. Times are strictly increasing (at least 1 ns
//! apart, the clock's step) in [0, duration_s]; each rate is checked as a link rate is. A
//! schedule may instead be a table that cycles through rates at a fixed period (RFC 7928
//! §8.2.6's capacity alternating every 100 ms): `{ every_s, rates_mbps, from_s, to_s }`, read
//! into the pairs it stands for, which the canonical text then writes out.

use super::error::ScenarioError;
use super::model::{periodic_steps, RateChange};
use super::reader::{as_f64, num, type_name, Range, Section};
use crate::tcp::config::TcpConfig;
use crate::time::{ns_to_s, s_to_ns, MAX_TIME_S};
use toml::Value;

/// The slowest link, Mb/s (1 b/s: slower rounds to 0 b/s). The largest packet (65535 bytes)
/// then takes at most 524280 s, well inside the clock's range.
const MIN_RATE_MBPS: f64 = 1e-6;

/// The most changes one link's schedule may hold.
const MAX_RATE_CHANGES: usize = 1_000_000;

/// A link rate in Mb/s (required when `default` is None): at least [`MIN_RATE_MBPS`], and
/// slow enough that the smallest packet of `tcp` takes at least half a nanosecond (its
/// transmission time does not round to 0 ns).
pub fn rate(
    s: &mut Section,
    key: &'static str,
    default: Option<f64>,
    tcp: &TcpConfig,
) -> Result<f64, ScenarioError> {
    let mbps = s.f64(key, default, Range::Positive)?;
    rate_in_range(mbps, tcp).map_err(|m| s.error(key, m))
}

/// `mbps` if a link may run at that rate: at least [`MIN_RATE_MBPS`], and slow enough that
/// the smallest packet of `tcp` takes at least half a nanosecond; else what is allowed.
fn rate_in_range(mbps: f64, tcp: &TcpConfig) -> Result<f64, String> {
    let min_bytes = tcp.ack_bytes.min(tcp.packet_bytes);
    let hi = f64::from(min_bytes) * 8.0 * 2e9 / 1e6;
    if (MIN_RATE_MBPS..=hi).contains(&mbps) {
        return Ok(mbps);
    }
    Err(format!(
        "must be a number in [{}, {}]: below, the rate rounds to 0 b/s; above, a {min_bytes}-byte \
         packet's transmission time rounds to 0 ns",
        num(MIN_RATE_MBPS),
        num(hi)
    ))
}

/// The schedule at `key` of `s` (empty when absent) for a run of `duration_s` whose smallest
/// packet is `tcp`'s.
pub fn rate_schedule(
    s: &mut Section,
    key: &'static str,
    duration_s: f64,
    tcp: &TcpConfig,
) -> Result<Vec<RateChange>, ScenarioError> {
    let Some(v) = s.value(key) else {
        return Ok(Vec::new());
    };
    let allowed = format!(
        "must be an array of at most {MAX_RATE_CHANGES} [t_s, rate_mbps] pairs, times \
         strictly increasing in [0, duration_s = {}], or a table {{ every_s, rates_mbps, \
         from_s, to_s }}",
        num(duration_s)
    );
    let items = match v {
        Value::Table(_) => return periodic_schedule(s.section(key)?, duration_s, tcp),
        Value::Array(items) if items.len() <= MAX_RATE_CHANGES => items,
        Value::Array(items) => {
            return Err(s.error(key, format!("{allowed}, got {} pairs", items.len())))
        }
        other => return Err(s.error(key, format!("{allowed}, got {}", type_name(other)))),
    };
    let path = s.path_of(key);
    let mut changes: Vec<RateChange> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let pair = match item {
            Value::Array(pair) if pair.len() == 2 => pair,
            Value::Array(other) => {
                return Err(ScenarioError::new(
                    at,
                    format!(
                        "must be a pair [t_s, rate_mbps], got an array of {} elements",
                        other.len()
                    ),
                ))
            }
            other => {
                return Err(ScenarioError::new(
                    at,
                    format!("must be a pair [t_s, rate_mbps], got {}", type_name(other)),
                ))
            }
        };
        let t_s = change_time(&pair[0], &at, duration_s, changes.last())?;
        let rate_mbps = change_rate(&pair[1], &at, tcp)?;
        changes.push(RateChange { t_s, rate_mbps });
    }
    Ok(changes)
}

/// A periodic schedule, `{ every_s, rates_mbps, from_s = every_s, to_s = duration_s }`: the
/// link takes `rates_mbps[k mod n]` at `from_s + k·every_s` for k = 0, 1, ... while that time
/// is at most `to_s`. The times are counted in whole nanoseconds (`every_s` at least 1 ns), so
/// that the changes fall exactly one period apart.
fn periodic_schedule(
    mut t: Section,
    duration_s: f64,
    tcp: &TcpConfig,
) -> Result<Vec<RateChange>, ScenarioError> {
    let every_s = t.f64("every_s", None, Range::LeftOpen(0.0, MAX_TIME_S))?;
    if s_to_ns(every_s) == 0 {
        return Err(t.error(
            "every_s",
            format!("must be at least 1 ns (1e-9 s), got {}", num(every_s)),
        ));
    }
    let rates = t.f64_list("rates_mbps", None, Range::Positive)?;
    if rates.is_empty() {
        return Err(t.error("rates_mbps", "must hold at least one rate"));
    }
    for (i, &mbps) in rates.iter().enumerate() {
        rate_in_range(mbps, tcp)
            .map_err(|m| ScenarioError::new(format!("{}[{i}]", t.path_of("rates_mbps")), m))?;
    }
    let from_s = t.f64("from_s", Some(every_s), Range::Closed(0.0, duration_s))?;
    let to_s = t.f64("to_s", Some(duration_s), Range::Closed(from_s, duration_s))?;
    let steps = periodic_steps(every_s, from_s, to_s);
    if steps > MAX_RATE_CHANGES as u64 {
        return Err(t.error(
            "every_s",
            format!(
                "gives {steps} changes from from_s to to_s, more than the {MAX_RATE_CHANGES} \
                 allowed"
            ),
        ));
    }
    t.finish()?;
    let (every_ns, from_ns, to_ns) = (s_to_ns(every_s), s_to_ns(from_s), s_to_ns(to_s));
    Ok((0..)
        .map(|k: u64| (k, from_ns + k * every_ns))
        .take_while(|&(_, t_ns)| t_ns <= to_ns && ns_to_s(t_ns) <= to_s)
        .map(|(k, t_ns)| RateChange {
            t_s: ns_to_s(t_ns),
            rate_mbps: rates[(k % rates.len() as u64) as usize],
        })
        .collect())
}

/// A pair's time (`at[0]`): in [0, duration_s], and later than the change before it by at
/// least 1 ns once both are counted in whole nanoseconds.
fn change_time(
    v: &Value,
    at: &str,
    duration_s: f64,
    before: Option<&RateChange>,
) -> Result<f64, ScenarioError> {
    let allowed = match before {
        None => format!(
            "t_s must be a number in [0, {}] (duration_s)",
            num(duration_s)
        ),
        Some(b) => format!(
            "t_s must be a number in ({}, {}]: later than the change before it by at least \
             1 ns, and at most duration_s",
            num(b.t_s),
            num(duration_s)
        ),
    };
    let error =
        |got: String| ScenarioError::new(format!("{at}[0]"), format!("{allowed}, got {got}"));
    let t = as_f64(v).ok_or_else(|| error(type_name(v).to_string()))?;
    let in_run = Range::Closed(0.0, duration_s).check(t).is_ok();
    let after = before.is_none_or(|b| s_to_ns(t) > s_to_ns(b.t_s));
    if in_run && after {
        Ok(t)
    } else {
        Err(error(num(t)))
    }
}

/// A pair's rate (`at[1]`), checked as any link rate: a number > 0, then the range of
/// [`rate_in_range`].
fn change_rate(v: &Value, at: &str, tcp: &TcpConfig) -> Result<f64, ScenarioError> {
    let path = format!("{at}[1]");
    let mbps = as_f64(v).ok_or_else(|| {
        ScenarioError::new(
            &path,
            format!("rate_mbps must be a number > 0, got {}", type_name(v)),
        )
    })?;
    Range::Positive
        .check(mbps)
        .and_then(|()| rate_in_range(mbps, tcp))
        .map_err(|m| ScenarioError::new(&path, format!("rate_mbps {m}")))
}
