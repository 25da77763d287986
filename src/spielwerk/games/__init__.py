"""Built-in games; importing this package registers them and their agents."""

from spielwerk.games import kalah  # noqa: F401
from spielwerk.games import durak  # noqa: F401
from spielwerk.games import skat  # noqa: F401
