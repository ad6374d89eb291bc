//! Range slicing (`slice`, `slice_step`), multi-dim indexing (`i`, `s![]`) and negative dims in
//! `permute`, as PyTorch and ndarray users write them.
//!
//! - A table of ranges and indices with the results Python gives, written out by hand.
//! - Property tests of `slice`, `slice_step` and `i` on random (flipped, transposed) tensors
//!   against a reference written here from Python's slice rules: each dim's index list by
//!   walking from the clamped start, then the elements gathered with `get`. Bounds include
//!   negative and huge values of several integer types, steps negative and huge, dims of
//!   size 0, and results that are empty.
//! - Errors: their variants and what their messages say.
//!
//! Case counts default to small numbers; set `PROPTEST_CASES` to run more.

use std::ops::Bound;

use crate::common::{all_indices, config};
use proptest::prelude::*;
use stridex::{Error, NewAxis, SliceItem, Tensor, s};

type Shape = Vec<usize>;
type Values = Vec<i64>;

/// `0..n` as a tensor of `shape` (row-major values, so each element names its position).
fn arange(shape: &[usize]) -> Tensor<i64> {
    let n: usize = shape.iter().product();
    Tensor::arange(0i64, n as i64, 1)
        .unwrap()
        .view(shape)
        .unwrap()
}

/// The shape and row-major elements of a view.
fn read(t: &Tensor<i64>) -> (Shape, Values) {
    (t.shape().to_vec(), t.to_vec())
}

// ---------------------------------------------------------------------------------------------
// (a) The table: results written by hand from Python
// ---------------------------------------------------------------------------------------------

#[test]
#[allow(clippy::reversed_empty_ranges)] // backward walks start above their end, as in Python
fn ranges_give_pythons_results() {
    // x = list(range(6)); each case is x[python] (or the stated walk for an included end).
    let x = arange(&[6]);
    macro_rules! case {
        ($python:literal, $range:expr, $step:expr, $want:expr) => {{
            let want: Vec<i64> = $want.to_vec();
            let got = x.slice_step(0, $range, $step).unwrap().to_vec();
            assert_eq!(
                got,
                want,
                "x[{}] as slice_step(0, {}, {})",
                $python,
                stringify!($range),
                $step
            );
            if $step == 1 {
                assert_eq!(x.slice(0, $range).unwrap().to_vec(), want, "x[{}]", $python);
            }
            let via_i = x.i(SliceItem::range_step($range, $step)).unwrap().to_vec();
            assert_eq!(via_i, want, "x[{}] through i", $python);
        }};
    }
    let none: [i64; 0] = [];
    case!("1:3", 1..3, 1, [1, 2]);
    case!("-2:", -2.., 1, [4, 5]);
    case!(":-2", ..-2, 1, [0, 1, 2, 3]);
    case!(":", .., 1, [0, 1, 2, 3, 4, 5]);
    case!("2:5", 2..=4, 1, [2, 3, 4]);
    case!(":", ..=-1, 1, [0, 1, 2, 3, 4, 5]);
    case!(":-2", ..=-3, 1, [0, 1, 2, 3]);
    case!("-3:-1", -3..=-2, 1, [3, 4]);
    case!("-6:-5", -6..=-6, 1, [0]);
    case!("-7:1", -7..=-6, 1, [0]);
    case!("0:-6", 0..=-7, 1, none);
    case!("4:100", 4..100, 1, [4, 5]);
    case!("-100:2", -100..2, 1, [0, 1]);
    case!("3:3", 3..3, 1, none);
    case!("4:1", 4..1, 1, none);
    case!("10:", 10.., 1, none);
    case!(":-10", ..-10, 1, none);
    case!("::2", .., 2, [0, 2, 4]);
    case!("1::2", 1.., 2, [1, 3, 5]);
    case!("1:5:3", 1..5, 3, [1, 4]);
    case!("::7", .., 7, [0]);
    case!("::-1", .., -1, [5, 4, 3, 2, 1, 0]);
    case!("5:1:-1", 5..1, -1, [5, 4, 3, 2]);
    case!("5:0:-1", 5..=1, -1, [5, 4, 3, 2, 1]);
    case!("::-1", ..=0, -1, [5, 4, 3, 2, 1, 0]);
    case!("::-2", .., -2, [5, 3, 1]);
    case!("-1:-4:-1", -1..-4, -1, [5, 4, 3]);
    case!("-2::-2", -2.., -2, [4, 2, 0]);
    case!("2::-1", 2.., -1, [2, 1, 0]);
    case!(":2:-1", ..2, -1, [5, 4, 3]);
    case!("100:-100:-1", 100..-100, -1, [5, 4, 3, 2, 1, 0]);
    case!("1:5:-1", 1..5, -1, none);
    case!("::-7", .., -7, [5]);
    case!("::maxsize", .., isize::MAX, [0]);
    case!("::-maxsize-1", .., isize::MIN, [5]);
    // Bounds of every integer type, huge ones included: never out of bounds, never a panic.
    case!("1:3", 1u32..3u32, 1, [1, 2]);
    case!("-2:", -2i64.., 1, [4, 5]);
    case!("1:", 1usize.., 1, [1, 2, 3, 4, 5]);
    case!(
        "-maxsize-1:maxsize",
        i64::MIN..i64::MAX,
        1,
        [0, 1, 2, 3, 4, 5]
    );
    case!("-maxsize-1:-maxsize", i64::MIN..=i64::MIN, 1, none);
    case!("::-1", ..=i64::MIN, -1, [5, 4, 3, 2, 1, 0]);
    case!("maxsize:maxsize+1", isize::MAX..=isize::MAX, 1, none);
    case!("2**64-1:", usize::MAX.., 1, none);
    case!(":2**64-1", ..usize::MAX, 1, [0, 1, 2, 3, 4, 5]);
    case!(":2**64", ..=u64::MAX, 1, [0, 1, 2, 3, 4, 5]);
    case!("2**64-1::-1", u64::MAX.., -1, [5, 4, 3, 2, 1, 0]);
    case!("-1:-2**31:-2", -1..i32::MIN, -2, [5, 3, 1]);
}

#[test]
fn multi_dim_indices_give_pythons_results() {
    // x = np.arange(24).reshape(2, 3, 4); each case is x[python].
    let x = arange(&[2, 3, 4]);
    macro_rules! case {
        ($python:literal, $got:expr, $shape:expr, $values:expr) => {{
            let got: Tensor<i64> = $got.unwrap();
            let values: Values = $values.into_iter().collect();
            assert_eq!(read(&got), ($shape.to_vec(), values), "x[{}]", $python);
            assert!(got.shares_storage(&x), "x[{}] is a view", $python);
        }};
    }
    case!(
        ":, 1:3, ::2",
        x.i(s![.., 1..3, ..;2]),
        [2, 2, 2],
        [4, 6, 8, 10, 16, 18, 20, 22]
    );
    case!("-1, ::-1, 0", x.i(s![-1, ..;-1, 0]), [3], [20, 16, 12]);
    case!("0, None", x.i(s![0, NewAxis]), [1, 3, 4], 0..12);
    case!(
        "..., None",
        x.i(s![.., .., .., NewAxis]),
        [2, 3, 4, 1],
        0..24
    );
    case!("1", x.i(1), [3, 4], 12..24);
    case!(
        ":, -1",
        x.i((.., -1)),
        [2, 4],
        [8, 9, 10, 11, 20, 21, 22, 23]
    );
    case!(
        "None, :, 1, None, 1:3",
        x.i(s![NewAxis, .., 1, NewAxis, 1..3]),
        [1, 2, 1, 2],
        [5, 6, 17, 18]
    );
    case!("1, 2, 3", x.i((1, 2, 3)), [], [23]);
    case!(
        "::2, 1:, 3:0:-2",
        x.i(s![..;2, 1.., 3..0;-2]),
        [1, 2, 2],
        [7, 5, 11, 9]
    );
    case!("1:", x.i(1..), [1, 3, 4], 12..24);
    case!("-1:, :, -2", x.i((-1.., .., -2)), [1, 3], [14, 18, 22]);
    case!("()", x.i(()), [2, 3, 4], 0..24);
    case!("None", x.i(NewAxis), [1, 2, 3, 4], 0..24);
    case!(
        "0, 0:2, 0, None, None (u64, i64)",
        x.i((0u64, 0i64..2, 0usize, NewAxis, NewAxis)),
        [2, 1, 1],
        [0, 4]
    );
    case!(
        "0, 1, 2:, ::-1 of 4 dims",
        x.view(&[2, 3, 2, 2])
            .unwrap()
            .i((0, 1, 1.., SliceItem::range_step(.., -1))),
        [1, 2],
        [7, 6]
    );
}

#[test]
fn one_index_is_one_layout_like_the_ops_it_stands_for() {
    let x = arange(&[3, 4, 5]).flip(1).unwrap();
    let l = x.layout();
    // A NewAxis gets unsqueeze's stride; an integer is select; a range is slice_step.
    assert_eq!(x.i(s![NewAxis]).unwrap().layout(), &l.unsqueeze(0).unwrap());
    assert_eq!(
        x.i(s![.., NewAxis]).unwrap().layout(),
        &l.unsqueeze(1).unwrap()
    );
    assert_eq!(
        x.i(s![.., .., .., NewAxis]).unwrap().layout(),
        &l.unsqueeze(3).unwrap()
    );
    assert_eq!(x.i(2).unwrap().layout(), &l.select(0, 2).unwrap());
    assert_eq!(x.i((.., -1)).unwrap().layout(), &l.select(1, 3).unwrap());
    let chained = l
        .slice(0, 2, -4, -1)
        .unwrap()
        .select(1, 1)
        .unwrap()
        .unsqueeze(1)
        .unwrap();
    assert_eq!(x.i(s![2..-4;-1, 1, NewAxis]).unwrap().layout(), &chained);
    // Items built at run time: a slice, a Vec, or a reference to one.
    let items = vec![SliceItem::from(1..), SliceItem::range_step(.., 2)];
    let want = x.i(s![1.., ..;2]).unwrap();
    assert_eq!(x.i(&items).unwrap().layout(), want.layout());
    assert_eq!(x.i(&items[..]).unwrap().layout(), want.layout());
    assert_eq!(x.i(items).unwrap().layout(), want.layout());
    // The three tensor types give the same view.
    let v = x.as_view().i(s![1.., ..;2, -1]).unwrap();
    assert_eq!(v.layout(), x.i(s![1.., ..;2, -1]).unwrap().layout());
    let mut y = arange(&[2, 3]);
    y.view_mut()
        .unwrap()
        .i(s![.., 1])
        .unwrap()
        .fill(-1)
        .unwrap();
    y.view_mut()
        .unwrap()
        .slice_step(1, .., -2)
        .unwrap()
        .i(0)
        .unwrap()
        .fill(-2)
        .unwrap();
    assert_eq!(y.to_vec(), vec![-2, -1, -2, 3, -1, 5]);
}

#[test]
fn permute_takes_negative_dims() {
    let x = arange(&[2, 3, 4]);
    assert_eq!(x.permute(&[-1, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    assert_eq!(
        x.permute(&[2, -3, -2]).unwrap().layout(),
        x.permute(&[2, 0, 1]).unwrap().layout()
    );
    let dims: Vec<usize> = vec![1, 2, 0];
    assert_eq!(x.permute(&dims).unwrap().shape(), &[3, 4, 2]);
    assert_eq!(x.permute(&[1i64, -1, 0]).unwrap().shape(), &[3, 4, 2]);
    assert_eq!(
        x.as_view().permute(&[-2, -1, -3]).unwrap().shape(),
        &[3, 4, 2]
    );
    let mut y = arange(&[2, 3]);
    y.view_mut()
        .unwrap()
        .permute(&[-1, 0])
        .unwrap()
        .i(0)
        .unwrap()
        .fill(9)
        .unwrap();
    assert_eq!(y.to_vec(), vec![9, 1, 2, 9, 4, 5]);
}

// ---------------------------------------------------------------------------------------------
// (c) Errors
// ---------------------------------------------------------------------------------------------

/// `err`'s message contains every one of `parts`.
fn says(err: &Error, parts: &[&str]) {
    let msg = err.to_string();
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
    }
}

#[test]
fn slice_errors() {
    let x = arange(&[2, 3]);
    let e = x.slice_step(1, .., 0).unwrap_err();
    assert_eq!(
        e,
        Error::ZeroStep {
            op: "slice_step",
            dim: 1
        }
    );
    says(&e, &["slice_step", "step", "dim 1", "zero"]);
    let e = x.slice(-3, ..).unwrap_err();
    assert_eq!(
        e,
        Error::NegativeDimOutOfRange {
            op: "slice",
            dim: -3,
            ndim: 2
        }
    );
    says(&e, &["slice", "-3", "-2"]);
    let e = x.slice(2, 0..1).unwrap_err();
    assert_eq!(
        e,
        Error::DimOutOfRange {
            op: "slice",
            dim: 2,
            ndim: 2
        }
    );
    says(&e, &["slice", "dim 2"]);
    let e = x.slice_step(-3, 0..1, 2).unwrap_err();
    assert!(matches!(
        e,
        Error::NegativeDimOutOfRange {
            op: "slice_step",
            dim: -3,
            ..
        }
    ));
    // A 0-dim tensor has no dim to slice.
    let scalar = arange(&[]);
    assert!(matches!(
        scalar.slice(0, ..),
        Err(Error::DimOutOfRange { .. })
    ));
}

#[test]
fn index_errors_name_the_item_its_dim_and_the_shape() {
    let x = arange(&[2, 3]);
    let e = x.i((0, 5)).unwrap_err();
    let Error::IndexItem {
        op,
        item,
        dim,
        shape,
        cause,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!((*op, *item, *dim, &shape[..]), ("i", 1, 1, &[2, 3][..]));
    assert_eq!(
        **cause,
        Error::IndexOutOfBounds {
            op: "i",
            dim: 1,
            index: 5,
            size: 3
        }
    );
    says(
        &e,
        &["i: item 1", "dim 1", "[2, 3]", "index 5", "size 3", "-3..3"],
    );
    assert_eq!(
        std::error::Error::source(&e).map(|c| c.to_string()),
        Some(cause.to_string())
    );

    let e = x.i((-3, ..)).unwrap_err();
    assert!(matches!(&e, Error::IndexItem { item: 0, dim: 0, cause, .. }
        if **cause == Error::IndexOutOfBounds { op: "i", dim: 0, index: -3, size: 2 }));
    says(&e, &["i: item 0", "index -3", "-2..2"]);

    // NewAxis items count in the position, not in the dims.
    let e = x.i(s![NewAxis, .., ..;0]).unwrap_err();
    assert!(matches!(&e, Error::IndexItem { item: 2, dim: 1, cause, .. }
        if **cause == Error::ZeroStep { op: "i", dim: 1 }));
    says(&e, &["i: item 2", "dim 1 of shape [2, 3]", "step", "zero"]);

    let e = x.i((0, 0, 0)).unwrap_err();
    assert!(matches!(&e, Error::IndexItem { item: 2, dim: 2, cause, .. }
        if matches!(**cause, Error::RankMismatch { op: "i", expected: 2, got: 3, .. })));
    says(
        &e,
        &[
            "i: item 2",
            "no dim left",
            "[2, 3]",
            "at most 2",
            "got 3",
            "NewAxis",
        ],
    );
    // More items than dims is reported before a bad item earlier on.
    assert!(matches!(
        x.i((9, NewAxis, 0, 0)),
        Err(Error::IndexItem {
            item: 3,
            dim: 2,
            ..
        })
    ));
    assert_eq!(
        x.i(s![NewAxis, 0, NewAxis, 0, NewAxis]).unwrap().shape(),
        &[1, 1, 1]
    );

    // Huge integers of every type are out of range, not a panic or a wrap.
    for e in [
        x.i(u64::MAX).unwrap_err(),
        x.i(usize::MAX).unwrap_err(),
        x.i(i64::MIN).unwrap_err(),
        x.i(isize::MIN).unwrap_err(),
        x.i((0, i32::MAX)).unwrap_err(),
    ] {
        assert!(
            matches!(&e, Error::IndexItem { cause, .. }
            if matches!(**cause, Error::IndexOutOfBounds { .. })),
            "{e:?}"
        );
    }
    let scalar = arange(&[]);
    let e = scalar.i(0).unwrap_err();
    assert!(matches!(
        e,
        Error::IndexItem {
            item: 0,
            dim: 0,
            ..
        }
    ));
    says(&e, &["no dim left in shape []"]);
    assert_eq!(scalar.i(s![NewAxis, NewAxis]).unwrap().shape(), &[1, 1]);
    // TensorView and TensorMut report the same error.
    assert_eq!(x.as_view().i((0, 5)).unwrap_err(), x.i((0, 5)).unwrap_err());
    let mut y = arange(&[2, 3]);
    assert_eq!(
        y.view_mut().unwrap().i((0, 5)).unwrap_err(),
        x.i((0, 5)).unwrap_err()
    );
}

#[test]
fn permute_errors() {
    let x = arange(&[2, 3, 4]);
    let e = x.permute(&[-4, 0, 1]).unwrap_err();
    assert_eq!(
        e,
        Error::NegativeDimOutOfRange {
            op: "permute",
            dim: -4,
            ndim: 3
        }
    );
    says(&e, &["permute", "-4", "-3"]);
    // Counted from the end, -1 is 2: named twice.
    let e = x.permute(&[-1, 2, 0]).unwrap_err();
    assert_eq!(
        e,
        Error::NotAPermutation {
            dims: vec![2, 2, 0],
            ndim: 3
        }
    );
    says(&e, &["permute", "[2, 2, 0]", "0..3"]);
    assert!(matches!(
        x.permute(&[0, 1]),
        Err(Error::NotAPermutation { .. })
    ));
    assert!(matches!(
        x.permute(&[0u64, 1, u64::MAX]),
        Err(Error::NotAPermutation { .. })
    ));
    assert!(matches!(
        x.permute(&[0, 1, i64::MIN]),
        Err(Error::NegativeDimOutOfRange { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// (b) Property tests against a reference written from Python's rules
// ---------------------------------------------------------------------------------------------

/// An integer type a bound or an index is written in.
#[derive(Clone, Copy, Debug)]
enum Ty {
    I32,
    I64,
    Isize,
    Usize,
    U32,
    U64,
}

impl Ty {
    /// `v` moved into this type's range (a negative value becomes 0 for unsigned types).
    fn fit(self, v: i128) -> i128 {
        let (lo, hi) = match self {
            Ty::I32 => (i32::MIN as i128, i32::MAX as i128),
            Ty::I64 => (i64::MIN as i128, i64::MAX as i128),
            Ty::Isize => (isize::MIN as i128, isize::MAX as i128),
            Ty::Usize => (0, usize::MAX as i128),
            Ty::U32 => (0, u32::MAX as i128),
            Ty::U64 => (0, u64::MAX as i128),
        };
        v.clamp(lo, hi)
    }
}

/// A range as written: its type, start and end.
#[derive(Clone, Debug)]
struct RangeSpec {
    ty: Ty,
    start: Option<i128>,
    end: Bound<i128>,
}

/// `$body` with `$r` bound to `$spec` written as a Rust range of its type.
macro_rules! with_range {
    (@ty $t:ty, $spec:ident, $r:ident, $body:expr) => {{
        let c = |v: i128| v as $t; // in range: `RangeSpec` values are fitted to `ty`
        match ($spec.start, $spec.end) {
            (Some(a), Bound::Excluded(b)) => { let $r = c(a)..c(b); $body }
            (Some(a), Bound::Included(b)) => { let $r = c(a)..=c(b); $body }
            (Some(a), Bound::Unbounded) => { let $r = c(a)..; $body }
            (None, Bound::Excluded(b)) => { let $r = ..c(b); $body }
            (None, Bound::Included(b)) => { let $r = ..=c(b); $body }
            (None, Bound::Unbounded) => { let $r = ..; $body }
        }
    }};
    ($spec:expr, |$r:ident| $body:expr) => {{
        let spec: &RangeSpec = $spec;
        match spec.ty {
            Ty::I32 => with_range!(@ty i32, spec, $r, $body),
            Ty::I64 => with_range!(@ty i64, spec, $r, $body),
            Ty::Isize => with_range!(@ty isize, spec, $r, $body),
            Ty::Usize => with_range!(@ty usize, spec, $r, $body),
            Ty::U32 => with_range!(@ty u32, spec, $r, $body),
            Ty::U64 => with_range!(@ty u64, spec, $r, $body),
        }
    }};
}

/// The indices Python's slicing keeps of a dim of size `n`, by walking: the start resolved
/// (negative from the end) and clamped as Python does, then every `step`-th index while it is
/// in the dim and has not passed the end (an included end is passed after it is kept).
fn reference(n: usize, range: &RangeSpec, step: i128) -> Vec<usize> {
    let n = n as i128;
    let resolve = |v: i128| if v < 0 { v + n } else { v };
    let mut i = match range.start {
        None if step > 0 => 0,
        None => n - 1,
        Some(s) if step > 0 => resolve(s).clamp(0, n),
        Some(s) => resolve(s).clamp(-1, n - 1),
    };
    let mut out = vec![];
    while 0 <= i && i < n {
        let before_end = match range.end {
            Bound::Unbounded => true,
            Bound::Excluded(e) if step > 0 => i < resolve(e),
            Bound::Excluded(e) => i > resolve(e),
            Bound::Included(e) if step > 0 => i <= resolve(e),
            Bound::Included(e) => i >= resolve(e),
        };
        if !before_end {
            break;
        }
        out.push(i as usize);
        i += step;
    }
    out
}

/// A bound: mostly small, sometimes far past any dim.
fn bound() -> impl Strategy<Value = i128> {
    prop_oneof![
        6 => -8i128..8,
        1 => prop::sample::select(vec![
            i64::MIN as i128, i64::MAX as i128, i32::MIN as i128, i32::MAX as i128,
            u64::MAX as i128, -(1i128 << 40), 1i128 << 40,
        ]),
    ]
}

fn arb_ty() -> impl Strategy<Value = Ty> {
    prop::sample::select(vec![
        Ty::I32,
        Ty::I64,
        Ty::Isize,
        Ty::Usize,
        Ty::U32,
        Ty::U64,
    ])
}

fn arb_range() -> impl Strategy<Value = RangeSpec> {
    (arb_ty(), prop::option::of(bound()), 0u8..3, bound()).prop_map(|(ty, start, end_kind, end)| {
        let end = match end_kind {
            0 => Bound::Excluded(ty.fit(end)),
            1 => Bound::Included(ty.fit(end)),
            _ => Bound::Unbounded,
        };
        RangeSpec {
            ty,
            start: start.map(|s| ty.fit(s)),
            end,
        }
    })
}

/// A step: mostly small (0 now and then, an error), sometimes huge.
fn step() -> impl Strategy<Value = isize> {
    prop_oneof![
        12 => (-4isize..=4).prop_filter("0 is rare", |&s| s != 0),
        1 => Just(0isize),
        2 => prop::sample::select(vec![isize::MIN, isize::MAX, -7, 7]),
    ]
}

/// A base tensor: up to 3 dims of sizes 0..=5, distinct values, sometimes flipped or
/// transposed so its strides are not row-major.
fn arb_base() -> impl Strategy<Value = Tensor<i64>> {
    (prop::collection::vec(0usize..=5, 0..=3), any::<u8>()).prop_map(|(shape, how)| {
        let mut t = arange(&shape);
        if how & 1 == 1 && !shape.is_empty() {
            t = t.flip(0).unwrap();
        }
        if how & 2 == 2 && shape.len() >= 2 {
            t = t.transpose(0, -1).unwrap();
        }
        t
    })
}

/// An item of a multi-dim index, as generated.
#[derive(Clone, Debug)]
enum ItemSpec {
    NewAxis,
    Index(Ty, i128),
    Range(RangeSpec, isize),
}

impl ItemSpec {
    fn item(&self) -> SliceItem {
        match self {
            ItemSpec::NewAxis => NewAxis.into(),
            &ItemSpec::Index(ty, v) => match ty {
                Ty::I32 => (v as i32).into(),
                Ty::I64 => (v as i64).into(),
                Ty::Isize => (v as isize).into(),
                Ty::Usize => (v as usize).into(),
                Ty::U32 => (v as u32).into(),
                Ty::U64 => (v as u64).into(),
            },
            ItemSpec::Range(r, step) => with_range!(r, |range| SliceItem::range_step(range, *step)),
        }
    }
}

fn arb_item() -> impl Strategy<Value = ItemSpec> {
    prop_oneof![
        1 => Just(ItemSpec::NewAxis),
        2 => (arb_ty(), prop_oneof![4 => -7i128..7, 1 => bound()])
            .prop_map(|(ty, v)| ItemSpec::Index(ty, ty.fit(v))),
        3 => (arb_range(), step()).prop_map(|(r, s)| ItemSpec::Range(r, s)),
    ]
}

/// The elements of `base` at the index lists `picks` (one per dim), gathered with `get` in
/// row-major order of the result.
fn gather(base: &Tensor<i64>, picks: &[Vec<usize>]) -> Vec<i64> {
    let shape: Vec<usize> = picks.iter().map(Vec::len).collect();
    all_indices(&shape)
        .iter()
        .map(|j| {
            let at: Vec<usize> = j.iter().zip(picks).map(|(&k, p)| p[k]).collect();
            base.get(&at).unwrap()
        })
        .collect()
}

/// What `i(items)` of `base` should give: the shape and elements, or the error's item
/// position, dim and cause.
fn expected_index(
    base: &Tensor<i64>,
    items: &[ItemSpec],
) -> Result<(Shape, Values), (usize, usize, Error)> {
    let shape = base.shape();
    let n = shape.len();
    // Too many items is found first.
    let taking: Vec<usize> = (0..items.len())
        .filter(|&k| !matches!(items[k], ItemSpec::NewAxis))
        .collect();
    if taking.len() > n {
        let cause = Error::RankMismatch {
            op: "i",
            what: "indexed dims (at most)",
            expected: n,
            got: taking.len(),
        };
        return Err((taking[n], n, cause));
    }
    // One index list per dim of `base` (a single index for a selected dim), and the result's
    // shape.
    let mut picks: Vec<Vec<usize>> = shape.iter().map(|&s| (0..s).collect()).collect();
    let mut out_shape = vec![];
    let mut d = 0;
    for (k, item) in items.iter().enumerate() {
        match item {
            ItemSpec::NewAxis => out_shape.push(1),
            &ItemSpec::Index(_, v) => {
                let size = shape[d] as i128;
                let at = if v < 0 { v + size } else { v };
                if !(0..size).contains(&at) {
                    let index = v.clamp(isize::MIN as i128, isize::MAX as i128) as i64;
                    let cause = Error::IndexOutOfBounds {
                        op: "i",
                        dim: d,
                        index,
                        size: shape[d],
                    };
                    return Err((k, d, cause));
                }
                picks[d] = vec![at as usize];
                d += 1;
            }
            ItemSpec::Range(r, step) => {
                if *step == 0 {
                    return Err((k, d, Error::ZeroStep { op: "i", dim: d }));
                }
                picks[d] = reference(shape[d], r, *step as i128);
                out_shape.push(picks[d].len());
                d += 1;
            }
        }
    }
    out_shape.extend_from_slice(&shape[d..]);
    Ok((out_shape, gather(base, &picks)))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn slice_and_slice_step_match_python(
        base in arb_base(), dim in -4i64..4, range in arb_range(), step in step(), plain in any::<bool>(),
    ) {
        let n = base.ndim() as i64;
        let plain = plain && step == 1;
        let got = with_range!(&range, |r| if plain { base.slice(dim, r) } else { base.slice_step(dim, r, step) });
        let op = if plain { "slice" } else { "slice_step" };
        if dim < -n {
            prop_assert!(matches!(got, Err(Error::NegativeDimOutOfRange { .. })), "{:?}", got);
            return Ok(());
        }
        if dim >= n {
            prop_assert!(matches!(got, Err(Error::DimOutOfRange { .. })), "{:?}", got);
            return Ok(());
        }
        let d = if dim < 0 { dim + n } else { dim } as usize;
        if step == 0 {
            prop_assert_eq!(got.unwrap_err(), Error::ZeroStep { op, dim: d });
            return Ok(());
        }
        let got = got.unwrap();
        let mut picks: Vec<Vec<usize>> = base.shape().iter().map(|&s| (0..s).collect()).collect();
        picks[d] = reference(base.shape()[d], &range, step as i128);
        let mut shape = base.shape().to_vec();
        shape[d] = picks[d].len();
        prop_assert_eq!(read(&got), (shape, gather(&base, &picks)));
        prop_assert!(got.shares_storage(&base));
        // The same slice as a one-item index.
        let item = with_range!(&range, |r| SliceItem::range_step(r, step));
        let mut items = vec![SliceItem::from(..); d];
        items.push(item);
        let via_i = base.i(&items[..]).unwrap();
        prop_assert_eq!(via_i.layout(), got.layout());
    }

    #[test]
    fn i_matches_python(base in arb_base(), specs in prop::collection::vec(arb_item(), 0..=5), view in any::<bool>()) {
        let items: Vec<SliceItem> = specs.iter().map(ItemSpec::item).collect();
        let got = if view {
            base.as_view().i(items).map(|v| v.to_tensor())
        } else {
            base.i(&items[..])
        };
        match expected_index(&base, &specs) {
            Ok(want) => {
                let got = got.unwrap();
                prop_assert_eq!(read(&got), want);
                prop_assert!(got.shares_storage(&base));
            }
            Err((item, dim, cause)) => {
                let want = Error::IndexItem { op: "i", item, dim, shape: base.shape().to_vec(), cause: Box::new(cause) };
                prop_assert_eq!(got.unwrap_err(), want);
            }
        }
    }
}
