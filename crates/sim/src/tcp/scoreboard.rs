//! The sender's record of every unacknowledged segment, and with SACK the scoreboard of
//! RFC 6675 §3–4 as ns-3.37's transmit buffer keeps it: which segments the receiver SACKed,
//! which are deemed lost, which were retransmitted, the estimate of the data in flight (pipe)
//! and the choice of the next segment to send (NextSeg).
//!
//! Loss is counted in segments, as ns-3 does: once `dupthresh` SACKed segments lie above an
//! unSACKed one, that one is lost (RFC 6675's IsLost with DupThresh discontiguous SACKed
//! sequences; its byte rule gives the same answer for full-sized segments). Marks are sticky: a
//! lost segment stays lost, retransmitted or not, until it is SACKed or acknowledged, so every
//! unSACKed segment below `lost_below` is lost and none above it is.

use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 1 << 1;
/// Retransmitted and counted in pipe again (ns-3 clears it only at a timeout or when the head
/// is marked lost once more).
const RETRANS: u8 = 1 << 2;
/// Ever sent more than once (Karn's rule).
const EVER_RETRANSMITTED: u8 = 1 << 3;
/// Counted as delivered since it was last sent (SACKed or acknowledged; a SACK that a
/// reneging head loses does not take it back). Set only when the scoreboard counts
/// deliveries.
const DELIVERED: u8 = 1 << 4;

#[derive(Clone, Copy, Debug)]
struct Segment {
    /// Last time it was put on the wire, ns.
    sent_ns: u64,
    flags: u8,
}

/// What a cumulative acknowledgement removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acknowledged {
    /// Segments acknowledged.
    pub segments: u32,
    /// Of those, segments not SACKed before (newly delivered).
    pub newly_delivered: u32,
    /// Whether any of them was a retransmission not SACKed before (ns-3's
    /// `m_isRetransDataAcked`, used by PRR).
    pub retransmission_acked: bool,
}

/// What NextSeg (RFC 6675 §4) chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSegment {
    /// Retransmit this segment (rule 1, or rule 3 during recovery).
    Retransmit(u32),
    /// Send new data (rule 2).
    New,
    /// Nothing to send now.
    Nothing,
}

/// The unacknowledged segments `una..high` and their marks.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    una: u32,
    segs: VecDeque<Segment>,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
    /// The highest SACKed segment, if any is above `una`.
    highest_sacked: Option<u32>,
    /// Every unSACKed segment below this is lost; none at or above it is.
    lost_below: u32,
    /// Every segment below this is SACKed or retransmitted (where NextSeg's scan starts).
    scan_from: u32,
    dupthresh: u32,
    /// Segments delivered so far: each counted when it is first SACKed or acknowledged after
    /// it was sent, so a segment sent again after its delivery counts again (the delivered
    /// count of draft-cheng-iccrg-delivery-rate-estimation §3.2, ns-3.37's
    /// TcpRateConnection::m_delivered). Kept only when `counts_deliveries`.
    delivered_pkts: u64,
    /// Whether ACKs mark and count deliveries (a rate-based sender's without the
    /// delivery-rate estimator, Prague's; the others' ACKs skip the work).
    counts_deliveries: bool,
}

impl Scoreboard {
    /// An empty scoreboard; `dupthresh` SACKed segments above a hole mark it lost.
    pub fn new(dupthresh: u32) -> Self {
        Scoreboard {
            una: 0,
            segs: VecDeque::new(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            highest_sacked: None,
            lost_below: 0,
            scan_from: 0,
            dupthresh,
            delivered_pkts: 0,
            counts_deliveries: false,
        }
    }

    /// Keep the count of segments delivered ([`Self::delivered_pkts`]).
    pub fn count_deliveries(&mut self) {
        self.counts_deliveries = true;
    }

    /// Oldest unacknowledged segment.
    pub fn una(&self) -> u32 {
        self.una
    }

    /// One past the highest segment sent (HighData + 1).
    pub fn high(&self) -> u32 {
        self.una + self.segs.len() as u32
    }

    /// Segments sent and not cumulatively acknowledged.
    pub fn outstanding(&self) -> u32 {
        self.segs.len() as u32
    }

    fn seg(&self, seq: u32) -> &Segment {
        &self.segs[(seq - self.una) as usize]
    }

    fn seg_mut(&mut self, seq: u32) -> &mut Segment {
        &mut self.segs[(seq - self.una) as usize]
    }

    /// Whether segment `seq` (outstanding) was SACKed.
    pub fn is_sacked(&self, seq: u32) -> bool {
        self.seg(seq).flags & SACKED != 0
    }

    /// Whether segment `seq` is retransmitted and still counted in pipe.
    pub fn is_retransmitted(&self, seq: u32) -> bool {
        self.seg(seq).flags & RETRANS != 0
    }

    /// A new segment (`high`) went on the wire.
    pub fn on_sent_new(&mut self, now_ns: u64) {
        self.segs.push_back(Segment {
            sent_ns: now_ns,
            flags: 0,
        });
    }

    /// Outstanding segment `seq` was sent again (and is delivered anew when next SACKed or
    /// acknowledged).
    pub fn on_retransmit(&mut self, seq: u32, now_ns: u64) {
        let s = self.seg_mut(seq);
        s.sent_ns = now_ns;
        let first = s.flags & RETRANS == 0;
        s.flags = (s.flags | RETRANS | EVER_RETRANSMITTED) & !DELIVERED;
        if first {
            self.retrans_out += 1;
        }
    }

    /// A cumulative acknowledgement of everything below `ackno` (una < ackno ≤ high).
    pub fn acknowledge(&mut self, ackno: u32) -> Acknowledged {
        let mut a = Acknowledged::default();
        while self.una < ackno {
            let s = self.segs.pop_front().expect("ackno <= high");
            self.una += 1;
            a.segments += 1;
            if self.counts_deliveries {
                self.delivered_pkts += u64::from(s.flags & DELIVERED == 0);
            }
            let sacked = s.flags & SACKED != 0;
            if sacked {
                self.sacked_out -= 1;
            } else {
                a.newly_delivered += 1;
                if s.flags & RETRANS != 0 {
                    a.retransmission_acked = true;
                }
            }
            if s.flags & LOST != 0 {
                self.lost_out -= 1;
            }
            if s.flags & RETRANS != 0 {
                self.retrans_out -= 1;
            }
        }
        self.lost_below = self.lost_below.max(self.una);
        self.scan_from = self.scan_from.max(self.una);
        if self.highest_sacked.is_some_and(|h| h < self.una) {
            self.highest_sacked = None;
        }
        a
    }

    /// Record the SACK blocks of an acknowledgement (RFC 6675 Update()); returns the number of
    /// segments newly SACKed. Blocks below `una` or beyond what was sent are ignored.
    pub fn apply_sack(&mut self, blocks: impl IntoIterator<Item = (u32, u32)>) -> u32 {
        let mut newly = 0;
        let counts = self.counts_deliveries;
        let delivered_mark = if counts { DELIVERED } else { 0 };
        let mut delivered = 0;
        for (start, end) in blocks {
            let (start, end) = (start.max(self.una), end.min(self.high()));
            for seq in start..end {
                let s = self.seg_mut(seq);
                let flags = s.flags;
                let newly_delivered = counts && flags & DELIVERED == 0;
                if flags & SACKED != 0 {
                    if newly_delivered {
                        s.flags = flags | DELIVERED; // SACKed, then sent again
                        delivered += 1;
                    }
                    continue;
                }
                s.flags = (flags | SACKED | delivered_mark) & !LOST;
                delivered += u64::from(newly_delivered);
                self.sacked_out += 1;
                if flags & LOST != 0 {
                    self.lost_out -= 1;
                }
                newly += 1;
            }
            if start < end && self.highest_sacked.is_none_or(|h| end - 1 > h) {
                self.highest_sacked = Some(end - 1);
            }
        }
        self.delivered_pkts += delivered;
        if newly > 0 {
            self.update_lost();
        }
        newly
    }

    /// Mark lost every unSACKed segment below the `dupthresh`-th SACKed one counted down from
    /// the highest SACKed segment (RFC 6675 IsLost, ns-3's UpdateLostCount).
    fn update_lost(&mut self) {
        let Some(top) = self.highest_sacked else {
            return;
        };
        let mut count = 0;
        let mut seq = top + 1;
        let boundary = loop {
            if seq <= self.lost_below {
                return; // fewer than dupthresh SACKed segments above what is already lost
            }
            seq -= 1;
            if self.is_sacked(seq) {
                count += 1;
                if count >= self.dupthresh {
                    break seq;
                }
            }
        };
        for seq in self.lost_below..boundary {
            let s = self.seg_mut(seq);
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                self.lost_out += 1;
            }
        }
        self.scan_from = self.scan_from.min(self.lost_below);
        self.lost_below = boundary;
    }

    /// ns-3's IsLost(seq): `seq` is below the highest SACKed segment and deemed lost.
    pub fn is_lost(&self, seq: u32) -> bool {
        self.highest_sacked.is_some_and(|h| seq < h)
            && seq < self.lost_below
            && !self.is_sacked(seq)
    }

    /// Mark the head segment lost and no longer retransmitted (ns-3's MarkHeadAsLost, at the
    /// entry into recovery when fewer than `dupthresh` segments were SACKed above it).
    pub fn mark_head_lost(&mut self) {
        if self.segs.is_empty() {
            return;
        }
        let una = self.una;
        let s = self.seg_mut(una);
        let flags = s.flags;
        s.flags = (flags & !(SACKED | RETRANS)) | LOST;
        if flags & SACKED != 0 {
            self.sacked_out -= 1;
        }
        if flags & RETRANS != 0 {
            self.retrans_out -= 1;
        }
        if flags & LOST == 0 {
            self.lost_out += 1;
        }
        self.lost_below = self.lost_below.max(una + 1);
        self.scan_from = una;
    }

    /// After a retransmission timeout: every unSACKed segment is lost and none counts as
    /// retransmitted; SACK information is kept (ns-3's SetSentListLost without reset).
    pub fn on_timeout(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags &= !RETRANS;
            if s.flags & SACKED == 0 {
                s.flags |= LOST;
            }
        }
        self.retrans_out = 0;
        self.lost_out = self.outstanding() - self.sacked_out;
        self.lost_below = self.high();
        self.scan_from = self.una;
    }

    /// Segments delivered so far (see the field's documentation), once
    /// [`Self::count_deliveries`] asked for the count.
    pub fn delivered_pkts(&self) -> u64 {
        self.delivered_pkts
    }

    /// Segments marked lost and not SACKed.
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }

    /// Segments retransmitted and still counted in pipe.
    pub fn retrans_out(&self) -> u32 {
        self.retrans_out
    }

    /// RFC 6675 SetPipe() as ns-3 computes it: segments sent, less those SACKed or lost, plus
    /// those retransmitted.
    pub fn pipe(&self) -> u32 {
        self.outstanding() - self.sacked_out - self.lost_out + self.retrans_out
    }

    /// RFC 6675 NextSeg(): rule 1 (the first lost segment not yet retransmitted), rule 2 (new
    /// data, when `new_data_allowed`), rule 3 (during recovery, the first unSACKed segment not
    /// yet retransmitted); rule 4 (the rescue retransmission) is not used, as in ns-3.
    pub fn next_segment(
        &mut self,
        new_data_pending: bool,
        new_data_allowed: bool,
        rule3: bool,
    ) -> NextSegment {
        let high = self.high();
        while self.scan_from < high && self.seg(self.scan_from).flags & (SACKED | RETRANS) != 0 {
            self.scan_from += 1;
        }
        if self.scan_from < self.lost_below && self.scan_from < high {
            return NextSegment::Retransmit(self.scan_from);
        }
        if new_data_pending {
            return if new_data_allowed {
                NextSegment::New
            } else {
                NextSegment::Nothing
            };
        }
        if rule3 && self.scan_from < high {
            return NextSegment::Retransmit(self.scan_from);
        }
        NextSegment::Nothing
    }

    /// The first segment at or above `from` that is not SACKed and lies below the highest
    /// SACKed one (a hole the receiver has data above; ns-2's GetNextRetran).
    pub fn next_hole(&self, from: u32) -> Option<u32> {
        let top = self.highest_sacked?;
        (from.max(self.una)..top).find(|&seq| !self.is_sacked(seq))
    }

    /// Forget every SACK block received (ns-2's ClearScoreBoard); retransmission marks stay.
    pub fn forget_sacks(&mut self) {
        if self.sacked_out == 0 && self.lost_out == 0 {
            return;
        }
        for s in self.segs.iter_mut() {
            s.flags &= !(SACKED | LOST);
        }
        self.sacked_out = 0;
        self.lost_out = 0;
        self.highest_sacked = None;
        self.lost_below = self.una;
        self.scan_from = self.una;
    }

    /// When segment `seq` (outstanding) was last sent, and whether it was ever resent.
    pub fn sent_record(&self, seq: u32) -> (u64, bool) {
        let s = self.seg(seq);
        (s.sent_ns, s.flags & EVER_RETRANSMITTED != 0)
    }
}
