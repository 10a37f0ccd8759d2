//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor & Iyengar, RFC 8289, 2018): the
//! decision is taken at dequeue from the head packet's sojourn time. Once the sojourn time has
//! stayed at or above `target` for one `interval`, CoDel enters a dropping state and drops
//! packets at times spaced `interval/√count` apart until the sojourn time falls below target.
//!
//! The state machine follows the pseudo-code of RFC 8289 §5 and its appendix (`dodequeue()`
//! and `dequeue()`), which Linux `codel_impl.h` codes the same way. One `dequeue()` call of the
//! RFC may drop several packets in a loop; in the [`Aqm`] contract each drop is one
//! [`DequeueVerdict::EarlyDrop`] after which the host asks again about the next head packet at
//! the same time. [`CoDel`] remembers what the RFC's loop would do with that next packet (the
//! "follow-up") so that the sequence of verdicts equals the RFC's.
//!
//! When the host marks instead of dropping (ECN), the marked packet is delivered and no
//! follow-up comes: the next call is about a later packet at a later time. The state then is
//! the one Linux keeps after a mark (`codel_dequeue()` with `params->ecn`): a mark at the entry
//! into the dropping state leaves `drop_next = now + interval`; a mark inside the dropping state
//! advances `drop_next` by `interval/√count` at once.

use crate::contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, ParamError, QueueView};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Largest time parameter accepted, milliseconds (about 11.6 days; keeps `16·interval` in range).
const MAX_TIME_MS: f64 = 1e9;

/// CoDel parameters (names as in RFC 8289 §4.2–§4.4 and the ns-3 `CoDelQueueDisc` attributes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoDelParams {
    /// TARGET, the acceptable standing sojourn time, milliseconds.
    pub target_ms: f64,
    /// INTERVAL, the sliding window the sojourn time must stay above target before dropping
    /// starts, and the base spacing of the drops, milliseconds.
    pub interval_ms: f64,
    /// MAXPACKET (RFC 8289 pseudo-code), `mtu` in Linux, `MinBytes` in ns-3: a packet is never
    /// "above target" while at most this many bytes remain in the queue after it left.
    pub mtu_bytes: u32,
}

impl Default for CoDelParams {
    /// RFC 8289 §4.3–§4.4 and the ns-3.37 / Linux defaults: target 5 ms, interval 100 ms;
    /// `mtu_bytes` 1500 as ns-3.37's `MinBytes` (Linux takes the device MTU).
    fn default() -> Self {
        CoDelParams {
            target_ms: 5.0,
            interval_ms: 100.0,
            mtu_bytes: 1500,
        }
    }
}

/// Milliseconds to integer nanoseconds, rounded.
fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

impl CoDelParams {
    /// Check every parameter against its allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.target_ms >= 1e-6 && self.target_ms <= MAX_TIME_MS) {
            return Err(ParamError::new(
                "target_ms",
                "must be a number in [0.000001, 1e9] (at least 1 ns)",
            ));
        }
        if !(self.interval_ms >= 1e-6 && self.interval_ms <= MAX_TIME_MS) {
            return Err(ParamError::new(
                "interval_ms",
                "must be a number in [0.000001, 1e9] (at least 1 ns)",
            ));
        }
        Ok(())
    }
}

/// What the next call at the same time is, when the previous call said [`DequeueVerdict::EarlyDrop`]
/// and the host dropped (so that it asks again about the next head packet).
#[derive(Clone, Copy, Debug, PartialEq)]
enum FollowUp {
    /// The drop that entered the dropping state: the RFC examines the next packet (updating
    /// `first_above_time`) and delivers it whatever it finds.
    AfterEntry,
    /// A drop inside the dropping state: the RFC examines the next packet; if it is still above
    /// target, `drop_next` moves to `drop_next_ns` and the packet is dropped too when that time
    /// has already come; otherwise the dropping state ends and `drop_next` keeps its value.
    InLoop {
        /// `control_law(drop_next, count)` computed at the drop.
        drop_next_ns: u64,
    },
}

/// CoDel controller state (RFC 8289 pseudo-code variables; Linux `codel_vars`).
#[derive(Clone, Debug, Default)]
struct CoDelVars {
    /// `count`: drops (or marks) since entering the dropping state, plus the reused count.
    count: u32,
    /// `lastcount`: `count` as it was set on the last entry into the dropping state.
    lastcount: u32,
    /// `dropping`: in the dropping state.
    dropping: bool,
    /// `first_above_time`: when the sojourn time will have been above target for one interval;
    /// `None` stands for the RFC's 0 ("not above").
    first_above_time_ns: Option<u64>,
    /// `drop_next`: time of the next drop while dropping; on re-entry it tells how recently
    /// the last dropping state ended.
    drop_next_ns: u64,
    /// Sojourn time of the last packet seen (Linux `ldelay`).
    last_sojourn_ns: u64,
    /// The follow-up expected after the last early drop, and the time of that drop.
    pending: Option<(u64, FollowUp)>,
}

/// Counters kept by CoDel (Linux `codel_stats`, reduced to what the AQM itself can know: it
/// cannot tell a drop from a mark, which the host decides).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoDelStats {
    /// Congestion signals given ([`DequeueVerdict::EarlyDrop`] verdicts).
    pub signals: u64,
    /// Entries into the dropping state.
    pub dropping_entries: u64,
    /// Largest packet seen at dequeue, bytes (Linux `maxpacket`; informational only).
    pub max_packet_bytes: u32,
}

/// CoDel state machine.
#[derive(Clone, Debug)]
pub struct CoDel {
    params: CoDelParams,
    target_ns: u64,
    interval_ns: u64,
    vars: CoDelVars,
    stats: CoDelStats,
}

impl CoDel {
    /// A CoDel queue manager with validated parameters.
    pub fn new(params: CoDelParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(CoDel {
            target_ns: ms_to_ns(params.target_ms).max(1),
            interval_ns: ms_to_ns(params.interval_ms).max(1),
            params,
            vars: CoDelVars::default(),
            stats: CoDelStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &CoDelParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &CoDelStats {
        &self.stats
    }

    /// `count`, the drops of the current (or last) dropping state.
    pub fn count(&self) -> u32 {
        self.vars.count
    }

    /// Whether CoDel is in the dropping state.
    pub fn dropping(&self) -> bool {
        self.vars.dropping
    }

    /// Control law, RFC 8289 §3.3 and pseudo-code `control_law()`: the next drop comes
    /// `interval/√count` after `t`. Computed with an `f64` square root and truncated to whole
    /// nanoseconds (Linux keeps 1/√count in fixed point and refines it by Newton steps; the
    /// two agree to well under a microsecond).
    fn control_law(&self, t_ns: u64, count: u32) -> u64 {
        let step = self.interval_ns as f64 / f64::from(count.max(1)).sqrt();
        t_ns.saturating_add(step as u64)
    }

    /// `dodequeue()` of RFC 8289 §5 for a packet that has left the queue: remembers its
    /// sojourn time and tells whether it is OK to drop. A packet is "above target" when its
    /// sojourn time is at least `target` and more than `mtu_bytes` remain queued behind it;
    /// dropping is allowed once packets have been above target for one interval
    /// (`now >= first_above_time`, as in the RFC; Linux and ns-3 use a strict `>`).
    fn ok_to_drop(&mut self, now_ns: u64, sojourn_ns: u64, backlog_bytes: u64) -> bool {
        self.vars.last_sojourn_ns = sojourn_ns;
        if sojourn_ns < self.target_ns || backlog_bytes <= u64::from(self.params.mtu_bytes) {
            self.vars.first_above_time_ns = None;
            return false;
        }
        match self.vars.first_above_time_ns {
            None => {
                self.vars.first_above_time_ns = Some(now_ns.saturating_add(self.interval_ns));
                false
            }
            Some(t) => now_ns >= t,
        }
    }

    /// Enter the dropping state with a drop of the current packet (RFC 8289 `dequeue()`, the
    /// `else if (r.ok_to_drop)` branch): if the last dropping state ended recently
    /// (`now − drop_next < 16·interval`) and dropped more than one packet beyond its start,
    /// resume with `count = count − lastcount`, else start again at 1; the next drop is
    /// `control_law(now, count)`.
    fn enter_dropping(&mut self, now_ns: u64) -> DequeueVerdict {
        let v = &mut self.vars;
        let delta = v.count.wrapping_sub(v.lastcount);
        // Signed, as Linux's codel_time_before(): drop_next may lie after now.
        let since_ns = now_ns as i128 - v.drop_next_ns as i128;
        let recent = since_ns < 16 * self.interval_ns as i128;
        v.count = if delta > 1 && recent { delta } else { 1 };
        v.lastcount = v.count;
        v.dropping = true;
        let count = v.count;
        self.vars.drop_next_ns = self.control_law(now_ns, count);
        self.vars.pending = Some((now_ns, FollowUp::AfterEntry));
        self.stats.dropping_entries += 1;
        self.stats.signals += 1;
        DequeueVerdict::EarlyDrop
    }

    /// Inside the dropping state with a packet above target: drop it if `drop_next` has come
    /// (RFC 8289 `dequeue()`, the `while (now >= drop_next && dropping)` loop: `++count`, then
    /// the next packet is examined and, if still above target,
    /// `drop_next = control_law(drop_next, count)`).
    fn drop_if_due(&mut self, now_ns: u64) -> DequeueVerdict {
        if now_ns < self.vars.drop_next_ns {
            return DequeueVerdict::Deliver;
        }
        self.vars.count = self.vars.count.saturating_add(1);
        let drop_next_ns = self.control_law(self.vars.drop_next_ns, self.vars.count);
        self.vars.pending = Some((now_ns, FollowUp::InLoop { drop_next_ns }));
        self.stats.signals += 1;
        DequeueVerdict::EarlyDrop
    }
}

impl Aqm for CoDel {
    fn name(&self) -> &'static str {
        "codel"
    }

    /// CoDel never acts at arrival; the host enforces the buffer limit.
    fn on_enqueue(&mut self, _: u64, _: PacketView, _: &QueueView, _: &mut Rng) -> EnqueueVerdict {
        EnqueueVerdict::Accept
    }

    fn on_dequeue(
        &mut self,
        now_ns: u64,
        sojourn_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        _rng: &mut Rng,
    ) -> DequeueVerdict {
        self.stats.max_packet_bytes = self.stats.max_packet_bytes.max(pkt.size_bytes);
        // A follow-up is the host asking again at the time of our last early drop. Any other
        // call after an early drop means the host marked that packet and delivered it.
        let follow_up = match self.vars.pending.take() {
            Some((at_ns, kind)) if at_ns == now_ns => Some(kind),
            Some((_, FollowUp::InLoop { drop_next_ns })) => {
                // Marked inside the dropping state: Linux advances drop_next at the mark.
                self.vars.drop_next_ns = drop_next_ns;
                None
            }
            Some((_, FollowUp::AfterEntry)) | None => None,
        };
        let ok = self.ok_to_drop(now_ns, sojourn_ns, queue.len_bytes);
        let verdict = match follow_up {
            Some(FollowUp::AfterEntry) => DequeueVerdict::Deliver,
            Some(FollowUp::InLoop { drop_next_ns }) => {
                if ok {
                    self.vars.drop_next_ns = drop_next_ns;
                    self.drop_if_due(now_ns)
                } else {
                    self.vars.dropping = false;
                    DequeueVerdict::Deliver
                }
            }
            None if self.vars.dropping => {
                if ok {
                    self.drop_if_due(now_ns)
                } else {
                    // Sojourn time below target: leave the dropping state.
                    self.vars.dropping = false;
                    DequeueVerdict::Deliver
                }
            }
            None if ok => self.enter_dropping(now_ns),
            None => DequeueVerdict::Deliver,
        };
        // A delivered packet that leaves the queue empty: the RFC's next dequeue() would find
        // no packet and leave the dropping state (first_above_time is already reset, since
        // the backlog is 0). The host does not call on an empty queue, so do it now; the
        // verdicts are the same either way.
        if verdict == DequeueVerdict::Deliver && queue.len_pkts == 0 {
            self.vars.dropping = false;
        }
        verdict
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["sojourn_ms", "count", "dropping"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.vars.last_sojourn_ns as f64 / 1e6);
        out.push(f64::from(self.vars.count));
        out.push(if self.vars.dropping { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
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
        let sizes: std::collections::HashMap<u32, u32> =
            arrivals.iter().map(|a| (a.0, a.2)).collect();
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
}
