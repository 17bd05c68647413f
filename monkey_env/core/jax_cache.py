"""JAX's persistent compilation cache for monkey-palace's commands and tests.

The JAX engine takes tens of seconds to compile; with the cache on disk a second run (or a
second JaxGame of the same data in one run) loads the compiled code in seconds. The cache
lives in ~/.cache/monkey-palace/jax unless MONKEY_PALACE_JAX_CACHE names another folder;
MONKEY_PALACE_JAX_CACHE=off disables it. What is too small for the cache is better not compiled at
all: ``on_device`` and ``prng_key`` make start-up constants without a program.
"""

from __future__ import annotations

import os
import sys

# Cache every program that took this long to compile: start-up is many small programs too.
MIN_COMPILE_SECONDS = 0.1


def cache_dir() -> str | None:
    """The compilation cache's folder, or None when it is off."""
    path = os.environ.get("MONKEY_PALACE_JAX_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "monkey-palace", "jax")
    return None if path == "off" else path


def enable_compilation_cache() -> None:
    path = cache_dir()
    if path is None:
        return
    # The environment variables are read by JAX when it is first imported (costing nothing if
    # JAX is never used) and inherited by worker processes (Ray, RLlib, TorchRL, the arena's).
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", path)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", str(MIN_COMPILE_SECONDS))
    if "jax" in sys.modules:
        import jax
        jax.config.update("jax_compilation_cache_dir", os.environ["JAX_COMPILATION_CACHE_DIR"])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)


def source_fingerprint(*packages: str) -> str:
    """A hash of the Python sources of these packages and of the JAX version: what a traced
    program depends on besides its arguments."""
    import hashlib
    import importlib
    from pathlib import Path

    import jax

    h = hashlib.sha256(jax.__version__.encode())
    for name in packages:
        root = Path(importlib.import_module(name).__file__).parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def exported_function(fn, example_args: tuple, name: str, fingerprint: str):
    """``jax.jit(fn)`` for arguments shaped like ``example_args``, traced once per machine.

    A new process normally traces and lowers a program before the compilation cache can
    answer (about a second for the engine's step). The program is exported (jax.export) to the
    cache folder the first time and read back later, so only the compiled code is loaded; the
    name and fingerprint (sources, data, settings) decide when it is made again. With the cache
    off, or if anything about the export fails, this is plain ``jax.jit(fn)``."""
    import jax

    folder = cache_dir()
    if folder is None:
        return jax.jit(fn)
    try:
        from jax import export

        path = os.path.join(folder, "exports", f"{name}-{fingerprint}.jaxexport")
        if os.path.exists(path):
            with open(path, "rb") as f:
                program = export.deserialize(bytearray(f.read()))
        else:
            program = export.export(jax.jit(fn))(*example_args)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(program.serialize())
            os.replace(tmp, path)          # atomic: a concurrent reader sees all or nothing
        return jax.jit(program.call)
    except Exception:   # an old cache file, a JAX without serialization: trace as usual
        return jax.jit(fn)


def on_device(value, dtype=None):
    """``jnp.asarray(value, dtype)`` without compiling anything: jnp.asarray converts a list (or
    a NumPy array) on the device with a small jitted program per shape and dtype, tens of
    milliseconds each at start-up; the NumPy array put on the device as it is costs none."""
    import jax
    import numpy as np

    return jax.device_put(np.asarray(value, dtype))


def prng_key(seed: int):
    """``jax.random.PRNGKey(seed)`` without compiling (see on_device): a threefry key of a seed
    in [0, 2^32) is the pair (0, seed); other seeds and key types go through JAX."""
    import jax
    import numpy as np

    if jax.config.jax_default_prng_impl == "threefry2x32" and 0 <= seed < 2**32:
        return jax.device_put(np.array([0, seed], np.uint32))
    return jax.random.PRNGKey(seed)
