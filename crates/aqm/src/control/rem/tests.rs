//! Unit tests of REM against the update rule of Athuraliya et al. (2001) as ns-2.35's
//! `Queue/REM` codes it, with values computed by hand.

use super::*;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

/// 40 Mb/s with 1000-byte packets: c = 0.002 s · 40e6 / 8000 = 10 packets per 2 ms interval.
const RATE_BPS: f64 = 40e6;

fn queue(len_pkts: u32) -> QueueView {
    QueueView::of_pkts(len_pkts, 900, RATE_BPS)
}

fn rem(params: RemParams) -> Rem {
    Rem::new(params, RATE_BPS).unwrap()
}

/// `arrivals` packets arrive (into an empty queue, with p = 0 nothing is dropped), then the
/// update due at the next timer runs with `q` packets waiting.
fn interval(rem: &mut Rem, arrivals: u32, q: u32) {
    let mut rng = Rng::from_seed(1);
    let now = rem.next_timer_ns().unwrap();
    for _ in 0..arrivals {
        rem.on_enqueue(now - 1, PKT, &queue(0), &mut rng);
    }
    rem.on_timer(now, &queue(q), &mut rng);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
}

#[test]
fn defaults_are_the_papers() {
    let p = RemParams::default();
    assert_eq!(
        (p.phi, p.alpha, p.gamma, p.update_interval_ms, p.q_ref_pkts),
        (1.001, 0.1, 0.001, 2.0, 300.0)
    );
    assert_eq!((p.input_weight, p.mean_pkt_bytes), (1.0, 1000.0));
    assert!(p.validate().is_ok());
}

#[test]
fn capacity_is_packets_per_interval() {
    assert!(close(
        rem(RemParams::default()).capacity_pkts_per_interval(),
        10.0
    ));
    // 45 Mb/s, 1040-byte packets: 0.002 · 45e6 / 8320 = 10.817307692307692.
    let p = RemParams {
        mean_pkt_bytes: 1040.0,
        ..RemParams::default()
    };
    let c = Rem::new(p, 45e6).unwrap().capacity_pkts_per_interval();
    assert!(close(c, 90_000.0 / 8320.0));
    assert!((c - 10.817307692307692).abs() < 1e-12);
}

#[test]
fn timer_first_fires_one_interval_in_then_every_interval() {
    let mut r = rem(RemParams::default());
    assert_eq!(r.next_timer_ns(), Some(2 * MS));
    r.on_timer(2 * MS, &queue(0), &mut Rng::from_seed(1));
    assert_eq!(r.next_timer_ns(), Some(4 * MS));
    r.on_timer(4 * MS, &queue(0), &mut Rng::from_seed(1));
    assert_eq!(r.next_timer_ns(), Some(6 * MS));
    assert_eq!(r.stats().updates, 2);
}

#[test]
fn price_follows_the_update_rule() {
    let mut r = rem(RemParams::default());
    // 15 arrivals, q = 320: price = 0 + 0.001·(0.1·(320 − 300) + 15 − 10) = 0.001·7 = 0.007.
    interval(&mut r, 15, 320);
    assert!(close(r.price(), 0.007), "{}", r.price());
    // p = 1 − 1.001^(−0.007) = 1 − exp(−0.007 · 0.00099950033) ≈ 6.99648e-6.
    assert!(close(r.p(), 1.0 - 1.001f64.powf(-0.007)));
    assert!((r.p() - 6.99648e-6).abs() < 1e-10, "{}", r.p());
    // 5 arrivals, q = 300: price = 0.007 + 0.001·(0 + 5 − 10) = 0.002.
    interval(&mut r, 5, 300);
    assert!(close(r.price(), 0.002), "{}", r.price());
    // No arrivals, q = 250: 0.002 + 0.001·(−5 + 0 − 10) = −0.013, floored at 0.
    interval(&mut r, 0, 250);
    assert_eq!((r.price(), r.p()), (0.0, 0.0));
    // 30 arrivals, q = 900: 0.001·(60 + 30 − 10) = 0.08; 0.08·ln 1.001 = 7.99600e-5 and
    // p = 1 − exp(−7.99600e-5) = 7.99600e-5 − (7.99600e-5)²/2 ≈ 7.99568e-5.
    interval(&mut r, 30, 900);
    assert!(close(r.price(), 0.08), "{}", r.price());
    assert!((r.p() - 7.99568e-5).abs() < 1e-9, "{}", r.p());
}

#[test]
fn the_input_rate_is_filtered_with_the_input_weight() {
    let mut r = rem(RemParams {
        input_weight: 0.5,
        ..RemParams::default()
    });
    // 20 arrivals: x = 0.5·0 + 0.5·20 = 10; q = 400: price = 0.001·(10 + 10 − 10) = 0.01.
    interval(&mut r, 20, 400);
    assert!(close(r.price(), 0.01), "{}", r.price());
    // No arrivals: x = 0.5·10 + 0 = 5; price = 0.01 + 0.001·(10 + 5 − 10) = 0.015.
    interval(&mut r, 0, 400);
    assert!(close(r.price(), 0.015), "{}", r.price());
    // The probe reports x in packets per second: 5 per 2 ms = 2500.
    let mut out = Vec::new();
    r.probe(&mut out);
    assert_eq!(r.probe_names(), &["p", "price", "input_rate_pkts_per_s"]);
    assert_eq!(out.len(), 3);
    assert_eq!(out[0], r.p());
    assert!(close(out[1], 0.015));
    assert!(close(out[2], 2500.0), "{}", out[2]);
}

#[test]
fn alpha_and_q_ref_weigh_the_queue_error() {
    let mut r = rem(RemParams {
        alpha: 0.5,
        q_ref_pkts: 50.0,
        gamma: 0.01,
        ..RemParams::default()
    });
    // 10 arrivals (x = c), q = 70: price = 0.01·(0.5·20 + 0) = 0.1.
    interval(&mut r, 10, 70);
    assert!(close(r.price(), 0.1), "{}", r.price());
}

#[test]
fn arrivals_are_dropped_with_p_and_at_the_limit() {
    let mut r = rem(RemParams::default());
    let mut rng = Rng::from_seed(3);
    // p = 0: every arrival below the limit is accepted, whatever the queue.
    for q in [0, 1, 450, 898] {
        assert_eq!(
            r.on_enqueue(0, PKT, &queue(q), &mut rng),
            EnqueueVerdict::Accept
        );
    }
    // ns-2 drops an arrival that brings the queue to its limit: 899 waiting of 900.
    assert_eq!(
        r.on_enqueue(0, PKT, &queue(899), &mut rng),
        EnqueueVerdict::ForcedDrop
    );
    // A large price, reached in one update with a large γ, drops nearly every arrival.
    let mut r = rem(RemParams {
        gamma: 100.0,
        ..RemParams::default()
    });
    // price = 100·(0.1·(350 − 300) + 45 − 10) = 100·40 = 4000; 4000·ln 1.001 = 3.998001 and
    // p = 1 − exp(−3.998001) = 1 − e^(−4)·e^(0.001999) = 1 − 0.0183156·1.0020010 ≈ 0.981648.
    interval(&mut r, 45, 350);
    assert!(close(r.price(), 4000.0), "{}", r.price());
    assert!((r.p() - 0.981648).abs() < 1e-5, "{}", r.p());
    let drops = (0..10_000)
        .filter(|_| r.on_enqueue(0, PKT, &queue(10), &mut rng) == EnqueueVerdict::EarlyDrop)
        .count();
    assert!((9750..=9880).contains(&drops), "{drops}");
    assert_eq!(r.stats().early_drops, drops as u64);
    // Every arrival counts towards the input, the dropped ones too: 10 000 in this interval.
    interval(&mut r, 0, 0);
    let mut out = Vec::new();
    r.probe(&mut out);
    assert!(close(out[2], 10_000.0 / 0.002), "{}", out[2]);
}

#[test]
fn p_stays_a_probability_under_extreme_inputs() {
    let mut r = rem(RemParams {
        gamma: 1e300,
        alpha: 1e300,
        ..RemParams::default()
    });
    let mut rng = Rng::from_seed(1);
    for (arrivals, q) in [(100_000, 899), (0, 899), (0, 0), (5, 0), (100_000, 899)] {
        interval(&mut r, arrivals, q);
        assert!((0.0..=1.0).contains(&r.p()), "{}", r.p());
        assert!(r.price().is_finite() && r.price() >= 0.0);
    }
    assert_eq!(r.p(), 1.0);
    assert_eq!(
        r.on_enqueue(0, PKT, &queue(0), &mut rng),
        EnqueueVerdict::EarlyDrop
    );
}

/// How to spoil the defaults, the field named and the message.
type BadCase = (fn(&mut RemParams), &'static str, &'static str);

#[test]
fn each_bad_parameter_is_a_one_line_error() {
    let cases: [BadCase; 7] = [
        (|p| p.phi = 1.0, "phi", "must be a number > 1"),
        (|p| p.alpha = -0.1, "alpha", "must be a number >= 0"),
        (|p| p.gamma = 0.0, "gamma", "must be a number > 0"),
        (
            |p| p.update_interval_ms = 0.0,
            "update_interval_ms",
            "must be a number in [0.000001, 1e9] (at least 1 ns)",
        ),
        (
            |p| p.q_ref_pkts = f64::NAN,
            "q_ref_pkts",
            "must be a number >= 0",
        ),
        (
            |p| p.input_weight = 1.5,
            "input_weight",
            "must be in (0, 1]",
        ),
        (
            |p| p.mean_pkt_bytes = 0.5,
            "mean_pkt_bytes",
            "must be a number >= 1",
        ),
    ];
    for (set, field, message) in cases {
        let mut p = RemParams::default();
        set(&mut p);
        let e = p.validate().unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), (field, message));
        assert!(!e.to_string().contains('\n'));
        assert_eq!(Rem::new(p, RATE_BPS).unwrap_err(), e);
    }
    let e = Rem::new(RemParams::default(), 0.0).unwrap_err();
    assert_eq!(e.field, "rate_bps");
}
