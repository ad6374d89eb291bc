"""Exchange between stridex and NumPy (and PyTorch when installed) through DLPack.

Checks that memory is shared (same address), values agree, writes are visible where the
producer allows them and refused where the export is read-only, capsules follow the array
API's naming rules, and the consumer keeps reading after the producer is dropped.
"""

import ctypes
import gc

import numpy as np
import pytest

import stridex

NUMPY_DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
]


def addr(a):
    return a.__array_interface__["data"][0]


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


def capsule_name(cap):
    return _get_name(cap).decode()


def owned(shape=(3, 4), dtype=np.float32):
    """A stridex tensor on stridex's own memory (a copy made by `contiguous`)."""
    a = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    t = stridex.from_dlpack(a.T).contiguous()  # a copy: a.T is not row-major
    assert t.data_ptr != addr(a)
    return t, np.ascontiguousarray(a.T)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_to_stridex_and_back_share_memory(dtype):
    a = np.arange(24).astype(dtype).reshape(2, 3, 4)
    t = stridex.from_dlpack(a)
    assert (t.shape, t.strides, t.dtype) == ((2, 3, 4), a.strides, np.dtype(dtype).name)
    assert t.stride() == (12, 4, 1)
    assert t.data_ptr == addr(a)
    b = np.from_dlpack(t)
    assert addr(b) == addr(a)
    assert b.dtype == a.dtype
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a.T,
        lambda a: a[::-1],
        lambda a: a[1:, ::-2],
        lambda a: a[:, 1],
        lambda a: np.broadcast_to(a[:1], (5, 4)),
        lambda a: a.reshape(2, 2, 3).transpose(0, 2, 1),
    ],
)
def test_strided_numpy_views_import_in_place(view):
    base = np.arange(12, dtype=np.int64).reshape(3, 4)
    v = view(base)
    t = stridex.from_dlpack(v)
    assert t.data_ptr == addr(v)
    assert t.strides == v.strides
    np.testing.assert_array_equal(np.from_dlpack(t), v)


def test_stridex_views_export_in_place_with_their_strides():
    t, a = owned((3, 4), np.float64)  # t and a are 4 x 3
    cases = [
        (t.t(), a.T),
        (t.flip(0), a[::-1]),
        (t.flip(1).narrow(0, 1, 2), a[1:3, ::-1]),
        (t.slice(1, None, None, -2), a[:, ::-2]),
        (t.select(1, 2), a[:, 2]),
        (t.unsqueeze(0).expand(2, 4, 3), np.broadcast_to(a, (2, 4, 3))),
        (t.permute(1, 0).unsqueeze(2).squeeze(2), a.T),
        (t.transpose(0, 1).contiguous(), np.ascontiguousarray(a.T)),
    ]
    for v, expected in cases:
        b = np.from_dlpack(v)
        assert addr(b) == v.data_ptr
        np.testing.assert_array_equal(b, expected)
        assert b.strides == v.strides


def test_exports_are_read_only_and_imports_see_the_producers_writes():
    # NumPy owns the memory and allows writes: they are visible to stridex, which reads in
    # place (and never writes it).
    a = np.zeros((2, 3), dtype=np.float32)
    t = stridex.from_dlpack(a)
    a[1, 2] = 7.0
    assert np.from_dlpack(t)[1, 2] == 7.0
    # A stridex export is read-only: the stridex tensor still holds the memory.
    own, _ = owned()
    b = np.from_dlpack(own)
    assert not b.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1.0
    # copy=True: a private copy, writable, that stridex never sees.
    before = stridex.copy_totals()[0]
    c = np.from_dlpack(own, copy=True)
    assert stridex.copy_totals()[0] == before + 1  # one audited copy
    assert c.flags.writeable and addr(c) != own.data_ptr
    c[0, 0] = 42.0
    assert np.from_dlpack(own)[0, 0] != 42.0


def test_zero_copy_exchanges_are_not_counted_as_copies():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    before = stridex.copy_totals()
    t = stridex.from_dlpack(a)
    b = np.from_dlpack(t.t().flip(0))
    assert stridex.copy_totals() == before
    np.testing.assert_array_equal(b, a.T[::-1])


def test_the_consumer_outlives_the_producer():
    # NumPy -> stridex: the array is dropped, the tensor still reads its memory.
    a = np.arange(1000, dtype=np.float64)
    t = stridex.from_dlpack(a[::3])
    del a
    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(0, 1000, 3, dtype=np.float64))
    # stridex -> NumPy: the tensor is dropped, the array keeps its storage alive.
    own, expected = owned((40, 50), np.int16)
    b = np.from_dlpack(own.flip(1))
    del own
    gc.collect()
    np.testing.assert_array_equal(b, expected[:, ::-1])


def test_capsules_follow_the_array_api_names():
    own, expected = owned()
    cap = own.__dlpack__(max_version=(1, 0))
    assert capsule_name(cap) == "dltensor_versioned"
    t = stridex.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor_versioned"
    assert t.data_ptr == own.data_ptr
    with pytest.raises(BufferError, match="already consumed"):
        stridex.from_dlpack(cap)
    # An unconsumed capsule deletes its tensor when collected.
    cap = own.__dlpack__(max_version=(1, 2))
    del cap
    gc.collect()
    # No max_version (or one below 1.0): the legacy capsule, which has no read-only flag, so
    # it is a copy; copy=False refuses it.
    legacy = own.__dlpack__()
    assert capsule_name(legacy) == "dltensor"
    t = stridex.from_dlpack(legacy)
    assert capsule_name(legacy) == "used_dltensor"
    assert t.data_ptr != own.data_ptr
    np.testing.assert_array_equal(np.from_dlpack(t), expected)
    with pytest.raises(BufferError, match="copy=False"):
        own.__dlpack__(max_version=(0, 8), copy=False)
    assert capsule_name(own.__dlpack__(max_version=(1, 0), copy=False)) == "dltensor_versioned"
    assert own.__dlpack_device__() == (1, 0)


class LegacyProducer:
    """A producer from before DLPack 1.0: `__dlpack__` takes only `stream`."""

    def __init__(self, obj):
        self.obj = obj

    def __dlpack__(self, stream=None):
        return self.obj.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.obj.__dlpack_device__()


def test_legacy_producers_and_consumers():
    # stridex reads a legacy NumPy capsule in place.
    a = np.arange(8, dtype=np.uint32)
    t = stridex.from_dlpack(LegacyProducer(a))
    assert t.data_ptr == addr(a)
    # NumPy asking stridex for the legacy form gets a copy with the same values.
    own, expected = owned()
    b = np.from_dlpack(LegacyProducer(own))
    np.testing.assert_array_equal(b, expected)
    assert addr(b) != own.data_ptr


def test_refusals_raise_python_errors():
    own, _ = owned()
    with pytest.raises(BufferError, match="device"):
        own.__dlpack__(max_version=(1, 0), dl_device=(2, 0))
    with pytest.raises(BufferError, match="stream"):
        own.__dlpack__(max_version=(1, 0), stream=1)
    with pytest.raises(BufferError, match="bool"):
        stridex.from_dlpack(np.array([True, False]))
    with pytest.raises(BufferError, match="complex"):
        stridex.from_dlpack(np.array([1j]))
    with pytest.raises(TypeError):
        stridex.from_dlpack(object())
    with pytest.raises(IndexError):
        own.transpose(0, 5)
    with pytest.raises(ValueError):
        own.narrow(0, 2, 5)


def test_files_round_trip(tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = stridex.from_dlpack(a).t()
    stridex.save_npy(tmp_path / "a.npy", t)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), a.T)
    np.save(tmp_path / "b.npy", a[::-1])
    np.testing.assert_array_equal(np.from_dlpack(stridex.load_npy(tmp_path / "b.npy")), a[::-1])
    stridex.save_safetensors(tmp_path / "m.safetensors", {"w": t, "b": stridex.from_dlpack(a[0])})
    loaded = stridex.load_safetensors(tmp_path / "m.safetensors")
    assert sorted(loaded) == ["b", "w"]
    np.testing.assert_array_equal(np.from_dlpack(loaded["w"]), a.T)
    assert repr(loaded["b"]) == "stridex.Tensor(shape=(4,), stride=(1,), dtype=float32)"


# PyTorch: optional. Skipped, with the reason printed by pytest -rs, when it is not installed.


def test_torch_exchange_shares_memory():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = stridex.from_dlpack(x.t())
    assert t.data_ptr == x.data_ptr()
    assert t.stride() == (1, 4)
    y = torch.from_dlpack(t)
    assert y.data_ptr() == x.data_ptr()
    assert torch.equal(y, x.t())
    bf = torch.arange(4, dtype=torch.bfloat16)
    assert stridex.from_dlpack(bf).dtype == "bfloat16"
    assert torch.equal(torch.from_dlpack(stridex.from_dlpack(bf)), bf)


def test_torch_refuses_negative_strides_and_copy_true_exchanges_them():
    """PyTorch tensors cannot have negative strides: PyTorch 2.15 refuses the zero-copy
    import of a flipped stridex view with a RuntimeError (what the README says). If a later
    PyTorch accepts it, this fails: then check its values and update the README."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    own, expected = owned()
    flipped = own.flip(0)
    assert flipped.stride()[0] < 0
    with pytest.raises(RuntimeError, match="strides"):
        torch.from_dlpack(flipped)
    want = torch.from_numpy(expected[::-1].copy())
    y = torch.from_dlpack(flipped, copy=True)  # a copy with positive strides
    assert torch.equal(y, want) and y.is_contiguous()
    y = torch.from_dlpack(flipped.contiguous())
    assert torch.equal(y, want) and y.data_ptr() != own.data_ptr


def test_torch_ignores_read_only_so_copy_true_is_the_way_to_write():
    """stridex marks a shared export read-only; PyTorch (2.15) ignores the flag, so writing
    torch.from_dlpack(t) changes the stridex tensor (documented in the README and the
    module docs). torch.from_dlpack(t, copy=True) is a private, writable copy."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    t = stridex.from_dlpack(np.zeros((2, 3), dtype=np.float32), copy=True)
    y = torch.from_dlpack(t)
    assert y.data_ptr() == t.data_ptr
    y[0, 0] = 99
    assert t.tolist()[0][0] == 99.0  # fails if PyTorch starts honouring READ_ONLY
    before = stridex.copy_totals()[0]
    z = torch.from_dlpack(t, copy=True)
    assert stridex.copy_totals()[0] == before + 1
    assert z.data_ptr() != t.data_ptr
    z[0, 1] = 7
    assert t.tolist()[0] == [99.0, 0.0, 0.0]


def test_from_dlpack_takes_copy_and_device():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = stridex.from_dlpack(x, device="cpu")
    assert t.data_ptr == x.data_ptr()
    assert stridex.from_dlpack(x, device=torch.device("cpu")).data_ptr == x.data_ptr()
    assert stridex.from_dlpack(x, device=(1, 0), copy=False).data_ptr == x.data_ptr()
    c = stridex.from_dlpack(x, copy=True)
    assert c.data_ptr != x.data_ptr() and c.tolist() == x.tolist()
    x[0, 0] = 50
    assert c.tolist()[0][0] == 0.0 and t.tolist()[0][0] == 50.0
    with pytest.raises(ValueError, match="device"):
        stridex.from_dlpack(x, device="cuda")
    a = np.arange(4, dtype=np.int32)
    assert stridex.from_dlpack(a, copy=True).data_ptr != addr(a)
    assert stridex.from_dlpack(a, device="cpu").data_ptr == addr(a)


def test_copies_keep_a_channels_last_layout():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    x = x.contiguous(memory_format=torch.channels_last)
    # stridex's import copy keeps the producer's memory order ...
    t = stridex.from_dlpack(x, copy=True)
    assert t.data_ptr != x.data_ptr() and t.stride() == x.stride()
    # ... and so do the copies it exports, to PyTorch and to NumPy.
    y = torch.from_dlpack(t, copy=True)
    assert y.is_contiguous(memory_format=torch.channels_last) and torch.equal(y, x)
    n = np.from_dlpack(t, copy=True)
    assert n.strides == tuple(s * 4 for s in x.stride())
    assert n.strides == np.asarray(x).copy(order="K").strides


def test_a_torch_bool_tensor_gets_a_torch_hint():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    with pytest.raises(BufferError, match=r"\.to\(torch\.uint8\)"):
        stridex.from_dlpack(torch.tensor([True, False]))
    u = stridex.from_dlpack(torch.tensor([True, False]).to(torch.uint8))
    assert u.tolist() == [1, 0]


def test_torch_bfloat16_has_no_buffer_format():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    t = stridex.from_dlpack(torch.ones(2, dtype=torch.bfloat16))
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(t)
    assert t.tolist() == [1.0, 1.0] and t.dtype == "bfloat16"
