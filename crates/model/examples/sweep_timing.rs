//! Wall-clock time of 1000-value sweeps with 10⁴ iterations per value, one thread, with and
//! without the early exit: `cargo run --release -p aqmlab-model --example sweep_timing`.

use model::{sweep, DropKind, ModelParams, OrbitOptions, Param, Stop};
use std::time::Instant;

fn time(label: &str, params: &ModelParams, param: Param, lo: f64, hi: f64) {
    let values: Vec<f64> = (0..1000)
        .map(|i| lo + (hi - lo) * i as f64 / 999.0)
        .collect();
    for early_exit in [false, true] {
        let opts = OrbitOptions {
            early_exit,
            ..OrbitOptions::default()
        };
        let t = Instant::now();
        let points = sweep(params, param, &values, &opts, 1, Stop::NEVER).expect("valid sweep");
        let secs = t.elapsed().as_secs_f64();
        let evaluated: usize = points.iter().map(|p| p.attractor.evaluated).sum();
        let chaotic = points
            .iter()
            .filter(|p| p.attractor.period.is_none() && p.attractor.lyapunov > 0.0)
            .count();
        println!(
            "{label:34} early exit {:5}: {secs:6.2} s, {evaluated:>8} map evaluations, \
             {chaotic} chaotic values",
            early_exit
        );
    }
}

fn main() {
    let gentle = ModelParams::default();
    let beta = ModelParams {
        drop: DropKind::BetaRed,
        q_target_pkts: 345.1,
        p_max_from_target: true,
        ..ModelParams::default()
    };
    time("gentle RED, w 0.12..0.2", &gentle, Param::W, 0.12, 0.2);
    time("gentle RED, p_max 0.01..1", &gentle, Param::PMax, 0.01, 1.0);
    time("BetaRED θ = 0.1, w 0.01..1", &beta, Param::W, 0.01, 1.0);
    time(
        "BetaRED w = 0.02, θ 0.01..0.99",
        &beta,
        Param::Theta,
        0.01,
        0.99,
    );
}
