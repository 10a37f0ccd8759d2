//! The flows' endpoints in the loop: starting and stopping flows, handing arriving packets
//! to their TCP, UDP or probe agent, running the agents' timers, and putting what they send on
//! their host's link.

use super::Simulation;
use crate::events::{Event, EventQueue};
use crate::flow::{Agent, Flow};
use crate::net::network::Node;
use crate::packet::{flags, Packet};
use crate::time::ns_to_s;

/// Queue `event` at `deadline` unless an event already pending (at `pending`) fires no later;
/// an event that fires before its deadline re-queues itself, so deadlines can move freely.
fn queue_timer(
    events: &mut EventQueue,
    deadline: Option<u64>,
    pending: &mut Option<u64>,
    event: Event,
) {
    if let Some(d) = deadline {
        if pending.is_none_or(|e| d < e) {
            *pending = Some(d);
            events.push(d, event);
        }
    }
}

impl Simulation {
    pub(super) fn start_flow(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        if f.plan.stop_ns.is_some_and(|s| s <= now) {
            return; // removed before its start offset elapsed
        }
        f.active = true;
        self.active_flows += 1;
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        match &mut f.agent {
            Agent::Tcp { sender, .. } => {
                let segments = f
                    .plan
                    .size_bytes
                    .map_or(u32::MAX, |b| Flow::segments(b, tcp));
                sender.start_object(segments, now, tcp, &mut self.outbox);
                let port = f.ends.sender_port;
                self.flush_outbox(port, now);
                self.sync_rto_timer(flow);
            }
            Agent::Udp(source) => {
                let first = source.start(now);
                f.sender_event_ns = Some(first);
                self.events.push(first, Event::Emit { flow });
            }
            Agent::Probe(probe) => {
                let first = probe.start(now);
                f.sender_event_ns = Some(first);
                self.events.push(first, Event::Emit { flow });
            }
        }
    }

    pub(super) fn stop_flow(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        if !f.active {
            return;
        }
        f.active = false;
        self.active_flows -= 1;
        match &mut f.agent {
            Agent::Tcp { sender, .. } => {
                sender.stop(&self.scenario.traffic.groups[f.group as usize].tcp)
            }
            Agent::Udp(source) => source.stop(),
            Agent::Probe(probe) => probe.stop(),
        }
    }

    pub(super) fn rto(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        if f.sender_event_ns != Some(now) {
            return; // superseded by an earlier deadline
        }
        f.sender_event_ns = None;
        let Agent::Tcp { sender, .. } = &mut f.agent else {
            return;
        };
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        sender.on_rto(now, tcp, &mut self.outbox);
        let port = f.ends.sender_port;
        self.flush_outbox(port, now);
        self.sync_rto_timer(flow);
    }

    /// A paced sender's pacing timer expired: send what it held back.
    pub(super) fn pace(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        if f.pace_event_ns != Some(now) {
            return;
        }
        f.pace_event_ns = None;
        let Agent::Tcp { sender, .. } = &mut f.agent else {
            return;
        };
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        sender.on_pace_timer(now, tcp, &mut self.outbox);
        let port = f.ends.sender_port;
        self.flush_outbox(port, now);
        self.sync_rto_timer(flow);
    }

    pub(super) fn delack(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        if f.delack_event_ns != Some(now) {
            return;
        }
        f.delack_event_ns = None;
        self.delack_timer(flow, now);
    }

    /// The receiver's delayed-ACK timer at `at_ns`: its ACK if one is due, and the event for
    /// its next deadline.
    pub(super) fn delack_timer(&mut self, flow: u32, at_ns: u64) {
        let f = &mut self.flows[flow as usize];
        let Agent::Tcp { receiver, .. } = &mut f.agent else {
            return;
        };
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        receiver.on_delack_timer(at_ns, tcp, &mut self.outbox);
        let port = f.ends.receiver_port;
        self.flush_outbox(port, at_ns);
        self.sync_delack_timer(flow);
    }

    /// A UDP source's packet or a probe's request is due: send it and queue the next.
    pub(super) fn emit(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        f.sender_event_ns = match &mut f.agent {
            Agent::Udp(source) => source.emit(now, &mut self.outbox),
            Agent::Probe(probe) => probe.emit(now, &mut self.outbox),
            Agent::Tcp { .. } => return,
        };
        if let Some(next) = f.sender_event_ns {
            self.events.push(next, Event::Emit { flow });
        }
        let port = f.ends.sender_port;
        self.flush_outbox(port, now);
    }

    /// A packet reaches `node`: routers forward it, hosts hand it to its flow.
    pub(super) fn arrive(&mut self, node: u32, pkt: Packet) {
        // A packet at its destination is at a host; the node is looked up only otherwise.
        if pkt.dst != node {
            if let Node::Router { routes } = &self.net.nodes[node as usize] {
                let port = routes[pkt.dst as usize];
                self.forward(port, self.now_ns, pkt);
                return;
            }
        }
        self.counts.delivered(&pkt);
        self.deliver(pkt, self.now_ns);
    }

    /// Hand `pkt`, arriving at `now`, to its flow's agent.
    pub(super) fn deliver(&mut self, pkt: Packet, now: u64) {
        let window = self.window;
        let f = &mut self.flows[pkt.flow as usize];
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        if !pkt.is_ack() {
            let in_window = window.contains(now);
            f.stats.arrival(ns_to_s(now - pkt.sent_ns), in_window);
            if window.contains(pkt.sent_ns) {
                f.stats.received_sent_in_window += 1;
            }
        }
        match &mut f.agent {
            Agent::Udp(source) => {
                let bytes = u64::from(source.packet_bytes());
                self.ahead.delivered(&mut self.series, f.group, bytes, now);
                if window.contains(now) {
                    f.stats.delivered_bytes += bytes;
                }
            }
            Agent::Probe(probe) => {
                let bytes = u64::from(pkt.bytes());
                self.ahead.delivered(&mut self.series, f.group, bytes, now);
                if window.contains(now) {
                    f.stats.delivered_bytes += bytes;
                }
                if probe.arrive(&pkt, now, &mut self.outbox) {
                    let port = f.ends.receiver_port;
                    self.flush_outbox(port, now);
                }
            }
            Agent::Tcp { sender, .. } if pkt.has(flags::ACK) => {
                sender.on_ack(&pkt, now, tcp, &mut self.outbox);
                // A finite flow completes when its whole object is acknowledged; one stopped
                // before that (its application cut short) never does.
                if f.active && f.plan.size_bytes.is_some() && sender.all_acked() {
                    f.completed_ns = Some(now);
                    f.active = false;
                    self.active_flows -= 1;
                }
                let port = f.ends.sender_port;
                self.flush_outbox(port, now);
                self.sync_rto_timer(pkt.flow);
            }
            Agent::Tcp { receiver, .. } if pkt.has(flags::SYN) => {
                receiver.on_syn(&pkt, tcp, &mut self.outbox);
                let port = f.ends.receiver_port;
                self.flush_outbox(port, now);
            }
            Agent::Tcp { receiver, .. } => {
                let newly = receiver.on_data(&pkt, now, tcp, &mut self.outbox);
                let bytes = u64::from(newly) * u64::from(tcp.payload_bytes());
                self.ahead.delivered(&mut self.series, f.group, bytes, now);
                if window.contains(now) {
                    f.stats.delivered_bytes += bytes;
                }
                let port = f.ends.receiver_port;
                self.flush_outbox(port, now);
                self.sync_delack_timer(pkt.flow);
            }
        }
    }

    /// Put every packet the last endpoint produced onto its host's `port`, at `now`.
    fn flush_outbox(&mut self, port: u32, now: u64) {
        let mut outbox = std::mem::take(&mut self.outbox);
        for pkt in outbox.drain(..) {
            self.counts.sent(&pkt);
            self.forward(port, now, pkt);
        }
        self.outbox = outbox;
    }

    /// Keep one Rto event queued no later than the sender's deadline, and one Pace event
    /// when a paced sender waits for its pacing timer.
    fn sync_rto_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Agent::Tcp { sender, .. } = &f.agent else {
            return;
        };
        queue_timer(
            &mut self.events,
            sender.rto_deadline_ns(),
            &mut f.sender_event_ns,
            Event::Rto { flow },
        );
        queue_timer(
            &mut self.events,
            sender.pace_deadline_ns(),
            &mut f.pace_event_ns,
            Event::Pace { flow },
        );
    }

    /// Keep one DelAck event queued no later than the receiver's deadline.
    fn sync_delack_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Agent::Tcp { receiver, .. } = &f.agent else {
            return;
        };
        queue_timer(
            &mut self.events,
            receiver.delack_deadline_ns(),
            &mut f.delack_event_ns,
            Event::DelAck { flow },
        );
    }
}
