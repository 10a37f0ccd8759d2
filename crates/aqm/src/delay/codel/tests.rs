//! Unit tests of CoDel against the pseudo-code of RFC 8289 and its worked cases.

use super::*;

const MS: u64 = 1_000_000;
/// interval/√2 and interval/√3 for interval = 100 ms, truncated to ns.
const I_SQRT2: u64 = 70_710_678;
const I_SQRT3: u64 = 57_735_026;

const PKT: PacketView = PacketView {
    size_bytes: 1000,
    ect: false,
};

fn queue(len_bytes: u64) -> QueueView {
    QueueView {
        len_pkts: len_bytes.div_ceil(1000) as u32,
        len_bytes,
        limit_pkts: 1000,
        limit_bytes: 0,
        rate_bps: 10e6,
    }
}

fn codel() -> CoDel {
    CoDel::new(CoDelParams::default()).unwrap()
}

/// One dequeue with a sojourn time and the bytes left behind the packet.
fn deq(c: &mut CoDel, now_ns: u64, sojourn_ns: u64, backlog: u64) -> DequeueVerdict {
    let mut rng = Rng::from_seed(1);
    c.on_dequeue(now_ns, sojourn_ns, PKT, &queue(backlog), &mut rng)
}

use DequeueVerdict::{Deliver, EarlyDrop};

/// Drive CoDel into the dropping state: above target from t = 0, so the first drop is at
/// exactly 100 ms; the host drops and asks again (delivered). Returns the entry time.
fn enter(c: &mut CoDel) -> u64 {
    assert_eq!(deq(c, 0, 10 * MS, 50_000), Deliver);
    assert_eq!(deq(c, 100 * MS, 10 * MS, 50_000), EarlyDrop);
    assert_eq!(deq(c, 100 * MS, 10 * MS, 49_000), Deliver);
    100 * MS
}

#[test]
fn no_drop_while_sojourn_below_target() {
    let mut c = codel();
    for i in 0..10_000u64 {
        // 4.999 ms, just under the 5 ms target, with a big backlog.
        assert_eq!(deq(&mut c, i * MS, 4_999_999, 100_000), Deliver);
    }
    assert!(!c.dropping());
    assert_eq!(c.stats().signals, 0);
}

#[test]
fn no_drop_before_one_interval_above_target() {
    let mut c = codel();
    // Goes above target at t = 7 ms: first_above_time = 107 ms.
    assert_eq!(deq(&mut c, 7 * MS, 5 * MS, 10_000), Deliver);
    for t in (8..107).map(|t| t * MS) {
        assert_eq!(deq(&mut c, t, 20 * MS, 10_000), Deliver);
    }
    assert_eq!(deq(&mut c, 107 * MS - 1, 20 * MS, 10_000), Deliver);
    assert!(!c.dropping());
    // First drop exactly one interval after going above target.
    assert_eq!(deq(&mut c, 107 * MS, 20 * MS, 10_000), EarlyDrop);
    assert!(c.dropping());
    assert_eq!(c.count(), 1);
    assert_eq!(c.vars.drop_next_ns, 207 * MS);
}

#[test]
fn drops_are_spaced_by_interval_over_sqrt_count() {
    let mut c = codel();
    let t0 = enter(&mut c);
    // Second drop at t0 + interval, third interval/√2 later, fourth interval/√3 later.
    let times = [
        t0 + 100 * MS,
        t0 + 100 * MS + I_SQRT2,
        t0 + 100 * MS + I_SQRT2 + I_SQRT3,
    ];
    for (k, &t) in times.iter().enumerate() {
        assert_eq!(
            deq(&mut c, t - 1, 10 * MS, 40_000),
            Deliver,
            "drop {k} early"
        );
        assert_eq!(
            deq(&mut c, t, 10 * MS, 40_000),
            EarlyDrop,
            "drop {k} missing"
        );
        assert_eq!(c.count(), k as u32 + 2);
        // The host asks again at the same time: not yet time for another drop.
        assert_eq!(deq(&mut c, t, 10 * MS, 39_000), Deliver);
    }
    assert_eq!(
        c.vars.drop_next_ns,
        times[2] + 50 * MS // interval/√4
    );
}

#[test]
fn one_late_dequeue_drops_several_packets() {
    // RFC 8289 dequeue(): "while (now >= drop_next && dropping)". Entered at 100 ms with
    // drop_next = 200 ms; the next dequeue comes at 400 ms. Drops at count 2, 3, 4, 5 move
    // drop_next to 270.71, 328.44, 378.44, 423.16 ms: four drops, then a delivery.
    let mut c = codel();
    enter(&mut c);
    let now = 400 * MS;
    for count in 2..=5 {
        assert_eq!(deq(&mut c, now, 10 * MS, 40_000), EarlyDrop);
        assert_eq!(c.count(), count);
    }
    assert_eq!(deq(&mut c, now, 10 * MS, 36_000), Deliver);
    assert_eq!(
        c.vars.drop_next_ns,
        200 * MS + I_SQRT2 + I_SQRT3 + 50 * MS + 44_721_359
    );
    assert!(c.dropping());
}

#[test]
fn leaves_dropping_state_when_sojourn_falls_below_target() {
    let mut c = codel();
    let t0 = enter(&mut c);
    assert_eq!(deq(&mut c, t0 + 10 * MS, 4 * MS, 40_000), Deliver);
    assert!(!c.dropping());
    // Above target again: a fresh interval must pass before the next drop.
    let t1 = t0 + 11 * MS;
    assert_eq!(deq(&mut c, t1, 10 * MS, 40_000), Deliver);
    assert_eq!(deq(&mut c, t1 + 100 * MS - 1, 10 * MS, 40_000), Deliver);
    assert_eq!(deq(&mut c, t1 + 100 * MS, 10 * MS, 40_000), EarlyDrop);
}

#[test]
fn loop_drop_followed_by_a_packet_below_target_ends_dropping() {
    let mut c = codel();
    let t0 = enter(&mut c);
    assert_eq!(deq(&mut c, t0 + 100 * MS, 10 * MS, 40_000), EarlyDrop);
    // The next packet is below target: dropping ends and drop_next keeps its value (the
    // RFC only moves it when the next packet is still above target).
    assert_eq!(deq(&mut c, t0 + 100 * MS, MS, 40_000), Deliver);
    assert!(!c.dropping());
    assert_eq!(c.vars.drop_next_ns, t0 + 100 * MS);
}

#[test]
fn backlog_of_at_most_one_mtu_is_never_above_target() {
    let mut c = codel();
    for i in 0..1_000u64 {
        assert_eq!(deq(&mut c, i * MS, 500 * MS, 1500), Deliver);
    }
    assert!(!c.dropping());
    // One byte more and the same sojourn counts as above target.
    let t = 1_000 * MS;
    assert_eq!(deq(&mut c, t, 500 * MS, 1501), Deliver);
    assert_eq!(deq(&mut c, t + 100 * MS, 500 * MS, 1501), EarlyDrop);
    // An exempt packet in between resets first_above_time.
    let mut c = codel();
    assert_eq!(deq(&mut c, 0, 500 * MS, 3000), Deliver);
    assert_eq!(deq(&mut c, 50 * MS, 500 * MS, 1500), Deliver);
    assert_eq!(deq(&mut c, 60 * MS, 500 * MS, 3000), Deliver);
    assert_eq!(deq(&mut c, 100 * MS, 500 * MS, 3000), Deliver);
    assert_eq!(deq(&mut c, 160 * MS, 500 * MS, 3000), EarlyDrop);
}

/// Run a dropping state to count 4 (lastcount 1), then leave it at `leave_ns`.
fn drop_to_count_4(c: &mut CoDel) -> u64 {
    let t0 = enter(c);
    let mut t = t0 + 100 * MS;
    for step in [I_SQRT2, I_SQRT3, 0] {
        assert_eq!(deq(c, t, 10 * MS, 40_000), EarlyDrop);
        assert_eq!(deq(c, t, 10 * MS, 39_000), Deliver);
        t += step;
    }
    assert_eq!(c.count(), 4);
    // drop_next = t + interval/√4.
    assert_eq!(c.vars.drop_next_ns, t + 50 * MS);
    let leave = t + MS;
    assert_eq!(deq(c, leave, MS, 40_000), Deliver);
    assert!(!c.dropping());
    leave
}

#[test]
fn reentry_soon_after_reuses_count_minus_lastcount() {
    let mut c = codel();
    let leave = drop_to_count_4(&mut c);
    // Above target again; re-entry one interval later, well within 16 intervals of
    // drop_next: count = 4 − 1 = 3 and drop_next = now + interval/√3.
    let t = leave + MS;
    assert_eq!(deq(&mut c, t, 10 * MS, 40_000), Deliver);
    assert_eq!(deq(&mut c, t + 100 * MS, 10 * MS, 40_000), EarlyDrop);
    assert_eq!(c.count(), 3);
    assert_eq!(c.vars.lastcount, 3);
    assert_eq!(c.vars.drop_next_ns, t + 100 * MS + I_SQRT3);
}

#[test]
fn reentry_long_after_starts_again_at_one() {
    let mut c = codel();
    let leave = drop_to_count_4(&mut c);
    let drop_next = c.vars.drop_next_ns;
    // Re-entry at exactly drop_next + 16 intervals: not "recent" any more.
    let entry = drop_next + 1600 * MS;
    assert_eq!(deq(&mut c, entry - 100 * MS, 10 * MS, 40_000), Deliver);
    assert!(entry - 100 * MS > leave);
    assert_eq!(deq(&mut c, entry, 10 * MS, 40_000), EarlyDrop);
    assert_eq!(c.count(), 1);
    assert_eq!(c.vars.drop_next_ns, entry + 100 * MS);
}

#[test]
fn marks_without_follow_up_keep_linux_ecn_state() {
    // With ECN the host marks and delivers: no second call at the same time.
    let mut c = codel();
    assert_eq!(deq(&mut c, 0, 10 * MS, 50_000), Deliver);
    assert_eq!(deq(&mut c, 100 * MS, 10 * MS, 50_000), EarlyDrop); // marked, entry
    assert_eq!(c.vars.drop_next_ns, 200 * MS);
    assert_eq!(deq(&mut c, 101 * MS, 10 * MS, 50_000), Deliver);
    assert_eq!(deq(&mut c, 200 * MS, 10 * MS, 50_000), EarlyDrop); // marked, count 2
    assert_eq!(c.count(), 2);
    // The next call (1 ms later) is not a follow-up: drop_next moves at once, as after a
    // Linux mark, and the packet is delivered.
    assert_eq!(deq(&mut c, 201 * MS, 10 * MS, 50_000), Deliver);
    assert_eq!(c.vars.drop_next_ns, 200 * MS + I_SQRT2);
    // Even when that next packet is below target (dropping ends), drop_next has moved.
    assert_eq!(deq(&mut c, 200 * MS + I_SQRT2, 10 * MS, 50_000), EarlyDrop);
    assert_eq!(deq(&mut c, 300 * MS, MS, 50_000), Deliver);
    assert!(!c.dropping());
    assert_eq!(c.vars.drop_next_ns, 200 * MS + I_SQRT2 + I_SQRT3);
    assert_eq!(c.stats().signals, 3);
}

#[test]
fn delivering_the_last_packet_leaves_dropping_state() {
    // The packet after the entry drop is delivered whatever it finds (RFC); when it
    // leaves the queue empty the RFC's next dequeue() finds nothing and leaves the
    // dropping state, which CoDel does at once.
    let mut c = codel();
    assert_eq!(deq(&mut c, 0, 10 * MS, 50_000), Deliver);
    assert_eq!(deq(&mut c, 100 * MS, 10 * MS, 1_600), EarlyDrop);
    assert_eq!(deq(&mut c, 100 * MS, 10 * MS, 0), Deliver);
    assert!(!c.dropping());
    assert_eq!(c.count(), 1);
}

#[test]
fn probe_reports_sojourn_count_and_state() {
    let mut c = codel();
    enter(&mut c);
    let mut out = Vec::new();
    c.probe(&mut out);
    assert_eq!(c.probe_names(), &["sojourn_ms", "count", "dropping"]);
    assert_eq!(out, vec![10.0, 1.0, 1.0]);
    assert_eq!(c.averaged_queue_pkts(), None);
    assert_eq!(c.next_timer_ns(), None);
}

#[test]
fn enqueue_always_accepts() {
    let mut c = codel();
    let mut rng = Rng::from_seed(1);
    assert_eq!(
        c.on_enqueue(0, PKT, &queue(1_000_000), &mut rng),
        EnqueueVerdict::Accept
    );
}

/// RFC 8289 §5 `dodequeue()` / `dequeue()` written out literally on a real FIFO (one
/// call may drop several packets), with the Linux ECN variant (mark and deliver) when
/// `ecn` is set. Used only to check that the per-packet verdicts of [`CoDel`] reproduce
/// the RFC's sequence of drops.
struct RfcReference {
    target: u64,
    interval: u64,
    maxpacket: u64,
    ecn: bool,
    first_above_time: u64,
    drop_next: u64,
    count: u32,
    lastcount: u32,
    dropping: bool,
    fifo: std::collections::VecDeque<(u32, u64, u32)>,
    bytes: u64,
}

impl RfcReference {
    fn control_law(&self, t: u64, count: u32) -> u64 {
        t + (self.interval as f64 / f64::from(count).sqrt()) as u64
    }

    fn dodequeue(&mut self, now: u64) -> (Option<(u32, u64, u32)>, bool) {
        let Some(p) = self.fifo.pop_front() else {
            self.first_above_time = 0;
            return (None, false);
        };
        self.bytes -= u64::from(p.2);
        let sojourn = now - p.1;
        let mut ok = false;
        if sojourn < self.target || self.bytes <= self.maxpacket {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
        } else if now >= self.first_above_time {
            ok = true;
        }
        (Some(p), ok)
    }

    /// Returns the delivered packet id and appends (id, signalled) for every packet taken.
    fn dequeue(&mut self, now: u64, log: &mut Vec<(u32, bool)>) -> Option<u32> {
        let (mut p, mut ok) = self.dodequeue(now);
        if p.is_none() {
            // Not OK to drop: "if (!r.ok_to_drop) dropping_ = false".
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while now >= self.drop_next && self.dropping {
                self.count += 1;
                if self.ecn {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    log.push((p.unwrap().0, true));
                    return p.map(|p| p.0);
                }
                log.push((p.unwrap().0, true));
                (p, ok) = self.dodequeue(now);
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if ok {
            log.push((p.unwrap().0, true));
            if !self.ecn {
                (p, _) = self.dodequeue(now);
            }
            self.dropping = true;
            let delta = self.count - self.lastcount;
            self.count = 1;
            if delta > 1 && (now as i64 - self.drop_next as i64) < 16 * self.interval as i64 {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            if self.ecn {
                return p.map(|p| p.0);
            }
        }
        if let Some(p) = p {
            log.push((p.0, false));
        }
        p.map(|p| p.0)
    }
}

/// A host around [`CoDel`] as the contract describes it: after an early drop it asks again
/// at the same time; with `ecn` it marks and delivers instead.
struct ContractHost {
    codel: CoDel,
    ecn: bool,
    fifo: std::collections::VecDeque<(u32, u64, u32)>,
    bytes: u64,
}

impl ContractHost {
    fn dequeue(&mut self, now: u64, log: &mut Vec<(u32, bool)>) -> Option<u32> {
        let mut rng = Rng::from_seed(1);
        while let Some(p) = self.fifo.pop_front() {
            self.bytes -= u64::from(p.2);
            let view = QueueView {
                len_pkts: self.fifo.len() as u32,
                len_bytes: self.bytes,
                limit_pkts: 100_000,
                limit_bytes: 0,
                rate_bps: 1e7,
            };
            let pkt = PacketView {
                size_bytes: p.2,
                ect: true,
            };
            match self.codel.on_dequeue(now, now - p.1, pkt, &view, &mut rng) {
                Deliver => {
                    log.push((p.0, false));
                    return Some(p.0);
                }
                EarlyDrop => {
                    log.push((p.0, true));
                    if self.ecn {
                        return Some(p.0);
                    }
                }
                other => panic!("CoDel gives no {other:?}"),
            }
        }
        None
    }
}

/// Arrivals of mixed sizes at a rate that swings above and below a 10 Mb/s link, so that
/// CoDel enters and leaves the dropping state many times; both models see the same
/// arrivals and a link that polls the queue whenever it is free. The log of every packet
/// taken from the queue (signalled or delivered) must be identical.
fn compare_with_rfc(ecn: bool, seed: u64) {
    let mut rng = Rng::from_seed(seed);
    let mut arrivals = Vec::new();
    let mut t = 0u64;
    for id in 0..60_000u32 {
        let phase = (t / (700 * MS)) % 3;
        let mean_gap = [600_000.0, 1_000_000.0, 1_600_000.0][phase as usize];
        t += (-mean_gap * (1.0 - rng.uniform()).ln()) as u64 + 1;
        // Mostly ordinary sizes; now and then a 64 kB frame holds the link for 52 ms, so
        // that several drops fall due by the next dequeue.
        let size = match rng.next_u64() % 200 {
            0 => 65_000,
            k => [1500, 1000, 40, 576][(k % 4) as usize],
        };
        arrivals.push((id, t, size));
    }
    let params = CoDelParams::default();
    let mut reference = RfcReference {
        target: 5 * MS,
        interval: 100 * MS,
        maxpacket: 1500,
        ecn,
        first_above_time: 0,
        drop_next: 0,
        count: 0,
        lastcount: 0,
        dropping: false,
        fifo: Default::default(),
        bytes: 0,
    };
    let mut host = ContractHost {
        codel: CoDel::new(params).unwrap(),
        ecn,
        fifo: Default::default(),
        bytes: 0,
    };
    let (mut log_ref, mut log_host) = (Vec::new(), Vec::new());
    let sizes: std::collections::HashMap<u32, u32> = arrivals.iter().map(|a| (a.0, a.2)).collect();
    // The link polls the queue whenever it is free: at the end of each transmission
    // (the RFC model sees the poll of an empty queue too) and at an arrival to an idle
    // link. Busy until `busy_until`; 10 Mb/s is 800 ns per byte.
    let mut busy_until: Option<u64> = None;
    let mut next = 0usize;
    let mut poll = |now: u64,
                    reference: &mut RfcReference,
                    host: &mut ContractHost,
                    busy_until: &mut Option<u64>| {
        let r = reference.dequeue(now, &mut log_ref);
        let h = host.dequeue(now, &mut log_host);
        assert_eq!(r, h, "delivered packet differs at {now}");
        assert_eq!(reference.fifo.len(), host.fifo.len());
        *busy_until = r.map(|id| now + u64::from(sizes[&id]) * 800);
    };
    loop {
        match (arrivals.get(next).copied(), busy_until) {
            (None, None) => break,
            (Some(a), b) if b.is_none_or(|f| a.1 <= f) => {
                next += 1;
                reference.fifo.push_back(a);
                reference.bytes += u64::from(a.2);
                host.fifo.push_back(a);
                host.bytes += u64::from(a.2);
                if b.is_none() {
                    poll(a.1, &mut reference, &mut host, &mut busy_until);
                }
            }
            (_, Some(f)) => poll(f, &mut reference, &mut host, &mut busy_until),
            (Some(_), None) => unreachable!("an arrival to an idle link is handled above"),
        }
    }
    assert_eq!(log_ref, log_host);
    let signals = log_host.iter().filter(|e| e.1).count();
    assert!(signals > 100, "only {signals} signals");
    // Several drops in one RFC dequeue() call happened (consecutive signals).
    let runs = log_host.windows(2).filter(|w| w[0].1 && w[1].1).count();
    assert!(ecn || runs > 0, "no multi-drop dequeue");
    assert!(host.codel.stats().dropping_entries > 3);
    assert_eq!(host.codel.stats().signals, signals as u64);
    assert_eq!(host.codel.count(), reference.count);
    assert_eq!(host.codel.vars.drop_next_ns, reference.drop_next);
}

#[test]
fn verdicts_match_the_rfc_dequeue_loop() {
    for seed in 1..=3 {
        compare_with_rfc(false, seed);
    }
}

#[test]
fn verdicts_match_linux_ecn_marking() {
    for seed in 1..=3 {
        compare_with_rfc(true, seed);
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let bad = CoDelParams {
        target_ms: 0.0,
        ..CoDelParams::default()
    };
    assert_eq!(CoDel::new(bad).unwrap_err().field, "target_ms");
    let bad = CoDelParams {
        interval_ms: f64::NAN,
        ..CoDelParams::default()
    };
    assert_eq!(CoDel::new(bad).unwrap_err().field, "interval_ms");
    assert!(CoDel::new(CoDelParams {
        mtu_bytes: 0,
        ..CoDelParams::default()
    })
    .is_ok());
}

#[test]
fn an_empty_queue_ends_the_dropping_state_and_the_time_above_target() {
    let mut c = codel();
    let t = enter(&mut c);
    assert!(c.vars.dropping);
    // The host finds the queue empty (RFC 8289 dodequeue() without a packet).
    c.on_empty(t + MS);
    assert!(!c.vars.dropping);
    assert_eq!(c.vars.first_above_time_ns, None);
    // A packet above target afterwards starts a new interval: no drop before it ends.
    assert_eq!(deq(&mut c, t + 2 * MS, 10 * MS, 50_000), Deliver);
    assert_eq!(deq(&mut c, t + 50 * MS, 10 * MS, 50_000), Deliver);
}
