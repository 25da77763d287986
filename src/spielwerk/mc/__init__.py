"""Monte-Carlo search over the core API: UCT, determinized UCT, SO-ISMCTS (and PIMC)."""
