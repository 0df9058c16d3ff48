"""A deterministic synthetic organization with realistic usage shapes, generated with numpy in
one go (`generation`).

The first eight keys each carry one shape the dashboard must cope with (see SIGNATURE_KEYS);
further keys get random mixes (`key_specs`, `shapes`). Every key-day is drawn at once as a
keys × days matrix. Unless asked not to, a few known anomalies are then put into the last
months, and listed (`injection`). For the benchmark's forecasts, the year's calendar
(`seasons`) and keys' regime changes (`regimes`) can be put into the usage. Custom tags
(`custom_tags`) and language pairs (`language_pairs`) are shares of that usage, drawn from
generators of their own.

Whatever the number of keys, the organization keeps the service's rule of at most 25 active
developer keys with places free: at most ACTIVE_KEYS (22) are active, so "Create a key" works
out of the box, three times before one must be deactivated. Further keys beyond that are
deactivated at the start of today (UTC), after every day of their history
(`key_specs.keep_places_free`).
"""

from emulator.synthetic.generation import generate
from emulator.synthetic.injection import INJECT_DAYS
from emulator.synthetic.key_specs import RELABELLED_TO, SIGNATURE_KEYS
from emulator.synthetic.shapes import STARTS_WITHIN

__all__ = ["INJECT_DAYS", "RELABELLED_TO", "SIGNATURE_KEYS", "STARTS_WITHIN", "generate"]
