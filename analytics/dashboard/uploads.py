"""What a page's file uploader gives, as far as the dashboard reads it: its name and bytes.

Streamlit's own class lives in its private runtime package; this protocol types an upload
without importing it, and Streamlit's upload fulfils it.
"""

from __future__ import annotations

from typing import Protocol


class UploadedFile(Protocol):
    """A file chosen with `st.file_uploader`."""

    @property
    def name(self) -> str: ...

    def getvalue(self) -> bytes: ...
