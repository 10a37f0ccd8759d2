//! The event list: events ordered by (time, insertion sequence), so that events at the same
//! nanosecond run in the order they were scheduled and every run is deterministic.
//!
//! A link is a delay line: its packets leave in the order they entered, each a fixed delay
//! after its serialisation ends, so their arrival times never decrease; so do the ends of a
//! port's transmissions. Such events go into a *lane* (a FIFO) and only the head of each lane
//! sits in a small heap of lane heads; the other events (timers, flow starts) wait in a heap of
//! their own, and a pop takes the earlier of the two tops. The frequent events (packets, ends
//! of transmission) so sift through a heap of one entry per busy lane, not one per packet in
//! flight and per pending timer. An event keeps the sequence number it got when scheduled, so
//! the order of events is exactly that of one heap holding them all.
//!
//! Any event may go into any lane whose last event is no later: the order does not depend on
//! how events are spread over lanes, only the cost does. Links alike (the many access links of
//! a dumbbell) share a lane, and a packet that would come before the shared lane's last one
//! goes into its own link's lane instead (`push_shared`): the heap of heads stays a few
//! entries long.
//!
//! Pacing timers wait in a third heap. They come due within a segment's transmission time,
//! sooner than nearly every retransmission and delayed-ACK timer, so in the timers' heap each
//! one would sift up through all of those and back down when popped; among themselves they
//! are a few entries per busy paced flow, with deadlines alike.

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

/// A heap entry: a time, a sequence number and what it stands for (in `heads`: a lane; in
/// `timers`: the event in `EventQueue::events[slot]`; in `pace`: the flow). Kept at 24 bytes, as the heaps move
/// entries on every push and pop.
#[derive(Clone, Copy)]
struct Entry {
    time_ns: u64,
    seq: u64,
    slot: u32,
}

/// An event waiting in a lane, with its time and sequence number.
type Queued = (u64, u64, Event);

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time_ns == other.time_ns && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that the max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time_ns, other.seq).cmp(&(self.time_ns, self.seq))
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
    next_seq: u64,
}

impl EventQueue {
    fn next_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedule `event` at `time_ns`.
    pub fn push(&mut self, time_ns: u64, event: Event) {
        let seq = self.next_seq();
        if let Event::Pace { flow } = event {
            self.pace.push(Entry {
                time_ns,
                seq,
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
        self.timers.push(Entry { time_ns, seq, slot });
    }

    /// Schedule `event` at `time_ns` in FIFO `lane`, whose events must come in non-decreasing
    /// time.
    pub fn push_lane(&mut self, lane: u32, time_ns: u64, event: Event) {
        let seq = self.next_seq();
        let index = lane as usize;
        if index >= self.lanes.len() {
            self.lanes.resize_with(index + 1, VecDeque::new);
        }
        let queue = &mut self.lanes[index];
        if let Some(&(last_ns, _, _)) = queue.back() {
            assert!(
                time_ns >= last_ns,
                "lane {lane}: event at {time_ns} ns after one at {last_ns} ns"
            );
        } else {
            self.heads.push(Entry {
                time_ns,
                seq,
                slot: lane,
            });
        }
        queue.push_back((time_ns, seq, event));
    }

    /// Schedule `event` at `time_ns` in lane `shared` when it comes no earlier than that lane's
    /// last event, else in lane `own` (whose events must come in non-decreasing time).
    pub fn push_shared(&mut self, shared: u32, own: u32, time_ns: u64, event: Event) {
        let fits = match self.lanes.get(shared as usize).and_then(|q| q.back()) {
            Some(&(last_ns, _, _)) => time_ns >= last_ns,
            None => true,
        };
        self.push_lane(if fits { shared } else { own }, time_ns, event);
    }

    /// Take the earliest event.
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        let key = |e: &Entry| (e.time_ns, e.seq);
        let earliest = [self.heads.peek(), self.timers.peek(), self.pace.peek()]
            .into_iter()
            .enumerate()
            .filter_map(|(i, top)| top.map(|e| (key(e), i)))
            .min()?;
        match earliest.1 {
            0 => Some(self.pop_lane()),
            1 => {
                let entry = self.timers.pop().expect("a timer");
                let event = self.events[entry.slot as usize]
                    .take()
                    .expect("a queued event");
                self.free.push(entry.slot);
                Some((entry.time_ns, event))
            }
            _ => {
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
            Some(&(next_ns, seq, _)) => {
                top.time_ns = next_ns;
                top.seq = seq;
            }
            None => {
                PeekMut::pop(top);
            }
        }
        (time_ns, event)
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        [self.heads.peek(), self.timers.peek(), self.pace.peek()]
            .into_iter()
            .flatten()
            .map(|e| e.time_ns)
            .min()
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

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, Event::FlowStart { flow: 1 });
        q.push(3, Event::FlowStart { flow: 2 });
        q.push(5, Event::FlowStart { flow: 3 });
        q.push(3, Event::FlowStart { flow: 4 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::FlowStart { flow } => flow,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }

    fn flow_of(e: Event) -> u32 {
        match e {
            Event::FlowStart { flow } | Event::Emit { flow } | Event::Pace { flow } => flow,
            _ => unreachable!(),
        }
    }

    /// Push a pseudo-random mix of timers and pacing timers (at any time not yet past) and
    /// packets on `links` links (non-decreasing times per link, scheduled by
    /// `push_link(queue, link, time, event)`), popping while pushing, and check every pop against a reference list that pops
    /// the least (time, scheduling order) of everything pending. Returns the number of pops
    /// checked while pushing.
    fn check_against_one_heap(
        seed: u64,
        count: u32,
        links: usize,
        mut push_link: impl FnMut(&mut EventQueue, usize, u64, Event),
    ) -> u32 {
        let mut q = EventQueue::default();
        let mut pending: Vec<(u64, u32)> = Vec::new();
        let mut link_last = vec![0u64; links];
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        let (mut now, mut pops) = (0u64, 0);
        for id in 0..count {
            let r = next();
            if r % 4 == 0 {
                // Half the timers are pacing timers, which wait in a heap of their own.
                let t = now + next() % 50;
                if r % 8 == 0 {
                    q.push(t, Event::Pace { flow: id });
                } else {
                    q.push(t, Event::FlowStart { flow: id });
                }
                pending.push((t, id));
            } else {
                let link = (r % links as u64) as usize;
                let t = link_last[link].max(now) + next() % 9;
                link_last[link] = t;
                push_link(&mut q, link, t, Event::Emit { flow: id });
                pending.push((t, id));
            }
            while next() % 2 == 0 {
                let Some((t, e)) = q.pop() else { break };
                let i = (0..pending.len()).min_by_key(|&i| pending[i]).unwrap();
                assert_eq!((t, flow_of(e)), pending.swap_remove(i));
                now = t;
                pops += 1;
            }
        }
        assert_eq!(q.iter().count(), pending.len());
        pending.sort_unstable();
        let rest: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t, flow_of(e)))
            .collect();
        assert_eq!(rest, pending);
        pops
    }

    #[test]
    fn lanes_and_timers_pop_as_one_heap_would() {
        let pops = check_against_one_heap(12345, 5000, 3, |q, link, t, e| {
            q.push_lane(link as u32, t, e)
        });
        assert!(pops > 1000);
    }

    #[test]
    fn shared_lanes_pop_as_one_heap_would() {
        // Links 0 and 1 share lane 10, links 2 and 3 lane 11; a packet that comes before its
        // shared lane's last one goes into its link's own lane (0..3).
        let mut fell_back = 0;
        check_against_one_heap(99, 20_000, 4, |q, link, t, e| {
            q.push_shared(10 + link as u32 / 2, link as u32, t, e);
            if q.lanes[link].back().is_some_and(|&(last, _, _)| last == t) {
                fell_back += 1;
            }
        });
        assert!(fell_back > 100, "{fell_back} packets in their own lanes");
    }

    #[test]
    fn same_order_as_one_heap() {
        // Everything pushed first, then popped: exactly sorted by (time, scheduling order).
        let mut q = EventQueue::default();
        let mut want = Vec::new();
        let mut lane_t = [0u64; 2];
        for id in 0..300u32 {
            let t = u64::from((id * 7919) % 97);
            if id % 3 == 0 {
                q.push(t, Event::FlowStart { flow: id });
                want.push((t, id));
            } else {
                let lane = (id % 2) as usize;
                lane_t[lane] += u64::from(id % 4);
                q.push_lane(lane as u32, lane_t[lane], Event::Emit { flow: id });
                want.push((lane_t[lane], id));
            }
        }
        assert_eq!(q.iter().count(), 300);
        want.sort_unstable();
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t, flow_of(e)))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    #[should_panic(expected = "lane 0")]
    fn a_lane_refuses_a_time_going_back() {
        let mut q = EventQueue::default();
        q.push_lane(0, 10, Event::Sample);
        q.push_lane(0, 9, Event::Sample);
    }
}
