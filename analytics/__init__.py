"""Usage analytics for the Language Service: client, frames, history, exports and the CLI."""

__version__ = "0.1.0"
