//! The `[measure]` table: the measurement window, the time-series step, the flows whose
//! congestion window is traced, the settling-time target, and the port the summary describes.

use super::error::ScenarioError;
use super::model::Measure;
use super::overrides::Overridden;
use super::reader::{num, type_name, Range, Section};
use super::window;
use crate::time::MAX_TIME_MS;
use toml::Value;

/// The shortest time-series step, ms (1 µs).
pub const MIN_SAMPLE_INTERVAL_MS: f64 = 1e-3;

/// The most time-series samples a run may take.
pub const MAX_SAMPLES: f64 = 1e7;

/// The most rows the congestion-window trace may hold (samples × traced flows).
pub const MAX_CWND_ROWS: f64 = 1e8;

/// Read `[measure]` for a run of `duration_s` with `n_flows` flows on a topology whose
/// measured ports are named `ports`.
pub fn read(
    mut s: Section,
    duration_s: f64,
    n_flows: usize,
    ports: &[String],
    overridden: &Overridden,
) -> Result<Measure, ScenarioError> {
    let window_path = s.path_of("window");
    let window_s = window::resolve(&window_path, s.value("window"), duration_s, overridden)?;
    let sample_interval_ms = sample_interval(&mut s, duration_s)?;
    let cwnd_flows = cwnd_flows(&mut s, n_flows)?;
    let samples = (duration_s / (sample_interval_ms * 1e-3)).floor() + 1.0;
    let rows = samples * cwnd_flows.len() as f64;
    if rows > MAX_CWND_ROWS {
        return Err(s.error(
            "cwnd_flows",
            format!(
                "{} flows traced at {} samples give {} rows, more than the {} allowed; trace \
                 fewer flows or use a longer sample_interval_ms",
                cwnd_flows.len(),
                num(samples),
                num(rows),
                num(MAX_CWND_ROWS)
            ),
        ));
    }
    let target_queue_pkts = if s.has("target_queue_pkts") {
        Some(s.f64("target_queue_pkts", None, Range::Positive)?)
    } else {
        None
    };
    let m = Measure {
        window_s,
        sample_interval_ms,
        cwnd_flows,
        target_queue_pkts,
        settle_band: s.f64("settle_band", Some(0.2), Range::LeftOpen(0.0, 1.0))?,
        fct_bins_bytes: fct_bins(&mut s)?,
        port: port(&mut s, ports)?,
    };
    s.finish()?;
    Ok(m)
}

/// The default upper edges of the flow-completion-time size bins, bytes: 10 kB, 100 kB and
/// 1 MB (short, medium and long web objects, and the bulk above).
pub const FCT_BINS_BYTES: [u64; 3] = [10_000, 100_000, 1_000_000];

/// `fct_bins_bytes`: increasing whole numbers of bytes, at most 64 of them.
fn fct_bins(s: &mut Section) -> Result<Vec<u64>, ScenarioError> {
    const KEY: &str = "fct_bins_bytes";
    let default = FCT_BINS_BYTES.iter().map(|&b| b as f64).collect();
    let edges = s.f64_list(KEY, Some(default), Range::Closed(1.0, 1e15))?;
    let whole = edges.iter().all(|x| x.fract() == 0.0);
    if !whole || edges.len() > 64 || edges.windows(2).any(|w| w[1] <= w[0]) {
        return Err(s.error(
            KEY,
            "must be at most 64 increasing whole numbers of bytes in [1, 1e15]",
        ));
    }
    Ok(edges.into_iter().map(|x| x as u64).collect())
}

/// `port`: the name of one of the measured ports `ports`, if given.
fn port(s: &mut Section, ports: &[String]) -> Result<Option<String>, ScenarioError> {
    const KEY: &str = "port";
    let allowed = || format!("the measured ports are {}", ports.join(", "));
    match s.value(KEY) {
        None => Ok(None),
        Some(Value::String(name)) if ports.contains(name) => Ok(Some(name.clone())),
        Some(Value::String(name)) => Err(s.error(
            KEY,
            format!("\"{name}\" is not a measured port; {}", allowed()),
        )),
        Some(v) => Err(s.error(
            KEY,
            format!(
                "must be a port name (a string), got {}; {}",
                type_name(v),
                allowed()
            ),
        )),
    }
}

/// The time-series step: at least 1 µs, and at most [`MAX_SAMPLES`] samples over the run.
fn sample_interval(s: &mut Section, duration_s: f64) -> Result<f64, ScenarioError> {
    const KEY: &str = "sample_interval_ms";
    let x = s.f64(KEY, Some(10.0), Range::Any)?;
    let lo = (duration_s * 1e3 / MAX_SAMPLES).max(MIN_SAMPLE_INTERVAL_MS);
    if x < lo {
        return Err(s.error(
            KEY,
            format!(
                "must be >= {} ms and give at most {} samples over duration_s = {} (>= {} ms \
                 here)",
                num(MIN_SAMPLE_INTERVAL_MS),
                num(MAX_SAMPLES),
                num(duration_s),
                num(lo)
            ),
        ));
    }
    if x > MAX_TIME_MS {
        return Err(s.error(KEY, format!("must be at most {} ms", num(MAX_TIME_MS))));
    }
    Ok(x)
}

/// What a traced flow number must be in a run of `n_flows` flows, and what it was.
fn flow_range(n_flows: usize, got: &str) -> String {
    match n_flows {
        0 => format!("the run has no flows, so none can be traced (got {got}); use []"),
        1 => format!("must be a flow number in 0..0 (the run has 1 flow), got {got}"),
        n => format!(
            "must be a flow number in 0..{} (the run has {n} flows), got {got}",
            n - 1
        ),
    }
}

/// The traced flows: integers in 0..n_flows-1; flow 0 when absent (none when there are no
/// flows).
fn cwnd_flows(s: &mut Section, n_flows: usize) -> Result<Vec<u32>, ScenarioError> {
    const KEY: &str = "cwnd_flows";
    let path = s.path_of(KEY);
    let items = match s.value(KEY) {
        None => return Ok(if n_flows > 0 { vec![0] } else { Vec::new() }),
        Some(Value::Array(items)) => items,
        Some(v) => {
            return Err(s.error(
                KEY,
                format!("must be an array of flow numbers, got {}", type_name(v)),
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let got = match item {
                Value::Integer(k) => match u32::try_from(*k) {
                    Ok(flow) if (flow as usize) < n_flows => return Ok(flow),
                    _ => k.to_string(),
                },
                other => type_name(other).to_string(),
            };
            Err(ScenarioError::new(
                format!("{path}[{i}]"),
                flow_range(n_flows, &got),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use toml::Table;

    fn measure(text: &str, duration_s: f64, n_flows: usize) -> Result<Measure, String> {
        let t: Table = text.parse().unwrap();
        let mut root = Section::root(&t);
        let s = root.section("measure").unwrap();
        let ports = ["A->B".to_string(), "B->C".to_string()];
        read(s, duration_s, n_flows, &ports, &Overridden::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn sample_interval_bounds() {
        assert_eq!(
            measure("measure.sample_interval_ms = 1e-300", 250.0, 1).unwrap_err(),
            "measure.sample_interval_ms: must be >= 0.001 ms and give at most 10000000 samples \
             over duration_s = 250 (>= 0.025 ms here)"
        );
        assert!(measure("measure.sample_interval_ms = 0.025", 250.0, 1).is_ok());
        assert!(measure("measure.sample_interval_ms = 0.001", 1.0, 1).is_ok());
        assert!(measure("measure.sample_interval_ms = 0", 1.0, 1)
            .unwrap_err()
            .contains(">= 0.001 ms"));
        assert_eq!(
            measure("measure.sample_interval_ms = 1e300", 1.0, 1).unwrap_err(),
            "measure.sample_interval_ms: must be at most 1000000000000 ms"
        );
        assert!(measure("measure.sample_interval_ms = nan", 1.0, 1).is_err());
    }

    #[test]
    fn traced_flows_exist() {
        assert_eq!(measure("", 10.0, 3).unwrap().cwnd_flows, vec![0]);
        assert_eq!(measure("", 10.0, 0).unwrap().cwnd_flows, Vec::<u32>::new());
        assert_eq!(
            measure("measure.cwnd_flows = [0, 99]", 10.0, 100)
                .unwrap()
                .cwnd_flows,
            vec![0, 99]
        );
        assert_eq!(
            measure("measure.cwnd_flows = [1, 5000]", 10.0, 100).unwrap_err(),
            "measure.cwnd_flows[1]: must be a flow number in 0..99 (the run has 100 flows), got \
             5000"
        );
        assert_eq!(
            measure("measure.cwnd_flows = [2.5]", 10.0, 100).unwrap_err(),
            "measure.cwnd_flows[0]: must be a flow number in 0..99 (the run has 100 flows), got \
             a float"
        );
        assert!(measure("measure.cwnd_flows = [-1]", 10.0, 100)
            .unwrap_err()
            .ends_with("got -1"));
        assert!(measure("measure.cwnd_flows = [0]", 10.0, 0)
            .unwrap_err()
            .contains("the run has no flows"));
    }

    #[test]
    fn the_port_is_a_measured_one() {
        assert_eq!(measure("", 10.0, 1).unwrap().port, None);
        assert_eq!(
            measure("measure.port = \"B->C\"", 10.0, 1).unwrap().port,
            Some("B->C".to_string())
        );
        assert_eq!(
            measure("measure.port = \"C->B\"", 10.0, 1).unwrap_err(),
            "measure.port: \"C->B\" is not a measured port; the measured ports are A->B, B->C"
        );
        assert_eq!(
            measure("measure.port = 1", 10.0, 1).unwrap_err(),
            "measure.port: must be a port name (a string), got an integer; the measured ports \
             are A->B, B->C"
        );
    }

    #[test]
    fn the_cwnd_trace_is_bounded() {
        let all: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let text = format!("measure.cwnd_flows = [{}]", all.join(", "));
        assert!(measure(&text, 100.0, 20).is_ok());
        let line = measure(&text, 100_000.0, 20).unwrap_err();
        assert!(
            line.starts_with("measure.cwnd_flows: 20 flows traced at 10000001 samples"),
            "{line}"
        );
    }
}
