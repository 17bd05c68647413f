"""JAX's persistent compilation cache for monkey-palace's commands and tests.

The JAX engine takes tens of seconds to compile; with the cache on disk a second run (or a
second JaxGame of the same data in one run) loads the compiled code in seconds. The cache
lives in ~/.cache/monkey-palace/jax unless MONKEY_PALACE_JAX_CACHE names another folder;
MONKEY_PALACE_JAX_CACHE=off disables it.
"""

from __future__ import annotations

import os
import sys


def enable_compilation_cache() -> None:
    path = os.environ.get("MONKEY_PALACE_JAX_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "monkey-palace", "jax")
    if path == "off":
        return
    if "jax" in sys.modules:
        import jax
        jax.config.update("jax_compilation_cache_dir", path)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    else:  # read by JAX when it is first imported; costs nothing if JAX is never used
        os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", path)
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")
