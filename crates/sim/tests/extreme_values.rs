//! No value of any numeric key panics: every numeric key of a few resolved scenarios is set in
//! turn to extreme values (0, -1, 1e-300, 1e300, i64::MAX, NaN, ...), and validation, building
//! the simulation and (for short runs) running it either give a one-line error or succeed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};
use toml::{Table, Value};

/// Short, congested runs that reach losses, timeouts and every schedule and delay form.
const BASES: &[&str] = &[
    r#"
    duration_s = 0.2
    [topology]
    bottleneck_rate_mbps = 5.0
    bottleneck_delay_ms = 0.5
    sender_delay_ms = 0.1
    router_buffer_pkts = 20
    [queue]
    aqm = "red"
    limit_pkts = 20
    [queue.red]
    q_min_pkts = 2.0
    q_max_pkts = 10.0
    [traffic]
    start_jitter_s = 0.0
    [traffic.schedule]
    kind = "constant"
    flows = 3
    "#,
    r#"
    duration_s = 0.2
    [topology]
    bottleneck_rate_mbps = 2.0
    bottleneck_delay_ms = 1.0
    sender_delay_ms = { uniform = [0.1, 2.0] }
    receiver_delay_ms = { list = [0.1, 0.5] }
    host_buffer_pkts = 10
    [queue]
    limit_pkts = 10
    limit_bytes = 8000
    ecn = true
    [tcp]
    preset = "ns2"
    ecn = true
    [traffic]
    start_jitter_s = 0.01
    [traffic.schedule]
    kind = "events"
    events = [{ t_s = 0.0, add = 3 }, { t_s = 0.1, add = 2, remove = 1 }]
    [measure]
    window = "second_half"
    cwnd_flows = [0, 4]
    "#,
    r#"
    duration_s = 0.2
    [topology]
    bottleneck_rate_mbps = 3.0
    bottleneck_delay_ms = 0.2
    [queue]
    aqm = "pie"
    limit_pkts = 30
    [traffic.schedule]
    kind = "random"
    flows = 4
    start_window_s = [0.0, 0.05]
    stop_window_s = [0.1, 0.2]
    [measure]
    target_queue_pkts = 5.0
    sample_interval_ms = 1.0
    "#,
    r#"
    duration_s = 0.2
    seed = 9
    [topology]
    bottleneck_rate_mbps = 4.0
    bottleneck_delay_ms = 0.3
    [queue]
    aqm = "betared"
    limit_pkts = 40
    [traffic]
    start_jitter_s = 0.0
    [traffic.schedule]
    kind = "betared_steps"
    n_base = 1
    n_mid = 2
    n_max = 4
    phase_s = 0.04
    [measure]
    window = [0.05, 0.2]
    "#,
];

/// One step into a TOML document: a key or an array index.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// Dotted path of `steps`, as errors name it.
fn dotted(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Paths of every number under `value`.
fn numeric_leaves(value: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Integer(_) | Value::Float(_) => out.push(at.clone()),
        Value::Table(t) => {
            for (k, v) in t {
                at.push(Step::Key(k.clone()));
                numeric_leaves(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Step::Index(i));
                numeric_leaves(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// The value at `path` inside `root`, for writing.
fn leaf<'a>(root: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(root, |v, step| match (step, v) {
        (Step::Key(k), Value::Table(t)) => t.get_mut(k).expect("a listed key"),
        (Step::Index(i), Value::Array(a)) => &mut a[*i],
        _ => unreachable!("paths come from the same document"),
    })
}

fn extremes() -> Vec<Value> {
    let ints = [0, -1, 1, 2, 1 << 32, i64::MAX, i64::MIN];
    let floats = [
        0.0,
        -1.0,
        1e-300,
        5e-324,
        1e-9,
        1e-6,
        0.5,
        1e9,
        1e12,
        1e300,
        f64::MAX,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    ints.into_iter()
        .map(Value::Integer)
        .chain(floats.into_iter().map(Value::Float))
        .collect()
}

/// Validate, build and (when short) run `text`; an error is fine, a panic is not. Runs are
/// cut off after a moment of wall time: what matters is that they start and step cleanly.
fn exercise(text: &str) -> Result<(), String> {
    match sim::resolve_scenario(text, &[]) {
        Err(e) => {
            let line = e.to_string();
            return if line.contains('\n') || e.path.is_empty() {
                Err(format!("not a one-line keyed error: {line:?}"))
            } else {
                Ok(())
            };
        }
        Ok(canonical) => {
            let again = sim::resolve_scenario(&canonical, &[])
                .map_err(|e| format!("canonical text rejected: {e}"))?;
            if again != canonical {
                return Err("canonical text does not round-trip".into());
            }
        }
    }
    let sc = sim::scenario::load(text, &[]).map_err(|e| format!("load: {e}"))?;
    let short = sc.duration_s <= 1.0;
    let sim = sim::Simulation::new(sc).map_err(|e| format!("Simulation::new: {e}"))?;
    if short {
        let start = Instant::now();
        let _ = sim.run(|_| {
            if start.elapsed() > Duration::from_millis(100) {
                Err(())
            } else {
                Ok(())
            }
        });
    }
    Ok(())
}

/// Run one case on its own thread: `None` when it passed, else what went wrong. A case that
/// never returns (a run stuck at one instant) is reported after a generous wait.
fn check(text: String) -> Option<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(|| exercise(&text)));
        let _ = tx.send(outcome.unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panic: {message}"))
        }));
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(outcome) => outcome.err(),
        Err(_) => Some("does not finish".into()),
    }
}

#[test]
fn no_value_of_any_numeric_key_panics() {
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut cases = 0;
    'bases: for base in BASES {
        let canonical = sim::resolve_scenario(base, &[]).expect("the base scenario is valid");
        let doc = Value::Table(canonical.parse::<Table>().unwrap());
        let mut paths = Vec::new();
        numeric_leaves(&doc, &mut Vec::new(), &mut paths);
        for path in &paths {
            for value in extremes() {
                let mut case = doc.clone();
                *leaf(&mut case, path) = value.clone();
                // An AQM's parameter is exercised with that AQM on the bottleneck.
                if let [Step::Key(q), Step::Key(aqm), ..] = path.as_slice() {
                    if q == "queue" && aqm::registry::names().contains(&aqm.as_str()) {
                        let key = [Step::Key("queue".into()), Step::Key("aqm".into())];
                        *leaf(&mut case, &key) = Value::String(aqm.clone());
                    }
                }
                let Value::Table(t) = case else {
                    unreachable!("the document is a table")
                };
                cases += 1;
                if let Some(what) = check(toml::to_string(&t).unwrap()) {
                    failures.push(format!("{} = {value}: {what}", dotted(path)));
                    if what == "does not finish" {
                        break 'bases;
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(cases > 1000, "only {cases} cases");
    eprintln!("{cases} cases in {:.1} s", started.elapsed().as_secs_f64());
}
