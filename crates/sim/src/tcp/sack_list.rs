//! The SACK blocks a receiver reports (RFC 2018 §4): the block holding the segment that
//! triggered the ACK comes first, then the most recently reported other blocks. As in ns-3.37's
//! receive buffer, at most four blocks are remembered; a fifth pushes out the oldest, which is
//! then not reported again (a segment later joining it reports only the new part).

use crate::packet::{SackBlock, MAX_SACK_BLOCKS};

/// The receiver's list of SACK blocks, most recent first.
#[derive(Clone, Debug, Default)]
pub struct SackList {
    blocks: [SackBlock; MAX_SACK_BLOCKS],
    len: usize,
}

impl SackList {
    /// The blocks, most recent first.
    pub fn blocks(&self) -> &[SackBlock] {
        &self.blocks[..self.len]
    }

    /// Segment `seq` arrived above a hole: put its block first, merged with the blocks it
    /// touches (RFC 2018 §4 rule (a)).
    pub fn on_out_of_order(&mut self, seq: u32) {
        let mut first: SackBlock = (seq, seq + 1);
        let mut kept = [(0, 0); MAX_SACK_BLOCKS];
        let mut n = 0;
        for &b in self.blocks() {
            if b.1 == first.0 || b.0 == first.1 {
                first = (first.0.min(b.0), first.1.max(b.1));
            } else {
                kept[n] = b;
                n += 1;
            }
        }
        self.blocks[0] = first;
        let keep = n.min(MAX_SACK_BLOCKS - 1);
        self.blocks[1..=keep].copy_from_slice(&kept[..keep]);
        self.len = keep + 1;
    }

    /// The cumulative acknowledgement point moved to `rcv_next`: forget the blocks below it.
    pub fn on_advance(&mut self, rcv_next: u32) {
        let mut n = 0;
        for i in 0..self.len {
            if self.blocks[i].1 > rcv_next {
                self.blocks[n] = self.blocks[i];
                n += 1;
            }
        }
        self.len = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_block_first_and_neighbours_merge() {
        let mut l = SackList::default();
        l.on_out_of_order(5);
        l.on_out_of_order(9);
        assert_eq!(l.blocks(), &[(9, 10), (5, 6)]);
        l.on_out_of_order(6);
        assert_eq!(l.blocks(), &[(5, 7), (9, 10)]);
        // 7 and 8 join the two blocks into one.
        l.on_out_of_order(8);
        l.on_out_of_order(7);
        assert_eq!(l.blocks(), &[(5, 10)]);
        l.on_advance(10);
        assert!(l.blocks().is_empty());
    }

    #[test]
    fn at_most_four_blocks_are_remembered() {
        let mut l = SackList::default();
        for seq in [2, 4, 6, 8, 10] {
            l.on_out_of_order(seq);
        }
        assert_eq!(l.blocks(), &[(10, 11), (8, 9), (6, 7), (4, 5)]);
        // The forgotten block (2, 3) is not reported when 3 arrives: only the new part is.
        l.on_out_of_order(3);
        assert_eq!(l.blocks()[0], (3, 5));
    }
}
