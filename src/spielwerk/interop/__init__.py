"""Bridges to other game-AI libraries (optional extras, imported only on use).

- :mod:`spielwerk.interop.openspiel` (extra ``[openspiel]``): every spielwerk
  game as an OpenSpiel Python game (``pyspiel.load_game("spielwerk_skat")``)
  and OpenSpiel's bots as spielwerk agents (``openspiel:ismcts:iters=1000``).
- :mod:`spielwerk.interop.pettingzoo` (extra ``[pettingzoo]``): a PettingZoo
  AEC environment for every game (``env("durak(players=4)")``).

Neither module is imported by ``import spielwerk``; importing this package
loads neither host library.
"""
