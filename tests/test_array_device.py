"""Array round trips, dtypes, device choice, batching, errors."""
import numpy as np
import pytest

import wgprim
from wgprim.program import Program, fold_grid


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32, np.bool_])
@pytest.mark.parametrize("n", [0, 1, 3, 5, 1000])
def test_round_trip(dtype, n, rng):
    x = (rng.integers(0, 2, n) if dtype == np.bool_ else rng.integers(-100, 100, n)).astype(dtype)
    a = wgprim.asarray(x)
    assert (a.dtype, a.shape, a.size, a.nbytes) == (x.dtype, x.shape, x.size, x.nbytes)
    np.testing.assert_array_equal(a.numpy(), x)


def test_float16_where_available(device):
    x = np.array([1.5, -2.25, 65504], np.float16)
    if not device.has_f16:
        with pytest.raises(TypeError, match="shader-f16"):
            wgprim.asarray(x)
        return
    np.testing.assert_array_equal(wgprim.asarray(x).numpy(), x)
    assert wgprim.max(x).item() == 65504
    assert wgprim.argmin(x).item() == 1
    # f16 accumulates in f16: the same error bounds with f16's epsilon.
    from wgprim.ops.reduce import sum_error_bound
    from wgprim.ops.scan import cumsum_error_bound
    y = np.random.default_rng(3).standard_normal(9000).astype(np.float16)
    exact = np.cumsum(y.astype(np.float64))
    bound = cumsum_error_bound(np.cumsum(np.abs(y.astype(np.float64))), np.float16)
    assert np.all(np.abs(wgprim.cumsum(y).numpy().astype(np.float64) - exact) <= bound)
    assert abs(wgprim.sum(y).item() - exact[-1]) <= sum_error_bound(y.size, np.abs(y.astype(np.float64)).sum(), np.float16)
    assert wgprim.scan(y, "max").numpy()[-1] == y.max()


def test_shapes_and_scalars():
    a = wgprim.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert a.shape == (3, 4) and len(a) == 3 and a.ndim == 2
    assert a.reshape(-1, 6).shape == (2, 6)
    with pytest.raises(ValueError):
        a.reshape(5, 5)
    s = wgprim.sum(a)
    assert s.shape == () and int(s) == 66 and float(s) == 66.0
    assert np.asarray(s) == 66
    with pytest.raises(ValueError):
        a.item()


@pytest.mark.parametrize("bad", [-1, (2, -3), 3.5, 2.5, True, (True,), "6", ("6",), (2.0, 3), None, object()])
def test_bad_shapes_raise_what_numpy_raises(bad):
    with pytest.raises(Exception) as numpy_error:
        np.empty(bad, np.float32)
    with pytest.raises(numpy_error.type):
        wgprim.empty(bad, np.float32)
    with pytest.raises(numpy_error.type):
        wgprim.zeros(bad, np.float32)


def test_unsupported_dtypes_name_the_supported_ones():
    for bad in (np.uint8, np.int16, np.complex64, np.float128 if hasattr(np, "float128") else np.complex128):
        with pytest.raises(TypeError, match="uint32, int32, float32"):
            wgprim.asarray(np.zeros(3, bad))


@pytest.mark.parametrize("dt", [np.uint64, np.int64, np.float64])
def test_arrays_hold_64_bit_dtypes_bit_for_bit(rng, dt):
    info = np.iinfo(dt) if np.dtype(dt).kind in "iu" else None
    for n in (0, 1, 3, 17):
        host = rng.integers(0, 2**63, n, dtype=np.uint64).view(dt) if info is None else \
            rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        if info is None and n:
            host[0] = -0.0
        back = wgprim.asarray(host).numpy()
        assert back.dtype == np.dtype(dt) and np.array_equal(back.view(np.uint64), host.view(np.uint64))


def test_array_too_large_for_the_device(device):
    with pytest.raises(ValueError, match="largest buffer"):
        wgprim.empty(device.max_buffer_bytes // 4 + 16, np.float32)


def test_batch_submits_once_and_results_are_right(rng):
    x = rng.integers(0, 100, 5000).astype(np.int32)
    with wgprim.batch() as b:
        total = wgprim.sum(x)
        running = wgprim.cumsum(x)
        assert len(b) == 2  # queued, not submitted
    assert total.item() == x.sum() and np.array_equal(running.numpy(), np.cumsum(x, dtype=np.int32))


def test_reading_inside_a_batch_flushes_it(rng):
    x = rng.integers(0, 100, 5000).astype(np.int32)
    with wgprim.batch():
        assert wgprim.max(x).item() == x.max()


def test_fold_grid():
    assert fold_grid(10, 65535) == (10, 1)
    x, y = fold_grid(200_000, 65535)
    assert x <= 65535 and x * y >= 200_000 and (x - 1) * y < 200_000


def test_folded_grid_is_handled_by_kernels(device, rng, monkeypatch):
    # Pretend the grid limit is tiny so every multi-workgroup step gets folded into y.
    monkeypatch.setitem(device.limits, "max-compute-workgroups-per-dimension", 7)
    x = rng.integers(-1000, 1000, 4096 * 40 + 5).astype(np.int32)
    assert wgprim.sum(x).item() == x.sum()
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x, dtype=np.int32))
    np.testing.assert_array_equal(wgprim.sort(x).numpy(), np.sort(x))
    np.testing.assert_array_equal(wgprim.argsort(x).numpy(), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(wgprim.sort(x[:5000], method="bitonic").numpy(), np.sort(x[:5000]))
    np.testing.assert_array_equal(wgprim.histogram(x, bins=50)[0].numpy(), np.histogram(x, bins=50)[0])
    mask = x > 0
    np.testing.assert_array_equal(wgprim.compact(x, mask).numpy(), x[mask])
    np.testing.assert_array_equal(wgprim.unique(x).numpy(), np.unique(x))  # the bitmap
    np.testing.assert_array_equal(wgprim.unique(x.astype(np.float32)).numpy(), np.unique(x))  # the sort
    assert wgprim.min(x, method="atomic").item() == x.min()


def test_use_adapter_unknown_name_lists_adapters():
    with pytest.raises(wgprim.NoAdapterError, match="Adapters found"):
        wgprim.use_adapter("no-such-adapter-xyz")


def test_info_command(capsys):
    from wgprim.cli import main

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "max-storage-buffer-binding-size" in out and "wgprim uses" in out


def test_empty_program_runs():
    assert Program().run() is None


def test_nested_batches_keep_the_order_of_the_calls():
    x = np.arange(1000, dtype=np.uint32)
    with wgprim.batch():
        y = wgprim.cumsum(x)
        with wgprim.batch():
            z = wgprim.sum(y)
    assert z.item() == np.cumsum(x, dtype=np.uint32).sum(dtype=np.uint32)


def test_plan_queued_in_an_outer_batch(rng):
    plan = wgprim.ReducePlan(5000, np.uint32, "sum")
    a, b = (wgprim.asarray(rng.integers(0, 100, 5000).astype(np.uint32)) for _ in range(2))
    oa, ob = wgprim.empty((), np.uint32), wgprim.empty((), np.uint32)
    with wgprim.batch():
        plan(a, out=oa)
        with wgprim.batch():
            plan(b, out=ob)
    assert oa.item() == a.numpy().sum() and ob.item() == b.numpy().sum()


def test_sort_inside_a_batch(rng):
    x = rng.integers(0, 1 << 12, 20_000).astype(np.uint32)  # 2 digits vary: probed outside a batch
    with wgprim.batch():
        s = wgprim.sort(x)
    np.testing.assert_array_equal(s.numpy(), np.sort(x))


def test_reshape_refuses_two_unknown_dimensions_as_numpy():
    a = wgprim.asarray(np.arange(4, dtype=np.int32))
    for bad in ((-2, -2), (-1, -1), (-1, 2, -3)):
        with pytest.raises(ValueError):
            np.arange(4).reshape(bad)  # numpy refuses these too
        with pytest.raises(ValueError, match="one unknown dimension"):
            a.reshape(*bad)
    for good in ((2, -1), (-1,), (-3, 4), (2, -2)):  # numpy takes any negative size as -1
        assert a.reshape(good).shape == np.arange(4).reshape(good).shape


def test_array_just_under_the_largest_buffer_is_refused_up_front(device):
    from wgprim.array import buffer_size_for

    # The most float32s whose bytes fit the limit; rounded up to whole 16 bytes they may not.
    elements = device.max_buffer_bytes // 4
    if buffer_size_for(4 * elements) <= device.max_buffer_bytes:
        elements += 1  # the limit is a multiple of 16: one more element is over it
    with pytest.raises(ValueError, match="largest buffer"):
        wgprim.empty(elements, np.float32)
    with pytest.raises(ValueError, match="largest buffer"):
        wgprim.empty((2, elements // 2 + 1), np.int32)


def test_big_endian_input_is_converted_and_a_big_endian_dtype_names_byte_order(rng):
    x = rng.standard_normal(1000).astype(">f4")
    assert wgprim.asarray(x).dtype == np.float32
    np.testing.assert_array_equal(wgprim.asarray(x).numpy(), x.astype(np.float32))
    np.testing.assert_array_equal(wgprim.sort(x).numpy(), np.sort(x.astype(np.float32)))
    assert wgprim.max(x.astype(">i4")).item() == x.astype(np.int32).max()
    with pytest.raises(TypeError, match="byte order"):
        wgprim.empty(3, ">f4")


def test_subgroup_probe_first_needed_inside_a_batch_reads_its_own_result(device, monkeypatch):
    from wgprim.probes import consecutive_subgroups

    expected = consecutive_subgroups(device)
    monkeypatch.setitem(device._caches, "probes", {})
    with wgprim.batch() as b:
        assert consecutive_subgroups(device) == expected and len(b) == 0
