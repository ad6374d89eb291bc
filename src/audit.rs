//! Copy audit: every copy of element data stridex makes can be counted, located and forbidden.
//!
//! Each place in the crate that copies element data into new or existing memory reports one
//! [`CopyEvent`]: why ([`CopyReason`]), how many bytes, the element type, the source and
//! destination layouts, and the caller's source line (public entry points are
//! `#[track_caller]`, so the location is the user's line, not stridex's).
//!
//! - [`record`] runs a closure and returns its result with a [`CopyReport`] of the copies made
//!   inside it.
//! - [`forbid_implicit_copies`] runs a closure in which a copy the user did not ask for (see
//!   [`CopyReason::is_implicit`]) makes the operation return [`Error::ImplicitCopy`] instead.
//! - [`totals`] counts copies process-wide once [`enable_totals`] has been called.
//!
//! # What counts as a copy
//!
//! `contiguous()` / `contiguous_in()` when they copy, `contiguous_into`, `copy_into`, `to_vec`,
//! `reshape` falling back to a copy, constructing a tensor from a slice or `Vec` (copied into
//! aligned storage), the copy-on-write a write to a shared tensor makes, and `cat` / `stack` /
//! `pad` (one event per input copied). A write into existing memory (`fill`, `copy_from`, in-place
//! arithmetic) is not a copy of a tensor and reports nothing. Computing a new tensor from operands (elementwise ops, reductions, matmul)
//! is arithmetic, not a copy; packing inside a GEMM kernel is part of that arithmetic. Views
//! never copy and never report.
//!
//! # Scopes and threads
//!
//! Scopes are per thread: a copy is reported to the innermost active scope of the thread that
//! called the public operation. A kernel that fans out to rayon workers reports once, on the
//! calling thread, so its workers' work counts toward the scope that started it. Copies that
//! the closure itself starts on *other* threads (for example inside its own `par_iter`) are not
//! seen by the scope (they are seen by [`totals`]). Scopes nest: an inner scope's events are
//! also added to the enclosing scope when the inner one ends. A forbidding scope also records
//! nothing by itself; nest it inside [`record`] to see the allowed copies.
//!
//! # Cost when not recording
//!
//! One relaxed atomic load per copy (not per element): no allocation, no lock, no thread-local
//! access unless some scope is active or totals are enabled.

use std::cell::RefCell;
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use crate::element::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;

pub use crate::copy_reason::CopyReason;

/// One copy of element data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyEvent {
    /// Why.
    pub reason: CopyReason,
    /// Bytes written.
    pub bytes: usize,
    /// Element type.
    pub dtype: DType,
    /// Source shape.
    pub src_shape: Vec<usize>,
    /// Source strides.
    pub src_strides: Vec<isize>,
    /// Destination strides (same shape as the source).
    pub dst_strides: Vec<isize>,
    /// The user's source line that asked for the operation.
    pub location: &'static Location<'static>,
}

impl fmt::Display for CopyEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} {:?} strides {:?} -> strides {:?}, {}, at {}",
            self.reason,
            self.dtype,
            self.src_shape,
            self.src_strides,
            self.dst_strides,
            Bytes(self.bytes),
            self.location
        )
    }
}

struct Bytes(usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        if b >= (1u64 << 30) as f64 {
            write!(f, "{:.1} GiB", b / (1u64 << 30) as f64)
        } else if b >= (1u64 << 20) as f64 {
            write!(f, "{:.1} MiB", b / (1u64 << 20) as f64)
        } else if b >= 1024.0 {
            write!(f, "{:.1} KiB", b / 1024.0)
        } else {
            write!(f, "{} B", self.0)
        }
    }
}

/// The copies made inside a [`record`] scope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyReport {
    events: Vec<CopyEvent>,
}

/// Copies grouped by the source line that caused them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationSummary {
    /// The user's source line.
    pub location: &'static Location<'static>,
    /// Copies made there.
    pub count: usize,
    /// Bytes copied there.
    pub bytes: usize,
}

impl CopyReport {
    /// Number of copies.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 4])?;
    /// let (_, report) = stridex::audit::record(|| a.t().map(|t| t.contiguous()));
    /// assert_eq!(report.count(), 1);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn count(&self) -> usize {
        self.events.len()
    }

    /// Total bytes copied.
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[4, 4])?;
    /// let (_, report) = stridex::audit::record(|| a.to_vec());
    /// assert_eq!(report.bytes(), 64);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn bytes(&self) -> usize {
        self.events.iter().map(|e| e.bytes).sum()
    }

    /// The events in the order they happened.
    ///
    /// ```
    /// use stridex::audit::{record, CopyReason};
    /// let a = stridex::Tensor::<u8>::zeros(&[2, 3])?;
    /// let (_, report) = record(|| a.t()?.reshape(&[6]));
    /// assert_eq!(report.events()[0].reason, CopyReason::ReshapeCopy);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn events(&self) -> &[CopyEvent] {
        &self.events
    }

    /// The copies grouped by source line, in order of first appearance.
    ///
    /// ```
    /// let a = stridex::Tensor::<u8>::zeros(&[2, 3])?.t()?;
    /// let (_, report) = stridex::audit::record(|| {
    ///     for _ in 0..3 {
    ///         a.contiguous();
    ///     }
    /// });
    /// assert_eq!(report.by_location().len(), 1);
    /// assert_eq!(report.by_location()[0].count, 3);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn by_location(&self) -> Vec<LocationSummary> {
        let mut out: Vec<LocationSummary> = Vec::new();
        for e in &self.events {
            match out.iter_mut().find(|s| s.location == e.location) {
                Some(s) => {
                    s.count += 1;
                    s.bytes += e.bytes;
                }
                None => out.push(LocationSummary {
                    location: e.location,
                    count: 1,
                    bytes: e.bytes,
                }),
            }
        }
        out
    }
}

/// A summary line, the copies by location, then every event.
///
/// ```
/// let a = stridex::Tensor::<f32>::zeros(&[2, 2])?;
/// let (_, report) = stridex::audit::record(|| a.t().map(|t| t.contiguous()));
/// assert!(report.to_string().starts_with("1 copy, 16 B"));
/// # Ok::<(), stridex::Error>(())
/// ```
impl fmt::Display for CopyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.count();
        write!(
            f,
            "{n} cop{}, {}",
            if n == 1 { "y" } else { "ies" },
            Bytes(self.bytes())
        )?;
        if n == 0 {
            return Ok(());
        }
        f.write_str("\nby location:")?;
        for s in self.by_location() {
            write!(f, "\n  {}  {} x, {}", s.location, s.count, Bytes(s.bytes))?;
        }
        f.write_str("\nevents:")?;
        for (i, e) in self.events.iter().enumerate() {
            write!(f, "\n  {}. {e}", i + 1)?;
        }
        Ok(())
    }
}

/// Process-wide copy totals since [`enable_totals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Number of copies.
    pub count: u64,
    /// Bytes copied.
    pub bytes: u64,
}

/// Bit 0: totals enabled. Bits 1..: number of active scopes on all threads.
static STATE: AtomicUsize = AtomicUsize::new(0);
const TOTALS_BIT: usize = 1;
const SCOPE_UNIT: usize = 2;
static TOTAL_COUNT: AtomicU64 = AtomicU64::new(0);
static TOTAL_BYTES: AtomicU64 = AtomicU64::new(0);

/// One scope on this thread's stack.
enum Frame {
    Record(Vec<CopyEvent>),
    Forbid,
}

thread_local! {
    static SCOPES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Starts counting every copy process-wide in [`totals`] (off by default, so that programs
/// that never look pay one relaxed load per copy and nothing else).
///
/// ```
/// stridex::audit::enable_totals();
/// let before = stridex::audit::totals();
/// stridex::Tensor::<u8>::zeros(&[4])?.to_vec();
/// assert!(stridex::audit::totals().count > before.count);
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn enable_totals() {
    STATE.fetch_or(TOTALS_BIT, Relaxed);
}

/// Copies and bytes counted since [`enable_totals`] (all threads).
///
/// ```
/// let t = stridex::audit::totals();
/// assert!(t.bytes >= t.count);
/// ```
pub fn totals() -> Totals {
    Totals {
        count: TOTAL_COUNT.load(Relaxed),
        bytes: TOTAL_BYTES.load(Relaxed),
    }
}

/// Pops this thread's scope even if the closure panics.
struct ScopeGuard;

impl ScopeGuard {
    fn push(frame: Frame) -> ScopeGuard {
        SCOPES.with(|s| s.borrow_mut().push(frame));
        STATE.fetch_add(SCOPE_UNIT, Relaxed);
        ScopeGuard
    }

    /// Pops the frame; recorded events also go to the enclosing recording scope.
    fn pop(self) -> Vec<CopyEvent> {
        let events = SCOPES.with(|s| {
            let mut s = s.borrow_mut();
            let events = match s.pop() {
                Some(Frame::Record(e)) => e,
                _ => Vec::new(),
            };
            if let Some(Frame::Record(outer)) =
                s.iter_mut().rev().find(|f| matches!(f, Frame::Record(_)))
            {
                outer.extend(events.iter().cloned());
            }
            events
        });
        STATE.fetch_sub(SCOPE_UNIT, Relaxed);
        std::mem::forget(self);
        events
    }
}

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        // Only reached when the closure panicked: drop the frame, keep the counts right.
        SCOPES.with(|s| s.borrow_mut().pop());
        STATE.fetch_sub(SCOPE_UNIT, Relaxed);
    }
}

/// Runs `f` and returns its result with a report of every copy stridex made on this thread
/// meanwhile (see the [module docs](self) for threads and nesting).
///
/// ```
/// use stridex::{audit, Tensor};
/// let x = Tensor::<f32>::zeros(&[64, 32])?;
/// let (y, report) = audit::record(|| x.t()?.reshape(&[2048]));
/// assert_eq!(y?.numel(), 2048);
/// assert_eq!((report.count(), report.bytes()), (1, 2048 * 4));
/// let (_, none) = audit::record(|| x.t()?.narrow(0, 0, 8)?.flip(1));
/// assert_eq!(none.count(), 0); // views never copy
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn record<R>(f: impl FnOnce() -> R) -> (R, CopyReport) {
    let guard = ScopeGuard::push(Frame::Record(Vec::new()));
    let result = f();
    let events = guard.pop();
    (result, CopyReport { events })
}

/// Runs `f` with implicit copies forbidden on this thread: an operation that would copy
/// without being asked to ([`CopyReason::is_implicit`], e.g. `reshape` of a layout that cannot
/// be viewed) returns [`Error::ImplicitCopy`] naming the reason and the caller's line instead.
/// Explicit copies (`contiguous()`, `to_vec()`, ...) stay allowed (and are recorded by an
/// enclosing [`record`]). Every operation that can copy implicitly returns `Result`, so no
/// panic is involved.
///
/// ```
/// use stridex::{audit, Error, Tensor};
/// let x = Tensor::<f32>::zeros(&[8, 4])?;
/// let r = audit::forbid_implicit_copies(|| x.t()?.reshape(&[32]));
/// assert!(matches!(r, Err(Error::ImplicitCopy { .. })));
/// let ok = audit::forbid_implicit_copies(|| x.t()?.contiguous().reshape(&[32]));
/// assert!(ok.is_ok());
/// # Ok::<(), stridex::Error>(())
/// ```
pub fn forbid_implicit_copies<R>(f: impl FnOnce() -> R) -> R {
    let guard = ScopeGuard::push(Frame::Forbid);
    let result = f();
    guard.pop();
    result
}

/// Checks, before any work, that a copy from `src` for `reason` is allowed, and records
/// nothing (the copy may still fail, e.g. its allocation). Once the copy has been
/// made, [`note_copy_made`] records it, so a copy that failed is never counted.
///
/// # Errors
/// [`Error::ImplicitCopy`] if `reason` is implicit and a forbidding scope is active on this
/// thread; the caller must then not copy.
#[track_caller]
pub(crate) fn check_copy_allowed(reason: CopyReason, dtype: DType, src: &Layout) -> Result<()> {
    let state = STATE.load(Relaxed);
    if state < SCOPE_UNIT || !reason.is_implicit() {
        return Ok(());
    }
    let forbidden = SCOPES.with(|s| s.borrow().iter().any(|f| matches!(f, Frame::Forbid)));
    if forbidden {
        return Err(Error::ImplicitCopy {
            reason,
            bytes: copy_bytes(src, dtype),
            location: Location::caller(),
        });
    }
    Ok(())
}

/// Records a copy that has been made (allowed by [`check_copy_allowed`] before it started).
#[track_caller]
pub(crate) fn note_copy_made(reason: CopyReason, dtype: DType, src: &Layout, dst: &Layout) {
    let state = STATE.load(Relaxed);
    if state != 0 {
        record_event(state, reason, dtype, src, dst, Location::caller());
    }
}

/// Bytes a copy of `src` moves. A copy that was made fits in memory, so the product cannot
/// overflow for it; for a refused one (whose size may be anything) it saturates.
fn copy_bytes(src: &Layout, dtype: DType) -> usize {
    src.numel().saturating_mul(dtype.size())
}

/// Reports a copy the user asked for by name (never forbidden).
#[track_caller]
pub(crate) fn note_explicit_copy(reason: CopyReason, dtype: DType, src: &Layout, dst: &Layout) {
    debug_assert!(!reason.is_implicit());
    let state = STATE.load(Relaxed);
    if state != 0 {
        record_event(state, reason, dtype, src, dst, Location::caller());
    }
}

/// Adds one event to the innermost recording scope of this thread and to the totals.
#[cold]
fn record_event(
    state: usize,
    reason: CopyReason,
    dtype: DType,
    src: &Layout,
    dst: &Layout,
    location: &'static Location<'static>,
) {
    let bytes = copy_bytes(src, dtype);
    if state >= SCOPE_UNIT {
        SCOPES.with(|s| {
            if let Some(Frame::Record(events)) = s
                .borrow_mut()
                .iter_mut()
                .rev()
                .find(|f| matches!(f, Frame::Record(_)))
            {
                events.push(CopyEvent {
                    reason,
                    bytes,
                    dtype,
                    src_shape: src.shape().to_vec(),
                    src_strides: src.strides().to_vec(),
                    dst_strides: dst.strides().to_vec(),
                    location,
                });
            }
        });
    }
    if state & TOTALS_BIT != 0 {
        TOTAL_COUNT.fetch_add(1, Relaxed);
        TOTAL_BYTES.fetch_add(bytes as u64, Relaxed);
    }
}
