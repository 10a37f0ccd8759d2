//! A queue's byte limit is 0 (none) or holds at least the largest packet of the run: TCP's
//! `packet_bytes` (a group's own included) and every UDP source's `packet_bytes`. A smaller one
//! would drop every such packet, so it is refused with one line naming the key.

mod common;

use common::{error, m, run};

/// A dumbbell with `extra` appended (its `[queue]` is written by the caller).
fn dumbbell(extra: &str) -> String {
    format!(
        "duration_s = 2.0\n[topology]\nbottleneck_rate_mbps = 10.0\n\
         [traffic.schedule]\nkind = \"constant\"\nflows = 2\n{extra}"
    )
}

/// A chain A - B - C whose links carry `link0` and `link1` (TOML inline-table keys).
fn chain(link0: &str, link1: &str, queue: &str) -> String {
    format!(
        "duration_s = 2.0\n[topology]\nkind = \"chain\"\nrouters = [\"A\", \"B\", \"C\"]\n\
         [[topology.links]]\nrate_mbps = 10.0\ndelay_ms = 2.0\n{link0}\n\
         [[topology.links]]\nrate_mbps = 10.0\ndelay_ms = 2.0\n{link1}\n\
         [queue]\n{queue}\n\
         [traffic.schedule]\nkind = \"constant\"\nflows = 2\n"
    )
}

#[test]
fn a_byte_limit_below_one_packet_is_refused() {
    assert_eq!(
        error(&dumbbell("[queue]\nlimit_bytes = 10\n")),
        "queue.limit_bytes: must be 0 (no byte limit) or at least one packet (1000 bytes here), \
         got 10"
    );
    assert_eq!(
        error(&dumbbell("[queue]\nlimit_bytes = 999\n")),
        "queue.limit_bytes: must be 0 (no byte limit) or at least one packet (1000 bytes here), \
         got 999"
    );
    // The ns2 preset's packets are 1040 bytes.
    assert!(error(&dumbbell(
        "[queue]\nlimit_bytes = 1000\n[tcp]\npreset = \"ns2\"\n"
    ))
    .ends_with("at least one packet (1040 bytes here), got 1000"));
}

#[test]
fn zero_means_no_byte_limit_and_one_packet_is_enough() {
    let none = run(&dumbbell("[queue]\nlimit_bytes = 0\n"));
    assert!(m(&none, "data_delivered") > 100.0);
    assert!(sim::resolve_scenario(&dumbbell("[queue]\nlimit_bytes = 1000\n"), &[]).is_ok());
    // A buffer of five packets' bytes delivers, and holds at most five packets.
    let five = run(&dumbbell("[queue]\nlimit_bytes = 5000\n"));
    assert!(m(&five, "data_delivered") > 100.0);
    assert!(m(&five, "max_queue_pkts") <= 5.0);
    assert!(m(&five, "overflow_drop_rate") > 0.0);
}

#[test]
fn each_link_queue_is_checked_where_it_sets_its_limit() {
    let small = "must be 0 (no byte limit) or at least one packet (1000 bytes here), got 500";
    assert_eq!(
        error(&chain("queue = { limit_bytes = 500 }", "", "")),
        format!("topology.links[0].queue.limit_bytes: {small}")
    );
    assert_eq!(
        error(&chain("", "reverse_queue = { limit_bytes = 500 }", "")),
        format!("topology.links[1].reverse_queue.limit_bytes: {small}")
    );
    // A link that does not set its own takes [queue]'s, which is checked as [queue].
    assert_eq!(
        error(&chain("", "", "limit_bytes = 500")),
        format!("queue.limit_bytes: {small}")
    );
    // A link may lift a limit of [queue] it would otherwise inherit, or lower it to a packet.
    assert!(sim::resolve_scenario(
        &chain(
            "queue = { limit_bytes = 1000 }",
            "reverse_queue = { limit_bytes = 0 }",
            "limit_bytes = 3000"
        ),
        &[]
    )
    .is_ok());
}

#[test]
fn the_largest_packet_of_any_group_counts() {
    let groups = |udp_bytes: u32, tcp_bytes: u32| {
        format!(
            "duration_s = 2.0\n[queue]\nlimit_bytes = 1200\n\
             [[traffic.groups]]\nname = \"tcp\"\n[traffic.groups.schedule]\nkind = \"constant\"\n\
             flows = 1\n[traffic.groups.tcp]\npacket_bytes = {tcp_bytes}\n\
             [[traffic.groups]]\nname = \"udp\"\ntransport = \"udp\"\n\
             [traffic.groups.source]\nkind = \"cbr\"\nrate_kbps = 100.0\npacket_bytes = {udp_bytes}\n\
             [traffic.groups.schedule]\nkind = \"constant\"\nflows = 1\n"
        )
    };
    assert!(sim::resolve_scenario(&groups(1200, 1000), &[]).is_ok());
    assert!(error(&groups(1500, 1000))
        .starts_with("queue.limit_bytes: must be 0 (no byte limit) or at least one packet (1500 bytes here), got 1200"));
    assert!(error(&groups(500, 1300)).ends_with("(1300 bytes here), got 1200"));
    // An override is checked the same way.
    let e = sim::resolve_scenario(
        &groups(500, 1000),
        &[("queue.limit_bytes".into(), "10".into())],
    )
    .unwrap_err()
    .to_string();
    assert!(e.ends_with("(1000 bytes here), got 10"), "{e}");
}
