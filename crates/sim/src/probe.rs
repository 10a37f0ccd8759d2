//! A latency probe, as the ping that flent's RRUL test (Realtime Response Under Load,
//! https://flent.org/tests.html) runs beside its TCP flows: the sender sends a small request
//! every interval, the receiving host answers each at once with a response of the same size,
//! as a host answers an ICMP echo (RFC 792), and the sender measures each probe's round-trip
//! time, request sent → response received. Both packets cross every queue of the path, one in
//! each direction.
//!
//! The packets are UDP-like: not ECN-capable, without congestion control or retransmission.
//! They carry the probe's number in `seq` and the flag [`flags::PROBE`] (the response also
//! [`flags::PROBE_REPLY`]); a request or response dropped anywhere makes the probe lost
//! (`PacketCounts` records the drop, [`ProbeSource::mark_lost`] applies it at the end). A probe
//! draws no random numbers: its first request leaves when the flow starts (its plan holds any
//! start jitter), the next ones every `interval_ms` after that, in whole nanoseconds.

use crate::packet::{flags, Packet};
use crate::scenario::Source;
use crate::time::ms_to_ns;
use crate::traffic::FlowPlan;

/// One probe: when its request left and, once answered, its round-trip time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeRecord {
    /// When the request was put on the sender's link, ns.
    pub sent_ns: u64,
    /// Request sent → response received at the sender, ns (None: not answered).
    pub rtt_ns: Option<u64>,
    /// The request or the response was dropped.
    pub lost: bool,
}

/// One probe flow: the sender's requests and the receiving host's answers.
#[derive(Clone, Debug)]
pub struct ProbeSource {
    flow: u32,
    sender_node: u32,
    receiver_node: u32,
    packet_bytes: u32,
    interval_ns: u64,
    running: bool,
    /// Every probe sent, by number.
    pub probes: Vec<ProbeRecord>,
    /// Responses sent by the receiving host.
    pub responses_sent: u64,
}

impl ProbeSource {
    /// Probe flow `flow` from `sender_node` to `receiver_node` as `source` describes it.
    /// Panics on another source (the caller dispatches).
    pub fn new(flow: u32, sender_node: u32, receiver_node: u32, source: &Source) -> Self {
        let Source::UdpProbe {
            interval_ms,
            packet_bytes,
        } = *source
        else {
            unreachable!("a probe source");
        };
        ProbeSource {
            flow,
            sender_node,
            receiver_node,
            packet_bytes,
            interval_ns: interval_ns(interval_ms),
            running: false,
            probes: Vec::new(),
            responses_sent: 0,
        }
    }

    /// Start at `now_ns`: the time of the first request.
    pub fn start(&mut self, now_ns: u64) -> u64 {
        self.running = true;
        now_ns
    }

    /// Stop: no request after this (requests in flight are still answered and measured).
    pub fn stop(&mut self) {
        self.running = false;
    }

    /// Send the request due at `now_ns` into `out`; returns when the next one is due (None
    /// once stopped).
    pub fn emit(&mut self, now_ns: u64, out: &mut Vec<Packet>) -> Option<u64> {
        if !self.running {
            return None;
        }
        let seq = u32::try_from(self.probes.len()).expect("probes per flow are bounded");
        out.push(Packet::data(
            self.flow,
            seq,
            self.receiver_node,
            self.packet_bytes,
            now_ns,
            flags::PROBE,
        ));
        self.probes.push(ProbeRecord {
            sent_ns: now_ns,
            ..ProbeRecord::default()
        });
        Some(now_ns.saturating_add(self.interval_ns))
    }

    /// A packet of this flow reached its host at `now_ns`: the receiving host answers a
    /// request at once (into `out`); the sender records a response's round-trip time.
    /// Returns whether `out` received a response to send from the receiving host.
    pub fn arrive(&mut self, pkt: &Packet, now_ns: u64, out: &mut Vec<Packet>) -> bool {
        if pkt.has(flags::PROBE_REPLY) {
            let probe = &mut self.probes[pkt.seq as usize];
            probe.rtt_ns = Some(now_ns - probe.sent_ns);
            return false;
        }
        out.push(Packet::data(
            self.flow,
            pkt.seq,
            self.sender_node,
            self.packet_bytes,
            now_ns,
            flags::PROBE | flags::PROBE_REPLY,
        ));
        self.responses_sent += 1;
        true
    }

    /// Probe `seq`'s request or response was dropped.
    pub fn mark_lost(&mut self, seq: u32) {
        self.probes[seq as usize].lost = true;
    }

    /// Packets put on the wire: requests and responses.
    pub fn packets_sent(&self) -> u64 {
        self.probes.len() as u64 + self.responses_sent
    }
}

/// The gap between requests, whole ns (at least 1).
fn interval_ns(interval_ms: f64) -> u64 {
    ms_to_ns(interval_ms).max(1)
}

/// How many requests a probe flow of `source` with `plan` sends in a run that ends at
/// `end_ns`: one at its start and every interval after it, up to its stop (a request due at
/// the stop is not sent: the stop comes first) and the end of the run. 0 for other sources.
pub fn requests(source: &Source, plan: &FlowPlan, end_ns: u64) -> u64 {
    let Source::UdpProbe { interval_ms, .. } = *source else {
        return 0;
    };
    let last = match plan.stop_ns {
        Some(0) => return 0,
        Some(stop) => (stop - 1).min(end_ns),
        None => end_ns,
    };
    if plan.start_ns > last {
        return 0;
    }
    (last - plan.start_ns) / interval_ns(interval_ms) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(interval_ms: f64) -> Source {
        Source::UdpProbe {
            interval_ms,
            packet_bytes: 64,
        }
    }

    #[test]
    fn requests_are_answered_and_timed() {
        let mut p = ProbeSource::new(4, 10, 11, &source(200.0));
        let mut out = Vec::new();
        let t0 = p.start(1_000);
        assert_eq!(t0, 1_000);
        let t1 = p.emit(t0, &mut out).unwrap();
        assert_eq!(t1, 200_001_000);
        let request = out.pop().unwrap();
        assert_eq!((request.flow, request.seq, request.dst), (4, 0, 11));
        assert_eq!(request.bytes(), 64);
        assert!(request.has(flags::PROBE) && !request.has(flags::PROBE_REPLY));
        assert!(!request.is_ack() && !request.ecn().is_capable());
        // The receiving host answers at once, toward the sender.
        assert!(p.arrive(&request, 5_000, &mut out));
        let response = out.pop().unwrap();
        assert_eq!(
            (response.seq, response.dst, response.sent_ns),
            (0, 10, 5_000)
        );
        assert!(response.has(flags::PROBE_REPLY));
        assert!(!p.arrive(&response, 9_000, &mut out));
        assert!(out.is_empty());
        assert_eq!(p.probes[0].rtt_ns, Some(8_000));
        // A second probe, lost.
        p.emit(t1, &mut out).unwrap();
        p.mark_lost(1);
        assert_eq!(p.probes[1].rtt_ns, None);
        assert!(p.probes[1].lost);
        assert_eq!(p.packets_sent(), 3);
        p.stop();
        assert_eq!(p.emit(t1 + 200_000_000, &mut out), None);
    }

    #[test]
    fn the_number_of_requests_follows_the_plan() {
        let plan = |start_ns, stop_ns| FlowPlan {
            start_ns,
            stop_ns,
            size_bytes: None,
        };
        let s = source(1.0);
        // At 0, 1, ..., 10 ms: 11 requests up to an end at 10 ms.
        assert_eq!(requests(&s, &plan(0, None), 10_000_000), 11);
        // A stop at 10 ms comes before the request due then.
        assert_eq!(requests(&s, &plan(0, Some(10_000_000)), 20_000_000), 10);
        assert_eq!(requests(&s, &plan(5, Some(5)), 20_000_000), 0);
        assert_eq!(requests(&s, &plan(30_000_000, None), 20_000_000), 0);
        assert_eq!(requests(&Source::TcpBulk, &plan(0, None), 20_000_000), 0);
    }
}
