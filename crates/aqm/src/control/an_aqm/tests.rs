//! Unit tests of AN-AQM against Li et al. (2014) §2.6 and eqs. (11)–(12), values computed by
//! hand.

use super::*;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

/// A queue of `len_pkts` on an 8 Mb/s link: 1000 bytes per ms.
fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 100_000, 8e6)
}

fn tick(q: &mut AnAqm, now_ns: u64, len: u32) {
    q.on_timer(now_ns, &queue(len), &mut Rng::from_seed(1));
}

fn arrive(q: &mut AnAqm, n: usize, rng: &mut Rng) -> Vec<EnqueueVerdict> {
    (0..n)
        .map(|_| q.on_enqueue(0, PKT, &queue(0), rng))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

/// q_ref 100, δt 1 ms, wᵢ(0) = 1, no learning unless `d` says.
fn with(gain_k: f64, d: [f64; 6]) -> AnAqm {
    AnAqm::new(AnAqmParams {
        q_ref_pkts: 100.0,
        sample_interval_ms: 1.0,
        gain_k,
        d1: d[0],
        d2: d[1],
        d3: d[2],
        d4: d[3],
        d5: d[4],
        d6: d[5],
        w_initial: 1.0,
    })
    .unwrap()
}

#[test]
fn six_inputs_from_queue_error_and_rate_mismatch() {
    let mut q = with(0.01, [0.0; 6]);
    let mut rng = Rng::from_seed(1);
    assert_eq!(q.next_timer_ns(), Some(MS));
    // Two 1000-byte arrivals in the first ms: r = 16 Mb/s, γ = 16/8 − 1 = 1.
    arrive(&mut q, 2, &mut rng);
    // q = 110: e = 10. x = [10, 10, 10, 1, 1, 1]; Σwx/Σ|w| = 33/6 = 5.5; p = 0.055.
    tick(&mut q, MS, 110);
    assert!(close(q.gamma(), 1.0), "{}", q.gamma());
    assert!(close(q.p(), 0.055), "{}", q.p());
    // Nothing arrives in the next ms: γ = −1. q = 105: e = 5. From rest e(k−2) = γ(k−2) = 0:
    // x = [5 − 10, 5, 5 − 20 + 0, −1 − 1, −1, −1 − 2 + 0] = [−5, 5, −15, −2, −1, −3];
    // Σ = −21, /6 = −3.5; p = 0.055 − 0.035 = 0.02.
    tick(&mut q, 2 * MS, 105);
    assert!(close(q.gamma(), -1.0));
    assert!(close(q.p(), 0.02), "{}", q.p());
    assert_eq!(q.weights(), [1.0; 6]);
}

#[test]
fn every_weight_learns_from_the_queue_error() {
    let mut q = with(0.01, [1e-3, 0.0, 0.0, 1e-3, 0.0, 0.0]);
    let mut rng = Rng::from_seed(1);
    arrive(&mut q, 2, &mut rng);
    tick(&mut q, MS, 110);
    // p = 0.055 as above; Δw₁ = 10⁻³·10·0.055·10 = 0.0055, Δw₄ = 10⁻³·10·0.055·1 = 0.00055.
    let w = q.weights();
    let want = [1.0055, 1.0, 1.0, 1.00055, 1.0, 1.0];
    for (got, want) in w.iter().zip(want) {
        assert!(close(*got, want), "{got} != {want}");
    }
    let mut out = Vec::new();
    q.probe(&mut out);
    assert_eq!(out.len(), q.probe_names().len());
    assert_eq!(out[0], q.p());
    assert_eq!(&out[1..7], &w);
}

#[test]
fn dropped_arrivals_count_towards_the_input_rate() {
    let mut q = with(1.0, [0.0; 6]);
    let mut rng = Rng::from_seed(1);
    arrive(&mut q, 2, &mut rng);
    // p = 0 + 1·5.5, clamped to 1.
    tick(&mut q, MS, 110);
    assert_eq!(q.p(), 1.0);
    assert!(arrive(&mut q, 3, &mut rng)
        .iter()
        .all(|v| *v == EnqueueVerdict::EarlyDrop));
    // 3000 bytes in 1 ms = 24 Mb/s: γ = 24/8 − 1 = 2.
    tick(&mut q, 2 * MS, 110);
    assert!(close(q.gamma(), 2.0), "{}", q.gamma());
    assert_eq!(q.stats().early_signals, 3);
}

#[test]
fn rate_is_measured_over_the_time_since_the_last_sample() {
    let mut q = with(0.0, [0.0; 6]);
    let mut rng = Rng::from_seed(1);
    tick(&mut q, MS, 100);
    arrive(&mut q, 4, &mut rng);
    // A late sample, 2 ms after the last: 4000 bytes in 2 ms = 16 Mb/s, γ = 1.
    tick(&mut q, 3 * MS, 100);
    assert!(close(q.gamma(), 1.0), "{}", q.gamma());
    assert_eq!(q.next_timer_ns(), Some(4 * MS));
}

#[test]
fn probability_stays_in_range_under_extreme_inputs() {
    let mut q = AnAqm::new(AnAqmParams {
        d4: 1.0,
        d5: 1.0,
        d6: 1.0,
        ..AnAqmParams::default()
    })
    .unwrap();
    let mut rng = Rng::from_seed(9);
    for k in 1..200u64 {
        arrive(&mut q, (k % 5) as usize * 40, &mut rng);
        let len = if k % 4 == 0 { u32::MAX } else { 0 };
        tick(&mut q, k * MS, len);
        assert!((0.0..=1.0).contains(&q.p()), "{}", q.p());
        assert!(q.weights().iter().all(|w| w.is_finite()));
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let d = AnAqmParams::default;
    let cases = [
        (
            AnAqmParams {
                q_ref_pkts: f64::NAN,
                ..d()
            },
            "q_ref_pkts: must be a number in [0, 1e9]",
        ),
        (
            AnAqmParams {
                sample_interval_ms: 2e9,
                ..d()
            },
            "sample_interval_ms: must be a number in [0.000001, 1e9] (at least 1 ns)",
        ),
        (
            AnAqmParams {
                gain_k: -0.01,
                ..d()
            },
            "gain_k: must be a number >= 0",
        ),
        (AnAqmParams { d1: -1.0, ..d() }, "d1: must be a number >= 0"),
        (AnAqmParams { d2: -1.0, ..d() }, "d2: must be a number >= 0"),
        (AnAqmParams { d3: -1.0, ..d() }, "d3: must be a number >= 0"),
        (AnAqmParams { d4: -1.0, ..d() }, "d4: must be a number >= 0"),
        (
            AnAqmParams {
                d5: f64::NAN,
                ..d()
            },
            "d5: must be a number >= 0",
        ),
        (AnAqmParams { d6: -1.0, ..d() }, "d6: must be a number >= 0"),
        (
            AnAqmParams {
                w_initial: f64::INFINITY,
                ..d()
            },
            "w_initial: must be a finite number",
        ),
    ];
    for (params, want) in cases {
        assert_eq!(AnAqm::new(params).unwrap_err().to_string(), want);
    }
    assert!(AnAqm::new(d()).is_ok());
}
