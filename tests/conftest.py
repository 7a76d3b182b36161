"""Test-session settings.

Torch's intra-op thread pool costs far more than it saves on the small policy networks the
tests train, and fights other processes for the cores; one thread is several times faster here.
Set before any test module imports torch.
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
