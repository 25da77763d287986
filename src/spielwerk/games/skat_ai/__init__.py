"""The Skat AI, beside the rules in :mod:`spielwerk.games.skat` and built on them only.

Layers, lowest first (no module imports one above it):

* :mod:`knowledge` - knowledge bases of solved deals: features, deals, storage, building;
* :mod:`handstrength`, :mod:`winprob`, :mod:`params` - hand-strength counts, the winning
  probability tables of refined selection, the ``knn`` bot's parameters and win chances;
* :mod:`selection` - refined skat selection (hard rules, soft scores, PIMC putting);
* :mod:`knn` - the neighbour model over a knowledge base;
* :mod:`bidding`, :mod:`putting` - the bot's decisions before the first card;
* :mod:`baseline`, :mod:`pimc_agent`, :mod:`knn_agent` - the agents ``random``, ``rule``,
  ``pimc`` and ``knn``, registered when this package is imported;
* :mod:`hints`, :mod:`review` - the web table's hints and the PIMC review of a seat's
  cards, registered with the game's table face when this package is imported.
"""

from spielwerk.core.table_face import register_advice
from spielwerk.games.skat_ai import baseline, knn_agent, pimc_agent  # noqa: F401 - registers
from spielwerk.games.skat_ai.hints import hint_for
from spielwerk.games.skat_ai.review import pimc_review

register_advice("skat", hint=hint_for, seat_review=pimc_review)
