//! Runs one scenario file in the engine alone, for profilers (`perf record`, flame graphs,
//! `valgrind --tool=cachegrind`):
//! `cargo run --release -p aqmlab-sim --example profile_run -- FILE [REPEATS] [KEY=VALUE ...]`.
//! The KEY=VALUE pairs override the file as `aqmlab run --set` does. Prints the wall time of
//! each run and the event count; see docs/architecture.md ("Where the time goes").

use std::time::Instant;

const USAGE: &str = "usage: profile_run SCENARIO.toml [REPEATS] [KEY=VALUE ...]";

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let Some(path) = args.next() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let repeats: u32 = match args.next_if(|a| !a.contains('=')).map(|s| s.parse()) {
        None => 1,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("profile_run: REPEATS must be a positive integer");
            std::process::exit(2);
        }
    };
    let sets: Vec<(String, String)> = args
        .map(|a| match a.split_once('=') {
            Some((key, value)) => (key.to_owned(), value.to_owned()),
            None => {
                eprintln!("profile_run: `{a}` is not KEY=VALUE; {USAGE}");
                std::process::exit(2);
            }
        })
        .collect();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("profile_run: cannot read '{path}': {e}");
            std::process::exit(2);
        }
    };
    for _ in 0..repeats {
        let t0 = Instant::now();
        match sim::run_scenario(&text, &sets, None, |_| Ok::<(), ()>(())) {
            Ok(result) => {
                let events = result
                    .summary
                    .iter()
                    .find(|(name, _)| name == "events")
                    .map(|(_, v)| format!("{v:?}"))
                    .unwrap_or_default();
                println!("{:.3} s, events {events}", t0.elapsed().as_secs_f64());
            }
            Err(sim::RunError::Scenario(e)) => {
                eprintln!("profile_run: {e}");
                std::process::exit(2);
            }
            Err(sim::RunError::Aborted(())) => unreachable!("the progress callback never stops"),
        }
    }
}
