"""How much will be used, and how far to trust it: the run rate and the other forecasting
candidates (``run_rate_model``, ``candidates``), their rolling-origin backtest
(``backtesting``), the one forecast of a series served from it (``outlook``), every projection
read from that forecast day by day (``projections``) and the what-ifs a meeting asks
(``whatif``).

The budgets and the buying decision read forecasts through this face only."""

from analytics.capacity.forecasting.backtesting import (
    HORIZONS,
    MIN_FORECAST,
    Backtest,
    backtest,
    interval_shares,
    months_later,
    ratio_quantiles,
)
from analytics.capacity.forecasting.candidates import SEASONAL_NAIVE, Floats, History
from analytics.capacity.forecasting.outlook import (
    MAX_TERM_MONTHS,
    PERIOD_NAMES,
    Outlook,
    accuracy_text,
    backtest_table,
    forecast_rows,
    outlooks,
    period_text,
)
from analytics.capacity.forecasting.projections import (
    expected_days,
    key_forecasts,
    organization_outlook,
    projection_path,
    recent_share,
)
from analytics.capacity.forecasting.run_rate_model import (
    ORGANIZATION,
    forecast_start,
    required_start,
)
from analytics.capacity.forecasting.scores import coverage, wape
from analytics.capacity.forecasting.whatif import (
    TODAY_DAYS,
    WhatIf,
    WhatIfError,
    Workload,
    parse_growth,
    parse_workload,
    warnings,
)

__all__ = [
    "HORIZONS",
    "MAX_TERM_MONTHS",
    "MIN_FORECAST",
    "ORGANIZATION",
    "PERIOD_NAMES",
    "SEASONAL_NAIVE",
    "TODAY_DAYS",
    "Backtest",
    "Floats",
    "History",
    "Outlook",
    "WhatIf",
    "WhatIfError",
    "Workload",
    "accuracy_text",
    "backtest",
    "backtest_table",
    "coverage",
    "expected_days",
    "forecast_rows",
    "forecast_start",
    "interval_shares",
    "key_forecasts",
    "months_later",
    "organization_outlook",
    "outlooks",
    "parse_growth",
    "parse_workload",
    "period_text",
    "projection_path",
    "ratio_quantiles",
    "recent_share",
    "required_start",
    "wape",
    "warnings",
]
