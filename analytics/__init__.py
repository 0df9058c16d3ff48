"""Usage analytics for the Language Service: client, frames, history, exports and the CLI.

Each package answers one layer's questions through a face of its own (docs/architecture.md);
the library's own face is only its version, which the service client's User-Agent carries."""

__version__ = "0.1.0"

__all__ = ["__version__"]
