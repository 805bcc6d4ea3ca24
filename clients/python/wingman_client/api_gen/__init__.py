"""A client library for accessing Wingman"""

from __future__ import annotations

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
