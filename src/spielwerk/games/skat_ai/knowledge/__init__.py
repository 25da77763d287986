"""Skat knowledge bases of solved deals: the data and the code that reads and builds it.

Modules: :mod:`features` (hand vectors), :mod:`deals` (deals and their
double-dummy labels), :mod:`store` (npz shards + manifest, the shipped base's
place), :mod:`build` (resumable building on the parallel executors). The
neighbour model over a base is :mod:`spielwerk.games.skat_ai.knn`. See
docs/skat-bidding.md.
"""
