"""JAX's persistent compilation cache for monkey-palace's commands and tests.

The JAX engine takes tens of seconds to compile; with the cache on disk a second run (or a
second JaxGame of the same data in one run) loads the compiled code in seconds. The cache
lives in ~/.cache/monkey-palace/jax unless MONKEY_PALACE_JAX_CACHE names another folder;
MONKEY_PALACE_JAX_CACHE=off disables it.
"""

from __future__ import annotations

import os
import sys


# Cache every program that took this long to compile: start-up is many small programs too.
MIN_COMPILE_SECONDS = 0.1


def enable_compilation_cache() -> None:
    path = os.environ.get("MONKEY_PALACE_JAX_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "monkey-palace", "jax")
    if path == "off":
        return
    # The environment variables are read by JAX when it is first imported (costing nothing if
    # JAX is never used) and inherited by worker processes (Ray, RLlib, TorchRL, the arena's).
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", path)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", str(MIN_COMPILE_SECONDS))
    if "jax" in sys.modules:
        import jax
        jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
