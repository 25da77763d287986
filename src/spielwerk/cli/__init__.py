"""The ``spielwerk`` command line (typer + rich)."""
