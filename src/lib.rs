//! Strided tensors with explicit, cheap layouts.
//!
//! Tensor code loses most of its time not in arithmetic but in memory layout: a `transpose()` or
//! `narrow()` quietly makes a tensor non-contiguous, the next op makes a hidden copy, and latency
//! triples. stridex makes layout explicit: every view op is a pure function on a [`Layout`], no
//! view op touches element data, and the copies that remain are few, visible and fast.
//!
//! # Concepts
//!
//! - A [`Layout`] is a shape, strides (in elements, `isize`, may be negative or zero) and an
//!   offset. Element `[i, j, ..]` lives at storage offset
//!   `offset + i * strides[0] + j * strides[1] + ..`. A transpose swaps two strides, a narrow
//!   moves the offset, an expand sets strides to 0, a flip negates one. Layout arithmetic is
//!   checked: overflow is an [`Error`], never a wrap.
//! - A [`Storage`] is a buffer whose first element is 64-byte aligned (2 MiB aligned, on huge
//!   pages, when large). Tensors share it through an `Arc`.
//! - A [`Tensor`] is a storage plus a layout. Cloning and every view op are O(ndim) and share
//!   the storage; [`Tensor::contiguous`] returns the same storage when the layout already is
//!   row-major, and otherwise makes one tiled, vectorised, parallel copy.
//!
//! Two views of one storage (`a` and its transpose; neither owns the data, the `Arc` does):
//!
//! ```text
//!   storage (Arc<Storage<f32>>, 6 elements)   [ 0 | 1 | 2 | 3 | 4 | 5 ]
//!                                               ^
//!   a      = shape [2, 3], strides [3, 1], offset 0     rows:    0 1 2 / 3 4 5
//!   a.t()  = shape [3, 2], strides [1, 3], offset 0     columns: 0 3 / 1 4 / 2 5
//! ```
//!
//! # Contiguity and memory formats
//!
//! A layout is *contiguous* (row-major) when its strides are those of a dense row-major array
//! of its shape; only then is a flat [`Tensor::view`] always possible and
//! [`Tensor::as_slice`] `Some`. A dense layout may also be in another *memory format*
//! ([`MemoryFormat`]: channels-last for images, any permutation in general): a transposed or
//! channels-last tensor is dense but not row-major, and stridex keeps it that way through
//! elementwise ops, reductions and copy-on-write instead of silently converting it.
//! [`Tensor::contiguous_in`] converts on request.
//!
//! # Copies, and how to avoid them
//!
//! View ops never copy. Kernels (elementwise ops, reductions, matmul, the ops models call)
//! read every operand through its strides, so a transposed, narrowed, flipped or broadcast
//! operand is never copied to make it contiguous. The copies that remain are named in
//! [`audit::CopyReason`]: the ones asked for (`contiguous()`, `to_vec()`, `cat`, ...) and two
//! implicit ones: a `reshape` that cannot be a view, and the copy-on-write of a write to a
//! shared storage. [`audit::record`] counts and locates them, and
//! [`audit::forbid_implicit_copies`] turns the implicit ones into errors, so a hot loop can
//! prove it copies nothing.
//!
//! # Quick start
//!
//! ```
//! use stridex::{Tensor, s};
//!
//! let a = Tensor::arange(0.0f32, 12.0, 1.0)?.view(&[3, 4])?;
//! let t = a.t()?; // a view: shape [4, 3], strides [1, 4], same storage
//! assert!(t.shares_storage(&a) && !t.is_contiguous());
//!
//! // Flattening a transposed matrix cannot be a view; `view` says so and why ...
//! let err = t.view(&[12]).unwrap_err();
//! assert!(err.to_string().contains("call reshape() to copy"));
//! // ... and `reshape` copies instead.
//! assert_eq!(t.reshape(&[12])?.to_vec()[..4], [0.0, 4.0, 8.0, 1.0]);
//!
//! // Views compose without copying: every 2nd column of the last two rows, reversed
//! // (Python's a[1:, ::-2]).
//! let v = a.i(s![1.., ..;-2])?;
//! assert_eq!(v.to_vec(), vec![7.0, 5.0, 11.0, 9.0]);
//! assert!(v.shares_storage(&a));
//! # Ok::<(), stridex::Error>(())
//! ```
//!
//! # Computing on views
//!
//! Elementwise ops ([`Tensor::map`], [`Tensor::zip_map`], `+ - * /`, comparisons,
//! [`Tensor::where_cond`], [`Tensor::cast`]) and reductions ([`Tensor::sum_dim`] and friends)
//! read their inputs in place, whatever the strides, with NumPy broadcasting; no op copies an
//! operand to make it contiguous. One iteration engine plans every op: it orders the loops by
//! the output's strides, merges dims that are contiguous in every operand, reads transposed
//! operands through small tiles, splits large ops across rayon threads, and hands the kernels
//! 1-D runs with a vectorised unit-stride path. Element semantics (integer wrapping, division
//! by zero, NaN) are those of [`Numeric`].
//!
//! The ops models call work the same way: elementwise math ([`Tensor::tanh`],
//! [`Tensor::gelu`], [`Tensor::clamp`], ...), indexing with `Tensor<i64>` indices
//! ([`Tensor::index_select`], [`Tensor::gather`], [`Tensor::scatter_add`],
//! [`Tensor::masked_fill`]), and reductions and scans along any dim ([`Tensor::softmax`],
//! [`Tensor::logsumexp_dim`], [`Tensor::var_dim`], [`Tensor::cumsum`], [`Tensor::norm_dim`],
//! [`Tensor::count_nonzero_all`]).
//!
//! ```
//! use stridex::Tensor;
//!
//! let a = Tensor::arange(0.0f32, 6.0, 1.0)?.view(&[2, 3])?;
//! let b = Tensor::arange(0.0f32, 6.0, 1.0)?.view(&[3, 2])?;
//! let row = Tensor::from_vec(vec![10.0f32, 20.0, 30.0], &[3])?;
//! let c = (&row * (&a + &b.t()?)?)?; // transposed and broadcast operands, no copies
//! assert_eq!(c.to_vec(), vec![0.0, 60.0, 180.0, 40.0, 140.0, 300.0]);
//! assert_eq!(c.sum_dim(1, false)?.to_vec(), vec![240.0, 480.0]);
//! assert_eq!(c.argmax_dim(0, false)?.to_vec(), vec![1, 1, 1]);
//! # Ok::<(), stridex::Error>(())
//! ```
//!
//! # Writing through views
//!
//! A `Tensor` is read-only and cheap to share. To write, borrow it mutably:
//! [`Tensor::view_mut`] gives a [`TensorMut`] over the whole tensor, and its view ops
//! (`narrow`, `t`, `slice`, `select`, `flip`, `diagonal`, ...) narrow it down to the elements to
//! write, consuming the view. [`TensorMut::split_at`] gives two disjoint mutable views usable at
//! the same time, like `slice::split_at_mut`; the borrow checker, not luck, rules out aliasing.
//! Writes ([`TensorMut::fill`], [`TensorMut::copy_from`], [`TensorMut::set`],
//! [`TensorMut::map_inplace`], [`TensorMut::add_assign`] and friends, also on `Tensor` itself
//! and as `+=` operators) read sources through their strides with broadcasting.
//!
//! Copy-on-write, for values: if other tensors share the storage of a tensor that is a value of
//! its own (a clone, a loaded file, an op's result), `view_mut` first gives it its own dense
//! copy in its own memory order, so no other tensor observes the write; a tensor that holds its
//! storage alone is written in place. The copy is reported to the [`audit`] and refused inside
//! [`audit::forbid_implicit_copies`]. A *view* ([`Tensor::is_view`]: made by `narrow`, `t`,
//! `select`, ...) is never copied on write while the tensor it was viewed from (or anything
//! else but its own clones) still holds the storage: the write is refused
//! ([`Error::WriteToSharedView`]), since it could not reach that tensor; write through that
//! tensor's `view_mut()`, or into [`Tensor::to_owned`]. Only the sharing at the time of the
//! write decides: a view whose base is gone, alone or with snapshot clones of itself, is a
//! value like `zeros()`'s result (Note [writes to views] in `src/tensor_mut/owned.rs`).
//! Layouts that address an element twice (`expand`, overlapping `unfold`) cannot be written.
//!
//! ```
//! use stridex::Tensor;
//!
//! let mut x = Tensor::<f32>::zeros(&[3, 4])?;
//! x.view_mut()?.narrow(1, 1, 1)?.fill(7.0)?; // column 1 = 7
//! let (mut top, mut rest) = x.view_mut()?.split_at(0, 1)?;
//! top.add_assign_scalar(1.0)?;
//! rest.t()?.copy_from(&Tensor::arange(0.0f32, 8.0, 1.0)?.view(&[4, 2])?)?;
//! assert_eq!(x.to_vec()[..6], [1.0, 8.0, 1.0, 1.0, 0.0, 2.0]);
//!
//! let shared = x.clone();
//! x.set(&[0, 0], -1.0)?; // copy-on-write: `shared` keeps the old value
//! assert_eq!((x.get(&[0, 0])?, shared.get(&[0, 0])?), (-1.0, 1.0));
//!
//! // Building from parts: one allocation, one pass per input.
//! let both = Tensor::cat(&[&x, &shared], 0)?;
//! let padded = x.pad(&[(1, 1), (1, 1)], 0.0)?;
//! assert_eq!((both.shape(), padded.shape()), (&[6, 4][..], &[5, 6][..]));
//! # Ok::<(), stridex::Error>(())
//! ```
//!
//! # Coming from PyTorch or ndarray
//!
//! | PyTorch / ndarray | stridex |
//! |---|---|
//! | `x.transpose(-2, -1)`, `x.sum(-1)`, `x.softmax(-1)` | `x.transpose(-2, -1)?`, `x.sum_dim(-1, false)?`, `x.softmax(-1)?` (any integer type, negative from the end: [`Dim`]) |
//! | `x.view(-1, 4)`, `x.reshape(3, -1)` | `x.view(&[-1, 4])?`, `x.reshape(&[3, -1])?` ([`ShapeArg`]) |
//! | `x[1:3]`, `x[-2:]`, `x[:, 1:3]` | `x.slice(0, 1..3)?`, `x.slice(0, -2..)?`, `x.slice(1, 1..3)?` (any Rust range, Python's rules: [`SliceRange`]) |
//! | `x[:, ::2]`, `x[::-1]`, `x[5:1:-1]` | `x.slice_step(1, .., 2)?`, `x.slice_step(0, .., -1)?` (or `x.flip(0)?`), `x.slice_step(0, 5..1, -1)?` |
//! | `x[:, 1:3, 0]`, `x[0]`, `x[..., None]` (ndarray's `s![..]`) | `x.i(s![.., 1..3, 0])?` or `x.i((.., 1..3, 0))?`, `x.i(0)?`, `x.i(s![.., .., NewAxis])?` for 2 dims (one view: [`s!`], [`SliceItem`]) |
//! | `x[1:, ::2, -1]`, `x.permute(-1, 0, 1)` | `x.i(s![1.., ..;2, -1])?`, `x.permute(&[-1, 0, 1])?` |
//! | `x.sum()`, `x.mean()`, `x.max()`, `x.argmax(1)` | `x.sum()`, `x.mean()`, `x.max()?`, `x.argmax(1)?` (an integer `sum()` wraps in its type; PyTorch's `int64` sum is `x.sum_all_as::<i64>()`) |
//! | `x + 1`, `2 * x`, `x / 3`, `-x` | `&x + 1.0`, `2.0 * &x`, `&x / 3.0`, `-&x` (or `x + 1.0` ... on an owned `x`, written in place) |
//! | `a + b`, `a / b` on results of earlier ops | `(a + b)?`, `(a / &b)?`, `(&a - b)?` (shapes may not broadcast: a `Result`; an owned operand held alone takes the result in place, no allocation) |
//! | `x_f32 + x_f64`, `ints + floats` | `(&x32 + &x64)?` is `Tensor<f64>`, `(&i + &f)?` is `Tensor<f32>`: PyTorch's promotion ([`Promote`], [`DType::promote`]) |
//! | `x.exp()`, `x.mean(1)` on an int tensor | `x.exp()`, `x.mean_dim(1, false)?`: `Tensor<f32>`, as in PyTorch ([`scalar::ToFloat`]) |
//! | `x.masked_fill(mask, v)`, `x.index_select(0, idx)` | a mask of any integer type (`Tensor::from_bools(&[true, false], &[2])?` for a `bool` list), indices of any integer type |
//! | `a.t().matmul(b)` | `a.t().matmul(&b)?`: one `?` for the chain ([`TensorResult`], in [`prelude`]) |
//! | `x.to(torch.float16)`, `a.dot(&b)` (ndarray) | `x.to_dtype::<half::f16>()`, `a.dot(&b)?` |
//! | `torch.cat([a, b], 1)`, `torch.stack([f(t) for t in ts])` | `Tensor::cat(&[a, b], 1)?` (owned results, `&[&a, &b]` or a `Vec`), `Tensor::stack(ts.iter().map(f), 0)?` |
//! | `y[:, 0] += x`, `col.fill_(7)` on a view | `let mut c = y.view_mut()?.select(1, 0)?; c += &x;` (Rust's `+=` needs a place), `base.view_mut()?.narrow(1, 1, 1)?.fill(7)?` |
//! | `x.clone()` (a copy) | `x.to_owned()` (`Clone` shares the storage, like a view) |
//! | `x.contiguous()` | `x.contiguous()` (the same storage when already row-major) |
//! | `x.movedim(0, -1)`, `np.moveaxis(x, [0, 1], [-1, -2])`, `x.swapaxes(0, 1)` | `x.movedim(0, -1)?`, `x.movedims(&[0, 1], &[-1, -2])?` (no overloading in Rust), `x.swapaxes(0, 1)?` / `x.swapdims(0, 1)?` |
//! | `x.mT`, `x.T` | `x.mt()?`, `x.reversed_dims()` |
//! | `x.flip((0, 1))`, `np.fliplr(x)`, `torch.rot90(x, 1, (0, 1))` | `x.flip_dims(&[0, 1])?`, `x.fliplr()?`, `x.rot90(1, [0, 1])?` (views) |
//! | `x.unflatten(1, (3, -1))`, `x.squeeze()`, `np.squeeze(x, axis=(0, 2))`, `np.atleast_2d(x)` | `x.unflatten(1, &[3, -1])?`, `x.squeeze_all()`, `x.squeeze_dims(&[0, 2])?`, `x.atleast_2d()` |
//! | `x.expand(4, -1)`, `np.broadcast_to(x, s)`, `x.expand_as(y)`, `torch.broadcast_tensors(a, b)` | `x.expand(&[4, -1])?`, `x.broadcast_to(&s)?`, `x.expand_as(&y)?`, `Tensor::broadcast_tensors([&a, &b])?` ([`broadcast_shapes_all`] for shapes) |
//! | `x.narrow(1, -2, 2)`, `x[..., :2]`, `x.unfold(0, 2, 1)` on a scalar | `x.narrow(1, -2, 2)?`, `x.i(s![Ellipsis, ..2])?` ([`Ellipsis`]), the same (PyTorch's 0-dim rules) |
//! | `sliding_window_view(x, (2, 2))` | `x.sliding_window_view(&[2, 2], &[0, 1])?` (windows as trailing dims) |
//! | `x.split([1, 2], 0)`, `x.tensor_split(3)`, `np.array_split(x, [1, 4])` | `x.split_with_sizes(&[1, 2], 0)?`, `x.tensor_split(3, 0)?`, `x.tensor_split_indices(&[1, 4], 0)?` |
//! | `x.ravel()`, `x.flatten(1)`, `x.reshape(s, order='F')` | `x.ravel()?` (stride 1, copies only if needed), `x.flatten_from(1)?`, `x.reshape_f(&s)?` (`x.view_f(&s)?` never copies) |
//! | `x.reshape(s, copy=False)` (NumPy 2) | `x.reshape_with(&s, CopyPolicy::Never)?`; `.copied` says whether `IfNeeded` copied ([`CopyPolicy`], [`MaybeCopied`]) |
//! | `x.clone(memory_format=torch.preserve_format)`, `torch.empty_like` strides | `x.contiguous_preserve()?`, `x.contiguous_in_order(&[0, 2, 3, 1])?`, `x.contiguous_like(&y)?` |
//! | `x.gt(0.5)`, `x.eq(y)`, `x == y` (masks) | `x.gt(0.5)?`, `x.eq(&y)?` (`u8` masks, any right operand: [`CmpRhs`]); `x == y` in Rust is one `bool` for the whole tensors (Note \[comparison names\]) |
//! | `v, i = x.max(1)`, `x.amax(1)` | `let (v, i) = x.max_dim_with_indices(1, false)?`, `x.max_dim(1, false)?` (`x.max()` is already the maximum of every element, so PyTorch's form has its own name) |
//! | `x.pow(2)`, `x.norm()`, `x.std(1)`, `x.var(1)` | `x.pow(2.0)?` (a float tensor and an exponent of its type; `powf` for integer tensors), `x.norm()`, `x.std(1)?`, `x.var(1)?` |
//! | `torch.where(m, x, 0.0)` | `Tensor::where_cond(&m, &x, 0.0)?` (a tensor or a scalar in either branch: [`TensorOrScalar`]) |
//! | `x.sort(1)`, `x.argsort(1)`, `x.topk(10)` | `x.sort(1, false)?`, `x.argsort(1, false)?`, `x.topk(10, -1, true, true)?` (Rust has no default arguments: `descending`, `largest`, `sorted` are spelled out) |
//! | `x.tril()`, `x.repeat(2, 1)`, `np.tile(x, 2)` | `x.tril(0)?`, `x.repeat(&[2, 1])?`, `x.tile(&[2])?` |
//! | `x.roll(1, 0)`, `torch.roll(x, 1)`, `np.diff(x)`, `F.one_hot(x, 3)` | `x.roll(&[1], &[0])?`, `x.roll_flat(1)?`, `x.diff(1, -1)?`, `x.one_hot(3)?` |
//! | `torch.manual_seed(0); torch.randn(2, 3)` | `let mut g = stridex::random::Generator::new(0); g.randn::<f32>(&[2, 3])?` (feature `random`; an explicit generator, no global state) |
//!
//! Every op returns `Result` where its input can be wrong (a shape, a dim, an index), and that
//! stays the default. For chains whose shapes are known, the shorthand is not a panicking twin
//! of each method but [`TensorResult`]: the methods continue on the `Result` of the step
//! before, so `a.t().matmul(&b).sum_dim(-1, false)?` has one `?` and still reports the first
//! step that failed (why: Note [chains and panics] in `src/tensor/chain.rs`). Only the
//! operators with a scalar and the all-element reductions (`sum()`, `mean()`) return values
//! directly; nothing in them depends on a shape (an integer division by zero panics, as
//! Rust's `/` does).
//!
//! # Cargo features
//!
//! - `rayon` (default): large copies, ops, reductions and matrix products are split across
//!   rayon's current thread pool (`ThreadPool::install` chooses it). Without it everything
//!   runs on the calling thread, with the same results: results never depend on the number
//!   of threads.
//! - `ndarray`, `npy`, `safetensors`, `serde`: interop with those crates and formats (see
//!   the `interop` module, built when any of them is on).
//! - `random`: seeded random tensors (`random::Generator`: `rand`, `randn`, `randint`,
//!   `uniform`, `normal`, `bernoulli`) from a counter-based Philox generator, identical for
//!   any thread count and memory layout.
//! - `dlpack`: zero-copy exchange with NumPy, PyTorch and other DLPack 1.x libraries
//!   (`interop::dlpack`; the Python extension in `python/` uses it).
//! - `avx512`: the AVX-512F matmul kernels on any compiler that has the intrinsics. They
//!   need no feature from Rust 1.89 on: the build script compiles them whenever the compiler
//!   is 1.89 or newer (older compilers, down to the crate's rust-version, build the AVX2 and
//!   portable kernels alone). At run time they are chosen on CPUs whose vector units are 512
//!   bits wide: on an Intel Xeon with AVX-512 (Sapphire Rapids class, two cores) 1024³ `f32`
//!   on one thread ran at 118-149 GFLOP/s against 94-96 for the AVX2 kernels. AMD Zen 4
//!   splits each 512-bit multiply-add into two 256-bit halves; there they measured no faster
//!   than the AVX2 kernels (96-102 against 99-100 GFLOP/s), so the AVX2 kernels stay in use.
//!   The element-wise and copy kernels have no AVX-512 variant (compiling them for AVX-512
//!   measured no steady gain on Zen 4).
//!
//! # Errors
//!
//! Every fallible operation returns [`Result`] with one error type, [`Error`], whose message
//! names the operation, the argument, the layout and, where one exists, the fix. Nothing in the
//! crate panics on user input; the few remaining panics (allocation failure in the infallible
//! [`Tensor::contiguous`]) are documented where they can occur.
//!
//! # Modules
//!
//! - [`layout`]: shape and stride arithmetic, no element types, no `unsafe`.
//! - [`storage`]: the aligned allocation.
//! - [`element`]: the element types (`f32`, `f64`, `f16`, `bf16`, `i8`..`i64`, `u8`..`u64`).
//! - [`scalar`]: what arithmetic means per element type ([`Numeric`]).
//! - [`error`]: the error type.
//! - [`audit`]: counting, locating and forbidding copies.
//! - [`tensor_mut`]: [`TensorMut`], the mutable view, and the rules for writing.
//! - [`tensor_view`]: [`TensorView`], the borrowed read-only view: view ops without
//!   reference counting.
//! - [`matmul`]: matrix products of strided operands, and the element types they support.
//! - [`simd`]: which SIMD paths the kernels take (they all give the same bits).
//! - `interop` (with the `ndarray`, `npy`, `safetensors` or `serde` feature): zero-copy views
//!   for ndarray, files and serialization.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[macro_use]
mod view_api;
#[macro_use]
mod view_api_vocab;
pub mod audit;
mod copy_reason;
pub mod element;
pub mod error;
#[cfg(any(
    feature = "ndarray",
    feature = "npy",
    feature = "safetensors",
    feature = "serde",
    feature = "dlpack"
))]
pub mod interop;
mod iter;
mod kernels;
pub mod layout;
pub mod matmul;
mod operators;
pub mod prelude;
#[cfg(feature = "random")]
#[cfg_attr(docsrs, doc(cfg(feature = "random")))]
pub mod random;
pub mod scalar;
pub mod simd;
pub mod storage;
mod tensor;
pub mod tensor_mut;
pub mod tensor_view;

pub use element::{DType, Element};
pub use error::{Error, Result};
/// The `half` crate, whose `f16` and `bf16` are element types of the public API.
pub use half;
pub use kernels::cpu::{CopyTuning, CpuInfo};
pub use layout::{
    Dim, IndexArg, Layout, MemoryFormat, NewAxis, ShapeArg, SliceItem, SliceRange, broadcast_shapes,
};
pub use layout::{Ellipsis, ExpandShape, broadcast_shapes_all};
pub use operators::compare::CmpRhs;
pub use operators::promote::Promote;
pub use scalar::Numeric;
pub use scalar::{FloatElement, IntElement, ToFloat};
pub use storage::Storage;
pub use tensor::{AsTensor, Iter, Norm, NormOrder, Tensor, TensorOrScalar, TensorResult};
pub use tensor::{CopyPolicy, MaybeCopied};
pub use tensor_mut::TensorMut;
pub use tensor_view::TensorView;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
