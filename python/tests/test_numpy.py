"""What a NumPy or PyTorch user expects of a tensor object: np.asarray / np.array
(`__array__`), the buffer protocol, negative dims, indexing, `.T`, `tolist()`, `numpy()`, and
`shape` / `strides` / `dtype` as NumPy spells them."""

import numpy as np
import pytest

import stridex


def addr(a):
    return a.__array_interface__["data"][0]


def arange(*shape, dtype=np.float32):
    """A stridex tensor on its own memory holding 0, 1, 2, ... in `shape`, and the same array."""
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    t = stridex.from_dlpack(a, copy=True)
    assert t.data_ptr != addr(a)
    return t, a


# __array__ (item 6: np.asarray(t) used to give a 0-d object array).


def test_asarray_shares_memory_read_only():
    t, a = arange(3, 4)
    b = np.asarray(t)
    assert b.dtype == np.float32 and b.shape == (3, 4)
    assert addr(b) == t.data_ptr
    assert not b.flags.writeable
    np.testing.assert_array_equal(b, a)


def test_array_copies_and_is_writable():
    t, a = arange(3, 4)
    b = np.array(t)
    assert b.dtype == np.float32
    assert addr(b) != t.data_ptr
    assert b.flags.writeable
    b[0, 0] = 99.0
    np.testing.assert_array_equal(np.asarray(t), a)
    # Asked directly, the protocol's copy is stridex's (one audited copy), writable.
    before = stridex.copy_totals()[0]
    c = t.__array__(copy=True)
    assert stridex.copy_totals()[0] == before + 1
    assert c.flags.writeable and addr(c) != t.data_ptr


def test_array_honours_copy_and_dtype():
    t, a = arange(2, 3)
    assert addr(np.asarray(t, copy=False)) == t.data_ptr
    assert addr(np.array(t, copy=None)) == t.data_ptr  # NumPy 2: copy only if needed
    assert addr(np.array(t, copy=True)) != t.data_ptr
    d = np.asarray(t, dtype=np.float64)
    assert d.dtype == np.float64
    np.testing.assert_array_equal(d, a)
    with pytest.raises(ValueError, match="copy"):
        np.asarray(t, dtype=np.float64, copy=False)


def test_asarray_of_strided_views_keeps_their_strides():
    t, a = arange(3, 4, dtype=np.int16)
    for v, want in [(t.t(), a.T), (t.flip(0), a[::-1]), (t[:, ::2], a[:, ::2])]:
        b = np.asarray(v)
        assert addr(b) == v.data_ptr
        assert b.strides == v.strides
        np.testing.assert_array_equal(b, want)


# The buffer protocol.


def test_memoryview_of_a_dense_tensor():
    t, a = arange(2, 3, dtype=np.int32)
    m = memoryview(t)
    assert m.readonly and m.format == "i" and m.shape == (2, 3) and m.strides == (12, 4)
    assert m.tolist() == a.tolist()
    assert bytes(m) == a.tobytes()
    assert np.frombuffer(t, dtype=np.int32).tolist() == list(range(6))


def test_memoryview_of_strided_views():
    t, a = arange(3, 4, dtype=np.float64)
    m = memoryview(t.t())
    assert m.shape == (4, 3) and m.strides == (8, 32) and not m.c_contiguous
    assert m.tolist() == a.T.tolist()
    m = memoryview(t.flip(1))
    assert m.strides == (32, -8)
    assert m.tolist() == a[:, ::-1].tolist()
    half = memoryview(stridex.from_dlpack(np.ones(2, dtype=np.float16)))
    assert half.format == "e"


def test_buffers_are_read_only_and_contiguous_on_request():
    import ctypes

    t, _ = arange(2, 3)
    with pytest.raises(TypeError, match="read-only"):
        memoryview(t).cast("B")[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        np.frombuffer(t, dtype=np.float32)[0] = 1.0
    # A consumer asking for a writable buffer (PyBUF_WRITABLE) is refused.
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    view = ctypes.create_string_buffer(256)  # larger than a Py_buffer
    with pytest.raises(BufferError, match="read-only"):
        get(t, ctypes.addressof(view), 1)
    # A strided view: consumers that take strides read it (bytes() copies it in C order);
    # one asking for contiguous memory (PyBUF_SIMPLE, PyBUF_C_CONTIGUOUS) is refused.
    assert bytes(t.t()) == np.ascontiguousarray(np.asarray(t).T).tobytes()
    with pytest.raises(BufferError, match="contiguous"):
        get(t.t(), ctypes.addressof(view), 0)
    with pytest.raises(BufferError, match="contiguous"):
        get(t.t(), ctypes.addressof(view), 0x0020 | 0x0008)


# Negative dims everywhere (item 7), exactly the inputs that raised OverflowError.


def test_negative_dims():
    t, a = arange(2, 3, 4)
    assert t.transpose(-1, -2).shape == (2, 4, 3)
    assert t.permute(-1, 0, 1).shape == (4, 2, 3)
    assert t.permute((-1, -3, -2)).shape == (4, 2, 3)
    assert t.reshape(-1).shape == (24,)
    assert t.reshape(2, -1).shape == (2, 12)
    assert t.narrow(-1, -2, 2).tolist() == a[:, :, -2:].tolist()
    assert t.select(-1, -1).tolist() == a[:, :, -1].tolist()
    assert t.flip(-1).tolist() == a[:, :, ::-1].tolist()
    assert t.unsqueeze(-1).shape == (2, 3, 4, 1)
    assert t.unsqueeze(-1).squeeze(-1).shape == (2, 3, 4)
    assert t.slice(-1, None, None, -1).tolist() == a[:, :, ::-1].tolist()
    assert t[:1].expand(5, -1, -1).shape == (5, 3, 4)
    with pytest.raises(IndexError):
        t.transpose(-4, 0)
    with pytest.raises(IndexError):
        t.select(0, -3)


# __getitem__: ints, slices (negative steps), None, Ellipsis.


@pytest.mark.parametrize(
    "key",
    [
        0,
        -1,
        (1, 2),
        (1, 2, 3),
        (-1, -1, -1),
        slice(None),
        slice(1, None),
        slice(None, None, -1),
        slice(None, None, -2),
        slice(5, 1, -1),
        slice(-1, -4, -1),
        slice(10, -10, -3),
        slice(2, 1),
        (slice(None), slice(None, None, -2)),
        (Ellipsis, -1),
        (Ellipsis, slice(None, None, -1), None),
        (None, 1),
        (1, None, Ellipsis, None),
        (None, Ellipsis, None),
        (Ellipsis,),
        (0, slice(3, None, -2), slice(1, 3)),
    ],
)
def test_getitem_matches_numpy(key):
    t, a = arange(2, 3, 4)
    v = t[key]
    want = a[key]
    assert v.shape == want.shape
    assert v.tolist() == want.tolist()
    # Strides agree wherever they matter (size-1 dims may have any stride).
    big = [i for i, n in enumerate(want.shape) if n > 1]
    assert [v.strides[i] for i in big] == [want.strides[i] for i in big]
    assert v.shares_storage(t)


def test_getitem_errors():
    t, _ = arange(2, 3)
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(IndexError):
        t[0, 0, 0]
    with pytest.raises(IndexError):
        t[..., ...]
    with pytest.raises(TypeError):
        t[1.5]


def test_iterating_rows():
    t, a = arange(3, 2)
    assert [row.tolist() for row in t] == a.tolist()


# .T, tolist(), numpy(), item(), shape / strides / dtype.


def test_T_reverses_every_dim():
    t, a = arange(2, 3, 4)
    assert t.T.shape == a.T.shape
    assert t.T.tolist() == a.T.tolist()
    m, b = arange(2, 3)
    assert m.T.tolist() == b.T.tolist()


def test_tolist_and_item():
    t, a = arange(2, 3, dtype=np.int64)
    assert t.tolist() == a.tolist()
    assert t.t().tolist() == a.T.tolist()
    assert isinstance(t.tolist()[0][0], int)
    h = stridex.from_dlpack(np.array([0.5, 1.5], dtype=np.float16))
    assert h.tolist() == [0.5, 1.5]
    assert t[1, 2].tolist() == 5 and t[1, 2].item() == 5
    with pytest.raises(ValueError, match="one element"):
        t.item()
    u = stridex.from_dlpack(np.array([255], dtype=np.uint8))
    assert u.tolist() == [255]


def test_numpy_shares_memory():
    t, a = arange(2, 3)
    n = t.numpy()
    assert addr(n) == t.data_ptr and not n.flags.writeable
    np.testing.assert_array_equal(n, a)


@pytest.mark.parametrize(
    "dtype",
    [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
     np.uint16, np.uint32, np.uint64],
)
def test_shape_strides_dtype_as_numpy_spells_them(dtype):
    a = np.zeros((2, 3, 4), dtype=dtype)[:, ::-1, 1:3]
    t = stridex.from_dlpack(a)
    assert t.shape == a.shape
    assert t.strides == a.strides
    assert t.dtype == a.dtype.name
    assert np.dtype(t.dtype) == a.dtype
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert t.stride(-1) == a.strides[-1] // a.itemsize


def test_the_readme_example_runs():
    """The README's Python example, run as written (its asserts hold)."""
    import pathlib

    readme = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    text = readme.read_text()
    start = text.index("```python\nimport numpy as np, stridex")
    code = text[start + len("```python\n") : text.index("```", start + 10)]
    exec(compile(code, "README.md", "exec"), {})
