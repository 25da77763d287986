"""A round-robin tournament from Python: the README's arena example as a script.

Run: .venv/bin/python examples/arena_tournament.py
"""

from spielwerk.arena import TournamentConfig, run_tournament

if __name__ == "__main__":  # the process pool starts workers that import this file again
    config = TournamentConfig.create("kalah", ["random", "greedy"], 20)
    result = run_tournament(config)
    for agent in result.standings().agents:
        print(f"{agent.label}: score {100 * agent.score:.1f}% over {agent.games} games")
