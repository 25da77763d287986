"""The arena: games, matches, duplicate deals and round-robin tournaments between agents.

Quick use::

    from spielwerk.arena import TournamentConfig, run_tournament, SerialExecutor
    config = TournamentConfig.create("kalah", ["random", "greedy"], games_per_group=20, seed=1)
    result = run_tournament(config, SerialExecutor())
    print(result.standings().agents)
"""

from spielwerk.arena.match import (
    AgentFailedError,
    ArenaError,
    GameResult,
    GameTask,
    agent_seed,
    derive_seed,
    play_game,
    play_one,
    run_task,
)
from spielwerk.arena.results import ResultsFile, ResultsFileError, read_results
from spielwerk.arena.stats import (
    AgentStanding,
    PairStanding,
    Standings,
    bradley_terry_elo,
    mean_and_se,
    standings,
    wilson_interval,
)
from spielwerk.arena.tournament import (
    TournamentConfig,
    TournamentResult,
    duplicate_deals,
    match_config,
    play_match,
    run_tournament,
    seatings,
)
from spielwerk.core.parallel import (
    DaskExecutor,
    Executor,
    ExecutorError,
    LocalProcessExecutor,
    SerialExecutor,
    make_executor,
)

__all__ = [
    "AgentFailedError",
    "AgentStanding",
    "ArenaError",
    "DaskExecutor",
    "Executor",
    "ExecutorError",
    "GameResult",
    "GameTask",
    "LocalProcessExecutor",
    "PairStanding",
    "ResultsFile",
    "ResultsFileError",
    "SerialExecutor",
    "Standings",
    "TournamentConfig",
    "TournamentResult",
    "agent_seed",
    "bradley_terry_elo",
    "derive_seed",
    "duplicate_deals",
    "make_executor",
    "match_config",
    "mean_and_se",
    "play_game",
    "play_match",
    "play_one",
    "read_results",
    "run_task",
    "run_tournament",
    "seatings",
    "standings",
    "wilson_interval",
]
