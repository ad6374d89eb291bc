//! Sliding windows over several dims at once, NumPy's `sliding_window_view`: the window
//! positions stay where their dims were, and each window's own dims are appended at the end.
//! (One dim with a step is [`Layout::unfold`], PyTorch's form.) Windows overlap, so the
//! result addresses elements several times: a read-only view.

use super::Layout;
use super::dims::Dims;
use crate::error::{Error, Result};

impl Layout {
    /// Every window of `window[i]` elements along dim `axes[i]` (NumPy's
    /// `sliding_window_view(x, window, axis=axes)`): dim `axes[i]` shrinks to
    /// `size - window[i] + 1` window positions (same stride), and a new trailing dim of length
    /// `window[i]` with the dim's stride walks the window, in the order of `axes`. As in NumPy
    /// a dim may be named twice (windows of windows), and a window of 0 is allowed (`size + 1`
    /// empty windows).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `window` and `axes` differ in length,
    /// [`Error::DimOutOfRange`], [`Error::WindowTooLarge`] if a window is longer than what is
    /// left of its dim.
    ///
    /// ```
    /// use stridex::Layout;
    /// let l = Layout::contiguous(&[4, 5])?.sliding_window_view(&[2, 3], &[0, 1])?;
    /// assert_eq!((l.shape(), l.strides()), (&[3, 3, 2, 3][..], &[5, 1, 5, 1][..]));
    /// let rows = Layout::contiguous(&[4, 5])?.sliding_window_view(&[3], &[1])?;
    /// assert_eq!(rows.shape(), &[4, 3, 3]);
    /// assert!(Layout::contiguous(&[4])?.sliding_window_view(&[5], &[0]).is_err());
    /// # Ok::<(), stridex::Error>(())
    /// ```
    pub fn sliding_window_view(&self, window: &[usize], axes: &[usize]) -> Result<Layout> {
        const OP: &str = "sliding_window_view";
        if window.len() != axes.len() {
            return Err(Error::InvalidArgument {
                op: OP,
                message: format!(
                    "{} window lengths {window:?} but {} axes {axes:?}; give one window length \
                     per axis",
                    window.len(),
                    axes.len()
                ),
            });
        }
        let (mut shape, mut strides) = (Dims::from(self.shape()), Dims::from(self.strides()));
        for (&w, &d) in window.iter().zip(axes) {
            self.check_dim(OP, d)?;
            // `shape[d]` is what earlier windows on the same dim left of it.
            let Some(left) = shape[d].checked_sub(w) else {
                return Err(Error::WindowTooLarge {
                    op: OP,
                    dim: d,
                    size: w,
                    dim_size: shape[d],
                });
            };
            shape[d] = left + 1;
            shape.push(w);
            strides.push(self.strides()[d]);
        }
        // Window positions and offsets within a window both stay inside the dim, so every
        // addressed offset is one of this layout's; `checked` also rejects an element count
        // past `isize` (a window of 0 grows its dim by one).
        Layout::checked(OP, &shape, &strides, self.offset())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_numpy() {
        let l = Layout::contiguous(&[6]).unwrap();
        let w = l.sliding_window_view(&[3], &[0]).unwrap();
        assert_eq!((w.shape(), w.strides()), (&[4, 3][..], &[1, 1][..]));
        // A dim named twice: windows of windows, as NumPy's axis=(0, 0).
        let ww = l.sliding_window_view(&[2, 3], &[0, 0]).unwrap();
        assert_eq!(ww.shape(), &[3, 2, 3]); // 6 - 2 + 1 positions, then 5 - 3 + 1
        let e = l.sliding_window_view(&[0], &[0]).unwrap();
        assert_eq!(e.shape(), &[7, 0]);
        assert!(matches!(
            l.sliding_window_view(&[4, 4], &[0, 0]),
            Err(Error::WindowTooLarge {
                size: 4,
                dim_size: 3,
                ..
            })
        ));
        assert!(matches!(
            l.sliding_window_view(&[1], &[1]),
            Err(Error::DimOutOfRange { dim: 1, .. })
        ));
        assert!(matches!(
            l.sliding_window_view(&[1, 1], &[0]),
            Err(Error::InvalidArgument { .. })
        ));
        // Flipped input: windows walk in the flipped direction.
        let f = l.flip(0).unwrap().sliding_window_view(&[2], &[0]).unwrap();
        assert_eq!((f.strides(), f.offset()), (&[-1, -1][..], 5));
    }
}
