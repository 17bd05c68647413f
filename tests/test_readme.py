"""Every Python block of the README runs as pasted, in a fresh process and an empty folder."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path):
    out = subprocess.run([sys.executable, "-c", BLOCKS[index]], cwd=tmp_path, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, f"README block {index}:\n{BLOCKS[index]}\n{out.stderr[-3000:]}"
