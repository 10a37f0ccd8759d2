//! Flow classification: a seeded hash of a packet's flow into one of `flows` flow queues,
//! directly (`hash mod flows`, RFC 8290 §4.1.1) or through a set-associative table that gives
//! each flow a way of its set while one is free (ns-3.37 `FqCoDelQueueDisc::SetAssociativeHash`,
//! CAKE's 8-way hashing, Høiland-Jørgensen et al. 2018 §4.1).
//!
//! A packet's 5-tuple (addresses, ports, protocol) is fixed by its flow and its direction, and
//! the simulator numbers both, so the hash is taken of (flow id, destination node): a
//! one-to-one image of the 5-tuple. The hash function is aqmlab's own (SplitMix64's finaliser,
//! Steele, Lea & Flood 2014), not ns-3's Murmur3 of the header bytes nor Linux's jhash: which
//! flows collide differs from both, as it differs between two Linux boots.

use crate::packet::Packet;

/// Marks an unused bucket.
const NONE: u32 = u32::MAX;

/// The key of `pkt`'s flow: (flow id, destination node), a one-to-one image of its 5-tuple.
pub fn flow_key(pkt: &Packet) -> u64 {
    u64::from(pkt.flow) << 32 | u64::from(pkt.dst)
}

/// The 32-bit hash of a classification key under seed `perturbation`.
pub fn key_hash(key: u64, perturbation: u32) -> u32 {
    let key = key ^ u64::from(perturbation) << 17;
    // SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014): every input bit moves every
    // output bit.
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// Maps flow hashes to buckets.
pub struct Classifier {
    flows: u32,
    perturbation: u32,
    /// Ways per set; 0 hashes directly.
    ways: u32,
    /// Per bucket of a set-associative table: the hash of the flow it was last given to.
    tags: Vec<u32>,
}

impl Classifier {
    /// Direct hashing into `flows` buckets, or `ways`-way set-associative when `ways` > 0
    /// (`ways` divides `flows`, as the parameter check ensures).
    pub fn new(flows: u32, perturbation: u32, ways: u32) -> Self {
        Classifier {
            flows,
            perturbation,
            ways,
            tags: if ways > 0 {
                vec![NONE; flows as usize]
            } else {
                Vec::new()
            },
        }
    }

    /// The bucket of `pkt`. `free(b)` tells whether bucket `b`'s flow queue is unused or idle
    /// (no packets, in no list), so that the set-associative table may give it to another
    /// flow: a way is taken when it holds this flow's tag or is free, in way order; with every
    /// way busy with other flows, the set's first way is shared.
    pub fn bucket(&mut self, pkt: &Packet, free: impl Fn(u32) -> bool) -> u32 {
        self.bucket_of_key(flow_key(pkt), free)
    }

    /// The bucket of classification key `key` (a flow's, or a host's under CAKE's host
    /// modes), as [`Classifier::bucket`].
    pub fn bucket_of_key(&mut self, key: u64, free: impl Fn(u32) -> bool) -> u32 {
        let hash = key_hash(key, self.perturbation);
        let h = hash % self.flows;
        if self.ways == 0 {
            return h;
        }
        let first = h - h % self.ways;
        let chosen = (first..first + self.ways)
            .find(|&b| self.tags[b as usize] == hash || free(b))
            .unwrap_or(first);
        self.tags[chosen as usize] = hash;
        chosen
    }

    /// The bucket of `key` as Linux CAKE's `cake_hash` chooses it: the hashed way when it
    /// holds this key's tag, else the first way, from the hashed one round the set, that holds
    /// the tag, else the first from there that is `free`, else the hashed way (a collision).
    pub fn bucket_of_key_cake(&mut self, key: u64, free: impl Fn(u32) -> bool) -> u32 {
        let hash = key_hash(key, self.perturbation);
        let h = hash % self.flows;
        let (start, ways_n) = (h % self.ways, self.ways);
        let first = h - start;
        // The ways from the hashed one round the set, wrapping without a division.
        let ways = (0..ways_n).map(move |i| {
            let way = start + i;
            first + if way < ways_n { way } else { way - ways_n }
        });
        let chosen = ways
            .clone()
            .find(|&b| self.tags[b as usize] == hash)
            .or_else(|| ways.clone().find(|&b| free(b)))
            .unwrap_or(h);
        self.tags[chosen as usize] = hash;
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32) -> Packet {
        Packet::data(flow, 0, 7, 1000, 0, 0)
    }

    #[test]
    fn the_hash_depends_on_the_seed_and_spreads_flows() {
        assert_ne!(
            key_hash(flow_key(&pkt(1)), 0),
            key_hash(flow_key(&pkt(1)), 1)
        );
        let mut c = Classifier::new(1024, 0, 0);
        let mut used = std::collections::HashSet::new();
        for f in 0..1000 {
            used.insert(c.bucket(&pkt(f), |_| true));
        }
        // 1000 flows in 1024 buckets: about 1024·(1 − e^(−1000/1024)) ≈ 639 distinct.
        assert!((580..700).contains(&used.len()), "{}", used.len());
    }

    #[test]
    fn set_associative_hashing_gives_each_flow_its_own_way_while_one_is_free() {
        // 8 buckets in one set of 8: 8 flows get 8 different ways; a ninth shares way 0.
        let mut c = Classifier::new(8, 0, 8);
        let mut busy = [false; 8];
        for f in 0..8 {
            let b = c.bucket(&pkt(f), |b| !busy[b as usize]);
            assert!(!busy[b as usize]);
            busy[b as usize] = true;
        }
        assert_eq!(c.bucket(&pkt(100), |b| !busy[b as usize]), 0);
        // A flow keeps its way.
        let again = c.bucket(&pkt(3), |b| !busy[b as usize]);
        assert_eq!(c.tags[again as usize], key_hash(flow_key(&pkt(3)), 0));
    }

    #[test]
    fn cake_hashing_prefers_the_tag_then_an_idle_way_then_the_hashed_way() {
        let mut c = Classifier::new(8, 0, 8);
        let hashed = key_hash(flow_key(&pkt(5)), 0) % 8;
        // Every way idle: the hashed way.
        assert_eq!(c.bucket_of_key_cake(flow_key(&pkt(5)), |_| true), hashed);
        // Its tag is found again even with every way busy.
        assert_eq!(c.bucket_of_key_cake(flow_key(&pkt(5)), |_| false), hashed);
        // Another key, every way busy: it collides on its own hashed way.
        let other = flow_key(&pkt(6));
        let other_hashed = key_hash(other, 0) % 8;
        assert_eq!(c.bucket_of_key_cake(other, |_| false), other_hashed);
        // Only way 3 idle: taken, by a third key.
        let third = flow_key(&pkt(7));
        assert_eq!(c.bucket_of_key_cake(third, |b| b == 3), 3);
    }
}
