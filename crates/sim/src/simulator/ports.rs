//! The ports in the loop: offering packets to drop-tail and managed queues, serialising the
//! managed ones' packets, running each AQM's timer, and sampling every measured port.

use super::Simulation;
use crate::events::Event;
use crate::net::network::{Network, Node, PortQueue};
use crate::net::qdisc::discipline::Dequeued;
use crate::packet::Packet;
use crate::time::ns_to_s;
use std::collections::HashMap;

/// The event lane of the packets on a port's link (arrivals at its far end, in order).
pub(super) fn link_lane(port: u32) -> u32 {
    2 * port
}

/// The event lane of a port's ends of transmission.
fn tx_lane(port: u32) -> u32 {
    2 * port + 1
}

/// Per port, the lane its packets share with the links like it, numbered after the ports' own
/// lanes: one lane per router end of a link, direction, rate and delay (in the dumbbell: the
/// 800 senders' links into R1 share one, R1's links out to them another, and so on). A packet
/// goes into the shared lane when it arrives no earlier than the lane's last packet, else into
/// its port's own lane (`EventQueue::push_shared`). In BetaRED scenario 2, 99.7 % of the
/// packets fit and the heap of lane heads holds about 7 entries instead of one per packet in
/// flight (docs/architecture.md, "The event list").
pub(super) fn shared_link_lanes(net: &Network) -> Vec<u32> {
    let first = link_lane(net.ports.len() as u32);
    let mut classes: HashMap<(bool, u32, u64, u64), u32> = HashMap::new();
    let mut lanes = vec![0; net.ports.len()];
    for (from, ports) in net.out_ports.iter().enumerate() {
        let from_router = matches!(net.nodes[from], Node::Router { .. });
        for &p in ports {
            let port = &net.ports[p as usize];
            let router_end = if from_router {
                from as u32
            } else {
                port.to_node
            };
            let next = first + classes.len() as u32;
            let key = (
                from_router,
                router_end,
                port.rate.initial_bps(),
                port.delay_ns,
            );
            lanes[p as usize] = *classes.entry(key).or_insert(next);
        }
    }
    lanes
}

impl Simulation {
    /// Offer a packet to an output port at `now`: the time of the event being run, or, for a
    /// host's drop-tail port, a later time its endpoint acts at (`early.rs`).
    pub(super) fn forward(&mut self, port_id: u32, now: u64, pkt: Packet) {
        let port = &mut self.net.ports[port_id as usize];
        match &mut port.queue {
            PortQueue::Fifo(q) => {
                // Serialised at the rate in force when its transmission starts.
                let (rate, bytes) = (&port.rate, pkt.bytes());
                match q.offer(now, bytes, |start| rate.tx_time_ns(bytes, start)) {
                    Some(done_ns) => {
                        self.link_transmissions += 1;
                        let at_ns = done_ns.saturating_add(port.delay_ns);
                        self.send_on(port_id, at_ns, pkt);
                    }
                    None => self.counts.dropped(&pkt),
                }
            }
            PortQueue::Managed(m) if m.in_order() => {
                debug_assert_eq!(
                    now, self.now_ns,
                    "a managed port takes packets at event time"
                );
                let delay_ns = port.delay_ns;
                let offered = m.offer_in_order(now, pkt, &port.rate, &mut self.counts);
                self.link_transmissions += offered.sent;
                if let Some((pkt, leaves_ns)) = offered.joined {
                    self.send_on(port_id, leaves_ns + delay_ns, pkt);
                }
            }
            PortQueue::Managed(_) => self.offer_managed(port_id, now, pkt),
        }
    }

    /// Offer a packet to a managed port that is not in order, at the time of the event being
    /// run: its ends of transmission due by then first, when it makes them late.
    fn offer_managed(&mut self, port_id: u32, now: u64, pkt: Packet) {
        debug_assert_eq!(
            now, self.now_ns,
            "a managed port takes packets at event time"
        );
        self.depart_until_now(port_id);
        let PortQueue::Managed(m) = &mut self.net.ports[port_id as usize].queue else {
            unreachable!("offered to a managed port")
        };
        let start = m.enqueue(now, pkt, &mut self.counts) && !m.busy;
        // Under priority bands a band's AQM may want its timer before the one queued.
        let earlier_timer = m.timers_may_move()
            && m.next_timer_ns()
                .is_some_and(|t| m.timer_at_ns.is_none_or(|at| t < at));
        if earlier_timer {
            self.schedule_aqm_timer(port_id);
        }
        if start {
            self.start_transmission(port_id);
        }
    }

    /// An in-order or late managed port's departures due by now, before anything else looks
    /// at its queue (`ManagedQueue::depart_until`, `ManagedQueue::depart_late_until`).
    pub(super) fn depart_until_now(&mut self, port_id: u32) {
        let port = &mut self.net.ports[port_id as usize];
        if let PortQueue::Managed(m) = &mut port.queue {
            if m.in_order() {
                self.link_transmissions +=
                    m.depart_until(self.now_ns, &port.rate, &mut self.counts);
            } else if m.late() {
                m.depart_late_until(
                    self.now_ns,
                    &port.rate,
                    &mut self.counts,
                    &mut self.departed,
                );
                self.send_departed(port_id);
            }
        }
    }

    /// Send on the packets a late port started, each at the end of its transmission plus the
    /// link's delay, and keep its check event queued.
    fn send_departed(&mut self, port_id: u32) {
        let delay_ns = self.net.ports[port_id as usize].delay_ns;
        let mut departed = std::mem::take(&mut self.departed);
        for (pkt, tx_end_ns) in departed.drain(..) {
            self.link_transmissions += 1;
            self.send_on(port_id, tx_end_ns + delay_ns, pkt);
        }
        self.departed = departed;
        let port = &mut self.net.ports[port_id as usize];
        let PortQueue::Managed(m) = &mut port.queue else {
            unreachable!("late ports are managed")
        };
        // The packet that starts at the next end of transmission reaches the far end later
        // than this check, so the port sends it on in time.
        if let (None, Some(t)) = (m.check_at_ns, m.next_tx_end_ns()) {
            let at_ns = t + port.delay_ns;
            m.check_at_ns = Some(at_ns);
            self.events
                .push_lane(tx_lane(port_id), at_ns, Event::TxDone { port: port_id });
        }
    }

    /// A managed port finished a packet: send the next. On a late port, the check that its
    /// ends of transmission are made in time.
    pub(super) fn tx_done(&mut self, port: u32) {
        if let PortQueue::Managed(m) = &mut self.net.ports[port as usize].queue {
            if m.late() {
                m.check_at_ns = None;
                self.depart_until_now(port);
                return;
            }
            m.busy = false;
        }
        self.start_transmission(port);
    }

    /// A managed port is idle: send its next packet, if any.
    fn start_transmission(&mut self, port_id: u32) {
        let now = self.now_ns;
        let port = &mut self.net.ports[port_id as usize];
        let PortQueue::Managed(m) = &mut port.queue else {
            return;
        };
        if m.late() {
            m.start_late(now, &port.rate, &mut self.counts, &mut self.departed);
            self.send_departed(port_id);
            return;
        }
        let pkt = match m.dequeue(now, &mut self.counts) {
            Dequeued::Packet(pkt) => pkt,
            Dequeued::Empty => return,
            Dequeued::WaitUntil(at_ns) => {
                // The shaper holds the link: try again when the tokens are there.
                m.busy = true;
                self.events
                    .push_lane(tx_lane(port_id), at_ns, Event::TxDone { port: port_id });
                return;
            }
        };
        let tx_ns = port.rate.tx_time_ns(pkt.bytes(), now);
        m.busy = true;
        m.stats
            .transmitted(now, now + tx_ns, pkt.bytes(), !pkt.is_ack());
        self.events.push_lane(
            tx_lane(port_id),
            now + tx_ns,
            Event::TxDone { port: port_id },
        );
        let at_ns = now + tx_ns + port.delay_ns;
        self.link_transmissions += 1;
        self.send_on(port_id, at_ns, pkt);
    }

    /// Run a managed port's AQM timers and queue its next. Under priority bands a timer event
    /// that an earlier one replaced is skipped.
    pub(super) fn aqm_timer(&mut self, port: u32) {
        self.depart_until_now(port);
        if let PortQueue::Managed(m) = &mut self.net.ports[port as usize].queue {
            if m.timers_may_move() && m.timer_at_ns != Some(self.now_ns) {
                return;
            }
            m.on_timer(self.now_ns);
        }
        self.schedule_aqm_timer(port);
    }

    /// Queue the timer a managed port's AQMs ask for, if any.
    pub(super) fn schedule_aqm_timer(&mut self, port: u32) {
        let now = self.now_ns;
        if let PortQueue::Managed(m) = &mut self.net.ports[port as usize].queue {
            m.timer_at_ns = m.next_timer_ns().map(|t| t.max(now));
            if let Some(t) = m.timer_at_ns {
                self.events.push(t, Event::AqmTimer { port });
            }
        }
    }

    /// Record one row of every series: the main one (the port the summary describes, with the
    /// active flows and the cwnd traces) and each measured port's.
    pub(super) fn sample(&mut self) {
        let now = self.now_ns;
        let t_s = ns_to_s(now);
        let in_window = self.window.contains(now);
        for k in 0..self.measured.len() {
            self.depart_until_now(self.measured[k].port);
        }
        for (k, mp) in self.measured.iter().enumerate() {
            let m = self
                .net
                .managed(mp.port)
                .expect("measured ports are managed");
            self.probe_buf.clear();
            m.probe(&mut self.probe_buf);
            if let (Some(avg), true) = (m.averaged_queue_pkts(), in_window) {
                self.aqm_avg[k].0 += avg;
                self.aqm_avg[k].1 += 1;
            }
            if k == self.summary_port {
                self.series.queue_row(
                    t_s,
                    m.len_pkts(),
                    m.len_bytes(),
                    self.active_flows,
                    &self.probe_buf,
                );
            }
            self.port_series
                .row(t_s, k, m.len_pkts(), m.len_bytes(), &self.probe_buf);
        }
        for &flow in &self.scenario.measure.cwnd_flows {
            if let Some(s) = self.flows.get(flow as usize).and_then(|f| f.tcp_sender()) {
                self.series
                    .cwnd_row(t_s, flow, s.cwnd_pkts(), s.ssthresh_pkts());
            }
        }
        self.ahead.sampled(&mut self.series);
        self.events.push(now + self.sample_step_ns, Event::Sample);
    }
}
