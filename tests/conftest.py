import os
import tempfile

# Compiled JAX functions are shared through a cache folder of this test run, so test files
# that each build a JaxGame of the same data compile it once.
os.environ.setdefault("MONKEY_PALACE_JAX_CACHE", os.path.join(tempfile.gettempdir(), "monkey-palace-test-jax-cache"))
from monkey_env.core.jax_cache import enable_compilation_cache

enable_compilation_cache()


def pytest_addoption(parser):
    parser.addoption("--jax-games", type=int, default=180,
                     help="random games in the JAX-vs-reference differential test (10000 for the full check)")
