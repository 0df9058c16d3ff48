"""The organization's settings (prices, teams, budgets, alert routes), which lived only in
files: every version of each document, kept."""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "settings_versions",
        sa.Column("account", sa.String(80), primary_key=True),
        sa.Column("part", sa.String(20), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("file", sa.String(300), nullable=True),
    )
