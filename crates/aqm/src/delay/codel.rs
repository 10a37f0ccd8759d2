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

use crate::contract::{
    Aqm, DequeueVerdict, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{AqmParams, ParamDoc, Range, DURATION_MS};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

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

impl AqmParams for CoDelParams {
    const AQM: &'static str = "codel";
    const TITLE: &'static str = "CoDel";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "target_ms",
            "ms",
            DURATION_MS,
            "TARGET: the acceptable standing sojourn time",
        ),
        ParamDoc::new(
            "interval_ms",
            "ms",
            DURATION_MS,
            "INTERVAL: how long the sojourn time stays above target before drops",
        ),
        ParamDoc::new(
            "mtu_bytes",
            "bytes",
            Range::Count(0),
            "MAXPACKET: never above target while at most this many bytes are queued",
        ),
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(CoDel::new(self)?))
    }
}

/// Milliseconds to integer nanoseconds, rounded.
fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
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

    /// The host found the queue empty: RFC 8289's `dodequeue()` without a packet resets
    /// `first_above_time` and answers "not OK to drop", so `dequeue()` leaves the dropping
    /// state (Linux `codel_dequeue` and ns-3.37 `CoDelQueueDisc::DoDequeue` do the same). A
    /// follow-up pending from a mark at an earlier time keeps Linux's advance of `drop_next`.
    fn on_empty(&mut self, now_ns: u64) {
        if let Some((at_ns, FollowUp::InLoop { drop_next_ns })) = self.vars.pending.take() {
            if at_ns != now_ns {
                self.vars.drop_next_ns = drop_next_ns;
            }
        }
        self.vars.first_above_time_ns = None;
        self.vars.dropping = false;
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
mod tests;
