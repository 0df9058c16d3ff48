"""Alembic's entry point: migrations always run on the connection the store hands over
(`analytics.storage.state_store`), inside its transaction and under its migration lock."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
