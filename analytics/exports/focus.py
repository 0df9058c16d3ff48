"""FOCUS 1.2: the organization's (or some teams') cost and usage in the FinOps Open Cost and
Usage Specification's columns, as a FinOps tool consolidating every vendor's costs reads them.

Every amount comes from the money layer, never priced here: the usage rows are the line items
of ``cost.spend.price_usage`` per key, day and priced metric (one charged service each), the base
fee is Chargeback's (``cost.chargeback``), shared below the teams by ``base_fee_shares`` as
the export's ``base_fee_share`` columns are. So the rows' ``BilledCost`` adds up to Chargeback's
total of each month, and to ``export --with-cost``'s ``total_cost`` columns, to the cent.

The plan is read as the specification reads a commitment: its **base fee** is a ``Purchase`` row
of its month (``ChargeFrequency`` "Recurring", ``BilledCost`` the fee, or a team's share of it
in a team's file), and the included volume it buys is consumed by the usage rows: a usage row's
``ListCost`` and ``ContractedCost`` are its usage at the prices in force, its ``BilledCost`` the
part above the included volume, and its ``EffectiveCost`` that plus its amortized share of the
base fee (``x_AmortizedBaseFee``). A Purchase row's ``EffectiveCost`` is the part of its fee no
usage row carries (the fee of a month without usage), 0 otherwise; so ``EffectiveCost`` and
``BilledCost`` have the same sum.

Days without a price are left out (not priced is not free): ``unpriced_warning`` names them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analytics.cost import (
    NO_TEAMS,
    Chargeback,
    Ints,
    Pricing,
    Spend,
    Teams,
    apportion,
    as_decimal_array,
    base_fee_shares,
    chargeback,
    key_owners,
    key_teams,
    price_usage,
)
from analytics.service import ServiceConnection
from analytics.usage import (
    METRIC_LABELS,
    MINUTES,
    SPEECH_TO_SPEECH,
    account_name,
    is_minutes,
    labels,
)

FOCUS_VERSION: Final = "1.2"
PROVIDER: Final = "Language Service"
SERVICE_CATEGORY: Final = "AI and Machine Learning"
SERVICE_SUBCATEGORY: Final = "Natural Language Processing"
PLAN_SERVICE: Final = "Language Service plan"
# Each priced metric is one charged service.
SERVICE_NAMES: Final[dict[str, str]] = {
    "text_translation_characters": "Text translation",
    "document_translation_characters": "Document translation",
    "text_improvement_characters": "Text improvement",
    MINUTES: "Speech-to-text",
    SPEECH_TO_SPEECH: "Speech-to-speech",
}
# Prices are per million characters and per minute (``cost.prices``).
PRICING_UNITS: Final = ("1000000 Characters", "Minutes")
CONSUMED_UNITS: Final = ("Characters", "Minutes")
COST_COLUMNS: Final = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost")
FOCUS_COLUMNS: Final = [
    "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodStart",
    "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargeFrequency", *COST_COLUMNS, "PricingCategory", "PricingQuantity",
    "PricingUnit", "ConsumedQuantity", "ConsumedUnit", "ProviderName", "PublisherName",
    "InvoiceIssuerName", "InvoiceId", "SubAccountId", "SubAccountName", "ResourceId",
    "ResourceName", "ResourceType", "ServiceCategory", "ServiceName", "ServiceSubcategory", "Tags",
    "x_Metric", "x_UsageDate", "x_AmortizedBaseFee",
]  # fmt: skip
QUANTITY_COLUMNS: Final = ("PricingQuantity", "ConsumedQuantity")
DATETIME_COLUMNS: Final = (
    "BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd",
)  # fmt: skip


@dataclass(frozen=True)
class BillingAccount:
    """Who the service bills: the organization (an id that names no secret, and its name)."""

    id: str
    name: str


def billing_account(connection: ServiceConnection, demo: bool) -> BillingAccount:
    """The billed account: the demo organization by its name, else the configured account by
    the digests its files are named with (never the key itself)."""
    if demo:
        return BillingAccount(connection.demo_name, "Demo organization")
    if connection.is_configured and connection.auth_key and connection.base_url:
        name = account_name(connection.base_url, connection.auth_key)
        return BillingAccount(name, f"{PROVIDER} account {name}")
    return BillingAccount("unconfigured", "Unconfigured account")


def focus_table(
    organization: pd.DataFrame,
    pricing: Pricing,
    teams: Teams | None,
    start: date,
    end: date,
    account: BillingAccount,
    shown: frozenset[str] | None = None,
) -> pd.DataFrame:
    """The FOCUS rows of ``start``–``end`` from the organization's key-day frame of that
    range: a usage row per key, day and charged service, a Purchase row per month for the base
    fee; with ``shown``, those teams' usage rows and Purchase rows of their shares only (each
    amount the same as in the organization's file)."""
    cost_centres = teams or NO_TEAMS
    spend = price_usage(organization, pricing, start, end, "api_key", per="day")
    bill = chargeback(organization, pricing, cost_centres, start, end)
    label_of = labels(organization)
    team_of = key_teams(cost_centres, label_of)
    usage = _usage_rows(spend, bill, (team_of, label_of), cost_centres)
    if shown is not None:
        usage = usage[usage["team"].isin(list(shown))]
    purchases = _purchase_rows(bill, usage, spend, shown)
    return _columns(pd.concat([usage, purchases], ignore_index=True), pricing, account)


def _usage_rows(
    spend: Spend, bill: Chargeback, keys: tuple[dict[str, str], dict[str, str]], teams: Teams
) -> pd.DataFrame:
    """One row per key, day and metric with usage: its line item and its amortized share of
    the base fee (its key-day's share, shared between its metrics pro rata to list cost);
    ``keys``: each key's team and label."""
    team_of, label_of = keys
    items = spend.items.astype({"api_key": str, "metric": str}).reset_index(drop=True)
    fees = base_fee_shares(bill, spend, team_of)
    placed = fees[fees["group"].notna()].groupby(["usage_date", "group"])["base_fee_minor"].sum()
    codes, first = _key_days(items)
    unique = pd.MultiIndex.from_frame(items.loc[first, ["usage_date", "api_key"]])
    wholes = placed.reindex(unique, fill_value=0).astype("int64").tolist()
    weights = _weights(codes, items["list_amount_minor"])
    items["fee_minor"] = apportion(wholes, codes, weights)
    items["team"] = items["api_key"].map(team_of)
    day = pd.DatetimeIndex(items["usage_date"])
    items["period_start"], items["period_end"] = day, day + pd.Timedelta(days=1)
    items["api_key_label"] = items["api_key"].map(label_of)
    used = items["api_key"].unique()
    owners = key_owners(teams, ((key, label_of[key]) for key in used))
    tags = {
        key: _tags(team_of[key], owner.owner if owner else "", owner.purpose if owner else "")
        for key, owner in zip(used, owners, strict=True)
    }
    items["tags"] = items["api_key"].map(tags)  # made once per key
    return items


def _key_days(items: pd.DataFrame) -> tuple[Ints, Ints]:
    """Each row's key-day, numbered in the order they first come, and the row each first
    comes in (a key-day as two codes, never a tuple per row)."""
    day, _ = pd.factorize(items["usage_date"])
    key, keys = pd.factorize(items["api_key"])
    codes, _ = pd.factorize(day.astype(np.int64) * max(len(keys), 1) + key)
    first: Ints = np.unique(codes, return_index=True)[1]
    return codes.astype(np.int64), first


def _weights(of: Ints, weights: pd.Series) -> Ints:
    """Each row's weight in its whole: its list cost, every row 1 where all weigh 0."""
    weight = weights.to_numpy(np.int64)
    total = np.zeros(int(of.max(initial=-1)) + 1, dtype=np.int64)
    np.add.at(total, of, weight)
    return np.where(total[of] == 0, 1, weight)


def _tags(team: str, owner: str, purpose: str) -> str:
    """The key's tags as a JSON object: its team, and its owner and purpose where the teams
    settings name them."""
    tags = {"team": team} | ({"owner": owner} if owner else {})
    return json.dumps(tags | ({"purpose": purpose} if purpose else {}), sort_keys=True)


def _purchase_rows(
    bill: Chargeback, usage: pd.DataFrame, spend: Spend, shown: frozenset[str] | None
) -> pd.DataFrame:
    """The base fee of each month as a Purchase row (the organization's), or each shown team's
    share of it as one: ``EffectiveCost`` the part no usage row of the file amortizes."""
    if shown is None:
        fees = bill.total[["month", "base_fee_minor"]].assign(team=None)
        placed = usage.groupby("month")["fee_minor"].sum()
        amortized = placed.reindex(pd.DatetimeIndex(fees["month"]), fill_value=0)
    else:
        table = bill.table.astype({"team": str})
        fees = table.loc[table["team"].isin(list(shown)), ["month", "team", "base_fee_minor"]]
        placed = usage.groupby(["month", "team"])["fee_minor"].sum()
        amortized = placed.reindex(pd.MultiIndex.from_frame(fees[["month", "team"]]), fill_value=0)
    fees = fees.assign(amortized=amortized.to_numpy(np.int64))
    fees = fees[fees["base_fee_minor"] != 0].reset_index(drop=True)
    month = pd.DatetimeIndex(fees["month"])
    first = pd.Timestamp(spend.start if spend.unpriced is None else spend.unpriced.last)
    first += pd.Timedelta(days=0 if spend.unpriced is None else 1)
    after = pd.Timestamp(spend.end) + pd.Timedelta(days=1)
    return pd.DataFrame(
        {
            "month": month,
            "team": fees["team"],
            "amount_minor": fees["base_fee_minor"],
            "list_amount_minor": fees["base_fee_minor"],
            "fee_minor": fees["base_fee_minor"] - fees["amortized"],
            "period_start": month.where(month > first, first),
            "period_end": (month + pd.offsets.MonthBegin(1)).where(
                month + pd.offsets.MonthBegin(1) < after, after
            ),
            "tags": [None if team is None else _tags(team, "", "") for team in fees["team"]],
        }
    )


def _utc(values: pd.Series | pd.DatetimeIndex) -> pd.Series:
    """Days as instants at UTC midnight (FOCUS's date/times are UTC)."""
    return pd.Series(pd.DatetimeIndex(values).as_unit("s").tz_localize("UTC"))


def _columns(rows: pd.DataFrame, pricing: Pricing, account: BillingAccount) -> pd.DataFrame:
    """The rows in FOCUS's columns; a usage row has a metric, a Purchase row none. What a
    row's metric or month decides is worked out once per metric or month, then taken by each
    row (``_per``): a file holds a million rows of five metrics and sixty months."""
    usage = rows["metric"].notna().to_numpy()
    metric, metrics = pd.factorize(rows["metric"])
    minutes = [is_minutes(str(m)) for m in metrics]
    currency = pricing.currency
    month = pd.DatetimeIndex(rows["month"])
    in_month, months = pd.factorize(month)
    billed = rows["amount_minor"].to_numpy(np.int64)
    effective = np.where(usage, billed, 0) + rows["fee_minor"].to_numpy(np.int64)
    listed = _amounts(rows["list_amount_minor"].to_numpy(np.int64), currency)
    purchases = ~usage
    description = _per(metric, [METRIC_LABELS[str(m)] for m in metrics])
    description[purchases] = [f"Base fee of the plan, {day:%Y-%m}" for day in month[purchases]]
    pricing_quantity, consumed_quantity = _quantities(rows["usage"], metric, minutes)
    frame = pd.DataFrame(
        {
            **_constant_columns(account, currency),
            "BillingPeriodStart": _utc(month),
            "BillingPeriodEnd": _utc(month + pd.offsets.MonthBegin(1)),
            "ChargePeriodStart": _utc(rows["period_start"]),
            "ChargePeriodEnd": _utc(rows["period_end"]),
            "ChargeCategory": np.where(usage, "Usage", "Purchase"),
            "ChargeClass": None,
            "ChargeDescription": description,
            "ChargeFrequency": np.where(usage, "Usage-Based", "Recurring"),
            "BilledCost": _amounts(billed, currency),
            "EffectiveCost": _amounts(effective, currency),
            "ListCost": listed,
            "ContractedCost": listed,
            "PricingQuantity": pricing_quantity,
            "PricingUnit": _per(metric, [PRICING_UNITS[m] for m in minutes], "Months"),
            "ConsumedQuantity": consumed_quantity,
            "ConsumedUnit": _per(metric, [CONSUMED_UNITS[m] for m in minutes]),
            "InvoiceId": _per(in_month, [f"{account.id}-{day:%Y-%m}" for day in months]),
            "SubAccountId": rows["team"],
            "SubAccountName": rows["team"],
            "ResourceId": rows["api_key"].where(usage, None) if "api_key" in rows else None,
            "ResourceName": rows["api_key_label"].where(usage, None) if "api_key" in rows else None,
            "ResourceType": pd.Series("API key", index=rows.index).where(usage, None),
            "ServiceName": _per(metric, [SERVICE_NAMES[str(m)] for m in metrics], PLAN_SERVICE),
            "Tags": rows["tags"],
            "x_Metric": rows["metric"].where(usage, None),
            "x_UsageDate": _days(rows["usage_date"]) if "usage_date" in rows else None,
            "x_AmortizedBaseFee": _amounts(effective - billed, currency, usage),
        }
    )
    return frame[FOCUS_COLUMNS]


def _amounts(minor: Ints, currency: str, present: npt.NDArray[np.bool_] | None = None) -> Any:
    """A column of exact amounts held by Arrow (`money.as_decimal_array`): a file of millions
    of rows is written from it without a Decimal per cell; null where not ``present``."""
    amounts = as_decimal_array(minor, currency)
    if present is not None:
        amounts = pc.if_else(pa.array(present), amounts, pa.scalar(None, amounts.type))
    return pd.arrays.ArrowExtensionArray(amounts)


def _per(codes: npt.NDArray[np.intp], values: list[Any], missing: Any = None) -> npt.NDArray[Any]:
    """Each row's value of its code (``pd.factorize``'s), ``missing`` for a row without one
    (code -1)."""
    return np.array([*values, missing], dtype=object)[codes]


def _days(values: pd.Series) -> npt.NDArray[Any]:
    """Each row's day as a date (NaT for none: a Purchase row), each distinct day made once."""
    codes, days = pd.factorize(pd.DatetimeIndex(values))
    return _per(codes, list(pd.DatetimeIndex(days).date), pd.NaT)


def _constant_columns(account: BillingAccount, currency: str) -> dict[str, str]:
    """The columns every row has alike: the billed account, the currency, the provider, the
    category of its services."""
    return {
        "BillingAccountId": account.id,
        "BillingAccountName": account.name,
        "BillingCurrency": currency,
        "PricingCategory": "Standard",
        "ProviderName": PROVIDER,
        "PublisherName": PROVIDER,
        "InvoiceIssuerName": PROVIDER,
        "ServiceCategory": SERVICE_CATEGORY,
        "ServiceSubcategory": SERVICE_SUBCATEGORY,
    }


def _quantities(
    usage: pd.Series, metric: npt.NDArray[np.intp], minutes: list[bool]
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Pricing and consumed quantity of each row: characters priced per million, minutes per
    minute (to the micro-minute the money layer counts); a Purchase row (its usage NaN) is one
    month bought and consumes nothing. Each distinct quantity is made once."""
    in_minutes = np.array([*minutes, False])[metric]
    counted = usage.to_numpy(np.float64)
    present = ~np.isnan(counted)
    units = np.where(in_minutes, np.round(counted * 1_000_000), np.trunc(counted))
    key = np.where(present, np.nan_to_num(units).astype(np.int64) * 2 + in_minutes, -1)
    codes, distinct = pd.factorize(key)
    priced, consumed = [], []
    for each in distinct.tolist():
        count, is_minutes = divmod(each, 2)
        quantity = Decimal(count).scaleb(-6) if is_minutes else Decimal(count)
        consumed.append(None if each < 0 else quantity)
        priced.append(Decimal(1) if each < 0 else quantity if is_minutes else quantity.scaleb(-6))
    return _per(codes, priced), _per(codes, consumed)


def focus_file_table(table: pd.DataFrame, csv: bool) -> pd.DataFrame:
    """The rows as a file holds them: in CSV the date/times in FOCUS's text form
    (``2025-07-01T00:00:00Z``) and each quantity as its Decimal writes it; Parquet keeps the
    date/times as UTC timestamps and holds the quantities as Arrow decimals, each distinct
    quantity converted once (a Decimal per cell is most of the time of writing a file)."""
    if not csv:
        return table.assign(**{c: _arrow_decimals(table[c]) for c in QUANTITY_COLUMNS})
    return table.assign(**{c: _instants(table[c]) for c in DATETIME_COLUMNS})


def _arrow_decimals(values: pd.Series) -> pd.arrays.ArrowExtensionArray:
    """A column of Decimals (None where missing) as one Arrow decimal type, the scale of its
    finest, each distinct value converted once."""
    codes, distinct = pd.factorize(values)
    where = pa.array(codes, mask=codes < 0)
    return pd.arrays.ArrowExtensionArray(pa.array(list(distinct)).take(where))


def _instants(values: pd.Series) -> npt.NDArray[Any]:
    """FOCUS's text of each instant, each distinct one written once."""
    codes, instants = pd.factorize(values)
    return _per(codes, list(pd.DatetimeIndex(instants).strftime("%Y-%m-%dT%H:%M:%SZ")))
