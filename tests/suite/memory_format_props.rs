//! Memory formats: contiguity in a format agrees with a brute-force definition, conversions keep
//! values, and a tensor already in a format converts without a copy.

use proptest::prelude::*;
use stridex::{Layout, MemoryFormat, Tensor};

/// Memory order (outermost first) of a format for `ndim` dims.
fn order(format: MemoryFormat, ndim: usize) -> Vec<usize> {
    match format {
        MemoryFormat::Contiguous => (0..ndim).collect(),
        MemoryFormat::ChannelsLast => vec![0, 2, 3, 1],
        MemoryFormat::ChannelsLast3d => vec![0, 2, 3, 4, 1],
    }
}

/// The definition: walking the indices with the dims taken in the format's memory order, the
/// storage offsets are `offset, offset + 1, ...` (vacuous for empty layouts).
fn dense_in_by_definition(l: &Layout, format: MemoryFormat) -> bool {
    if format.ndim().is_some_and(|n| n != l.ndim()) {
        return false;
    }
    let ord = order(format, l.ndim());
    let shape: Vec<usize> = ord.iter().map(|&d| l.shape()[d]).collect();
    let n: usize = shape.iter().product();
    let mut idx = vec![0usize; l.ndim()];
    for k in 0..n {
        // Decompose k over `shape` (memory order), then scatter into logical dims.
        let mut rem = k;
        for (pos, &d) in ord.iter().enumerate().rev() {
            idx[d] = rem % shape[pos];
            rem /= shape[pos];
        }
        if l.offset_of(&idx).unwrap() != l.offset() + k {
            return false;
        }
    }
    true
}

fn format_strategy() -> impl Strategy<Value = MemoryFormat> {
    prop_oneof![
        Just(MemoryFormat::Contiguous),
        Just(MemoryFormat::ChannelsLast),
        Just(MemoryFormat::ChannelsLast3d)
    ]
}

/// Layouts of 4 or 5 dims: dense in some format, then optionally narrowed, with junk strides on
/// size-1 dims, or with a random stride perturbed.
fn layout_strategy() -> impl Strategy<Value = Layout> {
    (4usize..=5, format_strategy(), 0usize..4, any::<u64>()).prop_flat_map(
        |(ndim, f, mode, seed)| {
            proptest::collection::vec(0usize..4, ndim).prop_map(move |shape| {
                let f = if f.ndim().is_some_and(|n| n != ndim) {
                    MemoryFormat::Contiguous
                } else {
                    f
                };
                let base = Layout::contiguous_in(&shape, f).unwrap();
                let mut strides = base.strides().to_vec();
                let pick = (seed % ndim as u64) as usize;
                match mode {
                    0 => base,
                    1 => {
                        // Junk strides on every size-1 dim.
                        for (d, s) in strides.iter_mut().enumerate() {
                            if shape[d] == 1 {
                                *s = (seed % 97) as isize + d as isize;
                            }
                        }
                        Layout::new(&shape, &strides, 3).unwrap()
                    }
                    2 if shape[pick] > 1 => base.narrow(pick, 1, shape[pick] - 1).unwrap(),
                    _ => {
                        strides[pick] += 1 + (seed % 3) as isize;
                        Layout::new(&shape, &strides, 0).unwrap()
                    }
                }
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(512)
    ))]

    #[test]
    fn format_contiguity_matches_the_definition(l in layout_strategy(), f in format_strategy()) {
        prop_assert_eq!(l.is_contiguous_in(f), dense_in_by_definition(&l, f), "{:?} in {}", l, f);
        if f == MemoryFormat::Contiguous {
            prop_assert_eq!(l.is_contiguous(), l.is_contiguous_in(f));
        }
    }

    #[test]
    fn conversions_keep_values_and_skip_needless_copies(
        shape in proptest::collection::vec(0usize..5, 4),
        f in format_strategy(),
        narrow in any::<bool>(),
    ) {
        let f = if f == MemoryFormat::ChannelsLast3d { MemoryFormat::ChannelsLast } else { f };
        let n: usize = shape.iter().product();
        let x = Tensor::from_vec((0..n as i32).collect(), &shape).unwrap();
        let x = if narrow && shape[1] > 1 { x.narrow(1, 1, shape[1] - 1).unwrap() } else { x };
        let y = x.contiguous_in(f).unwrap();
        prop_assert!(y.is_contiguous_in(f));
        prop_assert_eq!(y.to_vec(), x.to_vec());
        prop_assert_eq!(y.shares_storage(&x), x.is_contiguous_in(f));
        // Already in the format: no copy.
        prop_assert!(y.contiguous_in(f).unwrap().shares_storage(&y));
        // Round trip back to row-major.
        let z = y.contiguous_in(MemoryFormat::Contiguous).unwrap();
        prop_assert!(z.is_contiguous());
        prop_assert_eq!(z.to_vec(), x.to_vec());
    }

    #[test]
    fn dense_formats_with_unambiguous_shapes_are_suggested(
        shape in proptest::collection::vec(2usize..5, 4..=5),
        f in format_strategy(),
    ) {
        let f = match (f, shape.len()) {
            (MemoryFormat::ChannelsLast, 5) => MemoryFormat::ChannelsLast3d,
            (MemoryFormat::ChannelsLast3d, 4) => MemoryFormat::ChannelsLast,
            (f, _) => f,
        };
        let l = Layout::contiguous_in(&shape, f).unwrap();
        prop_assert_eq!(l.suggest_memory_format(), f);
    }
}

#[test]
fn wrong_rank_is_an_error() {
    let x = Tensor::<f32>::zeros(&[2, 3, 4]).unwrap();
    let err = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap_err();
    assert!(err.to_string().contains("needs 4 dims"), "{err}");
    assert!(!x.is_contiguous_in(MemoryFormat::ChannelsLast));
    assert!(Tensor::<f32>::zeros_in(&[2, 3, 4, 5], MemoryFormat::ChannelsLast3d).is_err());
}

#[test]
fn nchw_to_nhwc_and_back_in_f16() {
    let n = 2 * 3 * 5 * 7;
    let vals: Vec<half::f16> = (0..n).map(|i| half::f16::from_f32(i as f32)).collect();
    let x = Tensor::from_vec(vals.clone(), &[2, 3, 5, 7]).unwrap();
    let y = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap();
    assert_eq!(y.strides(), &[105, 1, 21, 3]);
    // The physical order is NHWC.
    let nhwc = x.permute(&[0, 2, 3, 1]).unwrap().to_vec();
    assert_eq!(y.storage().as_slice(), &nhwc[..]);
    let back = y.contiguous();
    assert_eq!(back.to_vec(), vals);
}

#[test]
fn elementwise_ops_keep_channels_last_and_channel_sums_are_right() {
    let n = 2 * 3 * 4 * 5;
    let x = Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[2, 3, 4, 5]).unwrap();
    let cl = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap();
    let y = cl.add(&cl).unwrap();
    assert!(
        y.is_contiguous_in(MemoryFormat::ChannelsLast),
        "{:?}",
        y.strides()
    );
    assert_eq!(
        y.to_vec(),
        x.to_vec().iter().map(|v| v * 2.0).collect::<Vec<_>>()
    );
    let z = cl.exp().mul_scalar(0.5);
    assert_eq!(z.suggest_memory_format(), MemoryFormat::ChannelsLast);
    // A sum over C of channels-last data equals the same sum of the NCHW tensor.
    let s_cl = cl.sum_dim(1, true).unwrap();
    let s_rm = x.sum_dim(1, true).unwrap();
    assert_eq!(s_cl.shape(), &[2, 1, 4, 5]);
    assert_eq!(s_cl.to_vec(), s_rm.to_vec());
}
