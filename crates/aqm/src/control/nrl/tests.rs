//! Unit tests of NRL: eq. (13)–(14), the reinforcement update by hand, bounds and errors.

use super::*;

/// 8 Mb/s and 1000-byte packets: C = 1000 packets/s.
fn link() -> LinkContext {
    LinkContext {
        rate_bps: 8e6,
        buffer_pkts: 1000,
    }
}

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 1000, 8e6)
}

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

/// `arrivals` packets of 1000 bytes, then the sample at k ms with queue q.
fn sample(a: &mut Nrl, k: u64, arrivals: u32, q: u32) {
    let mut rng = Rng::from_seed(1);
    for _ in 0..arrivals {
        a.on_enqueue(k * 1_000_000, PKT, &queue(q), &mut rng);
    }
    a.on_timer(k * 1_000_000, &queue(q), &mut rng);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn activation_is_eq_14() {
    // f(z) = (1 − e^(−z))/(1 + e^(−z)); f(0) = 0 with slope ½; f(2) = (1 − e^−2)/(1 + e^−2).
    assert_eq!(activation(0.0), (0.0, 0.5));
    let e2 = (-2.0f64).exp();
    let (y, s) = activation(2.0);
    assert!(close(y, (1.0 - e2) / (1.0 + e2)));
    assert!(close(s, 0.5 * (1.0 - y * y)));
    assert_eq!(activation(1e9).0, 1.0);
    assert_eq!(activation(-1e9).0, -1.0);
}

#[test]
fn reinforcement_update_by_hand() {
    let params = NrlParams {
        alpha: 1e-6,
        gamma: 0.5,
        w1_initial: 0.01,
        w2_initial: 0.001,
        normalised_inputs: false,
        ..NrlParams::default()
    };
    let mut a = Nrl::new(params, link()).unwrap();
    // k = 0: 3 packets in 1 ms → x = 3000 packets/s; q = 320.
    // e1 = 20, e2 = 3000 − 1000 = 2000; r = 10·20 + 0.02·2000 = 240.
    // Traces start at 0 (slope 0 before the first sample): weights unchanged.
    // z = 0.01·20 + 0.001·2000 = 2.2; p = tanh(1.1) = 0.800499; f′ = ½(1 − 0.800499²) = 0.179601.
    sample(&mut a, 0, 3, 320);
    assert!(close(a.reinforcement(), 240.0));
    assert_eq!(a.weights(), [0.01, 0.001]);
    assert!(close(a.p(), 0.8004990217606297));
    // k = 1: no arrivals → e2 = −1000; q = 300 → e1 = 0; r = 0.02·(−1000) = −20.
    // Traces: ē1 = 0.179601·20 = 3.592013, ē2 = 0.179601·2000 = 359.2013.
    // w1 = 0.01 + 1e-6·(−20)·3.592013 = 0.00992816; w2 = 0.001 − 1e-6·20·359.2013 = −0.006184026.
    // z = −0.006184026·(−1000) = 6.184026; p = tanh(3.092013) = 0.995884.
    sample(&mut a, 1, 0, 300);
    let slope = 0.5 * (1.0 - 0.8004990217606297f64.powi(2));
    assert!(close(slope, 0.17960065808013742));
    assert!(close(a.reinforcement(), -20.0));
    let w = a.weights();
    assert!(close(w[0], 0.01 - 20e-6 * slope * 20.0));
    assert!(close(w[1], 0.001 - 20e-6 * slope * 2000.0));
    assert!(close(w[1], -0.006184026316));
    assert!(close(a.p(), 0.9958842702461236));
    assert_eq!(a.stats().updates, 2);
}

#[test]
fn traces_decay_by_gamma() {
    let params = NrlParams {
        alpha: 0.0,
        gamma: 0.5,
        w1_initial: 0.0,
        w2_initial: 0.0,
        theta2: 0.0,
        normalised_inputs: false,
        ..NrlParams::default()
    };
    let mut a = Nrl::new(params, link()).unwrap();
    // With α = 0 the weights stay 0, so z = 0 and f′ = ½ at every sample.
    // k = 0: e1 = 100. k = 1: ē1 = ½·100 = 50. k = 2 (e1 = 0 at k = 1): ē1 = ½·50 + ½·0 = 25.
    sample(&mut a, 0, 0, 400);
    sample(&mut a, 1, 0, 300);
    assert!(close(a.neuron.trace[0], 50.0));
    sample(&mut a, 2, 0, 300);
    assert!(close(a.neuron.trace[0], 25.0));
    assert_eq!(a.p(), 0.0);
}

#[test]
fn negative_neuron_output_is_truncated_to_zero() {
    let params = NrlParams {
        alpha: 0.0,
        w1_initial: 0.01,
        w2_initial: 0.0,
        normalised_inputs: false,
        ..NrlParams::default()
    };
    let mut a = Nrl::new(params, link()).unwrap();
    sample(&mut a, 0, 0, 0); // z = 0.01·(−300) = −3: y = −0.905, p = 0
    assert_eq!(a.p(), 0.0);
    sample(&mut a, 1, 0, 500); // z = 2: p = f(2)
    let e2 = (-2.0f64).exp();
    assert!(close(a.p(), (1.0 - e2) / (1.0 + e2)));
}

#[test]
fn probability_stays_in_unit_interval_under_extreme_inputs() {
    for (alpha, w) in [(0.001, 0.0), (1.0, 1e6), (1.0, -1e6), (0.0, 0.0)] {
        let params = NrlParams {
            alpha,
            w1_initial: w,
            w2_initial: w,
            normalised_inputs: false,
            ..NrlParams::default()
        };
        let mut a = Nrl::new(params, link()).unwrap();
        for (k, (n, q)) in [(0, 0), (50, 1000), (0, 1000), (1, 0), (7, 300), (0, 299)]
            .into_iter()
            .enumerate()
        {
            sample(&mut a, k as u64, n, q);
            assert!((0.0..=1.0).contains(&a.p()), "{}", a.p());
        }
    }
}

#[test]
fn rate_counts_every_arrival_over_the_sample_interval() {
    let params = NrlParams {
        alpha: 0.0,
        sample_interval_ms: 10.0,
        theta1: 0.0,
        theta2: 1.0,
        normalised_inputs: false,
        ..NrlParams::default()
    };
    let mut a = Nrl::new(params, link()).unwrap();
    // 25 packets over 10 ms: x = 2500 packets/s; r = 1·(2500 − 1000) = 1500. The count resets.
    sample(&mut a, 0, 25, 0);
    assert!(close(a.reinforcement(), 1500.0));
    assert_eq!(a.next_timer_ns(), Some(10_000_000));
    a.on_timer(10_000_000, &queue(0), &mut Rng::from_seed(1));
    assert!(close(a.reinforcement(), -1000.0));
}

#[test]
fn probes_are_p_then_the_weights_and_the_signal() {
    let a = Nrl::new(NrlParams::default(), link()).unwrap();
    assert_eq!(a.probe_names(), ["p", "w1", "w2", "r"]);
    let mut out = Vec::new();
    a.probe(&mut out);
    assert_eq!(out, [0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn bad_parameters_name_the_field() {
    let cases: Vec<(NrlParams, &str, &str)> = vec![
        (
            NrlParams {
                q_ref_pkts: -1.0,
                ..Default::default()
            },
            "q_ref_pkts",
            "must be a number in (0, 1e9]",
        ),
        (
            NrlParams {
                sample_interval_ms: 2e9,
                ..Default::default()
            },
            "sample_interval_ms",
            "must be a number in [0.000001, 1e9] (at least 1 ns)",
        ),
        (
            NrlParams {
                alpha: -0.1,
                ..Default::default()
            },
            "alpha",
            "must be in [0, 1]",
        ),
        (
            NrlParams {
                gamma: 1.0,
                ..Default::default()
            },
            "gamma",
            "must be in [0, 1)",
        ),
        (
            NrlParams {
                theta1: f64::NAN,
                ..Default::default()
            },
            "theta1",
            "must be a number in [0, 1e6]",
        ),
        (
            NrlParams {
                theta2: -1.0,
                ..Default::default()
            },
            "theta2",
            "must be a number in [0, 1e6]",
        ),
        (
            NrlParams {
                w1_initial: f64::INFINITY,
                ..Default::default()
            },
            "w1_initial",
            "must be a number in [-1e6, 1e6]",
        ),
        (
            NrlParams {
                w2_initial: f64::NAN,
                ..Default::default()
            },
            "w2_initial",
            "must be a number in [-1e6, 1e6]",
        ),
        (
            NrlParams {
                mean_pkt_bytes: 0.0,
                ..Default::default()
            },
            "mean_pkt_bytes",
            "must be a number in [1, 1e9]",
        ),
    ];
    for (params, field, message) in cases {
        let err = params.validate().unwrap_err();
        assert_eq!((err.field.as_str(), err.message.as_str()), (field, message));
    }
    let bad_link = LinkContext {
        rate_bps: f64::NAN,
        buffer_pkts: 10,
    };
    assert_eq!(
        Nrl::new(NrlParams::default(), bad_link).unwrap_err().field,
        "rate_bps"
    );
}

#[test]
fn normalised_inputs_by_hand() {
    let params = NrlParams {
        alpha: 0.01,
        gamma: 0.5,
        w1_initial: 1.0,
        w2_initial: 0.5,
        ..NrlParams::default()
    };
    let mut a = Nrl::new(params, link()).unwrap();
    // k = 0: 2 packets in 1 ms → x = 2000 packets/s = 2·C; q = 330 against q_ref 300.
    // e1 = 30/300 = 0.1, e2 = (2000 − 1000)/1000 = 1; r = 10·0.1 + 0.02·1 = 1.02.
    // z = 1·0.1 + 0.5·1 = 0.6; p = tanh(0.3) = 0.291313; f′ = ½(1 − p²) = 0.457568.
    sample(&mut a, 0, 2, 330);
    assert!(close(a.reinforcement(), 1.02));
    assert!(close(a.p(), 0.3f64.tanh()));
    // k = 1: 1 packet → x = C, e2 = 0; q = 300 → e1 = 0; r = 0.
    // Traces ē1 = 0.457568·0.1, ē2 = 0.457568·1; r = 0 leaves the weights; z = 0 → p = 0.
    sample(&mut a, 1, 1, 300);
    assert_eq!(a.reinforcement(), 0.0);
    assert_eq!(a.weights(), [1.0, 0.5]);
    assert_eq!(a.p(), 0.0);
    // k = 2: 1 packet, q = 360: e1 = 0.2, e2 = 0, r = 2.
    // Traces ē1 = 0.5·0.0457568 + 0.5·0 = 0.0228784 (slope at k = 1 is ½, e1 was 0),
    // ē2 = 0.5·0.457568 + 0 = 0.228784.
    // w1 = 1 + 0.01·2·0.0228784 = 1.000457568; w2 = 0.5 + 0.01·2·0.228784 = 0.50457568.
    sample(&mut a, 2, 1, 360);
    let slope0 = 0.5 * (1.0 - 0.3f64.tanh().powi(2));
    let w = a.weights();
    assert!(close(w[0], 1.0 + 0.02 * 0.5 * slope0 * 0.1));
    assert!(close(w[1], 0.5 + 0.02 * 0.5 * slope0));
    // z = w1·0.2, p = tanh(z/2).
    assert!(close(a.p(), (0.5 * w[0] * 0.2).tanh()));
}
