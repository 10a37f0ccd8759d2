//! An AQM that says it never decides at dequeue ([`Aqm::decides_at_dequeue`] false) lets its
//! host send a packet on as soon as it joins; a drop or a mark at dequeue would then be lost.
//! Every AQM of the registry, with its defaults (a flow-queueing AQM as one flow queue's), is
//! driven through a queue that fills, overflows and drains, and each one that says `false`
//! must deliver every departure. CoDel and COBALT, which do decide at dequeue, must say so.

use aqm::params::AqmParams;
use aqm::registry::{for_each, ParamsVisitor};
use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, LinkContext, PacketView, QueueView, Rng};

const LINK: LinkContext = LinkContext {
    rate_bps: 10e6,
    buffer_pkts: 100,
};

fn queue(len_pkts: u32) -> QueueView {
    QueueView {
        len_pkts,
        len_bytes: u64::from(len_pkts) * 1000,
        limit_pkts: LINK.buffer_pkts,
        limit_bytes: 0,
        rate_bps: LINK.rate_bps,
    }
}

/// Arrivals at twice the link rate for 2 s, then none for 2 s, three times over, ECN-capable
/// or not: returns how many departures were not delivered.
fn undelivered(aqm: &mut dyn Aqm, ect: bool) -> usize {
    let mut rng = Rng::from_seed(7);
    let (mut len, mut joined) = (0u32, std::collections::VecDeque::new());
    let (mut next_departure_ns, mut not_delivered) = (0u64, 0);
    let pkt = PacketView {
        size_bytes: 1000,
        ect,
    };
    let step_ns = 400_000; // one arrival per 0.4 ms: 20 Mb/s of 1000-byte packets
    for tick in 0..30_000u64 {
        let now_ns = tick * step_ns;
        while let Some(t) = aqm.next_timer_ns().filter(|&t| t <= now_ns) {
            aqm.on_timer(t, &queue(len), &mut rng);
        }
        while len > 0 && next_departure_ns <= now_ns {
            len -= 1;
            let at: u64 = joined.pop_front().expect("a queued packet");
            let t = next_departure_ns;
            if aqm.on_dequeue(t, t - at, pkt, &queue(len), &mut rng) != DequeueVerdict::Deliver {
                not_delivered += 1;
            }
            next_departure_ns = t + 800_000; // 1000 bytes at 10 Mb/s
        }
        if len == 0 && next_departure_ns <= now_ns {
            // The link is idle: it asks, finds nothing, and a packet joining now leaves now.
            aqm.on_empty(now_ns);
            next_departure_ns = now_ns;
        }
        if (tick / 5000) % 2 == 1 {
            continue; // the idle half of the cycle
        }
        match aqm.on_enqueue(now_ns, pkt, &queue(len), &mut rng) {
            EnqueueVerdict::Accept if len < LINK.buffer_pkts => {
                len += 1;
                joined.push_back(now_ns);
            }
            EnqueueVerdict::Accept => aqm.on_overflow(now_ns),
            EnqueueVerdict::EarlyDrop | EnqueueVerdict::ForcedDrop => {}
        }
    }
    not_delivered
}

/// Per AQM: its name, whether it says it decides at dequeue, and how many departures it did
/// not deliver.
struct Check(Vec<(&'static str, bool, usize)>);

impl ParamsVisitor for Check {
    fn visit<P: AqmParams>(&mut self) {
        let Ok(mut aqm) = P::default().build(LINK) else {
            return; // an AQM that needs more than a link to build has no default instance
        };
        let not_delivered = undelivered(aqm.as_mut(), false) + undelivered(aqm.as_mut(), true);
        self.0
            .push((P::AQM, aqm.decides_at_dequeue(), not_delivered));
    }
}

#[test]
fn an_aqm_that_says_it_never_decides_at_dequeue_delivers_every_departure() {
    let mut check = Check(Vec::new());
    for_each(&mut check);
    for &(name, decides, not_delivered) in &check.0 {
        assert!(
            decides || not_delivered == 0,
            "{name} says it never decides at dequeue"
        );
    }
    let says = |name: &str| check.0.iter().find(|c| c.0 == name).copied();
    // The drive makes the sojourn-time AQMs act at dequeue, so a wrong `false` would show.
    for name in ["codel", "cobalt"] {
        let (_, decides, not_delivered) = says(name).unwrap();
        assert!(decides && not_delivered > 0, "{name} decides at dequeue");
    }
    for name in ["droptail", "red", "ared", "betared", "pie", "pi", "rem"] {
        assert!(!says(name).unwrap().1, "{name} decides on arrival only");
    }
}
