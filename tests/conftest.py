"""Hypothesis profiles: the gate runs with fixed seeds, wider exploration runs on demand.

- ``ci`` (default): every property test is derandomized (its seed comes from the test itself)
  and no example database is read or written, so a fresh clone runs the same examples each time.
- ``explore`` (``HYPOTHESIS_PROFILE=explore``): random seeds, the example database on, and
  ``EXPLORE`` times the examples of the tests that size themselves with ``examples()``. What it
  finds becomes a pinned ``@example`` in the test.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
