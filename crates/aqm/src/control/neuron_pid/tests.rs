//! Unit tests of Neuron PID against Li et al. (2014) eqs. (9)–(12), values computed by hand.

use super::*;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 100_000, 45e6)
}

fn tick(q: &mut NeuronPid, now_ns: u64, len: u32) {
    q.on_timer(now_ns, &queue(len), &mut Rng::from_seed(1));
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

/// q_ref 100, δt 1 ms, K = 0.01, d₁ = d₂ = d₃ = 10⁻⁴, wᵢ(0) = 1.
fn small() -> NeuronPid {
    NeuronPid::new(NeuronPidParams {
        q_ref_pkts: 100.0,
        sample_interval_ms: 1.0,
        gain_k: 0.01,
        d1: 1e-4,
        d2: 1e-4,
        d3: 1e-4,
        w_initial: 1.0,
    })
    .unwrap()
}

#[test]
fn first_sample_one_interval_after_start() {
    let mut q = small();
    assert_eq!(q.next_timer_ns(), Some(MS));
    tick(&mut q, MS, 0);
    assert_eq!(q.next_timer_ns(), Some(2 * MS));
    assert_eq!(q.stats().samples, 1);
}

#[test]
fn three_samples_by_hand() {
    let mut q = small();
    // q = 110: e = 10, x = [10, 10, 10] (rest before); Σwx/Σ|w| = 30/3 = 10;
    // p = 0 + 0.01·10 = 0.1. Learning: Δwᵢ = 10⁻⁴·10·0.1·10 = 10⁻³ → wᵢ = 1.001.
    tick(&mut q, MS, 110);
    assert!(close(q.p(), 0.1), "{}", q.p());
    assert!(q.weights().iter().all(|&w| close(w, 1.001)));
    // q = 105: e = 5, x = [5 − 10, 5, 5 − 20 + 0] = [−5, 5, −15]; Σwx = 1.001·(−15),
    // Σ|w| = 3.003, ratio −5; p = 0.1 − 0.05 = 0.05.
    // Δwᵢ = 10⁻⁴·5·0.05·xᵢ = 2.5·10⁻⁵·xᵢ = [−1.25, 1.25, −3.75]·10⁻⁴.
    tick(&mut q, 2 * MS, 105);
    assert!(close(q.p(), 0.05), "{}", q.p());
    let w = q.weights();
    for (got, want) in w.iter().zip([1.000875, 1.001125, 1.000625]) {
        assert!(close(*got, want), "{got} != {want}");
    }
    // q = 100: e = 0, x = [−5, 0, 0 − 10 + 10] = [−5, 0, 0];
    // p = 0.05 + 0.01·(−5·1.000875)/3.002625; the teacher e = 0 leaves the weights.
    tick(&mut q, 3 * MS, 100);
    let want = 0.05 + 0.01 * (-5.0 * 1.000875) / 3.002625;
    assert!(close(q.p(), want), "{} != {want}", q.p());
    assert_eq!(q.weights(), w);
    let mut out = Vec::new();
    q.probe(&mut out);
    assert_eq!(q.probe_names(), &["p", "w1", "w2", "w3"]);
    assert_eq!(out, vec![q.p(), w[0], w[1], w[2]]);
}

#[test]
fn arrivals_dropped_with_probability_p() {
    let mut q = small();
    let mut rng = Rng::from_seed(5);
    // p = 0: every arrival accepted.
    for _ in 0..100 {
        assert_eq!(
            q.on_enqueue(0, PKT, &queue(500), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    // q = 1100: e = 1000, Σwx/Σ|w| = 1000, p = min(1, 10) = 1: every arrival dropped.
    tick(&mut q, MS, 1100);
    assert_eq!(q.p(), 1.0);
    for _ in 0..100 {
        assert_eq!(
            q.on_enqueue(0, PKT, &queue(0), &mut rng),
            EnqueueVerdict::EarlyDrop
        );
    }
    assert_eq!(q.stats().early_signals, 100);
}

#[test]
fn probability_stays_in_range_under_extreme_queues() {
    let mut q = NeuronPid::new(NeuronPidParams {
        d1: 1.0,
        d2: 1.0,
        d3: 1.0,
        ..NeuronPidParams::default()
    })
    .unwrap();
    for k in 1..200u64 {
        let len = if k % 3 == 0 {
            u32::MAX
        } else {
            (k % 7) as u32 * 100
        };
        tick(&mut q, k * MS, len);
        assert!((0.0..=1.0).contains(&q.p()), "{}", q.p());
        assert!(q.weights().iter().all(|w| w.is_finite()));
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let d = NeuronPidParams::default;
    let cases = [
        (
            NeuronPidParams {
                q_ref_pkts: -1.0,
                ..d()
            },
            "q_ref_pkts: must be a number in [0, 1e9]",
        ),
        (
            NeuronPidParams {
                sample_interval_ms: 0.0,
                ..d()
            },
            "sample_interval_ms: must be a number in [0.000001, 1e9] (at least 1 ns)",
        ),
        (
            NeuronPidParams {
                gain_k: f64::NAN,
                ..d()
            },
            "gain_k: must be a number >= 0",
        ),
        (
            NeuronPidParams { d1: -1.0, ..d() },
            "d1: must be a number >= 0",
        ),
        (
            NeuronPidParams {
                d2: f64::INFINITY,
                ..d()
            },
            "d2: must be a number >= 0",
        ),
        (
            NeuronPidParams { d3: -1e-9, ..d() },
            "d3: must be a number >= 0",
        ),
        (
            NeuronPidParams {
                w_initial: f64::NAN,
                ..d()
            },
            "w_initial: must be a finite number",
        ),
    ];
    for (params, want) in cases {
        assert_eq!(NeuronPid::new(params).unwrap_err().to_string(), want);
    }
    assert!(NeuronPid::new(d()).is_ok());
}
