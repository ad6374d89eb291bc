//! The matrix types every GEMM kernel shares: [`MatRef`] / [`MatMut`] (a pointer plus row and
//! column strides), [`SendPtr`] (operand pointers shared across the parallel loops) and
//! [`Scalar`] (how a float type widens to its accumulator). A leaf of the matmul module: the
//! dispatch (`gemm.rs`) and the kernels (`core.rs`, `small.rs`, `small_avx2.rs`, `int.rs`)
//! import these types, and this file imports none of them.

use half::{bf16, f16, slice::HalfFloatSliceExt};

use super::kernel::Accum;
use crate::element::Element;

/// A matrix to read: element `(i, j)` at `ptr + i * rs + j * cs`.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

/// A matrix to write: element `(i, j)` at `ptr + i * rs + j * cs`.
#[derive(Clone, Copy, Debug)]
pub struct MatMut<T> {
    pub ptr: *mut T,
    pub rs: isize,
    pub cs: isize,
}

impl<T> MatRef<T> {
    /// The transpose (same elements).
    pub(crate) fn t(self) -> Self {
        MatRef {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// Address of element `(i, j)`; computing it is safe, reading it needs `(i, j)` in range.
    pub(crate) fn at(self, i: usize, j: usize) -> *const T {
        self.ptr
            .wrapping_offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// The same matrix read as elements of type `U` (for a caller that knows `T` is `U`).
    pub(crate) fn cast<U>(self) -> MatRef<U> {
        MatRef {
            ptr: self.ptr.cast(),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

impl<T> MatMut<T> {
    /// The transpose (same elements).
    pub(crate) fn t(self) -> Self {
        MatMut {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// Address of element `(i, j)`; computing it is safe, writing it needs `(i, j)` in range.
    pub(crate) fn at(self, i: usize, j: usize) -> *mut T {
        self.ptr
            .wrapping_offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// The same matrix written as elements of type `U` (for a caller that knows `T` is `U`).
    pub(crate) fn cast<U>(self) -> MatMut<U> {
        MatMut {
            ptr: self.ptr.cast(),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

/// A value that may cross threads although it holds raw pointers.
///
/// The parallel loops share the operand pointers between tasks: A and B are only read, and
/// each task writes a disjoint part of C (the safety contract of [`gemm`]).
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<P>(pub P);

// SAFETY: see the type's docs: the pointees are read concurrently but never written, except
// for disjoint parts of C, one task each.
unsafe impl<P> Send for SendPtr<P> {}
// SAFETY: as for `Send`.
unsafe impl<P> Sync for SendPtr<P> {}

impl<P: Copy> SendPtr<P> {
    pub(crate) fn get(&self) -> P {
        self.0
    }
}

/// An element type the GEMM core can multiply: how it converts to and from its accumulator.
///
/// Public only in name (it sits in a private module): the bound behind
/// [`MatmulElement`](super::MatmulElement).
pub trait Scalar: Element {
    /// What products are summed in.
    type Acc: Accum;
    /// Widens to the accumulator type.
    fn to_acc(self) -> Self::Acc;
    /// Rounds from the accumulator type.
    fn from_acc(v: Self::Acc) -> Self;
    /// `dst[i] = src[i * stride]` widened, for every `i < dst.len()`.
    ///
    /// # Safety
    /// Those `dst.len()` elements must be readable.
    unsafe fn load_run(src: *const Self, stride: isize, dst: &mut [Self::Acc]);
    /// `p` itself when `Self` is its own accumulator type (then C is written directly),
    /// otherwise `None` (then C is written through a workspace).
    fn as_acc(p: *mut Self) -> Option<*mut Self::Acc>;
    /// As [`Scalar::as_acc`], for reading.
    fn as_acc_src(p: *const Self) -> Option<*const Self::Acc>;
}

/// Strided widening loop shared by the `load_run` impls.
///
/// # Safety
/// As [`Scalar::load_run`].
unsafe fn load_strided<T: Scalar>(src: *const T, stride: isize, dst: &mut [T::Acc]) {
    for (i, d) in dst.iter_mut().enumerate() {
        // SAFETY: i < dst.len(): readable by the caller's contract.
        *d = unsafe { *src.wrapping_offset(i as isize * stride) }.to_acc();
    }
}

/// `src[..len]` as a slice, for unit-stride runs.
///
/// # Safety
/// `len` elements from `src` are readable and not written during the borrow.
unsafe fn run_slice<'a, T>(src: *const T, len: usize) -> &'a [T] {
    // SAFETY: the caller's contract; T is Pod, so every bit pattern is a value.
    unsafe { std::slice::from_raw_parts(src, len) }
}

macro_rules! identity_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            type Acc = $t;
            fn to_acc(self) -> $t {
                self
            }
            fn from_acc(v: $t) -> $t {
                v
            }
            unsafe fn load_run(src: *const $t, stride: isize, dst: &mut [$t]) {
                if stride == 1 {
                    // SAFETY: the caller's contract.
                    dst.copy_from_slice(unsafe { run_slice(src, dst.len()) });
                } else {
                    // SAFETY: the caller's contract.
                    unsafe { load_strided(src, stride, dst) }
                }
            }
            fn as_acc(p: *mut $t) -> Option<*mut $t> {
                Some(p)
            }
            fn as_acc_src(p: *const $t) -> Option<*const $t> {
                Some(p)
            }
        }
    )*};
}

identity_scalar!(f32, f64);

impl Scalar for f16 {
    type Acc = f32;
    fn to_acc(self) -> f32 {
        self.to_f32()
    }
    fn from_acc(v: f32) -> f16 {
        f16::from_f32(v)
    }
    unsafe fn load_run(src: *const f16, stride: isize, dst: &mut [f32]) {
        if stride == 1 {
            // SAFETY: the caller's contract. `half` converts 8 at a time with F16C when the
            // CPU has it.
            unsafe { run_slice(src, dst.len()) }.convert_to_f32_slice(dst);
        } else {
            // SAFETY: the caller's contract.
            unsafe { load_strided(src, stride, dst) }
        }
    }
    fn as_acc(_: *mut f16) -> Option<*mut f32> {
        None
    }
    fn as_acc_src(_: *const f16) -> Option<*const f32> {
        None
    }
}

impl Scalar for bf16 {
    type Acc = f32;
    fn to_acc(self) -> f32 {
        self.to_f32()
    }
    fn from_acc(v: f32) -> bf16 {
        bf16::from_f32(v)
    }
    unsafe fn load_run(src: *const bf16, stride: isize, dst: &mut [f32]) {
        if stride == 1 {
            // SAFETY: the caller's contract. Widening bf16 is a 16-bit shift, which the
            // compiler vectorizes.
            let src = unsafe { run_slice(src, dst.len()) };
            for (d, s) in dst.iter_mut().zip(src) {
                *d = f32::from_bits(u32::from(s.to_bits()) << 16);
            }
        } else {
            // SAFETY: the caller's contract.
            unsafe { load_strided(src, stride, dst) }
        }
    }
    fn as_acc(_: *mut bf16) -> Option<*mut f32> {
        None
    }
    fn as_acc_src(_: *const bf16) -> Option<*const f32> {
        None
    }
}
