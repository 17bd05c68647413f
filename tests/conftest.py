import gc
import os
import sys
import tempfile

import pytest

# Compiled JAX functions are shared through a cache folder of this test run, so test files
# that each build a JaxGame of the same data compile it once.
os.environ.setdefault("MONKEY_PALACE_JAX_CACHE", os.path.join(tempfile.gettempdir(), "monkey-palace-test-jax-cache"))
from monkey_env.core.jax_cache import enable_compilation_cache

enable_compilation_cache()


def pytest_addoption(parser):
    parser.addoption("--jax-games", type=int, default=180,
                     help="random games in the JAX-vs-reference differential test (10000 for the full check)")


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """Free each test file's compiled JAX programs when it ends. XLA's CPU executables map many
    small code regions each; kept for the whole run they reach the kernel's limit of memory
    maps (vm.max_map_count, 65,530 by default) and the next load crashes the process (seen as
    a segfault or an abort). The next file that needs a program loads it from the cache folder."""
    yield
    if "jax" in sys.modules:
        import jax

        jax.clear_caches()
        gc.collect()
