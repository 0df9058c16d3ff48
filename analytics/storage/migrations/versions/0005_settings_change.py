"""A settings version made by something other than an edit says what made it ("rotation of
Web shop"), so the history tells a rotation's change of the teams from a person's."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.add_column("settings_versions", sa.Column("change", sa.String(300), nullable=True))
