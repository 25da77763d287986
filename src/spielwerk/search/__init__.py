"""Generic perfect-information search: transposition tables, MTD(f), alpha-beta."""
