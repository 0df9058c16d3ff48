"""Key rotations: which key replaces which, who began it and when, and how it stands. One
rotation of a key at a time: the unique constraint refuses a second while the first is open."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "key_rotations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account", sa.String(80), nullable=False, index=True),
        sa.Column("old_key_id", sa.String(200), nullable=False),
        sa.Column("open_key_id", sa.String(200), nullable=True),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rotation", sa.Text, nullable=False),
        sa.UniqueConstraint("account", "open_key_id", name="one_open_rotation_per_key"),
    )
