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


# XLA's CPU executables map many small code regions each. Kept for the whole run they reach the
# kernel's limit of memory maps (vm.max_map_count, 65,530 by default: 47,825 were seen just before
# a crash) and the next load crashes the process, as a segfault or an abort. After a test that
# leaves the process above MAP_BUDGET maps, the compiled programs are freed; one test adds at
# most about 25,000 (a training run and its resume), so the peak stays well under the limit,
# and programs are kept (not retraced) the rest of the time.
MAP_BUDGET = 20_000


def memory_maps() -> int:
    """This process's memory maps (0 where /proc is missing: no such limit to watch)."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:
        return 0


@pytest.fixture(autouse=True)
def _release_compiled_programs():
    yield
    if "jax" in sys.modules and memory_maps() > MAP_BUDGET:
        import jax

        jax.clear_caches()
        gc.collect()
