//! Reshapes and contiguous copies (row-major or in a memory format) that say whether they copied: a [`CopyPolicy`] (NumPy 2's
//! `reshape(copy=...)`: never, if needed, always) and a result that carries `copied`, so a
//! caller learns it without an audit scope. Also the reshapes that may copy under other
//! names: `ravel` (always contiguous), `reshape_f` (column-major order), `flatten_from`.

use super::Tensor;
use crate::audit::CopyReason;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Dim, Layout, MemoryFormat, ShapeArg};

/// When a reshape or `contiguous_with` may copy (NumPy 2's `copy=` argument).
///
/// ```
/// use stridex::{CopyPolicy, Tensor};
/// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
/// assert!(!a.reshape_with(&[6], CopyPolicy::IfNeeded)?.copied);
/// assert!(a.t()?.reshape_with(&[6], CopyPolicy::IfNeeded)?.copied);
/// assert!(a.t()?.reshape_with(&[6], CopyPolicy::Never).is_err());
/// assert!(a.reshape_with(&[6], CopyPolicy::Always)?.copied);
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CopyPolicy {
    /// Never copy: a view, or an `Err` saying why none exists (NumPy's `copy=False`).
    Never,
    /// Copy only when no view exists (NumPy's `copy=None`, `reshape`'s own rule).
    #[default]
    IfNeeded,
    /// Always copy into a fresh storage held by nothing else (NumPy's `copy=True`).
    Always,
}

/// A tensor and whether making it copied the elements (`false`: it shares the input's
/// storage).
///
/// ```
/// use stridex::{CopyPolicy, MaybeCopied, Tensor};
/// let a = Tensor::<f32>::zeros(&[2, 3])?;
/// let MaybeCopied { tensor, copied } = a.t()?.contiguous_with(CopyPolicy::IfNeeded)?;
/// assert!(copied && tensor.is_contiguous());
/// # Ok::<(), stridex::Error>(())
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct MaybeCopied<T: Element> {
    /// The result.
    pub tensor: Tensor<T>,
    /// Whether the elements were copied into a fresh storage.
    pub copied: bool,
}

impl<T: Element> MaybeCopied<T> {
    /// The tensor, dropping the flag.
    ///
    /// ```
    /// use stridex::{CopyPolicy, Tensor};
    /// let a = Tensor::<f32>::zeros(&[4])?;
    /// assert_eq!(a.reshape_with(&[2, 2], CopyPolicy::Never)?.into_tensor().shape(), &[2, 2]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[must_use]
    pub fn into_tensor(self) -> Tensor<T> {
        self.tensor
    }
}

impl<T: Element> Tensor<T> {
    /// [`Tensor::reshape`] with a [`CopyPolicy`], saying whether it copied. `Never` is
    /// [`Tensor::view`] (the same errors); `IfNeeded` is `reshape`; `Always` copies into a
    /// fresh row-major storage even when a view exists (reported to the audit as an explicit
    /// `to_owned` copy; `IfNeeded`'s copy is `reshape`'s implicit one).
    ///
    /// # Errors
    /// [`Error::NumelMismatch`] naming `reshape_with`; with `Never`,
    /// [`Error::ViewNotPossible`] exactly when `view` gives it; the copy's errors
    /// ([`Error::Alloc`], [`Error::ImplicitCopy`] for `IfNeeded` inside
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies)).
    ///
    /// ```
    /// use stridex::{CopyPolicy::*, Tensor};
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// let r = a.t()?.reshape_with(&[-1], IfNeeded)?;
    /// assert!(r.copied);
    /// assert_eq!(r.tensor.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    /// let v = a.reshape_with(&[3, 2], Never)?;
    /// assert!(!v.copied && v.tensor.shares_storage(&a));
    /// let err = a.t()?.reshape_with(&[6], Never).unwrap_err();
    /// assert_eq!(err, a.t()?.view(&[6]).unwrap_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn reshape_with(
        &self,
        shape: &(impl ShapeArg + ?Sized),
        policy: CopyPolicy,
    ) -> Result<MaybeCopied<T>> {
        const OP: &str = "reshape_with";
        let shape = shape.resolve(OP, self.numel())?;
        let viewed = self.layout.view(&shape).map_err(|e| e.with_op(OP));
        match (policy, viewed) {
            (CopyPolicy::Never, v) => v.map(|l| self.not_copied(l)),
            (CopyPolicy::IfNeeded, Ok(l)) => Ok(self.not_copied(l)),
            (CopyPolicy::IfNeeded, Err(Error::ViewNotPossible { .. })) => {
                self.copied_as(&shape, CopyReason::ReshapeCopy)
            }
            (CopyPolicy::Always, Ok(_) | Err(Error::ViewNotPossible { .. })) => {
                self.copied_as(&shape, CopyReason::ToOwned)
            }
            (_, Err(e)) => Err(e),
        }
    }

    /// [`Tensor::contiguous`] with a [`CopyPolicy`], saying whether it copied: `Never` is this
    /// tensor when it is row-major contiguous and an `Err` otherwise, `IfNeeded` is
    /// `contiguous()`, `Always` copies even a contiguous tensor (an explicit `to_owned` copy
    /// to the audit).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `contiguous_with` for `Never` on a tensor that is
    /// not contiguous; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::{CopyPolicy, Tensor};
    /// let a = Tensor::<f32>::zeros(&[2, 3])?;
    /// assert!(!a.contiguous_with(CopyPolicy::IfNeeded)?.copied);
    /// assert!(a.t()?.contiguous_with(CopyPolicy::IfNeeded)?.copied);
    /// assert!(a.t()?.contiguous_with(CopyPolicy::Never).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_with(&self, policy: CopyPolicy) -> Result<MaybeCopied<T>> {
        match (policy, self.is_contiguous()) {
            (CopyPolicy::Always, _) => self.copied_as(self.shape(), CopyReason::ToOwned),
            (_, true) => Ok(self.not_copied(self.layout.clone())),
            (CopyPolicy::IfNeeded, false) => self.copied_as(self.shape(), CopyReason::Contiguous),
            (CopyPolicy::Never, false) => Err(Error::InvalidArgument {
                op: "contiguous_with",
                message: format!(
                    "shape {:?} with strides {:?} is not row-major contiguous and \
                     CopyPolicy::Never forbids the copy; pass CopyPolicy::IfNeeded to copy",
                    self.shape(),
                    self.strides()
                ),
            }),
        }
    }

    /// [`Tensor::contiguous_in`] with a [`CopyPolicy`], saying whether it copied: `Never` is
    /// this tensor when it is dense in `format` and an `Err` otherwise, `IfNeeded` is
    /// `contiguous_in(format)`, `Always` copies into `format` even a tensor already dense in it
    /// (an explicit `to_owned` copy to the audit).
    ///
    /// # Errors
    /// [`Error::FormatRank`] for the wrong number of dims; [`Error::InvalidArgument`] naming
    /// `contiguous_in_with` for `Never` on a tensor not dense in `format`; [`Error::Alloc`].
    ///
    /// ```
    /// use stridex::{CopyPolicy, MemoryFormat::ChannelsLast, Tensor};
    /// let x = Tensor::<f32>::zeros(&[1, 2, 3, 4])?;
    /// let y = x.contiguous_in_with(ChannelsLast, CopyPolicy::IfNeeded)?;
    /// assert!(y.copied && y.tensor.is_contiguous_in(ChannelsLast));
    /// assert!(!y.tensor.contiguous_in_with(ChannelsLast, CopyPolicy::Never)?.copied);
    /// assert!(x.contiguous_in_with(ChannelsLast, CopyPolicy::Never).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn contiguous_in_with(
        &self,
        format: MemoryFormat,
        policy: CopyPolicy,
    ) -> Result<MaybeCopied<T>> {
        const OP: &str = "contiguous_in_with";
        format.check_ndim(OP, self.ndim())?;
        let copied = |t: Tensor<T>| MaybeCopied {
            tensor: t,
            copied: true,
        };
        match (policy, self.is_contiguous_in(format)) {
            (CopyPolicy::Always, _) => {
                let dst = Layout::contiguous_in(self.shape(), format)?;
                Ok(copied(self.copy_to_fresh(dst, CopyReason::ToOwned)?))
            }
            (_, true) => Ok(self.not_copied(self.layout.clone())),
            (CopyPolicy::IfNeeded, false) => Ok(copied(self.contiguous_in(format)?)),
            (CopyPolicy::Never, false) => Err(Error::InvalidArgument {
                op: OP,
                message: format!(
                    "shape {:?} with strides {:?} is not dense in {format:?} and \
                     CopyPolicy::Never forbids the copy; pass CopyPolicy::IfNeeded to copy",
                    self.shape(),
                    self.strides()
                ),
            }),
        }
    }

    /// The elements in row-major order as one contiguous dim (NumPy's and PyTorch's
    /// `ravel`): a view when this tensor is row-major contiguous, otherwise one copy
    /// (reported to the audit as a reshape copy, implicit as `reshape`'s). Unlike
    /// `reshape(&[-1])`, the result always has stride 1.
    ///
    /// # Errors
    /// The copy's: [`Error::Alloc`], [`Error::ImplicitCopy`] inside
    /// [`forbid_implicit_copies`](crate::audit::forbid_implicit_copies).
    ///
    /// ```
    /// let a = stridex::Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// assert!(a.ravel()?.shares_storage(&a));
    /// let every_2nd = a.view(&[6])?.slice_step(0, .., 2)?; // a view of stride 2
    /// let r = every_2nd.ravel()?;
    /// assert_eq!((r.strides(), r.to_vec()), (&[1][..], vec![0, 2, 4]));
    /// assert!(!r.shares_storage(&a));
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn ravel(&self) -> Result<Tensor<T>> {
        let n = [self.numel()];
        if self.is_contiguous() {
            // A row-major layout's elements are `numel` consecutive offsets: one dim of
            // stride 1 (`view` merges them into one chunk).
            return Ok(self.not_copied(self.layout.view(&n)?).tensor);
        }
        Ok(self.copied_as(&n, CopyReason::ReshapeCopy)?.tensor)
    }

    /// [`Tensor::reshape`] in column-major order (NumPy's `reshape(shape, order='F')`): the
    /// first index varies fastest, in the input as in the result. A view when
    /// [`view_f`](Tensor::view_f) finds one, otherwise one copy into column-major strides
    /// (reported as `reshape`'s implicit copy).
    ///
    /// # Errors
    /// As [`Tensor::reshape`], naming `reshape_f`.
    ///
    /// ```
    /// use stridex::Tensor;
    /// let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3])?;
    /// // NumPy: np.arange(6).reshape(2, 3).reshape(3, 2, order='F')
    /// let f = a.reshape_f(&[3, 2])?;
    /// assert_eq!(f.to_vec(), vec![0, 4, 3, 2, 1, 5]);
    /// assert_eq!(f.strides(), &[1, 3]); // copied into column-major order
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn reshape_f(&self, shape: &(impl ShapeArg + ?Sized)) -> Result<Tensor<T>> {
        let shape = shape.resolve("reshape_f", self.numel())?;
        let reversed: Vec<usize> = shape.iter().rev().copied().collect();
        let r = self.reversed_dims().reshape(&reversed);
        Ok(r.map_err(|e| e.named("reshape_f"))?.reversed_dims())
    }

    /// Dims `start..` merged into one (PyTorch's `flatten(start_dim)`): [`Tensor::flatten`]
    /// up to the last dim. A view when those dims can be merged, otherwise one copy.
    ///
    /// # Errors
    /// As [`Tensor::flatten`].
    ///
    /// ```
    /// let a = stridex::Tensor::<f32>::zeros(&[2, 3, 4])?;
    /// assert_eq!(a.flatten_from(1)?.shape(), &[2, 12]);
    /// assert_eq!(a.flatten_from(0)?.shape(), &[24]);
    /// # Ok::<(), stridex::Error>(())
    /// ```
    #[track_caller]
    pub fn flatten_from(&self, start: impl Dim) -> Result<Tensor<T>> {
        self.flatten(start, -1)
    }

    /// This tensor's storage under `layout` (a view op's result), not copied.
    fn not_copied(&self, layout: Layout) -> MaybeCopied<T> {
        MaybeCopied {
            tensor: Tensor::view_of(self.storage.clone(), layout),
            copied: false,
        }
    }

    /// One row-major copy of this tensor, reported as `reason`, viewed as `shape` (which
    /// holds as many elements).
    #[track_caller]
    fn copied_as(&self, shape: &[usize], reason: CopyReason) -> Result<MaybeCopied<T>> {
        let copy = self.copy_to_fresh(Layout::contiguous(self.shape())?, reason)?;
        // Row-major storage can be viewed as any shape of the same element count.
        let layout = copy.layout.view(shape)?;
        Ok(MaybeCopied {
            tensor: Tensor::from_parts(copy.storage.clone(), layout),
            copied: true,
        })
    }
}
