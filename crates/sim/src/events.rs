//! The event list: events ordered by a key that does not depend on when they were scheduled,
//! (time, rank of the event's class, entity, ...), so that every run is deterministic and an
//! event added or removed elsewhere does not reorder the others (docs/architecture.md, "The
//! event order").
//!
//! - The rank orders the classes of events at the same nanosecond: flow stops and starts, a
//!   port's end of transmission, packet arrivals, the AQMs' timers, the senders' pacing,
//!   delayed-ACK and retransmission timers, UDP emissions, and last the sampling of the
//!   queues (`rank`).
//! - The entity orders events of one class: a port or a flow by its index; a packet by the link
//!   it travels, as the lane of that link (`EventQueue::push_lane`), each entity's number
//!   scrambled by the time (`tie_mask`), so that no flow or link comes first at every tie. A
//!   link's packets arrive at strictly increasing times (serialisation takes at least 1 ns), so
//!   no two packets share a key. Two events of the same class, entity and time are the same
//!   event (a timer queued twice for one deadline): which of them runs first changes nothing.
//!
//! A link is a delay line: its packets leave in the order they entered, each a fixed delay
//! after its serialisation ends, so their keys increase; so do those of a port's ends of
//! transmission. Such events go into a *lane* (a FIFO) and only the head of each lane sits in a
//! small heap of lane heads; the other events (timers, flow starts) wait in a heap of their
//! own, and a pop takes the least of the tops. The frequent events (packets, ends of
//! transmission) so sift through a heap of one entry per busy lane, not one per packet in
//! flight and per pending timer, and the order is exactly that of one heap holding them all.
//!
//! Any event may go into any lane whose last key is no greater: the order does not depend on
//! how events are spread over lanes, only the cost does. Links alike (the many access links of
//! a dumbbell) share a lane, and a packet that would come before the shared lane's last one
//! goes into its own link's lane instead (`push_shared`): the heap of heads stays a few
//! entries long.
//!
//! Pacing timers wait in a third heap: among the timers' heap's retransmission and delayed-ACK
//! deadlines each would sift up and back down; among themselves they are one entry per paced
//! flow that holds a segment back.

use crate::packet::Packet;
use std::cmp::Ordering;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A packet reaches a node at the far end of a link.
    Arrive { node: u32, pkt: Packet },
    /// A managed port finished serialising its head packet, or its shaper's wait is over.
    TxDone { port: u32 },
    /// A managed port's AQM asked for its timer.
    AqmTimer { port: u32 },
    /// A flow's application starts sending.
    FlowStart { flow: u32 },
    /// A flow's application stops offering new data.
    FlowStop { flow: u32 },
    /// A sender's retransmission timer may have expired.
    Rto { flow: u32 },
    /// A paced sender's pacing timer may have expired.
    Pace { flow: u32 },
    /// A receiver's delayed-acknowledgement timer may have expired.
    DelAck { flow: u32 },
    /// A UDP source's next packet is due.
    Emit { flow: u32 },
    /// Record one row of the time series.
    Sample,
}

/// The rank of an event's class among the events of one nanosecond, each for a reason:
/// - the applications' decisions take effect at their instant: a flow that stops at t offers
///   nothing at t (a source on over [start, stop) sends its last packet before stop), one that
///   starts at t may send at t;
/// - a port that ends a transmission frees its link next: its next packet starts, and a
///   packet that arrives at that instant finds the queue without the one that left;
/// - packets arrive before any timer of the instant fires: an acknowledgement that arrives at
///   the retransmission deadline is in time, a segment that arrives at the delayed-ACK
///   deadline is acknowledged by its own arrival, an AQM's periodic update sees the instant's
///   arrivals;
/// - the senders' and receivers' timers after the AQMs', the mildest first (pacing, delayed
///   ACK, retransmission), then UDP emissions;
/// - sampling last, so that a sample at t records the state after everything at t.
pub fn rank(event: &Event) -> u8 {
    match event {
        Event::FlowStop { .. } => 0,
        Event::FlowStart { .. } => 1,
        Event::TxDone { .. } => 2,
        Event::Arrive { .. } => 3,
        Event::AqmTimer { .. } => 4,
        Event::Pace { .. } => 5,
        Event::DelAck { .. } => 6,
        Event::Rto { .. } => 7,
        Event::Emit { .. } => 8,
        Event::Sample => 9,
    }
}

/// The key of `event` at `time_ns` after its time: its class's rank, then `entity` (a port, a
/// flow or a lane) scrambled by [`tie_mask`].
fn order(event: &Event, entity: u32, time_ns: u64) -> u64 {
    (u64::from(rank(event)) << 32) | u64::from(entity ^ tie_mask(time_ns))
}

/// The mask the entities of one instant are XORed with: 32 bits of SplitMix64's finaliser of
/// the time (Steele, Lea & Flood 2014). XOR with one mask keeps the entities of an instant
/// distinct, and two entities' order flips with the mask's bit at their highest differing bit,
/// so each comes first at about half of their ties. With the plain numbers the lower-numbered
/// flow or link came first at every tie: in BetaRED scenario 1 with 800 flows through drop
/// tail, where about 2 % of the arrivals at the bottleneck share their nanosecond with
/// another, mostly at a full buffer, the first eighth of the flows got 35 % more goodput than
/// the last eighth.
fn tie_mask(time_ns: u64) -> u32 {
    let mut z = time_ns.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// The entity of an event scheduled outside lanes: its port or flow.
fn entity(event: &Event) -> u32 {
    match *event {
        Event::AqmTimer { port } | Event::TxDone { port } => port,
        Event::FlowStart { flow }
        | Event::FlowStop { flow }
        | Event::Rto { flow }
        | Event::Pace { flow }
        | Event::DelAck { flow }
        | Event::Emit { flow } => flow,
        Event::Arrive { node, .. } => node,
        Event::Sample => 0,
    }
}

/// A heap entry: a time, the rest of the key and what it stands for (in `heads`: a lane; in
/// `timers`: the event in `EventQueue::events[slot]`; in `pace`: the flow). Kept at 24 bytes,
/// as the heaps move entries on every push and pop.
#[derive(Clone, Copy)]
struct Entry {
    time_ns: u64,
    order: u64,
    slot: u32,
}

/// Which heap holds the earliest event (`EventQueue::pop_until`).
#[derive(Clone, Copy, PartialEq)]
enum Heap {
    None,
    Heads,
    Timers,
    Pace,
}

/// An event waiting in a lane, with its time and the rest of its key.
type Queued = (u64, u64, Event);

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time_ns == other.time_ns && self.order == other.order
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that the max-heap pops the least key first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time_ns, other.order).cmp(&(self.time_ns, self.order))
    }
}

/// The pending events of a run.
#[derive(Default)]
pub struct EventQueue {
    /// The head of every non-empty lane.
    heads: BinaryHeap<Entry>,
    /// Every event scheduled outside lanes, but pacing timers.
    timers: BinaryHeap<Entry>,
    /// The pending `Event::Pace` of every flow that has one.
    pace: BinaryHeap<Entry>,
    /// Events scheduled outside lanes, by slot; `free` lists the empty slots.
    events: Vec<Option<Event>>,
    free: Vec<u32>,
    lanes: Vec<VecDeque<Queued>>,
}

impl EventQueue {
    /// Schedule `event` at `time_ns` (a timer, a flow's start or stop, a sample: not a packet
    /// or an end of transmission, which go into lanes).
    pub fn push(&mut self, time_ns: u64, event: Event) {
        debug_assert!(
            !matches!(event, Event::Arrive { .. } | Event::TxDone { .. }),
            "packets and ends of transmission go into lanes"
        );
        let order = order(&event, entity(&event), time_ns);
        if let Event::Pace { flow } = event {
            self.pace.push(Entry {
                time_ns,
                order,
                slot: flow,
            });
            return;
        }
        let slot = match self.free.pop() {
            Some(slot) => {
                self.events[slot as usize] = Some(event);
                slot
            }
            None => {
                let slot = u32::try_from(self.events.len()).expect("fewer than 2^32 events");
                self.events.push(Some(event));
                slot
            }
        };
        self.timers.push(Entry {
            time_ns,
            order,
            slot,
        });
    }

    /// Schedule `event` at `time_ns` in FIFO `lane`, the lane of the link or port it belongs
    /// to (its entity), whose events must come at strictly increasing times.
    pub fn push_lane(&mut self, lane: u32, time_ns: u64, event: Event) {
        let order = order(&event, lane, time_ns);
        self.push_keyed(lane, time_ns, order, event);
    }

    /// Put an event with key (`time_ns`, `order`) at the end of `lane`, whose last key must be
    /// less.
    fn push_keyed(&mut self, lane: u32, time_ns: u64, order: u64, event: Event) {
        let index = lane as usize;
        if index >= self.lanes.len() {
            self.lanes.resize_with(index + 1, VecDeque::new);
        }
        let queue = &mut self.lanes[index];
        if let Some(&(last_ns, last_order, _)) = queue.back() {
            assert!(
                (time_ns, order) > (last_ns, last_order),
                "lane {lane}: event at {time_ns} ns after one at {last_ns} ns"
            );
        } else {
            self.heads.push(Entry {
                time_ns,
                order,
                slot: lane,
            });
        }
        queue.push_back((time_ns, order, event));
    }

    /// Schedule `event` at `time_ns` for the link whose own lane is `own`: in lane `shared`
    /// when its key comes after that lane's last, else in lane `own`.
    pub fn push_shared(&mut self, shared: u32, own: u32, time_ns: u64, event: Event) {
        let order = order(&event, own, time_ns);
        let fits = match self.lanes.get(shared as usize).and_then(|q| q.back()) {
            Some(&(last_ns, last_order, _)) => (time_ns, order) > (last_ns, last_order),
            None => true,
        };
        self.push_keyed(if fits { shared } else { own }, time_ns, order, event);
    }

    /// Take the earliest event.
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.pop_until(u64::MAX)
    }

    /// Take the earliest event if it comes no later than `end_ns`. The three heaps' tops are
    /// compared once, by their keys (time, then the rest).
    pub fn pop_until(&mut self, end_ns: u64) -> Option<(u64, Event)> {
        let key = |e: &Entry| (e.time_ns, e.order);
        let (mut from, mut least) = match self.heads.peek() {
            Some(e) => (Heap::Heads, key(e)),
            None => (Heap::None, (u64::MAX, u64::MAX)),
        };
        if let Some(e) = self.timers.peek() {
            if key(e) < least || from == Heap::None {
                (from, least) = (Heap::Timers, key(e));
            }
        }
        if let Some(e) = self.pace.peek() {
            if key(e) < least || from == Heap::None {
                (from, least) = (Heap::Pace, key(e));
            }
        }
        if least.0 > end_ns {
            return None;
        }
        match from {
            Heap::None => None,
            Heap::Heads => Some(self.pop_lane()),
            Heap::Timers => {
                let entry = self.timers.pop().expect("a timer");
                let event = self.events[entry.slot as usize]
                    .take()
                    .expect("a queued event");
                self.free.push(entry.slot);
                Some((entry.time_ns, event))
            }
            Heap::Pace => {
                let entry = self.pace.pop().expect("a pacing timer");
                Some((entry.time_ns, Event::Pace { flow: entry.slot }))
            }
        }
    }

    /// Take the event at the head of the lane whose head is earliest.
    fn pop_lane(&mut self) -> (u64, Event) {
        let mut top = self.heads.peek_mut().expect("a lane head");
        let queue = &mut self.lanes[top.slot as usize];
        let (time_ns, _, event) = queue.pop_front().expect("a lane in the heap is not empty");
        match queue.front() {
            // The lane's next event takes the head's place (one sift instead of two).
            Some(&(next_ns, order, _)) => {
                top.time_ns = next_ns;
                top.order = order;
            }
            None => {
                PeekMut::pop(top);
            }
        }
        (time_ns, event)
    }

    /// Every pending event, in no particular order (for end-of-run accounting).
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        let timers = self.events.iter().flatten().cloned();
        let pace = self.pace.iter().map(|e| Event::Pace { flow: e.slot });
        let lanes = self.lanes.iter().flatten().map(|(_, _, event)| *event);
        timers.chain(pace).chain(lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (an LCG), for the randomised tests.
    fn lcg(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        }
    }

    /// An event's identity in these tests: its class's rank and its entity (flow, port or
    /// lane).
    fn ident(e: Event) -> (u8, u32) {
        let id = match e {
            Event::FlowStart { flow } | Event::Pace { flow } | Event::Rto { flow } => flow,
            Event::TxDone { port } => port,
            Event::Sample => 0,
            _ => unreachable!(),
        };
        (rank(&e), id)
    }

    /// The order of `ident`ified events at `t` that the queue should follow: time, rank, then
    /// the entity under the instant's mask.
    fn tie_key(&(t, (rank, id)): &(u64, (u8, u32))) -> (u64, u8, u32) {
        (t, rank, id ^ tie_mask(t))
    }

    #[test]
    fn ties_pop_by_rank_then_entity_whatever_the_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, Event::FlowStart { flow: 1 });
        q.push(3, Event::Sample);
        q.push(3, Event::FlowStart { flow: 4 });
        q.push(3, Event::Rto { flow: 9 });
        q.push(3, Event::FlowStart { flow: 2 });
        q.push_lane(7, 3, Event::TxDone { port: 7 });
        q.push(3, Event::Pace { flow: 9 });
        q.push_lane(6, 3, Event::TxDone { port: 6 });
        let order: Vec<(u64, (u8, u32))> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t, ident(e)))
            .collect();
        let tied = [(1, 2), (1, 4), (2, 6), (2, 7), (5, 9), (7, 9), (9, 0)];
        let mut want: Vec<(u64, (u8, u32))> =
            tied.iter().map(|&k| (3, k)).chain([(5, (1, 1))]).collect();
        want.sort_unstable_by_key(tie_key);
        assert_eq!(order, want);
        // By rank first: the entities' order within a rank is the mask's.
        let ranks: Vec<u8> = order.iter().map(|&(_, (r, _))| r).collect();
        assert_eq!(ranks, [1, 1, 2, 2, 5, 7, 9, 1]);
    }

    #[test]
    fn no_entity_comes_first_at_every_tie() {
        // Over many instants, each of two entities comes first at about half of their ties,
        // whichever bit they differ in.
        for (a, b) in [(6, 7), (1, 2), (3, 900), (0, 1 << 31)] {
            let first = (0..10_000u64)
                .map(|t| t * 1_000 + 17)
                .filter(|&t| {
                    let sample = Event::Sample;
                    order(&sample, a, t) < order(&sample, b, t)
                })
                .count();
            assert!(
                (4_500..=5_500).contains(&first),
                "{a} before {b} at {first} of 10 000"
            );
        }
    }

    /// The events of one run: timers (flow starts, retransmission and pacing timers, samples)
    /// at random times with many ties, and ends of transmission on `links` lanes (at strictly
    /// increasing times per lane), each as (time, lane or None, event).
    fn tied_events(seed: u64, count: u32, links: u32) -> Vec<(u64, Option<u32>, Event)> {
        let mut next = lcg(seed);
        let mut lane_last = vec![0u64; links as usize];
        (0..count)
            .map(|id| {
                let r = next();
                let t = next() % 20;
                match r % 5 {
                    0 => (t, None, Event::FlowStart { flow: id }),
                    1 => (t, None, Event::Pace { flow: id }),
                    2 => (t, None, Event::Rto { flow: id % 7 }),
                    3 => (t, None, Event::Sample),
                    _ => {
                        let lane = (r / 5 % u64::from(links)) as u32;
                        lane_last[lane as usize] += 1 + next() % 2;
                        let t = lane_last[lane as usize];
                        (t, Some(lane), Event::TxDone { port: lane })
                    }
                }
            })
            .collect()
    }

    fn push_all(q: &mut EventQueue, events: &[(u64, Option<u32>, Event)]) {
        for &(t, lane, e) in events {
            match lane {
                Some(lane) => q.push_shared(100, lane, t, e),
                None => q.push(t, e),
            }
        }
    }

    #[test]
    fn shuffled_insertion_orders_pop_alike() {
        // The same simultaneous events, scheduled in shuffled orders (each lane's own in its
        // order, as a link's packets are), pop in one order: that of their keys.
        let events = tied_events(7, 3000, 4);
        let popped = |events: &[(u64, Option<u32>, Event)]| {
            let mut q = EventQueue::default();
            push_all(&mut q, events);
            std::iter::from_fn(|| q.pop())
                .map(|(t, e)| (t, ident(e)))
                .collect::<Vec<_>>()
        };
        let reference = popped(&events);
        let mut want: Vec<(u64, (u8, u32))> =
            events.iter().map(|&(t, _, e)| (t, ident(e))).collect();
        want.sort_unstable_by_key(tie_key);
        assert_eq!(reference, want);
        let mut next = lcg(11);
        for _ in 0..5 {
            // Shuffle the timers among themselves and the lanes' events between lanes.
            let (mut timers, lanes): (Vec<_>, Vec<_>) = events
                .iter()
                .copied()
                .partition(|(_, lane, _)| lane.is_none());
            for i in (1..timers.len()).rev() {
                timers.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let mut merged = Vec::with_capacity(events.len());
            let (mut a, mut b) = (timers.into_iter().peekable(), lanes.into_iter().peekable());
            while a.peek().is_some() || b.peek().is_some() {
                let take_timer = b.peek().is_none() || (a.peek().is_some() && next() % 2 == 0);
                merged.extend(if take_timer { a.next() } else { b.next() });
            }
            assert_eq!(popped(&merged), reference);
        }
    }

    #[test]
    fn lanes_and_timers_pop_as_one_heap_would_while_pushing() {
        // Pops interleaved with pushes (every push no earlier than the last pop): each pop is
        // the least key of everything pending.
        let mut next = lcg(12345);
        let mut q = EventQueue::default();
        let mut pending: Vec<(u64, (u8, u32))> = Vec::new();
        let mut lane_last = [0u64; 3];
        let (mut now, mut pops) = (0u64, 0);
        for id in 0..5000u32 {
            let r = next();
            let e = if r % 4 == 0 {
                let t = now + next() % 50;
                let e = if r % 8 == 0 {
                    Event::Pace { flow: id }
                } else {
                    Event::FlowStart { flow: id }
                };
                q.push(t, e);
                (t, e)
            } else {
                let lane = (r % 3) as u32;
                let t = lane_last[lane as usize].max(now) + 1 + next() % 9;
                lane_last[lane as usize] = t;
                let e = Event::TxDone { port: lane };
                q.push_shared(10, lane, t, e);
                (t, e)
            };
            pending.push((e.0, ident(e.1)));
            while next() % 2 == 0 {
                let Some((t, e)) = q.pop() else { break };
                let i = (0..pending.len())
                    .min_by_key(|&i| tie_key(&pending[i]))
                    .unwrap();
                assert_eq!((t, ident(e)), pending.swap_remove(i));
                now = t;
                pops += 1;
            }
        }
        assert!(pops > 1000);
        assert_eq!(q.iter().count(), pending.len());
        pending.sort_unstable_by_key(tie_key);
        let rest: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t, ident(e)))
            .collect();
        assert_eq!(rest, pending);
    }

    #[test]
    fn a_packet_that_would_come_first_takes_its_own_lane() {
        // Three ports, in the order of their keys at 5 ns.
        let mut ports = [1u32, 2, 3];
        ports.sort_unstable_by_key(|&p| p ^ tie_mask(5));
        let [first, second, third] = ports;
        let mut q = EventQueue::default();
        q.push_shared(10, second, 5, Event::TxDone { port: second });
        // Same time, an earlier key: it may not follow lane 10's last event there.
        q.push_shared(10, first, 5, Event::TxDone { port: first });
        q.push_shared(10, third, 5, Event::TxDone { port: third });
        assert_eq!(q.lanes[10].len(), 2);
        assert_eq!(q.lanes[first as usize].len(), 1);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| ident(e).1)
            .collect();
        assert_eq!(order, ports);
    }

    #[test]
    #[should_panic(expected = "lane 0")]
    fn a_lane_refuses_a_time_going_back() {
        let mut q = EventQueue::default();
        q.push_lane(0, 10, Event::TxDone { port: 0 });
        q.push_lane(0, 9, Event::TxDone { port: 0 });
    }

    #[test]
    #[should_panic(expected = "lane 0")]
    fn a_lane_refuses_two_events_at_one_key() {
        let mut q = EventQueue::default();
        q.push_lane(0, 10, Event::TxDone { port: 0 });
        q.push_lane(0, 10, Event::TxDone { port: 0 });
    }
}
