"""Built-in games; importing this package registers them and their agents."""

from spielwerk.games import durak, kalah, skat  # noqa: F401
