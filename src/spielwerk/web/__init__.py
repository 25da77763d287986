"""The web table: play the games that offer one against the engines in a browser.

``app.create_app`` builds the FastAPI application (pages, JSON API, one
websocket per table), ``store`` keeps tables and finished games in SQLite,
``engines`` runs agents in worker processes off the event loop, ``views``
turns a seat's ``InfoState`` into the JSON a browser receives.
"""
