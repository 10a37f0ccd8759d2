//! The BetaRED variants decide most arrivals from bounds on p_b; every verdict, every random
//! draw and every traced value must be those of the plain rule: p_b = the curve's probability
//! at q_avg, then `RedCore::decide`. A reference core fed the same arrivals checks it.

use aqm::red::red_core::RedCore;
use aqm::{
    ABetaRed, ABetaRedParams, Aqm, BetaRed, BetaRedParams, DBetaRed, DBetaRedParams,
    EnqueueVerdict, LinkContext, PacketView, QueueView, Rng, Spacing,
};

const RATE_BPS: f64 = 50e6;
const LIMIT_PKTS: u32 = 1000;

fn queue(len_pkts: u32) -> QueueView {
    QueueView {
        len_pkts,
        len_bytes: u64::from(len_pkts) * 1000,
        limit_pkts: LIMIT_PKTS,
        limit_bytes: 0,
        rate_bps: RATE_BPS,
    }
}

/// Drive `aqm` and `reference` (a core with the same averaging and decision options) through
/// arrivals and departures of a queue that wanders over the whole buffer and past it (for
/// forced drops at q_avg ≥ q_max = B), its length driven from outside whatever the verdicts,
/// and check
/// that both give the same verdicts, draw the same random numbers and trace the same p.
/// Returns the numbers of acceptances, early drops and forced drops.
fn same_as_reference(
    mut aqm: Box<dyn Aqm>,
    mut reference: RedCore,
    q_max_pkts: f64,
    seed: u64,
) -> [usize; 3] {
    let mut driver = Rng::from_seed(seed);
    let (mut rng_aqm, mut rng_ref) = (Rng::from_seed(seed + 1), Rng::from_seed(seed + 1));
    let mut timer_rng = Rng::from_seed(0);
    let (mut now_ns, mut len, mut level) = (0u64, 0u32, 250.0);
    let mut p_ref = 0.0;
    let mut verdicts = [0usize; 3];
    for step in 0..120_000 {
        now_ns += (driver.uniform() * 320e3) as u64;
        if step % 4000 == 0 {
            // A new level to wander around; now and then the queue drains and stays idle.
            level = driver.uniform_in(0.0, 1.2 * f64::from(LIMIT_PKTS));
            if driver.uniform() < 0.2 {
                len = 0;
                now_ns += (driver.uniform() * 2e9) as u64;
            }
        }
        while let Some(t) = aqm.next_timer_ns().filter(|&t| t <= now_ns) {
            aqm.on_timer(t, &queue(len), &mut timer_rng);
            // The traced p is still that of the last arrival, under the curve it saw.
            check_probe(aqm.as_ref(), &reference, p_ref);
        }
        let arrival_share = if f64::from(len) < level { 0.7 } else { 0.3 };
        if len > 0 && driver.uniform() > arrival_share {
            len -= 1;
            let pkt = PacketView {
                size_bytes: 1000,
                ect: false,
            };
            aqm.on_dequeue(now_ns, 0, pkt, &queue(len), &mut rng_aqm);
            reference.departure(now_ns, &queue(len));
        } else {
            let pkt = PacketView {
                size_bytes: 40 + (driver.uniform() * 1460.0) as u32,
                ect: driver.uniform() < 0.5,
            };
            let q_avg = reference.arrival(now_ns, &queue(len));
            p_ref = aqm.drop_probability_at(q_avg).unwrap();
            let forced = q_avg >= q_max_pkts;
            let want = reference.decide(p_ref, forced, pkt, &queue(len), &mut rng_ref);
            let got = aqm.on_enqueue(now_ns, pkt, &queue(len), &mut rng_aqm);
            assert_eq!(got, want, "step {step}: q_avg {q_avg}, p {p_ref}");
            len += 1;
            verdicts[match got {
                EnqueueVerdict::Accept => 0,
                EnqueueVerdict::EarlyDrop => 1,
                EnqueueVerdict::ForcedDrop => 2,
            }] += 1;
        }
        if step % 97 == 0 {
            check_probe(aqm.as_ref(), &reference, p_ref);
        }
    }
    assert_eq!(rng_aqm.next_u64(), rng_ref.next_u64(), "same draws");
    verdicts
}

/// The traced q_avg and p are the reference's, bit for bit.
fn check_probe(aqm: &dyn Aqm, reference: &RedCore, p_ref: f64) {
    let mut probe = Vec::new();
    aqm.probe(&mut probe);
    assert_eq!(probe[0].to_bits(), reference.q_avg_pkts().to_bits());
    assert_eq!(
        probe[1].to_bits(),
        p_ref.to_bits(),
        "traced p {} vs {p_ref}",
        probe[1]
    );
}

fn link() -> LinkContext {
    LinkContext {
        rate_bps: RATE_BPS,
        buffer_pkts: LIMIT_PKTS,
    }
}

/// BetaRED with `p` against its reference.
fn betared(p: BetaRedParams, seed: u64) -> [usize; 3] {
    let reference = RedCore::new(
        p.w,
        p.idle_correction,
        p.spacing,
        p.byte_mode,
        p.mean_pkt_bytes,
        p.ns_small_queue_guard,
    );
    let q_max = p.q_max_pkts;
    same_as_reference(Box::new(BetaRed::new(p).unwrap()), reference, q_max, seed)
}

/// Every kind of verdict was exercised.
fn all_verdicts(verdicts: [usize; 3]) {
    assert!(verdicts.iter().all(|&n| n > 100), "verdicts {verdicts:?}");
}

#[test]
fn betared_decides_as_the_exact_curve() {
    let variants = [
        BetaRedParams::default(),
        BetaRedParams {
            q_min_pkts: 100.0,
            q_max_pkts: 600.0,
            q_target_pkts: 300.0,
            p_max: 0.3,
            theta: 0.05,
            spacing: Spacing::Wait,
            byte_mode: true,
            ..BetaRedParams::default()
        },
        BetaRedParams {
            theta: 0.5,
            w: 0.02,
            spacing: Spacing::Uniform,
            ..BetaRedParams::default()
        },
        BetaRedParams {
            theta: 0.005,
            ns_small_queue_guard: false,
            idle_correction: false,
            ..BetaRedParams::default()
        },
    ];
    for (i, p) in variants.into_iter().enumerate() {
        all_verdicts(betared(p, i as u64));
    }
}

#[test]
fn betared_with_a_subnormal_p_draws_only_where_p_is_positive() {
    // p = p_max·I is 0 or subnormal: a uniform is drawn exactly where it is positive.
    let p = BetaRedParams {
        p_max: 1e-310,
        ..BetaRedParams::default()
    };
    let [accepted, early, forced] = betared(p, 5);
    assert!(accepted > 100 && early == 0 && forced > 100);
}

#[test]
fn abetared_decides_as_the_exact_curve() {
    for (i, theta) in [0.1, 0.03].into_iter().enumerate() {
        let p = ABetaRedParams {
            theta,
            t_update_s: 0.2,
            ..ABetaRedParams::default()
        };
        let reference = RedCore::new(p.w, true, p.spacing, false, p.mean_pkt_bytes, true);
        let aqm = ABetaRed::new(p, link()).unwrap();
        all_verdicts(same_as_reference(
            Box::new(aqm),
            reference,
            1000.0,
            10 + i as u64,
        ));
    }
}

#[test]
fn dbetared_decides_as_the_exact_curve() {
    for (i, theta) in [0.1, 0.02].into_iter().enumerate() {
        let p = DBetaRedParams {
            theta,
            t_update_s: 0.2,
            ..DBetaRedParams::default()
        };
        let reference = RedCore::new(p.w, true, p.spacing, false, p.mean_pkt_bytes, true);
        let aqm = DBetaRed::new(p, link()).unwrap();
        all_verdicts(same_as_reference(
            Box::new(aqm),
            reference,
            1000.0,
            20 + i as u64,
        ));
    }
}
