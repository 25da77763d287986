"""Skat knowledge bases of solved deals and k-nearest-neighbour bidding and skat putting.

Modules: :mod:`features` (hand vectors), :mod:`deals` (deals and their
double-dummy labels), :mod:`store` (npz shards + manifest), :mod:`build`
(resumable building on the arena executors), :mod:`knn` (bidding, game
choice, putting). See docs/skat-bidding.md.
"""

from spielwerk.games.skat.knowledge.knn import (
    BidDecision,
    KnnModel,
    KnnParams,
    PutDecision,
    decide_bid,
    decide_put,
    default_base_dir,
)
from spielwerk.games.skat.knowledge.store import KnowledgeBaseError

__all__ = [
    "BidDecision", "KnnModel", "KnnParams", "KnowledgeBaseError", "PutDecision",
    "decide_bid", "decide_put", "default_base_dir",
]
