"""Double-dummy Skat solver (DDSS after Kupferschmid 2003): all hands known, perfect play.

The search is a numba alpha-beta on 32-bit card masks. The declarer is MAX, the
two defenders are MIN nodes, and the turn order follows the trick winners. The
searched value is the *rest of the game* from the current node (card points
of the tricks still to be won, the cards on the table included), so a
transposition-table entry is reusable whatever the history was (seed section
"Optimierungen der Alpha-Beta-Suche").

Three objectives ("modes") share one search:

* ``MODE_POINTS`` - card points the declarer wins (61 / 90 thresholds, exact value);
* ``MODE_DECLARER_TRICKS`` - tricks the declarer wins (schwarz: all of them);
* ``MODE_DEFENDER_TRICKS`` - tricks the defenders win (null: the declarer wins
  the null game iff the defenders take every remaining trick).

The package is laid out as strong engines are:

* :mod:`.keys` - table use: card order, equivalence groups, table keys and the
  table generation; the table itself is the shared clustered table of
  :mod:`spielwerk.search.tt` (lower and upper bound per entry, four entries
  per bucket, one cache line);
* :mod:`.ordering` - move ordering (``ORDER_*`` flags and score fields:
  hash move, defenders' lead look-ahead and fewest replies on lead, cheap
  wins / feeding the partner when following; history and killers, off by
  default);
* :mod:`.bounds` - sure points (quick tricks) of either side, the last one or
  two tricks answered directly;
* :mod:`.search` - the alpha-beta loop on an explicit stack (move
  generation, one card per run of equivalent cards, and ordering written out
  in it: splitting the loop into numba helpers cost 1.5-4x per node), the
  null-window value (the shared MTD-bi driver of
  :mod:`spielwerk.search.nullwindow`) and the per-card values at the root;
* :mod:`.api` - :class:`DealPosition`, :class:`SolverConfig` (one switch per
  technique, for the ablation), :class:`Solver` and its queries.

Early cut-offs use the points counted so far: a node stops as soon as the
remaining points cannot change the outcome of the window. Depth is bounded
(at most 30 plies) and the search uses an explicit stack (no recursion).
"""

from __future__ import annotations

from spielwerk.games.skat.dds.api import (
    QUERIES,
    DealPosition,
    SearchLimitError,
    Solver,
    SolverConfig,
    SolverError,
    SolveResult,
    best_cards,
)
from spielwerk.games.skat.dds.keys import (
    MODE_DECLARER_TRICKS,
    MODE_DEFENDER_TRICKS,
    MODE_POINTS,
    card_order,
)
from spielwerk.games.skat.dds.ordering import (
    ORDER_FOLLOW,
    ORDER_HASH_MOVE,
    ORDER_HISTORY,
    ORDER_KILLERS,
    ORDER_LEAD,
)
from spielwerk.games.skat.dds.search import MAX_PLY

__all__ = [
    "MAX_PLY",
    "MODE_DECLARER_TRICKS",
    "MODE_DEFENDER_TRICKS",
    "MODE_POINTS",
    "ORDER_FOLLOW",
    "ORDER_HASH_MOVE",
    "ORDER_HISTORY",
    "ORDER_KILLERS",
    "ORDER_LEAD",
    "QUERIES",
    "DealPosition",
    "SearchLimitError",
    "SolveResult",
    "Solver",
    "SolverConfig",
    "SolverError",
    "best_cards",
    "card_order",
]
