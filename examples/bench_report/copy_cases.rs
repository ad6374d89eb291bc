//! The copy cases: `contiguous()` (fresh output) and `contiguous_into` (reused buffer) of
//! strided views, next to ndarray's `as_standard_layout()` on the same view.

use std::hint::black_box;

use ndarray::{ArrayD, Axis, IxDyn, Slice};
use stridex::{Element, MemoryFormat, Tensor};

use crate::harness::Harness;

/// A stridex view and the same view in ndarray, built from the same data.
struct Case<T: Element> {
    name: String,
    view: Tensor<T>,
    nd: ArrayD<T>,
    nd_view: fn(&ArrayD<T>) -> ndarray::ArrayViewD<'_, T>,
}

fn arrays<T: Element>(shape: &[usize], from: impl Fn(usize) -> T) -> (Tensor<T>, ArrayD<T>) {
    let n: usize = shape.iter().product();
    let data: Vec<T> = (0..n).map(from).collect();
    let t = Tensor::from_slice(&data, shape).expect("valid shape");
    let a = ArrayD::from_shape_vec(IxDyn(shape), data).expect("valid shape");
    (t, a)
}

fn run<T: Element>(h: &mut Harness, c: Case<T>) {
    let (n, size) = (c.view.numel(), std::mem::size_of::<T>());
    let bytes = 2 * n * size;
    // The reused buffer starts 16 bytes past a cache line, where glibc's large allocations
    // start, whatever this allocation's own phase (which varies from run to run and decides
    // how the copy's edge lines are written).
    let mut backing = vec![T::zeroed(); n + 64 / size];
    let skip = (80 - backing.as_ptr() as usize % 64) % 64 / size;
    let buf = &mut backing[skip..skip + n];
    assert_eq!(
        buf.as_ptr() as usize % 64,
        16,
        "a buffer 16 bytes past a line"
    );
    let (view, nd, nd_view) = (&c.view, &c.nd, c.nd_view);
    h.case(
        &c.name,
        bytes,
        &mut || {
            black_box(view.contiguous());
        },
        Some(&mut || {
            view.contiguous_into(black_box(&mut *buf))
                .expect("sizes match")
        }),
        Some(&mut || {
            black_box(nd_view(nd).as_standard_layout().into_owned());
        }),
    );
}

/// Every copy case of the report.
pub fn all(h: &mut Harness) {
    let (t, a) = arrays(&[4096, 4096], |i| i as f32);
    run(
        h,
        Case {
            name: "transpose 4096x4096 f32".into(),
            view: t.t().unwrap(),
            nd: a.clone(),
            nd_view: |a| a.view().reversed_axes(),
        },
    );
    run(
        h,
        Case {
            name: "narrow [:, 100:3100] 4096x4096 f32".into(),
            view: t.narrow(1, 100, 3000).unwrap(),
            nd: a.clone(),
            nd_view: |a| a.slice_axis(Axis(1), Slice::from(100..3100)),
        },
    );
    run(
        h,
        Case {
            name: "flip(1) 4096x4096 f32".into(),
            view: t.flip(1).unwrap(),
            nd: a,
            nd_view: |a| a.slice_axis(Axis(1), Slice::new(0, None, -1)),
        },
    );
    let (row, arow) = arrays(&[1, 4096], |i| i as f32);
    run(
        h,
        Case {
            name: "expand [1, 4096] -> 4096x4096 f32".into(),
            view: row.expand(&[4096, 4096]).unwrap(),
            nd: arow,
            nd_view: |a| a.broadcast(IxDyn(&[4096, 4096])).unwrap(),
        },
    );

    let (t3, a3) = arrays(&[256, 512, 128], |i| i as f32);
    for p in [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let nd_view: fn(&ArrayD<f32>) -> ndarray::ArrayViewD<'_, f32> = match p {
            [0, 2, 1] => |a| a.view().permuted_axes(IxDyn(&[0, 2, 1])),
            [1, 0, 2] => |a| a.view().permuted_axes(IxDyn(&[1, 0, 2])),
            [1, 2, 0] => |a| a.view().permuted_axes(IxDyn(&[1, 2, 0])),
            [2, 0, 1] => |a| a.view().permuted_axes(IxDyn(&[2, 0, 1])),
            _ => |a| a.view().permuted_axes(IxDyn(&[2, 1, 0])),
        };
        run(
            h,
            Case {
                name: format!("permute {p:?} 256x512x128 f32"),
                view: t3.permute(&p).unwrap(),
                nd: a3.clone(),
                nd_view,
            },
        );
    }
    memory_formats(h, |i| i as f32, "f32");
    memory_formats(h, |i| half::f16::from_f32((i % 2048) as f32), "f16");

    let (h16, a16) = arrays(&[4096, 4096], |i| half::f16::from_f32((i % 2048) as f32));
    run(
        h,
        Case {
            name: "transpose 4096x4096 f16".into(),
            view: h16.t().unwrap(),
            nd: a16,
            nd_view: |a| a.view().reversed_axes(),
        },
    );
    let (b16, ab16) = arrays(&[4096, 4096], |i| half::bf16::from_f32((i % 256) as f32));
    run(
        h,
        Case {
            name: "transpose 4096x4096 bf16".into(),
            view: b16.t().unwrap(),
            nd: ab16,
            nd_view: |a| a.view().reversed_axes(),
        },
    );
    let (u, au) = arrays(&[8192, 8192], |i| i as u8);
    run(
        h,
        Case {
            name: "transpose 8192x8192 u8".into(),
            view: u.t().unwrap(),
            nd: au,
            nd_view: |a| a.view().reversed_axes(),
        },
    );
    let (d, ad) = arrays(&[2048, 4096], |i| i as f64);
    run(
        h,
        Case {
            name: "transpose 2048x4096 f64".into(),
            view: d.t().unwrap(),
            nd: ad,
            nd_view: |a| a.view().reversed_axes(),
        },
    );
}

/// NCHW -> NHWC (`contiguous_in(ChannelsLast)`) and back (`contiguous()` of a channels-last
/// tensor), 32x64x56x56.
fn memory_formats<T: Element>(h: &mut Harness, from: fn(usize) -> T, ty: &str) {
    let (x, ax) = arrays(&[32, 64, 56, 56], from);
    let bytes = 2 * x.numel() * std::mem::size_of::<T>();
    let mut buf = vec![T::zeroed(); x.numel()];
    let nhwc_into = x.permute(&[0, 2, 3, 1]).unwrap();
    h.case(
        &format!("NCHW->NHWC 32x64x56x56 {ty}"),
        bytes,
        &mut || {
            black_box(x.contiguous_in(MemoryFormat::ChannelsLast).unwrap());
        },
        Some(&mut || nhwc_into.contiguous_into(black_box(&mut buf)).unwrap()),
        Some(&mut || {
            black_box(
                ax.view()
                    .permuted_axes(IxDyn(&[0, 2, 3, 1]))
                    .as_standard_layout()
                    .into_owned(),
            );
        }),
    );
    let cl = x.contiguous_in(MemoryFormat::ChannelsLast).unwrap();
    let a_nhwc = ax
        .view()
        .permuted_axes(IxDyn(&[0, 2, 3, 1]))
        .as_standard_layout()
        .into_owned();
    h.case(
        &format!("NHWC->NCHW 32x64x56x56 {ty}"),
        bytes,
        &mut || {
            black_box(cl.contiguous());
        },
        Some(&mut || cl.contiguous_into(black_box(&mut buf)).unwrap()),
        Some(&mut || {
            black_box(
                a_nhwc
                    .view()
                    .permuted_axes(IxDyn(&[0, 3, 1, 2]))
                    .as_standard_layout()
                    .into_owned(),
            );
        }),
    );
}
