"""Start-up helpers of monkey_env.core.jax_cache: arrays and keys put on the device without a
compiled program, equal to what jnp.asarray and jax.random.PRNGKey give."""

import logging

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from monkey_env.core.jax_cache import on_device, prng_key


class _Compiles(logging.Handler):
    def __init__(self):
        super().__init__()
        self.programs = []

    def emit(self, record):
        if record.getMessage().startswith("Compiling "):
            self.programs.append(record.getMessage()[:80])


@pytest.fixture
def compiles():
    """The programs JAX compiles while the test runs (jax_log_compiles' records)."""
    handler = _Compiles()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    with jax.log_compiles(True):
        yield handler.programs
    logger.removeHandler(handler)


def test_the_compile_log_sees_an_asarray(compiles):
    """The fixture can fail: jnp.asarray of a list of a new shape compiles a conversion."""
    jnp.asarray([[7, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11]], jnp.int32)
    assert compiles


@pytest.mark.parametrize("value, dtype", [([[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9]], np.int32),
                                          ([True, False, True, True, False, True, False], None),
                                          (np.arange(17, dtype=np.int64), None),
                                          (np.full((3, 29), 4), np.int8), (12, np.int32)])
def test_on_device_is_jnp_asarray_without_compiling(compiles, value, dtype):
    got = on_device(value, dtype)
    assert not compiles, compiles
    want = jnp.asarray(value, dtype)
    assert isinstance(got, jax.Array) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("seed", [0, 1, 41, 2**31 - 1, 2**31, 2**32 - 1])
def test_prng_key_is_jax_key(seed):
    want = jax.random.PRNGKey(seed)
    got = prng_key(seed)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # Same key, same draws.
    np.testing.assert_array_equal(np.asarray(jax.random.uniform(got, (3,))), np.asarray(jax.random.uniform(want, (3,))))


def test_prng_key_compiles_nothing(compiles):
    prng_key(123)
    assert not compiles, compiles
