//! PyTorch's comparison names, `x.gt(0.5)`, `x.eq(&y)` ..., as inherent methods: each is the
//! comparison helper of the longer name ([`Tensor::cmp_gt`] ...), whose docs hold the rules.
//!
//! # Note [comparison names]
//!
//! Without these, `x.gt(0.5)` resolves to `Iterator::gt` or `PartialOrd::gt` and the compiler
//! answers that a tensor "is not an iterator". Inherent methods win method resolution over
//! trait methods, so these are found first. For `eq` and `ne` that shadows
//! [`PartialEq::eq`] / [`PartialEq::ne`] *in method-call syntax only*:
//!
//! - `a == b`, `a != b`, `assert_eq!(a, b)` and every generic use of `PartialEq` are
//!   unchanged: operators and trait bounds call the trait, never an inherent method. They
//!   compare whole tensors and give one `bool`.
//! - `a.eq(&b)` is the elementwise comparison (PyTorch's `torch.eq`): a `u8` mask in a
//!   `Result`. Code that wants the trait's `bool` in call syntax writes `PartialEq::eq(&a,
//!   &b)` (or `a == b`).
//!
//! That split is PyTorch's own: `a == b` and `a.eq(b)` both give masks there, and
//! `torch.equal(a, b)` the `bool`; in Rust `==` must give `bool`, so it keeps that meaning and
//! the method name takes PyTorch's.

use super::compare::CmpRhs;
use crate::element::Element;
use crate::error::Result;
use crate::tensor::Tensor;

macro_rules! comparison_names {
    ($($name:ident $long:ident $op:literal $example:literal;)*) => {
        impl<T: Element> Tensor<T> {
            $(
                #[doc = concat!("Elementwise `self ", $op, " other`: 1 where it holds, 0 elsewhere ([`Tensor::", stringify!($long), "`] under PyTorch's name, `x.", stringify!($name), "(other)`).")]
                ///
                /// `other` is a scalar of this tensor's type or a tensor of any element type,
                /// borrowed or owned, broadcast against `self` ([`CmpRhs`]). An inherent
                /// method, so it is found before the `Iterator` / `PartialOrd` / `PartialEq`
                /// method of the same name (Note \[comparison names\] in this module: `==`
                /// still compares whole tensors).
                ///
                /// # Errors
                #[doc = concat!("As [`Tensor::", stringify!($long), "`]: [`Error::BroadcastMismatch`](crate::Error::BroadcastMismatch) (reported for `", stringify!($name), "`) if the shapes do not broadcast.")]
                ///
                /// ```
                /// use stridex::Tensor;
                /// let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3])?;
                #[doc = concat!("assert_eq!(x.", stringify!($name), "(2.0)?.to_vec(), vec!", $example, ");")]
                #[doc = concat!("assert_eq!(x.", stringify!($name), "(&Tensor::full(&[1], 2i32)?)?.to_vec(), vec!", $example, ");")]
                #[doc = concat!("assert!(x.", stringify!($name), "(&Tensor::<f32>::zeros(&[2])?).is_err());")]
                /// # Ok::<(), stridex::Error>(())
                /// ```
                pub fn $name(&self, other: impl CmpRhs<T>) -> Result<Tensor<u8>> {
                    self.$long(other).map_err(|e| e.named(stringify!($name)))
                }
            )*
        }
    };
}

comparison_names! {
    eq cmp_eq "==" "[0, 1, 0]";
    ne cmp_ne "!=" "[1, 0, 1]";
    lt cmp_lt "<" "[1, 0, 0]";
    le cmp_le "<=" "[1, 1, 0]";
    gt cmp_gt ">" "[0, 0, 1]";
    ge cmp_ge ">=" "[0, 1, 1]";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inherent_names_shadow_trait_methods_but_not_operators() {
        let a = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
        let b = Tensor::from_vec(vec![1i32, 0, 3], &[3]).unwrap();
        // Method syntax: the elementwise comparison.
        assert_eq!(a.eq(&b).unwrap().to_vec(), vec![1, 0, 1]);
        assert_eq!(a.ne(&b).unwrap().to_vec(), vec![0, 1, 0]);
        assert_eq!(a.gt(1).unwrap().to_vec(), vec![0, 1, 1]);
        // Operators and the trait in call syntax: whole tensors, one bool.
        assert!(a != b);
        assert!(!PartialEq::eq(&a, &b));
        assert!(PartialEq::eq(&a, &a.clone()));
        // Errors are reported for the name called.
        let err = a.le(Tensor::<i32>::zeros(&[2]).unwrap()).unwrap_err();
        assert!(matches!(
            err,
            crate::Error::BroadcastMismatch { op: "le", .. }
        ));
    }
}
