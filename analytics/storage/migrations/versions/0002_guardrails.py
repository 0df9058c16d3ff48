"""The guardrails' memory (hand-set limits, the last run), which lived in a file replaced
whole by the applier holding its lock."""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "guardrail_state",
        sa.Column("account", sa.String(80), primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
    )
