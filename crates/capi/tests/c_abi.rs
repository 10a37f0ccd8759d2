//! The C ABI as a C host uses it: create, step, read the state, free; and every kind of bad
//! input answered with a status and a message, never a crash.

use aqmlab::*;
use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

/// `text` of the library as a Rust string.
fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// AQM `name` with `params` for 1000 packets at 50 Mb/s, or the error message.
fn new(name: &[u8], params: &[u8]) -> Result<*mut AqmlabAqm, String> {
    let (name, params) = (CString::new(name).unwrap(), CString::new(params).unwrap());
    let mut error = [0 as c_char; 256];
    let aqm = unsafe {
        aqmlab_aqm_new(
            name.as_ptr(),
            params.as_ptr(),
            1000,
            50e6,
            1,
            error.as_mut_ptr(),
            error.len(),
        )
    };
    if aqm.is_null() {
        Err(text(error.as_ptr()))
    } else {
        Ok(aqm)
    }
}

/// The handle's state value called `name`.
fn probe(aqm: *mut AqmlabAqm, name: &str) -> f64 {
    let mut values = [f64::NAN; 16];
    let n = unsafe { aqmlab_aqm_probe(aqm, values.as_mut_ptr(), values.len()) };
    assert!(n > 0);
    let index = (0..n as usize)
        .find(|&i| text(unsafe { aqmlab_aqm_probe_name(aqm, i) }) == name)
        .unwrap_or_else(|| panic!("no state value {name}"));
    values[index]
}

#[test]
fn red_averages_the_queue_and_drops_early_above_q_min() {
    let aqm = new(b"red", b"q_min_pkts=5, q_max_pkts=15 p_max=0.5;w=0.5").unwrap();
    assert_eq!(text(unsafe { aqmlab_aqm_name(aqm) }), "red");
    assert_eq!(unsafe { aqmlab_aqm_decides_at_dequeue(aqm) }, 0);
    assert_eq!(text(unsafe { aqmlab_aqm_error(aqm) }), "");
    let mut verdicts = [0; 3];
    for i in 0..200u64 {
        let v = unsafe { aqmlab_aqm_enqueue(aqm, i * 1000, 1000, false, 12, 12_000) };
        verdicts[v as usize] += 1;
    }
    // The average settles at 12 packets, between the thresholds: some early drops, no forced.
    assert!((probe(aqm, "q_avg") - 12.0).abs() < 1e-6);
    let p = probe(aqm, "p");
    assert!(p > 0.0 && p <= 1.0, "{p}");
    assert!(verdicts[AQMLAB_EARLY_DROP as usize] > 0, "{verdicts:?}");
    assert_eq!(verdicts[AQMLAB_FORCED_DROP as usize], 0);
    unsafe { aqmlab_aqm_free(aqm) };
}

#[test]
fn codel_decides_at_dequeue_and_pie_runs_its_timer() {
    let codel = new(b"codel", b"").unwrap();
    assert_eq!(unsafe { aqmlab_aqm_decides_at_dequeue(codel) }, 1);
    // Sojourns of 50 ms for a second and more: CoDel starts dropping after its 100 ms interval.
    let drops = (0..2000u64)
        .map(|i| {
            let now = 1_000_000_000 + i * 1_000_000;
            unsafe { aqmlab_aqm_dequeue(codel, now, 50_000_000, 1500, false, 40, 60_000) }
        })
        .filter(|&v| v == AQMLAB_EARLY_DROP)
        .count();
    assert!(drops > 0);
    unsafe { aqmlab_aqm_free(codel) };

    let pie = new(b"pie", b"").unwrap();
    let mut at = u64::MAX;
    assert_eq!(unsafe { aqmlab_aqm_next_timer(pie, &mut at) }, 1);
    assert_eq!(
        unsafe { aqmlab_aqm_timer(pie, at, 100, 100_000) },
        AQMLAB_OK
    );
    // The next update comes later; early is refused, on time is done.
    let mut next = 0u64;
    assert_eq!(unsafe { aqmlab_aqm_next_timer(pie, &mut next) }, 1);
    assert!(next > at);
    assert_eq!(
        unsafe { aqmlab_aqm_timer(pie, next - 1, 100, 100_000) },
        AQMLAB_ERR_ARGUMENT
    );
    assert!(text(unsafe { aqmlab_aqm_error(pie) }).starts_with("now_ns: the timer is due"));
    assert_eq!(
        unsafe { aqmlab_aqm_timer(pie, next, 100, 100_000) },
        AQMLAB_OK
    );
    // No departures seen: no rate estimate, no queueing delay, no probability yet.
    assert_eq!(probe(pie, "p"), 0.0);
    unsafe { aqmlab_aqm_free(pie) };
}

#[test]
fn every_listed_aqm_builds_with_its_defaults() {
    let names = text(aqmlab_aqm_names());
    assert!(names.contains("betared") && names.contains("codel"));
    assert!(!names.contains("fq_codel") && !names.contains("dualpi2"));
    for name in names.split(", ") {
        let aqm = new(name.as_bytes(), b"").unwrap_or_else(|e| panic!("{name}: {e}"));
        unsafe { aqmlab_aqm_free(aqm) };
    }
    assert!(!text(aqmlab_version()).is_empty());
}

#[test]
fn bad_names_and_parameters_get_one_line_messages() {
    let unknown = new(b"reed", b"").unwrap_err();
    assert!(unknown.starts_with("aqm: "), "{unknown}");
    assert!(unknown.contains("red"), "{unknown}");
    assert_eq!(
        new(b"red", b"p_max=3").unwrap_err(),
        "red.p_max: must be in (0, 1]"
    );
    assert!(new(b"red", b"pmax=0.1")
        .unwrap_err()
        .starts_with("red.pmax: unknown key; allowed here: "));
    assert!(new(b"red", b"p_max").unwrap_err().contains("key=value"));
    assert!(new(b"red", b"p_max=nan")
        .unwrap_err()
        .starts_with("red.p_max"));
    assert!(new(b"fq_codel", b"")
        .unwrap_err()
        .contains("multi-queue discipline"));
    // Not UTF-8, in the name and in the parameters.
    assert_eq!(new(b"r\xffd", b"").unwrap_err(), "aqm: is not UTF-8 text");
    assert_eq!(
        new(b"red", b"p_max=\xff").unwrap_err(),
        "red: is not UTF-8 text"
    );
    assert!(!unknown.contains('\n'));
}

#[test]
fn a_short_error_buffer_gets_the_message_cut_and_terminated() {
    let name = CString::new("reed").unwrap();
    let mut error = [1 as c_char; 8];
    let aqm =
        unsafe { aqmlab_aqm_new(name.as_ptr(), null(), 1000, 50e6, 1, error.as_mut_ptr(), 8) };
    assert!(aqm.is_null());
    assert_eq!(text(error.as_ptr()), "aqm: un");
    // No buffer at all, a zero limit, a bad rate.
    let aqm = unsafe { aqmlab_aqm_new(name.as_ptr(), null(), 1000, 50e6, 1, null_mut(), 0) };
    assert!(aqm.is_null());
    let red = CString::new("red").unwrap();
    let mut error = [0 as c_char; 128];
    for (limit, rate) in [
        (0, 50e6),
        (1000, 0.0),
        (1000, f64::NAN),
        (1000, f64::INFINITY),
    ] {
        let aqm = unsafe {
            aqmlab_aqm_new(
                red.as_ptr(),
                null(),
                limit,
                rate,
                1,
                error.as_mut_ptr(),
                128,
            )
        };
        assert!(aqm.is_null());
        let message = text(error.as_ptr());
        assert!(
            message.starts_with("limit_pkts") || message.starts_with("rate_bps"),
            "{message}"
        );
    }
}

#[test]
fn null_pointers_are_refused() {
    let mut error = [0 as c_char; 128];
    let aqm = unsafe { aqmlab_aqm_new(null(), null(), 1000, 50e6, 1, error.as_mut_ptr(), 128) };
    assert!(aqm.is_null());
    assert_eq!(text(error.as_ptr()), "aqm: is a null pointer");
    let none: *mut AqmlabAqm = null_mut();
    unsafe {
        assert_eq!(
            aqmlab_aqm_enqueue(none, 0, 1000, false, 0, 0),
            AQMLAB_ERR_NULL
        );
        assert_eq!(
            aqmlab_aqm_dequeue(none, 0, 0, 1000, false, 0, 0),
            AQMLAB_ERR_NULL
        );
        assert_eq!(aqmlab_aqm_overflow(none, 0), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_empty(none, 0), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_timer(none, 0, 0, 0), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_decides_at_dequeue(none), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_probe(none, null_mut(), 0), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_probe_count(none), 0);
        assert!(aqmlab_aqm_probe_name(none, 0).is_null());
        assert!(aqmlab_aqm_name(none).is_null());
        assert!(aqmlab_aqm_error(none).is_null());
        let mut at = 0;
        assert_eq!(aqmlab_aqm_next_timer(none, &mut at), AQMLAB_ERR_NULL);
        aqmlab_aqm_free(none);
    }
    let red = new(b"red", b"").unwrap();
    unsafe {
        assert_eq!(aqmlab_aqm_next_timer(red, null_mut()), AQMLAB_ERR_NULL);
        assert_eq!(aqmlab_aqm_probe(red, null_mut(), 4), AQMLAB_ERR_NULL);
        // Capacity 0 asks only for the count.
        assert_eq!(
            aqmlab_aqm_probe(red, null_mut(), 0) as usize,
            aqmlab_aqm_probe_count(red)
        );
        assert!(aqmlab_aqm_probe_name(red, 99).is_null());
        aqmlab_aqm_free(red);
    }
}

#[test]
fn calls_that_break_the_contract_are_refused_and_leave_the_aqm_usable() {
    let red = new(b"red", b"").unwrap();
    let error = || text(unsafe { aqmlab_aqm_error(red) });
    unsafe {
        assert_eq!(
            aqmlab_aqm_enqueue(red, 5_000, 1000, false, 0, 0),
            AQMLAB_ACCEPT
        );
        assert_eq!(
            aqmlab_aqm_enqueue(red, 4_999, 1000, false, 0, 0),
            AQMLAB_ERR_ARGUMENT
        );
        assert_eq!(
            error(),
            "now_ns: time went backwards (4999 ns after 5000 ns)"
        );
        assert_eq!(
            aqmlab_aqm_enqueue(red, 6_000, 1000, false, 1001, 1_001_000),
            AQMLAB_ERR_ARGUMENT
        );
        assert_eq!(
            error(),
            "queue_pkts: must be at most limit_pkts (1000), got 1001"
        );
        assert_eq!(
            aqmlab_aqm_enqueue(red, 6_000, 1000, false, 3, 2),
            AQMLAB_ERR_ARGUMENT
        );
        assert!(error().starts_with("queue_bytes: "));
        assert_eq!(
            aqmlab_aqm_enqueue(red, 6_000, 0, false, 0, 0),
            AQMLAB_ERR_ARGUMENT
        );
        assert_eq!(error(), "size_bytes: must be at least 1");
        assert_eq!(
            aqmlab_aqm_dequeue(red, 6_000, 7_000, 1000, false, 0, 0),
            AQMLAB_ERR_ARGUMENT
        );
        assert!(error().starts_with("sojourn_ns: "));
        assert_eq!(aqmlab_aqm_timer(red, 6_000, 0, 0), AQMLAB_ERR_ARGUMENT);
        assert_eq!(error(), "now_ns: red has no timer due");
        // A good call clears the message.
        assert_eq!(
            aqmlab_aqm_enqueue(red, 6_000, 1000, true, 1, 1000),
            AQMLAB_ACCEPT
        );
        assert_eq!(error(), "");
        assert_eq!(aqmlab_aqm_overflow(red, 6_000), AQMLAB_OK);
        assert_eq!(aqmlab_aqm_empty(red, 7_000), AQMLAB_OK);
        aqmlab_aqm_free(red);
    }
}
