//! Flow groups (`[[traffic.groups]]`): each group's schedule, start jitter, access delays and
//! TCP settings apply to its flows only; the file's one `[traffic.schedule]` is one group; and
//! mistakes name the group's key.

mod common;

use common::{check_invariants, m};
use sim::result::RunResult;
use std::convert::Infallible;

const BASE: &str = r#"
duration_s = 6.0
seed = 3
[topology]
bottleneck_rate_mbps = 10.0
sender_delay_ms = 2.0
[queue]
aqm = "red"
limit_pkts = 100
[queue.red]
q_min_pkts = 10.0
q_max_pkts = 60.0
[tcp]
preset = "ns2"
[traffic]
start_jitter_s = 0.2
"#;

const GROUPS: &str = r#"
[[traffic.groups]]
name = "near"
[traffic.groups.schedule]
kind = "constant"
flows = 4

[[traffic.groups]]
name = "far"
sender_delay_ms = { list = [40.0, 60.0] }
start_jitter_s = 0.0
[traffic.groups.schedule]
kind = "events"
events = [{ t_s = 1.0, add = 3 }, { t_s = 4.0, remove = 1 }]
[traffic.groups.tcp]
recovery = "newreno"
rwnd_pkts = 5
"#;

fn run(text: &str) -> RunResult {
    sim::run_scenario(text, &[], None, |_| Ok::<(), Infallible>(()))
        .unwrap_or_else(|e| panic!("run failed: {e:?}"))
}

fn err(text: &str) -> String {
    let line = sim::resolve_scenario(text, &[])
        .expect_err("must be rejected")
        .to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

#[test]
fn each_group_gets_its_schedule_delays_and_tcp() {
    let r = run(&format!("{BASE}{GROUPS}"));
    check_invariants(&r, 100.0, 10e6, 1040.0);
    let group = r.flows.ints("group").unwrap();
    assert_eq!(group, [0, 0, 0, 0, 1, 1, 1]);
    let start = r.flows.floats("start_s").unwrap();
    let stop = r.flows.floats("stop_s").unwrap();
    assert!(start[..4].iter().all(|&s| s <= 0.2), "the default jitter");
    assert_eq!(start[4..], [1.0, 1.0, 1.0], "the group's own jitter, 0");
    assert_eq!(stop[6], 4.0, "the group's last flow is the one removed");
    assert!(stop[..6].iter().all(|s| s.is_nan()));
    // 2·(sender + 10 ms bottleneck + 1 ms receiver): the topology's 2 ms, or the group's list.
    let rtt = r.flows.floats("rtt_prop_ms").unwrap();
    assert_eq!(rtt[..4], [26.0; 4]);
    assert_eq!(rtt[4..], [102.0, 142.0, 102.0]);
    // The far flows' 5-segment window caps each at 5 packets per 102–142 ms RTT.
    let tput = r.flows.floats("throughput_mbps").unwrap();
    assert!(tput[4..]
        .iter()
        .all(|&x| x < 5.0 * 1000.0 * 8.0 / 0.102 / 1e6));
    assert!(tput[..4].iter().all(|&x| x > tput[5]));
    // The group table splits the summary's throughput between the groups.
    assert_eq!(r.groups.ints("flows").unwrap(), [4, 3]);
    let g = r.groups.floats("throughput_mbps").unwrap();
    assert!((g[0] + g[1] - m(&r, "throughput_mbps")).abs() < 1e-9);
    assert!(
        g[0] > g[1],
        "four uncapped flows carry more than three capped ones"
    );
    let jain = r.groups.floats("jain_fairness").unwrap();
    assert!(jain.iter().all(|j| (0.0..=1.0).contains(j)));
    let delay = r.groups.floats("delay_mean_ms").unwrap();
    assert!(
        delay[1] > delay[0] + 30.0,
        "the far group's packets travel 50 ms longer"
    );
}

#[test]
fn one_schedule_is_one_group_and_resolves_as_before() {
    let single = format!("{BASE}[traffic.schedule]\nkind = \"constant\"\nflows = 4\n");
    let text = sim::resolve_scenario(&single, &[]).unwrap();
    assert!(text.contains("[traffic.schedule]") && !text.contains("groups"));
    let r = run(&single);
    assert_eq!(r.flows.ints("group").unwrap(), [0, 0, 0, 0]);
    assert_eq!(r.groups.ints("flows").unwrap(), [4]);
    assert_eq!(
        r.groups.floats("jain_fairness").unwrap(),
        [m(&r, "jain_fairness")]
    );
    // The same flows written as one group run identically.
    let grouped = format!(
        "{BASE}[[traffic.groups]]\n[traffic.groups.schedule]\nkind = \"constant\"\nflows = 4\n"
    );
    let g = run(&grouped);
    // the same series, but for the goodput column's name: the group `all` here, `g0` there
    let mut renamed = g.timeseries.clone();
    for (name, _) in &mut renamed.columns {
        if name == "goodput_mbps_g0" {
            *name = "goodput_mbps_all".to_string();
        }
    }
    assert_eq!(format!("{:?}", r.timeseries), format!("{:?}", renamed));
    assert_eq!(m(&r, "drop_rate"), m(&g, "drop_rate"));
}

#[test]
fn groups_resolve_to_text_that_reads_back_the_same() {
    let text = sim::resolve_scenario(&format!("{BASE}{GROUPS}"), &[]).unwrap();
    assert!(text.contains("[[traffic.groups]]"));
    assert!(text.contains("name = \"far\""));
    assert_eq!(sim::resolve_scenario(&text, &[]).unwrap(), text);
}

#[test]
fn group_mistakes_name_the_key() {
    let both = format!("{BASE}{GROUPS}[traffic.schedule]\nkind = \"constant\"\nflows = 1\n");
    assert!(err(&both).starts_with("traffic.schedule: use traffic.schedule"));
    let twice = format!("{BASE}{GROUPS}").replace("name = \"far\"", "name = \"near\"");
    assert_eq!(
        err(&twice),
        "traffic.groups[1].name: \"near\" names an earlier group too"
    );
    let bad_tcp = format!("{BASE}{GROUPS}").replace("rwnd_pkts = 5", "rwnd_pkts = 0");
    assert!(err(&bad_tcp).starts_with("traffic.groups[1].tcp.rwnd_pkts: "));
    let unknown = format!("{BASE}{GROUPS}").replace("start_jitter_s = 0.0", "jitter = 0.0");
    assert!(err(&unknown).starts_with("traffic.groups[1].jitter: unknown key"));
    let no_schedule = format!("{BASE}[[traffic.groups]]\nname = \"a\"\n");
    assert!(err(&no_schedule).starts_with("traffic.groups[0].schedule.kind: is required"));
    let empty = format!("{BASE}groups = []\n");
    let line = err(&empty);
    assert!(line.starts_with("traffic.groups: "), "{line}");
}

#[test]
fn a_flow_duration_stops_each_flow_that_long_after_its_start() {
    let text = format!(
        "{BASE}[[traffic.groups]]\nname = \"short\"\nflow_duration_s = {{ uniform = [1.0, 2.0] }}\n\
         [traffic.groups.schedule]\nkind = \"random\"\nflows = 6\nstart_window_s = [0.0, 3.0]\n"
    );
    let r = run(&text);
    let start = r.flows.floats("start_s").unwrap();
    let stop = r.flows.floats("stop_s").unwrap();
    for (a, b) in start.iter().zip(stop) {
        assert!((1.0..=2.0).contains(&(b - a)), "ran {} s", b - a);
    }
    let text = sim::resolve_scenario(&text, &[]).unwrap();
    let groups = text.parse::<toml::Table>().unwrap()["traffic"]["groups"].clone();
    assert_eq!(
        groups[0]["flow_duration_s"]["uniform"],
        toml::Value::Array(vec![1.0.into(), 2.0.into()])
    );
    assert_eq!(sim::resolve_scenario(&text, &[]).unwrap(), text);
    let bad = format!("{BASE}{GROUPS}").replace("start_jitter_s = 0.0", "flow_duration_s = -1.0");
    assert_eq!(
        err(&bad),
        "traffic.groups[1].flow_duration_s: must be a number of s in [0, 1000000000], \
         { uniform = [lo, hi] } or { list = [..] }"
    );
}
