//! The C ABI over aqmlab's AQMs, for hosts written in C or C++ (the ns-3 queue disc
//! `AqmlabQueueDisc`, docs/ns3.md). The header `include/aqmlab.h` is generated from this file
//! by cbindgen (`tests/header.rs` checks it is current).
//!
//! A host creates an AQM by name with its parameters as `key=value` text (the keys, ranges and
//! one-line errors of the scenario format's `[queue.<aqm>]` table, paths
//! written inside `[queue]`: `red.p_max`), then follows the contract of
//! `aqm::contract` with no simulator type in sight: it asks for a decision on each arriving
//! packet and, for AQMs that decide at dequeue, on each departing one; it calls the timer when
//! the AQM asks for it; it tells the AQM of overflow drops and of an empty queue; it reads the
//! AQM's state (the averaged queue, the drop probability) by name. The host owns the packets
//! and the buffer. Only single-queue AQMs are offered here: the flow-queueing disciplines,
//! CAKE and DualPI2 hold packets of their own and run only inside aqmlab's simulator.
//!
//! Every function checks its arguments and returns a status instead of failing: a null
//! pointer, text that is not UTF-8, an unknown name or key, time going backwards or a queue
//! longer than its limit give a negative status (and, with a handle, a one-line message from
//! [`aqmlab_aqm_error`]); a panic never crosses into the host.

mod params_text;

use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView, Rng};
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

/// Decision on an arriving packet: let it into the buffer.
pub const AQMLAB_ACCEPT: i32 = 0;
/// Decision on a departing packet: send it.
pub const AQMLAB_DELIVER: i32 = 0;
/// A congestion signal: mark the packet CE when the queue and the packet use ECN, else drop it
/// (ns-3's "unforced" drop). At dequeue, ask again for the next packet after a drop.
pub const AQMLAB_EARLY_DROP: i32 = 1;
/// Drop the packet whatever ECN says (ns-3's "forced" drop). At dequeue, ask again.
pub const AQMLAB_FORCED_DROP: i32 = 2;
/// Decision on a departing packet: mark it CE when the queue and the packet use ECN, and send
/// it in any case.
pub const AQMLAB_MARK: i32 = 3;
/// Status: done.
pub const AQMLAB_OK: i32 = 0;
/// Status: a pointer argument was null.
pub const AQMLAB_ERR_NULL: i32 = -1;
/// Status: an argument was outside what is allowed; [`aqmlab_aqm_error`] says which and why.
pub const AQMLAB_ERR_ARGUMENT: i32 = -2;
/// Status: the AQM failed inside (a bug in aqmlab); [`aqmlab_aqm_error`] has its message.
pub const AQMLAB_ERR_INTERNAL: i32 = -3;

/// An AQM instance with its random stream, made by [`aqmlab_aqm_new`] and freed by
/// [`aqmlab_aqm_free`]. Opaque to the host.
pub struct AqmlabAqm {
    aqm: Box<dyn Aqm>,
    rng: Rng,
    limit_pkts: u32,
    rate_bps: f64,
    /// The time of the latest call, ns.
    last_now_ns: u64,
    name: CString,
    probe_names: Vec<CString>,
    probe_values: Vec<f64>,
    /// The message of the latest failed call, empty if none.
    error: CString,
}

static VERSION: LazyLock<CString> =
    LazyLock::new(|| CString::new(env!("CARGO_PKG_VERSION")).expect("no NUL in the version"));

static NAMES: LazyLock<CString> = LazyLock::new(|| {
    let names: Vec<&str> = aqm::registry::names()
        .iter()
        .copied()
        .filter(|name| !aqm::registry::is_flow_queueing(name))
        .collect();
    CString::new(names.join(", ")).expect("AQM names have no NUL")
});

/// aqmlab's version, such as `0.1.0`. The text is static.
#[no_mangle]
pub extern "C" fn aqmlab_version() -> *const c_char {
    VERSION.as_ptr()
}

/// The AQMs [`aqmlab_aqm_new`] can build, comma-separated (`droptail, red, ared, ...`). The
/// text is static.
#[no_mangle]
pub extern "C" fn aqmlab_aqm_names() -> *const c_char {
    NAMES.as_ptr()
}

/// `text` as UTF-8, or the message naming `what`.
///
/// # Safety
/// `text` is null or points at a NUL-terminated string.
unsafe fn utf8<'a>(what: &str, text: *const c_char) -> Result<&'a str, String> {
    if text.is_null() {
        return Err(format!("{what}: is a null pointer"));
    }
    CStr::from_ptr(text)
        .to_str()
        .map_err(|_| format!("{what}: is not UTF-8 text"))
}

/// AQM `name` with `params` (`key=value` pairs separated by spaces, commas or semicolons; empty
/// or null for the defaults) for a queue of `limit_pkts` packets (1 or more) feeding a link of
/// `rate_bps` bits per second (a number > 0), drawing its random numbers from stream `seed`
/// (aqmlab's stream for a simulated queue's AQM with that seed). Null on failure, with a
/// one-line message naming the field in `error` (when `error` is not null and `error_len` > 0;
/// cut to fit, always NUL-terminated), such as `red.p_max: must be in (0, 1]` (the
/// path inside the scenario format's `[queue]` table).
///
/// # Safety
/// `name` and `params` are null or NUL-terminated strings; `error` is null or points at
/// `error_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_new(
    name: *const c_char,
    params: *const c_char,
    limit_pkts: u32,
    rate_bps: f64,
    seed: u64,
    error: *mut c_char,
    error_len: usize,
) -> *mut AqmlabAqm {
    let built = catch_unwind(AssertUnwindSafe(|| {
        build(name, params, limit_pkts, rate_bps, seed)
    }))
    .unwrap_or_else(|_| Err("aqmlab: internal error while building the AQM".to_string()));
    match built {
        Ok(aqm) => Box::into_raw(Box::new(aqm)),
        Err(message) => {
            write_error(&message, error, error_len);
            std::ptr::null_mut()
        }
    }
}

/// The work of [`aqmlab_aqm_new`].
///
/// # Safety
/// As [`aqmlab_aqm_new`].
unsafe fn build(
    name: *const c_char,
    params: *const c_char,
    limit_pkts: u32,
    rate_bps: f64,
    seed: u64,
) -> Result<AqmlabAqm, String> {
    let name = utf8("aqm", name)?;
    let table = if params.is_null() {
        toml::Table::new()
    } else {
        params_text::parse(name, utf8(name, params)?)?
    };
    if limit_pkts == 0 {
        return Err("limit_pkts: must be an integer >= 1, got 0".to_string());
    }
    if !(rate_bps > 0.0 && rate_bps.is_finite()) {
        return Err(format!("rate_bps: must be a number > 0, got {rate_bps}"));
    }
    let aqm = sim::aqm_factory::build_named(name, table, limit_pkts, rate_bps)
        .map_err(|e| e.to_string())?;
    let probe_names = aqm
        .probe_names()
        .iter()
        .map(|n| CString::new(*n).expect("probe names have no NUL"))
        .collect();
    Ok(AqmlabAqm {
        name: CString::new(aqm.name()).expect("AQM names have no NUL"),
        aqm,
        rng: Rng::stream(seed, "aqm", 0),
        limit_pkts,
        rate_bps,
        last_now_ns: 0,
        probe_names,
        probe_values: Vec::new(),
        error: CString::default(),
    })
}

/// `message` into the host's buffer of `len` bytes, cut to fit at a character boundary.
///
/// # Safety
/// `buffer` is null or points at `len` writable bytes.
unsafe fn write_error(message: &str, buffer: *mut c_char, len: usize) {
    if buffer.is_null() || len == 0 {
        return;
    }
    let mut end = message.len().min(len - 1);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    std::ptr::copy_nonoverlapping(message.as_ptr().cast::<c_char>(), buffer, end);
    *buffer.add(end) = 0;
}

/// Frees an AQM made by [`aqmlab_aqm_new`]; null is ignored.
///
/// # Safety
/// `aqm` is null or a pointer from [`aqmlab_aqm_new`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_free(aqm: *mut AqmlabAqm) {
    if !aqm.is_null() {
        drop(Box::from_raw(aqm));
    }
}

/// The message of the handle's latest failed call (empty if none); valid until the next call
/// on the handle. Null for a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_error(aqm: *const AqmlabAqm) -> *const c_char {
    aqm.as_ref().map_or(std::ptr::null(), |a| a.error.as_ptr())
}

/// The AQM's name (`red`), valid while the handle lives. Null for a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_name(aqm: *const AqmlabAqm) -> *const c_char {
    aqm.as_ref().map_or(std::ptr::null(), |a| a.name.as_ptr())
}

/// 1 when the AQM may drop or mark at dequeue (CoDel, COBALT), so that the host must ask
/// [`aqmlab_aqm_dequeue`] before sending each packet; 0 when it never does (the host may still
/// call it, to let the AQM observe departures). [`AQMLAB_ERR_NULL`] for a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_decides_at_dequeue(aqm: *const AqmlabAqm) -> i32 {
    aqm.as_ref()
        .map_or(AQMLAB_ERR_NULL, |a| i32::from(a.aqm.decides_at_dequeue()))
}

impl AqmlabAqm {
    /// Runs `work` after checking the call's time, recording the message of a failure; the
    /// status or the decision.
    fn call(&mut self, now_ns: u64, work: impl FnOnce(&mut Self) -> Result<i32, String>) -> i32 {
        let (status, message) = if now_ns < self.last_now_ns {
            let message = format!(
                "now_ns: time went backwards ({now_ns} ns after {} ns)",
                self.last_now_ns
            );
            (AQMLAB_ERR_ARGUMENT, message)
        } else {
            match catch_unwind(AssertUnwindSafe(|| work(self))) {
                Ok(Ok(status)) => {
                    self.last_now_ns = now_ns;
                    (status, String::new())
                }
                Ok(Err(message)) => (AQMLAB_ERR_ARGUMENT, message),
                Err(_) => {
                    let message = format!("{}: internal error in the AQM", self.aqm.name());
                    (AQMLAB_ERR_INTERNAL, message)
                }
            }
        };
        self.error = CString::new(message.replace('\0', " ")).expect("NULs replaced");
        status
    }

    /// The queue as the AQM sees it: `queue_pkts` within the limit, `queue_bytes` at least a
    /// byte per packet (0 for an empty queue).
    fn view(&self, queue_pkts: u32, queue_bytes: u64) -> Result<QueueView, String> {
        if queue_pkts > self.limit_pkts {
            return Err(format!(
                "queue_pkts: must be at most limit_pkts ({}), got {queue_pkts}",
                self.limit_pkts
            ));
        }
        if queue_bytes < u64::from(queue_pkts) || (queue_pkts == 0 && queue_bytes != 0) {
            return Err(format!(
                "queue_bytes: must be at least a byte per packet and 0 for an empty queue, got \
                 {queue_bytes} for {queue_pkts} packets"
            ));
        }
        Ok(QueueView {
            len_pkts: queue_pkts,
            len_bytes: queue_bytes,
            limit_pkts: self.limit_pkts,
            limit_bytes: 0,
            rate_bps: self.rate_bps,
        })
    }
}

/// Runs `work` on the AQM behind `aqm` at `now_ns` ([`AqmlabAqm::call`]); [`AQMLAB_ERR_NULL`]
/// for a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
unsafe fn on(
    aqm: *mut AqmlabAqm,
    now_ns: u64,
    work: impl FnOnce(&mut AqmlabAqm) -> Result<i32, String>,
) -> i32 {
    aqm.as_mut()
        .map_or(AQMLAB_ERR_NULL, |a| a.call(now_ns, work))
}

/// The packet a decision is about: `size_bytes` 1 or more.
fn packet(size_bytes: u32, ect: bool) -> Result<PacketView, String> {
    if size_bytes == 0 {
        return Err("size_bytes: must be at least 1".to_string());
    }
    Ok(PacketView { size_bytes, ect })
}

/// Decision on a packet of `size_bytes` (ECN-capable when `ect`) arriving at `now_ns` (ns
/// since the start of the run, never before a previous call's) at a queue holding `queue_pkts`
/// packets of `queue_bytes` in all, not counting it: [`AQMLAB_ACCEPT`], [`AQMLAB_EARLY_DROP`]
/// or [`AQMLAB_FORCED_DROP`]; a negative status on failure. A host whose buffer is full drops
/// an accepted packet and calls [`aqmlab_aqm_overflow`].
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_enqueue(
    aqm: *mut AqmlabAqm,
    now_ns: u64,
    size_bytes: u32,
    ect: bool,
    queue_pkts: u32,
    queue_bytes: u64,
) -> i32 {
    on(aqm, now_ns, |a| {
        let (pkt, queue) = (packet(size_bytes, ect)?, a.view(queue_pkts, queue_bytes)?);
        Ok(match a.aqm.on_enqueue(now_ns, pkt, &queue, &mut a.rng) {
            EnqueueVerdict::Accept => AQMLAB_ACCEPT,
            EnqueueVerdict::EarlyDrop => AQMLAB_EARLY_DROP,
            EnqueueVerdict::ForcedDrop => AQMLAB_FORCED_DROP,
        })
    })
}

/// Decision on the head packet (`size_bytes`, ECN-capable when `ect`) as it leaves at `now_ns`,
/// `sojourn_ns` after it joined, the queue holding `queue_pkts` packets of `queue_bytes` after
/// it left: [`AQMLAB_DELIVER`], [`AQMLAB_EARLY_DROP`], [`AQMLAB_FORCED_DROP`] or
/// [`AQMLAB_MARK`]; a negative status on failure.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_dequeue(
    aqm: *mut AqmlabAqm,
    now_ns: u64,
    sojourn_ns: u64,
    size_bytes: u32,
    ect: bool,
    queue_pkts: u32,
    queue_bytes: u64,
) -> i32 {
    on(aqm, now_ns, |a| {
        if sojourn_ns > now_ns {
            return Err(format!(
                "sojourn_ns: must be at most now_ns ({now_ns}), got {sojourn_ns}"
            ));
        }
        let (pkt, queue) = (packet(size_bytes, ect)?, a.view(queue_pkts, queue_bytes)?);
        Ok(
            match a
                .aqm
                .on_dequeue(now_ns, sojourn_ns, pkt, &queue, &mut a.rng)
            {
                DequeueVerdict::Deliver => AQMLAB_DELIVER,
                DequeueVerdict::EarlyDrop => AQMLAB_EARLY_DROP,
                DequeueVerdict::ForcedDrop => AQMLAB_FORCED_DROP,
                DequeueVerdict::Mark => AQMLAB_MARK,
            },
        )
    })
}

/// The host dropped a packet at `now_ns` because its buffer was full. [`AQMLAB_OK`] or a
/// negative status.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_overflow(aqm: *mut AqmlabAqm, now_ns: u64) -> i32 {
    on(aqm, now_ns, |a| {
        a.aqm.on_overflow(now_ns);
        Ok(AQMLAB_OK)
    })
}

/// The host asked the queue for a packet at `now_ns` and it had none. [`AQMLAB_OK`] or a
/// negative status.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_empty(aqm: *mut AqmlabAqm, now_ns: u64) -> i32 {
    on(aqm, now_ns, |a| {
        a.aqm.on_empty(now_ns);
        Ok(AQMLAB_OK)
    })
}

/// When the AQM next wants [`aqmlab_aqm_timer`] called: 1 with the time in `*at_ns`, 0 when it
/// wants no timer now (`*at_ns` untouched); a negative status on failure. Ask again after
/// every call: decisions can move the timer.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`]; `at_ns` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_next_timer(aqm: *const AqmlabAqm, at_ns: *mut u64) -> i32 {
    let (Some(a), Some(at)) = (aqm.as_ref(), at_ns.as_mut()) else {
        return AQMLAB_ERR_NULL;
    };
    match a.aqm.next_timer_ns() {
        Some(t) => {
            *at = t;
            1
        }
        None => 0,
    }
}

/// The AQM's periodic work at `now_ns` (at or after the time [`aqmlab_aqm_next_timer`] gave),
/// the queue holding `queue_pkts` packets of `queue_bytes`. [`AQMLAB_OK`] or a negative status.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_timer(
    aqm: *mut AqmlabAqm,
    now_ns: u64,
    queue_pkts: u32,
    queue_bytes: u64,
) -> i32 {
    on(aqm, now_ns, |a| {
        match a.aqm.next_timer_ns() {
            None => return Err(format!("now_ns: {} has no timer due", a.aqm.name())),
            Some(due) if now_ns < due => {
                return Err(format!(
                    "now_ns: the timer is due at {due} ns, got {now_ns} ns"
                ))
            }
            Some(_) => {}
        }
        let queue = a.view(queue_pkts, queue_bytes)?;
        a.aqm.on_timer(now_ns, &queue, &mut a.rng);
        Ok(AQMLAB_OK)
    })
}

/// How many state values the AQM reports ([`aqmlab_aqm_probe`]); 0 for a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_probe_count(aqm: *const AqmlabAqm) -> usize {
    aqm.as_ref().map_or(0, |a| a.probe_names.len())
}

/// The name of state value `index` (`q_avg`, `p`, ...), valid while the handle lives; null for
/// an index out of range or a null handle.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`].
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_probe_name(
    aqm: *const AqmlabAqm,
    index: usize,
) -> *const c_char {
    aqm.as_ref()
        .and_then(|a| a.probe_names.get(index))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The AQM's state values now, in the order of [`aqmlab_aqm_probe_name`], into `values` (the
/// first `capacity` of them): how many there are, or a negative status.
///
/// # Safety
/// `aqm` is null or a live pointer from [`aqmlab_aqm_new`]; `values` is null or points at
/// `capacity` writable doubles.
#[no_mangle]
pub unsafe extern "C" fn aqmlab_aqm_probe(
    aqm: *mut AqmlabAqm,
    values: *mut f64,
    capacity: usize,
) -> i32 {
    let Some(a) = aqm.as_mut() else {
        return AQMLAB_ERR_NULL;
    };
    if values.is_null() && capacity > 0 {
        return AQMLAB_ERR_NULL;
    }
    a.probe_values.clear();
    a.aqm.probe(&mut a.probe_values);
    let n = a.probe_values.len().min(capacity);
    if n > 0 {
        std::ptr::copy_nonoverlapping(a.probe_values.as_ptr(), values, n);
    }
    i32::try_from(a.probe_values.len()).expect("a few state values")
}
