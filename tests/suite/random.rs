//! Seeded random tensors (feature `random`): the values against the definition (Philox4x32-10
//! blocks, themselves checked against Random123's known answers in the unit tests), the
//! same tensor for thread counts 1 to 4 and for any requested memory order, ranges and
//! rough moments of each distribution, and the argument errors.
#![cfg(feature = "random")]

use stridex::random::{Generator, philox4x32_10};
use stridex::{Error, Tensor};

/// The block of four words for element group `g` of draw `stream` under `seed`.
fn block(seed: u64, stream: u64, g: u64) -> [u32; 4] {
    philox4x32_10(
        [
            g as u32,
            (g >> 32) as u32,
            stream as u32,
            (stream >> 32) as u32,
        ],
        [seed as u32, (seed >> 32) as u32],
    )
}

#[test]
fn values_follow_the_counter_definition() {
    let mut g = Generator::new(0x1234_5678_9abc_def0);
    let seed = g.seed();
    // Draw 0: f32 uniforms, four per block, the top 24 bits of each word.
    let x = g.rand::<f32>(&[3, 5]).unwrap().to_vec();
    for (i, &v) in x.iter().enumerate() {
        let w = block(seed, 0, i as u64 / 4)[i % 4];
        assert_eq!(v, (w >> 8) as f32 / (1u32 << 24) as f32, "element {i}");
    }
    // Draw 1: f64 uniforms, two per block, 53 bits from two words.
    let y = g.rand::<f64>(&[7]).unwrap().to_vec();
    for (i, &v) in y.iter().enumerate() {
        let b = block(seed, 1, i as u64 / 2);
        let bits = (u64::from(b[2 * (i % 2)]) << 32 | u64::from(b[2 * (i % 2) + 1])) >> 11;
        assert_eq!(v, bits as f64 / (1u64 << 53) as f64, "element {i}");
    }
    // Draw 2: f64 normals, one Box-Muller pair per block.
    let z = g.randn::<f64>(&[4]).unwrap().to_vec();
    for (i, &v) in z.iter().enumerate() {
        let b = block(seed, 2, i as u64 / 2);
        let u = |hi: u32, lo: u32| {
            ((u64::from(hi) << 32 | u64::from(lo)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let r = (-2.0 * (1.0 - u(b[0], b[1])).ln()).sqrt();
        let t = std::f64::consts::TAU * u(b[2], b[3]);
        let want = if i % 2 == 0 { r * t.cos() } else { r * t.sin() };
        assert!(
            (v - want).abs() <= 1e-12 * want.abs().max(1.0),
            "element {i}: {v} {want}"
        );
    }
    assert_eq!(g.stream(), 3);
}

#[test]
fn the_same_tensor_for_any_thread_count() {
    // Large enough to be split across threads.
    let shape = [256, 1024];
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut g = Generator::new(99);
            (
                g.randn::<f32>(&shape).unwrap(),
                g.rand::<f64>(&shape).unwrap(),
                g.randint::<i32>(-1000, 1000, &shape).unwrap(),
                g.randn_like(&Tensor::<f32>::zeros(&shape).unwrap().t().unwrap())
                    .unwrap(),
            )
        })
    };
    let one = run(1);
    for threads in 2..=4 {
        let other = run(threads);
        assert!(other.0 == one.0 && other.1 == one.1, "{threads} threads");
        assert!(other.2 == one.2 && other.3 == one.3, "{threads} threads");
    }
}

#[test]
fn the_same_values_in_any_memory_order() {
    let base = Tensor::<f32>::zeros(&[3, 4, 5]).unwrap();
    let want = Generator::new(5).randn::<f32>(&[4, 5, 3]).unwrap();
    let permuted = base.permute(&[1, 2, 0]).unwrap(); // shape [4, 5, 3], strided
    let got = Generator::new(5).randn_like(&permuted).unwrap();
    assert_eq!(got.strides(), permuted.strides());
    assert_eq!(got, want);
    let flipped = Tensor::<f64>::zeros(&[6, 2]).unwrap().flip(0).unwrap();
    let got = Generator::new(5).rand_like(&flipped).unwrap();
    assert_eq!(got, Generator::new(5).rand::<f64>(&[6, 2]).unwrap());
}

#[test]
fn distributions_have_their_ranges_and_rough_moments() {
    let mut g = Generator::new(2024);
    let n = 20_000;
    let u = g.uniform(&[n], -3.0f64, 5.0).unwrap();
    assert!(u.iter().all(|v| (-3.0..5.0).contains(&v)));
    assert!((u.mean() - 1.0).abs() < 0.1);
    let z = g.normal(&[n], 2.0f32, 3.0).unwrap();
    assert!((z.mean() - 2.0).abs() < 0.1);
    assert!((z.std(0).unwrap().to_vec()[0] - 3.0).abs() < 0.1);
    let h = g.randn::<half::bf16>(&[n]).unwrap();
    assert!(h.iter().all(|v| v.is_finite()));
    let k = g.randint::<u8>(250, 256, &[n]).unwrap();
    assert!(k.iter().all(|v| v >= 250));
    for v in 250..=255u8 {
        assert!(
            k.iter().filter(|&x| x == v).count() > n / 12,
            "{v} too rare"
        );
    }
    let p = Tensor::from_vec(vec![0.0f32, 1.0, 0.25], &[3, 1])
        .unwrap()
        .expand(&[3, 2000])
        .unwrap();
    let b = g.bernoulli(&p).unwrap();
    let rows = b.sum_dim(1, false).unwrap().to_vec();
    assert_eq!((rows[0], rows[1]), (0.0, 2000.0));
    assert!((rows[2] - 500.0).abs() < 80.0);
}

#[test]
fn argument_errors() {
    let mut g = Generator::new(0);
    assert!(matches!(
        g.uniform(&[1], 1.0f32, 0.0),
        Err(Error::InvalidArgument { op: "uniform", .. })
    ));
    assert!(matches!(
        g.normal(&[1], 0.0f64, f64::NAN),
        Err(Error::InvalidArgument { op: "normal", .. })
    ));
    assert!(matches!(
        g.randint::<i8>(0, 0, &[1]),
        Err(Error::InvalidArgument { op: "randint", .. })
    ));
    assert!(matches!(
        g.randint::<i8>(-129, 0, &[1]),
        Err(Error::InvalidArgument { op: "randint", .. })
    ));
    assert!(g.randint::<i64>(i64::MIN, i64::MAX, &[4]).is_ok());
    let p = Tensor::from_vec(vec![0.5f32, f32::NAN], &[2]).unwrap();
    assert!(matches!(
        g.bernoulli(&p),
        Err(Error::InvalidArgument {
            op: "bernoulli",
            ..
        })
    ));
    assert!(g.rand::<f32>(&[usize::MAX, 2]).is_err());
}
