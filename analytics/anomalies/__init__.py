"""Anomalies in daily usage: detection against each key's own weekday habit (`detect`), the
marks people give them (`marks`), and their tables (`tables`)."""
