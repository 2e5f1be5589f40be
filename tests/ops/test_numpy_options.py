"""numpy options wgprim does not honour: accepted at numpy's default, NotImplementedError
naming the alternative otherwise, TypeError for names numpy does not have either."""
import numpy as np
import pytest

import wgprim

X = np.arange(1, 11, dtype=np.float32)


@pytest.mark.parametrize("fn", ["sum", "prod", "min", "max"])
def test_reductions_accept_numpy_defaults(fn):
    got = getattr(wgprim, fn)(X, dtype=None, out=None, where=True).numpy()
    assert got == getattr(np, fn)(X)
    assert getattr(wgprim, fn)(X, where=np.True_).numpy() == getattr(np, fn)(X)


@pytest.mark.parametrize("fn", ["sum", "prod", "min", "max"])
@pytest.mark.parametrize("option, value, hint", [
    ("dtype", np.float64, "convert the input"),
    ("out", np.zeros(()), "Plan"),
    ("initial", 0.0, "initial value afterwards"),
    ("where", X > 3, "compact"),
    ("where", False, "compact"),
])
def test_reductions_refuse_other_values(fn, option, value, hint):
    with pytest.raises(NotImplementedError, match=rf"{fn}\({option}=.*{hint}"):
        getattr(wgprim, fn)(X, **{option: value})


@pytest.mark.parametrize("fn", ["argmin", "argmax"])
def test_arg_reductions(fn):
    assert getattr(wgprim, fn)(X, out=None).numpy() == getattr(np, fn)(X)
    with pytest.raises(NotImplementedError, match="out="):
        getattr(wgprim, fn)(X, out=np.zeros((), np.intp))
    with pytest.raises(TypeError, match="where"):
        getattr(wgprim, fn)(X, where=True)  # numpy's argmin has no where= either


def test_cumsum():
    np.testing.assert_array_equal(wgprim.cumsum(X, dtype=None).numpy(), np.cumsum(X))
    with pytest.raises(NotImplementedError, match="dtype="):
        wgprim.cumsum(X, dtype=np.float64)


def test_unique():
    x = np.array([3, 1, 3, np.nan, np.nan], np.float32)
    np.testing.assert_array_equal(wgprim.unique(x, equal_nan=True, return_index=False, axis=None).numpy(),
                                  np.unique(x))
    for option, value in [("axis", 0), ("sorted", False)]:
        with pytest.raises(NotImplementedError, match=option):
            wgprim.unique(x, **{option: value})
    for option in ("return_index", "return_inverse", "return_counts", "equal_nan"):
        for value in ("yes", [1], None, 1):
            with pytest.raises(TypeError, match=option):
                wgprim.unique(x, **{option: value})


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'keep_dims'"):
        wgprim.sum(X, keep_dims=True)
