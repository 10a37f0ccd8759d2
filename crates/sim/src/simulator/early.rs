//! Receivers that take their packets when the packets' arrival is known. A host whose one
//! endpoint is a TCP flow's receiver acts on nothing but that flow's packets, which reach it in
//! the order its link delivers them, and its own delayed-ACK timer; what it sends goes out on
//! its own drop-tail port, which nothing else uses. So when a packet leaves the port before the
//! host (`hops.rs`), the receiver takes it then, at the time it will arrive, with no arrival
//! event: its ACK leaves at that time, its delivery and delay statistics are those of that
//! time. A delayed-ACK deadline that falls before the packet's arrival expires first, at its
//! own time, as its event would have. Goodput bytes delivered after the next sample of the
//! series wait for the sample that counts them ([`Ahead`]). The run is the same as with the
//! events, with fewer events; a packet that would arrive after the end of the run keeps its
//! event, never run, as before.
//!
//! Senders take their acknowledgements the same way, under stricter conditions, since more
//! reads a sender's state. A host whose one endpoint is the sender of a TCP flow of unbounded
//! size whose window the series does not trace, on a drop-tail port, acts on nothing but that
//! flow's acknowledgements and its own timers; its window is read by no sample and its
//! completion changes no count of active flows. Its sender takes an acknowledgement when it
//! leaves the port before the host, as of its arrival, unless something of the sender's would
//! come first: a retransmission or pacing timer, or the flow's stop, queued before the
//! arrival (at the same nanosecond the stop comes first, the timers after), or an earlier
//! packet to the host still waiting as an event (the acknowledgements are then taken in their
//! order of arrival). It is not taken early inside another endpoint's early delivery either,
//! so that a path computed through without events (a chain of single-input ports) never
//! turns into a loop of early deliveries. Otherwise the packet keeps its arrival event.

use super::Simulation;
use crate::flow::{Agent, Flow};
use crate::metrics::series::Series;
use crate::net::network::{Network, PortQueue};
use crate::packet::Packet;
use std::collections::VecDeque;

/// Per node: whether it is a host whose only endpoint is one TCP flow's receiver and whose port
/// is a drop-tail one.
pub(super) fn early_hosts(net: &Network, flows: &[Flow]) -> Vec<bool> {
    let endpoints = endpoint_counts(net, flows);
    let mut early = vec![false; net.nodes.len()];
    for f in flows {
        let host = f.ends.receiver as usize;
        early[host] = endpoints[host] == 1
            && matches!(f.agent, Agent::Tcp { .. })
            && matches!(
                net.ports[f.ends.receiver_port as usize].queue,
                PortQueue::Fifo(_)
            );
    }
    early
}

/// Per node: whether it is a host whose only endpoint is the sender of one TCP flow of
/// unbounded size that is not among `traced` (the flows whose window the series records), and
/// whose port is a drop-tail one.
pub(super) fn early_senders(net: &Network, flows: &[Flow], traced: &[u32]) -> Vec<bool> {
    let endpoints = endpoint_counts(net, flows);
    let mut early = vec![false; net.nodes.len()];
    for (id, f) in (0u32..).zip(flows) {
        let host = f.ends.sender as usize;
        early[host] = endpoints[host] == 1
            && matches!(f.agent, Agent::Tcp { .. })
            && f.plan.size_bytes.is_none()
            && !traced.contains(&id)
            && matches!(
                net.ports[f.ends.sender_port as usize].queue,
                PortQueue::Fifo(_)
            );
    }
    early
}

/// Per node: how many flow endpoints (senders and receivers) it holds.
fn endpoint_counts(net: &Network, flows: &[Flow]) -> Vec<u32> {
    let mut endpoints = vec![0u32; net.nodes.len()];
    for f in flows {
        endpoints[f.ends.sender as usize] += 1;
        endpoints[f.ends.receiver as usize] += 1;
    }
    endpoints
}

/// Goodput bytes delivered at a time after the next sample of the series, by the sample that
/// will count them: the first at or after their delivery (samples come every `step_ns` from
/// 0, after every other event of their time).
pub(super) struct Ahead {
    step_ns: u64,
    /// When the next sample is taken, ns.
    next_sample_ns: u64,
    /// Per sample after the next one (the first bin is the one just after it), each group's
    /// bytes.
    bins: VecDeque<Vec<u64>>,
    groups: usize,
}

impl Ahead {
    /// No bytes ahead, for series sampled every `step_ns` with `groups` groups.
    pub(super) fn new(step_ns: u64, groups: usize) -> Self {
        Ahead {
            step_ns,
            next_sample_ns: 0,
            bins: VecDeque::new(),
            groups,
        }
    }

    /// `bytes` of `group` delivered at `at_ns`: into the series now if the next sample counts
    /// them, else kept for the sample that does.
    pub(super) fn delivered(&mut self, series: &mut Series, group: u32, bytes: u64, at_ns: u64) {
        if at_ns <= self.next_sample_ns {
            series.delivered(group, bytes);
            return;
        }
        // Bins follow the next sample's: the first holds the sample after it.
        let i = ((at_ns - self.next_sample_ns).div_ceil(self.step_ns) - 1) as usize;
        while self.bins.len() <= i {
            self.bins.push_back(vec![0; self.groups]);
        }
        self.bins[i][group as usize] += bytes;
    }

    /// A sample was taken: the bytes the next one counts join the series.
    pub(super) fn sampled(&mut self, series: &mut Series) {
        self.next_sample_ns += self.step_ns;
        if let Some(bin) = self.bins.pop_front() {
            Self::pour(series, &bin);
        }
    }

    /// The end of the run: every byte kept joins the series.
    pub(super) fn flush(&mut self, series: &mut Series) {
        for bin in self.bins.drain(..) {
            Self::pour(series, &bin);
        }
    }

    fn pour(series: &mut Series, bin: &[u64]) {
        for (group, &bytes) in (0u32..).zip(bin) {
            if bytes > 0 {
                series.delivered(group, bytes);
            }
        }
    }
}

impl Simulation {
    /// `pkt` will reach its receiver, alone on its host, at `at_ns`: the receiver takes it
    /// now, as of that time, after its delayed-ACK timer if that expires earlier.
    pub(super) fn deliver_early(&mut self, at_ns: u64, pkt: Packet) {
        let flow = pkt.flow;
        if let Agent::Tcp { receiver, .. } = &self.flows[flow as usize].agent {
            if let Some(d) = receiver.delack_deadline_ns().filter(|&d| d < at_ns) {
                self.delack_timer(flow, d);
            }
        }
        self.counts.delivered(&pkt);
        let nested = std::mem::replace(&mut self.taking_early, true);
        self.deliver(pkt, at_ns);
        self.taking_early = nested;
    }

    /// Whether `flow`'s sender, alone on its host (an early sender), may take a packet that
    /// will reach it at `at_ns` now (see the module's rules); if not, the packet's arrival
    /// event is queued and noted.
    pub(super) fn sender_takes_early(&mut self, flow: u32, at_ns: u64) -> bool {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        let before = |t: Option<u64>| t.is_some_and(|t| t < at_ns);
        let stops_first = f.active && f.plan.stop_ns.is_some_and(|s| s <= at_ns);
        let waits = self.taking_early
            || at_ns > self.end_ns
            || f.ack_event_ns.is_some_and(|t| t >= now)
            || before(f.sender_event_ns)
            || before(f.pace_event_ns)
            || stops_first;
        if waits {
            f.ack_event_ns = Some(at_ns);
        }
        !waits
    }

    /// `pkt` will reach its sender, alone on its host, at `at_ns`, and nothing of the
    /// sender's comes before: the sender takes it now, as of that time.
    pub(super) fn deliver_early_to_sender(&mut self, at_ns: u64, pkt: Packet) {
        self.counts.delivered(&pkt);
        self.taking_early = true;
        self.deliver(pkt, at_ns);
        self.taking_early = false;
    }
}
