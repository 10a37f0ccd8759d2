use super::*;

fn pi2(params: DualPi2Params) -> Pi2 {
    Pi2::new(params).expect("valid")
}

/// The share of `n` draws of `signal` that give `want`.
fn share(n: u32, mut signal: impl FnMut(&mut Rng) -> Signal, want: Signal) -> f64 {
    let mut rng = Rng::from_seed(11);
    let hits = (0..n).filter(|_| signal(&mut rng) == want).count();
    hits as f64 / f64::from(n)
}

#[test]
fn the_update_follows_the_pi_equation_by_hand() {
    let mut c = pi2(DualPi2Params::default());
    assert_eq!(c.next_update_ns(), 16_000_000);
    // 20 ms against 15 ms from rest: 0.16·0.005 + 3.2·0.020 = 0.0008 + 0.064 = 0.0648.
    c.update(16_000_000, 20_000_000);
    assert!((c.p_base() - 0.0648).abs() < 1e-12, "{}", c.p_base());
    assert_eq!(c.next_update_ns(), 32_000_000);
    // Again 20 ms: only the integral term, 0.0008 → 0.0656; p_C = 0.0656², p_CL = 0.1312.
    c.update(32_000_000, 20_000_000);
    assert!((c.p_base() - 0.0656).abs() < 1e-12);
    assert!((c.p_c() - 0.004_303_36).abs() < 1e-12);
    assert!((c.p_cl() - 0.1312).abs() < 1e-12);
    // An empty queue: 0.16·(−0.015) + 3.2·(−0.020) = −0.0024 − 0.064 → 0.0656 − 0.0664 < 0.
    c.update(48_000_000, 0);
    assert_eq!(c.p_base(), 0.0);
}

#[test]
fn p_is_bounded_and_capped_at_1_over_k_without_drop_on_overload() {
    let mut c = pi2(DualPi2Params::default());
    c.update(16_000_000, 2_000_000_000); // 0.16·1.985 + 3.2·2 = 6.7176 → 1
    assert_eq!(c.p_base(), 1.0);
    assert!(c.overloaded());
    assert_eq!((c.p_c(), c.p_cl()), (1.0, 1.0));
    let mut capped = pi2(DualPi2Params {
        drop_on_overload: false,
        ..DualPi2Params::default()
    });
    capped.update(16_000_000, 2_000_000_000);
    assert_eq!(capped.p_base(), 0.5);
    assert!(!capped.overloaded());
    // p_C reaches p_Cmax = 1/k² exactly when p_CL saturates.
    assert_eq!((capped.p_c(), capped.p_cl()), (0.25, 1.0));
}

#[test]
fn classic_packets_get_p_squared_marked_or_dropped() {
    let mut c = pi2(DualPi2Params::default());
    // p' = 0.3 from rest: 3.2·q + 0.16·(q − 0.015) = 0.3 → q = 0.3024/3.36 = 0.09 s.
    c.update(16_000_000, 90_000_000);
    assert!((c.p_base() - 0.3).abs() < 1e-12);
    let n = 200_000;
    let marked = share(n, |r| c.classic(true, r), Signal::Mark);
    let dropped = share(n, |r| c.classic(false, r), Signal::Drop);
    for got in [marked, dropped] {
        assert!((got - 0.09).abs() < 0.003, "{got}");
    }
    // Not overloaded: an ECT(0) packet is never dropped, a Not-ECT one never marked.
    assert_eq!(share(1000, |r| c.classic(true, r), Signal::Drop), 0.0);
    assert_eq!(share(1000, |r| c.classic(false, r), Signal::Mark), 0.0);
}

#[test]
fn scalable_packets_get_k_p_and_the_step() {
    let mut c = pi2(DualPi2Params::default());
    c.update(16_000_000, 90_000_000); // p' = 0.3, p_CL = 0.6
    let n = 200_000;
    let got = share(n, |r| c.scalable(true, 0.0, r), Signal::Mark);
    assert!((got - 0.6).abs() < 0.005, "{got}");
    // Below 2 MTU of backlog (coupled = false) only the step acts.
    assert_eq!(
        share(1000, |r| c.scalable(false, 0.0, r), Signal::Pass),
        1.0
    );
    assert_eq!(
        share(1000, |r| c.scalable(false, 1.0, r), Signal::StepMark),
        1.0
    );
    assert_eq!(
        share(1000, |r| c.scalable(true, 1.0, r), Signal::StepMark),
        1.0
    );
    // A ramp value above p_CL decides: marked with 0.8, as a step mark.
    let ramp = share(n, |r| c.scalable(true, 0.8, r), Signal::StepMark);
    assert!((ramp - 0.8).abs() < 0.005, "{ramp}");
}

#[test]
fn overload_drops_l_packets_with_p_c() {
    let mut c = pi2(DualPi2Params::default());
    // p' = 0.7: 3.36·q − 0.0024 = 0.7 → q = 0.7024/3.36 s.
    c.update(16_000_000, (0.7024 / 3.36 * 1e9_f64).round() as u64);
    assert!((c.p_base() - 0.7).abs() < 1e-9 && c.overloaded());
    let n = 200_000;
    let dropped = share(n, |r| c.scalable(true, 0.0, r), Signal::Drop);
    assert!((dropped - 0.49).abs() < 0.005, "{dropped}");
    // What is not dropped is marked, step or not.
    assert_eq!(share(1000, |r| c.scalable(true, 0.0, r), Signal::Pass), 0.0);
    // Overloaded, ECT(0) in the C queue is dropped too.
    let classic = share(n, |r| c.classic(true, r), Signal::Drop);
    assert!((classic - 0.49).abs() < 0.005, "{classic}");
}

#[test]
fn the_native_aqm_is_a_step_a_ramp_or_a_length() {
    let step = pi2(DualPi2Params::default());
    assert_eq!(step.native_l(1_000_000, 0), 0.0); // exactly 1 ms: not above
    assert_eq!(step.native_l(1_000_001, 0), 1.0);
    let ramp = pi2(DualPi2Params {
        step_thresh_ms: 0.8,
        ramp_range_ms: 0.4,
        ..DualPi2Params::default()
    });
    assert_eq!(ramp.native_l(800_000, 0), 0.0);
    assert!((ramp.native_l(1_000_000, 0) - 0.5).abs() < 1e-12);
    assert_eq!(ramp.native_l(1_300_000, 0), 1.0);
    let pkts = pi2(DualPi2Params {
        step_thresh_pkts: 5,
        ..DualPi2Params::default()
    });
    assert_eq!(
        (pkts.native_l(9e9 as u64, 5), pkts.native_l(0, 6)),
        (0.0, 1.0)
    );
}

#[test]
fn classification_follows_the_ecn_mask() {
    // Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11.
    let l4s: Vec<bool> = (0..4).map(|b| EcnMask::L4sEct.to_l_queue(b)).collect();
    assert_eq!(l4s, [false, true, false, true]);
    let any: Vec<bool> = (0..4).map(|b| EcnMask::AnyEct.to_l_queue(b)).collect();
    assert_eq!(any, [false, true, true, true]);
}

#[test]
fn bad_values_name_the_field() {
    let e = Pi2::new(DualPi2Params {
        coupling_factor: 0.0,
        ..DualPi2Params::default()
    })
    .expect_err("refused");
    assert_eq!(e.field, "coupling_factor");
    let e = Pi2::new(DualPi2Params {
        ramp_range_ms: 1.0,
        step_thresh_pkts: 3,
        ..DualPi2Params::default()
    })
    .expect_err("refused");
    assert_eq!(e.field, "ramp_range_ms");
    let e = DualPi2Params::default()
        .build(LinkContext {
            rate_bps: 1e7,
            buffer_pkts: 100,
        })
        .err()
        .expect("no single-queue AQM");
    assert!(e.message.contains("two queues"), "{}", e.message);
}
