"""NumPy's and PyTorch's side of the bench report's sums table, on one thread.

Prints, for 4096 x 4096 float32, each sum's read rate as a ratio to a 64 MiB memcpy
(np.copyto) timed in the same run (a ratio of 1.0 reads as fast as memcpy moves: the
convention of `cargo run --release --example bench_report`), microseconds per sum of a
256 x 256 array, and matmul GFLOP/s at 256^3 and 1024^3.

Run from a venv with numpy (and torch, optional):
    python -m venv target/bench-venv && target/bench-venv/bin/pip install numpy torch
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 target/bench-venv/bin/python benches/python/reductions.py
(unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in that command if the machine sets them.)
"""

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # PyTorch is optional
    torch = None


def median_time(f, reps=7, inner=1):
    f()
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        for _ in range(inner):
            f()
        ts.append((time.perf_counter() - s) / inner)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    n = 4096
    x = (np.arange(n * n, dtype=np.int64) * 7919 + 13) % 2003
    x = (x.astype(np.float32) * 0.001 - 1.0).reshape(n, n)
    dst = np.empty_like(x)
    nbytes = x.nbytes

    def ratio(t_sum, t_copy):
        # bytes read per second over memcpy's bytes moved (read + written) per second
        return (nbytes / t_sum) / (2 * nbytes / t_copy)

    rows = []
    libs = [("numpy", x, lambda a, d: a.sum(axis=d), lambda a: a.sum())]
    if torch is not None:
        tx = torch.from_numpy(x)
        libs.append(("torch", tx, lambda a, d: a.sum(dim=d), lambda a: a.sum()))
    for name, a, by_dim, total in libs:
        for dim in (1, 0):
            t = median_time(lambda: by_dim(a, dim))
            c = median_time(lambda: np.copyto(dst, x))
            rows.append((f"{name} sum(dim {dim})", ratio(t, c)))
        t = median_time(lambda: total(a))
        c = median_time(lambda: np.copyto(dst, x))
        rows.append((f"{name} sum()", ratio(t, c)))
        if name == "numpy":
            ct = np.ascontiguousarray(x.T).T
        else:
            ct = torch.from_numpy(np.ascontiguousarray(x.T)).T
        t = median_time(lambda: by_dim(ct, 1))
        c = median_time(lambda: np.copyto(dst, x))
        rows.append((f"{name} sum(dim 1) of column-major storage", ratio(t, c)))
    print("| 4096x4096 f32 sum, 1 thread | ratio to memcpy |")
    print("|---|---|")
    for r, v in rows:
        print(f"| {r} | {v:.2f} |")

    small = x[:256, :256].copy()
    print()
    print("| 256x256 f32 sum (in L2), 1 thread | us |")
    print("|---|---|")
    for name, a, by_dim, _ in libs:
        arr = small if name == "numpy" else torch.from_numpy(small)
        for dim in (1, 0):
            t = median_time(lambda: by_dim(arr, dim), inner=200)
            print(f"| {name} sum(dim {dim}) | {t * 1e6:.2f} |")

    print()
    print("| matmul f32, 1 thread | GFLOP/s |")
    print("|---|---|")
    for m in (256, 1024):
        a = np.random.default_rng(0).standard_normal((m, m), dtype=np.float32)
        b = np.random.default_rng(1).standard_normal((m, m), dtype=np.float32)
        t = median_time(lambda: a @ b, inner=4 if m == 256 else 1)
        print(f"| numpy {m}^3 | {2 * m**3 / t / 1e9:.1f} |")
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            t = median_time(lambda: ta @ tb, inner=4 if m == 256 else 1)
            print(f"| torch {m}^3 | {2 * m**3 / t / 1e9:.1f} |")


if __name__ == "__main__":
    main()
