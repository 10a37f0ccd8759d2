//! The event list: a binary heap ordered by (time, insertion sequence), so that events at the
//! same nanosecond run in the order they were scheduled and every run is deterministic.

use crate::packet::Packet;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A packet reaches a node at the far end of a link.
    Arrive { node: u32, pkt: Packet },
    /// A managed port finished serialising its head packet.
    TxDone { port: u32 },
    /// A managed port's AQM asked for its timer.
    AqmTimer { port: u32 },
    /// A flow's application starts sending.
    FlowStart { flow: u32 },
    /// A flow's application stops offering new data.
    FlowStop { flow: u32 },
    /// A sender's retransmission timer may have expired.
    Rto { flow: u32 },
    /// A receiver's delayed-acknowledgement timer may have expired.
    DelAck { flow: u32 },
    /// A UDP source's next packet is due.
    Emit { flow: u32 },
    /// Record one row of the time series.
    Sample,
}

struct Entry {
    time_ns: u64,
    seq: u64,
    event: Event,
}

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
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    /// Schedule `event` at `time_ns`.
    pub fn push(&mut self, time_ns: u64, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            time_ns,
            seq,
            event,
        });
    }

    /// Take the earliest event.
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|e| (e.time_ns, e.event))
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.time_ns)
    }

    /// Every pending event, in no particular order (for end-of-run accounting).
    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.heap.iter().map(|e| &e.event)
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
}
