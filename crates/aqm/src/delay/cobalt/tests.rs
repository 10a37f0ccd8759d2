//! Unit tests of COBALT on scripted packet sequences (against ns-3.37's dequeue loop written
//! out literally: `tests/ns3_reference.rs`, which shares these helpers).

use super::*;

mod ns3_reference;

const MS: u64 = 1_000_000;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

use DequeueVerdict::{Deliver, EarlyDrop, ForcedDrop, Mark};

fn queue() -> QueueView {
    QueueView::of_pkts(10, 1000, 10e6)
}

fn cobalt() -> Cobalt {
    Cobalt::new(CobaltParams::default()).unwrap()
}

/// A change to the default parameters.
type Set = fn(&mut CobaltParams);

fn with(f: impl FnOnce(&mut CobaltParams)) -> Cobalt {
    let mut p = CobaltParams::default();
    f(&mut p);
    Cobalt::new(p).unwrap()
}

/// One dequeue of a packet that waited `sojourn_ns`.
fn deq(c: &mut Cobalt, now_ns: u64, sojourn_ns: u64) -> DequeueVerdict {
    let mut rng = Rng::from_seed(1);
    c.on_dequeue(now_ns, sojourn_ns, PKT, &queue(), &mut rng)
}

/// The control law's step at `count` for the default 100 ms interval, ns.
fn step(count: usize) -> u64 {
    (100 * MS * u64::from(INV_SQRT[count])) >> 32
}

#[test]
fn the_inverse_square_root_table_is_close_to_one_over_sqrt_count() {
    assert_eq!(INV_SQRT[0], u32::MAX);
    assert_eq!(INV_SQRT[1], u32::MAX);
    for (n, &y) in INV_SQRT.iter().enumerate().skip(2) {
        let exact = 1.0 / (n as f64).sqrt();
        let got = f64::from(y) / 2f64.powi(32);
        assert!(
            (got / exact - 1.0).abs() < 1e-3,
            "count {n}: {got} vs {exact}"
        );
    }
    // Above the table, one Newton step per change of count.
    let mut y = INV_SQRT[15];
    for n in 16..200u32 {
        y = newton_step(y, n);
        let got = f64::from(y) / 2f64.powi(32);
        assert!((got * f64::from(n).sqrt() - 1.0).abs() < 5e-3, "count {n}");
    }
    // interval/√count for counts 1 and 2, truncated to whole ns.
    assert_eq!(step(1), 99_999_999);
    assert_eq!(step(2), 70_670_846);
}

#[test]
fn no_signal_while_sojourn_at_or_below_target() {
    let mut c = cobalt();
    for i in 0..10_000u64 {
        // Exactly the target is not above it (strict, as ns-3 and Linux).
        assert_eq!(deq(&mut c, i * MS, 5 * MS), Deliver);
        assert_eq!(c.drop_next_ns(), i * MS + 100 * MS, "activity timeout");
    }
    assert!(!c.dropping());
    assert_eq!((c.count(), c.p_drop()), (0, 0.0));
    assert_eq!(c.stats(), &CobaltStats::default());
}

/// Above target from `t0` on, a packet below target 1 ms before (so that the activity timeout
/// has not expired): the first signal comes at `t0 + step(1)`. Returns its time.
fn first_signal(c: &mut Cobalt, t0: u64) -> u64 {
    if t0 > 0 {
        assert_eq!(deq(c, t0 - MS, MS), Deliver);
    }
    assert_eq!(deq(c, t0, 6 * MS), Deliver);
    assert!(c.dropping());
    assert_eq!(c.count(), 1);
    assert_eq!(c.drop_next_ns(), t0 + step(1));
    for t in (1..100).map(|k| t0 + k * MS) {
        assert_eq!(deq(c, t, 20 * MS), Deliver);
    }
    let t1 = t0 + step(1);
    assert_eq!(deq(c, t1 - 1, 20 * MS), Deliver);
    assert_eq!(deq(c, t1, 20 * MS), EarlyDrop);
    t1
}

#[test]
fn enters_the_dropping_state_and_signals_after_one_interval_above_target() {
    let mut c = cobalt();
    let t1 = first_signal(&mut c, 7 * MS);
    assert_eq!(t1, 7 * MS + 99_999_999);
    assert_eq!(c.count(), 2);
    assert_eq!(c.drop_next_ns(), t1 + step(2));
    // The host dropped and asks again at once: not due yet.
    assert_eq!(deq(&mut c, t1, 20 * MS), Deliver);
    assert_eq!(c.stats().codel_signals, 1);
}

#[test]
fn past_the_activity_timeout_the_second_packet_above_target_is_a_signal() {
    // At rest drop_next is the last packet's time + interval. A packet above target after
    // that has passed starts the dropping state and, drop_next being behind now, sets
    // drop_next = now (ns-3 and Linux alike): the next packet above target is signalled.
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 0, MS), Deliver);
    assert_eq!(deq(&mut c, 150 * MS, 6 * MS), Deliver);
    assert_eq!((c.count(), c.drop_next_ns()), (1, 150 * MS));
    assert_eq!(deq(&mut c, 151 * MS, 6 * MS), EarlyDrop);
    assert_eq!(c.count(), 2);
    assert_eq!(c.drop_next_ns(), 150 * MS + step(2));
}

#[test]
fn a_packet_at_or_below_target_restarts_the_interval() {
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 0, 6 * MS), Deliver);
    assert_eq!(deq(&mut c, 50 * MS, 5 * MS), Deliver);
    assert!(!c.dropping());
    // count is 1 and drop_next (99.99 ms) still ahead: nothing decays; above target again,
    // the interval starts afresh.
    assert_eq!(deq(&mut c, 60 * MS, 6 * MS), Deliver);
    assert_eq!(c.drop_next_ns(), 60 * MS + step(1));
    assert_eq!(deq(&mut c, 60 * MS + step(1) - 1, 6 * MS), Deliver);
    assert_eq!(deq(&mut c, 60 * MS + step(1), 6 * MS), EarlyDrop);
}

#[test]
fn signals_are_spaced_interval_over_sqrt_count() {
    let mut c = cobalt();
    let mut t = first_signal(&mut c, 0);
    for count in 2..40usize {
        let next = t + if count < INV_SQRT_CACHED {
            step(count)
        } else {
            (100 * MS * u64::from(c.vars.rec_inv_sqrt)) >> 32
        };
        assert_eq!(c.drop_next_ns(), next, "count {count}");
        let exact = 100e6 / (count as f64).sqrt();
        assert!(
            ((next - t) as f64 / exact - 1.0).abs() < 5e-3,
            "count {count}"
        );
        assert_eq!(deq(&mut c, next - 1, 20 * MS), Deliver);
        assert_eq!(deq(&mut c, next, 20 * MS), EarlyDrop);
        assert_eq!(c.count() as usize, count + 1);
        t = next;
    }
}

#[test]
fn count_decays_while_no_signal_is_given() {
    let mut c = cobalt();
    let mut t = first_signal(&mut c, 0);
    for count in 2..4 {
        t += step(count);
        assert_eq!(deq(&mut c, t, 20 * MS), EarlyDrop);
    }
    assert_eq!(c.count(), 4);
    let mut due = t + step(4);
    // Below target: the dropping state ends, count stays until drop_next has passed.
    assert_eq!(deq(&mut c, t + MS, MS), Deliver);
    assert!(!c.dropping());
    assert_eq!(deq(&mut c, due - 1, MS), Deliver);
    assert_eq!(c.count(), 4);
    // At each drop_next one step down, the next one interval/√count later.
    for count in [3usize, 2, 1] {
        assert_eq!(deq(&mut c, due, MS), Deliver);
        assert_eq!(c.count() as usize, count);
        due += step(count);
        assert_eq!(c.drop_next_ns(), due);
    }
    // At rest, drop_next becomes the activity timeout.
    assert_eq!(deq(&mut c, due, MS), Deliver);
    assert_eq!(c.count(), 0);
    assert_eq!(c.drop_next_ns(), due + 100 * MS);
}

#[test]
fn a_late_packet_decays_count_several_steps_at_once() {
    let mut c = cobalt();
    let t = first_signal(&mut c, 0);
    assert_eq!(deq(&mut c, t + step(2), 20 * MS), EarlyDrop);
    assert_eq!(c.count(), 3);
    let due = t + step(2) + step(3);
    // drop_next + step(2) + step(1) < due + 200 ms: three steps in one call, then rest.
    assert_eq!(deq(&mut c, due + 200 * MS, MS), Deliver);
    assert_eq!(c.count(), 0);
    assert_eq!(c.drop_next_ns(), due + 300 * MS);
}

#[test]
fn returning_above_target_with_count_kept_signals_at_the_old_pace() {
    let mut c = cobalt();
    let t = first_signal(&mut c, 0);
    let due = t + step(2);
    assert_eq!(deq(&mut c, t + MS, MS), Deliver);
    // Above target again before drop_next: the interval restarts at now + interval/√2
    // (count is 2), and the signal that follows raises count to 3.
    let back = t + 2 * MS;
    assert_eq!(deq(&mut c, back, 20 * MS), Deliver);
    assert_eq!(c.drop_next_ns(), back + step(2));
    assert!(back + step(2) > due);
    assert_eq!(deq(&mut c, back + step(2), 20 * MS), EarlyDrop);
    assert_eq!(c.count(), 3);
}

#[test]
fn after_a_drop_behind_schedule_the_host_asking_again_drops_again() {
    // Entered at 0; the next packet comes 300 ms later: signals at count 2, 3, 4 leave
    // drop_next behind now, the one at count 5 passes it.
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 0, 6 * MS), Deliver);
    let now = 300 * MS;
    for count in 2..=5 {
        assert_eq!(deq(&mut c, now, 20 * MS), EarlyDrop);
        assert_eq!(c.count(), count);
    }
    assert_eq!(
        c.drop_next_ns(),
        step(1) + step(2) + step(3) + step(4) + step(5)
    );
    assert_eq!(deq(&mut c, now, 20 * MS), Deliver);
}

#[test]
fn after_a_mark_behind_schedule_drop_next_moves_to_the_mark() {
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 0, 6 * MS), Deliver);
    let now = 300 * MS;
    assert_eq!(deq(&mut c, now, 20 * MS), EarlyDrop);
    assert_eq!(c.drop_next_ns(), step(1) + step(2));
    // The host marked and sent it; the next packet comes 1 ms later: drop_next was reset to
    // the mark's time (ns-3: `schedule > 0 && !drop`), so it is signalled too.
    assert_eq!(deq(&mut c, now + MS, 20 * MS), EarlyDrop);
    assert_eq!(c.count(), 3);
    assert_eq!(c.drop_next_ns(), now + step(3));
    // An empty queue at the time of a drop is a follow-up: no reset.
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 0, 6 * MS), Deliver);
    assert_eq!(deq(&mut c, now, 20 * MS), EarlyDrop);
    c.on_empty(now);
    assert_eq!(c.count(), 1);
    assert_eq!(c.drop_next_ns(), step(1) + step(2) + step(1));
}

#[test]
fn blue_rises_on_overflow_at_most_once_per_target() {
    let mut c = cobalt();
    let inc = 1.0 / 256.0;
    // The BLUE timer starts at 0: no change until more than target has passed.
    c.on_overflow(5 * MS);
    assert_eq!(c.p_drop(), 0.0);
    c.on_overflow(5 * MS + 1);
    assert_eq!(c.p_drop(), inc);
    // An overflow makes CoDel due at once: dropping, drop_next = now, count 1.
    assert!(c.dropping());
    assert_eq!((c.count(), c.drop_next_ns()), (1, 5 * MS + 1));
    for t in [6 * MS, 8 * MS, 10 * MS + 1] {
        c.on_overflow(t);
        assert_eq!(c.p_drop(), inc, "at {t}");
    }
    c.on_overflow(10 * MS + 2);
    assert_eq!(c.p_drop(), 2.0 * inc);
    assert_eq!(c.stats().overflows, 6);
    assert_eq!(c.stats().p_drop_rises, 2);
}

#[test]
fn an_overflow_makes_the_next_packet_above_target_a_signal() {
    let mut c = cobalt();
    c.on_overflow(MS);
    assert_eq!(deq(&mut c, 2 * MS, 6 * MS), EarlyDrop);
    assert_eq!(c.count(), 2);
    // Below target instead: no signal, and the overflow's count decays.
    let mut c = cobalt();
    c.on_overflow(MS);
    assert_eq!(deq(&mut c, 2 * MS, MS), Deliver);
    assert_eq!(c.count(), 0);
}

#[test]
fn blue_falls_on_empty_at_most_once_per_target_and_not_below_zero() {
    let dec = 1.0 / 4096.0;
    let mut c = with(|p| p.p_drop_initial = 2.5 * dec);
    c.on_empty(5 * MS);
    assert_eq!(c.p_drop(), 2.5 * dec);
    c.on_empty(5 * MS + 1);
    assert_eq!(c.p_drop(), 1.5 * dec);
    c.on_empty(10 * MS + 1);
    assert_eq!(c.p_drop(), 1.5 * dec);
    c.on_empty(10 * MS + 2);
    assert_eq!(c.p_drop(), 0.5 * dec);
    c.on_empty(20 * MS);
    assert_eq!(c.p_drop(), 0.0);
    assert!(!c.dropping());
    // At 0 an empty queue no longer moves the BLUE timer.
    c.on_empty(21 * MS);
    c.on_overflow(25 * MS + 1);
    assert_eq!(c.p_drop(), 1.0 / 256.0);
    assert_eq!(c.stats().p_drop_falls, 3);
}

#[test]
fn p_drop_stays_within_zero_and_one() {
    let mut c = with(|p| {
        p.p_drop_initial = 1.0 - 1.0 / 512.0;
        p.increment = 1.0;
        p.decrement = 1.0;
    });
    c.on_overflow(10 * MS);
    assert_eq!(c.p_drop(), 1.0);
    c.on_empty(20 * MS);
    assert_eq!(c.p_drop(), 0.0);
    let mut c = cobalt();
    let mut rng = Rng::from_seed(7);
    let mut t = 0;
    for _ in 0..200_000 {
        t += (rng.uniform() * 4.0 * MS as f64) as u64;
        match (rng.uniform() * 3.0) as u32 {
            0 => c.on_overflow(t),
            1 => c.on_empty(t),
            _ => {
                let sojourn = (rng.uniform() * 600.0 * MS as f64) as u64;
                c.on_dequeue(t, sojourn, PKT, &queue(), &mut rng);
            }
        }
        assert!((0.0..=1.0).contains(&c.p_drop()), "{}", c.p_drop());
    }
    assert!(c.stats().p_drop_rises > 0 && c.stats().p_drop_falls > 0);
}

#[test]
fn blue_drops_are_forced_with_probability_p_drop() {
    let mut c = with(|p| p.p_drop_initial = 1.0);
    assert_eq!(deq(&mut c, MS, 0), ForcedDrop);
    // One draw per packet while p_drop > 0, none at 0.
    let mut c = with(|p| p.p_drop_initial = 0.25);
    let mut rng = Rng::from_seed(3);
    let n = 100_000;
    let drops = (0..n)
        .filter(|&i| c.on_dequeue(i * MS, 0, PKT, &queue(), &mut rng) == ForcedDrop)
        .count();
    assert!((drops as f64 / n as f64 - 0.25).abs() < 0.01, "{drops}");
    let mut c = cobalt();
    let mut rng = Rng::from_seed(3);
    let before = rng.clone().next_u64();
    c.on_dequeue(MS, 0, PKT, &queue(), &mut rng);
    assert_eq!(rng.next_u64(), before);
    // A BLUE drop wins over a CoDel signal and is never deferred to a mark.
    let mut c = with(|p| p.p_drop_initial = 1.0);
    assert_eq!(deq(&mut c, 0, 6 * MS), ForcedDrop);
    assert_eq!(deq(&mut c, 300 * MS, 20 * MS), ForcedDrop);
    assert_eq!(c.count(), 2);
    assert_eq!(c.vars.mark_reset_at_ns, None);
}

#[test]
fn a_sojourn_above_the_blue_threshold_raises_p_drop() {
    let mut c = cobalt();
    assert_eq!(deq(&mut c, 10 * MS, 400 * MS), Deliver);
    assert_eq!(c.p_drop(), 0.0);
    deq(&mut c, 11 * MS, 400 * MS + 1);
    assert_eq!(c.p_drop(), 1.0 / 256.0);
    deq(&mut c, 12 * MS, 500 * MS);
    assert_eq!(c.p_drop(), 1.0 / 256.0, "within target of the last rise");
}

#[test]
fn the_ns3_blue_timer_wraps_after_2_pow_32_ns() {
    let wrap = 1u64 << 32;
    for (wraps, second_rise) in [(true, true), (false, false)] {
        let mut c = with(|p| p.ns3_blue_timer_wrap = wraps);
        c.on_overflow(wrap + MS);
        assert_eq!(c.p_drop(), 1.0 / 256.0);
        c.on_overflow(wrap + 2 * MS);
        assert_eq!(c.p_drop() == 2.0 / 256.0, second_rise, "wrap {wraps}");
    }
    // Before 2^32 ns the two agree.
    let mut c = cobalt();
    c.on_overflow(wrap - 3 * MS);
    c.on_overflow(wrap - MS);
    assert_eq!(c.p_drop(), 1.0 / 256.0);
}

#[test]
fn ce_threshold_marks_where_codel_gives_no_signal() {
    let mut c = cobalt();
    assert_eq!(deq(&mut c, MS, 4 * MS), Deliver);
    let mut c = with(|p| p.ce_threshold_ms = 1.0);
    assert_eq!(deq(&mut c, MS, MS), Deliver);
    assert_eq!(deq(&mut c, 2 * MS, MS + 1), Mark);
    // A CoDel signal is an early drop (a mark where ECN is used) rather than a second mark.
    assert_eq!(deq(&mut c, 3 * MS, 6 * MS), Mark);
    assert_eq!(deq(&mut c, 3 * MS + step(1), 6 * MS), EarlyDrop);
    assert_eq!(c.stats().ce_marks, 2);
}

#[test]
fn parameters_out_of_range_name_their_field() {
    let cases: [(&str, Set); 10] = [
        ("target_ms", |p| p.target_ms = 0.0),
        ("target_ms", |p| p.target_ms = f64::NAN),
        ("interval_ms", |p| p.interval_ms = 4295.0),
        ("interval_ms", |p| p.interval_ms = -1.0),
        ("increment", |p| p.increment = 1.5),
        ("decrement", |p| p.decrement = -0.1),
        ("blue_threshold_ms", |p| p.blue_threshold_ms = 0.0),
        ("ce_threshold_ms", |p| p.ce_threshold_ms = -1.0),
        ("p_drop_initial", |p| p.p_drop_initial = 1.01),
        ("p_drop_initial", |p| p.p_drop_initial = f64::INFINITY),
    ];
    for (field, set) in cases {
        let mut p = CobaltParams::default();
        set(&mut p);
        let err = Cobalt::new(p).expect_err(field);
        assert_eq!(err.field, field);
    }
    let err = Cobalt::new(CobaltParams {
        interval_ms: 5000.0,
        ..CobaltParams::default()
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "interval_ms: must be a number in [0.000001, 4294.967295] (at least 1 ns, at most 2^32 - 1 ns)"
    );
}

#[test]
fn probe_reports_sojourn_count_state_and_p_drop() {
    let mut c = with(|p| p.p_drop_initial = 0.5);
    c.on_overflow(10 * MS);
    c.on_dequeue(11 * MS, 7 * MS, PKT, &queue(), &mut Rng::from_seed(1));
    let mut out = Vec::new();
    c.probe(&mut out);
    assert_eq!(
        c.probe_names(),
        &["sojourn_ms", "count", "dropping", "p_drop"]
    );
    assert_eq!(out, vec![7.0, 2.0, 1.0, 0.5 + 1.0 / 256.0]);
    assert_eq!(c.next_timer_ns(), None);
    let mut rng = Rng::from_seed(1);
    assert_eq!(
        c.on_enqueue(0, PKT, &queue(), &mut rng),
        EnqueueVerdict::Accept
    );
}

#[test]
fn other_aqms_ignore_overflow_and_empty() {
    let mut codel = crate::CoDel::new(crate::CoDelParams::default()).unwrap();
    let mut rng = Rng::from_seed(1);
    codel.on_dequeue(0, 10 * MS, PKT, &queue(), &mut rng);
    let (mut before, mut after) = (Vec::new(), Vec::new());
    codel.probe(&mut before);
    codel.on_overflow(MS);
    codel.on_empty(2 * MS);
    codel.probe(&mut after);
    assert_eq!(before, after);
}
