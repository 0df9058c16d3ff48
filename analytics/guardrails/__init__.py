"""Guardrails: budgets marked ``enforce = true`` held by the keys' own limits, which the service
enforces on its live counters. ``rules`` says which budgets can be held, ``plan`` shares each
out as limits (pure; one budget's measure in ``sharing``, over the ``situation`` it reads),
``reading`` reads what the plan needs, ``apply`` sends the changes and gives the limits back
(``state`` remembers what they were)."""
