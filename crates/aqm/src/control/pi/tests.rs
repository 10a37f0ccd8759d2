//! Unit tests of PI against Hollot et al.'s discrete controller as ns-2.35's `Queue/PI`
//! codes it, with values computed by hand.

use super::*;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 900, 45e6)
}

/// Run the update due next with `q` packets waiting.
fn sample(pi: &mut Pi, q: u32) {
    let now = pi.next_timer_ns().unwrap();
    pi.on_timer(now, &queue(q), &mut Rng::from_seed(1));
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

#[test]
fn defaults_are_the_papers() {
    let p = PiParams::default();
    assert_eq!(
        (p.a, p.b, p.w_hz, p.q_ref_pkts),
        (1.822e-5, 1.816e-5, 170.0, 300.0)
    );
    assert!(p.validate().is_ok());
}

#[test]
fn timer_runs_at_zero_then_at_170_hz() {
    let mut pi = Pi::new(PiParams::default()).unwrap();
    assert_eq!(pi.next_timer_ns(), Some(0));
    sample(&mut pi, 0);
    // 1/170 s = 5 882 352.94 ns, rounded to 5 882 353.
    assert_eq!(pi.next_timer_ns(), Some(5_882_353));
    sample(&mut pi, 0);
    assert_eq!(pi.next_timer_ns(), Some(11_764_706));
    assert_eq!(pi.stats().updates, 2);
}

#[test]
fn p_follows_the_difference_equation() {
    let mut pi = Pi::new(PiParams::default()).unwrap();
    // At time 0, q = 0 and q_old = 0: 1.822e-5·(−300) − 1.816e-5·(−300) = −1.8e-7 → 0.
    sample(&mut pi, 0);
    assert_eq!(pi.p(), 0.0);
    // q = 400 after q_old = 0: 1.822e-5·100 − 1.816e-5·(−300) = 1.822e-3 + 5.448e-3 = 7.27e-3.
    sample(&mut pi, 400);
    assert!(close(pi.p(), 7.27e-3), "{}", pi.p());
    // q = 400 again: + 1.822e-5·100 − 1.816e-5·100 = + 6e-6 → 7.276e-3.
    sample(&mut pi, 400);
    assert!(close(pi.p(), 7.276e-3), "{}", pi.p());
    // q = 300: + 0 − 1.816e-5·100 = − 1.816e-3 → 5.46e-3.
    sample(&mut pi, 300);
    assert!(close(pi.p(), 5.46e-3), "{}", pi.p());
    // q = 100: + 1.822e-5·(−200) − 0 = − 3.644e-3 → 1.816e-3.
    sample(&mut pi, 100);
    assert!(close(pi.p(), 1.816e-3), "{}", pi.p());
    // q = 0: + 1.822e-5·(−300) − 1.816e-5·(−200) = −5.466e-3 + 3.632e-3 = −1.834e-3
    // → −1.8e-5, clamped to 0.
    sample(&mut pi, 0);
    assert_eq!(pi.p(), 0.0);
    // The probe: p, then the latest error q − q_ref = 0 − 300.
    let mut out = Vec::new();
    pi.probe(&mut out);
    assert_eq!(pi.probe_names(), &["p", "queue_error_pkts"]);
    assert_eq!(out, vec![0.0, -300.0]);
}

#[test]
fn q_ref_sets_the_equilibrium() {
    let params = PiParams {
        q_ref_pkts: 50.0,
        a: 0.01,
        b: 0.005,
        ..PiParams::default()
    };
    let mut pi = Pi::new(params).unwrap();
    // q = 60 after q_old = 0: 0.01·10 − 0.005·(−50) = 0.1 + 0.25 = 0.35.
    sample(&mut pi, 60);
    assert!(close(pi.p(), 0.35), "{}", pi.p());
    // q = 50: 0.35 + 0 − 0.005·10 = 0.3; q = 50 again: unchanged.
    sample(&mut pi, 50);
    assert!(close(pi.p(), 0.3), "{}", pi.p());
    sample(&mut pi, 50);
    assert!(close(pi.p(), 0.3), "{}", pi.p());
}

#[test]
fn arrivals_are_dropped_with_p_below_the_limit() {
    let mut pi = Pi::new(PiParams {
        a: 0.01,
        b: 0.0,
        ..PiParams::default()
    })
    .unwrap();
    let mut rng = Rng::from_seed(5);
    // p = 0: all accepted, the full queue too (the host drops that one as overflow).
    for q in [0, 300, 899, 900] {
        assert_eq!(
            pi.on_enqueue(0, PKT, &queue(q), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    // q = 330: p = 0.01·30 = 0.3.
    sample(&mut pi, 330);
    assert!(close(pi.p(), 0.3));
    let drops = (0..10_000)
        .filter(|_| pi.on_enqueue(0, PKT, &queue(0), &mut rng) == EnqueueVerdict::EarlyDrop)
        .count();
    assert!((2850..=3150).contains(&drops), "{drops}");
    assert_eq!(pi.stats().early_drops, drops as u64);
    // A full queue is the host's to drop, whatever p is.
    assert_eq!(
        pi.on_enqueue(0, PKT, &queue(900), &mut rng),
        EnqueueVerdict::Accept
    );
}

#[test]
fn p_stays_a_probability_under_extreme_inputs() {
    let mut pi = Pi::new(PiParams {
        a: 1.0,
        b: 1.0,
        q_ref_pkts: f64::MAX,
        ..PiParams::default()
    })
    .unwrap();
    for q in [u32::MAX, 0, u32::MAX, 900, 0] {
        sample(&mut pi, q);
        assert!((0.0..=1.0).contains(&pi.p()), "{}", pi.p());
    }
    let mut pi = Pi::new(PiParams {
        a: 1.0,
        b: 0.0,
        q_ref_pkts: 0.0,
        ..PiParams::default()
    })
    .unwrap();
    sample(&mut pi, u32::MAX);
    assert_eq!(pi.p(), 1.0);
    assert_eq!(
        pi.on_enqueue(0, PKT, &queue(1), &mut Rng::from_seed(1)),
        EnqueueVerdict::EarlyDrop
    );
}

/// How to spoil the defaults, the field named and the message.
type BadCase = (fn(&mut PiParams), &'static str, &'static str);

#[test]
fn each_bad_parameter_is_a_one_line_error() {
    let cases: [BadCase; 4] = [
        (|p| p.a = -1e-5, "a", "must be in [0, 1]"),
        (|p| p.b = f64::NAN, "b", "must be in [0, 1]"),
        (|p| p.w_hz = 0.0, "w_hz", "must be a number in (0, 1e9]"),
        (
            |p| p.q_ref_pkts = -1.0,
            "q_ref_pkts",
            "must be a number >= 0",
        ),
    ];
    for (set, field, message) in cases {
        let mut p = PiParams::default();
        set(&mut p);
        let e = p.validate().unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), (field, message));
        assert!(!e.to_string().contains('\n'));
        assert_eq!(Pi::new(p).unwrap_err(), e);
    }
}
