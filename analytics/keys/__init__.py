"""Developer keys: joining the service's key list to usage, each key against its own limits,
and changing keys with every attempt audited."""
