"""Generic perfect-information search: transposition tables, MTD(f), alpha-beta."""

from spielwerk._jit import prepare as _prepare

_prepare()  # numba kernel cache folder and damaged-cache recovery, before any kernel loads
