"""The records the history folder kept in files: anomaly marks, alert deliveries, the key
audit log."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "anomaly_marks",
        sa.Column("account", sa.String(80), primary_key=True),
        sa.Column("anomaly", sa.String(300), primary_key=True),
        sa.Column("mark", sa.String(20), nullable=False),
        sa.Column("marked_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "alert_deliveries",
        sa.Column("destination", sa.String(200), primary_key=True),
        sa.Column("event", sa.String(400), primary_key=True),
        sa.Column("level", sa.String(20), primary_key=True),
        sa.Column("stage", sa.String(20), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "key_audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account", sa.String(80), nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    op.create_index("ix_key_audit_account", "key_audit", ["account"])
