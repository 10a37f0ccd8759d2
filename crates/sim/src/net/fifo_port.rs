//! A drop-tail FIFO output port, computed without events of its own.
//!
//! With first-in first-out service and no decision at dequeue, a packet's transmission start
//! is known the moment it arrives: max(now, when the link frees up), and so is its end, the
//! start plus its transmission time at the rate in force then. The port therefore only
//! remembers the start times of the packets still waiting, drops on overflow, and hands back
//! when the packet leaves the wire; the caller schedules its arrival at the far end.

use std::collections::VecDeque;

/// Drop-tail queue of a port that runs no AQM.
#[derive(Clone, Debug)]
pub struct FifoQueue {
    limit_pkts: u32,
    /// Transmission start time and size of each packet still waiting, in order.
    waiting: VecDeque<(u64, u32)>,
    /// When the link finishes its last accepted packet, ns.
    busy_until_ns: u64,
}

impl FifoQueue {
    /// A queue holding at most `limit_pkts` waiting packets.
    pub fn new(limit_pkts: u32) -> Self {
        FifoQueue {
            limit_pkts,
            waiting: VecDeque::new(),
            busy_until_ns: 0,
        }
    }

    /// Packets waiting at `now_ns` (not counting the one on the wire).
    pub fn len_at(&mut self, now_ns: u64) -> u32 {
        while self
            .waiting
            .front()
            .is_some_and(|&(start, _)| start <= now_ns)
        {
            self.waiting.pop_front();
        }
        self.waiting.len() as u32
    }

    /// Offer a packet that takes `tx_ns(start)` to serialise when its transmission starts at
    /// `start` (the link's rate may change over the run). Returns when its last bit leaves,
    /// or `None` when the buffer is full and the packet is dropped. A backlog that would leave
    /// after the end of representable time saturates there (it never leaves within a run).
    pub fn offer(
        &mut self,
        now_ns: u64,
        size_bytes: u32,
        tx_ns: impl FnOnce(u64) -> u64,
    ) -> Option<u64> {
        if self.len_at(now_ns) >= self.limit_pkts {
            return None;
        }
        let start = self.busy_until_ns.max(now_ns);
        self.busy_until_ns = start.saturating_add(tx_ns(start));
        if start > now_ns {
            self.waiting.push_back((start, size_bytes));
        }
        Some(self.busy_until_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_back_to_back_and_drops_on_overflow() {
        let mut q = FifoQueue::new(2);
        assert_eq!(q.offer(0, 100, |_| 10), Some(10)); // on the wire at once
        assert_eq!(q.offer(0, 100, |_| 10), Some(20)); // waits
        assert_eq!(q.offer(1, 100, |_| 10), Some(30)); // waits
        assert_eq!(q.offer(2, 100, |_| 10), None); // two waiting: full
        assert_eq!(q.len_at(10), 1); // the second started at 10
        assert_eq!(q.offer(10, 100, |_| 10), Some(40));
        assert_eq!(q.offer(100, 100, |_| 10), Some(110)); // idle again
    }

    #[test]
    fn each_packet_takes_the_time_of_its_start() {
        // The link takes 10 ns per packet before 25 ns and 20 ns from then on.
        let tx = |start: u64| if start < 25 { 10 } else { 20 };
        let mut q = FifoQueue::new(10);
        assert_eq!(q.offer(0, 100, tx), Some(10));
        assert_eq!(q.offer(0, 100, tx), Some(20));
        assert_eq!(q.offer(0, 100, tx), Some(30)); // starts at 20: the old time
        assert_eq!(q.offer(0, 100, tx), Some(50)); // starts at 30: the new one
    }

    #[test]
    fn a_backlog_beyond_representable_time_saturates() {
        let mut q = FifoQueue::new(10);
        assert_eq!(q.offer(0, 100, |_| u64::MAX - 5), Some(u64::MAX - 5));
        assert_eq!(q.offer(0, 100, |_| 10), Some(u64::MAX));
        assert_eq!(q.offer(1, 100, |_| 10), Some(u64::MAX));
    }
}
