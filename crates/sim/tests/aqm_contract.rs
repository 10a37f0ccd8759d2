//! The AQM contract as the simulator drives it: a hand-written AQM that drops at dequeue and
//! runs a periodic timer proves those paths, and sees the queue and RNG it is promised.

use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView, Rng};
use sim::result::RunResult;
use sim::Simulation;
use std::cell::RefCell;
use std::convert::Infallible;
use std::rc::Rc;

/// What the test AQM observed.
#[derive(Default)]
struct Seen {
    enqueues: u64,
    dequeue_drops: u64,
    timer_calls: u64,
    last_timer_ns: u64,
    max_len_seen: u32,
    limit_seen: u32,
    sojourn_over: u64,
}

/// Drops at dequeue every packet that waited longer than 20 ms; a 100 ms timer counts.
struct SojournCap {
    seen: Rc<RefCell<Seen>>,
    next_timer_ns: u64,
}

impl Aqm for SojournCap {
    fn name(&self) -> &'static str {
        "sojourn-cap"
    }
    fn on_enqueue(
        &mut self,
        _: u64,
        _: PacketView,
        q: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        let mut s = self.seen.borrow_mut();
        s.enqueues += 1;
        s.max_len_seen = s.max_len_seen.max(q.len_pkts);
        s.limit_seen = q.limit_pkts;
        assert!((0.0..1.0).contains(&rng.uniform()));
        EnqueueVerdict::Accept
    }
    fn on_dequeue(
        &mut self,
        _: u64,
        sojourn_ns: u64,
        _: PacketView,
        _: &QueueView,
        _: &mut Rng,
    ) -> DequeueVerdict {
        if sojourn_ns > 20_000_000 {
            let mut s = self.seen.borrow_mut();
            s.dequeue_drops += 1;
            s.sojourn_over += 1;
            return DequeueVerdict::EarlyDrop;
        }
        DequeueVerdict::Deliver
    }
    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.next_timer_ns)
    }
    fn on_timer(&mut self, now_ns: u64, _: &QueueView, _: &mut Rng) {
        let mut s = self.seen.borrow_mut();
        assert_eq!(now_ns, self.next_timer_ns, "the timer fires when asked");
        s.timer_calls += 1;
        s.last_timer_ns = now_ns;
        self.next_timer_ns += 100_000_000;
    }
    fn probe_names(&self) -> &'static [&'static str] {
        &["timer_calls"]
    }
    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.seen.borrow().timer_calls as f64);
    }
}

fn run_with(seen: Rc<RefCell<Seen>>) -> RunResult {
    let text = r#"
        duration_s = 10.0
        [topology]
        bottleneck_rate_mbps = 5.0
        [queue]
        limit_pkts = 200
        [traffic.schedule]
        kind = "constant"
        flows = 20
    "#;
    let sc = sim::scenario::load(text, &[]).unwrap();
    let aqm = Box::new(SojournCap {
        seen,
        next_timer_ns: 100_000_000,
    });
    Simulation::with_aqm(sc, aqm)
        .unwrap()
        .run(|_| Ok::<(), Infallible>(()))
        .unwrap()
}

#[test]
fn dequeue_drops_timer_and_probes_reach_the_aqm() {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let r = run_with(seen.clone());
    let s = seen.borrow();
    assert_eq!(s.timer_calls, 100, "every 100 ms from 0.1 s to 10 s");
    assert_eq!(s.last_timer_ns, 10_000_000_000);
    assert!(s.dequeue_drops > 0);
    assert_eq!(s.limit_seen, 200);
    // 20 ms at 5 Mb/s is 12.5 packets of 1000 B: the cap keeps the queue short.
    assert!(r.metric("avg_queue_pkts").unwrap() < 25.0);
    assert_eq!(
        r.metric("bottleneck_drops").unwrap(),
        s.dequeue_drops as f64
    );
    assert_eq!(
        r.metric("early_drop_rate").unwrap(),
        r.metric("drop_rate").unwrap(),
        "dequeue drops count as early drops"
    );
    let calls = r.timeseries.floats("aqm_timer_calls").unwrap();
    assert!(calls.windows(2).all(|w| w[1] >= w[0]) && calls[calls.len() - 1] >= 99.0);
    assert_eq!(
        r.metric("data_sent").unwrap(),
        r.metric("data_delivered").unwrap()
            + r.metric("data_dropped").unwrap()
            + r.metric("data_in_flight").unwrap()
    );
}
