//! COBALT against ns-3.37's `CobaltQueueDisc` written out literally: both behind one FIFO on a
//! 10 Mb/s link, under arrivals that overflow the buffer and let it empty, give every packet the
//! same fate.

use super::*;
use std::collections::VecDeque;

/// ns-3.37 `CobaltQueueDisc` written out literally (DoEnqueue, DoDequeue, CobaltShouldDrop,
/// CobaltQueueFull, CobaltQueueEmpty), knowing at each decision whether the packet gets a
/// mark. Only the fixed-point 1/√count is shared with [`Cobalt`].
struct Ns3Reference {
    p: CobaltParams,
    ecn: bool,
    count: u32,
    rec_inv_sqrt: u32,
    drop_next: i128,
    dropping: bool,
    p_drop: f64,
    last_blue: u64,
}

impl Ns3Reference {
    fn ns(ms: f64) -> i128 {
        (ms * 1e6).round() as i128
    }

    fn law(&self, t: i128) -> i128 {
        t + ((Self::ns(self.p.interval_ms) * i128::from(self.rec_inv_sqrt)) >> 32)
    }

    fn inv_sqrt(&mut self) {
        self.rec_inv_sqrt = if self.count < 16 {
            INV_SQRT[self.count as usize]
        } else {
            newton_step(self.rec_inv_sqrt, self.count)
        };
    }

    fn blue_ok(&self, now: i128) -> bool {
        now - i128::from(self.last_blue) > Self::ns(self.p.target_ms)
    }

    fn stamp(&mut self, now: i128) {
        let wrap = if self.p.ns3_blue_timer_wrap { 32 } else { 64 };
        self.last_blue = (now as u128 & ((1u128 << wrap) - 1)) as u64;
    }

    fn queue_full(&mut self, now: i128) {
        if self.blue_ok(now) {
            self.p_drop = (self.p_drop + self.p.increment).min(1.0);
            self.stamp(now);
        }
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
    }

    fn queue_empty(&mut self, now: i128) {
        if self.p_drop != 0.0 && self.blue_ok(now) {
            self.p_drop = (self.p_drop - self.p.decrement).max(0.0);
            self.stamp(now);
        }
        self.dropping = false;
        if self.count > 0 && now - self.drop_next >= 0 {
            self.count -= 1;
            self.inv_sqrt();
            self.drop_next = self.law(self.drop_next);
        }
    }

    /// Returns (drop, marked).
    fn should_drop(&mut self, now: i128, sojourn: i128, ect: bool, rng: &mut Rng) -> (bool, bool) {
        let mut schedule = now - self.drop_next;
        let over = sojourn > Self::ns(self.p.target_ms);
        let mut next_due = self.count > 0 && schedule >= 0;
        let (mut drop, mut marked) = (false, false);
        if over {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = self.law(now);
            }
            self.count = self.count.max(1);
        } else if self.dropping {
            self.dropping = false;
        }
        if next_due && self.dropping {
            marked = self.ecn && ect;
            drop = !marked;
            self.count = self.count.saturating_add(1);
            self.inv_sqrt();
            self.drop_next = self.law(self.drop_next);
            schedule = now - self.drop_next;
        } else {
            while next_due {
                self.count -= 1;
                self.inv_sqrt();
                self.drop_next = self.law(self.drop_next);
                schedule = now - self.drop_next;
                next_due = self.count > 0 && schedule >= 0;
            }
        }
        let ce = self.p.ce_threshold_ms > 0.0 && sojourn > Self::ns(self.p.ce_threshold_ms);
        if !marked && self.ecn && ect && ce {
            marked = true;
        }
        if sojourn > Self::ns(self.p.blue_threshold_ms) && self.blue_ok(now) {
            self.p_drop = (self.p_drop + self.p.increment).min(1.0);
            self.stamp(now);
        }
        if self.p_drop != 0.0 {
            drop |= rng.uniform() < self.p_drop;
        }
        if self.count == 0 {
            self.drop_next = now + Self::ns(self.p.interval_ms);
        } else if schedule > 0 && !drop {
            self.drop_next = now;
        }
        (drop, marked)
    }
}

/// What happened to a packet: sent (marked or not), or dropped at enqueue or dequeue.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fate {
    Sent(bool),
    Overflow,
    Dropped,
}

/// Either model behind one FIFO of `limit` packets on a 10 Mb/s link.
trait Disc {
    fn full(&mut self, now: u64);
    fn empty(&mut self, now: u64);
    /// Some(marked) to send, None to drop.
    fn decide(&mut self, now: u64, sojourn: u64, ect: bool, rng: &mut Rng) -> Option<bool>;
}

impl Disc for Ns3Reference {
    fn full(&mut self, now: u64) {
        self.queue_full(i128::from(now));
    }
    fn empty(&mut self, now: u64) {
        self.queue_empty(i128::from(now));
    }
    fn decide(&mut self, now: u64, sojourn: u64, ect: bool, rng: &mut Rng) -> Option<bool> {
        let (drop, marked) = self.should_drop(i128::from(now), i128::from(sojourn), ect, rng);
        (!drop).then_some(marked)
    }
}

/// [`Cobalt`] behind a host that keeps the contract, with ECN on or off.
struct Host(Cobalt, bool);

impl Disc for Host {
    fn full(&mut self, now: u64) {
        self.0.on_overflow(now);
    }
    fn empty(&mut self, now: u64) {
        self.0.on_empty(now);
    }
    fn decide(&mut self, now: u64, sojourn: u64, ect: bool, rng: &mut Rng) -> Option<bool> {
        let pkt = PacketView {
            size_bytes: 1000,
            ect,
        };
        match self.0.on_dequeue(now, sojourn, pkt, &queue(), rng) {
            Deliver => Some(false),
            EarlyDrop if self.1 && ect => Some(true),
            EarlyDrop | ForcedDrop => None,
            Mark => Some(self.1 && ect),
        }
    }
}

/// The link asks for a packet at `now`: drops until one is sent (true) or the queue is empty
/// (false), as ns-3's `DoDequeue` loop.
fn serve(
    disc: &mut dyn Disc,
    rng: &mut Rng,
    now: u64,
    fifo: &mut VecDeque<(usize, u64, bool)>,
    fates: &mut [Fate],
) -> bool {
    while let Some((id, at, ect)) = fifo.pop_front() {
        match disc.decide(now, now - at, ect, rng) {
            Some(marked) => {
                fates[id] = Fate::Sent(marked);
                return true;
            }
            None => fates[id] = Fate::Dropped,
        }
    }
    disc.empty(now);
    false
}

/// Arrivals (half of them ECN-capable) whose rate swings around the link's, so that the
/// buffer overflows, the queue empties and CoDel enters and leaves its state; the link asks
/// for a packet whenever it is free, as ns-3's device does; `slow` stretches every time (a
/// slower link). Returns every packet's fate.
fn run(disc: &mut dyn Disc, seed: u64, slow: u64) -> Vec<Fate> {
    let mut rng = Rng::from_seed(seed);
    let mut blue = Rng::from_seed(seed + 1);
    let (limit, tx) = (60usize, 800_000 * slow);
    let n = 40_000;
    let mut fates = vec![Fate::Sent(false); n];
    let mut fifo = VecDeque::new();
    let (mut t, mut free_at, mut busy) = (0u64, 0u64, false);
    for id in 0..n {
        let phase = (t / (900 * MS * slow)) % 4;
        let gap = [500_000.0, 900_000.0, 1_300_000.0, 5_000_000.0][phase as usize];
        t += rng.exponential(gap * slow as f64) as u64 + 1;
        while busy && free_at <= t {
            busy = serve(disc, &mut blue, free_at, &mut fifo, &mut fates);
            free_at += tx;
        }
        if fifo.len() >= limit {
            fates[id] = Fate::Overflow;
            disc.full(t);
        } else {
            fifo.push_back((id, t, rng.uniform() < 0.5));
        }
        if !busy {
            busy = serve(disc, &mut blue, t, &mut fifo, &mut fates);
            free_at = t + tx;
        }
    }
    fates
}

#[test]
fn verdicts_reproduce_ns3_dequeue_loop() {
    // The last: signals every 10 ms or less on a link that serves a packet every 8 ms, so
    // that marks leave drop_next behind now (the reset `settle` applies).
    let configs: [(bool, u64, Set); 5] = [
        (false, 1, |_| {}),
        (true, 1, |_| {}),
        (true, 1, |p| {
            p.blue_threshold_ms = 30.0;
            p.ce_threshold_ms = 2.0;
            p.ns3_blue_timer_wrap = false;
            p.increment = 1.0 / 64.0;
            p.decrement = 1.0 / 128.0;
        }),
        (false, 1, |p| {
            p.interval_ms = 40.0;
            p.target_ms = 2.0;
            p.blue_threshold_ms = 20.0;
        }),
        (true, 10, |p| {
            p.interval_ms = 10.0;
            p.target_ms = 1.0;
            p.blue_threshold_ms = 1e9;
        }),
    ];
    for (k, (ecn, slow, set)) in configs.into_iter().enumerate() {
        let mut p = CobaltParams::default();
        set(&mut p);
        let mut reference = Ns3Reference {
            p: p.clone(),
            ecn,
            count: 0,
            rec_inv_sqrt: u32::MAX,
            drop_next: 0,
            dropping: false,
            p_drop: p.p_drop_initial,
            last_blue: 0,
        };
        let mut host = Host(Cobalt::new(p).unwrap(), ecn);
        let expected = run(&mut reference, 10 + k as u64, slow);
        let got = run(&mut host, 10 + k as u64, slow);
        let count = |f: Fate| expected.iter().filter(|&&x| x == f).count();
        assert!(count(Fate::Dropped) > 1000, "config {k}");
        assert!(slow > 1 || count(Fate::Overflow) > 50, "config {k}");
        if ecn {
            assert!(count(Fate::Sent(true)) > 100, "config {k}");
        }
        let first = expected.iter().zip(&got).position(|(a, b)| a != b);

        assert_eq!(first, None, "config {k}: first difference");
        // A mark not yet followed by another call: settle it as the next call would.
        host.0.settle(u64::MAX, false);
        let c = &host.0;
        assert_eq!(
            (
                c.count(),
                c.drop_next_ns() as i128,
                c.dropping(),
                c.p_drop()
            ),
            (
                reference.count,
                reference.drop_next,
                reference.dropping,
                reference.p_drop
            ),
            "config {k}"
        );
    }
}
