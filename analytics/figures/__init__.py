"""The plotly figures the pages and the report show: usage (`usage`), forecasts (`capacity`),
the capacity decision (`decision`: past forecasts against actuals, the cost curve) and
anomalies (`anomalies`), each in the one frame of `layout` and the colours of `theme`."""

from analytics.figures.anomalies import anomaly_figure
from analytics.figures.capacity import forecast_figure
from analytics.figures.decision import cost_curve_figure, past_forecasts_figure
from analytics.figures.usage import keys_over_time, minutes_over_time, service_mix, top_keys_bar

__all__ = [
    "anomaly_figure",
    "cost_curve_figure",
    "forecast_figure",
    "keys_over_time",
    "minutes_over_time",
    "past_forecasts_figure",
    "service_mix",
    "top_keys_bar",
]
